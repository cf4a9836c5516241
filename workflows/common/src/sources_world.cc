#include "novacat/workflows/sources_world.h"

#include <cstdlib>

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

}  // namespace

SourcesWorld::SourcesWorld(store::Table& table, runtime::Random& random,
                           const std::filesystem::path& sources)
    : repository(table),
      resolver(Checked(sources) / "resolver" / "names.json"),
      providers(sources / "providers"),
      references(sources / "references"),
      env{repository, resolver, providers, references, random} {}

std::filesystem::path SourcesWorld::SourcesFromEnvironment() {
  if (const char* dir = std::getenv(kSourcesVariable); dir && *dir) return dir;
  if (const char* root = std::getenv("LAMBDA_TASK_ROOT"); root && *root)
    return std::filesystem::path(root) / "sources";
  return "sources";
}

}  // namespace novacat::workflows
