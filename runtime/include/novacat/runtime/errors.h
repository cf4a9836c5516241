// The error taxonomy step logic raises (seed: execution_governance.md).
//
// A step signals a failure by throwing one of these; the Lambda entry point
// reports the ASL error name (the Lambda errorType) and Step Functions
// retries or routes it by that name, never by the message. The names match
// specs/shared/governance.yaml's error_classes.
#pragma once

#include <stdexcept>
#include <string>

namespace novacat::runtime {

enum class ErrorClass { kRetryable, kTerminal, kQuarantine };

// Base of the taxonomy. `cause` is for people; decisions use the class.
class StepError : public std::runtime_error {
 public:
  StepError(ErrorClass error_class, std::string cause)
      : std::runtime_error(std::move(cause)), error_class_(error_class) {}
  ErrorClass error_class() const { return error_class_; }
  // The ASL error name: RetryableError, TerminalError or QuarantineError.
  const char* error_name() const;
  // RETRYABLE, TERMINAL or QUARANTINE (the log field error_classification).
  const char* classification() const;

 private:
  ErrorClass error_class_;
};

// A transient failure: throttling, timeouts, 5xx dependencies. Retried.
class RetryableError : public StepError {
 public:
  explicit RetryableError(std::string cause)
      : StepError(ErrorClass::kRetryable, std::move(cause)) {}
};

// Retrying cannot help: invalid input, unsupported schema_version, broken
// invariants. The run is recorded FAILED.
class TerminalError : public StepError {
 public:
  explicit TerminalError(std::string cause)
      : StepError(ErrorClass::kTerminal, std::move(cause)) {}
};

// The input needs review: ambiguous or malformed data. The run (or the Map
// item) is recorded QUARANTINED.
class QuarantineError : public StepError {
 public:
  explicit QuarantineError(std::string cause)
      : StepError(ErrorClass::kQuarantine, std::move(cause)) {}
};

}  // namespace novacat::runtime
