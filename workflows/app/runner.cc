#include "runner.h"

#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "registry.h"

namespace novacat::workflows {

namespace {

// Forwards to the real store and remembers the JobRuns started through it,
// so that a run's JobRun is found whatever partition it lives in.
class JobRunWatcher : public runtime::RecordStore {
 public:
  explicit JobRunWatcher(runtime::RecordStore& inner) : inner_(inner) {}

  void PutExecution(const runtime::ExecutionRecord& execution) override {
    inner_.PutExecution(execution);
  }
  std::optional<runtime::ExecutionRecord> GetExecution(
      std::string_view execution_arn) override {
    return inner_.GetExecution(execution_arn);
  }

  void PutJobRun(const runtime::JobRun& run) override {
    inner_.PutJobRun(run);
    // Where BeginJobRun put it; a copy listed under the nova the run came
    // to know (builtins.cc, ListUnderNova) is not another run.
    for (const auto& started : started_)
      if (started.first == run.job_run_id) return;
    started_.push_back({run.job_run_id, run.nova_id});
  }
  runtime::UpdateResult UpdateJobRun(
      const runtime::JobRunUpdate& update) override {
    return inner_.UpdateJobRun(update);
  }
  std::optional<runtime::JobRun> GetJobRun(
      std::string_view job_run_id,
      const std::optional<std::string>& nova_id) override {
    return inner_.GetJobRun(job_run_id, nova_id);
  }
  std::vector<runtime::JobRun> ListJobRuns(std::string_view nova_id) override {
    return inner_.ListJobRuns(nova_id);
  }
  void PutAttempt(const runtime::Attempt& attempt) override {
    inner_.PutAttempt(attempt);
  }
  std::vector<runtime::Attempt> ListAttempts(
      std::string_view job_run_id,
      const std::optional<std::string>& nova_id) override {
    return inner_.ListAttempts(job_run_id, nova_id);
  }
  runtime::LockResult AcquireLock(const std::string& key,
                                  const std::string& owner, int64_t now,
                                  int64_t lease_seconds) override {
    return inner_.AcquireLock(key, owner, now, lease_seconds);
  }
  bool CompleteLock(const std::string& key, const std::string& owner,
                    const std::string& outcome) override {
    return inner_.CompleteLock(key, owner, outcome);
  }
  bool ReleaseLock(const std::string& key, const std::string& owner) override {
    return inner_.ReleaseLock(key, owner);
  }

  // The last JobRun started, as stored now.
  std::optional<runtime::JobRun> Last() {
    if (started_.empty()) return std::nullopt;
    return inner_.GetJobRun(started_.back().first, started_.back().second);
  }

 private:
  runtime::RecordStore& inner_;
  std::vector<std::pair<std::string, std::optional<std::string>>> started_;
};

}  // namespace

namespace {

// The bus of a local run: keeps what is published and, given an outbox,
// records each event there first (RunnerOptions::outbox).
class OutboxBus : public runtime::EventBus {
 public:
  OutboxBus(store::Outbox* outbox, std::string execution, std::string workflow)
      : outbox_(outbox),
        execution_(std::move(execution)),
        workflow_(std::move(workflow)) {}

  void Publish(std::string_view event_name,
               const nlohmann::json& event) override {
    std::lock_guard lock(mutex_);
    if (outbox_)
      ids_.push_back(
          outbox_->Record(execution_, workflow_, std::string(event_name), event)
              .id);
    capture_.Publish(event_name, event);
  }
  std::vector<runtime::CaptureBus::Published> published() const {
    return capture_.published();
  }
  std::vector<std::string> outbox_ids() const {
    std::lock_guard lock(mutex_);
    return ids_;
  }

