#include "novacat/runtime/asl/task_handler.h"

#include <cmath>

#include "novacat/runtime/asl/asl_error.h"

namespace novacat::runtime {

asl::TaskHandler MakeTaskHandler(const WorkflowBinding& binding,
                                 HostServices& services) {
  return [&binding, &services](const asl::TaskInvocation& call) {
    nlohmann::json payload = nlohmann::json::parse(
        call.input.value("Payload", nlohmann::ordered_json::object()).dump());
    asl::TaskOutcome outcome;
    try {
      nlohmann::json result =
          HandleInvocation(binding, services, payload,
                           static_cast<int64_t>(std::floor(call.now)));
      outcome.result = nlohmann::ordered_json::parse(result.dump());
    } catch (const std::exception& e) {
      InvocationError error = DescribeFailure(e, binding.facts.errors);
      throw asl::AslError(error.error_type, error.message);
    }
    return outcome;
  };
}

}  // namespace novacat::runtime
