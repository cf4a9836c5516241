// CurlDownloader: one curl easy handle, reset before every fetch (which
// keeps its connections and DNS cache), the body written through a
// FileSink.
#include "novacat/transfer/download.h"

#include <curl/curl.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>

#include <openssl/evp.h>

#include "file_sink.h"
#include "novacat/aws/json_client.h"
#include "novacat/runtime/errors.h"

namespace novacat::transfer {

using runtime::RetryableError;
using runtime::TerminalError;

namespace {

// curl_global_init is not thread-safe and must run before any handle; a
// function-local static runs it exactly once and remembers the outcome.
CURLcode GlobalInit() {
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  return code;
}

// curl failures that asking again may mend: the network's and the
// server's, never the locator's.
bool IsTransient(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:  // the request's timeout, or too slow
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:  // a reset
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:  // a body shorter than its Content-Length
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i])
      return false;
  }
  return true;
}

// The ETag's value without its quotes: "abc" -> abc, W/"abc" -> W/abc.
std::string Unquote(std::string_view value) {
  std::string out;
  if (value.substr(0, 2) == "W/") {
    out = "W/";
    value.remove_prefix(2);
  }
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  return out + std::string(value);
}

// One fetch's state, shared with curl's callbacks.
struct Transfer {
  internal::FileSink* sink = nullptr;
  int64_t max_bytes = 0;
  bool too_large = false;
  std::exception_ptr error;  // what the sink threw
  std::string etag;          // of the last answer (redirects have their own)
};

size_t WriteBody(char* data, size_t size, size_t count, void* out) {
  auto* transfer = static_cast<Transfer*>(out);
  const size_t n = size * count;
  if (transfer->sink->size() + static_cast<int64_t>(n) > transfer->max_bytes) {
    transfer->too_large = true;
    return 0;  // CURLE_WRITE_ERROR
  }
  try {
    transfer->sink->Write(data, n);
  } catch (...) {
    transfer->error = std::current_exception();
    return 0;
  }
  return n;
}

size_t ReadHeader(char* data, size_t size, size_t count, void* out) {
  auto* transfer = static_cast<Transfer*>(out);
  std::string_view line(data, size * count);
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n' ||
                           line.back() == ' ' || line.back() == '\t'))
    line.remove_suffix(1);
  if (line.substr(0, 5) == "HTTP/") {
    transfer->etag.clear();  // a new answer (after a redirect or a 100)
  } else if (StartsWithNoCase(line, "etag:")) {
    std::string_view value = line.substr(5);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    transfer->etag = Unquote(value);
  }
  return size * count;
}

}  // namespace

struct CurlDownloader::Handle {
  CURL* curl = nullptr;
  std::string ca_bundle;
  ~Handle() {
    if (curl) curl_easy_cleanup(curl);
  }
};

CurlDownloader::CurlDownloader(DownloaderOptions options)
    : options_(std::move(options)), handle_(std::make_unique<Handle>()) {
  if (CURLcode code = GlobalInit(); code != CURLE_OK)
    throw TerminalError(std::string("downloader: curl_global_init: ") +
                        curl_easy_strerror(code));
  handle_->curl = curl_easy_init();
  if (!handle_->curl) throw TerminalError("downloader: curl_easy_init failed");
  handle_->ca_bundle = aws::CaBundleFile();
}

CurlDownloader::~CurlDownloader() = default;

