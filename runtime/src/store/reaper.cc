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

}  // namespace novacat::store
