// The Environment of the seed workflows' step logic inside Lambda: the
// access-pattern repository over the function's DynamoDB table, and the
// outside sources (archive resolver, spectra providers, reference
// sources).
//
// The sources are the file-backed clients of workflows/domain, reading the
// catalog data the package ships under `sources/` (fixtures/'s resolver,
// providers and references; NOVACAT_SOURCES_DIR overrides the folder).
// Clients of the real archives implement the same interfaces
// (domain::ArchiveResolver, ProviderClient, ReferenceSource) and replace
// them here, nowhere else.
#pragma once

#include <filesystem>
#include <memory>

#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/environment.h"

namespace novacat::workflows {

inline constexpr char kSourcesVariable[] = "NOVACAT_SOURCES_DIR";

struct LambdaWorld {
  // `table` and `random` must outlive the world. Throws
  // runtime::TerminalError when the sources cannot be read.
  LambdaWorld(store::Table& table, runtime::Random& random,
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
