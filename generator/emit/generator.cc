#include "emit/generator.h"

#include <fmt/format.h>

#include "emit/asl_emitter.h"
#include "emit/conformance_emitter.h"
#include "emit/cpp_emitter.h"
#include "emit/docs_emitter.h"
#include "emit/schema_emitter.h"
#include "emit/stack_emitter.h"

namespace novacat {

FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) {
  FileSet files;
  for (const auto& spec : specs) {
    files.Add(spec->workflow + "/statemachine.asl.json", EmitAsl(*spec),
              spec->workflow);
    CppFiles cpp = EmitCpp(*spec);
    const std::string base = spec->workflow + "/" + spec->workflow;
    files.Add(base + ".hpp", cpp.header, spec->workflow);
    files.Add(base + ".cpp", cpp.source, spec->workflow);
    files.Add(spec->workflow + "/conformance.json", EmitConformancePlan(*spec),
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
      // An event several specs use comes from the event catalog, so each
      // adds the same text (CheckSpecSet refuses two declarations).
      files.Add(path, schema, spec->workflow);
      files.Add(latest, schema, spec->workflow);
      for (int v = 1; v < event.schema_version; ++v)
        files.Keep(EventSchemaPath(event, v), spec->workflow);
    }
  }
  files.AddWholeSet(kStackPath, EmitStack(specs));
  return files;
}

}  // namespace novacat
