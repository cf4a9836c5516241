#include "novacat/runtime/asl/task_handler.h"

#include <chrono>
#include <cmath>

#include "novacat/runtime/asl/asl_error.h"

namespace novacat::runtime {

asl::TaskHandler MakeTaskHandler(const WorkflowBinding& binding,
                                 HostServices& services, ElapsedClock clock) {
  return [&binding, &services,
          clock = std::move(clock)](const asl::TaskInvocation& call) {
    nlohmann::json payload = nlohmann::json::parse(
        call.input.value("Payload", nlohmann::ordered_json::object()).dump());
    asl::TaskOutcome outcome;
    // The executor's virtual time when the invocation starts, moved on by
    // the real time it has taken since: the Attempt's start and end.
    const auto started = clock();
    const auto virtual_start_ms =
        static_cast<int64_t>(std::floor(call.now * 1000));
    auto now_ms = [&clock, started, virtual_start_ms] {
      return virtual_start_ms +
             std::chrono::duration_cast<std::chrono::milliseconds>(clock() -
                                                                   started)
                 .count();
    };
    try {
      nlohmann::json result =
          HandleInvocation(binding, services, payload, now_ms);
      outcome.result = nlohmann::ordered_json::parse(result.dump());
    } catch (const std::exception& e) {
      InvocationError error = DescribeFailure(e, binding.facts.errors);
      throw asl::AslError(error.error_type, error.message);
    }
    return outcome;
  };
}

}  // namespace novacat::runtime
