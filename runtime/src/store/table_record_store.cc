#include "novacat/store/table_record_store.h"

#include <utility>

#include "novacat/runtime/errors.h"

namespace novacat::store {

namespace {

using runtime::Attempt;
using runtime::ItemKey;
using runtime::JobRun;
using runtime::JobRunStatus;
using runtime::LockResult;
using runtime::TerminalError;

Key ToKey(const ItemKey& key) { return {key.pk, key.sk}; }

// The item as stored, or a TerminalError naming what is wrong with it (a
// corrupted table is not something a retry fixes).
JobRun ReadJobRun(const Item& item) {
  runtime::Parsed<JobRun> parsed = runtime::JobRunFromItem(item);
  if (!parsed.ok())
    throw TerminalError("stored JobRun item is invalid:\n" +
                        runtime::FormatErrors(parsed.errors));
  return std::move(*parsed.value);
}

Attempt ReadAttempt(const Item& item) {
  runtime::Parsed<Attempt> parsed = runtime::AttemptFromItem(item);
  if (!parsed.ok())
    throw TerminalError("stored Attempt item is invalid:\n" +
                        runtime::FormatErrors(parsed.errors));
  return std::move(*parsed.value);
}

std::string StringAttribute(const Item& item, const char* name) {
  auto it = item.find(name);
  if (it == item.end() || !it->is_string())
    throw TerminalError("stored Lock item " + item.value("PK", std::string()) +
                        " is invalid:\n$." + name + ": must be a string");
  return it->get<std::string>();
}

std::vector<Item> QueryPrefix(Table& table, std::string pk,
                              std::string prefix) {
  QueryRequest request;
  request.partition_key = std::move(pk);
  request.sort_key_prefix = std::move(prefix);
  return table.QueryAll(std::move(request));
}

}  // namespace

void TableRecordStore::PutJobRun(const JobRun& run) {
  table_.PutItem(Item(runtime::ToItem(run)), std::nullopt);
}

runtime::UpdateResult TableRecordStore::UpdateJobRun(
    const runtime::JobRunUpdate& update) {
  using runtime::UpdateResult;
  if (update.status == JobRunStatus::kStarted)
    throw TerminalError("UpdateJobRun: a JobRun cannot be updated to STARTED");
  Key key = ToKey(runtime::JobRunKey(update.job_run_id, update.nova_id));
  Update u;
  u.set["status"] = runtime::JobRunStatusName(update.status);
  auto set_or_remove = [&](const char* name,
                           const std::optional<std::string>& value) {
    if (value)
      u.set[name] = *value;
    else
      u.remove.push_back(name);
  };
  set_or_remove("outcome", update.outcome);
  set_or_remove("error_classification", update.error_classification);
  set_or_remove("error_fingerprint", update.error_fingerprint);
  set_or_remove("output", update.output);
  u.set["ended_at"] = update.ended_at;
  Condition condition = Condition::And(
      {Condition::Exists("PK"),
       Condition::Eq("status",
                     runtime::JobRunStatusName(JobRunStatus::kStarted))});
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (table_.UpdateItem(key, u, condition).applied())
      return UpdateResult::kUpdated;
    std::optional<Item> current = table_.GetItem(key);
    if (!current) return UpdateResult::kNotFound;
    JobRun run = ReadJobRun(*current);
    // Put again as STARTED between the refusal and the read: try again.
    if (run.status == JobRunStatus::kStarted) continue;
    bool same = run.status == update.status && run.outcome == update.outcome &&
                run.error_classification == update.error_classification &&
                run.error_fingerprint == update.error_fingerprint &&
                run.output == update.output;
    return same ? UpdateResult::kUnchanged : UpdateResult::kConflict;
  }
  throw runtime::RetryableError("UpdateJobRun " + key.pk + " / " + key.sk +
                                ": the run changed during every attempt");
}

namespace {

Key ExecutionKey(std::string_view execution_arn) {
  return {"EXECUTION#" + std::string(execution_arn), "EXECUTION"};
}

}  // namespace

void TableRecordStore::PutExecution(const runtime::ExecutionRecord& execution) {
  Key key = ExecutionKey(execution.execution_arn);
  Item item = Item::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["entity"] = "Execution";
  item["execution_arn"] = execution.execution_arn;
  item["workflow"] = execution.workflow;
  item["job_run_id"] = execution.job_run_id;
  if (execution.nova_id) item["nova_id"] = *execution.nova_id;
  if (execution.idempotency_key)
    item["idempotency_key"] = *execution.idempotency_key;
  if (execution.lease_nova_id) item["lease_nova_id"] = *execution.lease_nova_id;
  table_.PutItem(item, std::nullopt);
}

