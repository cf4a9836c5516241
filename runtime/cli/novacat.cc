// novacat: the runtime's command line.
//
//   novacat simulate DEFINITION.asl.json --script SCRIPT.json [--input
//   JSON|@FILE]
//
// runs any definition on the local executor with scripted tasks and prints
// one JSON document: {"status", "output", "error", "cause", "states",
// "waits", "history"}. Exit 0 when the execution ran (whatever its status),
// 2 when the definition, the script or the input is invalid.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/asl/executor.h"

namespace {

using json = nlohmann::ordered_json;
using novacat::runtime::asl::AslError;

constexpr int kExitInvalid = 2;

// Thrown when the script cannot answer an invocation: a usage problem, not
// an execution failure.
struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::optional<json> ReadJson(const std::string& path, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return std::nullopt;
  }
  json value = json::parse(in, nullptr, false);
  if (value.is_discarded()) {
    *error = path + " is not JSON";
    return std::nullopt;
  }
  return value;
}

// Checks the script's shape: {"State": [{"return": ...} | {"throw": "Name",
// "cause": "..."}, ...]} with an optional "seconds" per outcome.
bool CheckScript(const json& script, std::string* error) {
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
      const json& o = (*it)[i];
      const std::string at = where + "[" + std::to_string(i) + "]";
      bool returns = o.is_object() && o.contains("return");
      bool throws = o.is_object() && o.contains("throw");
      if (returns == throws) {
        *error = at + " needs exactly one of \"return\" and \"throw\"";
        return false;
      }
      if (throws && !o["throw"].is_string()) {
        *error = at + ".throw must be an error name";
        return false;
      }
      for (auto k = o.begin(); k != o.end(); ++k) {
        if (k.key() != "return" && k.key() != "throw" && k.key() != "cause" &&
            k.key() != "seconds") {
          *error = at + " has an unknown key \"" + k.key() + "\"";
          return false;
        }
      }
      if (o.contains("seconds") &&
          (!o["seconds"].is_number() || o["seconds"] < 0)) {
        *error = at + ".seconds must be a non-negative number";
        return false;
      }
    }
  }
  return true;
}

int Simulate(const std::string& definition_path, const std::string& script_path,
             const std::string& input_text, bool print_history,
             const novacat::runtime::asl::RunOptions& options) {
  std::string error;
  std::optional<json> definition = ReadJson(definition_path, &error);
  std::optional<json> script;
  if (definition) script = ReadJson(script_path, &error);
  json input = json::object();
  if (script && !input_text.empty()) {
    if (input_text[0] == '@') {
      std::optional<json> file = ReadJson(input_text.substr(1), &error);
      if (file)
        input = *file;
      else
        script.reset();
    } else {
      input = json::parse(input_text, nullptr, false);
      if (input.is_discarded()) {
        error = "--input is not JSON";
        script.reset();
      }
    }
  }
  if (!definition || !script || !CheckScript(*script, &error)) {
    std::fprintf(stderr, "novacat simulate: %s\n", error.c_str());
    return kExitInvalid;
  }
  auto machine = novacat::runtime::asl::StateMachine::Load(*definition, &error);
  if (!machine) {
    std::fprintf(stderr, "novacat simulate: %s: %s\n", definition_path.c_str(),
                 error.c_str());
    return kExitInvalid;
  }
  std::map<std::string, size_t> used;
  novacat::runtime::asl::TaskHandler handler =
      [&](const novacat::runtime::asl::TaskInvocation& call) {
        auto it = script->find(call.state_name);
        if (it == script->end())
          throw ScriptError("the script has no outcomes for Task '" +
                            call.state_name + "'");
        size_t n = used[call.state_name]++;
        const json& o = (*it)[std::min(n, it->size() - 1)];
        novacat::runtime::asl::TaskOutcome outcome;
        outcome.seconds = o.value("seconds", 0.0);
        if (o.contains("throw"))
          throw AslError(o["throw"].get<std::string>(), o.value("cause", ""));
        outcome.result = o["return"];
        return outcome;
      };
  novacat::runtime::asl::RunResult result;
  try {
    result = machine->Run(input, handler, options);
  } catch (const ScriptError& e) {
    std::fprintf(stderr, "novacat simulate: %s\n", e.what());
    return kExitInvalid;
  }
  json out = {
      {"status", result.status},
      {"output", result.output},
      {"error", result.error.empty() && result.status == "SUCCEEDED"
                    ? json(nullptr)
                    : json(result.error)},
      {"cause", result.cause.empty() && result.status == "SUCCEEDED"
                    ? json(nullptr)
                    : json(result.cause)},
      {"states", result.states},
      {"waits", result.waits},
      {"history", novacat::runtime::asl::HistoryToJson(result.history)}};
  std::fputs((out.dump(2) + "\n").c_str(), stdout);
  if (print_history)
    std::fputs(novacat::runtime::asl::FormatHistory(result.history).c_str(),
               stderr);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"novacat: run Nova Cat workflows on this machine."};
  app.name("novacat");
  app.require_subcommand(1);
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Run a definition with scripted tasks; print {status, output, error, "
      "cause, states, waits, history} as JSON. Exit 0 when it ran, 2 when the "
      "definition, script or input is invalid.");
  std::string definition, script, input;
  bool print_history = false;
  simulate->add_option("DEFINITION", definition, "statemachine.asl.json")
      ->required();
  simulate
      ->add_option("--script", script,
                   "JSON: {\"TaskState\": [{\"return\": ...} | {\"throw\": "
                   "\"Error\", \"cause\": \"...\"}, ...]}; one outcome per "
                   "invocation, the last repeats")
      ->required();
  simulate->add_option("--input", input, "Execution input: JSON text or @FILE");
  simulate->add_flag("--print-history", print_history,
                     "Also print the history, one event per line, on stderr");
  bool express = false;
  simulate->add_flag("--express", express,
                     "Run as an EXPRESS workflow: the execution times out "
                     "after 5 minutes of virtual time");
  size_t max_payload = 256 * 1024;
  simulate
      ->add_option("--max-payload-bytes", max_payload,
                   "States.DataLimitExceeded above this size")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  novacat::runtime::asl::RunOptions options;
  if (express) options.execution_timeout_seconds = 300;
  options.max_payload_bytes = max_payload;
  return Simulate(definition, script, input, print_history, options);
}
