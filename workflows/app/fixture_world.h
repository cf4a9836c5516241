// The world the workflows run in on one machine: the store's records, and
// the repository and the archives' clients (through SourcesWorld) over one
// Table. The archives answer from their recorded responses
// (fixtures/archives/, served by a ReplayServer of this world's own, so
// each world counts its throttled answers itself) unless the mode is live.
// `novacat run` builds it over SQLite; the end-to-end tests build one per
// client over a shared table.
#pragma once

#include <filesystem>
#include <memory>

#include "novacat/runtime/ids.h"
#include "novacat/sources/replay.h"
#include "novacat/store/table_record_store.h"
#include "novacat/workflows/sources_world.h"

namespace novacat::workflows {

// Where the archives' answers come from, settled before the world that
// asks them is built.
struct ArchiveAnswers {
  // recorded: a replay server over <fixtures>/archives and the product
  // mirrors of <fixtures>/spectra/mirrors.json; live: the real services
  // (NOVACAT_*_URL overriding each) with the secrets of the environment.
  ArchiveAnswers(const std::filesystem::path& fixtures,
                 sources::SourcesMode mode) {
    if (mode == sources::SourcesMode::kLive) {
      config.urls = sources::UrlsFromEnvironment(sources::LiveUrls());
      config.secrets = sources::SecretsFromEnvironment();
      return;
    }
    replay = std::make_unique<sources::ReplayServer>(fixtures / "archives");
    for (const sources::ServiceVariable& v : sources::ServiceVariables())
      config.urls.*v.url = replay->BaseUrl(v.service);
    config.secrets = sources::RecordedSecrets();
    config.paced = false;
    mirrors = fixtures / "spectra" / "mirrors.json";
  }

  std::unique_ptr<sources::ReplayServer> replay;  // recorded only
  sources::SourcesConfig config;
  std::filesystem::path mirrors;
};

struct FixtureWorld : ArchiveAnswers, SourcesWorld {
  // `table` and `random` must outlive the world. Files go to `objects`,
  // else to SourcesWorld::ObjectStoreFromEnvironment's choice with the
  // folder novacat-objects in the system's temporary folder.
  FixtureWorld(store::Table& table, const std::filesystem::path& fixtures,
               runtime::Random& random,
               std::unique_ptr<transfer::ObjectStore> objects = nullptr,
               sources::SourcesMode mode = sources::SourcesMode::kRecorded)
      : ArchiveAnswers(fixtures, mode),
        SourcesWorld(table, random, config, mirrors,
                     objects ? std::move(objects)
                             : ObjectStoreFromEnvironment(
                                   std::filesystem::temp_directory_path() /
                                   "novacat-objects")),
        records(table) {}

  store::TableRecordStore records;
};

}  // namespace novacat::workflows
