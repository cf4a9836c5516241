#include "novacat/runtime/builtins.h"

#include <algorithm>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/json_reader.h"

namespace novacat::runtime {

namespace {

using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

// The cause a caught error's fingerprint is computed from: the message for
// the taxonomy's own names (so it equals the raising Attempt's), the name
// and the message otherwise (States.Timeout and States.Runtime differ).
std::string FingerprintCause(std::string_view error_name,
                             std::string_view message,
                             const ErrorNames& names) {
  if (names.IsClassName(error_name)) return std::string(message);
  return std::string(error_name) + ": " + std::string(message);
}

const std::string* StringMember(const json& document, std::string_view name) {
  if (!document.is_object()) return nullptr;
  auto it = document.find(name);
  if (it == document.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

// The JobRun's output: the workflow's `job_run_output` fields present in
// the document, in the spec's order, as JSON text; nullopt when the
// workflow names none.
std::optional<std::string> JobRunOutput(const json& document,
                                        const WorkflowFacts& workflow) {
  if (workflow.job_run_output.empty()) return std::nullopt;
  ordered_json output = ordered_json::object();
  for (const auto& field : workflow.job_run_output) {
    if (!document.is_object()) break;
    auto it = document.find(field);
    if (it != document.end()) output[field] = ordered_json(*it);
  }
  return output.dump();
}

std::optional<int64_t> IntegerMember(const json& document,
                                     std::string_view name) {
  if (!document.is_object()) return std::nullopt;
  auto it = document.find(name);
  if (it == document.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

std::string RequireString(const json& document, std::string_view name,
                          std::string_view builtin) {
  const std::string* value = StringMember(document, name);
  if (!value || value->empty())
    throw TerminalError(std::string(builtin) + ": $." + std::string(name) +
                        " is required (a non-empty string)");
  return *value;
}

json RequireObject(const json& document, std::string_view builtin) {
  if (!document.is_object())
    throw TerminalError(std::string(builtin) +
                        ": the state document must be an object");
  return document;
}

// The correlation id records and events carry: the context's, else the
// document's.
std::string CorrelationId(const BuiltinContext& ctx, const json& document) {
  if (!ctx.step.correlation_id.empty()) return ctx.step.correlation_id;
  const std::string* id = StringMember(document, "correlation_id");
  return id ? *id : std::string();
}

StepLogger MakeLogger(const BuiltinContext& ctx, const json* state) {
  return StepLogger(ctx.workflow.log_spec, ctx.log,
                    LogContext{ctx.step, ctx.workflow.schema_version, ctx.now},
                    state);
}

bool OwnsLock(const json& state) {
  if (!state.is_object()) return false;
  auto it = state.find("idempotency");
  return it != state.end() && it->is_object() &&
         it->value("status", json()) == "ACQUIRED";
}

// A caught error with the state that raised it, when the run's FAILED
// Attempts show one whose fingerprint this error reproduces (the latest
// such, by ended_at).
ErrorSummary ResolveCaughtError(const json& document, BuiltinContext& ctx) {
  json error = document.is_object() && document.contains("error")
                   ? document.at("error")
                   : json();
  ErrorSummary summary = SummarizeCaughtError(error, ctx.workflow.errors);
  const std::string* job_run_id = StringMember(document, "job_run_id");
  if (!job_run_id) return summary;
  std::optional<int64_t> item_index = IntegerMember(document, "map_item_index");
  std::string cause = FingerprintCause(summary.error_name, summary.message,
                                       ctx.workflow.errors);
  const Attempt* best = nullptr;
  std::vector<Attempt> attempts =
      ctx.store.ListAttempts(*job_run_id, RunNovaId(document, ctx.workflow));
  for (const Attempt& a : attempts) {
    if (a.status != AttemptStatus::kFailed ||
        a.error_name != summary.error_name || !a.error_fingerprint)
      continue;
    if (item_index && a.map_item_index != item_index) continue;
    if (*a.error_fingerprint !=
        ErrorFingerprint(summary.classification, a.state_name, cause))
      continue;
    if (!best || a.ended_at >= best->ended_at) best = &a;
  }
  if (best) {
    summary.failed_state = best->state_name;
    summary.fingerprint = *best->error_fingerprint;
  }
  return summary;
}

// Why an item or a run is quarantined: the Choice's reason, else the caught
// error.
struct Quarantine {
  std::string reason;
  std::string fingerprint;
  std::optional<ErrorSummary> caught;
};

Quarantine ResolveQuarantine(const json& document, BuiltinContext& ctx,
                             std::string_view builtin) {
  const std::string* reason = StringMember(document, "quarantine_reason");
  if (reason && !reason->empty())
    return {*reason, ErrorFingerprint("QUARANTINE", "", *reason), std::nullopt};
  if (document.is_object() && document.contains("error") &&
      document.at("error").is_object()) {
    ErrorSummary summary = ResolveCaughtError(document, ctx);
    return {summary.message, summary.fingerprint, summary};
  }
  throw TerminalError(std::string(builtin) +
                      ": the state has neither quarantine_reason nor error");
}

json ApplyQuarantine(json out, const Quarantine& q) {
  out["quarantine_reason"] = q.reason;
  out["error_classification"] = "QUARANTINE";
  out["error_fingerprint"] = q.fingerprint;
  if (q.caught) out["error_summary"] = json(q.caught->ToJson());
  return out;
}

}  // namespace

void EventBus::PublishAll(std::string_view event_name,
                          const std::vector<json>& events) {
  for (const auto& event : events) Publish(event_name, event);
}

void CaptureBus::Publish(std::string_view event_name, const json& event) {
  std::lock_guard<std::mutex> lock(mutex_);
  published_.push_back({std::string(event_name), event});
}

std::vector<CaptureBus::Published> CaptureBus::published() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return published_;
}

std::optional<std::string> RunNovaId(const json& document,
                                     const WorkflowFacts& workflow) {
  if (!workflow.nova_scoped) return std::nullopt;
  const std::string* nova_id = StringMember(document, "nova_id");
  if (!nova_id || !IsUuid(*nova_id)) return std::nullopt;
  return *nova_id;
}

ordered_json ErrorSummary::ToJson() const {
  ordered_json out = ordered_json::object();
  out["error_name"] = error_name;
  out["error_classification"] = classification;
  out["error_fingerprint"] = fingerprint;
  if (failed_state) out["failed_state"] = *failed_state;
  out["message"] = message;
  return out;
}

ErrorSummary SummarizeException(const std::exception& error,
                                std::string_view state_name,
                                const ErrorNames& names) {
  ErrorSummary summary;
  if (const auto* step = dynamic_cast<const StepError*>(&error)) {
    summary.error_name = names.NameOf(step->error_class());
    summary.classification = step->classification();
  } else {
    summary.error_name = names.terminal;
    summary.classification = "TERMINAL";
  }
  summary.message = error.what();
  summary.fingerprint =
      ErrorFingerprint(summary.classification, state_name, summary.message);
  summary.failed_state = std::string(state_name);
  return summary;
}

ErrorSummary SummarizeCaughtError(const json& error, const ErrorNames& names) {
  ErrorSummary summary;
  if (!error.is_object()) {
    summary.error_name = "Unknown";
    summary.message = "the state document has no caught error";
  } else {
    const std::string* name = StringMember(error, "Error");
    summary.error_name = name ? *name : "Unknown";
    auto cause = error.find("Cause");
    json parsed;
    if (cause != error.end() && cause->is_string()) {
      parsed = json::parse(cause->get_ref<const std::string&>(), nullptr,
                           /*allow_exceptions=*/false);
      summary.message = cause->get<std::string>();
    } else if (cause != error.end() && !cause->is_null()) {
      parsed = *cause;
      summary.message = cause->dump();
    }
    if (const std::string* message = StringMember(parsed, "errorMessage"))
      summary.message = *message;
  }
  summary.classification = names.Classify(summary.error_name);
  summary.fingerprint = ErrorFingerprint(
      summary.classification, "",
      FingerprintCause(summary.error_name, summary.message, names));
  return summary;
}

namespace {

// What the reaper finds the run by (ExecutionRecord); nothing for an
// invocation that names no execution.
void NoteExecution(BuiltinContext& ctx, const std::string& job_run_id,
                   const std::optional<std::string>& nova_id,
                   const std::optional<std::string>& idempotency_key) {
  if (ctx.step.execution_arn.empty()) return;
  ctx.store.PutExecution({ctx.step.execution_arn, ctx.workflow.workflow_name,
                          job_run_id, nova_id, idempotency_key, std::nullopt});
}

}  // namespace

json BeginJobRun(const json& state, BuiltinContext& ctx) {
  const WorkflowFacts& wf = ctx.workflow;
  if (!wf.validate_event)
    throw TerminalError("BeginJobRun: no event validator for " +
                        wf.workflow_name);
  std::optional<ValidationErrors> errors =
      wf.validate_event(wf.input_event, state);
  if (!errors)
    throw TerminalError("BeginJobRun: " + wf.workflow_name +
                        " does not know its input event '" + wf.input_event +
                        "'");
  if (!errors->empty())
    throw TerminalError("the input event " + wf.input_event + " is invalid:\n" +
                        FormatErrors(*errors));
  json out = RequireObject(state, "BeginJobRun");
  for (auto it = wf.input_defaults.begin(); it != wf.input_defaults.end(); ++it)
    if (!out.contains(it.key())) out[it.key()] = it.value();
  std::string correlation_id = EnsureCorrelationId(out, ctx.random);
  std::optional<std::string> nova_id = RunNovaId(out, wf);
  if (wf.nova_scoped && !nova_id)
    throw TerminalError("$.nova_id: must be a UUID (" + wf.workflow_name +
                        " runs under its nova)");
  JobRun run;
  run.job_run_id = NewUuidV4(ctx.random);
  run.workflow = wf.workflow_name;
  run.nova_id = nova_id;
  run.correlation_id = correlation_id;
  run.execution_arn = ctx.step.execution_arn;
  run.status = JobRunStatus::kStarted;
  run.started_at = FormatTimestamp(ctx.now());
  ctx.store.PutJobRun(run);
  NoteExecution(ctx, run.job_run_id, run.nova_id, std::nullopt);
  out["job_run_id"] = run.job_run_id;
  MakeLogger(ctx, &out).Log(LogLevel::kInfo, "job run started");
  return out;
}

json AcquireIdempotencyLock(const json& state, BuiltinContext& ctx) {
  const WorkflowFacts& wf = ctx.workflow;
  json out = RequireObject(state, "AcquireIdempotencyLock");
  std::string job_run_id =
      RequireString(out, "job_run_id", "AcquireIdempotencyLock");
  if (!wf.idempotency_key)
    throw TerminalError("AcquireIdempotencyLock: " + wf.workflow_name +
                        " has no idempotency key builder");
  int64_t now = ctx.now();
  std::string bucket = wf.time_bucket_seconds > 0
                           ? TimeBucket(now, wf.time_bucket_seconds)
                           : std::string();
  std::string key = wf.idempotency_key(out, bucket);
  if (key.empty())
    throw TerminalError("AcquireIdempotencyLock: the idempotency key is empty");
  // Before the lock: a run that dies holding it is found with its key
  // (releasing a key another run holds changes nothing).
  NoteExecution(ctx, job_run_id, RunNovaId(out, wf), key);
  LockResult lock =
      ctx.store.AcquireLock(key, job_run_id, now, wf.lock_lease_seconds);
  out["workflow_idempotency_key"] = key;
  StepLogger logger = MakeLogger(ctx, &out);
  if (lock.status == LockResult::Status::kAcquired) {
    out["idempotency"] = {{"status", "ACQUIRED"}};
    out["idempotency_status"] = "ACQUIRED";  // flat, for a spec's Choice
    logger.Log(LogLevel::kInfo, "idempotency lock acquired");
    return out;
  }
  json outcome = lock.outcome ? json(*lock.outcome) : json(nullptr);
  json idempotency = json::object();
  idempotency["status"] = "DUPLICATE";
  idempotency["lock"] = LockStatusName(lock.status);
  idempotency["owner_job_run_id"] = lock.owner_job_run_id;
  idempotency["outcome"] = outcome;
  out["idempotency"] = idempotency;
  out["idempotency_status"] = "DUPLICATE";  // flat, for a spec's Choice
  ordered_json fields = ordered_json::object();
  fields["lock"] = LockStatusName(lock.status);
  fields["owner_job_run_id"] = lock.owner_job_run_id;
  fields["owner_outcome"] = outcome;
  logger.Log(LogLevel::kWarn, "duplicate run: the idempotency key is taken",
             fields);
  return out;
}

json PublishEvent(const json& state, BuiltinContext& ctx,
                  const EventSpec& spec) {
  const WorkflowFacts& wf = ctx.workflow;
  json out = RequireObject(state, "PublishEvent");
  if (!wf.validate_event)
    throw TerminalError("PublishEvent: no event validator for " +
                        wf.workflow_name);
  std::string correlation_id = CorrelationId(ctx, out);
  if (correlation_id.empty())
    throw TerminalError("PublishEvent " + spec.event +
                        ": $.correlation_id is required");

  json base = json::object();
  for (const auto& field : spec.fields) {
    if (spec.for_each && field == spec.for_each->as) continue;
    auto it = out.find(field);
    if (it != out.end()) base[field] = *it;
  }
  base["correlation_id"] = correlation_id;
  if (spec.schema_version) base["schema_version"] = *spec.schema_version;

  std::vector<json> events;
  if (spec.for_each) {
    auto items = out.find(spec.for_each->field);
    if (items == out.end() || !items->is_array())
      throw TerminalError("PublishEvent " + spec.event + ": $." +
                          spec.for_each->field +
                          " must be an array (for_each)");
    for (const auto& element : *items) {
      json event = base;
      event[spec.for_each->as] = element;
      events.push_back(std::move(event));
    }
  } else {
    events.push_back(base);
  }

  std::string problems;
  for (size_t i = 0; i < events.size(); ++i) {
    std::optional<ValidationErrors> errors =
        wf.validate_event(spec.event, events[i]);
    if (!errors)
      throw TerminalError("PublishEvent: " + wf.workflow_name +
                          " does not know event '" + spec.event + "'");
    if (errors->empty()) continue;
    problems += spec.for_each
                    ? "event " + spec.event + "[" + std::to_string(i) + "] (" +
                          spec.for_each->as + " = " +
                          events[i][spec.for_each->as].dump() + "):\n"
                    : "";
    problems += FormatErrors(*errors);
  }
  if (!problems.empty())
    throw TerminalError("the event " + spec.event +
                        " is invalid; nothing was published:\n" + problems);

  // One PublishAll: EventBridge takes a for_each's events 10 a call. When
  // it throws, some may have been published: the Task's retry publishes
  // them all again (consumers dedupe by their idempotency key).
  ctx.events.PublishAll(spec.event, events);
  StepLogger logger = MakeLogger(ctx, &out);
  for (const auto& event : events) {
    ordered_json fields = ordered_json::object();
    fields["event"] = spec.event;
    if (spec.for_each) fields[spec.for_each->as] = event[spec.for_each->as];
    logger.Log(LogLevel::kInfo, "event published", fields);
  }
  return out;
}

// A run that is not nova-scoped but came to know its nova (initialize_nova
// creates it, ingest_photometry_dataset resolves it from the object) is
// listed with the nova's runs too (AP-OPS-1): its final JobRun copied under
// NOVA#<nova_id>; its Attempts stay under JOBRUN#<job_run_id>.
void ListUnderNova(const json& out, const std::string& job_run_id,
                   BuiltinContext& ctx) {
  if (ctx.workflow.nova_scoped) return;
  const std::string* nova = StringMember(out, "nova_id");
  if (!nova || !IsUuid(*nova)) return;
  std::optional<JobRun> run = ctx.store.GetJobRun(job_run_id, std::nullopt);
  if (!run || run->status == JobRunStatus::kStarted) return;
  run->nova_id = *nova;
  ctx.store.PutJobRun(*run);
}

json FinalizeJobRunSuccess(const json& state, BuiltinContext& ctx) {
  json out = RequireObject(state, "FinalizeJobRunSuccess");
  std::string job_run_id =
      RequireString(out, "job_run_id", "FinalizeJobRunSuccess");
  std::string outcome = RequireString(out, "outcome", "FinalizeJobRunSuccess");
  JobRunUpdate update;
  update.job_run_id = job_run_id;
  update.nova_id = RunNovaId(out, ctx.workflow);
  update.status = JobRunStatus::kSucceeded;
  update.output = JobRunOutput(out, ctx.workflow);
  update.outcome = outcome;
  update.ended_at = FormatTimestamp(ctx.now());
  UpdateResult result = ctx.store.UpdateJobRun(update);
  if (result == UpdateResult::kNotFound)
    throw TerminalError("FinalizeJobRunSuccess: JobRun " + job_run_id +
                        " does not exist");
  if (result == UpdateResult::kConflict)
    throw TerminalError("FinalizeJobRunSuccess: JobRun " + job_run_id +
                        " is already final with another result");
  StepLogger logger = MakeLogger(ctx, &out);
  if (OwnsLock(out)) {
    const std::string* key = StringMember(out, "workflow_idempotency_key");
    if (!key || !ctx.store.CompleteLock(*key, job_run_id, outcome))
      logger.Log(LogLevel::kWarn,
                 "the idempotency lock was no longer held; not completed");
  }
  ListUnderNova(out, job_run_id, ctx);
  ordered_json fields = ordered_json::object();
  fields["outcome"] = outcome;
  logger.Log(LogLevel::kInfo, "job run succeeded", fields);
  return out;
}

json FinalizeJobRunQuarantined(const json& state, BuiltinContext& ctx) {
  json out = RequireObject(state, "FinalizeJobRunQuarantined");
  std::string job_run_id =
      RequireString(out, "job_run_id", "FinalizeJobRunQuarantined");
  const std::string* fingerprint = StringMember(out, "error_fingerprint");
  std::string fp =
      fingerprint ? *fingerprint
                  : ResolveQuarantine(out, ctx, "FinalizeJobRunQuarantined")
                        .fingerprint;
  JobRunUpdate update;
  update.job_run_id = job_run_id;
  update.nova_id = RunNovaId(out, ctx.workflow);
  update.status = JobRunStatus::kQuarantined;
  update.output = JobRunOutput(out, ctx.workflow);
  update.error_classification = "QUARANTINE";
  update.error_fingerprint = fp;
  update.ended_at = FormatTimestamp(ctx.now());
  UpdateResult result = ctx.store.UpdateJobRun(update);
  if (result == UpdateResult::kNotFound)
    throw TerminalError("FinalizeJobRunQuarantined: JobRun " + job_run_id +
                        " does not exist");
  if (result == UpdateResult::kConflict)
    throw TerminalError("FinalizeJobRunQuarantined: JobRun " + job_run_id +
                        " is already final with another result");
  StepLogger logger = MakeLogger(ctx, &out);
  if (OwnsLock(out)) {
    const std::string* key = StringMember(out, "workflow_idempotency_key");
    if (key) ctx.store.ReleaseLock(*key, job_run_id);
  }
  ListUnderNova(out, job_run_id, ctx);
  ordered_json fields = ordered_json::object();
  fields["error_classification"] = "QUARANTINE";
  fields["error_fingerprint"] = fp;
  logger.Log(LogLevel::kWarn, "job run quarantined", fields);
  return out;
}

json TerminalFailHandler(const json& state, BuiltinContext& ctx) {
  json out = state.is_object() ? state : json::object();
  if (!StringMember(out, "job_run_id"))
    out["job_run_id"] = NewUuidV4(ctx.random);
  const std::string* correlation_id = StringMember(out, "correlation_id");
  if (!correlation_id || !IsUuid(*correlation_id))
    out["correlation_id"] = NewUuidV4(ctx.random);
  ErrorSummary summary = ResolveCaughtError(out, ctx);
  out["error_classification"] = summary.classification;
  out["error_fingerprint"] = summary.fingerprint;
  out["error_summary"] = json(summary.ToJson());
  ordered_json fields = ordered_json::object();
  fields["error_name"] = summary.error_name;
  if (summary.failed_state) fields["failed_state"] = *summary.failed_state;
  fields["cause"] = summary.message;
  MakeLogger(ctx, &out).LogBestEffort(LogLevel::kError, "workflow failed",
                                      fields);
  return out;
}

json FinalizeJobRunFailed(const json& state, BuiltinContext& ctx) {
  json out = state.is_object() ? state : json::object();
  if (!StringMember(out, "job_run_id"))
    out["job_run_id"] = NewUuidV4(ctx.random);
  std::string job_run_id = *StringMember(out, "job_run_id");
  std::string classification, fingerprint;
  auto summary = out.find("error_summary");
  if (summary != out.end() && summary->is_object() &&
      StringMember(*summary, "error_classification") &&
      StringMember(*summary, "error_fingerprint")) {
    classification = *StringMember(*summary, "error_classification");
    fingerprint = *StringMember(*summary, "error_fingerprint");
  } else {
    ErrorSummary caught = ResolveCaughtError(out, ctx);
    classification = caught.classification;
    fingerprint = caught.fingerprint;
  }
  int64_t now = ctx.now();
  JobRunUpdate update;
  update.job_run_id = job_run_id;
  update.nova_id = RunNovaId(out, ctx.workflow);
  update.status = JobRunStatus::kFailed;
  update.output = JobRunOutput(out, ctx.workflow);
  update.error_classification = classification;
  update.error_fingerprint = fingerprint;
  update.ended_at = FormatTimestamp(now);
  StepLogger logger = MakeLogger(ctx, &out);
  UpdateResult result = ctx.store.UpdateJobRun(update);
  if (result == UpdateResult::kNotFound) {
    // The run failed before BeginJobRun wrote its JobRun (invalid input).
    JobRun run;
    run.job_run_id = job_run_id;
    run.workflow = ctx.workflow.workflow_name;
    run.nova_id = update.nova_id;
    run.correlation_id = CorrelationId(ctx, out);
    run.execution_arn = ctx.step.execution_arn;
    run.status = JobRunStatus::kFailed;
    run.error_classification = classification;
    run.error_fingerprint = fingerprint;
    run.started_at = update.ended_at;
    run.ended_at = update.ended_at;
    run.output = update.output;
    ctx.store.PutJobRun(run);
  } else if (result == UpdateResult::kConflict) {
    logger.LogBestEffort(LogLevel::kError,
                         "the JobRun is already final with another result; "
                         "not recorded FAILED");
  }
  if (OwnsLock(out)) {
    const std::string* key = StringMember(out, "workflow_idempotency_key");
    if (key) ctx.store.ReleaseLock(*key, job_run_id);
  }
  ListUnderNova(out, job_run_id, ctx);
  ordered_json fields = ordered_json::object();
  fields["error_classification"] = classification;
  fields["error_fingerprint"] = fingerprint;
  logger.LogBestEffort(LogLevel::kError, "job run failed", fields);
  return out;
}

json QuarantineHandler(const json& state, BuiltinContext& ctx) {
  json out = RequireObject(state, "QuarantineHandler");
  RequireString(out, "job_run_id", "QuarantineHandler");
  Quarantine q = ResolveQuarantine(out, ctx, "QuarantineHandler");
  out = ApplyQuarantine(std::move(out), q);
  ordered_json fields = ordered_json::object();
  fields["quarantine_reason"] = q.reason;
  MakeLogger(ctx, &out).Log(LogLevel::kWarn, "run quarantined", fields);
  return out;
}

json QuarantineItem(const json& item, BuiltinContext& ctx) {
  json out = RequireObject(item, "QuarantineItem");
  std::string job_run_id = RequireString(out, "job_run_id", "QuarantineItem");
  Quarantine q = ResolveQuarantine(out, ctx, "QuarantineItem");
  out = ApplyQuarantine(std::move(out), q);
  out["quarantined"] = true;

  Attempt attempt;
  attempt.job_run_id = job_run_id;
  attempt.nova_id = RunNovaId(out, ctx.workflow);
  attempt.state_name = ctx.step.state_name;
  attempt.map_item_index = IntegerMember(out, "map_item_index");
  attempt.attempt_number = ctx.step.attempt_number;
  attempt.status = AttemptStatus::kSucceeded;
  if (q.caught) attempt.error_name = q.caught->error_name;
  attempt.error_classification = "QUARANTINE";
  attempt.error_fingerprint = q.fingerprint;
  attempt.correlation_id = CorrelationId(ctx, out);
  attempt.started_at = attempt.ended_at = FormatTimestampMs(ctx.now() * 1000);
  ctx.store.PutAttempt(attempt);

  ordered_json fields = ordered_json::object();
  fields["quarantine_reason"] = q.reason;
  MakeLogger(ctx, &out).Log(LogLevel::kWarn, "item quarantined", fields);
  return out;
}

json AttemptRecorder::Run(const StepContext& context, const json& document,
                          const std::function<json()>& task,
                          const std::optional<std::string>& dedupe_key) {
  std::string started_at = FormatTimestampMs(now_ms_());
  auto make = [&](const json& source) -> std::optional<Attempt> {
    const std::string* job_run_id = StringMember(document, "job_run_id");
    const json* from = &document;
    if (!job_run_id) {
      job_run_id = StringMember(source, "job_run_id");
      from = &source;
    }
    if (!job_run_id) return std::nullopt;
    Attempt attempt;
    attempt.job_run_id = *job_run_id;
    attempt.nova_id = RunNovaId(*from, workflow_);
    attempt.state_name = context.state_name;
    attempt.map_item_index = IntegerMember(document, "map_item_index");
    attempt.attempt_number = context.attempt_number;
    const std::string* correlation_id = StringMember(*from, "correlation_id");
    attempt.correlation_id = !context.correlation_id.empty()
                                 ? context.correlation_id
                             : correlation_id ? *correlation_id
                                              : std::string();
    attempt.started_at = started_at;
    attempt.ended_at = FormatTimestampMs(now_ms_());
    attempt.dedupe_key = dedupe_key;
    return attempt;
  };

  json result;
  try {
    result = task();
  } catch (const std::exception& error) {
    try {
      if (std::optional<Attempt> attempt = make(document)) {
        ErrorSummary summary =
            SummarizeException(error, context.state_name, workflow_.errors);
        attempt->status = AttemptStatus::kFailed;
        attempt->error_name = summary.error_name;
        attempt->error_classification = summary.classification;
        attempt->error_fingerprint = summary.fingerprint;
        store_.PutAttempt(*attempt);
      }
    } catch (const std::exception&) {
      // Recording must not mask the task's own error.
    }
    throw;
  }
  if (std::optional<Attempt> attempt = make(result)) {
    attempt->status = AttemptStatus::kSucceeded;
    auto quarantined =
        result.is_object() ? result.find("quarantined") : result.end();
    if (quarantined != result.end() && *quarantined == true) {
      auto summary = result.find("error_summary");
      if (summary != result.end())
        if (const std::string* name = StringMember(*summary, "error_name"))
          attempt->error_name = *name;
      if (const std::string* c = StringMember(result, "error_classification"))
        attempt->error_classification = *c;
      if (const std::string* f = StringMember(result, "error_fingerprint"))
        attempt->error_fingerprint = *f;
    }
    store_.PutAttempt(*attempt);
  }
  return result;
}

}  // namespace novacat::runtime
