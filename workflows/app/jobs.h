// `novacat jobs`: what the store recorded of the runs, for an operator
// (AP-OPS-1..3 through runtime::RecordStore), as an aligned table or JSON.
//
//   QueryJobs     --nova N: the nova's JobRuns (AP-OPS-1, SK order, i.e. by
//                 job_run_id), with --attempts each run's Attempts (AP-OPS-2,
//                 SK order: state name, Map item, attempt number).
//                 --run R: that one JobRun and its Attempts; in the nova's
//                 partition with --nova, else in its own (PK=JOBRUN#R,
//                 SK=META: AP-OPS-3), where the runs of a workflow started
//                 without a nova_id (initialize_nova) are kept.
//   FormatJobsTable / JobsToJson   the two presentations (README, `novacat
//                 jobs`).
//
// Provider summaries: the store keeps none per run (discover_spectra_
// products' SummarizeDiscovery output reaches the execution output and the
// SpectraProductsDiscovered event; the JobRun record has no output), so
// neither presentation has them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/records.h"
#include "novacat/runtime/store.h"

namespace novacat::workflows {

struct JobsQuery {
  std::optional<std::string> nova_id;     // --nova
  std::optional<std::string> job_run_id;  // --run
  bool attempts = false;                  // --attempts (implied by --run)
};

struct JobRunView {
  runtime::JobRun run;
  // Present when asked for (--attempts, --run), possibly empty.
  std::optional<std::vector<runtime::Attempt>> attempts;
};

struct JobsReport {
  JobsQuery query;
  std::vector<JobRunView> runs;
};

struct JobsResult {
  enum class Status {
    kOk,
    kInvalid,   // the query is not one (no --nova nor --run, not a UUID)
    kNotFound,  // no such nova's runs or run: `message` names what
  };
  Status status = Status::kOk;
  std::string message;  // kInvalid / kNotFound, without a "novacat jobs: "
  JobsReport report;
};

// The usage error of `query`, nullopt when it is a query: neither --nova nor
// --run, or an id that is not a UUID (named with its flag).
std::optional<std::string> CheckJobsQuery(const JobsQuery& query);

// Runs `query` on `store`; `where` names the store in a not-found message
// ("/tmp/cat.db", "DynamoDB table NovaCat"). Store errors propagate.
JobsResult QueryJobs(runtime::RecordStore& store, const JobsQuery& query,
                     std::string_view where);

// Milliseconds from `start` to `end`, both RFC 3339 UTC as the runtime
// writes them (FormatTimestamp "…T13:45:00Z" or FormatTimestampMs
// "…T13:45:00.257Z"); nullopt when either is not one of those forms.
std::optional<int64_t> DurationMs(std::string_view start, std::string_view end);

// The table: a title line, then one aligned row per JobRun
//   JOB_RUN_ID WORKFLOW STATUS RESULT STARTED ENDED DURATION
// (RESULT: the outcome, else the error classification, else "-"; DURATION
// in seconds, "-" while STARTED), then for each run with its Attempts a
// blank line, "Attempts of <job_run_id> (<workflow>): <n>" and one row per
// Attempt
//   STATE ITEM ATTEMPT STATUS DURATION_MS ERROR CLASSIFICATION
// (ITEM: the Map item index or "-"). Columns are separated by two spaces,
// numbers right-aligned, no trailing spaces; "\n" after every line.
std::string FormatJobsTable(const JobsReport& report);

// {"nova_id": <--nova or null>, "job_runs": [{job_run_id, workflow, nova_id,
// status, outcome, error_classification, error_fingerprint,
// correlation_id, execution_arn, started_at, ended_at, duration_ms,
// [attempts: [{state_name, map_item_index, attempt_number, status,
// started_at, ended_at, duration_ms, error_name, error_classification,
// error_fingerprint, dedupe_key}...]]}...]}: every key always present (null
// when the record has no value; duration_ms null while STARTED or when a
// time does not parse), "attempts" exactly when they were asked for.
nlohmann::ordered_json JobsToJson(const JobsReport& report);

}  // namespace novacat::workflows
