// HTTP for the clients of the public archives (SIMBAD, VSX, TNS, ESO, MAST,
// ADS): one libcurl exchange with a service, its usage rules written once.
//
// Every request carries the User-Agent "novacat/<version>
// (+https://github.com/novacat; astronomy data catalog)" unless the request
// names its own (TNS wants its tns_marker), has a connect timeout and a total
// timeout, the total never more than the caller's budget (the Task's
// remaining time less a margin), and waits for the service's pace (at least
// `min_interval_ms` between the starts of two requests to one service: the
// services' published rate limits).
//
// What an answer means (Fetch):
//   2xx                               the reply
//   429, 503 with Retry-After <= the  waited for, asked once more (the wait
//     retry_after_cap_ms and inside   through the Clock: tests run at once)
//     the budget
//   429, 503 otherwise; any other     ClientError kUnavailable (RETRYABLE):
//     5xx; a timeout, a refused or    "<Service>: HTTP 503 (Retry-After 120 s):
//     reset connection, a body cut    <the service's message>" /
//     short                           "<Service>: curl: Timeout was reached"
//   any other status (4xx, 3xx)       ClientError kInvalidRequest (TERMINAL):
//                                     "<Service>: HTTP 400: <message>"
// The service's message is the body's first 300 bytes on one line
// (none for an empty body: "<Service>: HTTP 500").
//
// Threads: an HttpClient owns one curl handle; one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace novacat::sources {

// Time as the clients see it: the pace between requests and Retry-After
// waits. SystemClock sleeps; tests inject one that only counts.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::chrono::steady_clock::time_point Now() = 0;
  virtual void SleepFor(std::chrono::milliseconds duration) = 0;
};
Clock& SystemClock();

// The product's name and version as every request states it.
std::string UserAgent();

// One outside service as a client talks to it.
struct Service {
  std::string name;      // in messages and logs: "SIMBAD", "ESO SSAP"
  std::string base_url;  // without a trailing '/': "https://.../sim-tap"
  long connect_timeout_ms = 5000;
  long request_timeout_ms = 30000;
  int64_t min_interval_ms = 0;         // the service's pace
  int64_t retry_after_cap_ms = 10000;  // a longer Retry-After is not waited
};

struct HttpRequest {
  std::string method = "GET";  // "GET" or "POST"
  std::string path;            // appended to the base URL: "/sync"
  // URL query parameters (GET) or, for a POST without `body`, the
  // application/x-www-form-urlencoded form; encoded here, in this order.
  std::vector<std::pair<std::string, std::string>> params;
  // "Name: value" lines besides User-Agent.
  std::vector<std::string> headers;
  std::string body;          // a POST's body as is (with `content_type`)
  std::string content_type;  // of `body`
  // The most this request may take, all waits included: the Task's
  // remaining time less a margin (domain::ClientBudgetMs). A budget
  // already spent is ClientError kUnavailable without a request.
  int64_t budget_ms = std::numeric_limits<int64_t>::max();
};

struct HttpReply {
  long status = 0;
  std::string body;
  // Names in lower case, in the order received.
  std::vector<std::pair<std::string, std::string>> headers;
  int64_t elapsed_ms = 0;  // the exchange itself, waits excluded
  // The header's value, "" when absent; `name` in lower case.
  std::string Header(std::string_view name) const;
};

// "a%20b" for "a b": RFC 3986 unreserved characters kept, the rest %XX.
std::string UrlEncode(std::string_view text);
// "k=v&k2=v2", each side UrlEncoded.
std::string FormEncode(
    const std::vector<std::pair<std::string, std::string>>& params);

class HttpClient {
 public:
  // Throws runtime::TerminalError when libcurl cannot be initialized.
  explicit HttpClient(Service service, Clock& clock = SystemClock());
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  const Service& service() const { return service_; }

  // One exchange: any HTTP answer comes back; a transport failure (curl's
  // timeouts, refused or reset connections) throws ClientError
  // kUnavailable, a request curl cannot make (a bad URL) kInvalidRequest.
  HttpReply Send(const HttpRequest& request);

  // Send, with the answer classified as the header says (Retry-After
  // honoured there): a 2xx reply or a ClientError.
  HttpReply Fetch(const HttpRequest& request);

 private:
  struct Curl;
  Service service_;
  Clock& clock_;
  std::unique_ptr<Curl> curl_;
  std::chrono::steady_clock::time_point last_start_{};
  bool started_ = false;
};

}  // namespace novacat::sources
