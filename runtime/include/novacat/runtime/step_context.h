// What a step knows about the invocation it runs in.
#pragma once

#include <cstdint>
#include <functional>
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

  void Log(std::string_view message,
           const nlohmann::json& fields = nlohmann::json::object()) const {
    if (log) log(message, fields);
  }
};

}  // namespace novacat::runtime
