#include "asl_lint.h"

namespace novacat::testing {

namespace {

using nlohmann::json;

void LintErrorList(const json& entries, const std::string& where,
                   const char* kind, std::vector<std::string>& out) {
  for (size_t i = 0; i < entries.size(); ++i) {
    const json& errors = entries[i].value("ErrorEquals", json::array());
    bool has_all = false;
    for (const auto& e : errors) has_all = has_all || e == "States.ALL";
    if (has_all && errors.size() != 1)
      out.push_back(where + ": States.ALL must be alone in its " + kind);
    if (has_all && i + 1 != entries.size())
      out.push_back(where + ": the " + kind + " with States.ALL must be last");
  }
}

void LintRetrier(const json& r, const std::string& where,
                 std::vector<std::string>& out) {
  if (!r.contains("MaxDelaySeconds"))
    out.push_back(where + ": Retrier without MaxDelaySeconds");
  if (r.value("JitterStrategy", "") != "NONE")
    out.push_back(where + ": Retrier without JitterStrategy NONE");
  if (!r.contains("BackoffRate") || !r["BackoffRate"].is_number() ||
      r["BackoffRate"].get<double>() < 1.0)
    out.push_back(where + ": BackoffRate must be a number >= 1");
  if (!r.contains("IntervalSeconds") ||
      !r["IntervalSeconds"].is_number_integer() ||
      r["IntervalSeconds"].get<long long>() < 1)
    out.push_back(where + ": IntervalSeconds must be an integer >= 1");
  if (!r.contains("MaxAttempts") || !r["MaxAttempts"].is_number_integer() ||
      r["MaxAttempts"].get<long long>() < 0)
    out.push_back(where + ": MaxAttempts must be an integer >= 0");
}

void LintStates(const json& states, const std::string& prefix,
                std::vector<std::string>& out) {
  for (const auto& [name, state] : states.items()) {
    std::string where = prefix + name;
    if (state.contains("Retry")) {
      LintErrorList(state["Retry"], where, "Retrier", out);
      for (const auto& r : state["Retry"]) LintRetrier(r, where, out);
    }
    if (state.contains("Catch")) {
      LintErrorList(state["Catch"], where, "Catcher", out);
      for (const auto& c : state["Catch"]) {
        if (!c.contains("ResultPath"))
          out.push_back(where + ": Catcher without explicit ResultPath");
      }
    }
    if (state.contains("ItemProcessor"))
      LintStates(state["ItemProcessor"]["States"], where + "/", out);
  }
}

}  // namespace

std::vector<std::string> LintAsl(const json& definition) {
  std::vector<std::string> out;
  if (definition.contains("States")) LintStates(definition["States"], "", out);
  return out;
}

}  // namespace novacat::testing
