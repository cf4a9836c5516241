#include "novacat/runtime/host.h"

#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/json_reader.h"
#include "novacat/runtime/log.h"

namespace novacat::runtime {

std::string RequireString(const nlohmann::json& document,
                          std::string_view field) {
  auto it = document.find(field);
  if (it == document.end() || !it->is_string())
    throw TerminalError("$." + std::string(field) +
                        ": is required to build a key");
  return it->get<std::string>();
}

int64_t RequireInteger(const nlohmann::json& document, std::string_view field) {
  auto it = document.find(field);
  if (it == document.end() || !it->is_number_integer())
    throw TerminalError("$." + std::string(field) +
                        ": is required (an integer) to build a key");
  return it->get<int64_t>();
}

InvocationError DescribeFailure(const std::exception& error,
                                const ErrorNames& names) {
  if (const auto* step = dynamic_cast<const StepError*>(&error))
    return {names.NameOf(step->error_class()), step->what()};
  return {names.terminal, error.what()};
}

namespace {

const BuiltinState* FindBuiltin(const WorkflowBinding& binding,
                                std::string_view state) {
  for (const auto& b : binding.builtins)
    if (b.state == state) return &b;
  return nullptr;
}

nlohmann::json RunBuiltin(const BuiltinState& b, const nlohmann::json& doc,
                          BuiltinContext& ctx) {
  switch (b.builtin) {
    case Builtin::kBeginJobRun:
      return BeginJobRun(doc, ctx);
    case Builtin::kAcquireIdempotencyLock:
      return AcquireIdempotencyLock(doc, ctx);
    case Builtin::kPublishEvent:
      if (!b.event)
        throw TerminalError(b.state + ": PublishEvent without its event");
      return PublishEvent(doc, ctx, *b.event);
    case Builtin::kFinalizeJobRunSuccess:
      return FinalizeJobRunSuccess(doc, ctx);
    case Builtin::kFinalizeJobRunQuarantined:
      return FinalizeJobRunQuarantined(doc, ctx);
    case Builtin::kFinalizeJobRunFailed:
      return FinalizeJobRunFailed(doc, ctx);
    case Builtin::kTerminalFailHandler:
      return TerminalFailHandler(doc, ctx);
    case Builtin::kQuarantineHandler:
      return QuarantineHandler(doc, ctx);
    case Builtin::kQuarantineItem:
      return QuarantineItem(doc, ctx);
    case Builtin::kNone:
      break;
  }
  throw TerminalError(b.state + " is not a builtin Task");
}

// A run that is not nova-scoped whose Task just learned its nova
// (ingest_photometry_dataset's ResolveS3Object) records it on its
// execution, so that the reaper can end the dataset leases it may take
// (store/reaper.h). Once per run: a Task that carries the nova it was given
// writes nothing.
void NoteLearnedNova(const WorkflowFacts& facts, RecordStore& store,
                     const StepContext& step, const nlohmann::json& in,
                     const nlohmann::json& out) {
  if (facts.nova_scoped || step.execution_arn.empty() || !out.is_object())
    return;
  auto learned = out.find("nova_id");
  if (learned == out.end() || !learned->is_string()) return;
  const std::string nova = learned->get<std::string>();
  if (!IsUuid(nova) ||
      (in.is_object() && in.value("nova_id", std::string()) == nova))
    return;
  std::optional<ExecutionRecord> record =
      store.GetExecution(step.execution_arn);
  if (!record || record->lease_nova_id == nova) return;
  record->lease_nova_id = nova;
  store.PutExecution(*record);
}

}  // namespace

nlohmann::json HandleInvocation(const WorkflowBinding& binding,
                                HostServices& services,
                                const nlohmann::json& payload,
                                std::function<int64_t()> now_ms,
                                std::function<int64_t()> remaining_ms) {
  if (!payload.is_object() || !payload.contains("state_name") ||
      !payload.contains("state"))
    throw TerminalError("the invocation payload lacks state_name or state");
  const std::string state_name = payload["state_name"];
  const nlohmann::json& document = payload["state"];
  StepContext step;
  step.workflow_name = binding.facts.workflow_name;
  step.state_name = state_name;
  step.execution_arn = payload.value("execution_arn", "");
  step.attempt_number = payload.value("retry_count", 0) + 1;
  if (document.is_object() && document.contains("correlation_id") &&
      document["correlation_id"].is_string())
    step.correlation_id = document["correlation_id"];
  const int64_t started_ms = now_ms();
  const int64_t now = started_ms / 1000 - (started_ms % 1000 < 0);
  step.now = now;
  step.remaining_ms = std::move(remaining_ms);
  auto clock = [now] { return now; };
  // Domain steps log through the context: each line carries the required
  // fields and the when-known ones of the document they were given.
  const LogContext log_context{step, binding.facts.schema_version, clock};
  StepLogger step_logger(binding.facts.log_spec, services.log, log_context,
                         &document);
  // Best effort: a step logs after its writes, and a line must never turn
  // a completed write into a failure.
  step.log = [&step_logger](std::string_view message,
                            const nlohmann::json& fields) {
    step_logger.LogBestEffort(LogLevel::kInfo, message,
                              nlohmann::ordered_json::parse(fields.dump()));
  };
  BuiltinContext ctx{step,         binding.facts,   services.store,
                     services.log, services.events, services.random,
                     clock};
  // The recorder reads the clock itself, around the task.
  AttemptRecorder recorder(services.store, binding.facts, now_ms);
  const BuiltinState* builtin = FindBuiltin(binding, state_name);
  std::optional<std::string> dedupe;
  // The Attempt carries the step's dedupe key when the fields it is built
  // from are already in the document (a step may produce them itself).
  if (!builtin && binding.dedupe_key) {
    try {
      dedupe = binding.dedupe_key(state_name, document);
    } catch (const TerminalError&) {
      dedupe.reset();
    }
  }
  return recorder.Run(
      step, document,
      [&]() -> nlohmann::json {
        if (builtin) return RunBuiltin(*builtin, document, ctx);
        if (!binding.is_domain_task(state_name))
          throw TerminalError("'" + state_name + "' is not a Task of " +
                              binding.facts.workflow_name);
        // One line per domain invocation: how it ended, with the fields
        // known after it (the seeds' required structured log fields), the
        // step dedupe key and, for a Map item, its index: what the Attempt
        // record holds.
        nlohmann::ordered_json ids = nlohmann::ordered_json::object();
        if (document.is_object() && document.contains("map_item_index"))
          ids["map_item_index"] = document["map_item_index"];
        try {
          nlohmann::json out = binding.dispatch(state_name, document, step);
          NoteLearnedNova(binding.facts, services.store, step, document, out);
          // A step may produce the fields its dedupe key is built from; the
          // Attempt (recorded after this returns) reads `dedupe` then.
          if (!dedupe && binding.dedupe_key) {
            try {
              dedupe = binding.dedupe_key(state_name, out);
            } catch (const TerminalError&) {
              dedupe.reset();
            }
          }
          if (dedupe) ids["step_dedupe_key"] = *dedupe;
          StepLogger done(binding.facts.log_spec, services.log, log_context,
                          &out);
          done.Log(LogLevel::kInfo, "task succeeded", ids);
          return out;
        } catch (const StepError& e) {
          ErrorSummary summary =
              SummarizeException(e, state_name, binding.facts.errors);
          if (dedupe) ids["step_dedupe_key"] = *dedupe;
          ids["error_classification"] = summary.classification;
          ids["error_fingerprint"] = summary.fingerprint;
          ids["error_name"] = summary.error_name;
          ids["cause"] = e.what();
          step_logger.LogBestEffort(e.error_class() == ErrorClass::kRetryable
                                        ? LogLevel::kWarn
                                        : LogLevel::kError,
                                    "task failed", ids);
          throw;
        }
      },
      dedupe);
}

}  // namespace novacat::runtime
