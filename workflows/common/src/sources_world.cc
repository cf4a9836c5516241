#include "novacat/workflows/sources_world.h"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "novacat/runtime/errors.h"

namespace novacat::workflows {

namespace {

// The downloader's mirrors from a mirrors file, its targets beside it.
transfer::DownloaderOptions DownloadOptions(const std::filesystem::path& file) {
  transfer::DownloaderOptions options;
  if (file.empty()) return options;
  std::ifstream in(file);
  if (!in)
    throw runtime::TerminalError("the mirrors file " + file.string() +
                                 " cannot be read");
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() ||
      !doc.value("mirrors", nlohmann::json()).is_object())
    throw runtime::TerminalError(file.string() +
                                 ": not {\"mirrors\": {prefix: file}}");
  std::filesystem::path root = std::filesystem::absolute(file).parent_path();
  for (const auto& [prefix, target] : doc["mirrors"].items()) {
    if (!target.is_string())
      throw runtime::TerminalError(file.string() + ": mirror of " + prefix +
                                   " is not a file name");
    options.mirrors.emplace_back(
        prefix, "file://" + (root / target.get<std::string>()).string());
  }
  return options;
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

SourcesWorld::SourcesWorld(store::Table& table, runtime::Random& random,
                           const sources::SourcesConfig& sources,
                           const std::filesystem::path& mirrors,
                           std::unique_ptr<transfer::ObjectStore> objects_)
    : repository(table),
      archives(sources),
      downloads(
          std::make_unique<transfer::CurlDownloader>(DownloadOptions(mirrors))),
      objects(std::move(objects_)),
      env{repository, archives.resolver(), archives.providers(),
          archives.references(), random} {
  env.downloads = downloads.get();
  env.objects = objects.get();
}

sources::SourcesConfig SourcesWorld::SourcesFromEnvironment() {
  std::string mode_text = Env(sources::kSourcesModeVariable);
  std::optional<sources::SourcesMode> mode =
      mode_text.empty() ? sources::SourcesMode::kLive
                        : sources::ParseSourcesMode(mode_text);
  if (!mode)
    throw runtime::TerminalError(std::string(sources::kSourcesModeVariable) +
                                 " is \"" + mode_text +
                                 "\"; it must be recorded or live");
  sources::SourcesConfig config;
  if (*mode == sources::SourcesMode::kLive) {
    config.urls = sources::UrlsFromEnvironment(sources::LiveUrls());
    config.secrets = sources::SecretsFromEnvironment();
    return config;
  }
  for (const sources::ServiceVariable& v : sources::ServiceVariables()) {
    std::string url = Env(std::string(v.variable).c_str());
    if (url.empty())
      throw runtime::TerminalError(
          std::string(sources::kSourcesModeVariable) +
          "=recorded needs every service's URL (a replay server's: novacat "
          "sources replay); " +
          std::string(v.variable) + " is not set");
    config.urls.*v.url = url;
  }
  config.secrets = sources::RecordedSecrets();
  config.paced = false;
  return config;
}

std::filesystem::path SourcesWorld::MirrorsFromEnvironment() {
  return Env(kMirrorsVariable);
}

std::unique_ptr<transfer::ObjectStore> SourcesWorld::ObjectStoreFromEnvironment(
    const std::filesystem::path& folder) {
  if (std::string bucket = Env(kBucketVariable); !bucket.empty())
    return std::make_unique<transfer::S3ObjectStore>(aws::ClientOptions{},
                                                     bucket);
  std::filesystem::path root = folder;
  if (std::string dir = Env(kObjectsVariable); !dir.empty()) root = dir;
  return std::make_unique<transfer::FolderObjectStore>(root, kLocalBucket);
}

}  // namespace novacat::workflows
