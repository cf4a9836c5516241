#include "emit/generator.h"

#include <fmt/format.h>

#include <map>

#include "emit/asl_emitter.h"
#include "emit/conformance_emitter.h"
#include "emit/cpp_emitter.h"
#include "emit/docs_emitter.h"
#include "emit/schema_emitter.h"
#include "emit/stack_emitter.h"

namespace novacat {

FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                DiagnosticSink& sink) {
  FileSet files;
  // Where each event schema came from, to name both sides of a conflict.
  std::map<std::string, const EventDef*> declared;
  for (const auto& spec : specs) {
    files.Add(spec->workflow + "/statemachine.asl.json", EmitAsl(*spec),
              spec->workflow);
    CppFiles cpp = EmitCpp(*spec);
    const std::string base = spec->workflow + "/" + spec->workflow;
    files.Add(base + ".hpp", cpp.header, spec->workflow);
    files.Add(base + ".cpp", cpp.source, spec->workflow);
    files.Add(base + "_conformance_test.cpp", EmitConformanceTests(*spec),
              spec->workflow);
    files.Scaffold(spec->workflow + "/steps.hpp", cpp.steps_header);
    files.Scaffold(spec->workflow + "/steps.cpp", cpp.steps_source);
    files.Add(spec->workflow + "/README.md", EmitWorkflowDocs(*spec),
              spec->workflow);
    files.Add(spec->workflow + "/statemachine.dot", EmitWorkflowDot(*spec),
              spec->workflow);
    for (const auto& event : spec->events) {
      std::string schema = EmitEventSchema(*spec, event);
      const std::string path = EventSchemaPath(event, event.schema_version);
      const std::string latest =
          fmt::format("schemas/events/{}/latest.json", event.name);
      bool same = files.Add(path, schema, spec->workflow) &&
                  files.Add(latest, schema, spec->workflow);
      auto [first, inserted] = declared.emplace(event.name, &event);
      if (!same) {
        sink.Error(event.location, "event-conflict",
                   fmt::format("event '{}' is also declared at {}:{} with a "
                               "different schema; declare it identically in "
                               "both specs",
                               event.name, first->second->location.file,
                               first->second->location.line));
      }
      for (int v = 1; v < event.schema_version; ++v)
        files.Keep(EventSchemaPath(event, v), spec->workflow);
    }
  }
  files.AddWholeSet(kStackPath, EmitStack(specs));
  return files;
}

}  // namespace novacat
