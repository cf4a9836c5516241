// Ending a run that died: its execution was stopped, timed out or failed
// outside its catch (on AWS), or its process was killed (novacat run).
// Nothing else will finalize its JobRun, release its idempotency lock or end
// the dataset leases it holds, so each would keep the work out until it
// expired. ReapRun does what the run's failure path would have done, and
// is idempotent: a second reaper (EventBridge delivers at least once; two
// `novacat run`s may meet the same dead run) changes nothing more.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/store.h"
#include "novacat/store/repository.h"

namespace novacat::store {

// What is known of a dead run: what its documents showed before it died.
struct DeadRun {
  std::string job_run_id;
  // The JobRun's partition nova (runtime::RunNovaId): set for a
  // nova-scoped workflow, else the run lives under JOBRUN#<job_run_id>.
  std::optional<std::string> record_nova_id;
  // The nova whose datasets it may lease (its documents' nova_id).
  std::optional<std::string> nova_id;
  // The lock it took (its workflow_idempotency_key), when it took one.
  std::optional<std::string> idempotency_key;
};

// What ReapRun did, for its record and log line.
struct Reaped {
  // kUpdated: STARTED -> FAILED; kConflict or kUnchanged: it had ended;
  // kNotFound: it died before BeginJobRun wrote it.
  runtime::UpdateResult job_run = runtime::UpdateResult::kNotFound;
  bool lock_released = false;
  std::vector<std::string> leases_released;  // dataset ids
  bool operator==(const Reaped&) const = default;

  // {"job_run": "FINALIZED" | "ALREADY_FINAL" | "NOT_FOUND",
  //  "lock": "RELEASED" | "NOT_HELD", "leases_released": [...]}.
  nlohmann::ordered_json ToJson() const;
};

// Finalizes the run's JobRun FAILED with `classification` (how it ended:
// ABORTED, TIMED_OUT, FAILED on AWS; ABORTED for a killed process) and
// the fingerprint of "<classification>: <cause>", releases its lock if it
// still holds it, and ends every lease it holds on `nova_id`'s datasets
// FAILED_RETRYABLE (still eligible; its failed_runs kept: a run that died
// is not counted, as when its lease expires).
Reaped ReapRun(runtime::RecordStore& records, Repository& repository,
               const DeadRun& run, std::string_view classification,
               std::string_view cause, int64_t now);

// Step Functions' "Execution Status Change" event (EventBridge, source
// aws.states) of an execution that ended without finishing its run:
// status ABORTED, TIMED_OUT or FAILED (a FAILED execution whose run was
// finalized by its own failure path is reaped harmlessly: nothing changes).
struct StatusChange {
  std::string execution_arn;
  std::string status;
  std::string cause;  // "the execution ended <status>[: <error>][: <cause>]"
  bool operator==(const StatusChange&) const = default;
};
// The event's status change; nullopt for any other payload (so that a
// function tells it from a Task's payload or a schedule's sweep).
std::optional<StatusChange> StatusChangeOf(const nlohmann::json& payload);

// The reaper on AWS: the run the execution recorded (RecordStore::
// GetExecution) reaped with the status as its classification; nullopt when
// the execution recorded none (it ended before BeginJobRun). The leases
// ended are on the datasets of the run's nova, or of the nova it learned.
std::optional<Reaped> ReapExecution(runtime::RecordStore& records,
                                    Repository& repository,
                                    const StatusChange& change, int64_t now);

}  // namespace novacat::store
