#include "novacat/workflows/sources_world.h"

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "novacat/runtime/errors.h"

namespace novacat::workflows {

namespace {

std::filesystem::path Checked(const std::filesystem::path& sources) {
  if (!std::filesystem::is_directory(sources))
    throw runtime::TerminalError("the sources folder " + sources.string() +
                                 " does not exist (set " + kSourcesVariable +
                                 " or ship it in the package)");
  return sources;
}

// The downloader's mirrors from <sources>/spectra/mirrors.json.
transfer::DownloaderOptions DownloadOptions(
    const std::filesystem::path& sources) {
  transfer::DownloaderOptions options;
  std::filesystem::path spectra = sources / "spectra";
  std::filesystem::path file = spectra / "mirrors.json";
  if (!std::filesystem::exists(file)) return options;
  std::ifstream in(file);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() ||
      !doc.value("mirrors", nlohmann::json()).is_object())
    throw runtime::TerminalError(file.string() +
                                 ": not {\"mirrors\": {prefix: file}}");
  std::filesystem::path root = std::filesystem::absolute(spectra);
  for (const auto& [prefix, target] : doc["mirrors"].items()) {
    if (!target.is_string())
      throw runtime::TerminalError(file.string() + ": mirror of " + prefix +
                                   " is not a file name");
    options.mirrors.emplace_back(
        prefix, "file://" + (root / target.get<std::string>()).string());
  }
  return options;
}

}  // namespace

SourcesWorld::SourcesWorld(store::Table& table, runtime::Random& random,
                           const std::filesystem::path& sources,
                           std::unique_ptr<transfer::ObjectStore> objects_)
    : repository(table),
      resolver(Checked(sources) / "resolver" / "names.json"),
      providers(sources / "providers"),
      references(sources / "references"),
      downloads(
          std::make_unique<transfer::CurlDownloader>(DownloadOptions(sources))),
      objects(std::move(objects_)),
      env{repository, resolver, providers, references, random} {
  env.downloads = downloads.get();
  env.objects = objects.get();
}

std::unique_ptr<transfer::ObjectStore> SourcesWorld::ObjectStoreFromEnvironment(
    const std::filesystem::path& folder) {
  if (const char* bucket = std::getenv(kBucketVariable); bucket && *bucket)
    return std::make_unique<transfer::S3ObjectStore>(aws::ClientOptions{},
                                                     bucket);
  std::filesystem::path root = folder;
  if (const char* dir = std::getenv(kObjectsVariable); dir && *dir) root = dir;
  return std::make_unique<transfer::FolderObjectStore>(root, kLocalBucket);
}

std::filesystem::path SourcesWorld::SourcesFromEnvironment() {
  if (const char* dir = std::getenv(kSourcesVariable); dir && *dir) return dir;
  if (const char* root = std::getenv("LAMBDA_TASK_ROOT"); root && *root)
    return std::filesystem::path(root) / "sources";
  return "sources";
}

}  // namespace novacat::workflows
