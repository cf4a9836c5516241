#include "support/check_record.h"

#include <elf.h>
#include <link.h>

#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <filesystem>
#include <nlohmann/json.hpp>

// Header only: the generator links no hashing library.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace novacat {

namespace {

// Bumped when what a record holds or means changes.
constexpr int kRecordFormat = 1;

// `bytes` as lowercase hex digits, two a byte.
std::string Hex(const unsigned char* bytes, size_t size) {
  return fmt::format("{:02x}", fmt::join(bytes, bytes + size, ""));
}

std::string Hex(XXH128_hash_t hash) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, hash);
  return Hex(canonical.digest, sizeof canonical.digest);
}

// The GNU build id note of one loaded object, in hex ("" when it has none).
// Sizes are compared with what is left of the segment, never by pointers
// past its end; notes are padded to the segment's alignment (4, or 8 for
// the notes of .note.gnu.property), as glibc reads them.
std::string BuildIdOf(const struct dl_phdr_info& info) {
  for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info.dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const size_t align = segment.p_align == 8 ? 8 : 4;
    auto padded = [align](size_t n) { return (n + align - 1) & ~(align - 1); };
    const char* at =
        reinterpret_cast<const char*>(info.dlpi_addr + segment.p_vaddr);
    size_t left = segment.p_memsz;
    while (left >= sizeof(ElfW(Nhdr))) {
      const auto* note = reinterpret_cast<const ElfW(Nhdr)*>(at);
      const size_t name_size = padded(note->n_namesz);
      const size_t desc_size = padded(note->n_descsz);
      const size_t body = left - sizeof(ElfW(Nhdr));
      if (name_size > body || note->n_descsz > body - name_size) break;
      const char* name = at + sizeof(ElfW(Nhdr));
      const char* desc = name + name_size;
      if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0)
        return Hex(reinterpret_cast<const unsigned char*>(desc),
                   note->n_descsz);
      if (desc_size > body - name_size) break;
      const size_t whole = sizeof(ElfW(Nhdr)) + name_size + desc_size;
      at += whole;
      left -= whole;
    }
  }
  return "";
}

// dl_iterate_phdr's callback: appends each object's build id to the
// identity, or empties it and stops at an object that has none.
int AppendBuildId(struct dl_phdr_info* info, size_t, void* data) {
  auto* identity = static_cast<std::optional<std::string>*>(data);
  const std::string id = BuildIdOf(*info);
  if (id.empty()) {
    *identity = std::nullopt;
    return 1;
  }
  **identity += (*identity)->empty() ? id : "," + id;
  return 0;
}

}  // namespace

std::string FingerprintOf(std::string_view bytes) {
  return Hex(XXH3_128bits(bytes.data(), bytes.size()));
}

std::optional<std::string> FingerprintOfFile(const std::string& path) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  if (!ReadInChunks(
          path, [](uint64_t) { return true; },
          [&](std::string_view chunk) {
            XXH3_128bits_update(&state, chunk.data(), chunk.size());
            return true;
          }))
    return std::nullopt;
  return Hex(XXH3_128bits_digest(&state));
}

RecordingReader::RecordingReader(FileReader read) : read_(std::move(read)) {}

FileReader RecordingReader::reader() {
  return [this](const std::string& path) {
    std::optional<std::string> text = read_(path);
    std::optional<std::string> fingerprint;
    if (text) fingerprint = FingerprintOf(*text);
    const std::lock_guard<std::mutex> lock(mutex_);
    auto [it, first] = reads_.emplace(path, fingerprint);
    if (!first && it->second != fingerprint) consistent_ = false;
    return text;
  };
}

InputFingerprints RecordingReader::reads() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return reads_;
}

bool RecordingReader::consistent() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return consistent_;
}

std::string ProgramBuildIds() {
  std::optional<std::string> identity = std::string();
  dl_iterate_phdr(AppendBuildId, &identity);
  return identity.value_or("");
}

std::string DefaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/novacat-gen";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/novacat-gen";
  return "";
}

std::optional<CheckRecord> CheckRecord::For(
    const std::string& cache_dir, const std::string& build_ids,
    const std::string& version, const std::string& out_dir,
    const std::vector<std::string>& specs) {
  if (cache_dir.empty() || build_ids.empty()) return std::nullopt;
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return std::nullopt;
  CheckRecord record;
  record.generator_ = build_ids + " " + version;
  record.cwd_ = cwd.string();
  record.out_dir_ = out_dir;
  record.specs_ = specs;
  // One file per working folder, output folder and list of specs; the
  // record repeats them, so that two checks whose names collide each find
  // the other's record is not theirs.
  std::string key = record.cwd_ + '\0' + out_dir;
  for (const auto& spec : specs) key += '\0' + spec;
  record.path_ = fmt::format("{}/check-{:016x}.json", cache_dir,
                             XXH3_64bits(key.data(), key.size()));
  return record;
}

std::optional<CheckRecord::Held> CheckRecord::Holds() const {
  const FileReader read = DiskFileReader();
  std::optional<std::string> text = read(path_);
  if (!text) return std::nullopt;
  const nlohmann::json record = nlohmann::json::parse(*text, nullptr, false);
  try {
    if (record.is_discarded() || record.at("format") != kRecordFormat ||
        record.at("generator") != generator_ || record.at("cwd") != cwd_ ||
        record.at("out") != out_dir_ ||
        record.at("specs").get<std::vector<std::string>>() != specs_)
      return std::nullopt;
    Held held;
    // Each input fingerprinted from what the run's reader returns (a folder
    // reads as "", for one), so that it means what it meant when recorded.
    for (const auto& [path, fingerprint] : record.at("inputs").items()) {
      std::optional<std::string> now;
      if (std::optional<std::string> bytes = read(path))
        now = FingerprintOf(*bytes);
      if (fingerprint.is_null() ? now.has_value() : !now || fingerprint != *now)
        return std::nullopt;
      held.inputs.emplace(path, std::move(now));
    }
    const nlohmann::json& compared = record.at("compared");
    for (const auto& [path, fingerprint] : compared.items()) {
      const std::optional<std::string> now =
          FingerprintOfFile(out_dir_ + "/" + path);
      if (!now || fingerprint != *now) return std::nullopt;
    }
    held.compared = compared.size();
    if (held.compared == 0) return std::nullopt;
    return held;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // not a record of this format
  }
}

void CheckRecord::Save(
    const InputFingerprints& inputs,
    const std::vector<std::pair<std::string, std::string_view>>& compared)
    const {
  nlohmann::ordered_json record = {{"format", kRecordFormat},
                                   {"generator", generator_},
                                   {"cwd", cwd_},
                                   {"out", out_dir_},
                                   {"specs", specs_}};
  nlohmann::ordered_json& read = record["inputs"] =
      nlohmann::ordered_json::object();
  for (const auto& [path, fingerprint] : inputs)
    read[path] = fingerprint ? nlohmann::ordered_json(*fingerprint) : nullptr;
  nlohmann::ordered_json& files = record["compared"] =
      nlohmann::ordered_json::object();
  for (const auto& [path, content] : compared)
    files[path] = FingerprintOf(content);
  std::string text;
  try {
    text = record.dump(1) + "\n";
  } catch (const nlohmann::json::exception&) {
    return;  // a name that is not UTF-8 cannot be written as JSON: no record
  }
  std::string error;
  (void)WriteFileAtomically(path_, text, &error);
}

}  // namespace novacat
