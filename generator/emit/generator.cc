#include "emit/generator.h"

#include <fmt/format.h>

#include "emit/asl_emitter.h"
#include "emit/conformance_emitter.h"
#include "emit/cpp_emitter.h"
#include "emit/docs_emitter.h"
#include "emit/schema_emitter.h"
#include "emit/stack_emitter.h"
#include "support/parallel.h"

namespace novacat {

namespace {

// What the emitters make of one workflow, before it joins the FileSet.
struct WorkflowOutput {
  CppFiles cpp;
  std::string conformance;
  std::string readme;
  std::string dot;
  std::vector<std::string> schemas;  // one per spec.events, in order
};

// A workflow's emitters after its ASL in three jobs of similar size, so
// that one large workflow keeps the threads busy too; each writes its own
// members.
constexpr size_t kJobsPerWorkflow = 3;

// `asl`: EmitAsl(spec).
void EmitWorkflowPart(const WorkflowSpec& spec, const std::string& asl,
                      size_t part, WorkflowOutput& out) {
  switch (part) {
    case 0:
      out.conformance = EmitConformancePlan(spec);
      break;
    case 1:
      out.cpp = EmitCpp(spec, asl);
      break;
    default:
      out.readme = EmitWorkflowDocs(spec);
      out.dot = EmitWorkflowDot(spec);
      for (const auto& event : spec.events)
        out.schemas.push_back(EmitEventSchema(spec, event));
  }
}

}  // namespace

FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) {
  // Emitters are pure functions of a checked spec, so they run in
  // parallel: first each workflow's definition (the C++ binding and the
  // stack embed it), then the stack, the longest job, and each workflow's
  // other files in kJobsPerWorkflow jobs. The files join the set below in
  // spec order, as made one by one: the same bytes whatever the scheduling.
  std::vector<std::string> asl(specs.size());
  ParallelFor(specs.size(), [&](size_t i) { asl[i] = EmitAsl(*specs[i]); });
  std::vector<WorkflowOutput> outputs(specs.size());
  std::string stack;
  ParallelFor(1 + specs.size() * kJobsPerWorkflow, [&](size_t i) {
    if (i == 0) {
      stack = EmitStack(specs, asl);
      return;
    }
    const size_t w = (i - 1) / kJobsPerWorkflow;
    EmitWorkflowPart(*specs[w], asl[w], (i - 1) % kJobsPerWorkflow, outputs[w]);
  });
  FileSet files;
  for (size_t i = 0; i < specs.size(); ++i) {
    const WorkflowSpec& spec = *specs[i];
    WorkflowOutput& out = outputs[i];
    files.Add(spec.workflow + "/statemachine.asl.json", std::move(asl[i]),
              spec.workflow);
    const std::string base = spec.workflow + "/" + spec.workflow;
    files.Add(base + ".hpp", std::move(out.cpp.header), spec.workflow);
    files.Add(base + ".cpp", std::move(out.cpp.source), spec.workflow);
    files.Add(spec.workflow + "/conformance.json", std::move(out.conformance),
              spec.workflow);
    files.Scaffold(spec.workflow + "/steps.hpp",
                   std::move(out.cpp.steps_header));
    files.Scaffold(spec.workflow + "/steps.cpp",
                   std::move(out.cpp.steps_source));
    files.Add(spec.workflow + "/README.md", std::move(out.readme),
              spec.workflow);
    files.Add(spec.workflow + "/statemachine.dot", std::move(out.dot),
              spec.workflow);
    for (size_t e = 0; e < spec.events.size(); ++e) {
      const EventDef& event = spec.events[e];
      const std::string path = EventSchemaPath(event, event.schema_version);
      const std::string latest =
          fmt::format("schemas/events/{}/latest.json", event.name);
      // An event several specs use comes from the event catalog, so each
      // adds the same text (CheckSpecSet refuses two declarations).
      files.Add(path, out.schemas[e], spec.workflow);
      files.Add(latest, std::move(out.schemas[e]), spec.workflow);
      for (int v = 1; v < event.schema_version; ++v)
        files.Keep(EventSchemaPath(event, v), spec.workflow);
    }
  }
  files.AddWholeSet(kStackPath, std::move(stack));
  return files;
}

}  // namespace novacat
