// What the seed workflows' step logic needs from the world: the single-table
// store (through the access-pattern repository) and the clients of the
// outside sources. `novacat run` builds one over SQLite and the fixture
// clients; tests build one over a MemoryTable. Each workflow's MakeSteps
// (workflows/<workflow>/steps.hpp) takes it; the steps keep references, so
// the Environment's objects must outlive the steps.
//
// Time is not here: steps read StepContext::now (the executor's virtual
// clock), so that retries and tests are exact.
#pragma once

#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/runtime/ids.h"
#include "novacat/store/repository.h"

namespace novacat::workflows {

struct Environment {
  store::Repository& repository;
  domain::ArchiveResolver& resolver;    // initialize_nova
  domain::ProviderClient& providers;    // discover_spectra_products
  domain::ReferenceSource& references;  // refresh_references
  runtime::Random& random;  // new identifiers (CreateNovaId's UUID v4)
};

}  // namespace novacat::workflows
