// Runs every emitter over checked specs and collects their files.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/spec.h"
#include "support/file_set.h"

namespace novacat {

// The files generated for `specs` (which must have passed the checker),
// paths relative to the output folder, the same bytes for the same specs.
// An event several specs use comes from the event catalog, so each emits
// the same schema file. With Scaffolds::kSkip the FileSet holds no
// scaffold. Throws what an emitter throws (a bug, not bad input).
// Where Emit puts a workflow's definition, relative to the output folder.
std::string DefinitionPath(const WorkflowSpec& spec);

FileSet Emit(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
             Scaffolds scaffolds = Scaffolds::kMake);

}  // namespace novacat
