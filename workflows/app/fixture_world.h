// The world the workflows run in on one machine: the store's records, and
// the repository and the fixture clients of the outside sources
// (fixtures/README.md, through SourcesWorld) over one Table. `novacat run`
// builds it over SQLite; the end-to-end tests build one per client over a
// shared table.
#pragma once

#include <filesystem>

#include "novacat/runtime/ids.h"
#include "novacat/store/table_record_store.h"
#include "novacat/workflows/sources_world.h"

namespace novacat::workflows {

struct FixtureWorld : SourcesWorld {
  // `table` and `random` must outlive the world. Files go to `objects`,
  // else to SourcesWorld::ObjectStoreFromEnvironment's choice with the
  // folder novacat-objects in the system's temporary folder.
  FixtureWorld(store::Table& table, const std::filesystem::path& fixtures,
               runtime::Random& random,
               std::unique_ptr<transfer::ObjectStore> objects = nullptr)
      : SourcesWorld(table, random, fixtures,
                     objects ? std::move(objects)
                             : ObjectStoreFromEnvironment(
                                   std::filesystem::temp_directory_path() /
                                   "novacat-objects")),
        records(table) {}

  store::TableRecordStore records;
};

}  // namespace novacat::workflows
