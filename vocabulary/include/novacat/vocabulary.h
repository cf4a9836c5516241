// The words the generator and the runtime share, defined once: the error
// classes of the governance's taxonomy and the builtin Tasks the runtime
// provides. The generator reads specs in them (model/spec.h), the generated
// binding names builtins by them, the runtime dispatches on them (host.cc).
// Header only, no dependency: target novacat_vocabulary.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace novacat {

enum class ErrorClass { kRetryable, kTerminal, kQuarantine };

// "RETRYABLE", "TERMINAL", "QUARANTINE" (the spec's words, the log field
// error_classification).
inline const char* ErrorClassName(ErrorClass c) {
  switch (c) {
    case ErrorClass::kRetryable:
      return "RETRYABLE";
    case ErrorClass::kQuarantine:
      return "QUARANTINE";
    case ErrorClass::kTerminal:
      break;
  }
  return "TERMINAL";
}

inline std::optional<ErrorClass> ParseErrorClass(std::string_view name) {
  if (name == "RETRYABLE") return ErrorClass::kRetryable;
  if (name == "TERMINAL") return ErrorClass::kTerminal;
  if (name == "QUARANTINE") return ErrorClass::kQuarantine;
  return std::nullopt;
}

// Tasks the runtime provides; every other Task is domain logic (kNone).
enum class Builtin {
  kNone,
  kBeginJobRun,
  kAcquireIdempotencyLock,
  kFinalizeJobRunSuccess,
  kFinalizeJobRunQuarantined,
  kFinalizeJobRunFailed,
  kTerminalFailHandler,
  kQuarantineHandler,
  kQuarantineItem,
  kPublishEvent
};

namespace vocabulary_detail {
struct BuiltinEntry {
  Builtin builtin;
  const char* name;
};
inline constexpr BuiltinEntry kBuiltins[] = {
    {Builtin::kBeginJobRun, "BeginJobRun"},
    {Builtin::kAcquireIdempotencyLock, "AcquireIdempotencyLock"},
    {Builtin::kFinalizeJobRunSuccess, "FinalizeJobRunSuccess"},
    {Builtin::kFinalizeJobRunQuarantined, "FinalizeJobRunQuarantined"},
    {Builtin::kFinalizeJobRunFailed, "FinalizeJobRunFailed"},
    {Builtin::kTerminalFailHandler, "TerminalFailHandler"},
    {Builtin::kQuarantineHandler, "QuarantineHandler"},
    {Builtin::kQuarantineItem, "QuarantineItem"},
    {Builtin::kPublishEvent, "PublishEvent"}};
}  // namespace vocabulary_detail

// The name a spec gives a builtin ("BeginJobRun"); "" for kNone.
inline const char* BuiltinName(Builtin b) {
  for (const auto& e : vocabulary_detail::kBuiltins)
    if (e.builtin == b) return e.name;
  return "";
}

inline std::optional<Builtin> ParseBuiltin(std::string_view name) {
  for (const auto& e : vocabulary_detail::kBuiltins)
    if (name == e.name) return e.builtin;
  return std::nullopt;
}

// Every builtin's name, in the order above.
inline std::vector<std::string> BuiltinNames() {
  std::vector<std::string> names;
  for (const auto& e : vocabulary_detail::kBuiltins) names.emplace_back(e.name);
  return names;
}

}  // namespace novacat
