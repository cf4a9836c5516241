// FileSet: the generated files of one run, and how they meet the disk.
//
// Generated output is owned through a manifest (`MANIFEST` in the output
// folder) listing every file the generator wrote and the workflow it came
// from. Only files in the manifest are ever replaced or deleted: a file a
// person put there is never touched, and generating over one is an error.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace novacat {

// Reads a whole file; nullopt when it cannot be read. Injected so tests and
// the fuzzer run without a filesystem.
using FileReader =
    std::function<std::optional<std::string>(const std::string& path)>;

FileReader DiskFileReader();

struct GeneratedFile {
  std::string content;
  std::string workflow;  // the spec it came from
};

// Reads the regular file at `path` in chunks of 64 KiB into one buffer
// (no copy of the whole file): `size` is told its size first, then `take`
// each chunk, and either returns false to stop. True when the file was read
// to its end; false when it cannot be opened, is not a regular file, a read
// failed or a callback stopped.
bool ReadInChunks(const std::string& path,
                  const std::function<bool(uint64_t size)>& size,
                  const std::function<bool(std::string_view chunk)>& take);

// Whether the regular file at `path` holds exactly `expected` (false when
// it cannot be read). Read in chunks and compared as it comes, without a
// copy of the file.
bool FileHolds(const std::string& path, std::string_view expected);

// Writes `content` to `path` through a temporary file renamed over it, so
// that a reader sees the old file or the new one, never a part; creates the
// folders it needs. On failure, `error` says why and nothing is left.
bool WriteFileAtomically(const std::string& path, const std::string& content,
                         std::string* error);

// Whether a run makes the step logic's scaffolds (FileSet::Scaffold): one
// that writes nothing (--check, which never compares them) skips them.
enum class Scaffolds { kMake, kSkip };

class FileSet {
 public:
  // Adds a file; `path` is relative to the output folder, with '/'
  // separators. Returns false (and keeps the first) when another file with
  // different content was already added at `path`.
  bool Add(const std::string& path, std::string content,
           const std::string& workflow);
  // Adds a file that belongs to the whole set of workflows of the run (the
  // stack template): its manifest owner is kWholeSet. See
  // WorkflowsNotGiven for when a run may write it.
  void AddWholeSet(const std::string& path, std::string content);
  // Removes the whole-set files from this set; returns their paths.
  std::vector<std::string> DropWholeSet();
  // Marks a file the generator no longer writes but must keep (an old
  // event schema version): never rewritten, compared or deleted.
  void Keep(const std::string& path, const std::string& workflow);

  // A file people own once it exists (step logic): written only when the
  // path is free, never compared, replaced or deleted. `path` is relative
  // to the scaffold folder (workflows/).
  void Scaffold(const std::string& path, std::string content);

  const std::map<std::string, GeneratedFile>& files() const { return files_; }
  const std::map<std::string, std::string>& scaffolds() const {
    return scaffolds_;
  }
  const std::map<std::string, std::string>& kept() const { return kept_; }
  // The workflows whose files are in this set (not kWholeSet).
  std::set<std::string> Workflows() const;

 private:
  std::map<std::string, GeneratedFile> files_;
  std::map<std::string, std::string> kept_;  // path → workflow
  std::map<std::string, std::string> scaffolds_;
};

// Writes the scaffolds under `dir` that do not exist yet (atomically);
// returns the paths written. Existing files are never opened for writing.
std::vector<std::string> WriteScaffolds(const FileSet& files,
                                        const std::string& dir,
                                        std::vector<std::string>* errors);

// The manifest name inside the output folder.
inline constexpr const char* kManifestName = "MANIFEST";

// The manifest owner of a file that belongs to the whole set of workflows.
inline constexpr const char* kWholeSet = "*";

// The workflows the manifest in `out_dir` lists that `files` does not
// generate (sorted). A run that lacks some must not rewrite the whole-set
// files (they also deploy those workflows) unless it prunes them.
std::vector<std::string> WorkflowsNotGiven(const FileSet& files,
                                           const std::string& out_dir);

struct SyncReport {
  std::vector<std::string> written;    // created or changed
  std::vector<std::string> unchanged;  // already identical
  // Orphans deleted, and temporary files an interrupted run left.
  std::vector<std::string> removed;
  std::vector<std::string> errors;  // nothing was written when non-empty
};

// Writes `files` under `out_dir` atomically (temporary file + rename), only
// files whose content changed, and deletes the files the previous manifest
// lists for the workflows of this run that the run no longer produces;
// other workflows' files are left alone. Refuses (and writes nothing) when a
// file to write exists but is not in the manifest.
// With `prune`, the files of workflows not in this run are deleted too (the
// spec is gone): the output folder then holds exactly `files`.
// Interruptible and exclusive: the run holds an exclusive lock on the
// folder (another run waits, saying so on stderr); the manifest lists every
// file it may write before the first is written, so that a run killed at
// any point leaves a folder the next run completes; temporary files a
// killed run left are removed.
SyncReport WriteFiles(const FileSet& files, const std::string& out_dir,
                      bool prune = false);

struct CheckReport {
  std::string diff;  // unified diff of every difference, "" when in sync
  int stale = 0;     // files that differ, are missing or are orphaned
  // Each stale file (relative to the output folder) and what is wrong with
  // it: "out of date", "missing", "orphaned" or "a temporary file of an
  // interrupted run", in the order of `diff`.
  std::vector<std::pair<std::string, std::string>> findings;
  // The manifest the files make, which the folder's must hold.
  std::string manifest;
};

// Compares `files` (and the manifest) with `out_dir` without writing. The
// whole folder is compared: files of workflows not in `files` are orphans,
// and a temporary file an interrupted run left is stale too. Holds a shared
// lock on the folder: it waits for a run writing there.
CheckReport CheckFiles(const FileSet& files, const std::string& out_dir);

// A unified diff of `before` → `after` labelled with `path`.
std::string UnifiedDiff(const std::string& path, const std::string& before,
                        const std::string& after);

}  // namespace novacat
