#include <utility>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/store.h"

namespace novacat::runtime {

namespace {

using ordered_json = nlohmann::ordered_json;

// The item as stored, or a TerminalError naming what is wrong with it (a
// corrupted table is not something a retry fixes).
JobRun ReadJobRun(const ordered_json& item) {
  Parsed<JobRun> parsed = JobRunFromItem(nlohmann::json(item));
  if (!parsed.ok())
    throw TerminalError("stored JobRun item is invalid:\n" +
                        FormatErrors(parsed.errors));
  return std::move(*parsed.value);
}

Attempt ReadAttempt(const ordered_json& item) {
  Parsed<Attempt> parsed = AttemptFromItem(nlohmann::json(item));
  if (!parsed.ok())
    throw TerminalError("stored Attempt item is invalid:\n" +
                        FormatErrors(parsed.errors));
  return std::move(*parsed.value);
}

}  // namespace

const char* LockStatusName(LockResult::Status status) {
  switch (status) {
    case LockResult::Status::kAcquired:
      return "ACQUIRED";
    case LockResult::Status::kHeldByOther:
      return "HELD_BY_OTHER";
    case LockResult::Status::kAlreadyDone:
      return "ALREADY_DONE";
  }
  return "ACQUIRED";
}

ItemKey LockKey(std::string_view idempotency_key) {
  return {"LOCK#" + std::string(idempotency_key), "LOCK"};
}

std::vector<ordered_json> MemoryStore::QueryLocked(
    const std::string& pk, const std::string& prefix) const {
  std::vector<ordered_json> items;
  auto partition = table_.find(pk);
  if (partition == table_.end()) return items;
  for (auto it = partition->second.lower_bound(prefix);
       it != partition->second.end() && it->first.starts_with(prefix); ++it)
    items.push_back(it->second);
  return items;
}

void MemoryStore::PutJobRun(const JobRun& run) {
  ItemKey key = JobRunKey(run);
  std::lock_guard<std::mutex> lock(mutex_);
  table_[key.pk][key.sk] = ToItem(run);
}

UpdateResult MemoryStore::UpdateJobRun(const JobRunUpdate& update) {
  if (update.status == JobRunStatus::kStarted)
    throw TerminalError("UpdateJobRun: a JobRun cannot be updated to STARTED");
  ItemKey key = JobRunKey(update.job_run_id, update.nova_id);
  std::lock_guard<std::mutex> lock(mutex_);
  auto partition = table_.find(key.pk);
  if (partition == table_.end()) return UpdateResult::kNotFound;
  auto item = partition->second.find(key.sk);
  if (item == partition->second.end()) return UpdateResult::kNotFound;
  JobRun run = ReadJobRun(item->second);
  if (run.status != JobRunStatus::kStarted) {
    bool same = run.status == update.status && run.outcome == update.outcome &&
                run.error_classification == update.error_classification &&
                run.error_fingerprint == update.error_fingerprint;
    return same ? UpdateResult::kUnchanged : UpdateResult::kConflict;
  }
  run.status = update.status;
  run.outcome = update.outcome;
  run.error_classification = update.error_classification;
  run.error_fingerprint = update.error_fingerprint;
  run.ended_at = update.ended_at;
  item->second = ToItem(run);
  return UpdateResult::kUpdated;
}

std::optional<JobRun> MemoryStore::GetJobRun(
    std::string_view job_run_id, const std::optional<std::string>& nova_id) {
  ItemKey key = JobRunKey(job_run_id, nova_id);
  std::lock_guard<std::mutex> lock(mutex_);
  auto partition = table_.find(key.pk);
  if (partition == table_.end()) return std::nullopt;
  auto item = partition->second.find(key.sk);
  if (item == partition->second.end()) return std::nullopt;
  return ReadJobRun(item->second);
}

std::vector<JobRun> MemoryStore::ListJobRuns(std::string_view nova_id) {
  std::vector<ordered_json> items;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    items = QueryLocked("NOVA#" + std::string(nova_id), "JOBRUN#");
  }
  std::vector<JobRun> runs;
  for (const auto& item : items) runs.push_back(ReadJobRun(item));
  return runs;
}

void MemoryStore::PutAttempt(const Attempt& attempt) {
  ItemKey key = AttemptKey(attempt);
  std::lock_guard<std::mutex> lock(mutex_);
  table_[key.pk][key.sk] = ToItem(attempt);
}

std::vector<Attempt> MemoryStore::ListAttempts(
    std::string_view job_run_id, const std::optional<std::string>& nova_id) {
  std::vector<ordered_json> items;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    items = QueryLocked(RunPartition(job_run_id, nova_id),
                        AttemptPrefix(job_run_id));
  }
  std::vector<Attempt> attempts;
  for (const auto& item : items) attempts.push_back(ReadAttempt(item));
  return attempts;
}

LockResult MemoryStore::AcquireLock(const std::string& key,
                                    const std::string& owner_job_run_id,
                                    int64_t now, int64_t lease_seconds) {
  ItemKey item_key = LockKey(key);
  std::lock_guard<std::mutex> lock(mutex_);
  ordered_json& item = table_[item_key.pk][item_key.sk];
  if (!item.is_null()) {
    std::string owner = item.at("owner_job_run_id").get<std::string>();
    if (item.at("state") == "DONE")
      return {LockResult::Status::kAlreadyDone, owner,
              item.at("outcome").get<std::string>()};
    if (owner != owner_job_run_id && item.at("expires_at").get<int64_t>() > now)
      return {LockResult::Status::kHeldByOther, owner, std::nullopt};
  }
  item = ordered_json::object();
  item["PK"] = item_key.pk;
  item["SK"] = item_key.sk;
  item["entity"] = "Lock";
  item["idempotency_key"] = key;
  item["owner_job_run_id"] = owner_job_run_id;
  item["state"] = "HELD";
  item["expires_at"] = now + lease_seconds;
  return {LockResult::Status::kAcquired, owner_job_run_id, std::nullopt};
}

bool MemoryStore::CompleteLock(const std::string& key, const std::string& owner,
                               const std::string& outcome) {
  ItemKey item_key = LockKey(key);
  std::lock_guard<std::mutex> lock(mutex_);
  auto partition = table_.find(item_key.pk);
  if (partition == table_.end()) return false;
  auto found = partition->second.find(item_key.sk);
  if (found == partition->second.end()) return false;
  ordered_json& item = found->second;
  if (item.at("owner_job_run_id") != owner) return false;
  if (item.at("state") == "DONE") return item.at("outcome") == outcome;
  item.erase("expires_at");
  item["state"] = "DONE";
  item["outcome"] = outcome;
  return true;
}

bool MemoryStore::ReleaseLock(const std::string& key,
                              const std::string& owner) {
  ItemKey item_key = LockKey(key);
  std::lock_guard<std::mutex> lock(mutex_);
  auto partition = table_.find(item_key.pk);
  if (partition == table_.end()) return false;
  auto found = partition->second.find(item_key.sk);
  if (found == partition->second.end()) return false;
  const ordered_json& item = found->second;
  if (item.at("owner_job_run_id") != owner || item.at("state") != "HELD")
    return false;
  partition->second.erase(found);
  if (partition->second.empty()) table_.erase(partition);
  return true;
}

std::vector<std::string> MemoryStore::DumpItems() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> lines;
  for (const auto& [pk, partition] : table_)
    for (const auto& [sk, item] : partition) lines.push_back(item.dump());
  return lines;
}

}  // namespace novacat::runtime
