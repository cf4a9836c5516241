// JsonClient: one curl easy handle, SigV4 by libcurl.
#include "novacat/aws/json_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <utility>

#include "curl_headers.h"
#include "novacat/runtime/errors.h"

namespace novacat::aws {

using runtime::RetryableError;
using runtime::TerminalError;

namespace {

// curl_global_init is not thread-safe and must run once per process; a
// function-local static runs it exactly once and remembers the outcome.
CURLcode GlobalInit() {
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  return code;
}

std::string Env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  return value ? value : "";
}

bool IsRetryable(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

size_t Collect(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

void FillFromEnvironment(ClientOptions& o, const JsonService& service) {
  if (o.region.empty()) o.region = Env("AWS_REGION");
  if (o.region.empty()) o.region = Env("AWS_DEFAULT_REGION");
  if (o.region.empty()) o.region = "us-east-1";
  if (o.endpoint.empty()) o.endpoint = Env(service.endpoint_env);
  if (o.endpoint.empty()) o.endpoint = Env("AWS_ENDPOINT_URL");
  if (o.endpoint.empty())
    o.endpoint =
        "https://" + service.signing_name + "." + o.region + ".amazonaws.com";
  if (o.access_key_id.empty() && o.secret_access_key.empty()) {
    o.access_key_id = Env("AWS_ACCESS_KEY_ID");
    o.secret_access_key = Env("AWS_SECRET_ACCESS_KEY");
    if (o.session_token.empty()) o.session_token = Env("AWS_SESSION_TOKEN");
  }
}

struct SignedHttp::Impl {
  JsonService service;
  ClientOptions options;
  CURL* curl = nullptr;
  std::string signing;  // "aws:amz:<region>:<service>"
  std::string base;     // the endpoint without a trailing '/'
  char error[CURL_ERROR_SIZE] = {};

  ~Impl() {
    if (curl) curl_easy_cleanup(curl);
  }
};

// The CA bundle to trust when libcurl's own is missing (see the header).
std::string CaBundleFile() {
  if (std::string file = Env("SSL_CERT_FILE"); !file.empty()) return file;
  const char* builtin = curl_version_info(CURLVERSION_NOW)->cainfo;
  if (builtin && std::filesystem::exists(builtin)) return "";
  const char* amazon_linux = "/etc/pki/tls/certs/ca-bundle.crt";
  return std::filesystem::exists(amazon_linux) ? amazon_linux : "";
}

namespace {

// A failed curl_easy_perform as RetryableError or TerminalError (see the
// header for the message).
[[noreturn]] void ThrowCurlFailure(CURLcode code, const char* error,
                                   const std::string& what) {
  std::string message = what + ": curl: " + curl_easy_strerror(code);
  if (error[0]) message += std::string(" (") + error + ")";
  if (IsRetryable(code)) throw RetryableError(message);
  throw TerminalError(message);
}

// Send's transfer: the request, the reply and what a callback threw.
struct SendState {
  CURL* curl;
  const SignedHttp::Request* request;
  SignedHttp::Reply* reply;
  std::exception_ptr error;
};

size_t SendWrite(char* data, size_t size, size_t count, void* out) {
  auto* state = static_cast<SendState*>(out);
  const size_t n = size * count;
  long status = 0;
  curl_easy_getinfo(state->curl, CURLINFO_RESPONSE_CODE, &status);
  if (!state->request->sink || status < 200 || status > 299) {
    state->reply->body.append(data, n);
    return n;
  }
  try {
    state->request->sink(std::string_view(data, n));
    return n;
  } catch (...) {
    state->error = std::current_exception();
    return 0;  // CURLE_WRITE_ERROR
  }
}

size_t SendRead(char* buffer, size_t size, size_t count, void* in) {
  auto* state = static_cast<SendState*>(in);
  try {
    return state->request->body(buffer, size * count);
  } catch (...) {
    state->error = std::current_exception();
    return CURL_READFUNC_ABORT;
  }
}

}  // namespace

std::string SignedHttp::Reply::Header(std::string_view name) const {
  return curl_headers::Find(headers, name);
}

SignedHttp::SignedHttp(JsonService service, ClientOptions options)
    : impl_(std::make_unique<Impl>()) {
  FillFromEnvironment(options, service);
  impl_->service = std::move(service);
  impl_->options = std::move(options);
  const ClientOptions& o = impl_->options;
  const std::string& name = impl_->service.name;
  if (o.access_key_id.empty() || o.secret_access_key.empty())
    throw TerminalError(name +
                        ": no credentials (set AWS_ACCESS_KEY_ID and "
                        "AWS_SECRET_ACCESS_KEY, or the options)");
  if (CURLcode code = GlobalInit(); code != CURLE_OK)
    throw TerminalError(name +
                        ": curl_global_init: " + curl_easy_strerror(code));
  impl_->curl = curl_easy_init();
  if (!impl_->curl) throw TerminalError(name + ": curl_easy_init failed");
  impl_->signing = "aws:amz:" + o.region + ":" + impl_->service.signing_name;
  impl_->base = o.endpoint;
  while (!impl_->base.empty() && impl_->base.back() == '/')
    impl_->base.pop_back();
  CURL* c = impl_->curl;
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_AWS_SIGV4, impl_->signing.c_str());
  curl_easy_setopt(c, CURLOPT_USERNAME, o.access_key_id.c_str());
  curl_easy_setopt(c, CURLOPT_PASSWORD, o.secret_access_key.c_str());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, o.connect_timeout_ms);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, o.request_timeout_ms);
  // Threads: no signals for timeouts (curl would otherwise use SIGALRM).
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, curl_headers::Collect);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, impl_->error);
  if (std::string bundle = CaBundleFile(); !bundle.empty())
    curl_easy_setopt(c, CURLOPT_CAINFO, bundle.c_str());
}

