// CheckRecord: what a --check found in sync, kept so that the next --check
// of the same specs into the same folder, by the same novacat-gen, need not
// generate every file again to find them in sync again.
//
// The files a run generates are a function of the files it read (the specs,
// the governance, the event catalog: each read through a RecordingReader)
// and of the generator itself (the GNU build ids of its binary and of the
// shared libraries it loaded: a change of its code or of its compiled-in
// templates, or a library upgraded, makes another identity). A record
// lists each input with the fingerprint of its bytes (or that it was
// absent) and each file the check compared, the manifest among them, with
// the fingerprint of the text it expected there. A later --check by the
// same generator that finds every input and every compared file as
// recorded would make the same files and find the folder in sync; it loads
// and checks the specs (their diagnostics are printed as always) and stops
// there. Anything else (no record, another format, generator, folder or
// list of specs, one byte changed in an input or an output) and the check
// runs in full, as without a record.
//
// Records live in the user's cache folder, never in the output folder
// (--check writes nothing there): one file per working folder, output folder
// and list of specs. Saving is best effort: a cache folder that cannot be
// written costs the next check its speed, never its result.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/file_set.h"

namespace novacat {

// XXH3-128 of `bytes`, as 32 lowercase hex digits.
std::string FingerprintOf(std::string_view bytes);

// The fingerprint of the regular file at `path`, read in chunks; nullopt
// when it cannot be read or is not a regular file.
std::optional<std::string> FingerprintOfFile(const std::string& path);

// What a run read: each path and the fingerprint of what it held (nullopt:
// it could not be read).
using InputFingerprints = std::map<std::string, std::optional<std::string>>;

// A FileReader that remembers what it read (the loader reads on two
// threads: it is safe to call from several). Must outlive its readers.
class RecordingReader {
 public:
  explicit RecordingReader(FileReader read);
  FileReader reader();
  InputFingerprints reads() const;
  // False when a path was read twice and held different bytes each time:
  // the run's inputs have no one fingerprint, and no record is kept.
  bool consistent() const;

 private:
  FileReader read_;
  mutable std::mutex mutex_;
  InputFingerprints reads_;
  bool consistent_ = true;
};

// The GNU build ids of the running program and of every shared object it
// loaded (the C library, mimalloc...), in hex and in load order: what makes
// its output. "" when one of them has none.
std::string ProgramBuildIds();

// $XDG_CACHE_HOME/novacat-gen, else $HOME/.cache/novacat-gen; "" when
// neither is set.
std::string DefaultCacheDir();

class CheckRecord {
 public:
  // The record of a --check of `specs` (as given) into `out_dir` from the
  // current folder by the generator `build_ids` (ProgramBuildIds) and
  // `version` name, kept in `cache_dir`. nullopt when there is no cache
  // folder or no build ids: no record can be trusted then.
  static std::optional<CheckRecord> For(const std::string& cache_dir,
                                        const std::string& build_ids,
                                        const std::string& version,
                                        const std::string& out_dir,
                                        const std::vector<std::string>& specs);

  // What a record that still holds says of the check it recorded.
  struct Held {
    size_t compared = 0;       // the files it compared, the manifest among them
    InputFingerprints inputs;  // what it read
  };
  // Whether the record exists, is this check's, and every input and
  // compared file still holds what it recorded. The caller that loads the
  // specs again must find `inputs` as they were (read through a
  // RecordingReader): a spec edited in between makes the record not hold.
  std::optional<Held> Holds() const;

  // Records a check that found everything in sync: what it read, and each
  // file it compared (relative to the output folder) with the text it
  // expected there. Written atomically; a failure (a folder that cannot be
  // written, a name that is not UTF-8) is ignored (see above).
  void Save(const InputFingerprints& inputs,
            const std::vector<std::pair<std::string, std::string_view>>&
                compared) const;

  // Where the record is kept.
  const std::string& path() const { return path_; }

 private:
  CheckRecord() = default;
  // What identifies this check, written in the record and compared whole.
  std::string generator_, cwd_, out_dir_;
  std::vector<std::string> specs_;
  std::string path_;
};

}  // namespace novacat
