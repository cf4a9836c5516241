#include "compiler.h"

#include "check/checker.h"
#include "check/limits.h"
#include "emit/frozen_schemas.h"
#include "emit/generator.h"
#include "emit/stack_emitter.h"

namespace novacat {

std::vector<std::unique_ptr<WorkflowSpec>> LoadAndCheck(
    const std::vector<std::string>& paths, const FileReader& read_file,
    DiagnosticSink& sink) {
  std::vector<std::unique_ptr<WorkflowSpec>> specs;
  SpecLoader loader(sink, read_file);
  for (const auto& path : paths) {
    if (auto spec = loader.LoadFile(path)) {
      CheckSpec(*spec, sink);
      CheckLimits(*spec, sink);
      specs.push_back(std::move(spec));
    }
  }
  CheckSpecSet(specs, sink);
  sink.SortByLocation();
  return specs;
}

std::optional<FileSet> Compile(const std::vector<std::string>& paths,
                               const FileReader& read_file,
                               DiagnosticSink& sink, const std::string& out_dir,
                               Scaffolds scaffolds) {
  std::vector<std::unique_ptr<WorkflowSpec>> specs =
      LoadAndCheck(paths, read_file, sink);
  if (sink.has_errors()) return std::nullopt;
  FileSet files = Emit(specs, scaffolds);
  for (const auto& spec : specs)
    CheckDefinitionSize(
        *spec, files.files().at(DefinitionPath(*spec)).content.size(), sink);
  CheckTemplateSize(out_dir.empty() ? kStackPath : out_dir + "/" + kStackPath,
                    files.files().at(kStackPath).content.size(), sink);
  if (!out_dir.empty())
    CheckFrozenSchemas(specs, files, out_dir, read_file, sink);
  sink.SortByLocation();
  if (sink.has_errors()) return std::nullopt;
  return files;
}

}  // namespace novacat
