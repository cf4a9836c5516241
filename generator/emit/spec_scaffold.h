// `novacat-gen new <workflow>`: the smallest spec of a new workflow that
// compiles as it is (templates/new_spec.yaml.mustache), written once into
// the specs folder and never over anything.
#pragma once

#include <string>

namespace novacat {

// The problem with `workflow` as a new workflow's name ("" when it is a
// valid one: snake_case, a letter first, at most 64 characters).
std::string WorkflowNameProblem(const std::string& workflow);

// The spec text of a new workflow `workflow` (valid name); `event_catalog`
// adds `event_catalog: shared/events.yaml`.
std::string ScaffoldSpec(const std::string& workflow, bool event_catalog);

// Writes specs_dir/<workflow>.yaml (created exclusively: an existing file is
// never opened for writing). Returns "" or why nothing was written.
std::string WriteNewSpec(const std::string& specs_dir,
                         const std::string& workflow);

}  // namespace novacat
