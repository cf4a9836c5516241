#include "novacat/runtime/records.h"

#include <cstdio>

#include "novacat/runtime/json_reader.h"

namespace novacat::runtime {

namespace {

std::string Padded(int64_t value, int width) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%0*lld", width,
                static_cast<long long>(value));
  return buffer;
}

template <typename T>
void PutOptional(nlohmann::ordered_json& item, const char* name,
                 const std::optional<T>& value) {
  if (value) item[name] = *value;
}

void CheckEntity(ObjectReader& reader, std::string_view expected) {
  auto entity = reader.String("entity", Rules{}.Required());
  if (entity && *entity != expected)
    reader.errors().push_back(
        {reader.Path("entity"), "must be " + std::string(expected)});
}

}  // namespace

const char* JobRunStatusName(JobRunStatus status) {
  switch (status) {
    case JobRunStatus::kStarted:
      return "STARTED";
    case JobRunStatus::kSucceeded:
      return "SUCCEEDED";
    case JobRunStatus::kQuarantined:
      return "QUARANTINED";
    case JobRunStatus::kFailed:
      return "FAILED";
  }
  return "STARTED";
}

std::optional<JobRunStatus> ParseJobRunStatus(std::string_view name) {
  for (auto s : {JobRunStatus::kStarted, JobRunStatus::kSucceeded,
                 JobRunStatus::kQuarantined, JobRunStatus::kFailed})
    if (name == JobRunStatusName(s)) return s;
  return std::nullopt;
}

const char* AttemptStatusName(AttemptStatus status) {
  return status == AttemptStatus::kSucceeded ? "SUCCEEDED" : "FAILED";
}

std::optional<AttemptStatus> ParseAttemptStatus(std::string_view name) {
  if (name == "SUCCEEDED") return AttemptStatus::kSucceeded;
  if (name == "FAILED") return AttemptStatus::kFailed;
  return std::nullopt;
}

std::string RunPartition(std::string_view job_run_id,
                         const std::optional<std::string>& nova_id) {
  return nova_id ? "NOVA#" + *nova_id : "JOBRUN#" + std::string(job_run_id);
}

ItemKey JobRunKey(std::string_view job_run_id,
                  const std::optional<std::string>& nova_id) {
  return {RunPartition(job_run_id, nova_id),
          nova_id ? "JOBRUN#" + std::string(job_run_id) : "META"};
}

ItemKey JobRunKey(const JobRun& run) {
  return JobRunKey(run.job_run_id, run.nova_id);
}

std::string AttemptPrefix(std::string_view job_run_id) {
  return "ATTEMPT#" + std::string(job_run_id) + "#";
}

ItemKey AttemptKey(const Attempt& attempt) {
  std::string sk = AttemptPrefix(attempt.job_run_id) + attempt.state_name + "#";
  if (attempt.map_item_index)
    sk += "ITEM#" + Padded(*attempt.map_item_index, 6) + "#";
  sk += Padded(attempt.attempt_number, 3);
  return {RunPartition(attempt.job_run_id, attempt.nova_id), std::move(sk)};
}

nlohmann::ordered_json ToItem(const JobRun& run) {
  ItemKey key = JobRunKey(run);
  nlohmann::ordered_json item = nlohmann::ordered_json::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["entity"] = "JobRun";
  item["job_run_id"] = run.job_run_id;
  item["workflow"] = run.workflow;
  PutOptional(item, "nova_id", run.nova_id);
  item["correlation_id"] = run.correlation_id;
  item["execution_arn"] = run.execution_arn;
  item["status"] = JobRunStatusName(run.status);
  PutOptional(item, "outcome", run.outcome);
  PutOptional(item, "error_classification", run.error_classification);
  PutOptional(item, "error_fingerprint", run.error_fingerprint);
  item["started_at"] = run.started_at;
  PutOptional(item, "ended_at", run.ended_at);
  PutOptional(item, "output", run.output);
  return item;
}

