#include "jobs.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstddef>

#include "novacat/runtime/json_reader.h"
#include "text_table.h"

namespace novacat::workflows {

namespace {

// A run's Attempts under `nova_id`; a run listed under the nova it came to
// know (builtins.cc, ListUnderNova) keeps them under JOBRUN#<id>.
std::vector<runtime::Attempt> AttemptsOf(
    runtime::RecordStore& store, const std::string& job_run_id,
    const std::optional<std::string>& nova_id) {
  std::vector<runtime::Attempt> attempts =
      store.ListAttempts(job_run_id, nova_id);
  if (attempts.empty() && nova_id)
    attempts = store.ListAttempts(job_run_id, std::nullopt);
  return attempts;
}

using json = nlohmann::ordered_json;

// The digits of text[pos, pos + n) as a number, or -1.
int Digits(std::string_view text, size_t pos, size_t n) {
  const char* first = text.data() + pos;
  int value = 0;
  auto [end, error] = std::from_chars(first, first + n, value);
  return *first >= '0' && *first <= '9' && error == std::errc() &&
                 end == first + n
             ? value
             : -1;
}

// "YYYY-MM-DDTHH:MM:SSZ" or "YYYY-MM-DDTHH:MM:SS.mmmZ" as epoch ms.
std::optional<int64_t> ParseTimestampMs(std::string_view text) {
  if (text.size() != 20 && text.size() != 24) return std::nullopt;
  if (text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text.back() != 'Z')
    return std::nullopt;
  int millis = 0;
  if (text.size() == 24) {
    if (text[19] != '.') return std::nullopt;
    millis = Digits(text, 20, 3);
  }
  const int year = Digits(text, 0, 4), month = Digits(text, 5, 2),
            day = Digits(text, 8, 2), hour = Digits(text, 11, 2),
            minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (year < 0 || month < 0 || day < 0 || hour < 0 || hour > 23 || minute < 0 ||
      minute > 59 || second < 0 || second > 59 || millis < 0)
    return std::nullopt;
  std::chrono::year_month_day date{std::chrono::year(year),
                                   std::chrono::month(unsigned(month)),
                                   std::chrono::day(unsigned(day))};
  if (!date.ok()) return std::nullopt;
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return ((days * 24 + hour) * 60 + minute) * 60000 + int64_t(second) * 1000 +
         millis;
}

std::optional<int64_t> RunDurationMs(const runtime::JobRun& run) {
  if (!run.ended_at) return std::nullopt;
  return DurationMs(run.started_at, *run.ended_at);
}

json OrNull(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

json OrNull(const std::optional<int64_t>& value) {
  return value ? json(*value) : json(nullptr);
}

std::string RunTitle(const JobsReport& report) {
  const JobsQuery& query = report.query;
  if (query.job_run_id)
    return "JobRun " + *query.job_run_id +
           (query.nova_id ? " of nova " + *query.nova_id : "");
  return "JobRuns of nova " + query.nova_id.value_or("") + ": " +
         std::to_string(report.runs.size());
}

std::string FormatAttempts(const JobRunView& view) {
  const std::vector<runtime::Attempt>& attempts = *view.attempts;
  std::string out =
      "Attempts of " + view.run.job_run_id + " (" + view.run.workflow +
      "): " + (attempts.empty() ? "none" : std::to_string(attempts.size())) +
      "\n";
  if (attempts.empty()) return out;
  std::vector<std::vector<std::string>> rows = {{"STATE", "ITEM", "ATTEMPT",
                                                 "STATUS", "DURATION_MS",
                                                 "ERROR", "CLASSIFICATION"}};
  for (const runtime::Attempt& a : attempts) {
    std::optional<int64_t> ms = DurationMs(a.started_at, a.ended_at);
    rows.push_back({a.state_name,
                    a.map_item_index ? std::to_string(*a.map_item_index) : "-",
                    std::to_string(a.attempt_number),
                    runtime::AttemptStatusName(a.status),
                    ms ? std::to_string(*ms) : "-", OrDash(a.error_name),
                    OrDash(a.error_classification)});
  }
  return out +
         AlignedRows(rows, {false, true, true, false, true, false, false});
}

json AttemptJson(const runtime::Attempt& a) {
  return {{"state_name", a.state_name},
          {"map_item_index", OrNull(a.map_item_index)},
          {"attempt_number", a.attempt_number},
          {"status", runtime::AttemptStatusName(a.status)},
          {"started_at", a.started_at},
          {"ended_at", a.ended_at},
          {"duration_ms", OrNull(DurationMs(a.started_at, a.ended_at))},
          {"error_name", OrNull(a.error_name)},
          {"error_classification", OrNull(a.error_classification)},
          {"error_fingerprint", OrNull(a.error_fingerprint)},
          {"dedupe_key", OrNull(a.dedupe_key)}};
}

}  // namespace

std::optional<std::string> CheckJobsQuery(const JobsQuery& query) {
  if (!query.nova_id && !query.job_run_id)
    return "give --nova NOVA_ID (a nova's JobRuns) or --run JOB_RUN_ID (one "
           "run and its Attempts)";
  if (query.nova_id && !runtime::IsUuid(*query.nova_id))
    return "--nova '" + *query.nova_id + "' is not a nova id (a UUID)";
  if (query.job_run_id && !runtime::IsUuid(*query.job_run_id))
    return "--run '" + *query.job_run_id + "' is not a JobRun id (a UUID)";
  return std::nullopt;
}

JobsResult QueryJobs(runtime::RecordStore& store, const JobsQuery& query,
                     std::string_view where) {
  JobsResult result;
  result.report.query = query;
  if (std::optional<std::string> invalid = CheckJobsQuery(query)) {
    result.status = JobsResult::Status::kInvalid;
    result.message = *invalid;
    return result;
  }
  const std::string in = " in " + std::string(where);
  if (query.job_run_id) {
    std::optional<runtime::JobRun> run =
        store.GetJobRun(*query.job_run_id, query.nova_id);
    if (!run) {
      result.status = JobsResult::Status::kNotFound;
      result.message =
          query.nova_id
              ? "no JobRun " + *query.job_run_id + " of nova " +
                    *query.nova_id + in +
                    " (a run started without a nova_id, as initialize_nova's, "
                    "is found by --run alone)"
              : "no JobRun " + *query.job_run_id + in +
                    " under its own id (a run started with a nova_id is "
                    "found with --nova NOVA_ID --run JOB_RUN_ID)";
      return result;
    }
    result.report.runs.push_back(
        {*run, AttemptsOf(store, run->job_run_id, query.nova_id)});
    return result;
  }
  for (runtime::JobRun& run : store.ListJobRuns(*query.nova_id)) {
    JobRunView view{std::move(run), std::nullopt};
    if (query.attempts)
      view.attempts = AttemptsOf(store, view.run.job_run_id, query.nova_id);
    result.report.runs.push_back(std::move(view));
  }
  if (result.report.runs.empty()) {
    result.status = JobsResult::Status::kNotFound;
    result.message = "no JobRuns of nova " + *query.nova_id + in +
                     " (a run started without a nova_id, as "
                     "initialize_nova's, is found by --run JOB_RUN_ID)";
  }
  return result;
}

std::optional<int64_t> DurationMs(std::string_view start,
                                  std::string_view end) {
  std::optional<int64_t> from = ParseTimestampMs(start);
  std::optional<int64_t> to = ParseTimestampMs(end);
  if (!from || !to) return std::nullopt;
  return *to - *from;
}

std::string FormatJobsTable(const JobsReport& report) {
  std::vector<std::vector<std::string>> rows = {{"JOB_RUN_ID", "WORKFLOW",
                                                 "STATUS", "RESULT", "STARTED",
                                                 "ENDED", "DURATION"}};
  for (const JobRunView& view : report.runs) {
    const runtime::JobRun& run = view.run;
    std::optional<int64_t> ms = RunDurationMs(run);
    rows.push_back(
        {run.job_run_id, run.workflow, runtime::JobRunStatusName(run.status),
         run.outcome ? *run.outcome : OrDash(run.error_classification),
         run.started_at, OrDash(run.ended_at),
         ms ? std::to_string(*ms / 1000) + "s" : "-"});
  }
  std::string out =
      RunTitle(report) + "\n" +
      AlignedRows(rows, {false, false, false, false, false, false, true});
  // Appended in two steps: GCC 12 misreports `"\n" + string&&` under -O2
  // as -Wrestrict.
  for (const JobRunView& view : report.runs) {
    if (!view.attempts) continue;
    out += '\n';
    out += FormatAttempts(view);
  }
  return out;
}

nlohmann::ordered_json JobsToJson(const JobsReport& report) {
  json runs = json::array();
  for (const JobRunView& view : report.runs) {
    const runtime::JobRun& run = view.run;
    json r = {{"job_run_id", run.job_run_id},
              {"workflow", run.workflow},
              {"nova_id", OrNull(run.nova_id)},
              {"status", runtime::JobRunStatusName(run.status)},
              {"outcome", OrNull(run.outcome)},
              {"error_classification", OrNull(run.error_classification)},
              {"error_fingerprint", OrNull(run.error_fingerprint)},
              {"correlation_id", run.correlation_id},
              {"execution_arn", run.execution_arn},
              {"started_at", run.started_at},
              {"ended_at", OrNull(run.ended_at)},
              {"duration_ms", OrNull(RunDurationMs(run))},
              {"output", run.output ? json::parse(*run.output, nullptr,
                                                  /*allow_exceptions=*/false)
                                    : json(nullptr)}};
    if (view.attempts) {
      json attempts = json::array();
      for (const runtime::Attempt& a : *view.attempts)
        attempts.push_back(AttemptJson(a));
      r["attempts"] = std::move(attempts);
    }
    runs.push_back(std::move(r));
  }
  return {{"nova_id", OrNull(report.query.nova_id)},
          {"job_runs", std::move(runs)}};
}

}  // namespace novacat::workflows