 private:
  store::Outbox* outbox_;
  std::string execution_, workflow_;
  mutable std::mutex mutex_;
  std::vector<std::string> ids_;
  runtime::CaptureBus capture_;
};

// A remote Task handler that remembers the run's ids from what the Tasks
// return (BeginJobRun adds job_run_id), to read the JobRun back.
struct RemoteRunIds {
  std::optional<std::string> job_run_id;
  std::optional<std::string> nova_id;
};

runtime::asl::TaskHandler Remembering(runtime::asl::TaskHandler inner,
                                      std::shared_ptr<RemoteRunIds> ids) {
  return [inner = std::move(inner),
          ids](const runtime::asl::TaskInvocation& call) {
    runtime::asl::TaskOutcome outcome = inner(call);
    const auto& result = outcome.result;
    if (result.is_object()) {
      if (auto it = result.find("job_run_id");
          it != result.end() && it->is_string() && !ids->job_run_id)
        ids->job_run_id = it->get<std::string>();
      if (auto it = result.find("nova_id");
          it != result.end() && it->is_string())
        ids->nova_id = it->get<std::string>();
    }
    return outcome;
  };
}

}  // namespace

WorkflowRun LocalRunner::RunOne(const std::string& workflow,
                                const nlohmann::ordered_json& input,
                                double start_time,
                                const RunnerOptions& runner_options) {
  const WorkflowInfo* info = FindWorkflow(workflow);
  if (!info) throw std::invalid_argument("unknown workflow " + workflow);
  std::string error;
  auto machine = runtime::asl::StateMachine::Load(
      nlohmann::ordered_json::parse(info->definition()), &error);
  if (!machine)  // a generator bug, not bad input
    throw std::logic_error(workflow + ": " + error);
  runtime::asl::RunOptions options;
  options.start_time = start_time;
  options.history = runner_options.history;
  options.seed = random_.Next64();  // States.UUID, jitter
  options.state_machine_name = workflow;
  options.execution_name = runtime::NewUuidV4(random_);
  options.execution_arn =
      "arn:aws:states:local:000000000000:execution:" + workflow + ":" +
      options.execution_name;
  options.state_machine_arn =
      "arn:aws:states:local:000000000000:stateMachine:" + workflow;
  WorkflowRun run;
  run.workflow = workflow;
  run.input = input;
  run.execution_arn = options.execution_arn;
  if (runner_options.remote_tasks) {
    auto ids = std::make_shared<RemoteRunIds>();
    run.result = machine->Run(
        input, Remembering(runner_options.remote_tasks(workflow), ids),
        options);
    if (ids->job_run_id) {
      // Nova-scoped runs live under their nova; the others under the run
      // (and, once final, a copy under the nova they came to know).
      run.job_run = records_.GetJobRun(*ids->job_run_id, std::nullopt);
      if (!run.job_run)
        run.job_run = records_.GetJobRun(*ids->job_run_id, ids->nova_id);
    }
    return run;
  }
  // The step logic in this process, its records watched, its events kept
  // (and recorded in the outbox before anything delivers them).
  BoundWorkflow bound = info->bind(env_);
  JobRunWatcher records(records_);
  OutboxBus bus(runner_options.follow ? runner_options.outbox : nullptr,
                options.execution_name, workflow);
  runtime::HostServices services{records, log_, bus, random_};
  std::optional<LiveRun> live;
  if (!runner_options.live_runs.empty())
    live.emplace(runner_options.live_runs, options.execution_name, workflow);
  runtime::asl::TaskHandler handler =
      runtime::MakeTaskHandler(bound.binding, services);
  if (live || runner_options.after_task)
    handler = [&, inner = std::move(handler)](
                  const runtime::asl::TaskInvocation& call) {
      runtime::asl::TaskOutcome outcome = inner(call);
      if (live) live->Note(outcome.result, bound.binding.facts);
      if (runner_options.after_task) runner_options.after_task();
      return outcome;
    };
  run.result = machine->Run(input, handler, options);
  run.job_run = records.Last();
  run.events = bus.published();
  run.outbox_ids = bus.outbox_ids();
  return run;
}

RunReport LocalRunner::Run(const std::string& workflow,
                           const nlohmann::ordered_json& input,
                           const RunnerOptions& options) {
  if (!FindWorkflow(workflow))
    throw std::invalid_argument("unknown workflow " + workflow);
  if (options.remote_tasks && options.follow)
    throw std::invalid_argument(
        "follow needs the events, which a remote function publishes "
        "elsewhere");
  RunReport report;
  std::vector<WorkflowRun>& runs = report.runs;
  // Depth first in publish order: each run's triggered runs come right
  // after it.
  struct Pending {
    std::string workflow;
    nlohmann::ordered_json input;
    std::string started_by;
    std::string outbox_id;  // delivered once this run has ended
  };
  std::deque<Pending> pending;
  double clock = options.start_time;
  try {
    // What killed runs left: their lock and leases, then their events.
    if (!options.live_runs.empty())
      report.reaped =
          ReapDeadRuns(options.live_runs, records_, env_.repository,
                       static_cast<int64_t>(std::floor(options.start_time)));
    if (options.follow && options.outbox)
      for (store::Outbox::Entry& entry : options.outbox->Pending()) {
        const WorkflowInfo* w = WorkflowStartedBy(entry.event_name);
        if (!w) {
          options.outbox->Delivered(entry.id);
          continue;
        }
        pending.push_back({w->name,
                           nlohmann::ordered_json::parse(entry.event.dump()),
                           entry.source_workflow, entry.id});
        ++report.resumed;
      }
  } catch (const std::exception& e) {
    report.error = std::string("recovering what killed runs left: ") + e.what();
    return report;
  }
  pending.push_back({workflow, input, "", ""});
  while (!pending.empty() && static_cast<int>(runs.size()) < options.max_runs) {
    Pending next = std::move(pending.front());
    pending.pop_front();
    WorkflowRun run;
    std::vector<Pending> triggered;
    try {
      run = RunOne(next.workflow, next.input, clock, options);
      // Delivered: the run it started has ended, whatever its status.
      if (!next.outbox_id.empty()) options.outbox->Delivered(next.outbox_id);
      if (options.follow)
        for (size_t i = 0; i < run.events.size(); ++i) {
          const auto& e = run.events[i];
          const std::string outbox_id =
              i < run.outbox_ids.size() ? run.outbox_ids[i] : "";
          if (const WorkflowInfo* w = WorkflowStartedBy(e.event_name))
            triggered.push_back({w->name,
                                 nlohmann::ordered_json::parse(e.event.dump()),
                                 run.workflow, outbox_id});
          else if (!outbox_id.empty())
            options.outbox->Delivered(outbox_id);  // it starts nothing
        }
    } catch (const std::exception& e) {
      // Workflow failures are results; this is the store or a client
      // failing outside any Task (opening, reading the JobRun back).
      report.error = next.workflow + ": " + e.what();
      report.not_run = static_cast<int>(pending.size());
      return report;
    }
    run.started_by = next.started_by;
    clock = std::max(clock, run.result.end_time);
    pending.insert(pending.begin(), triggered.begin(), triggered.end());
    runs.push_back(std::move(run));
  }
  report.not_run = static_cast<int>(pending.size());
  return report;
}

RejectedInput LocalRunner::RejectInput(const std::string& workflow,
                                       const std::string& error, double now) {
  if (!FindWorkflow(workflow))
    throw std::invalid_argument("unknown workflow " + workflow);
  const int64_t at = static_cast<int64_t>(std::floor(now));
  runtime::JobRun run;
  run.job_run_id = runtime::NewUuidV4(random_);
  run.workflow = workflow;
  run.correlation_id = runtime::NewUuidV4(random_);
  run.execution_arn =
      "arn:aws:states:local:000000000000:execution:" + workflow +
      ":input-rejected";  // none started
  run.status = runtime::JobRunStatus::kFailed;
  run.error_classification = "TERMINAL";
  run.error_fingerprint = runtime::ErrorFingerprint("TERMINAL", "", error);
  run.started_at = runtime::FormatTimestamp(at);
  run.ended_at = run.started_at;
  records_.PutJobRun(run);
  return {run, error};
}

}  // namespace novacat::workflows
