// Object stores: where downloaded products are kept, by bucket and key.
// FolderObjectStore (files under a folder; `novacat run`'s default) and
// S3ObjectStore (S3, or anything speaking its REST API such as moto) keep
// the same objects: the same keys are valid in both and an object's ETag is
// the same (the MD5 of its bytes in hex, as S3 gives for a single PUT).
//
// Keys: not empty, no leading '/', and no empty, "." or ".." segment
// between the '/'s ("a/b.fits" is valid; "/a", "a//b", "a/../b" are not).
// An invalid key is runtime::TerminalError, on every store:
//   "<op> <bucket>/<key>: invalid key"        FolderObjectStore
//   "<op> s3://<bucket>/<key>: invalid key"   S3ObjectStore
// with <op> "put" or "get". The other messages start the same way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "novacat/aws/json_client.h"
#include "novacat/transfer/download.h"

namespace novacat::transfer {

struct StoredObject {
  std::string bucket;
  std::string key;
  int64_t byte_length = 0;
  std::string sha256;  // 64 lower-case hex digits
  std::string etag;    // without quotes: the MD5 of the bytes in hex
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;
  virtual const std::string& bucket() const = 0;
  // Puts the file's bytes under `key`, replacing what is there (a put of
  // the same bytes is idempotent). RetryableError when transient,
  // TerminalError otherwise.
  virtual StoredObject Put(const std::string& key,
                           const std::filesystem::path& file,
                           const std::string& content_type) = 0;
  // The object's bytes into a new file in `directory` (the caller owns
  // it); std::nullopt when there is no such object. Errors as Put's; on
  // any failure no file is left behind.
  virtual std::optional<Fetched> Get(
      const std::string& key, const std::filesystem::path& directory) = 0;
};

// Whether `key` is a valid object key (see above).
bool IsValidObjectKey(const std::string& key);

// Objects as files under root/<bucket>/<key>, written to a temporary file
// in the same folder (".<name>.tmp-XXXXXX"), flushed to disk, then renamed
// over the key's file: a reader sees the old bytes or the new, never half
// of them, and nothing is left when a put fails. The folders are made as
// needed. Content types are not kept (Get's content_type is empty).
// Messages: "put <bucket>/<key>: cannot read <file>: <strerror>", "put
// <bucket>/<key>: <the filesystem's error>", ... (all TerminalError).
class FolderObjectStore final : public ObjectStore {
 public:
  FolderObjectStore(std::filesystem::path root, std::string bucket);

  const std::string& bucket() const override { return bucket_; }
  StoredObject Put(const std::string& key, const std::filesystem::path& file,
                   const std::string& content_type) override;
  std::optional<Fetched> Get(const std::string& key,
                             const std::filesystem::path& directory) override;

  // The file that holds `key`'s object (whether or not it exists).
  std::filesystem::path PathOf(const std::string& key) const;

 private:
  std::filesystem::path root_;
  std::string bucket_;
};

// S3's description for aws::SignedHttp (SigV4 service "s3", endpoint
// AWS_ENDPOINT_URL_S3).
aws::JsonService S3Service();

// S3: path-style requests <endpoint>/<bucket>/<key> (the key URI-encoded,
// its '/'s kept), SigV4 service "s3" by libcurl with `x-amz-content-sha256`
// the body's hex SHA-256 (S3 checks the bytes against it), the body
// streamed from the file. Endpoint from options, else AWS_ENDPOINT_URL_S3,
// else AWS_ENDPOINT_URL, else https://s3.<region>.amazonaws.com; the
// request timeout, when left at ClientOptions' default, becomes 14 minutes
// (a large product's upload).
//
// Errors: HTTP 5xx, 408 or 429, and the codes SlowDown and RequestTimeout,
// are RetryableError; curl's connection failures and timeouts too
// ("<op> s3://<bucket>/<key>: curl: <text> (<detail>)", as
// aws::SignedHttp); any other error answer is TerminalError with S3's
// error Code and Message:
//   "<op> s3://<bucket>/<key>: S3 <Code>: <Message>"
//   "<op> s3://<bucket>/<key>: S3 HTTP <status>"   (no Code in the answer)
// e.g. "put s3://missing/a.fits: S3 NoSuchBucket: The specified bucket
// does not exist". Get's NoSuchKey is std::nullopt; NoSuchBucket is an
// error. A file Put cannot read: TerminalError ("put s3://<bucket>/<key>:
// cannot read <file>: <strerror>").
//
// Threads: one curl handle, one thread at a time.
class S3ObjectStore final : public ObjectStore {
 public:
  // Throws runtime::TerminalError without credentials (aws::SignedHttp).
  S3ObjectStore(aws::ClientOptions options, std::string bucket);
  ~S3ObjectStore() override;

  const std::string& bucket() const override { return bucket_; }
  StoredObject Put(const std::string& key, const std::filesystem::path& file,
                   const std::string& content_type) override;
  std::optional<Fetched> Get(const std::string& key,
                             const std::filesystem::path& directory) override;

  // The options in effect, environment defaults filled in.
  const aws::ClientOptions& options() const;

 private:
  std::unique_ptr<aws::SignedHttp> http_;
  std::string bucket_;
};

}  // namespace novacat::transfer
