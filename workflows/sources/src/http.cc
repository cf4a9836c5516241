#include "novacat/sources/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <thread>

#include "curl_headers.h"
#include "novacat/aws/json_client.h"
#include "novacat/domain/failure.h"
#include "novacat/runtime/errors.h"

#ifndef NOVACAT_VERSION
#define NOVACAT_VERSION "0"
#endif

namespace novacat::sources {

using domain::ClientError;
using domain::ClientFailure;

namespace {

// curl_global_init is not thread-safe and must run once per process.
CURLcode GlobalInit() {
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  return code;
}

class RealClock : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() override {
    return std::chrono::steady_clock::now();
  }
  void SleepFor(std::chrono::milliseconds duration) override {
    std::this_thread::sleep_for(duration);
  }
};

size_t CollectBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

// ": " and the service's message, the body's first 300 bytes on one line;
// "" for an empty body.
std::string Excerpt(std::string_view body) {
  std::string text(body.substr(0, 300));
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  size_t start = text.find_first_not_of(' ');
  return start == std::string::npos ? "" : ": " + text.substr(start);
}

// Retry-After in seconds (RFC 9110 also allows an HTTP date, which no
// service here sends: such a value reads as absent).
std::optional<int64_t> RetryAfterSeconds(const HttpReply& reply) {
  std::string value = reply.Header("retry-after");
  int64_t seconds = 0;
  auto [end, ec] =
      std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || ec != std::errc() ||
      end != value.data() + value.size() || seconds < 0)
    return std::nullopt;
  return seconds;
}

bool Throttled(long status) { return status == 429 || status == 503; }

}  // namespace

Clock& SystemClock() {
  static RealClock clock;
  return clock;
}

std::string UserAgent() {
  return std::string("novacat/") + NOVACAT_VERSION +
         " (+https://github.com/novacat; astronomy data catalog)";
}

std::string HttpReply::Header(std::string_view name) const {
  return curl_headers::Find(headers, name);
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string FormEncode(
    const std::vector<std::pair<std::string, std::string>>& params) {
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out += '&';
    out += UrlEncode(name) + "=" + UrlEncode(value);
  }
  return out;
}

struct HttpClient::Curl {
  CURL* handle = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  ~Curl() {
    if (handle) curl_easy_cleanup(handle);
  }
};

HttpClient::HttpClient(Service service, Clock& clock)
    : service_(std::move(service)), clock_(clock), curl_(new Curl) {
  if (CURLcode code = GlobalInit(); code != CURLE_OK)
    throw runtime::TerminalError(
        service_.name + ": curl_global_init: " + curl_easy_strerror(code));
  curl_->handle = curl_easy_init();
  if (!curl_->handle)
    throw runtime::TerminalError(service_.name + ": curl_easy_init failed");
  while (!service_.base_url.empty() && service_.base_url.back() == '/')
    service_.base_url.pop_back();
}

HttpClient::~HttpClient() = default;

