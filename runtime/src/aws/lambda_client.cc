#include "novacat/aws/lambda_client.h"

#include <cctype>
#include <memory>

namespace novacat::aws {

namespace {

// A function name or ARN as one URL path segment (':' is kept, as AWS's
// SDKs send it).
std::string PathSegment(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == ':' ||
        c == '~') {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace

JsonService LambdaService() {
  // Invoke is REST-JSON: no target, no JSON version; the retryable errors
  // are the caller's to decide (Step Functions retries by name).
  return {"Lambda", "lambda", "AWS_ENDPOINT_URL_LAMBDA", "", "", {}};
}

LambdaClient::LambdaClient(ClientOptions options) {
  // An invocation may run up to Lambda's 15 minutes.
  if (options.request_timeout_ms == ClientOptions{}.request_timeout_ms)
    options.request_timeout_ms = 15 * 60 * 1000 + 10000;
  http_ = std::make_unique<SignedHttp>(LambdaService(), std::move(options));
}

LambdaClient::~LambdaClient() = default;

InvokeAnswer LambdaClient::Invoke(const std::string& function,
                                  const std::string& payload) {
  SignedHttp::Reply reply = http_->Post(
      "/2015-03-31/functions/" + PathSegment(function) + "/invocations",
      {"Content-Type: application/json",
       "X-Amz-Invocation-Type: RequestResponse"},
      payload, "Invoke " + function);
  InvokeAnswer answer;
  answer.status = reply.status;
  answer.payload = std::move(reply.body);
  if (reply.status >= 200 && reply.status < 300) {
    answer.function_error = reply.Header("x-amz-function-error");
  } else {
    answer.service_error = reply.Header("x-amzn-errortype");
    // "TooManyRequestsException:http://internal.amazon.com/..." in some
    // answers: the type is what precedes the colon.
    answer.service_error =
        answer.service_error.substr(0, answer.service_error.find(':'));
    if (answer.service_error.empty())
      answer.service_error =
          reply.status == 429 ? "TooManyRequestsException" : "ServiceException";
  }
  return answer;
}

}  // namespace novacat::aws
