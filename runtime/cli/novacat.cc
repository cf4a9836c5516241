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
#include "novacat/runtime/asl/script.h"

namespace {

using json = nlohmann::ordered_json;
using novacat::runtime::asl::AslError;

constexpr int kExitInvalid = 2;

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
  if (!definition || !script ||
      !novacat::runtime::asl::CheckScript(*script, &error)) {
    std::fprintf(stderr, "novacat simulate: %s\n", error.c_str());
    return kExitInvalid;
  }
  auto machine = novacat::runtime::asl::StateMachine::Load(*definition, &error);
  if (!machine) {
    std::fprintf(stderr, "novacat simulate: %s: %s\n", definition_path.c_str(),
                 error.c_str());
    return kExitInvalid;
  }
  novacat::runtime::asl::ScriptedHandler handler(*script);
  novacat::runtime::asl::RunResult result;
  try {
    result = machine->Run(input, std::ref(handler), options);
  } catch (const novacat::runtime::asl::ScriptError& e) {
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
