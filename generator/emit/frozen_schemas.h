// Frozen event schema versions: once `schemas/events/<e>/v<N>.json` is in
// the output folder, producers and consumers of version N rely on it, so it
// is never rewritten. A spec change that would alter it is an error
// (`schema-frozen`) at the changed field, saying what the change does to
// version N's producers and consumers (breaking, or compatible), and that
// the event's `schema_version` must be bumped: then vN.json stays as it is,
// v<N+1>.json is written and latest.json follows (generator.cc keeps the
// older versions).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/spec.h"
#include "support/diagnostics.h"
#include "support/file_set.h"

namespace novacat {

// Compares each event schema version `files` would write with the file of
// that path under `out_dir` (read through `read_file`; a file not there is
// new, not frozen). Reports every difference of each changed version.
void CheckFrozenSchemas(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                        const FileSet& files, const std::string& out_dir,
                        const FileReader& read_file, DiagnosticSink& sink);

}  // namespace novacat
