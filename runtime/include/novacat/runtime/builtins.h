// The built-in Tasks every workflow shares (a spec's `builtin:` states), so
// that hand-written step logic only does domain work, and the
// AttemptRecorder the host wraps around every Task invocation.
//
// Each builtin is a function from the state document (or a Map item
// document) to the document the Task returns: the input with fields added.
// Failures are thrown as the error taxonomy (TerminalError for broken
// invariants, RetryableError from the store or the bus when transient).
//
// Fields the builtins add to the state document:
//
//   BeginJobRun             job_run_id, correlation_id (when absent), the
//                           input fields' defaults (when absent)
//   AcquireIdempotencyLock  workflow_idempotency_key,
//                           idempotency {status: ACQUIRED}, or
//                           idempotency {status: DUPLICATE, lock:
//                             HELD_BY_OTHER|ALREADY_DONE, owner_job_run_id,
//                             outcome (null while the owner runs)}
//   TerminalFailHandler     error_classification, error_fingerprint,
//                           error_summary; job_run_id / correlation_id when
//                           the run failed before BeginJobRun made them
//   QuarantineHandler       quarantine_reason, error_classification
//                           (QUARANTINE), error_fingerprint, error_summary
//                           (when an error was caught)
//   QuarantineItem          as QuarantineHandler, plus quarantined: true
//
// Duplicates (the seeds' production bug: a duplicate run ended FAILED):
// AcquireIdempotencyLock never fails on a duplicate. It returns
// `idempotency_status == "DUPLICATE"` and every spec routes on it with a
// Choice right after the lock:
//
//   IsDuplicateRun?:
//     type: Choice
//     rules:
//       - when: {field: idempotency_status, equals: DUPLICATE}
//         next: FinalizeJobRunSuccess
//         outcome: DUPLICATE_SKIPPED
//     default: <the first domain Task>
//
// so the run ends SUCCEEDED with outcome DUPLICATE_SKIPPED without
// repeating side effects. ACQUIRED is written too because a Choice on a
// missing path is a States.Runtime error.
//
// The idempotency lock is completed (DONE with the outcome) by
// FinalizeJobRunSuccess and released by FinalizeJobRunQuarantined and
// FinalizeJobRunFailed, so that quarantined or failed work can run again in
// the same time bucket; only the owner (idempotency.status == ACQUIRED)
// touches it.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/ids.h"
#include "novacat/runtime/log.h"
#include "novacat/runtime/records.h"
#include "novacat/runtime/step_context.h"
#include "novacat/runtime/store.h"
#include "novacat/runtime/validation.h"

