// Tasks on a deployed Lambda function: the local executor's TaskHandler
// that does what Step Functions' lambda:invoke does with a Task's Payload.
#pragma once

#include <string>

#include "novacat/aws/lambda_client.h"
#include "novacat/runtime/asl/executor.h"

namespace novacat::workflows {

// Each lambda:invoke Task's Payload goes to `function` (name or ARN); its
// result is the Task's result. Errors are named as Step Functions names
// them: a failed function by its errorType (RetryableError, ...), a
// failed Invoke "Lambda.<X-Amzn-ErrorType>" (so
// Lambda.TooManyRequestsException is retried by the generated Retry), a
// connection failure Lambda.SdkClientException, an answer that is not a
// JSON error document Lambda.Unknown. `lambda` must outlive the handler.
runtime::asl::TaskHandler InvokeTaskHandler(aws::LambdaClient& lambda,
                                            std::string function);

}  // namespace novacat::workflows
