#include "emit/generator.h"

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "emit/asl_emitter.h"
#include "emit/conformance_emitter.h"
#include "emit/cpp_emitter.h"
#include "emit/docs_emitter.h"
#include "emit/schema_emitter.h"
#include "emit/stack_emitter.h"

namespace novacat {

namespace {

// Where each file of a workflow goes, relative to the output folder.
std::string CppBase(const WorkflowSpec& spec) {
  return spec.workflow + "/" + spec.workflow;
}
std::string ConformancePath(const WorkflowSpec& spec) {
  return spec.workflow + "/conformance.json";
}
std::string ReadmePath(const WorkflowSpec& spec) {
  return spec.workflow + "/README.md";
}
std::string DotPath(const WorkflowSpec& spec) {
  return spec.workflow + "/statemachine.dot";
}
std::string LatestSchemaPath(const EventDef& event) {
  return fmt::format("schemas/events/{}/latest.json", event.name);
}

}  // namespace

std::string DefinitionPath(const WorkflowSpec& spec) {
  return spec.workflow + "/statemachine.asl.json";
}

FileSet Emit(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
             Scaffolds scaffolds) {
  FileSet files;
  std::vector<StackPart> stack_parts;
  for (const auto& spec_ptr : specs) {
    const WorkflowSpec& spec = *spec_ptr;
    auto add = [&](const std::string& path, std::string content) {
      files.Add(path, std::move(content), spec.workflow);
    };
    // The C++ binding and the workflow's share of the stack embed the
    // definition.
    std::string asl = EmitAsl(spec);
    stack_parts.push_back(EmitStackPart(spec, asl));
    CppFiles cpp = EmitCpp(spec, asl, scaffolds);
    add(DefinitionPath(spec), std::move(asl));
    add(CppBase(spec) + ".hpp", std::move(cpp.header));
    add(CppBase(spec) + ".cpp", std::move(cpp.source));
    add(ConformancePath(spec), EmitConformancePlan(spec));
    if (scaffolds == Scaffolds::kMake) {
      files.Scaffold(spec.workflow + "/steps.hpp", std::move(cpp.steps_header));
      files.Scaffold(spec.workflow + "/steps.cpp", std::move(cpp.steps_source));
    }
    add(ReadmePath(spec), EmitWorkflowDocs(spec));
    add(DotPath(spec), EmitWorkflowDot(spec));
    for (const EventDef& event : spec.events) {
      // An event several specs use comes from the event catalog, so each
      // adds the same text (CheckSpecSet refuses two declarations).
      std::string schema = EmitEventSchema(spec, event);
      add(EventSchemaPath(event, event.schema_version), schema);
      add(LatestSchemaPath(event), std::move(schema));
      for (int v = 1; v < event.schema_version; ++v)
        files.Keep(EventSchemaPath(event, v), spec.workflow);
    }
  }
  files.AddWholeSet(kStackPath, EmitStack(specs, std::move(stack_parts)));
  return files;
}

}  // namespace novacat
