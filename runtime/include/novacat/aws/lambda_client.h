// LambdaClient: Lambda's Invoke API (REST-JSON, SigV4 service "lambda")
// over libcurl: what Step Functions' arn:aws:states:::lambda:invoke does
// with a Task's Payload, and what `novacat run --function` uses to drive a
// deployed function from this machine.
//
//   POST /2015-03-31/functions/{FunctionName}/invocations   body: the event
//
// A function that failed answers 200 with X-Amz-Function-Error and its
// {"errorType", "errorMessage"}; a failed Invoke (throttled, no such
// function, the service failing) answers 4xx/5xx with X-Amzn-ErrorType.
#pragma once

#include <memory>
#include <string>

#include "novacat/aws/json_client.h"

namespace novacat::aws {

struct InvokeAnswer {
  long status = 0;
  // X-Amzn-ErrorType of an Invoke the service refused or failed
  // (TooManyRequestsException, ResourceNotFoundException, ...); empty when
  // the function ran.
  std::string service_error;
  // X-Amz-Function-Error ("Unhandled") when the function failed; empty when
  // it succeeded.
  std::string function_error;
  // The function's result or error document, or the service's message.
  std::string payload;
};

// Lambda's description for SignedHttp (endpoint AWS_ENDPOINT_URL_LAMBDA).
JsonService LambdaService();

class LambdaClient {
 public:
  // Endpoint, region and credentials as ClientOptions (the environment
  // fills what is empty). Throws runtime::TerminalError without
  // credentials.
  explicit LambdaClient(ClientOptions options = {});
  ~LambdaClient();
  LambdaClient(const LambdaClient&) = delete;
  LambdaClient& operator=(const LambdaClient&) = delete;

  // Invokes `function` (a name or an ARN) synchronously with `payload`.
  // Connection failures and timeouts throw runtime::RetryableError; every
  // answer, failures included, comes back as an InvokeAnswer.
  InvokeAnswer Invoke(const std::string& function, const std::string& payload);

 private:
  std::unique_ptr<SignedHttp> http_;
};

}  // namespace novacat::aws
