// The seed workflows' Environment over a Table and file-backed outside
// sources: the access-pattern repository, and the archive resolver,
// spectra providers and reference sources of novacat_domain_fixtures
// (workflows/domain/fixtures/) reading a folder laid out like fixtures/
// (resolver/names.json, providers/, references/). Lambda uses it over the
// function's DynamoDB table with the folder the package ships under `sources/`
// (cmake/lambda_main.cc); `novacat run` and the tests over SQLite or a
// MemoryTable with fixtures/ (app/fixture_world.h).
//
// Clients of the real archives implement the same interfaces
// (domain::ArchiveResolver, ProviderClient, ReferenceSource) and replace
// the file-backed ones here, nowhere else.
#pragma once

#include <filesystem>
#include <memory>

#include "novacat/domain/fixtures.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/environment.h"

namespace novacat::workflows {

inline constexpr char kSourcesVariable[] = "NOVACAT_SOURCES_DIR";

struct SourcesWorld {
  // `table` and `random` must outlive the world. Throws
  // runtime::TerminalError when the sources cannot be read.
  SourcesWorld(store::Table& table, runtime::Random& random,
               const std::filesystem::path& sources);

  // NOVACAT_SOURCES_DIR, else $LAMBDA_TASK_ROOT/sources, else ./sources.
  static std::filesystem::path SourcesFromEnvironment();

  store::Repository repository;
  domain::FixtureResolver resolver;
  domain::FixtureProvider providers;
  domain::FixtureReferenceSource references;
  Environment env;
};

}  // namespace novacat::workflows