std::optional<runtime::ExecutionRecord> TableRecordStore::GetExecution(
    std::string_view execution_arn) {
  std::optional<Item> item = table_.GetItem(ExecutionKey(execution_arn));
  if (!item) return std::nullopt;
  auto text = [&](const char* name) -> std::optional<std::string> {
    auto it = item->find(name);
    if (it == item->end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  if (!text("job_run_id") || !text("workflow"))
    throw runtime::TerminalError("stored Execution item " +
                                 ExecutionKey(execution_arn).pk +
                                 " has no job_run_id or workflow");
  return runtime::ExecutionRecord{
      std::string(execution_arn), *text("workflow"),
      *text("job_run_id"),        text("nova_id"),
      text("idempotency_key"),    text("lease_nova_id")};
}

std::optional<JobRun> TableRecordStore::GetJobRun(
    std::string_view job_run_id, const std::optional<std::string>& nova_id) {
  std::optional<Item> item =
      table_.GetItem(ToKey(runtime::JobRunKey(job_run_id, nova_id)));
  if (!item) return std::nullopt;
  return ReadJobRun(*item);
}

std::vector<JobRun> TableRecordStore::ListJobRuns(std::string_view nova_id) {
  std::vector<JobRun> runs;
  for (const Item& item :
       QueryPrefix(table_, "NOVA#" + std::string(nova_id), "JOBRUN#"))
    runs.push_back(ReadJobRun(item));
  return runs;
}

void TableRecordStore::PutAttempt(const Attempt& attempt) {
  table_.PutItem(Item(runtime::ToItem(attempt)), std::nullopt);
}

std::vector<Attempt> TableRecordStore::ListAttempts(
    std::string_view job_run_id, const std::optional<std::string>& nova_id) {
  std::vector<Attempt> attempts;
  for (const Item& item :
       QueryPrefix(table_, runtime::RunPartition(job_run_id, nova_id),
                   runtime::AttemptPrefix(job_run_id)))
    attempts.push_back(ReadAttempt(item));
  return attempts;
}

LockResult TableRecordStore::AcquireLock(const std::string& key,
                                         const std::string& owner_job_run_id,
                                         int64_t now, int64_t lease_seconds) {
  Key item_key = ToKey(runtime::LockKey(key));
  // The lock item of runtime/store.h.
  Item item{{"PK", item_key.pk},
            {"SK", item_key.sk},
            {"entity", "Lock"},
            {"idempotency_key", key},
            {"owner_job_run_id", owner_job_run_id},
            {"state", "HELD"},
            {"expires_at", now + lease_seconds}};
  Condition condition = Condition::Or(
      {Condition::NotExists("PK"),
       Condition::And(
           {Condition::Eq("state", "HELD"),
            Condition::Or({Condition::Eq("owner_job_run_id", owner_job_run_id),
                           Condition::Le("expires_at", now)})})});
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (table_.PutItem(item, condition).applied())
      return {LockResult::Status::kAcquired, owner_job_run_id, std::nullopt};
    std::optional<Item> current = table_.GetItem(item_key);
    // Released or expired between the refusal and the read: try again.
    if (EvaluateCondition(condition, current)) continue;
    std::string owner = StringAttribute(*current, "owner_job_run_id");
    if (StringAttribute(*current, "state") == "DONE")
      return {LockResult::Status::kAlreadyDone, owner,
              StringAttribute(*current, "outcome")};
    return {LockResult::Status::kHeldByOther, owner, std::nullopt};
  }
  throw runtime::RetryableError("AcquireLock " + item_key.pk +
                                ": the lock changed hands during every "
                                "attempt");
}

bool TableRecordStore::CompleteLock(const std::string& key,
                                    const std::string& owner,
                                    const std::string& outcome) {
  Key item_key = ToKey(runtime::LockKey(key));
  Update update;
  update.set["state"] = "DONE";
  update.set["outcome"] = outcome;
  update.remove = {"expires_at"};
  Condition condition =
      Condition::And({Condition::Eq("state", "HELD"),
                      Condition::Eq("owner_job_run_id", owner)});
  if (table_.UpdateItem(item_key, update, condition).applied()) return true;
  std::optional<Item> current = table_.GetItem(item_key);
  return current && current->value("owner_job_run_id", "") == owner &&
         current->value("state", "") == "DONE" &&
         current->value("outcome", "") == outcome;
}

bool TableRecordStore::ReleaseLock(const std::string& key,
                                   const std::string& owner) {
  return table_
      .DeleteItem(ToKey(runtime::LockKey(key)),
                  Condition::And({Condition::Eq("state", "HELD"),
                                  Condition::Eq("owner_job_run_id", owner)}))
      .applied();
}

}  // namespace novacat::store
