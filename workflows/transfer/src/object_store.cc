// FolderObjectStore and S3ObjectStore: the same keys, the same fingerprints
// (FileSink computes SHA-256 and MD5 while writing), two places.
#include "novacat/transfer/object_store.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <system_error>
#include <utility>

#include "file_sink.h"
#include "novacat/runtime/errors.h"

namespace novacat::transfer {

using runtime::RetryableError;
using runtime::TerminalError;

namespace {

// SHA-256 of no bytes: a GET's x-amz-content-sha256.
constexpr const char* kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// A file read in chunks; closed when destroyed.
class Reader {
 public:
  Reader(const std::filesystem::path& file, const std::string& what)
      : file_(file), what_(what), in_(std::fopen(file.c_str(), "rb")) {
    if (!in_) Fail(errno);
  }
  ~Reader() {
    if (in_) std::fclose(in_);
  }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  // Up to `size` bytes into `buffer`; 0 at the end. TerminalError when the
  // file cannot be read.
  size_t Read(char* buffer, size_t size) {
    size_t n = std::fread(buffer, 1, size, in_);
    if (n == 0 && std::ferror(in_)) Fail(errno);
    return n;
  }

 private:
  [[noreturn]] void Fail(int error) {
    throw TerminalError(what_ + ": cannot read " + file_.string() + ": " +
                        std::strerror(error));
  }
  std::filesystem::path file_;
  std::string what_;
  std::FILE* in_;
};

void CheckKey(const std::string& key, const std::string& what) {
  if (!IsValidObjectKey(key)) throw TerminalError(what + ": invalid key");
}

// The ETag's value without its quotes.
std::string Unquote(std::string value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  return value;
}

// A key as a URI path: every byte but A-Z a-z 0-9 - . _ ~ and '/'
// percent-encoded, as SigV4's canonical URI for S3 encodes it (once).
std::string EncodeKey(const std::string& key) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' ||
        c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// The path-style request path of `key` in `bucket`: /<bucket>/<key>, both
// encoded. (Built with append: GCC 12 misreports `"/" + string&&` under -O2
// as -Wrestrict.)
std::string ObjectPath(const std::string& bucket, const std::string& key) {
  std::string path = "/";
  path.append(EncodeKey(bucket)).append("/").append(EncodeKey(key));
  return path;
}

// The text of the first <tag>...</tag> in an S3 error document, its
// entities decoded; "" when absent.
std::string XmlText(const std::string& xml, const std::string& tag) {
  const std::string open = "<" + tag + ">", close = "</" + tag + ">";
  size_t start = xml.find(open);
  if (start == std::string::npos) return "";
  start += open.size();
  size_t end = xml.find(close, start);
  if (end == std::string::npos) return "";
  std::string_view raw(xml.data() + start, end - start);
  static const std::pair<std::string_view, char> entities[] = {
      {"&amp;", '&'},
      {"&lt;", '<'},
      {"&gt;", '>'},
      {"&quot;", '"'},
      {"&apos;", '\''}};
  std::string text;
  for (size_t i = 0; i < raw.size();) {
    bool decoded = false;
    if (raw[i] == '&') {
      for (const auto& [entity, c] : entities) {
        if (raw.substr(i, entity.size()) == entity) {
          text += c;
          i += entity.size();
          decoded = true;
          break;
        }
      }
    }
    if (!decoded) text += raw[i++];
  }
  return text;
}

// An S3 error answer as RetryableError or TerminalError (see the header).
[[noreturn]] void ThrowS3Error(const aws::SignedHttp::Reply& reply,
                               const std::string& what) {
  const std::string code = XmlText(reply.body, "Code");
  const std::string message = XmlText(reply.body, "Message");
  std::string text = what + ": S3 ";
  if (code.empty())
    text += "HTTP " + std::to_string(reply.status);
  else
    text += code + (message.empty() ? "" : ": " + message);
  if (reply.status >= 500 || reply.status == 408 || reply.status == 429 ||
      code == "SlowDown" || code == "RequestTimeout")
    throw RetryableError(text);
  throw TerminalError(text);
}

}  // namespace

bool IsValidObjectKey(const std::string& key) {
  if (key.empty() || key.front() == '/') return false;
  if (key.find('\0') != std::string::npos) return false;
  size_t start = 0;
  while (true) {
    size_t end = key.find('/', start);
    std::string_view segment(
        key.data() + start,
        (end == std::string::npos ? key.size() : end) - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

// --- FolderObjectStore ---

FolderObjectStore::FolderObjectStore(std::filesystem::path root,
                                     std::string bucket)
    : root_(std::move(root)), bucket_(std::move(bucket)) {}

std::filesystem::path FolderObjectStore::PathOf(const std::string& key) const {
  return root_ / bucket_ / key;
}

StoredObject FolderObjectStore::Put(const std::string& key,
                                    const std::filesystem::path& file,
                                    const std::string& /*content_type*/) {
  const std::string what = "put " + bucket_ + "/" + key;
  CheckKey(key, what);
  const std::filesystem::path target = PathOf(key);
  std::error_code error;
  std::filesystem::create_directories(target.parent_path(), error);
  if (error)
    throw TerminalError(what + ": cannot make " +
                        target.parent_path().string() + ": " + error.message());
  Reader reader(file, what);
  // Beside the target, so that the rename stays on one filesystem. (The
  // prefix is built with append: GCC 12 misreports `"." + string&&` under
  // -O2 as -Wrestrict.)
  std::string prefix = ".";
  prefix.append(target.filename().string()).append(".tmp-");
  internal::FileSink sink(target.parent_path(), prefix, what);
  std::string buffer(1 << 20, '\0');
  while (size_t n = reader.Read(buffer.data(), buffer.size()))
    sink.Write(buffer.data(), n);
  const internal::FileSink::Digests digests =
      sink.Finish(/*durable=*/true, /*mode=*/0644);
  std::filesystem::rename(sink.path(), target, error);
  if (error)
    throw TerminalError(what + ": cannot rename " + sink.path().string() +
                        " to " + target.string() + ": " + error.message());
  sink.Keep();
  return {bucket_, key, sink.size(), digests.sha256, digests.md5};
}

std::optional<Fetched> FolderObjectStore::Get(
    const std::string& key, const std::filesystem::path& directory) {
  const std::string what = "get " + bucket_ + "/" + key;
  CheckKey(key, what);
  const std::filesystem::path source = PathOf(key);
  std::error_code error;
  if (!std::filesystem::is_regular_file(source, error)) return std::nullopt;
  Reader reader(source, what);
  internal::FileSink sink(directory, "get-", what);
  std::string buffer(1 << 20, '\0');
  while (size_t n = reader.Read(buffer.data(), buffer.size()))
    sink.Write(buffer.data(), n);
  const internal::FileSink::Digests digests = sink.Finish();
  sink.Keep();
  Fetched fetched;
  fetched.file = sink.path();
  fetched.byte_length = sink.size();
  fetched.sha256 = digests.sha256;
  fetched.etag = digests.md5;
  return fetched;
}

// --- S3ObjectStore ---

aws::JsonService S3Service() {
  // REST-XML: no target, no JSON version; the retryable codes are
  // ThrowS3Error's.
  return {"S3", "s3", "AWS_ENDPOINT_URL_S3", "", "", {}};
}

S3ObjectStore::S3ObjectStore(aws::ClientOptions options, std::string bucket)
    : bucket_(std::move(bucket)) {
  // A large product's upload takes longer than a JSON call.
  if (options.request_timeout_ms == aws::ClientOptions{}.request_timeout_ms)
    options.request_timeout_ms = 14 * 60 * 1000;
  http_ = std::make_unique<aws::SignedHttp>(S3Service(), std::move(options));
}

S3ObjectStore::~S3ObjectStore() = default;

const aws::ClientOptions& S3ObjectStore::options() const {
  return http_->options();
}

StoredObject S3ObjectStore::Put(const std::string& key,
                                const std::filesystem::path& file,
                                const std::string& content_type) {
  const std::string what = "put s3://" + bucket_ + "/" + key;
  CheckKey(key, what);
  Reader reader(file, what);
  // The body is read twice: once for the hash the signature covers (and S3
  // checks against the bytes), once streamed to S3.
  const std::string sha256 = Sha256OfFile(file);
  std::error_code error;
  const auto size =
      static_cast<int64_t>(std::filesystem::file_size(file, error));
  if (error)
    throw TerminalError(what + ": cannot read " + file.string() + ": " +
                        error.message());
  aws::SignedHttp::Request request;
  request.method = "PUT";
  request.path = ObjectPath(bucket_, key);
  request.headers = {
      "Content-Type: " +
          (content_type.empty() ? "application/octet-stream" : content_type),
      "x-amz-content-sha256: " + sha256};
  request.body = [&reader](char* buffer, size_t n) {
    return reader.Read(buffer, n);
  };
  request.body_size = size;
  aws::SignedHttp::Reply reply = http_->Send(request, what);
  if (reply.status < 200 || reply.status > 299) ThrowS3Error(reply, what);
  return {bucket_, key, size, sha256, Unquote(reply.Header("etag"))};
}

std::optional<Fetched> S3ObjectStore::Get(
    const std::string& key, const std::filesystem::path& directory) {
  const std::string what = "get s3://" + bucket_ + "/" + key;
  CheckKey(key, what);
  internal::FileSink sink(directory, "get-", what);
  aws::SignedHttp::Request request;
  request.method = "GET";
  request.path = ObjectPath(bucket_, key);
  request.headers = {std::string("x-amz-content-sha256: ") + kEmptySha256};
  request.sink = [&sink](std::string_view chunk) {
    sink.Write(chunk.data(), chunk.size());
  };
  aws::SignedHttp::Reply reply = http_->Send(request, what);
  if (reply.status == 404 && XmlText(reply.body, "Code") == "NoSuchKey")
    return std::nullopt;
  if (reply.status < 200 || reply.status > 299) ThrowS3Error(reply, what);
  const internal::FileSink::Digests digests = sink.Finish();
  sink.Keep();
  Fetched fetched;
  fetched.file = sink.path();
  fetched.byte_length = sink.size();
  fetched.sha256 = digests.sha256;
  fetched.etag = Unquote(reply.Header("etag"));
  fetched.content_type = reply.Header("content-type");
  return fetched;
}

}  // namespace novacat::transfer
