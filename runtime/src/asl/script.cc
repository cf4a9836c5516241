#include "novacat/runtime/asl/script.h"

#include "novacat/runtime/asl/asl_error.h"

namespace novacat::runtime::asl {

bool CheckScript(const nlohmann::ordered_json& script, std::string* error) {
  if (!script.is_object()) {
    *error = "the script must be an object mapping Task states to outcomes";
    return false;
  }
  for (auto it = script.begin(); it != script.end(); ++it) {
    const std::string where = "script[\"" + it.key() + "\"]";
    if (!it->is_array() || it->empty()) {
      *error = where + " must be a non-empty list of outcomes";
      return false;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const auto& o = (*it)[i];
      const std::string at = where + "[" + std::to_string(i) + "]";
      const int kinds = (o.is_object() && o.contains("return")) +
                        (o.is_object() && o.contains("set")) +
                        (o.is_object() && o.contains("throw"));
      const bool throws = o.is_object() && o.contains("throw");
      if (kinds != 1) {
        *error = at + " needs exactly one of \"return\", \"set\" and \"throw\"";
        return false;
      }
      if (o.contains("set") && !o["set"].is_object()) {
        *error = at + ".set must be an object of fields";
        return false;
      }
      if (throws && !o["throw"].is_string()) {
        *error = at + ".throw must be an error name";
        return false;
      }
      for (auto k = o.begin(); k != o.end(); ++k) {
        if (k.key() != "return" && k.key() != "set" && k.key() != "throw" &&
            k.key() != "cause" && k.key() != "seconds") {
          *error = at + " has an unknown key \"" + k.key() + "\"";
          return false;
        }
      }
      if (o.contains("seconds") &&
          (!o["seconds"].is_number() || o["seconds"].get<double>() < 0)) {
        *error = at + ".seconds must be a non-negative number";
        return false;
      }
    }
  }
  return true;
}

TaskOutcome ScriptedHandler::operator()(const TaskInvocation& call) {
  auto it = script_.find(call.state_name);
  if (it == script_.end()) it = script_.find("*");
  if (it == script_.end())
    throw ScriptError("the script has no outcomes for Task '" +
                      call.state_name + "'");
  const size_t n = static_cast<size_t>(used_[call.state_name]++);
  const auto& o = (*it)[std::min(n, it->size() - 1)];
  TaskOutcome outcome;
  outcome.seconds = o.value("seconds", 0.0);
  if (o.contains("throw"))
    throw AslError(o["throw"].get<std::string>(), o.value("cause", ""));
  if (o.contains("set")) {
    // The function returns the state it was given with fields set: the
    // Payload's "state" under the Payload convention, else the input.
    const auto& input = call.input;
    const bool payload = input.is_object() && input.contains("Payload") &&
                         input["Payload"].is_object() &&
                         input["Payload"].contains("state");
    outcome.result = payload ? input["Payload"]["state"] : input;
    if (!outcome.result.is_object())
      outcome.result = nlohmann::ordered_json::object();
    for (const auto& [field, value] : o["set"].items())
      outcome.result[field] = value;
    return outcome;
  }
  outcome.result = o["return"];
  return outcome;
}

}  // namespace novacat::runtime::asl
