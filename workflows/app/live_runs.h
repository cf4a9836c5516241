// The local runs of one database in progress, so that the next `novacat
// run` can tell a run that died (its process killed: nothing finalized its
// JobRun, released its idempotency lock or ended its dataset leases) from
// one still working, and reap it (store/reaper.h) instead of waiting for
// its lock and leases to expire.
//
// A folder beside the database (<db>.runs/) holds, per execution, a lock
// file its process holds with flock(2) while it lives, and what the run's
// documents have shown (its job_run_id, nova, lock key) in a JSON file
// replaced atomically. The OS drops the flock of a process however it ends
// (SIGKILL included), so a lock file nobody holds is a run that is gone:
// provably, unlike a lease's expiry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "novacat/runtime/builtins.h"
#include "novacat/runtime/store.h"
#include "novacat/store/reaper.h"
#include "novacat/store/repository.h"

namespace novacat::workflows {

// One execution in progress, registered for its lifetime.
class LiveRun {
 public:
  // Registers execution `name` of `workflow` in `folder` (created when
  // missing): the lock file is made under a temporary name, locked, then
  // renamed into place, so that a sweeper never sees it unlocked. Throws
  // runtime::TerminalError when the folder cannot be written.
  LiveRun(const std::filesystem::path& folder, const std::string& name,
          const std::string& workflow);
  // The run ended (whatever its status): its files are removed.
  ~LiveRun();
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

  // What a Task's result document shows of the run: job_run_id, the
  // JobRun's partition nova (runtime::RunNovaId), nova_id and the
  // workflow_idempotency_key once the lock is this run's; the file is
  // rewritten when one of them changes.
  void Note(const nlohmann::json& document,
            const runtime::WorkflowFacts& facts);

 private:
  void Write();

  std::filesystem::path lock_path_, info_path_;
  int fd_ = -1;
  nlohmann::ordered_json info_;
};

// A dead run found and reaped.
struct ReapedRun {
  std::string execution;  // the execution's name
  std::string workflow;
  store::DeadRun run;
  store::Reaped reaped;
};

// Reaps every run registered in `folder` whose process is gone (a missing
// folder has none): ReapRun with classification ABORTED, then its files are
// removed. A run that died before BeginJobRun has nothing to reap; its
// files are removed all the same. Runs still alive are left alone.
std::vector<ReapedRun> ReapDeadRuns(const std::filesystem::path& folder,
                                    runtime::RecordStore& records,
                                    store::Repository& repository, int64_t now);

}  // namespace novacat::workflows
