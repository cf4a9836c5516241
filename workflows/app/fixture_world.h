// The world the workflows run in on one machine: the store's records and
// repository over one Table, and the fixture clients of the outside sources
// (fixtures/README.md). `novacat run` builds it over SQLite; the end-to-end
// tests build one per client over a shared table.
#pragma once

#include <filesystem>

#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/runtime/ids.h"
#include "novacat/store/repository.h"
#include "novacat/store/table_record_store.h"
#include "novacat/workflows/environment.h"

namespace novacat::workflows {

struct FixtureWorld {
  // `table` and `random` must outlive the world.
  FixtureWorld(store::Table& table, const std::filesystem::path& fixtures,
               runtime::Random& random)
      : records(table),
        repository(table),
        resolver(fixtures / "resolver" / "names.json"),
        providers(fixtures / "providers"),
        references(fixtures / "references"),
        env{repository, resolver, providers, references, random} {}

  store::TableRecordStore records;
  store::Repository repository;
  domain::FixtureResolver resolver;
  domain::FixtureProvider providers;
  domain::FixtureReferenceSource references;
  Environment env;
};

}  // namespace novacat::workflows
