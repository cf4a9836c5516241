// What a step knows about the invocation it runs in.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace novacat::runtime {

struct StepContext {
  std::string workflow_name;
  std::string state_name;
  std::string execution_arn;
  int attempt_number = 1;  // 1 + the retry count ($$.State.RetryCount)
  std::string correlation_id;
  // When the invocation started, seconds since the epoch: the executor's
  // virtual clock under the local executor, the wall clock in Lambda. Steps
  // read time from here, never from the system clock, so that runs and
  // tests are reproducible.
  int64_t now = 0;
  // Writes one structured log line carrying the workflow's required and
  // when-known fields (from the invocation's document) plus `fields`. Set
  // by the host; a no-op when unset (unit tests of step logic).
  std::function<void(std::string_view message, const nlohmann::json& fields)>
      log;
  // Milliseconds left before Lambda stops this invocation (its Runtime
  // API deadline), set by the Lambda handler; unset under the local
  // executor, where TimeoutSeconds runs on the virtual clock instead. A
  // step with long work checks RemainingMs() and gives up with a
  // RetryableError while it can still report one.
  std::function<int64_t()> remaining_ms;

  int64_t RemainingMs() const {
    return remaining_ms ? remaining_ms() : std::numeric_limits<int64_t>::max();
  }

  void Log(std::string_view message,
           const nlohmann::json& fields = nlohmann::json::object()) const {
    if (log) log(message, fields);
  }
};

}  // namespace novacat::runtime
