// Where JobRun / Attempt records and workflow idempotency locks are kept.
//
// The interface is small and item-shaped: each call is one single-table
// operation (PutItem, conditional UpdateItem, GetItem, Query by SK prefix),
// so that the SQLite and DynamoDB backends are thin. Backends throw
// RetryableError for transient failures (throttling, timeouts, 5xx) and
// TerminalError for everything else; results that are answers, not
// failures (a lock held by another run, a JobRun already finalized) are
// return values. The one implementation is store::TableRecordStore (over
// any store::Table: MemoryTable in tests, SQLite, DynamoDB).
//
// Lock items (dynamodb_access_patterns.md has no pattern for them yet):
//   PK=LOCK#<workflow_idempotency_key>  SK=LOCK
//   owner_job_run_id, state HELD|DONE, outcome (DONE), expires_at (HELD).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/records.h"

namespace novacat::runtime {

// The end of a run, as a conditional update of its JobRun item.
struct JobRunUpdate {
  std::string job_run_id;
  std::optional<std::string> nova_id;              // the partition (JobRunKey)
  JobRunStatus status = JobRunStatus::kSucceeded;  // never kStarted
  std::optional<std::string> outcome;
  std::optional<std::string> error_classification;
  std::optional<std::string> error_fingerprint;
  std::string ended_at;
  std::optional<std::string> output;  // JobRun::output
};

enum class UpdateResult {
  kUpdated,    // was STARTED, now final
  kUnchanged,  // already final with the same status, outcome, classification,
               // fingerprint and output (a retried Finalize): nothing written
  kNotFound,   // no such JobRun
  kConflict,   // already final with something else: nothing written
};

struct LockResult {
  enum class Status {
    kAcquired,     // the caller owns the lock (new, re-entered, or taken over
                   // from an expired holder)
    kHeldByOther,  // another run holds it and its lease has not expired
    kAlreadyDone,  // a run completed it: the work is done for this key
  };
  Status status = Status::kAcquired;
  std::string owner_job_run_id;        // the holder / completer
  std::optional<std::string> outcome;  // kAlreadyDone: that run's outcome
};
// ACQUIRED, HELD_BY_OTHER, ALREADY_DONE.
const char* LockStatusName(LockResult::Status status);

ItemKey LockKey(std::string_view idempotency_key);

// What a run left for the reaper to find it by its execution (on AWS the
// status-change event names only the execution; store/reaper.h):
//   PK=EXECUTION#<execution_arn>  SK=EXECUTION
// written by BeginJobRun, again with the lock's key by
// AcquireIdempotencyLock, and by the host with the nova a run that is not
// nova-scoped learns.
struct ExecutionRecord {
  std::string execution_arn;
  std::string workflow;
  std::string job_run_id;
  std::optional<std::string> nova_id;  // the JobRun's partition nova
  std::optional<std::string> idempotency_key;
  // The nova a run that is not nova-scoped learned (a Task's result first
  // carrying nova_id: the host notes it), whose datasets it may lease.
  std::optional<std::string> lease_nova_id;
  bool operator==(const ExecutionRecord&) const = default;
};

class RecordStore {
 public:
  virtual ~RecordStore() = default;
  // Unconditional put (a retry rewrites it).
  virtual void PutExecution(const ExecutionRecord& execution) = 0;
  virtual std::optional<ExecutionRecord> GetExecution(
      std::string_view execution_arn) = 0;

  // Unconditional put (job_run_id is a fresh UUID; AP-INGEST-2).
  virtual void PutJobRun(const JobRun& run) = 0;
  // Finalizes a STARTED run; see UpdateResult. Condition:
  // status = STARTED, or (the same final status and fields -> kUnchanged).
  virtual UpdateResult UpdateJobRun(const JobRunUpdate& update) = 0;
  // AP-OPS-3 when nova_id is empty.
  virtual std::optional<JobRun> GetJobRun(
      std::string_view job_run_id,
      const std::optional<std::string>& nova_id) = 0;
  // AP-OPS-1: the nova's runs, in SK order (by job_run_id).
  virtual std::vector<JobRun> ListJobRuns(std::string_view nova_id) = 0;

  // Unconditional put: re-recording the same invocation rewrites its item.
  virtual void PutAttempt(const Attempt& attempt) = 0;
  // AP-OPS-2: a run's Attempts in SK order (state name, item, attempt).
  virtual std::vector<Attempt> ListAttempts(
      std::string_view job_run_id,
      const std::optional<std::string>& nova_id) = 0;

  // The workflow idempotency lock (see LockResult). A HELD lock whose
  // expires_at <= now is taken over; acquiring a lock the caller already
  // holds renews it (a retried AcquireIdempotencyLock). DONE locks never
  // expire: the key's time bucket bounds them.
  virtual LockResult AcquireLock(const std::string& key,
                                 const std::string& owner_job_run_id,
                                 int64_t now, int64_t lease_seconds) = 0;
  // HELD by `owner` -> DONE with `outcome`: true. Already DONE by `owner`
  // with `outcome`: true (a retry). Otherwise (lost to a takeover, never
  // held): false, nothing written.
  virtual bool CompleteLock(const std::string& key, const std::string& owner,
                            const std::string& outcome) = 0;
  // Deletes a lock HELD by `owner` (a run that failed or was quarantined, so
  // that the same work may run again): true. Otherwise false.
  virtual bool ReleaseLock(const std::string& key,
                           const std::string& owner) = 0;
};

}  // namespace novacat::runtime
