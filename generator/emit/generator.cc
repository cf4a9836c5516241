#include "emit/generator.h"

#include "emit/asl_emitter.h"

namespace novacat {

FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) {
  FileSet files;
  for (const auto& spec : specs) {
    files.Add(spec->workflow + "/statemachine.asl.json", EmitAsl(*spec),
              spec->workflow);
  }
  return files;
}

}  // namespace novacat
