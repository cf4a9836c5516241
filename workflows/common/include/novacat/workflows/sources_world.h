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
#include <string>

#include "novacat/domain/fixtures.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/environment.h"

namespace novacat::workflows {

inline constexpr char kSourcesVariable[] = "NOVACAT_SOURCES_DIR";
// The catalog's object store: the S3 bucket NOVACAT_BUCKET names (the
// deployed stack's), else a folder (ObjectStoreFromEnvironment).
inline constexpr char kBucketVariable[] = "NOVACAT_BUCKET";
inline constexpr char kObjectsVariable[] = "NOVACAT_OBJECTS_DIR";
// The bucket name of a folder store, so FileObjects read the same shape.
inline constexpr char kLocalBucket[] = "novacat-local";

struct SourcesWorld {
  // `table` and `random` must outlive the world. Throws
  // runtime::TerminalError when the sources cannot be read.
  // Downloads go through a CurlDownloader whose mirrors come from
  // <sources>/spectra/mirrors.json when it exists ({"mirrors": {"<url
  // prefix>": "<file under sources/spectra/>"}}: the fixture catalog's
  // products, offline, as file:// URLs).
  SourcesWorld(store::Table& table, runtime::Random& random,
               const std::filesystem::path& sources,
               std::unique_ptr<transfer::ObjectStore> objects);

  // NOVACAT_SOURCES_DIR, else $LAMBDA_TASK_ROOT/sources, else ./sources.
  static std::filesystem::path SourcesFromEnvironment();
  // S3 bucket $NOVACAT_BUCKET (endpoint and credentials from AWS_*), else
  // a FolderObjectStore in $NOVACAT_OBJECTS_DIR, else in `folder`.
  static std::unique_ptr<transfer::ObjectStore> ObjectStoreFromEnvironment(
      const std::filesystem::path& folder);

  store::Repository repository;
  domain::FixtureResolver resolver;
  domain::FixtureProvider providers;
  domain::FixtureReferenceSource references;
  std::unique_ptr<transfer::Downloader> downloads;
  std::unique_ptr<transfer::ObjectStore> objects;
  Environment env;
};

}  // namespace novacat::workflows
