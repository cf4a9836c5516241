// The seed workflows' Environment over a Table and the public archives: the
// access-pattern repository, the archives' clients (novacat_sources:
// SIMBAD, VSX, TNS, ESO, MAST, ADS), the downloader and the object store.
// Lambda builds one over the function's DynamoDB table and the real
// services (cmake/lambda_main.cc); `novacat run` and the tests over SQLite
// or a MemoryTable and the recorded answers (app/fixture_world.h).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "novacat/sources/archives.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/environment.h"

namespace novacat::workflows {

// A mirrors file for the downloader ({"mirrors": {"<url prefix>": "<file
// beside it>"}}): the recorded answers' product URLs served from local
// files. Never set in production.
inline constexpr char kMirrorsVariable[] = "NOVACAT_MIRRORS";
// The catalog's object store: the S3 bucket NOVACAT_BUCKET names (the
// deployed stack's), else a folder (ObjectStoreFromEnvironment).
inline constexpr char kBucketVariable[] = "NOVACAT_BUCKET";
inline constexpr char kObjectsVariable[] = "NOVACAT_OBJECTS_DIR";
// The bucket name of a folder store, so FileObjects read the same shape.
inline constexpr char kLocalBucket[] = "novacat-local";

struct SourcesWorld {
  // `table` and `random` must outlive the world. Downloads go through a
  // CurlDownloader whose mirrors come from `mirrors` when it is not empty.
  // Throws runtime::TerminalError when the mirrors file cannot be read.
  SourcesWorld(store::Table& table, runtime::Random& random,
               const sources::SourcesConfig& sources,
               const std::filesystem::path& mirrors,
               std::unique_ptr<transfer::ObjectStore> objects);

  // A deployed function's sources: NOVACAT_SOURCES, `live` by default (the
  // real services, each URL replaced by its NOVACAT_*_URL when set, the
  // secrets of sources::SecretsFromEnvironment), or `recorded` (a replay
  // server's URLs, which every NOVACAT_*_URL must then give, with the
  // placeholder secrets). Throws runtime::TerminalError naming the variable
  // for an unknown mode or a missing URL.
  static sources::SourcesConfig SourcesFromEnvironment();
  // NOVACAT_MIRRORS, else none.
  static std::filesystem::path MirrorsFromEnvironment();
  // S3 bucket $NOVACAT_BUCKET (endpoint and credentials from AWS_*), else
  // a FolderObjectStore in $NOVACAT_OBJECTS_DIR, else in `folder`.
  static std::unique_ptr<transfer::ObjectStore> ObjectStoreFromEnvironment(
      const std::filesystem::path& folder);

  store::Repository repository;
  sources::Archives archives;
  std::unique_ptr<transfer::Downloader> downloads;
  std::unique_ptr<transfer::ObjectStore> objects;
  Environment env;
};

}  // namespace novacat::workflows
