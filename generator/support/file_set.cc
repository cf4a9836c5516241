#include "support/file_set.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <dtl/dtl.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

namespace novacat {

namespace fs = std::filesystem;

bool FileSet::Add(const std::string& path, std::string content,
                  const std::string& workflow) {
  auto it = files_.find(path);
  if (it != files_.end()) return it->second.content == content;
  files_[path] = GeneratedFile{std::move(content), workflow};
  return true;
}

void FileSet::AddWholeSet(const std::string& path, std::string content) {
  files_[path] = GeneratedFile{std::move(content), kWholeSet};
}

std::vector<std::string> FileSet::DropWholeSet() {
  std::vector<std::string> dropped;
  for (auto it = files_.begin(); it != files_.end();) {
    if (it->second.workflow == kWholeSet) {
      dropped.push_back(it->first);
      it = files_.erase(it);
    } else {
      ++it;
    }
  }
  return dropped;
}

void FileSet::Keep(const std::string& path, const std::string& workflow) {
  if (!files_.count(path)) kept_[path] = workflow;
}

void FileSet::Scaffold(const std::string& path, std::string content) {
  scaffolds_[path] = std::move(content);
}

std::set<std::string> FileSet::Workflows() const {
  std::set<std::string> out;
  for (const auto& [path, file] : files_)
    if (file.workflow != kWholeSet) out.insert(file.workflow);
  return out;
}

namespace {

// The whole file at `path`, read straight into the string (no stream
// buffer and copy: --check reads every generated file); nullopt when it
// cannot be opened. As the stream reading it replaces, a read error ends
// the text where it happened (a folder reads as "").
std::optional<std::string> ReadFile(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  struct stat info;
  // The size is a hint: a file that grows or shrinks meanwhile is read to
  // its end all the same.
  if (::fstat(fd, &info) == 0 && info.st_size > 0)
    text.resize(static_cast<size_t>(info.st_size) + 1);
  size_t done = 0;
  for (;;) {
    if (done == text.size()) text.resize(text.size() * 2 + 4096);
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return text;
}

}  // namespace

bool ReadInChunks(const std::string& path,
                  const std::function<bool(uint64_t size)>& size,
                  const std::function<bool(std::string_view chunk)>& take) {
  // One buffer for every file: reading each whole into a string of its own
  // cost a page fault per 4 KiB, a zero fill and a copy.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info;
  bool ok = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) &&
            size(static_cast<uint64_t>(info.st_size));
  char chunk[64 * 1024];
  while (ok) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    ok = take(std::string_view(chunk, static_cast<size_t>(n)));
  }
  ::close(fd);
  return ok;
}

bool FileHolds(const std::string& path, std::string_view expected) {
  size_t done = 0;
  return ReadInChunks(
             path, [&](uint64_t size) { return size == expected.size(); },
             [&](std::string_view chunk) {
               const bool same = chunk.size() <= expected.size() - done &&
                                 chunk == expected.substr(done, chunk.size());
               done += chunk.size();
               return same;
             }) &&
         done == expected.size();  // the file may have changed size
}

FileReader DiskFileReader() {
  return [](const std::string& path) { return ReadFile(path); };
}

namespace {

struct ManifestEntry {
  std::string workflow;
  bool frozen = false;
};
using Manifest = std::map<std::string, ManifestEntry>;

// The manifest at `out_dir` (empty when there is none); its text in
// `text` when given (nullopt when there is none), so that the caller
// compares the next manifest without reading it again.
Manifest ReadManifest(const fs::path& out_dir,
                      std::optional<std::string>* text = nullptr) {
  Manifest entries;
  std::optional<std::string> read = ReadFile(out_dir / kManifestName);
  if (text) *text = read;
  if (!read) return entries;
  std::istringstream lines(*read);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> columns;
    std::istringstream fields(line);
    std::string column;
    while (std::getline(fields, column, '\t')) columns.push_back(column);
    const std::string& path = columns[0];
    // Never follow a manifest outside the output folder.
    if (path.empty() || path[0] == '/' || path.find("..") != std::string::npos)
      continue;
    entries[path] = ManifestEntry{columns.size() > 1 ? columns[1] : "",
                                  columns.size() > 2 && columns[2] == "frozen"};
  }
  return entries;
}

std::string FormatManifest(const Manifest& entries) {
  std::string out =
      "# Files written by novacat-gen; it replaces or deletes only these "
      "(frozen: kept, never rewritten).\n";
  for (const auto& [path, e] : entries) {
    out +=
        fmt::format("{}\t{}{}\n", path, e.workflow, e.frozen ? "\tfrozen" : "");
  }
  return out;
}

