// A FileReader for tests: the given in-memory files first, then the disk
// (the real governance and event catalog).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "load/spec_loader.h"

namespace novacat::testing {

inline FileReader FilesOverDisk(std::map<std::string, std::string> files) {
  auto disk = DiskFileReader();
  return [files = std::move(files),
          disk](const std::string& path) -> std::optional<std::string> {
    auto it = files.find(path);
    if (it != files.end()) return it->second;
    return disk(path);
  };
}

}  // namespace novacat::testing
