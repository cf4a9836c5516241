// Runs the registered workflows on this machine: the generated ASL on the
// local executor, the real step logic, the records and the store on the
// tables the caller gives. What `novacat run` does, and what the
// end-to-end tests do through the same code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include <functional>

#include "live_runs.h"
#include "novacat/runtime/asl/executor.h"
#include "novacat/runtime/asl/task_handler.h"
#include "novacat/runtime/builtins.h"
#include "novacat/runtime/log.h"
#include "novacat/runtime/store.h"
#include "novacat/store/outbox.h"
#include "novacat/workflows/environment.h"

namespace novacat::workflows {

// One workflow execution and what it left behind.
struct WorkflowRun {
  std::string workflow;
  nlohmann::ordered_json input;
  std::string execution_arn;
  runtime::asl::RunResult result;
  std::optional<runtime::JobRun> job_run;              // the JobRun it wrote
  std::vector<runtime::CaptureBus::Published> events;  // in publish order
  // With follow and an outbox: each event's outbox entry, as `events`.
  std::vector<std::string> outbox_ids;
  // The workflow that published the event this run started from; empty
  // for the run the caller asked for.
  std::string started_by;
};

// What one call of LocalRunner::Run did.
struct RunReport {
  std::vector<WorkflowRun> runs;  // in the order they ran
  // Triggered runs not started because options.max_runs was reached.
  int not_run = 0;
  // Set when a run could not complete because the store or a client broke
  // (not a workflow failure, which is a run's status): the runs before it
  // are in `runs`, nothing after it ran.
  std::string error;
  // The dead runs reaped before the first run (RunnerOptions::live_runs).
  std::vector<ReapedRun> reaped;
  // Runs started by events a killed run left in the outbox.
  int resumed = 0;
};

struct RunnerOptions {
  // Where the virtual clock starts, seconds since the epoch. Each further
  // run (--follow) starts when the previous one ended.
  double start_time = 1767225600;  // 2026-01-01T00:00:00Z
  // Also run the workflows the published events start, depth first in
  // publish order.
  bool follow = false;
  // The most executions one call runs (a guard against event cycles).
  int max_runs = 32;
  // What each run's RunResult::history keeps. Every event with its
  // documents by default; `novacat run` keeps none unless --verbose prints
  // them, so that a long run (--for-each-nova over a large catalog, a Map
  // of many items) holds no copy of every document it passed.
  runtime::asl::History history = runtime::asl::History::kFull;
  // When set, each workflow's Tasks go to the handler it returns (a
  // deployed Lambda function invoked as Step Functions' lambda:invoke
  // does) instead of the step logic in this process. The JobRun is read
  // back from the records store by the job_run_id the Tasks return, so the
  // store must be the one the function writes to. The function publishes
  // its events where it is configured to (EventBridge): none are seen
  // here, so `follow` must be false.
  std::function<runtime::asl::TaskHandler(const std::string& workflow)>
      remote_tasks;
  // Where this machine's runs register while they live (live_runs.h): the
  // dead ones found there are reaped before the first run. Empty: runs
  // are not registered and nothing is reaped.
  std::filesystem::path live_runs;
  // With `follow`: the store's outbox. What the runs publish is recorded
  // there before it is delivered and removed once the run it started has
  // ended; what a killed run left is delivered before the first run.
  store::Outbox* outbox = nullptr;
  // Called after every Task invocation of a local run (the tests that
  // kill a run at a known point).
  std::function<void()> after_task;
};

// A run that never started: the input is not JSON. It is still recorded, as
// a FAILED JobRun with a TERMINAL classification, so that nothing is lost
// without a record.
struct RejectedInput {
  runtime::JobRun job_run;
  std::string error;
};

class LocalRunner {
 public:
  // Everything must outlive the runner. `records` holds JobRuns, Attempts
  // and idempotency locks; `log` gets every structured log line.
  LocalRunner(const Environment& env, runtime::RecordStore& records,
              runtime::LogSink& log, runtime::Random& random)
      : env_(env), records_(records), log_(log), random_(random) {}

  // Runs `workflow` (registry.h) on `input`; with options.follow, then the
  // workflows its events start. Throws std::invalid_argument for an
  // unknown workflow (nothing is run or written).
  RunReport Run(const std::string& workflow,
                const nlohmann::ordered_json& input,
                const RunnerOptions& options);

  // Records that `workflow` was asked to run on `input_text`, which is not
  // JSON (`error` says why): a FAILED JobRun, TERMINAL.
  RejectedInput RejectInput(const std::string& workflow,
                            const std::string& error, double now);

 private:
  WorkflowRun RunOne(const std::string& workflow,
                     const nlohmann::ordered_json& input, double start_time,
                     const RunnerOptions& options);

  Environment env_;
  runtime::RecordStore& records_;
  runtime::LogSink& log_;
  runtime::Random& random_;
};

}  // namespace novacat::workflows
