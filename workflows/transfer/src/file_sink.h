// FileSink: a new file in a folder, written chunk by chunk with its
// fingerprints (SHA-256 and MD5, what Fetched and StoredObject report)
// computed on the way, and removed again unless kept: what Fetch, Get and
// FolderObjectStore::Put write through. Internal to novacat_transfer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include <openssl/evp.h>

namespace novacat::transfer::internal {

// Lower-case hex of `size` bytes.
std::string Hex(const unsigned char* bytes, size_t size);

class FileSink {
 public:
  // Creates "<directory>/<prefix>XXXXXX" (mkstemp: a name no one else
  // has). Throws runtime::TerminalError ("<what>: cannot create a file in
  // <directory>: <strerror>").
  FileSink(const std::filesystem::path& directory, const std::string& prefix,
           std::string what);
  // Closes the file and removes it unless Keep() was called.
  ~FileSink();
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  // Appends `size` bytes. Throws runtime::TerminalError ("<what>: cannot
  // write <file>: <strerror>").
  void Write(const char* data, size_t size);

  struct Digests {
    std::string sha256;
    std::string md5;
  };
  // Closes the file (after fsync when `durable`, and with `mode`'s
  // permissions when not 0) and returns the fingerprints of what was
  // written; the file is still removed on destruction unless kept.
  Digests Finish(bool durable = false, unsigned mode = 0);
  // The file stays (or was renamed away): the destructor leaves it.
  void Keep() { kept_ = true; }

  const std::filesystem::path& path() const { return path_; }
  int64_t size() const { return size_; }

 private:
  [[noreturn]] void Fail(const std::string& doing, int error);

  std::string what_;
  std::filesystem::path path_;
  int fd_ = -1;
  int64_t size_ = 0;
  bool kept_ = false;
  EVP_MD_CTX* sha256_ = nullptr;
  EVP_MD_CTX* md5_ = nullptr;
};

}  // namespace novacat::transfer::internal