namespace novacat::runtime {

// Where published events go (EventBridge in AWS). Throws RetryableError
// when a transient failure lost the event.
class EventBus {
 public:
  virtual ~EventBus() = default;
  virtual void Publish(std::string_view event_name,
                       const nlohmann::json& event) = 0;
  // Publishes every one of `events` as `event_name`, in order, each at
  // least once. Throws as Publish when one could not be published; the
  // ones before it may have been (the caller's retry publishes them
  // again). This one calls Publish for each; a bus that sends several
  // events a request (EventBridgeBus) overrides it.
  virtual void PublishAll(std::string_view event_name,
                          const std::vector<nlohmann::json>& events);
};

// Keeps what was published, for tests. Thread-safe.
class CaptureBus : public EventBus {
 public:
  struct Published {
    std::string event_name;
    nlohmann::json event;
    bool operator==(const Published&) const = default;
  };
  void Publish(std::string_view event_name,
               const nlohmann::json& event) override;
  std::vector<Published> published() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Published> published_;
};

// The generated ValidateEvent(event, document): the errors (empty when
// valid), nullopt for an event the workflow does not know.
using EventValidator = std::function<std::optional<ValidationErrors>(
    std::string_view event, const nlohmann::json& document)>;

// Builds the workflow idempotency key from the state document and the time
// bucket (TimeBucket(now, time_bucket_seconds), or "" for a workflow
// without one), usually by calling the generated WorkflowIdempotencyKey.
// Throws TerminalError when a part of the key is missing.
using IdempotencyKeyBuilder = std::function<std::string(
    const nlohmann::json& state, std::string_view time_bucket)>;

// What the builtins need to know about the workflow (from its spec).
struct WorkflowFacts {
  std::string workflow_name;
  int64_t schema_version = 1;
  // The input event (validated by BeginJobRun).
  std::string input_event;
  // Values BeginJobRun fills in for input fields the input lacks (the
  // spec's `default`s), after validating the input as given.
  nlohmann::json input_defaults = nlohmann::json::object();
  // True when the input event requires nova_id: the run's records live
  // under NOVA#<nova_id>; otherwise under JOBRUN#<job_run_id> (records.h).
  bool nova_scoped = false;
  // The idempotency key's time bucket; 0 when the key has none.
  int64_t time_bucket_seconds = 0;
  // The log fields: the governance's, then the spec's `logging` (merged
  // by the generator).
  LogSpec log_spec;
  IdempotencyKeyBuilder idempotency_key;
  EventValidator validate_event;
  // How long an idempotency lock held by a run that never finalized (its
  // execution was aborted) keeps duplicates out: the workflow's worst-case
  // duration, which the generator computes (LockLeaseSeconds).
  int64_t lock_lease_seconds = 3600;
  // The governance's error names: what a failure reports, how a caught
  // error is classified.
  ErrorNames errors;
  // The spec's `job_run_output`: the fields the Finalize builtins copy,
  // those present in the document, into the JobRun's output, in this order.
  // Empty: the JobRun records no output.
  std::vector<std::string> job_run_output;
};

// One builtin invocation's world. Nothing in it is global; tests inject a
// record store (over a MemoryTable), CaptureSink, CaptureBus, SeededRandom
// and a virtual clock.
struct BuiltinContext {
  StepContext step;
  const WorkflowFacts& workflow;
  RecordStore& store;
  LogSink& log;
  EventBus& events;
  Random& random;
  std::function<int64_t()> now;  // seconds since the epoch
};

// The partition nova of the run a document belongs to: its nova_id when
// the workflow is nova-scoped and the document has a UUID there, else
// nullopt (JOBRUN# partition). Every record of a run agrees on it.
std::optional<std::string> RunNovaId(const nlohmann::json& document,
                                     const WorkflowFacts& workflow);

// A failure, summarized for records, logs and the state document.
struct ErrorSummary {
  std::string error_name;      // RetryableError, States.Timeout, ...
  std::string classification;  // RETRYABLE, TERMINAL, QUARANTINE
  std::string message;         // the cause, as raised
  std::string fingerprint;     // ErrorFingerprint
  std::optional<std::string> failed_state;  // the Task that raised it

