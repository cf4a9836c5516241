// An error raised while running a state machine: an ASL error name
// (`States.Runtime`, `States.IntrinsicFailure`, a task's own error type...)
// and a cause, as Step Functions reports them.
#pragma once

#include <stdexcept>
#include <string>

namespace novacat::runtime::asl {

class AslError : public std::runtime_error {
 public:
  AslError(std::string error, std::string cause)
      : std::runtime_error(cause),
        error_(std::move(error)),
        cause_(std::move(cause)) {}
  const std::string& error() const { return error_; }
  const std::string& cause() const { return cause_; }

 private:
  std::string error_;
  std::string cause_;
};

}  // namespace novacat::runtime::asl
