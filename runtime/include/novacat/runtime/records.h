// JobRun and Attempt records (seed: execution_governance.md, the workflow
// seeds' "JobRun / Attempt Emissions") and their single-table item shapes
// (seed: dynamodb_access_patterns.md).
//
// Keys:
//
//   JobRun   PK=NOVA#<nova_id>  SK=JOBRUN#<job_run_id>            (AP-OPS-1)
//            PK=JOBRUN#<job_run_id>  SK=META                        (AP-OPS-3)
//   Attempt  PK=<its JobRun's PK>
//            SK=ATTEMPT#<job_run_id>#<state_name>#<attempt:03>      (AP-OPS-2)
//            SK=ATTEMPT#<job_run_id>#<state_name>#ITEM#<index:06>#<attempt:03>
//                                                       (a Map item's Task)
//
// A run's records live in one partition chosen when it starts and never
// moved: NOVA#<nova_id> for a workflow whose input carries the nova_id
// (discover_spectra_products, refresh_references), JOBRUN#<job_run_id> for
// one that starts without it (initialize_nova, before CreateNovaId). The
// records' `nova_id` is that partition's nova, not "the nova the run ended
// up with". Attempt numbers are zero-padded to 3 digits (attempts are
// bounded by governance max_attempts_limit + 1) and Map item indexes to 6,
// so that keys sort numerically.
//
// Items are JSON objects with PK, SK, `entity` ("JobRun" / "Attempt") and
// the record's fields (absent optionals are omitted), exactly what the
// SQLite and DynamoDB backends store.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "novacat/runtime/validation.h"

namespace novacat::runtime {

enum class JobRunStatus { kStarted, kSucceeded, kQuarantined, kFailed };
enum class AttemptStatus { kSucceeded, kFailed };

// STARTED, SUCCEEDED, QUARANTINED, FAILED.
const char* JobRunStatusName(JobRunStatus status);
std::optional<JobRunStatus> ParseJobRunStatus(std::string_view name);
// SUCCEEDED, FAILED.
const char* AttemptStatusName(AttemptStatus status);
std::optional<AttemptStatus> ParseAttemptStatus(std::string_view name);

// One execution of a workflow.
struct JobRun {
  std::string job_run_id;              // UUID v4
  std::string workflow;                // workflow name
  std::optional<std::string> nova_id;  // the partition's nova (above)
  std::string correlation_id;
  std::string execution_arn;
  JobRunStatus status = JobRunStatus::kStarted;
  std::optional<std::string> outcome;               // SUCCEEDED only
  std::optional<std::string> error_classification;  // QUARANTINED / FAILED
  std::optional<std::string> error_fingerprint;     // QUARANTINED / FAILED
  std::string started_at;                           // FormatTimestamp
  std::optional<std::string> ended_at;  // set when no longer STARTED
  // The JSON text of an object: the fields of the workflow's
  // `job_run_output` present in the document when the run was finalized
  // (WorkflowFacts::job_run_output); absent for a workflow without any.
  std::optional<std::string> output;

  bool operator==(const JobRun&) const = default;
};

// One invocation of a Task state, retries included (one Attempt each).
struct Attempt {
  std::string job_run_id;
  std::optional<std::string> nova_id;  // its JobRun's partition nova
  std::string state_name;
  std::optional<int64_t> map_item_index;  // for a Task inside a Map item
  int attempt_number = 1;                 // 1 + $$.State.RetryCount
  AttemptStatus status = AttemptStatus::kSucceeded;
  std::optional<std::string> error_name;            // RetryableError, ...
  std::optional<std::string> error_classification;  // RETRYABLE, ...
  std::optional<std::string> error_fingerprint;
  std::string correlation_id;
  std::string started_at;  // FormatTimestampMs: when the invocation began
  std::string ended_at;    // FormatTimestampMs: when it returned or threw
  std::optional<std::string> dedupe_key;  // the step dedupe key, if any

  bool operator==(const Attempt&) const = default;
};

struct ItemKey {
  std::string pk;
  std::string sk;
  bool operator==(const ItemKey&) const = default;
};

// NOVA#<nova_id> or JOBRUN#<job_run_id>.
std::string RunPartition(std::string_view job_run_id,
                         const std::optional<std::string>& nova_id);
ItemKey JobRunKey(std::string_view job_run_id,
                  const std::optional<std::string>& nova_id);
ItemKey JobRunKey(const JobRun& run);
ItemKey AttemptKey(const Attempt& attempt);
// The SK prefix of a run's Attempts: ATTEMPT#<job_run_id>#.
std::string AttemptPrefix(std::string_view job_run_id);

// Items (keys first, then the fields in declaration order).
nlohmann::ordered_json ToItem(const JobRun& run);
nlohmann::ordered_json ToItem(const Attempt& attempt);
// Reads an item back; errors name the attribute path ($.status...).
Parsed<JobRun> JobRunFromItem(const nlohmann::json& item);
Parsed<Attempt> AttemptFromItem(const nlohmann::json& item);

}  // namespace novacat::runtime
