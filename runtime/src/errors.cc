#include "novacat/runtime/errors.h"

namespace novacat::runtime {

const char* StepError::error_name() const {
  switch (error_class_) {
    case ErrorClass::kRetryable:
      return "RetryableError";
    case ErrorClass::kTerminal:
      return "TerminalError";
    case ErrorClass::kQuarantine:
      return "QuarantineError";
  }
  return "TerminalError";
}

const char* StepError::classification() const {
  switch (error_class_) {
    case ErrorClass::kRetryable:
      return "RETRYABLE";
    case ErrorClass::kTerminal:
      return "TERMINAL";
    case ErrorClass::kQuarantine:
      return "QUARANTINE";
  }
  return "TERMINAL";
}

}  // namespace novacat::runtime
