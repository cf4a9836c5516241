#include "emit/generator.h"

#include <fmt/format.h>

#include <stdexcept>

#include "emit/asl_emitter.h"
#include "emit/conformance_emitter.h"
#include "emit/docs_emitter.h"
#include "emit/schema_emitter.h"

namespace novacat {

namespace {

// Where each file of a workflow goes, relative to the output folder.
std::string AslPath(const WorkflowSpec& spec) {
  return spec.workflow + "/statemachine.asl.json";
}
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

Emission::Emission(std::string out_dir, Scaffolds scaffolds)
    : out_dir_(std::move(out_dir)), scaffolds_(scaffolds) {
  // The helpers wait for the first spec to be checked; meanwhile they parse
  // the templates the emitters render (kainjow's parser is slow).
  jobs_.Add([scaffolds] { ParseCppTemplates(scaffolds); });
  jobs_.Add(ParseDocsTemplates);
}

void Emission::Compare(const std::string& path, const std::string& content) {
  if (out_dir_.empty()) return;
  {
    // An event several specs use is the same text from each (the catalog's
    // declaration): one that matched is not read again.
    const std::lock_guard<std::mutex> lock(matched_mutex_);
    if (matched_.count(path) != 0) return;
  }
  if (!FileHolds(out_dir_ + "/" + path, content)) return;
  const std::lock_guard<std::mutex> lock(matched_mutex_);
  matched_.insert(path);
}

void Emission::Start(const WorkflowSpec& spec) {
  // Three jobs of similar size per workflow, so that one large workflow
  // keeps the cores busy too, and a fourth that makes its definition: the
  // C++ binding and the workflow's share of the stack embed it.
  Workflow& w = workflows_.emplace_back();
  w.spec = &spec;
  // The definition (and the stack's share) ahead of every queued job: the
  // stack waits for each workflow's, and would otherwise make the late ones
  // itself, alone, at Finish.
  jobs_.Add([&w] { Definition(w); }, /*first=*/true);
  jobs_.Add([this, &w] {
    Definition(w);
    w.cpp = EmitCpp(*w.spec, w.asl, scaffolds_);
    Compare(AslPath(*w.spec), w.asl);
    Compare(CppBase(*w.spec) + ".hpp", w.cpp.header);
    Compare(CppBase(*w.spec) + ".cpp", w.cpp.source);
  });
  jobs_.Add([this, &w] {
    w.conformance = EmitConformancePlan(*w.spec);
    Compare(ConformancePath(*w.spec), w.conformance);
  });
  jobs_.Add([this, &w] {
    w.readme = EmitWorkflowDocs(*w.spec);
    w.dot = EmitWorkflowDot(*w.spec);
    Compare(ReadmePath(*w.spec), w.readme);
    Compare(DotPath(*w.spec), w.dot);
    for (const auto& event : w.spec->events) {
      w.schemas.push_back(EmitEventSchema(*w.spec, event));
      Compare(EventSchemaPath(event, event.schema_version), w.schemas.back());
      Compare(LatestSchemaPath(event), w.schemas.back());
    }
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
        Compare(kStackPath, stack);
      },
      /*first=*/true);
  // Every job is queued: each helper ends when it finds the queue empty,
  // and its exit overlaps the jobs still running.
  jobs_.Close();
  jobs_.Wait();  // after it, matched_ is read without its mutex
  FileSet files;
  for (Workflow& w : workflows_) {
    const WorkflowSpec& spec = *w.spec;
    auto add = [&](const std::string& path, std::string content) {
      files.Add(path, std::move(content), spec.workflow,
                matched_.count(path) != 0);
    };
    add(AslPath(spec), std::move(w.asl));
    add(CppBase(spec) + ".hpp", std::move(w.cpp.header));
    add(CppBase(spec) + ".cpp", std::move(w.cpp.source));
    add(ConformancePath(spec), std::move(w.conformance));
    if (scaffolds_ == Scaffolds::kMake) {
      files.Scaffold(spec.workflow + "/steps.hpp",
                     std::move(w.cpp.steps_header));
      files.Scaffold(spec.workflow + "/steps.cpp",
                     std::move(w.cpp.steps_source));
    }
    add(ReadmePath(spec), std::move(w.readme));
    add(DotPath(spec), std::move(w.dot));
    for (size_t e = 0; e < spec.events.size(); ++e) {
      const EventDef& event = spec.events[e];
      // An event several specs use comes from the event catalog, so each
      // adds the same text (CheckSpecSet refuses two declarations).
      add(EventSchemaPath(event, event.schema_version), w.schemas[e]);
      add(LatestSchemaPath(event), std::move(w.schemas[e]));
      for (int v = 1; v < event.schema_version; ++v)
        files.Keep(EventSchemaPath(event, v), spec.workflow);
    }
  }
  files.AddWholeSet(kStackPath, std::move(stack),
                    matched_.count(kStackPath) != 0);
  return files;
}

FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) {
  Emission emission;
  for (const auto& spec : specs) emission.Start(*spec);
  return std::move(emission).Finish(specs);
}

}  // namespace novacat
