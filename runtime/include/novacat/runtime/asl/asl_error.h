// An error raised while running a state machine: an ASL error name
// (`States.Runtime`, `States.IntrinsicFailure`, a task's own error type...)
// and a cause, as Step Functions reports them.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace novacat::runtime::asl {

class AslError : public std::runtime_error {
 public:
  AslError(std::string error, std::string cause)
      : std::runtime_error(cause),
        error_(std::move(error)),
        cause_(std::move(cause)) {}

  // A Fail state's error: Step Functions leaves out the error and the cause
  // the state does not name (absent, not "") from the execution's result
  // and its events; a catcher's {"Error", "Cause"} has "" for them.
  static AslError FromFailState(std::optional<std::string> error,
                                std::optional<std::string> cause) {
    AslError e(error.value_or(""), cause.value_or(""));
    e.named_error_ = error.has_value();
    e.named_cause_ = cause.has_value();
    return e;
  }

  // "" when absent (has_error(), has_cause()).
  const std::string& error() const { return error_; }
  const std::string& cause() const { return cause_; }
  bool has_error() const { return named_error_; }
  bool has_cause() const { return named_cause_; }

 private:
  std::string error_;
  std::string cause_;
  bool named_error_ = true;
  bool named_cause_ = true;
};

}  // namespace novacat::runtime::asl
