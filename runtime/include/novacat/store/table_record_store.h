// TableRecordStore: runtime::RecordStore over a store::Table, its one
// implementation. It writes exactly the items runtime::ToItem() builds (and
// the lock items of runtime/store.h), and serializes writers with table
// conditions, so that writers in other processes (other Lambdas) are
// serialized by the table itself.
//
// Operations (keys: runtime/records.h and runtime/store.h):
//   PutJobRun      PutItem, no condition (AP-INGEST-2; job_run_id is fresh).
//   UpdateJobRun   UpdateItem SET status, ended_at, outcome /
//                  error_classification / error_fingerprint (REMOVE the
//                  absent ones), condition attribute_exists(PK) AND
//                  status = STARTED. On the condition failure the item is
//                  read: absent -> kNotFound, the same final fields ->
//                  kUnchanged, else kConflict.
//   GetJobRun      GetItem (AP-OPS-3 when nova_id is empty).
//   ListJobRuns    Query PK=NOVA#<nova_id>, begins_with(SK, "JOBRUN#")
//                  (AP-OPS-1).
//   PutAttempt     PutItem, no condition (AP-DL-3; a re-recorded invocation
//                  rewrites its item).
//   ListAttempts   Query PK=<run partition>,
//                  begins_with(SK, "ATTEMPT#<job_run_id>#") (AP-OPS-2).
//   AcquireLock    PutItem HELD lock, condition attribute_not_exists(PK) OR
//                  (state = HELD AND (owner_job_run_id = :owner OR
//                  expires_at <= :now)). On the condition failure the lock
//                  is read: DONE -> kAlreadyDone, HELD -> kHeldByOther; if it
//                  vanished or expired in between, the put is tried again
//                  (at most 4 times, then RetryableError).
//   CompleteLock   UpdateItem SET state = DONE, outcome, REMOVE expires_at,
//                  condition state = HELD AND owner_job_run_id = :owner. On
//                  the condition failure: true only when the lock is DONE
//                  by `owner` with `outcome` (a retry).
//   ReleaseLock    DeleteItem, condition state = HELD AND
//                  owner_job_run_id = :owner.
//
// Racing writers: exactly one acquires a free (or expired) lock and exactly
// one finalizes a STARTED JobRun; the others get the answers above. Table
// errors propagate (RetryableError / TerminalError); stored items that do
// not parse throw TerminalError.
#pragma once

#include "novacat/runtime/store.h"
#include "novacat/store/table.h"

namespace novacat::store {

class TableRecordStore : public runtime::RecordStore {
 public:
  // `table` must outlive the store. As thread-safe as `table`.
  explicit TableRecordStore(Table& table) : table_(table) {}

  void PutExecution(const runtime::ExecutionRecord& execution) override;
  std::optional<runtime::ExecutionRecord> GetExecution(
      std::string_view execution_arn) override;
  void PutJobRun(const runtime::JobRun& run) override;
  runtime::UpdateResult UpdateJobRun(
      const runtime::JobRunUpdate& update) override;
  std::optional<runtime::JobRun> GetJobRun(
      std::string_view job_run_id,
      const std::optional<std::string>& nova_id) override;
  std::vector<runtime::JobRun> ListJobRuns(std::string_view nova_id) override;
  void PutAttempt(const runtime::Attempt& attempt) override;
  std::vector<runtime::Attempt> ListAttempts(
      std::string_view job_run_id,
      const std::optional<std::string>& nova_id) override;
  runtime::LockResult AcquireLock(const std::string& key,
                                  const std::string& owner_job_run_id,
                                  int64_t now, int64_t lease_seconds) override;
  bool CompleteLock(const std::string& key, const std::string& owner,
                    const std::string& outcome) override;
  bool ReleaseLock(const std::string& key, const std::string& owner) override;

 private:
  Table& table_;
};

}  // namespace novacat::store
