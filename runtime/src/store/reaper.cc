#include "novacat/store/reaper.h"

#include "novacat/runtime/ids.h"

namespace novacat::store {

nlohmann::ordered_json Reaped::ToJson() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  switch (job_run) {
    case runtime::UpdateResult::kUpdated:
      out["job_run"] = "FINALIZED";
      break;
    case runtime::UpdateResult::kUnchanged:
    case runtime::UpdateResult::kConflict:
      out["job_run"] = "ALREADY_FINAL";
      break;
    case runtime::UpdateResult::kNotFound:
      out["job_run"] = "NOT_FOUND";
      break;
  }
  out["lock"] = lock_released ? "RELEASED" : "NOT_HELD";
  out["leases_released"] = leases_released;
  return out;
}

Reaped ReapRun(runtime::RecordStore& records, Repository& repository,
               const DeadRun& run, std::string_view classification,
               std::string_view cause, int64_t now) {
  Reaped reaped;
  const std::string ended_at = runtime::FormatTimestamp(now);
  runtime::JobRunUpdate update;
  update.job_run_id = run.job_run_id;
  update.nova_id = run.record_nova_id;
  update.status = runtime::JobRunStatus::kFailed;
  update.error_classification = std::string(classification);
  update.error_fingerprint =
      runtime::ErrorFingerprint(classification, "", cause);
  update.ended_at = ended_at;
  reaped.job_run = records.UpdateJobRun(update);
  if (run.idempotency_key)
    reaped.lock_released =
        records.ReleaseLock(*run.idempotency_key, run.job_run_id);
  if (run.nova_id) {
    for (const Dataset& d : repository.ListNovaDatasets(*run.nova_id)) {
      if (d.processing_status != ProcessingStatus::kInProgress ||
          d.lease_owner != run.job_run_id)
        continue;
      if (repository.ReleaseDatasetLease(
              d.key(), run.job_run_id, ProcessingStatus::kFailedRetryable,
              ended_at, d.failed_runs.value_or(0)) == ReleaseResult::kReleased)
        reaped.leases_released.push_back(d.dataset_id);
    }
  }
  return reaped;
}

std::optional<StatusChange> StatusChangeOf(const nlohmann::json& payload) {
  if (!payload.is_object() || payload.value("source", "") != "aws.states" ||
      payload.value("detail-type", "") !=
          "Step Functions Execution Status Change")
    return std::nullopt;
  auto detail = payload.find("detail");
  if (detail == payload.end() || !detail->is_object()) return std::nullopt;
  auto text = [&](const char* name) {
    auto it = detail->find(name);
    return it != detail->end() && it->is_string() ? it->get<std::string>()
                                                  : std::string();
  };
  StatusChange change{text("executionArn"), text("status"), ""};
  if (change.execution_arn.empty() ||
      (change.status != "ABORTED" && change.status != "TIMED_OUT" &&
       change.status != "FAILED"))
    return std::nullopt;
  const std::string error = text("error"), cause = text("cause");
  change.cause = "the execution ended " + change.status;
  if (!error.empty()) change.cause += ": " + error;
  if (!cause.empty()) change.cause += ": " + cause;
  return change;
}

std::optional<Reaped> ReapExecution(runtime::RecordStore& records,
                                    Repository& repository,
                                    const StatusChange& change, int64_t now) {
  std::optional<runtime::ExecutionRecord> execution =
      records.GetExecution(change.execution_arn);
  if (!execution) return std::nullopt;
  DeadRun run{
      execution->job_run_id, execution->nova_id,
      execution->lease_nova_id ? execution->lease_nova_id : execution->nova_id,
      execution->idempotency_key};
  return ReapRun(records, repository, run, change.status, change.cause, now);
}

}  // namespace novacat::store
