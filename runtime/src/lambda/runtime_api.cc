// The Runtime API client on one curl easy handle, and the loop around it.
#include "novacat/lambda/runtime_api.h"

#include <curl/curl.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "curl_headers.h"
#include "novacat/runtime/errors.h"
#include "novacat/store/for_each_nova.h"
#include "novacat/store/reaper.h"

namespace novacat::lambda {

namespace {

size_t Collect(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

std::string ErrorDocument(const runtime::InvocationError& error) {
  return nlohmann::json{{"errorType", error.error_type},
                        {"errorMessage", error.message}}
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

struct RuntimeApiClient::Impl {
  std::string base;  // http://host:port/2018-06-01/runtime/
  CURL* curl = nullptr;
  char error[CURL_ERROR_SIZE] = {};

  ~Impl() {
    if (curl) curl_easy_cleanup(curl);
  }

  struct Reply {
    long status = 0;
    std::string body;
    curl_headers::Headers headers;
  };

  // One request; `post_body` null for a GET. Throws std::runtime_error
  // when the API cannot be reached.
  Reply Request(const std::string& path, const std::string* post_body,
                const std::string& error_type = "") {
    Reply reply;
    const std::string url = base + path;
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    // `next` blocks until an invocation comes, for as long as it takes.
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 0L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, curl_headers::Collect);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
    curl_slist* headers = nullptr;
    std::string type_header;
    if (post_body) {
      headers = curl_slist_append(headers, "Content-Type: application/json");
      headers = curl_slist_append(headers, "Expect:");
      if (!error_type.empty()) {
        type_header = "Lambda-Runtime-Function-Error-Type: " + error_type;
        headers = curl_slist_append(headers, type_header.c_str());
      }
      curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
      curl_easy_setopt(curl, CURLOPT_POST, 1L);
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, post_body->data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(post_body->size()));
    }
    error[0] = '\0';
    CURLcode code = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    if (code != CURLE_OK)
      throw std::runtime_error(
          "Lambda Runtime API " + url + ": " + curl_easy_strerror(code) +
          (error[0] ? std::string(" (") + error + ")" : std::string()));
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
    return reply;
  }

  void Post(const std::string& path, const std::string& body,
            const std::string& error_type = "") {
    Reply reply = Request(path, &body, error_type);
    // 202 Accepted; 413 when a response is over Lambda's payload limit.
    if (reply.status != 202)
      throw std::runtime_error("Lambda Runtime API POST " + path + ": HTTP " +
                               std::to_string(reply.status) + ": " +
                               reply.body.substr(0, 300));
  }
};

RuntimeApiClient::RuntimeApiClient(std::string endpoint)
    : impl_(std::make_unique<Impl>()) {
  // Reference counted by libcurl; the loop is the process's only thread
  // when it calls this, as curl_global_init requires.
  if (CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT); code != CURLE_OK)
    throw std::runtime_error(std::string("curl_global_init: ") +
                             curl_easy_strerror(code));
  impl_->curl = curl_easy_init();
  if (!impl_->curl) throw std::runtime_error("curl_easy_init failed");
  impl_->base = "http://" + endpoint + "/2018-06-01/runtime/";
}

RuntimeApiClient::~RuntimeApiClient() = default;

Invocation RuntimeApiClient::Next() {
  // Lambda freezes the process between invocations (and @vercel/fun does so
  // right after the response, perhaps while this request connects): on
  // thaw, a connect timeout measured on the wall clock may have run out. A
  // `next` that was not answered is asked again, as aws-lambda-cpp does; it
  // has no side effect to repeat.
  Impl::Reply reply;
  for (int attempt = 1;; ++attempt) {
    try {
      reply = impl_->Request("invocation/next", nullptr);
      break;
    } catch (const std::runtime_error& e) {
      if (attempt == kNextAttempts)
        throw std::runtime_error(std::string(e.what()) + " (attempt " +
                                 std::to_string(attempt) + " of " +
                                 std::to_string(kNextAttempts) + ")");
    }
  }
  if (reply.status != 200)
    throw std::runtime_error("Lambda Runtime API invocation/next: HTTP " +
                             std::to_string(reply.status) + ": " +
                             reply.body.substr(0, 300));
  Invocation invocation;
  invocation.request_id =
      curl_headers::Find(reply.headers, "lambda-runtime-aws-request-id");
  if (invocation.request_id.empty())
    throw std::runtime_error(
        "Lambda Runtime API invocation/next: no Lambda-Runtime-Aws-Request-Id");
  const std::string deadline =
      curl_headers::Find(reply.headers, "lambda-runtime-deadline-ms");
  invocation.deadline_ms =
      deadline.empty() ? 0 : std::strtoll(deadline.c_str(), nullptr, 10);
  invocation.function_arn =
      curl_headers::Find(reply.headers, "lambda-runtime-invoked-function-arn");
  invocation.trace_id =
      curl_headers::Find(reply.headers, "lambda-runtime-trace-id");
  invocation.payload = std::move(reply.body);
  return invocation;
}

void RuntimeApiClient::Respond(const std::string& request_id,
                               const std::string& body) {
  impl_->Post("invocation/" + request_id + "/response", body);
}

void RuntimeApiClient::ReportError(const std::string& request_id,
                                   const runtime::InvocationError& error) {
  impl_->Post("invocation/" + request_id + "/error", ErrorDocument(error),
              error.error_type);
}

void RuntimeApiClient::ReportInitError(const runtime::InvocationError& error) {
  impl_->Post("init/error", ErrorDocument(error), error.error_type);
}

int RunLoop(const Initializer& init, const LoopOptions& options) {
  std::string endpoint = options.endpoint;
  if (endpoint.empty()) {
    const char* env = std::getenv("AWS_LAMBDA_RUNTIME_API");
    endpoint = env ? env : "";
  }
  if (endpoint.empty()) {
    std::fprintf(stderr,
                 "AWS_LAMBDA_RUNTIME_API is not set: this program is a Lambda "
                 "function (custom runtime provided.al2023); run it in Lambda "
                 "or under a Runtime API emulator\n");
    return 1;
  }
  try {
    RuntimeApiClient api(endpoint);
    InvocationHandler handler;
    try {
      handler = init();
    } catch (const std::exception& e) {
      runtime::InvocationError error =
          runtime::DescribeFailure(e, options.errors);
      std::fprintf(stderr, "initialization failed: %s: %s\n",
                   error.error_type.c_str(), error.message.c_str());
      api.ReportInitError(error);
      return 1;
    }
    for (int64_t n = 0;
         options.max_invocations == 0 || n < options.max_invocations; ++n) {
      Invocation invocation = api.Next();
      if (invocation.trace_id.empty())
        unsetenv("_X_AMZN_TRACE_ID");
      else
        setenv("_X_AMZN_TRACE_ID", invocation.trace_id.c_str(), 1);
      std::string response;
      std::optional<runtime::InvocationError> failure;
      try {
        response = handler(invocation);
      } catch (const std::exception& e) {
        failure = runtime::DescribeFailure(e, options.errors);
      } catch (...) {
        failure = runtime::InvocationError{options.errors.terminal,
                                           "unknown exception"};
      }
      if (failure)
        api.ReportError(invocation.request_id, *failure);
      else
        api.Respond(invocation.request_id, response);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

InvocationHandler WorkflowHandler(const runtime::WorkflowBinding& binding,
                                  runtime::HostServices& services,
                                  store::Table* catalog,
                                  std::function<int64_t()> now_ms) {
  return [&binding, &services, catalog,
          now_ms = std::move(now_ms)](const Invocation& invocation) {
    nlohmann::json payload =
        nlohmann::json::parse(invocation.payload, nullptr, false);
    if (payload.is_discarded())
      throw runtime::TerminalError("the invocation payload is not JSON");
    if (std::optional<nlohmann::json> input = store::SweepInput(payload)) {
      if (!catalog)
        throw runtime::TerminalError(binding.facts.workflow_name +
                                     " has no catalog to sweep");
      store::Repository repository(*catalog);
      int64_t published =
          store::PublishPerNova(binding.facts, repository, services.events,
                                services.log, *input, now_ms() / 1000);
      return nlohmann::json{{"for_each", "nova"}, {"published", published}}
          .dump();
    }
    // The stack's rule on Step Functions' status changes (reaper.h): the
    // run of an execution that was stopped, timed out or failed outside
    // its catch, finalized and its lock and leases released.
    if (std::optional<store::StatusChange> change =
            store::StatusChangeOf(payload)) {
      if (!catalog)
        throw runtime::TerminalError(binding.facts.workflow_name +
                                     " has no table to reap a run in");
      store::Repository repository(*catalog);
      std::optional<store::Reaped> reaped = store::ReapExecution(
          services.store, repository, *change, now_ms() / 1000);
      nlohmann::ordered_json answer = {{"reaped", change->execution_arn},
                                       {"status", change->status}};
      if (reaped)
        answer.update(reaped->ToJson());
      else
        answer["job_run"] = "NONE_RECORDED";
      services.log.Write(nlohmann::ordered_json{
          {"level", "INFO"},
          {"message", "execution reaped"},
          {"workflow_name", binding.facts.workflow_name},
          {"reaper", answer}}.dump());
      return answer.dump();
    }
    // A deadline already past when the invocation arrives is none Lambda
    // sends (an emulator's placeholder: @vercel/fun's is 5000, 1970): the
    // function's own timeout is then the only bound, as with none at all.
    const int64_t deadline = invocation.deadline_ms;
    std::function<int64_t()> remaining;
    if (deadline > now_ms())
      remaining = [deadline, now_ms] { return deadline - now_ms(); };
    nlohmann::json result = runtime::HandleInvocation(
        binding, services, payload, now_ms, std::move(remaining));
    return result.dump(-1, ' ', false,
                       nlohmann::json::error_handler_t::replace);
  };
}

}  // namespace novacat::lambda