Fetched CurlDownloader::Fetch(const std::string& locator,
                              const std::filesystem::path& directory) {
  std::string url = locator;
  for (const auto& [prefix, replacement] : options_.mirrors) {
    if (url.compare(0, prefix.size(), prefix) == 0) {
      url = replacement + url.substr(prefix.size());
      break;
    }
  }
  const std::string subject =
      "fetch " + locator + (url == locator ? "" : " via " + url);
  if (!StartsWithNoCase(url, "http://") && !StartsWithNoCase(url, "https://") &&
      !StartsWithNoCase(url, "file://"))
    throw FetchError(FetchFailure::kBadLocator, subject,
                     "not an http, https or file URL");

  internal::FileSink sink(directory, "fetch-", subject);
  Transfer transfer;
  transfer.sink = &sink;
  transfer.max_bytes = options_.max_bytes;
  CURL* c = handle_->curl;
  curl_easy_reset(c);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  // file:// for fixtures and mirrors; a redirect only to the network (a
  // server must never make us read a local file).
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https,file");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  // An error answer's body is not the product: 4xx/5xx end the transfer
  // (CURLE_HTTP_RETURNED_ERROR) before any of it is written.
  curl_easy_setopt(c, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, options_.connect_timeout_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, options_.request_timeout_ms);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, options_.low_speed_limit_bytes);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, options_.low_speed_time_s);
  // Refused from the Content-Length before any byte is written; a body of
  // unannounced length is checked as it arrives (WriteBody).
  curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE,
                   static_cast<curl_off_t>(options_.max_bytes));
  // Threads: no signals for timeouts (curl would otherwise use SIGALRM).
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_USERAGENT, "novacat-gen (libcurl)");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, ReadHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &transfer);
  if (!handle_->ca_bundle.empty())
    curl_easy_setopt(c, CURLOPT_CAINFO, handle_->ca_bundle.c_str());
  // No Accept-Encoding: the file is the bytes the server holds, and its
  // SHA-256 theirs.

  const CURLcode code = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (transfer.error) std::rethrow_exception(transfer.error);
  if (transfer.too_large || code == CURLE_FILESIZE_EXCEEDED)
    throw FetchError(
        FetchFailure::kTooLarge, subject,
        "more than " + std::to_string(options_.max_bytes) + " bytes");
  if (code == CURLE_HTTP_RETURNED_ERROR ||
      (code == CURLE_OK && status != 0 && (status < 200 || status > 299))) {
    const std::string detail = "HTTP " + std::to_string(status);
    if (status == 404 || status == 410)
      throw FetchError(FetchFailure::kNotFound, subject, detail);
    if (status == 408 || status == 429 || status >= 500)
      throw RetryableError(subject + ": " + detail);
    throw FetchError(FetchFailure::kRefused, subject, detail);
  }
  if (code != CURLE_OK) {
    const std::string detail = std::string("curl: ") + curl_easy_strerror(code);
    if (IsTransient(code)) throw RetryableError(subject + ": " + detail);
    long redirects = 0;
    curl_easy_getinfo(c, CURLINFO_REDIRECT_COUNT, &redirects);
    switch (code) {
      case CURLE_UNSUPPORTED_PROTOCOL:
      case CURLE_URL_MALFORMAT:
        // The locator's fault, unless a server redirected us there (to
        // file:// or ftp://, say): then the server's.
        throw FetchError(
            redirects > 0 ? FetchFailure::kRefused : FetchFailure::kBadLocator,
            subject, detail);
      case CURLE_FILE_COULDNT_READ_FILE:
        throw FetchError(FetchFailure::kNotFound, subject, detail);
      default:
        throw FetchError(FetchFailure::kRefused, subject, detail);
    }
  }

  Fetched fetched;
  const char* content_type = nullptr;
  curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &content_type);
  if (content_type) fetched.content_type = content_type;
  fetched.etag = transfer.etag;
  fetched.byte_length = sink.size();
  fetched.sha256 = sink.Finish().sha256;
  fetched.file = sink.path();
  sink.Keep();
  return fetched;
}

std::string Sha256OfFile(const std::filesystem::path& file) {
  std::FILE* in = std::fopen(file.c_str(), "rb");
  if (!in)
    throw TerminalError("sha256 " + file.string() + ": " +
                        std::strerror(errno));
  EVP_MD_CTX* context = EVP_MD_CTX_new();
  EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
  static constexpr size_t kChunk = 1 << 20;
  std::string buffer(kChunk, '\0');
  size_t n;
  while ((n = std::fread(buffer.data(), 1, kChunk, in)) > 0)
    EVP_DigestUpdate(context, buffer.data(), n);
  const bool failed = std::ferror(in);
  const int error = errno;
  std::fclose(in);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(context, digest, &size);
  EVP_MD_CTX_free(context);
  if (failed)
    throw TerminalError("sha256 " + file.string() + ": " +
                        std::strerror(error));
  return internal::Hex(digest, size);
}

}  // namespace novacat::transfer
