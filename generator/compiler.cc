#include "compiler.h"

#include <functional>

#include "check/checker.h"
#include "check/limits.h"
#include "emit/frozen_schemas.h"
#include "emit/generator.h"

namespace novacat {

namespace {

// LoadAndCheck into `specs`, calling `checked` with each spec as soon as
// it passed its own checks, as long as no spec before it had an error
// (the run will fail then: nothing more is worth emitting).
void LoadAndCheckInto(const std::vector<std::string>& paths,
                      const FileReader& read_file, DiagnosticSink& sink,
                      std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                      const std::function<void(const WorkflowSpec&)>& checked) {
  SpecLoader loader(sink, read_file);
  loader.Preload(paths);
  for (const auto& path : paths) {
    if (auto spec = loader.LoadFile(path)) {
      CheckSpec(*spec, sink);
      CheckLimits(*spec, sink);
      if (checked && !sink.has_errors()) checked(*spec);
      specs.push_back(std::move(spec));
    }
  }
  CheckSpecSet(specs, sink);
  sink.SortByLocation();
}

}  // namespace

std::vector<std::unique_ptr<WorkflowSpec>> LoadAndCheck(
    const std::vector<std::string>& paths, const FileReader& read_file,
    DiagnosticSink& sink) {
  std::vector<std::unique_ptr<WorkflowSpec>> specs;
  LoadAndCheckInto(paths, read_file, sink, specs, nullptr);
  return specs;
}

std::optional<FileSet> Compile(const std::vector<std::string>& paths,
                               const FileReader& read_file,
                               DiagnosticSink& sink, const std::string& out_dir,
                               Scaffolds scaffolds) {
  // Each spec's emitters start while the next one loads; the specs outlive
  // the emission, whose jobs read them.
  std::vector<std::unique_ptr<WorkflowSpec>> specs;
  Emission emission(out_dir, scaffolds);
  LoadAndCheckInto(paths, read_file, sink, specs,
                   [&](const WorkflowSpec& spec) { emission.Start(spec); });
  if (sink.has_errors()) return std::nullopt;  // what started is dropped
  FileSet files = std::move(emission).Finish(specs);
  if (!out_dir.empty())
    CheckFrozenSchemas(specs, files, out_dir, read_file, sink);
  sink.SortByLocation();
  if (sink.has_errors()) return std::nullopt;
  return files;
}

}  // namespace novacat
