#include "file_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>
#include <vector>

#include "novacat/runtime/errors.h"

namespace novacat::transfer::internal {

using runtime::TerminalError;

std::string Hex(const unsigned char* bytes, size_t size) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 15];
  }
  return out;
}

namespace {

std::string Digest(EVP_MD_CTX* context) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context, digest, &size) != 1)
    throw TerminalError("OpenSSL: EVP_DigestFinal_ex failed");
  return Hex(digest, size);
}

EVP_MD_CTX* NewDigest(const EVP_MD* type) {
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  if (!context || EVP_DigestInit_ex(context, type, nullptr) != 1) {
    EVP_MD_CTX_free(context);
    throw TerminalError("OpenSSL: cannot start a digest");
  }
  return context;
}

}  // namespace

FileSink::FileSink(const std::filesystem::path& directory,
                   const std::string& prefix, std::string what)
    : what_(std::move(what)) {
  sha256_ = NewDigest(EVP_sha256());
  md5_ = NewDigest(EVP_md5());
  std::string name = (directory / (prefix + "XXXXXX")).string();
  std::vector<char> buffer(name.begin(), name.end());
  buffer.push_back('\0');
  fd_ = mkostemp(buffer.data(), O_CLOEXEC);
  if (fd_ < 0) {
    const int error = errno;
    EVP_MD_CTX_free(sha256_);
    EVP_MD_CTX_free(md5_);
    throw TerminalError(what_ + ": cannot create a file in " +
                        directory.string() + ": " + std::strerror(error));
  }
  path_ = buffer.data();
}

FileSink::~FileSink() {
  if (fd_ >= 0) close(fd_);
  if (!kept_) {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  EVP_MD_CTX_free(sha256_);
  EVP_MD_CTX_free(md5_);
}

void FileSink::Fail(const std::string& doing, int error) {
  throw TerminalError(what_ + ": cannot " + doing + " " + path_.string() +
                      ": " + std::strerror(error));
}

void FileSink::Write(const char* data, size_t size) {
  EVP_DigestUpdate(sha256_, data, size);
  EVP_DigestUpdate(md5_, data, size);
  size_t done = 0;
  while (done < size) {
    ssize_t n = write(fd_, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Fail("write", errno);
    done += static_cast<size_t>(n);
  }
  size_ += static_cast<int64_t>(size);
}

FileSink::Digests FileSink::Finish(bool durable, unsigned mode) {
  if (mode != 0 && fchmod(fd_, mode) != 0) Fail("chmod", errno);
  if (durable && fsync(fd_) != 0) Fail("sync", errno);
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) Fail("write", errno);
  return {Digest(sha256_), Digest(md5_)};
}

}  // namespace novacat::transfer::internal