nlohmann::ordered_json ToItem(const Attempt& attempt) {
  ItemKey key = AttemptKey(attempt);
  nlohmann::ordered_json item = nlohmann::ordered_json::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["entity"] = "Attempt";
  item["job_run_id"] = attempt.job_run_id;
  PutOptional(item, "nova_id", attempt.nova_id);
  item["state_name"] = attempt.state_name;
  PutOptional(item, "map_item_index", attempt.map_item_index);
  item["attempt_number"] = attempt.attempt_number;
  item["status"] = AttemptStatusName(attempt.status);
  PutOptional(item, "error_name", attempt.error_name);
  PutOptional(item, "error_classification", attempt.error_classification);
  PutOptional(item, "error_fingerprint", attempt.error_fingerprint);
  item["correlation_id"] = attempt.correlation_id;
  item["started_at"] = attempt.started_at;
  item["ended_at"] = attempt.ended_at;
  PutOptional(item, "dedupe_key", attempt.dedupe_key);
  return item;
}

Parsed<JobRun> JobRunFromItem(const nlohmann::json& item) {
  Parsed<JobRun> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "JobRun");
  JobRun run;
  auto text = [&](const char* name, std::string& out) {
    if (auto v = reader.String(name, Rules{}.Required())) out = std::move(*v);
  };
  text("job_run_id", run.job_run_id);
  text("workflow", run.workflow);
  run.nova_id = reader.String("nova_id", Rules{});
  text("correlation_id", run.correlation_id);
  text("execution_arn", run.execution_arn);
  if (auto s = reader.String(
          "status", Rules{}.Required().OneOf(
                        {"STARTED", "SUCCEEDED", "QUARANTINED", "FAILED"})))
    run.status = *ParseJobRunStatus(*s);
  run.outcome = reader.String("outcome", Rules{});
  run.error_classification = reader.String("error_classification", Rules{});
  run.error_fingerprint = reader.String("error_fingerprint", Rules{});
  text("started_at", run.started_at);
  run.ended_at = reader.String("ended_at", Rules{});
  run.output = reader.String("output", Rules{});
  if (run.output) {
    nlohmann::json parsed = nlohmann::json::parse(*run.output, nullptr,
                                                  /*allow_exceptions=*/false);
    if (!parsed.is_object())
      result.errors.push_back(
          {"$.output", "must be the JSON text of an object"});
  }
  if (result.errors.empty()) result.value = std::move(run);
  return result;
}

Parsed<Attempt> AttemptFromItem(const nlohmann::json& item) {
  Parsed<Attempt> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "Attempt");
  Attempt attempt;
  auto text = [&](const char* name, std::string& out) {
    if (auto v = reader.String(name, Rules{}.Required())) out = std::move(*v);
  };
  text("job_run_id", attempt.job_run_id);
  attempt.nova_id = reader.String("nova_id", Rules{});
  text("state_name", attempt.state_name);
  attempt.map_item_index = reader.Integer("map_item_index", Rules{}.Minimum(0));
  if (auto n = reader.Integer("attempt_number", Rules{}.Required().Minimum(1)))
    attempt.attempt_number = static_cast<int>(*n);
  if (auto s = reader.String("status",
                             Rules{}.Required().OneOf({"SUCCEEDED", "FAILED"})))
    attempt.status = *ParseAttemptStatus(*s);
  attempt.error_name = reader.String("error_name", Rules{});
  attempt.error_classification = reader.String("error_classification", Rules{});
  attempt.error_fingerprint = reader.String("error_fingerprint", Rules{});
  text("correlation_id", attempt.correlation_id);
  text("started_at", attempt.started_at);
  text("ended_at", attempt.ended_at);
  attempt.dedupe_key = reader.String("dedupe_key", Rules{});
  if (result.errors.empty()) result.value = std::move(attempt);
  return result;
}

}  // namespace novacat::runtime