// The manifest after writing `files`: their entries, plus the entries of
// workflows this run does not generate when `keep_others`.
Manifest NextManifest(const FileSet& files, const Manifest& old,
                      bool keep_others) {
  Manifest next;
  const std::set<std::string> workflows = files.Workflows();
  if (keep_others) {
    for (const auto& [path, e] : old)
      if (!workflows.count(e.workflow)) next[path] = e;
  }
  for (const auto& [path, file] : files.files())
    next[path] = ManifestEntry{file.workflow, false};
  for (const auto& [path, workflow] : files.kept())
    if (old.count(path)) next[path] = ManifestEntry{workflow, true};
  return next;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

bool WriteAtomically(const fs::path& path, const std::string& content,
                     std::string* error) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) {
    *error = fmt::format("cannot create {}: {}", path.parent_path().string(),
                         ec.message());
    return false;
  }
  fs::path temporary = path;
  temporary += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.flush();
    if (!out) {
      *error = fmt::format("cannot write {}", temporary.string());
      fs::remove(temporary, ec);
      return false;
    }
  }
  fs::rename(temporary, path, ec);
  if (ec) {
    *error = fmt::format("cannot replace {}: {}", path.string(), ec.message());
    fs::remove(temporary, ec);
    return false;
  }
  return true;
}