HttpReply HttpClient::Send(const HttpRequest& request) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const std::string& name = service_.name;
  auto begin = clock_.Now();
  // The service's pace: wait until min_interval_ms after the last start.
  if (started_ && service_.min_interval_ms > 0) {
    auto next = last_start_ + milliseconds(service_.min_interval_ms);
    if (next > begin) {
      auto wait = duration_cast<milliseconds>(next - begin);
      if (wait.count() >= request.budget_ms)
        throw ClientError(ClientFailure::kUnavailable,
                          name + ": the time left (" +
                              std::to_string(request.budget_ms) +
                              " ms) is shorter than the service's pace");
      clock_.SleepFor(wait);
    }
  }
  int64_t spent = duration_cast<milliseconds>(clock_.Now() - begin).count();
  int64_t budget = request.budget_ms - spent;
  if (budget <= 0)
    throw ClientError(ClientFailure::kUnavailable,
                      name + ": no time left to ask");
  long timeout = service_.request_timeout_ms;
  if (budget < timeout) timeout = static_cast<long>(budget);
  long connect_timeout = std::min(service_.connect_timeout_ms, timeout);

  std::string url = service_.base_url + request.path;
  std::string form;
  const bool post = request.method == "POST";
  if (!request.params.empty()) {
    if (post && request.body.empty()) {
      form = FormEncode(request.params);
    } else {
      url += (url.find('?') == std::string::npos ? "?" : "&") +
             FormEncode(request.params);
    }
  }
  curl_slist* list = nullptr;
  bool own_agent = false;
  for (const std::string& header : request.headers) {
    list = curl_slist_append(list, header.c_str());
    std::string lower = header.substr(0, 11);
    for (char& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "user-agent:") own_agent = true;
  }
  if (!own_agent)
    list = curl_slist_append(list, ("User-Agent: " + UserAgent()).c_str());
  if (post && !request.body.empty() && !request.content_type.empty())
    list = curl_slist_append(list,
                             ("Content-Type: " + request.content_type).c_str());
  // libcurl would send "Expect: 100-continue" for a large POST.
  list = curl_slist_append(list, "Expect:");

  CURL* c = curl_->handle;
  curl_easy_reset(c);
  HttpReply reply;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // what curl can decode
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, CollectBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, curl_headers::Collect);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &reply.headers);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_->error);
  if (std::string bundle = aws::CaBundleFile(); !bundle.empty())
    curl_easy_setopt(c, CURLOPT_CAINFO, bundle.c_str());
  if (post) {
    const std::string& body = request.body.empty() ? form : request.body;
    curl_easy_setopt(c, CURLOPT_POST, 1L);
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body.size()));
  } else if (request.method != "GET") {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  last_start_ = clock_.Now();
  started_ = true;
  CURLcode code = curl_easy_perform(c);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(list);
  reply.elapsed_ms =
      duration_cast<milliseconds>(clock_.Now() - last_start_).count();
  if (code != CURLE_OK) {
    // A failed URL is the request's fault; everything else (timeouts,
    // refused, reset or cut-short connections, TLS) may pass.
    ClientFailure failure =
        code == CURLE_URL_MALFORMAT || code == CURLE_UNSUPPORTED_PROTOCOL
            ? ClientFailure::kInvalidRequest
            : ClientFailure::kUnavailable;
    throw ClientError(failure, name + ": curl: " + curl_easy_strerror(code));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

HttpReply HttpClient::Fetch(const HttpRequest& request) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  auto begin = clock_.Now();
  HttpReply reply = Send(request);
  if (reply.status >= 200 && reply.status < 300) return reply;
  const std::string& name = service_.name;
  std::optional<int64_t> retry_after = RetryAfterSeconds(reply);
  if (Throttled(reply.status) && retry_after) {
    int64_t wait_ms = *retry_after * 1000;
    int64_t spent = duration_cast<milliseconds>(clock_.Now() - begin).count();
    HttpRequest again = request;
    again.budget_ms = request.budget_ms - spent - wait_ms;
    if (wait_ms <= service_.retry_after_cap_ms && again.budget_ms > 0) {
      clock_.SleepFor(milliseconds(wait_ms));
      reply = Send(again);
      if (reply.status >= 200 && reply.status < 300) return reply;
      retry_after = RetryAfterSeconds(reply);
    }
  }
  std::string head = name + ": HTTP " + std::to_string(reply.status);
  if (reply.status >= 500 || reply.status == 429) {
    if (Throttled(reply.status) && retry_after)
      head += " (Retry-After " + std::to_string(*retry_after) + " s)";
    throw ClientError(ClientFailure::kUnavailable, head + Excerpt(reply.body));
  }
  throw ClientError(ClientFailure::kInvalidRequest, head + Excerpt(reply.body));
}

}  // namespace novacat::sources