SignedHttp::~SignedHttp() = default;

const JsonService& SignedHttp::service() const { return impl_->service; }

const ClientOptions& SignedHttp::options() const { return impl_->options; }

SignedHttp::Reply SignedHttp::Post(const std::string& path,
                                   const std::vector<std::string>& headers,
                                   const std::string& body,
                                   const std::string& what) {
  curl_slist* list = nullptr;
  for (const std::string& h : headers)
    list = curl_slist_append(list, h.c_str());
  // No "Expect: 100-continue" round trip for large bodies.
  list = curl_slist_append(list, "Expect:");
  std::string token;
  if (!impl_->options.session_token.empty()) {
    token = "X-Amz-Security-Token: " + impl_->options.session_token;
    list = curl_slist_append(list, token.c_str());
  }
  CURL* curl = impl_->curl;
  char* error = impl_->error;
  const std::string url = impl_->base + path;
  Reply reply;
  error[0] = '\0';
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
  CURLcode code = curl_easy_perform(curl);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(list);
  if (code != CURLE_OK) ThrowCurlFailure(code, error, what);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

SignedHttp::Reply SignedHttp::Send(const Request& request,
                                   const std::string& what) {
  curl_slist* list = nullptr;
  for (const std::string& h : request.headers)
    list = curl_slist_append(list, h.c_str());
  std::string token;
  if (!impl_->options.session_token.empty()) {
    token = "X-Amz-Security-Token: " + impl_->options.session_token;
    list = curl_slist_append(list, token.c_str());
  }
  CURL* curl = impl_->curl;
  char* error = impl_->error;
  const std::string url = impl_->base + request.path;
  Reply reply;
  SendState state{curl, &request, &reply, nullptr};
  error[0] = '\0';
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, SendWrite);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
  if (request.body) {
    // An upload is a PUT unless told otherwise; its length is announced
    // (Content-Length), never chunked.
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, SendRead);
    curl_easy_setopt(curl, CURLOPT_READDATA, &state);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE,
                     static_cast<curl_off_t>(request.body_size));
    if (request.method != "PUT")
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  } else if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    if (request.method != "GET")
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }
  CURLcode code = curl_easy_perform(curl);
  // Back to what the constructor set and Post expects.
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 0L);
  curl_easy_setopt(curl, CURLOPT_NOBODY, 0L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, nullptr);
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, nullptr);
  curl_easy_setopt(curl, CURLOPT_READDATA, nullptr);
  curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, curl_off_t{-1});
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Collect);
  curl_slist_free_all(list);
  if (state.error) std::rethrow_exception(state.error);
  if (code != CURLE_OK) ThrowCurlFailure(code, error, what);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  return reply;
}

JsonClient::JsonClient(JsonService service, ClientOptions options)
    : http_(std::move(service), std::move(options)) {}

JsonClient::~JsonClient() = default;

const JsonService& JsonClient::service() const { return http_.service(); }

const ClientOptions& JsonClient::options() const { return http_.options(); }

bool JsonClient::IsRetryable(const std::string& type) const {
  const auto& list = http_.service().retryable_errors;
  return std::find(list.begin(), list.end(), type) != list.end();
}

JsonClient::Answer JsonClient::Call(
    std::string_view operation, const nlohmann::json& request,
    const std::string& what, std::initializer_list<std::string_view> expected) {
  const JsonService& service = http_.service();
  std::string body;
  try {
    body = request.dump();
  } catch (const nlohmann::json::exception& e) {
    throw TerminalError(what + ": cannot encode the request: " + e.what());
  }
  SignedHttp::Reply reply = http_.Post(
      "/",
      {"Content-Type: application/x-amz-json-" + service.json_version,
       "X-Amz-Target: " + service.target_prefix + "." + std::string(operation)},
      body, what);
  const long status = reply.status;
  const std::string& response = reply.body;
  nlohmann::json answer =
      nlohmann::json::parse(response, nullptr, /*allow_exceptions=*/false);
  if (status == 200) {
    if (answer.is_discarded() || !answer.is_object())
      throw TerminalError(what + ": " + service.name +
                          " answered with malformed JSON");
    return {true, "", std::move(answer)};
  }
  // {"__type": "com.amazonaws.dynamodb.v20120810#ValidationException",
  //  "message": "..."} (some errors spell it "Message", JSON 1.1 services
  // send the bare type).
  std::string type, message;
  if (answer.is_object()) {
    type = answer.value("__type", "");
    type = type.substr(type.find('#') + 1);
    message = answer.value("message", answer.value("Message", ""));
  }
  for (std::string_view e : expected) {
    if (type == e) return {false, type, std::move(answer)};
  }
  std::string text = what + ": " + service.name + " ";
  if (type.empty()) {
    text += "HTTP " + std::to_string(status);
    if (!response.empty()) text += ": " + response.substr(0, 200);
  } else {
    text += type + (message.empty() ? "" : ": " + message);
  }
  if (status >= 500 || IsRetryable(type)) throw RetryableError(text);
  throw TerminalError(text);
}

}  // namespace novacat::aws
