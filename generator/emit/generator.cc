#include "emit/generator.h"

#include <fmt/format.h>

#include <stdexcept>

#include "emit/asl_emitter.h"
#include "emit/conformance_emitter.h"
#include "emit/docs_emitter.h"
#include "emit/schema_emitter.h"

namespace novacat {

void Emission::Start(const WorkflowSpec& spec) {
  // Three jobs of similar size per workflow, so that one large workflow
  // keeps the cores busy too. The C++ binding and the workflow's share of
  // the stack embed the definition, so they come after it.
  Workflow& w = workflows_.emplace_back();
  w.spec = &spec;
  // The definition (and the stack's share) ahead of every queued job: the
  // stack waits for each workflow's, and would otherwise make the late ones
  // itself, alone, at Finish.
  jobs_.Add([&w] { Definition(w); }, /*first=*/true);
  jobs_.Add([&w] {
    Definition(w);
    w.cpp = EmitCpp(*w.spec, w.asl);
  });
  jobs_.Add([&w] { w.conformance = EmitConformancePlan(*w.spec); });
  jobs_.Add([&w] {
    w.readme = EmitWorkflowDocs(*w.spec);
    w.dot = EmitWorkflowDot(*w.spec);
    for (const auto& event : w.spec->events)
      w.schemas.push_back(EmitEventSchema(*w.spec, event));
  });
}

void Emission::Definition(Workflow& w) {
  std::call_once(w.definition, [&w] {
    w.asl = EmitAsl(*w.spec);
    w.stack_part = EmitStackPart(*w.spec, w.asl);
  });
}

FileSet Emission::Finish(
    const std::vector<std::unique_ptr<WorkflowSpec>>& specs) && {
  if (specs.size() != workflows_.size())
    throw std::logic_error("Emission::Finish: not the specs started");
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].get() != workflows_[i].spec)
      throw std::logic_error("Emission::Finish: not the specs started");
  // The stack ahead of the queued jobs, with each workflow's share (made
  // here when its job has not started yet).
  std::string stack;
  jobs_.Add(
      [&] {
        std::vector<StackPart> parts;
        for (Workflow& w : workflows_) {
          Definition(w);
          parts.push_back(std::move(w.stack_part));
        }
        stack = EmitStack(specs, std::move(parts));
      },
      /*first=*/true);
  jobs_.Wait();
  FileSet files;
  for (Workflow& w : workflows_) {
    const WorkflowSpec& spec = *w.spec;
    files.Add(spec.workflow + "/statemachine.asl.json", std::move(w.asl),
              spec.workflow);
    const std::string base = spec.workflow + "/" + spec.workflow;
    files.Add(base + ".hpp", std::move(w.cpp.header), spec.workflow);
    files.Add(base + ".cpp", std::move(w.cpp.source), spec.workflow);
    files.Add(spec.workflow + "/conformance.json", std::move(w.conformance),
              spec.workflow);
    files.Scaffold(spec.workflow + "/steps.hpp", std::move(w.cpp.steps_header));
    files.Scaffold(spec.workflow + "/steps.cpp", std::move(w.cpp.steps_source));
    files.Add(spec.workflow + "/README.md", std::move(w.readme), spec.workflow);
    files.Add(spec.workflow + "/statemachine.dot", std::move(w.dot),
              spec.workflow);
    for (size_t e = 0; e < spec.events.size(); ++e) {
      const EventDef& event = spec.events[e];
      const std::string path = EventSchemaPath(event, event.schema_version);
      const std::string latest =
          fmt::format("schemas/events/{}/latest.json", event.name);
      // An event several specs use comes from the event catalog, so each
      // adds the same text (CheckSpecSet refuses two declarations).
      files.Add(path, w.schemas[e], spec.workflow);
      files.Add(latest, std::move(w.schemas[e]), spec.workflow);
      for (int v = 1; v < event.schema_version; ++v)
        files.Keep(EventSchemaPath(event, v), spec.workflow);
    }
  }
  files.AddWholeSet(kStackPath, std::move(stack));
  return files;
}

FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) {
  Emission emission;
  for (const auto& spec : specs) emission.Start(*spec);
  return std::move(emission).Finish(specs);
}

}  // namespace novacat
