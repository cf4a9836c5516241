// The seeds' error names (specs/shared/governance.yaml, error_classes) as
// test data: the runtime's tests give the runtime what a generated binding
// would (facts.errors); the runtime itself knows none of them.
#pragma once

#include "novacat/runtime/errors.h"

namespace novacat::runtime {

inline ErrorNames SeedErrorNames() {
  return ErrorNames{
      "RetryableError",
      "TerminalError",
      "QuarantineError",
      {"States.Timeout", "Lambda.ServiceException", "Lambda.AWSLambdaException",
       "Lambda.SdkClientException", "Lambda.ClientExecutionTimeoutException",
       "Lambda.TooManyRequestsException", "Lambda.Unknown", "Sandbox.Timedout",
       "Runtime.ExitError", "Runtime.OutOfMemory"}};
}

}  // namespace novacat::runtime
