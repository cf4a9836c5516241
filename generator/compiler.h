// The whole pipeline for a set of spec files: load → check → emit.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "load/spec_loader.h"
#include "model/spec.h"
#include "support/diagnostics.h"
#include "support/file_set.h"

namespace novacat {

// Loads and checks every spec; every diagnostic goes to `sink`. Returns the
// specs (some may be missing or partial when there are errors).
std::vector<std::unique_ptr<WorkflowSpec>> LoadAndCheck(
    const std::vector<std::string>& paths, const FileReader& read_file,
    DiagnosticSink& sink);

// Loads, checks and emits. Returns nullopt when any error was reported: no
// file may be produced from a spec with errors. With `out_dir`, an event
// schema version already there must come out the same (frozen_schemas.h).
// A run that writes nothing (--check) skips the step logic's scaffolds.
std::optional<FileSet> Compile(const std::vector<std::string>& paths,
                               const FileReader& read_file,
                               DiagnosticSink& sink,
                               const std::string& out_dir = "",
                               Scaffolds scaffolds = Scaffolds::kMake);

}  // namespace novacat
