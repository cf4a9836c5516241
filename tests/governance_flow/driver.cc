// Runs annotate_nova, generated against an edited governance, on the local
// executor through the runtime host, every domain Task failing RETRYABLE,
// and prints what the runtime did with the governance's facts:
//   invocation <state> <error the host reported>   (each failed invocation)
//   attempt <state> <error_name> <classification>  (each FAILED Attempt)
//   lines without <field>: <count>                 (log lines lacking a
//                                                   required field)
//   lines <n>, with note <count>
//   run <status> <error>
// Usage: driver DEFINITION.asl.json
#include <fstream>
#include <iostream>
#include <set>

#include "annotate_nova/annotate_nova.hpp"
#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/asl/executor.h"
#include "novacat/runtime/asl/task_handler.h"
#include "novacat/runtime/builtins.h"
#include "novacat/runtime/host.h"
#include "novacat/runtime/log.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/table_record_store.h"

int main(int argc, char** argv) {
  using namespace novacat::runtime;
  if (argc != 2) return 2;
  std::ifstream in(argv[1]);
  std::string error;
  auto machine =
      asl::StateMachine::Load(nlohmann::ordered_json::parse(in), &error);
  if (!machine) {
    std::cerr << error << "\n";
    return 2;
  }
  WorkflowBinding binding = novacat::annotate_nova::MakeBinding(
      [](std::string_view, const nlohmann::json&,
         StepContext&) -> nlohmann::json {
        throw RetryableError("503 from the catalog");
      });
  novacat::store::MemoryTable table;
  novacat::store::TableRecordStore store(table);
  CaptureSink log;
  CaptureBus bus;
  SeededRandom random{7};
  HostServices services{store, log, bus, random};
  asl::TaskHandler host = MakeTaskHandler(binding, services);
  asl::TaskHandler handler = [&](const asl::TaskInvocation& call) {
    try {
      return host(call);
    } catch (const asl::AslError& e) {
      std::cout << "invocation " << call.state_name << " " << e.error() << "\n";
      throw;
    }
  };
  asl::RunResult r = machine->Run(
      nlohmann::ordered_json{
          {"nova_id", "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c"},
          {"note", "bright"}},
      handler);
  for (const nlohmann::json& item : table.Scan()) {
    if (item.value("entity", "") == "Attempt" &&
        item.value("status", "") == "FAILED")
      std::cout << "attempt " << item.value("state_name", "") << " "
                << item.value("error_name", "") << " "
                << item.value("error_classification", "") << "\n";
  }
  const std::vector<std::string> lines = log.lines();
  for (const std::string& field : binding.facts.log_spec.required) {
    int lacking = 0;
    for (const std::string& text : lines)
      if (!nlohmann::json::parse(text).contains(field)) ++lacking;
    if (lacking)
      std::cout << "lines without " << field << ": " << lacking << "\n";
  }
  int with_note = 0;  // the governance's added required field
  for (const std::string& text : lines)
    if (nlohmann::json::parse(text).contains("note")) ++with_note;
  std::cout << "lines " << lines.size() << ", with note " << with_note << "\n";
  std::cout << "run " << r.status << " " << r.error.value_or("") << "\n";
  return 0;
}