// Whether `name` is a temporary file WriteAtomically makes:
// "<file>.tmp.<pid>".
bool IsTemporaryName(const std::string& name) {
  const size_t at = name.rfind(".tmp.");
  if (at == std::string::npos || at + 5 == name.size()) return false;
  for (size_t i = at + 5; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return false;
  return true;
}

// The temporary files under `root` (relative paths, sorted): under the
// folder's lock, only a run that died between writing one and renaming it
// can have left them.
std::vector<std::string> TemporaryFiles(const fs::path& root) {
  std::vector<std::string> found;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_regular_file(ec) &&
        IsTemporaryName(it->path().filename().string()))
      found.push_back(fs::relative(it->path(), root, ec).generic_string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// An advisory lock on the output folder (flock on the folder itself, so
// that no lock file joins the generated ones): exclusive for a run that
// writes, shared for one that compares. Held until destroyed, and released
// by the kernel when the process dies, so a killed run never leaves it
// held. A folder that cannot be opened is not locked (the run then fails on
// the folder itself, with a clearer message).
class FolderLock {
 public:
  FolderLock(const fs::path& dir, bool exclusive) {
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) return;
    const int mode = exclusive ? LOCK_EX : LOCK_SH;
    if (::flock(fd_, mode | LOCK_NB) == 0) return;
    std::fprintf(stderr,
                 "novacat-gen: waiting for another novacat-gen using %s\n",
                 dir.c_str());
    while (::flock(fd_, mode) != 0 && errno == EINTR) {
    }
  }
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

bool WriteFileAtomically(const std::string& path, const std::string& content,
                         std::string* error) {
  return WriteAtomically(fs::path(path), content, error);
}

std::string UnifiedDiff(const std::string& path, const std::string& before,
                        const std::string& after) {
  std::vector<std::string> a = SplitLines(before);
  std::vector<std::string> b = SplitLines(after);
  // A created or deleted file is one hunk; dtl numbers an empty side from
  // 1 where unified diff numbers it from 0.
  if (a.empty() || b.empty()) {
    std::string out =
        fmt::format("--- {}\n+++ {}\n", a.empty() ? "/dev/null" : "a/" + path,
                    b.empty() ? "/dev/null" : "b/" + path);
    out += a.empty() ? fmt::format("@@ -0,0 +1,{} @@\n", b.size())
                     : fmt::format("@@ -1,{} +0,0 @@\n", a.size());
    for (const auto& line : a) out += "-" + line + "\n";
    for (const auto& line : b) out += "+" + line + "\n";
    return out;
  }
  dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
  diff.onHuge();
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream out;
  out << "--- a/" << path << "\n+++ b/" << path << "\n";
  diff.printUnifiedFormat(out);
  return out.str();
}

std::vector<std::string> WorkflowsNotGiven(const FileSet& files,
                                           const std::string& out_dir) {
  const std::set<std::string> given = files.Workflows();
  std::set<std::string> missing;
  for (const auto& [path, entry] : ReadManifest(fs::path(out_dir))) {
    if (entry.workflow != kWholeSet && !entry.workflow.empty() &&
        !given.count(entry.workflow))
      missing.insert(entry.workflow);
  }
  return {missing.begin(), missing.end()};
}

SyncReport WriteFiles(const FileSet& files, const std::string& out_dir,
                      bool prune) {
  SyncReport report;
  const fs::path root(out_dir);
  std::error_code created;
  fs::create_directories(root, created);  // to lock it; errors come below
  const FolderLock lock(root, /*exclusive=*/true);
  // The manifest's text, before this run's.
  std::optional<std::string> current;
  const Manifest old = ReadManifest(root, &current);
  // Plan first: refuse before anything is written.
  for (const auto& [path, file] : files.files()) {
    if (fs::exists(root / path) && !old.count(path)) {
      report.errors.push_back(fmt::format(
          "{} exists and was not written by novacat-gen (it is not in {}); "
          "move it away or delete it",
          (root / path).generic_string(),
          (root / kManifestName).generic_string()));
    }
  }
  if (!report.errors.empty()) return report;
  std::string error;
  // What a run killed before it renamed its temporary files left.
  for (const auto& path : TemporaryFiles(root)) {
    std::error_code ec;
    if (fs::remove(root / path, ec)) report.removed.push_back(path);
  }
  // The manifest first lists every file this run may write as well as the
  // old ones, so that a run interrupted from here on leaves only files the
  // manifest claims: the next run rewrites or removes them instead of
  // refusing them as a person's.
  const Manifest next = NextManifest(files, old, /*keep_others=*/!prune);
  Manifest interim = old;
  for (const auto& [path, entry] : next) interim[path] = entry;
  const std::string interim_text = FormatManifest(interim);
  if (!current || *current != interim_text) {
    if (!WriteAtomically(root / kManifestName, interim_text, &error)) {
      report.errors.push_back(error);
      return report;
    }
    current = interim_text;
  }
  for (const auto& [path, file] : files.files()) {
    if (FileHolds((root / path).string(), file.content)) {
      report.unchanged.push_back(path);
      continue;
    }
    if (!WriteAtomically(root / path, file.content, &error)) {
      report.errors.push_back(error);
      return report;
    }
    report.written.push_back(path);
  }
  for (const auto& [path, entry] : old) {
    if (next.count(path)) continue;
    std::error_code ec;
    if (fs::remove(root / path, ec)) report.removed.push_back(path);
    // Drop folders the orphan leaves empty, up to the output folder.
    for (fs::path dir = (root / path).parent_path();
         dir != root && fs::is_directory(dir) && fs::is_empty(dir);
         dir = dir.parent_path()) {
      fs::remove(dir, ec);
    }
  }
  std::string manifest = FormatManifest(next);
  if (!current || *current != manifest) {
    if (!WriteAtomically(root / kManifestName, manifest, &error)) {
      report.errors.push_back(error);
    }
  }
  return report;
}

std::vector<std::string> WriteScaffolds(const FileSet& files,
                                        const std::string& dir,
                                        std::vector<std::string>* errors) {
  std::vector<std::string> written;
  const fs::path root(dir);
  for (const auto& [path, content] : files.scaffolds()) {
    std::error_code ec;
    // A run killed while writing this scaffold left its temporary file.
    for (fs::directory_iterator it((root / path).parent_path(), ec), end;
         !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind(fs::path(path).filename().string() + ".tmp.", 0) == 0 &&
          IsTemporaryName(name))
        fs::remove(it->path(), ec);
    }
    ec.clear();
    if (fs::exists(root / path, ec)) continue;
    std::string error;
    if (!WriteAtomically(root / path, content, &error)) {
      errors->push_back(error);
      continue;
    }
    written.push_back(path);
  }
  return written;
}

CheckReport CheckFiles(const FileSet& files, const std::string& out_dir) {
  CheckReport report;
  const fs::path root(out_dir);
  const FolderLock lock(root, /*exclusive=*/false);  // no run half-written
  const Manifest old = ReadManifest(root);
  const Manifest next = NextManifest(files, old, /*keep_others=*/false);
  // Every file by path, the manifest among them, without copying them.
  const std::string manifest = FormatManifest(next);
  std::map<std::string, const GeneratedFile*> expected;
  for (const auto& [path, file] : files.files()) expected[path] = &file;
  const GeneratedFile manifest_file{manifest, kWholeSet};
  expected[kManifestName] = &manifest_file;
  for (const auto& [path, file] : expected) {
    if (FileHolds((root / path).string(), file->content)) continue;
    std::optional<std::string> current = ReadFile(root / path);
    ++report.stale;
    report.findings.emplace_back(path, current ? "out of date" : "missing");
    report.diff += UnifiedDiff(path, current.value_or(""), file->content);
  }
  for (const auto& [path, entry] : old) {
    if (next.count(path)) continue;
    std::optional<std::string> current = ReadFile(root / path);
    if (!current) continue;
    ++report.stale;
    report.findings.emplace_back(path, "orphaned");
    report.diff += UnifiedDiff(path, *current, "");
  }
  for (const auto& path : TemporaryFiles(root)) {
    ++report.stale;
    report.findings.emplace_back(path,
                                 "a temporary file of an interrupted run");
    report.diff += fmt::format(
        "Only in {}: {} (a temporary file of an interrupted run; novacat-gen "
        "removes it)\n",
        out_dir, path);
  }
  report.manifest = manifest;
  return report;
}

}  // namespace novacat