  // {error_name, error_classification, error_fingerprint, failed_state
  // (when known), message}.
  nlohmann::ordered_json ToJson() const;
};

// An exception thrown by Task `state_name`. A StepError keeps its name and
// class; any other exception is an internal invariant violation:
// TerminalError (the host reports it to Step Functions under that name).
ErrorSummary SummarizeException(const std::exception& error,
                                std::string_view state_name,
                                const ErrorNames& names);

// A caught error as a Catch's `ResultPath: $.error` leaves it: {"Error",
// "Cause"}. A Cause that is Lambda's JSON ({"errorMessage", "errorType",
// ...}) contributes its errorMessage. The state is unknown here, so the
// fingerprint uses an empty state name; names outside the taxonomy are kept
// in the fingerprinted cause ("States.Timeout: <cause>").
ErrorSummary SummarizeCaughtError(const nlohmann::json& error,
                                  const ErrorNames& names);

// --- Builtin Tasks -------------------------------------------------------

// Validates the state document as the input event (invalid -> TerminalError
// listing every error), ensures correlation_id, creates job_run_id (UUID
// v4) and writes the JobRun STARTED.
nlohmann::json BeginJobRun(const nlohmann::json& state, BuiltinContext& ctx);

// Builds the workflow idempotency key and acquires its lock (see the top of
// this file for what it returns). Needs job_run_id.
nlohmann::json AcquireIdempotencyLock(const nlohmann::json& state,
                                      BuiltinContext& ctx);

// A spec's `builtin: PublishEvent` state.
struct EventSpec {
  std::string event;                // the event name
  std::vector<std::string> fields;  // its declared fields, in order
  // The event's schema version, written as `schema_version` when set.
  std::optional<int64_t> schema_version;
  // for_each: one event per element of array `field`, the element as
  // field `as`.
  struct ForEach {
    std::string field;
    std::string as;
  };
  std::optional<ForEach> for_each;
};

// Builds the event(s) from the document's declared fields (absent fields
// are left out), adds correlation_id, validates every event first (any
// invalid -> TerminalError listing them, nothing published), then publishes
// them in order (one EventBus::PublishAll) and logs "event published" for
// each. Returns the document unchanged. Events are at-least-once: a retry
// after a partial publish publishes again.
nlohmann::json PublishEvent(const nlohmann::json& state, BuiltinContext& ctx,
                            const EventSpec& spec);

// SUCCEEDED with `$.outcome` (missing -> TerminalError); completes the lock.
nlohmann::json FinalizeJobRunSuccess(const nlohmann::json& state,
                                     BuiltinContext& ctx);
// QUARANTINED with QUARANTINE and the quarantine's fingerprint; releases the
// lock.
nlohmann::json FinalizeJobRunQuarantined(const nlohmann::json& state,
                                         BuiltinContext& ctx);
// FAILED with the classification and fingerprint of `$.error_summary`
// (TerminalFailHandler's) or else `$.error`; releases the lock. Never fails
// because the run is odd: a run with no JobRun (BeginJobRun failed) gets a
// FAILED one; a JobRun already final is logged and left alone.
nlohmann::json FinalizeJobRunFailed(const nlohmann::json& state,
                                    BuiltinContext& ctx);
// Summarizes `$.error` into the state (the failing Task is found among the
// run's FAILED Attempts by fingerprint, so the JobRun's fingerprint is that
// Attempt's). Logs best-effort: the input itself may be what was invalid.
nlohmann::json TerminalFailHandler(const nlohmann::json& state,
                                   BuiltinContext& ctx);
// Records why the run is quarantined: `$.quarantine_reason` (set by a
// Choice), else the caught `$.error`; neither -> TerminalError.
nlohmann::json QuarantineHandler(const nlohmann::json& state,
                                 BuiltinContext& ctx);
// For a Map item: as QuarantineHandler, returns the item with
// `quarantined: true`, and writes the Attempt of this invocation with
// error_classification QUARANTINE (status SUCCEEDED: the invocation did its
// job; the classification says what it disposed of).
nlohmann::json QuarantineItem(const nlohmann::json& item, BuiltinContext& ctx);

// --- Attempts ------------------------------------------------------------

// Records one Attempt per Task invocation, retries included. The host calls
// Run around every invocation, builtins included:
//
//   json out = recorder.Run(context, document, [&] { return Invoke(...); });
//
// The Attempt: job_run_id, partition and map_item_index from the document
// (job_run_id from the result for BeginJobRun; an invocation before any
// JobRun exists records nothing), attempt_number = context.attempt_number
// (1 + $$.State.RetryCount), SUCCEEDED, or FAILED with the exception's
// SummarizeException. A result with `quarantined: true` (QuarantineItem)
// carries its quarantine fields, so the Attempt QuarantineItem wrote is
// rewritten under the same key with the same fields (timestamps from the
// recorder's clock readings). The task's exception is rethrown unchanged; a
// store failure while recording a failed invocation is swallowed so it
// cannot mask the task's error; one while recording a successful invocation
// propagates (RetryableError from a throttled store retries the Task).
class AttemptRecorder {
 public:
  // `now_ms`: the invocation's clock, milliseconds since the epoch, read
  // before the task (started_at) and after it (ended_at).
  AttemptRecorder(RecordStore& store, const WorkflowFacts& workflow,
                  std::function<int64_t()> now_ms)
      : store_(store), workflow_(workflow), now_ms_(std::move(now_ms)) {}

  nlohmann::json Run(
      const StepContext& context, const nlohmann::json& document,
      const std::function<nlohmann::json()>& task,
      const std::optional<std::string>& dedupe_key = std::nullopt);

 private:
  RecordStore& store_;
  const WorkflowFacts& workflow_;
  std::function<int64_t()> now_ms_;
};

}  // namespace novacat::runtime
