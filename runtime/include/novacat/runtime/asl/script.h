// Scripted Task handlers: for tests and `novacat simulate`. A script maps a
// Task state's name to a list of outcomes, one per invocation of that state
// (the last repeats): {"return": <JSON>} (the function's result; the Lambda
// Payload for lambda:invoke), {"set": {field: value...}} (the function
// returns the state it was given, the Payload's "state" under the Payload
// convention or else its input, with those fields set, as the host does
// with a step's produced fields), or {"throw": "<error name>", "cause": "..."},
// with an optional "seconds" (the invocation's duration on the virtual
// clock). The key "*" gives the outcomes of every Task the script does not
// name (counted per Task).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "novacat/runtime/asl/executor.h"

namespace novacat::runtime::asl {

// The script cannot answer an invocation (no outcomes for the state): a
// problem of the script, not an execution failure.
struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Checks the script's shape; false with `error` set when it is malformed.
bool CheckScript(const nlohmann::ordered_json& script, std::string* error);

class ScriptedHandler {
 public:
  explicit ScriptedHandler(nlohmann::ordered_json script)
      : script_(std::move(script)) {}

  TaskOutcome operator()(const TaskInvocation& call);

  // How many times `state` was invoked.
  int invocations(const std::string& state) const {
    auto it = used_.find(state);
    return it == used_.end() ? 0 : it->second;
  }

 private:
  nlohmann::ordered_json script_;
  std::map<std::string, int> used_;
};

}  // namespace novacat::runtime::asl
