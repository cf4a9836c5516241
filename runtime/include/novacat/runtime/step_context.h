// What a step knows about the invocation it runs in.
#pragma once

#include <cstdint>
#include <string>

namespace novacat::runtime {

struct StepContext {
  std::string workflow_name;
  std::string state_name;
  std::string execution_arn;
  int attempt_number = 1;  // 1 + the retry count ($$.State.RetryCount)
  std::string correlation_id;
};

}  // namespace novacat::runtime
