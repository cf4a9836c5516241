// JsonClient: one AWS service's JSON protocol (awsJson1_0 / awsJson1_1)
// over libcurl, which signs every request itself (CURLOPT_AWS_SIGV4
// "aws:amz:<region>:<service>"). DynamoDbTable and EventBridgeBus are built
// on it; a service is described by a JsonService, the rest is written once
// here.
//
// A request is a POST of a JSON object to the endpoint's "/", with
// `X-Amz-Target: <target prefix>.<operation>`, `Content-Type:
// application/x-amz-json-1.0` (or 1.1) and, with a session token,
// `X-Amz-Security-Token`.
//
// Errors (messages start with the caller's `what`, then the service name):
// curl's timeouts, refused, reset or empty connections are
// runtime::RetryableError ("<what>: curl: <curl's text> (<detail>)"), other
// curl failures TerminalError; an HTTP 5xx or an error whose `__type` (after
// any '#') is in the service's retryable list is RetryableError, any other
// error answer TerminalError ("<what>: <Service> <type>: <message>", or
// "<what>: <Service> HTTP <status>: <body's first 200 bytes>" without a
// type); a 200 whose body is not a JSON object is TerminalError ("<what>:
// <Service> answered with malformed JSON").
//
// Threads: a JsonClient (a SignedHttp) owns one curl handle (and its
// kept-alive connection) and must not be used by two threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace novacat::aws {

// Where and as whom a client talks; empty fields are filled from the
// environment (FillFromEnvironment).
struct ClientOptions {
  // Base URL, e.g. "http://127.0.0.1:8000". Empty: AWS_ENDPOINT_URL_<SERVICE>
  // (e.g. AWS_ENDPOINT_URL_DYNAMODB), else AWS_ENDPOINT_URL, else
  // https://<signing name>.<region>.amazonaws.com.
  std::string endpoint;
  // Empty: AWS_REGION, else AWS_DEFAULT_REGION, else "us-east-1".
  std::string region;
  // Empty: AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN
  // (the token is optional; when set it is sent as X-Amz-Security-Token; a
  // token belongs to its keys, so explicit keys take none from the
  // environment). A client throws TerminalError when no key or secret is
  // found.
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  // Connecting gives up after this long (RetryableError).
  long connect_timeout_ms = 2000;
  // A whole request gives up after this long (RetryableError).
  long request_timeout_ms = 10000;
};

// What distinguishes one service's JSON protocol from another's.
struct JsonService {
  std::string name;           // in messages: "DynamoDB", "EventBridge"
  std::string signing_name;   // SigV4 service and endpoint host: "dynamodb"
  std::string endpoint_env;   // "AWS_ENDPOINT_URL_DYNAMODB"
  std::string target_prefix;  // "DynamoDB_20120810", "AWSEvents"
  std::string json_version;   // "1.0" or "1.1"
  // Error types (the `__type` after '#') that are RetryableError besides
  // any HTTP 5xx: the service's throttles and transient failures.
  std::vector<std::string> retryable_errors;
};

// Fills the empty fields of `options` for `service` (see ClientOptions).
void FillFromEnvironment(ClientOptions& options, const JsonService& service);

// The CA bundle a libcurl client trusts (CURLOPT_CAINFO): the file
// SSL_CERT_FILE names, else "" when libcurl's default bundle exists, else
// Amazon Linux's /etc/pki/tls/certs/ca-bundle.crt when it exists, else "".
// SignedHttp uses it; so do the project's other libcurl clients.
std::string CaBundleFile();

// One service's signed HTTP requests: the connection, SigV4 signing,
// credentials and curl's failures, written once for the JSON-protocol
// services (JsonClient) and the REST ones (LambdaClient). TLS trusts the
// file SSL_CERT_FILE names, else libcurl's default bundle, else Amazon
// Linux's /etc/pki/tls/certs/ca-bundle.crt (a package built on Debian runs
// on Amazon Linux in Lambda).
class SignedHttp {
 public:
  // Fills `options` from the environment. Throws runtime::TerminalError
  // ("<Service>: no credentials ...") when no key or secret is found, or
  // when libcurl cannot be initialized (curl_global_init runs once per
  // process).
  SignedHttp(JsonService service, ClientOptions options);
  ~SignedHttp();
  SignedHttp(const SignedHttp&) = delete;
  SignedHttp& operator=(const SignedHttp&) = delete;

  const JsonService& service() const;
  const ClientOptions& options() const;

  struct Reply {
    long status = 0;
    std::string body;
    // Response headers, names in lower case.
    std::vector<std::pair<std::string, std::string>> headers;
    // The header's value, "" when absent; `name` in lower case.
    std::string Header(std::string_view name) const;
  };

  // POSTs `body` to the endpoint's `path` ("/" for JSON services) with
  // `headers` ("Name: value") besides the signature and security token.
  // curl's timeouts, refused, reset or empty connections throw
  // RetryableError ("<what>: curl: <curl's text> (<detail>)"), other curl
  // failures TerminalError; every HTTP answer comes back as a Reply.
  Reply Post(const std::string& path, const std::vector<std::string>& headers,
             const std::string& body, const std::string& what);

  // A request of a REST service (S3) whose bodies are streamed rather than
  // held in memory.
  struct Request {
    // "GET", "PUT", "HEAD", "DELETE", ...
    std::string method;
    // The endpoint's path, already URI-encoded: libcurl signs it as is.
    std::string path;
    // "Name: value" besides the signature and security token. SigV4 takes
    // the payload's hash from an `x-amz-content-sha256` header when there is
    // one (what S3 requires); without it, it hashes an empty body.
    std::vector<std::string> headers;
    // The body: `body_size` bytes, which `body` copies into the buffer it is
    // given, returning how many (0 at the end). Unset: no body.
    std::function<size_t(char* buffer, size_t size)> body;
    int64_t body_size = 0;
    // Where a 2xx answer's body goes, chunk by chunk (unset: into the
    // Reply). Any other answer's body comes back in the Reply, for its error
    // document.
    std::function<void(std::string_view chunk)> sink;
  };

  // Sends `request`. curl's failures as Post's; an exception `body` or
  // `sink` throws aborts the transfer and is rethrown as it is. The handle
  // is left as Post expects it, so one SignedHttp may do both.
  Reply Send(const Request& request, const std::string& what);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class JsonClient {
 public:
  // Fills `options` from the environment. Throws runtime::TerminalError
  // ("<Service>: no credentials ...") when no key or secret is found, or
  // when libcurl cannot be initialized (curl_global_init runs once per
  // process).
  JsonClient(JsonService service, ClientOptions options);
  ~JsonClient();
  JsonClient(const JsonClient&) = delete;
  JsonClient& operator=(const JsonClient&) = delete;

  const JsonService& service() const;
  // The options in effect, environment defaults filled in.
  const ClientOptions& options() const;

  // What an operation got back: the response body on success, or the
  // error the service answered with when the caller expected it.
  struct Answer {
    bool ok = true;
    std::string error_type;  // e.g. "ConditionalCheckFailedException"
    nlohmann::json body;
  };

  // POSTs `request` as `operation`. Throws RetryableError or TerminalError
  // (see above; messages start with `what`), except for the error types
  // listed in `expected`, which come back as an Answer with ok == false.
  Answer Call(std::string_view operation, const nlohmann::json& request,
              const std::string& what,
              std::initializer_list<std::string_view> expected = {});

 private:
  bool IsRetryable(const std::string& type) const;

  SignedHttp http_;
};

}  // namespace novacat::aws
