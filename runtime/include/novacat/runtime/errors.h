// The error taxonomy step logic raises (seed: execution_governance.md).
//
// A step signals a failure by throwing one of these; the Lambda entry point
// reports its class's ASL error name (the Lambda errorType) and Step
// Functions retries or routes it by that name, never by the message. The
// names are the governance's (ErrorNames), never the runtime's own.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/vocabulary.h"

namespace novacat::runtime {

using ::novacat::ErrorClass;

// The governance's error vocabulary (specs/shared/governance.yaml,
// error_classes), as the generator writes it into a workflow's binding
// (WorkflowFacts::errors): each class's ASL error name, which a failed
// invocation reports to Step Functions (Lambda's errorType), and the other
// names retried like RETRYABLE (`also_retry`). The runtime hard-codes none.
struct ErrorNames {
  std::string retryable;
  std::string terminal;
  std::string quarantine;
  std::vector<std::string> also_retry;

  // The ASL error name of `error_class`.
  const std::string& NameOf(ErrorClass error_class) const;
  // RETRYABLE for the RETRYABLE name and also_retry, QUARANTINE for the
  // QUARANTINE name, TERMINAL for everything else (States.Runtime, ...).
  const char* Classify(std::string_view error_name) const;
  // Whether `error_name` is one of the three classes' own names.
  bool IsClassName(std::string_view error_name) const;
};

// Base of the taxonomy. `cause` is for people; decisions use the class.
class StepError : public std::runtime_error {
 public:
  StepError(ErrorClass error_class, std::string cause)
      : std::runtime_error(std::move(cause)), error_class_(error_class) {}
  ErrorClass error_class() const { return error_class_; }
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
