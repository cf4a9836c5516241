// A step's answer to a domain failure: the spec's failure id (specs/<wf>.yaml,
// `failures`) and error class the step chose for the failure's case, with
// a switch over the domain's enum (novacat/domain/failure.h), thrown as the
// runtime's error of that class. The cause is "<failure_id>: <message>", so
// that the quarantine_reason, the JobRun's error and the log line name the
// case; the class is what Step Functions routes on.
#pragma once

#include <string>
#include <string_view>

#include "novacat/runtime/errors.h"

namespace novacat::workflows {

// Throws the runtime::StepError of `error_class` with cause
// "<failure_id>: <message>", or `message` alone when failure_id is empty (a
// case the spec has no id for).
[[noreturn]] inline void Fail(runtime::ErrorClass error_class,
                              std::string_view failure_id,
                              std::string_view message) {
  std::string cause = failure_id.empty() ? std::string(message)
                                         : std::string(failure_id) + ": " +
                                               std::string(message);
  switch (error_class) {
    case runtime::ErrorClass::kRetryable:
      throw runtime::RetryableError(std::move(cause));
    case runtime::ErrorClass::kQuarantine:
      throw runtime::QuarantineError(std::move(cause));
    case runtime::ErrorClass::kTerminal:
      break;
  }
  throw runtime::TerminalError(std::move(cause));
}

}  // namespace novacat::workflows
