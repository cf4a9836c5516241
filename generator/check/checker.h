// Checker: the semantic rules a loaded spec must satisfy before anything is
// emitted from it.
//
// Every rule has an id (shown in brackets after the message, listed in
// docs/spec-format.md) and reports at the spec location a developer has to
// change, with a message that says what to do. All rules run; none stops at
// the first finding.
#pragma once

#include <memory>
#include <vector>

#include "model/spec.h"
#include "support/diagnostics.h"

namespace novacat {

// Checks one spec (and the governance it references).
void CheckSpec(const WorkflowSpec& spec, DiagnosticSink& sink);

// Checks what specs must agree on between them (unique workflow names).
void CheckSpecSet(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                  DiagnosticSink& sink);

}  // namespace novacat
