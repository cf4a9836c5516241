// Runs every emitter over checked specs and collects their files.
#pragma once

#include <memory>
#include <vector>

#include "model/spec.h"
#include "support/file_set.h"

namespace novacat {

// The files generated for `specs` (which must have passed the checker),
// paths relative to the output folder. An event several specs use comes
// from the event catalog, so each emits the same schema file.
FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs);

}  // namespace novacat
