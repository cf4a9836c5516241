// The local executor: runs an Amazon States Language definition (JSONPath
// query language) the way Step Functions does, on one machine, with tasks
// bound to in-process handlers and a virtual clock.
//
// What is tested is what is deployed: the executor reads the generated
// statemachine.asl.json itself. Retries wait on the virtual clock, so their
// exact schedule is recorded instantly. A definition that uses a construct
// the executor does not implement is rejected when loaded, with the JSON
// pointer of the construct, never half-run. Documents are ordered JSON:
// objects keep their members in document order, as Step Functions does
// (States.JsonToString output depends on it).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace novacat::runtime::asl {

// One invocation of a Task state.
struct TaskInvocation {
  std::string state_name;
  std::string resource;
  nlohmann::ordered_json
      input;            // the effective input: after InputPath, Parameters
  int retry_count = 0;  // $$.State.RetryCount
  double now = 0;       // the virtual clock when the invocation starts
};

// What a task handler returns: the function's result (for lambda:invoke the
// executor wraps it as Lambda does: {"ExecutedVersion", "Payload",
// "StatusCode"}) and how long the invocation took on the virtual clock.
struct TaskOutcome {
  nlohmann::ordered_json result;
  double seconds = 0;
};

// Binds Task states to code. A failure is an AslError (error name = the
// Lambda errorType, e.g. "RetryableError").
using TaskHandler = std::function<TaskOutcome(const TaskInvocation&)>;

struct HistoryEvent {
  int64_t id = 0;
  double timestamp = 0;  // virtual seconds since the epoch
  std::string type;      // ExecutionStarted, StateEntered, TaskScheduled...
  std::string state;     // the state, when the event is about one
  nlohmann::ordered_json details = nlohmann::ordered_json::object();
};

// What RunResult::history records. Each recorded document is a copy (the
// executor moves documents from state to state), so a caller that never
// reads the history saves that work: the states, waits and output are
// recorded whatever this says.
enum class History {
  kNone,    // no events
  kEvents,  // every event with its time and details, but no documents
            // (state inputs and outputs, task parameters and results,
            // the execution's input and output)
  kFull,    // every event with every document, as Step Functions shows it
};

// Step Functions' quota on an execution's history, in events. The event
// that would be the last is ExecutionFailed instead (States.Runtime, "The
// execution reached the maximum number of history events (25000)."),
// which no Retry or Catch handles: it bounds an endless loop in time and
// memory. Events are counted as Step Functions writes them, whatever
// RunOptions::history records (executor.cc, Run::Count).
constexpr int64_t kMaxHistoryEvents = 25000;

struct RunOptions {
  // $$.Execution.Id, $$.Execution.Name, $$.StateMachine.Id/Name.
  std::string execution_arn =
      "arn:aws:states:us-east-1:123456789012:execution:test:exec-1";
  std::string execution_name = "exec-1";
  std::string state_machine_arn =
      "arn:aws:states:us-east-1:123456789012:stateMachine:test";
  std::string state_machine_name = "test";
  double start_time = 1767225600;  // 2026-01-01T00:00:00Z
  uint64_t seed = 1;               // FULL jitter, States.UUID, MathRandom
  // Step Functions' limit on a state's input, output and a task's result
  // (UTF-8 bytes of the JSON); larger fails with States.DataLimitExceeded,
  // which no Retry or Catch matches.
  size_t max_payload_bytes = 256 * 1024;
  // The execution's time limit in seconds (0: none) besides the
  // definition's own TimeoutSeconds: 300 for an EXPRESS workflow. Past it
  // the execution fails with States.Timeout.
  double execution_timeout_seconds = 0;
  History history = History::kFull;
  // The history quota; only a benchmark of a definition larger than any
  // execution Step Functions allows raises it.
  int64_t max_history_events = kMaxHistoryEvents;
};

struct RunResult {
  std::string status;  // SUCCEEDED or FAILED
  nlohmann::ordered_json output;
  // A failed execution's error and cause; each absent when the execution
  // succeeded, or when the Fail state that ended it names none (Step
  // Functions leaves them out then; they are never "").
  std::optional<std::string> error;
  std::optional<std::string> cause;
  std::vector<std::string> states;  // every state entered, in order
  std::vector<double> waits;        // every retry wait, in order
  std::vector<HistoryEvent> history;
  double end_time = 0;
};

namespace detail {
struct Program;  // a definition compiled for running (executor.cc)
}  // namespace detail

class StateMachine {
 public:
  ~StateMachine();
  StateMachine(const StateMachine&) = delete;
  StateMachine& operator=(const StateMachine&) = delete;

  // Loads `definition`; null (and `error` set to "<json pointer>: <why>")
  // when it is invalid or uses what the executor does not support.
  static std::unique_ptr<StateMachine> Load(
      const nlohmann::ordered_json& definition, std::string* error);

  RunResult Run(const nlohmann::ordered_json& input, const TaskHandler& handler,
                const RunOptions& options = {}) const;

  const nlohmann::ordered_json& definition() const { return definition_; }

 private:
  explicit StateMachine(nlohmann::ordered_json definition);
  nlohmann::ordered_json definition_;
  // States by index, targets as indices, paths, templates and Choice rules
  // parsed once; it points into definition_.
  std::unique_ptr<const detail::Program> program_;
};

nlohmann::ordered_json HistoryToJson(const std::vector<HistoryEvent>& history);
// One line per event: "12  +30.000s  TaskFailed  CheckExisting...  {...}".
std::string FormatHistory(const std::vector<HistoryEvent>& history);

}  // namespace novacat::runtime::asl
