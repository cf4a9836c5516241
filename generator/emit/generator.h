// Runs every emitter over checked specs and collects their files.
#pragma once

#include <memory>
#include <vector>

#include "model/spec.h"
#include "support/diagnostics.h"
#include "support/file_set.h"

namespace novacat {

// The files generated for `specs` (which must have passed the checker),
// paths relative to the output folder. Two specs that declare the same
// event must declare it identically; a difference is reported to `sink`
// (rule `event-conflict`).
FileSet EmitAll(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                DiagnosticSink& sink);

}  // namespace novacat
