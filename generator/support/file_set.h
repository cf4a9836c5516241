// FileSet: the generated files of one run, and how they meet the disk.
//
// Generated output is owned through a manifest (`MANIFEST` in the output
// folder) listing every file the generator wrote and the workflow it came
// from. Only files in the manifest are ever replaced or deleted: a file a
// person put there is never touched, and generating over one is an error.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace novacat {

struct GeneratedFile {
  std::string content;
  std::string workflow;  // the spec it came from ("" for shared files)
};

class FileSet {
 public:
  // `path` is relative to the output folder, with '/' separators.
  void Add(const std::string& path, std::string content,
           const std::string& workflow);
  const std::map<std::string, GeneratedFile>& files() const { return files_; }

  // The manifest text for these files (sorted, one "path<TAB>workflow" line
  // per file).
  std::string Manifest() const;

 private:
  std::map<std::string, GeneratedFile> files_;
};

// The manifest name inside the output folder.
inline constexpr const char* kManifestName = "MANIFEST";

struct SyncReport {
  std::vector<std::string> written;    // created or changed
  std::vector<std::string> unchanged;  // already identical
  std::vector<std::string> removed;    // orphans deleted
  std::vector<std::string> errors;     // nothing was written when non-empty
};

// Writes `files` under `out_dir` atomically (temporary file + rename), only
// files whose content changed, and deletes files the previous manifest lists
// that this run no longer produces. Refuses (and writes nothing) when a file
// to write exists but is not in the manifest.
SyncReport WriteFiles(const FileSet& files, const std::string& out_dir);

struct CheckReport {
  std::string diff;  // unified diff of every difference, "" when in sync
  int stale = 0;     // files that differ, are missing or are orphaned
};

// Compares `files` (and the manifest) with `out_dir` without writing.
CheckReport CheckFiles(const FileSet& files, const std::string& out_dir);

// A unified diff of `before` → `after` labelled with `path`.
std::string UnifiedDiff(const std::string& path, const std::string& before,
                        const std::string& after);

}  // namespace novacat
