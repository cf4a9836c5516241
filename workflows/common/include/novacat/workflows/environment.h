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

#include <filesystem>

#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/runtime/ids.h"
#include "novacat/store/repository.h"
#include "novacat/transfer/download.h"
#include "novacat/transfer/object_store.h"

namespace novacat::workflows {

struct Environment {
  store::Repository& repository;
  domain::ArchiveResolver& resolver;    // initialize_nova
  domain::ProviderClient& providers;    // discover_spectra_products
  domain::ReferenceSource& references;  // refresh_references
  runtime::Random& random;  // new identifiers (CreateNovaId's UUID v4)
  // Bytes: products fetched from their providers, the catalog's files
  // (download_and_validate_spectra). Worlds that run those workflows set
  // them (SourcesWorld does); a step finding one unset fails TERMINAL.
  transfer::Downloader* downloads = nullptr;
  transfer::ObjectStore* objects = nullptr;
  // Where steps put files while they work on them (Lambda: /tmp); each
  // step removes its own.
  std::filesystem::path scratch = std::filesystem::temp_directory_path();
};

}  // namespace novacat::workflows
