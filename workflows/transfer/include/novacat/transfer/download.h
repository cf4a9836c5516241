// Downloads: a provider's product (an http(s) URL, or a file:// one for
// fixtures and mirrors) streamed into a file of the caller's, its SHA-256
// and length computed on the way, never held in memory.
//
// Only the http, https and file protocols are fetched, and redirects (at
// most 5) only to http or https: a server may never send the downloader to
// a local file. A Fetch either leaves one complete new file in the
// directory it was given or nothing at all.
//
// Errors. `<subject>` is "fetch <locator>", or "fetch <locator> via <url>"
// when a mirror rewrote the locator to <url>; every message is
// "<subject>: <detail>" (FetchError's detail() is the part after the
// subject), with curl's own words (curl_easy_strerror, which never names
// ports or milliseconds) where curl failed:
//
//   runtime::RetryableError (transient: asking again may succeed)
//     "<subject>: HTTP <status>"      408, 429 and every 5xx
//     "<subject>: curl: <text>"       "Couldn't connect to server", "Timeout
//                                     was reached" (the request's timeout or
//                                     too slow a transfer), "Failure when
//                                     receiving data from the peer" (a reset),
//                                     "Transferred a partial file" (a body
//                                     shorter than its Content-Length),
//                                     "Couldn't resolve host name", ...
//   FetchError (permanent; the step decides what it means)
//     kBadLocator "<subject>: not an http, https or file URL"
//                 "<subject>: curl: URL using bad/illegal format or missing
//                 URL" (and other URL failures curl reports)
//     kNotFound   "<subject>: HTTP 404" (or 410)
//                 "<subject>: curl: Couldn't read a file:// file" (a file://
//                 path that does not exist or cannot be read)
//     kRefused    "<subject>: HTTP <status>" (any other 4xx, and a final 1xx
//                 or 3xx answer, e.g. a redirect without Location)
//                 "<subject>: curl: Number of redirects hit maximum amount"
//                 "<subject>: curl: Unsupported protocol" (a redirect to
//                 file://, ftp://, ...)
//                 (and any other failure curl reports, e.g. TLS
//                 verification)
//     kTooLarge   "<subject>: more than <max_bytes> bytes"
//   runtime::TerminalError (this machine's failure, not the locator's)
//     "<subject>: cannot create a file in <directory>: <strerror>"
//     "<subject>: cannot write <file>: <strerror>"
//
// Threads: a CurlDownloader owns one curl handle (and its kept-alive
// connections); one thread at a time may Fetch with it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::transfer {

enum class FetchFailure {
  kBadLocator,  // not an http(s) or file URL, or malformed
  kNotFound,    // HTTP 404/410, or a file:// path that does not exist
  kRefused,     // any other 4xx but 408 and 429 (401, 403, ...)
  kTooLarge,    // more than DownloaderOptions::max_bytes
};
using FetchError = domain::Failure<FetchFailure>;

// A file fetched into a directory of the caller's: the bytes' fingerprints,
// computed while streaming.
struct Fetched {
  // A new file in the directory given; the caller owns (and removes) it.
  std::filesystem::path file;
  int64_t byte_length = 0;
  std::string sha256;  // 64 lower-case hex digits
  // The ETag header without its quotes (W/"x" becomes W/x); empty when
  // none. An object store's Get: the object's ETag.
  std::string etag;
  std::string content_type;  // empty when none (always, for file://)
};

class Downloader {
 public:
  virtual ~Downloader() = default;
  // Streams `locator` into a new file in `directory`. Transient failures
  // (HTTP 408, 429, 5xx, connection refused/reset, timeouts, a body shorter
  // than its Content-Length) are runtime::RetryableError; permanent ones
  // FetchError (see the messages above). On any failure no file is left
  // behind.
  virtual Fetched Fetch(const std::string& locator,
                        const std::filesystem::path& directory) = 0;
};

struct DownloaderOptions {
  long connect_timeout_ms = 10000;
  long request_timeout_ms = 14 * 60 * 1000;  // under the 15-minute Task timeout
  long low_speed_limit_bytes = 1;  // abort (RetryableError) when slower than
  long low_speed_time_s = 60;      // ... this many bytes/s for this long
  // Larger bodies are kTooLarge: refused from their Content-Length before
  // any byte is written, or as soon as an unannounced body grows past it.
  int64_t max_bytes = int64_t{2} << 30;
  // Locator prefixes replaced before fetching, first match wins: e.g.
  // {"https://dataportal.eso.org/dataportal_new/file/",
  //  "file:///srv/fixtures/spectra/"} so that the fixture catalog runs
  // offline. The rewritten URL is what is checked and fetched.
  std::vector<std::pair<std::string, std::string>> mirrors;
};

class CurlDownloader final : public Downloader {
 public:
  // Throws runtime::TerminalError when libcurl cannot be initialized.
  explicit CurlDownloader(DownloaderOptions options = {});
  ~CurlDownloader() override;
  CurlDownloader(const CurlDownloader&) = delete;
  CurlDownloader& operator=(const CurlDownloader&) = delete;

  Fetched Fetch(const std::string& locator,
                const std::filesystem::path& directory) override;

  const DownloaderOptions& options() const { return options_; }

 private:
  struct Handle;
  DownloaderOptions options_;
  std::unique_ptr<Handle> handle_;
};

// SHA-256 of a file's bytes, 64 lower-case hex digits. Throws
// runtime::TerminalError ("sha256 <file>: <strerror>") when the file cannot
// be read.
std::string Sha256OfFile(const std::filesystem::path& file);

}  // namespace novacat::transfer
