// The Lambda Runtime API for custom runtimes (provided.al2023), on libcurl:
// what turns a workflow's binary into a Lambda function. The protocol:
//
//   GET  /2018-06-01/runtime/invocation/next          (blocks; no timeout)
//   POST /2018-06-01/runtime/invocation/{id}/response  the result document
//   POST /2018-06-01/runtime/invocation/{id}/error     {errorType,
//   errorMessage} POST /2018-06-01/runtime/init/error initialization failed
//
// on the host:port in AWS_LAMBDA_RUNTIME_API. Step Functions'
// lambda:invoke turns a reported errorType into the error name its Retry
// and Catch match, so a step's RetryableError, TerminalError or
// QuarantineError is routed in AWS exactly as under the local executor.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "novacat/runtime/host.h"
#include "novacat/store/table.h"

namespace novacat::lambda {

// One invocation, as `next` hands it over.
struct Invocation {
  std::string request_id;    // Lambda-Runtime-Aws-Request-Id
  int64_t deadline_ms = 0;   // Lambda-Runtime-Deadline-Ms (epoch ms)
  std::string function_arn;  // Lambda-Runtime-Invoked-Function-Arn
  std::string trace_id;      // Lambda-Runtime-Trace-Id (may be empty)
  std::string payload;       // the event, as sent
};

// A client of the Runtime API at `endpoint` (host:port). Failures to talk
// to it throw std::runtime_error: a runtime that cannot reach its API can
// only exit (Lambda then starts a new one).
class RuntimeApiClient {
 public:
  explicit RuntimeApiClient(std::string endpoint);
  ~RuntimeApiClient();
  RuntimeApiClient(const RuntimeApiClient&) = delete;
  RuntimeApiClient& operator=(const RuntimeApiClient&) = delete;

  // How many times Next asks before it gives up on an unreachable API.
  static constexpr int kNextAttempts = 4;

  // Waits for the next invocation. A request that gets no HTTP answer
  // (refused, reset, timed out) is made again, up to kNextAttempts times.
  Invocation Next();
  void Respond(const std::string& request_id, const std::string& body);
  void ReportError(const std::string& request_id,
                   const runtime::InvocationError& error);
  void ReportInitError(const runtime::InvocationError& error);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Handles one invocation: returns the response body, or throws (the
// exception is reported through runtime::DescribeFailure).
using InvocationHandler = std::function<std::string(const Invocation&)>;

// Made once per process (store client, configuration: initialization is
// not paid per invocation). Throwing reports an init error.
using Initializer = std::function<InvocationHandler()>;

struct LoopOptions {
  // Empty: AWS_LAMBDA_RUNTIME_API.
  std::string endpoint;
  // Stop after this many invocations (tests); 0: never.
  int64_t max_invocations = 0;
  // How failures are named to the Runtime API (the workflow's governance
  // names: its binding's facts.errors).
  runtime::ErrorNames errors;
};

// The custom runtime's main loop: initializes once, then answers
// invocations until the process is stopped. Each invocation sets
// _X_AMZN_TRACE_ID to its trace id before the handler runs. Returns the
// process exit status: 0 after max_invocations, 1 when initialization
// failed (reported on init/error) or the Runtime API is unreachable or
// unset (reported on stderr).
int RunLoop(const Initializer& init, const LoopOptions& options = {});

// Milliseconds since the epoch on the system clock: Lambda's deadlines
// are on it.
int64_t WallMs();

// A workflow's Lambda handler: the host over `binding` and `services`, at
// the wall clock `now_ms` (WallMs; a test gives its own). The payload is the
// one the generated ASL sends
// ({workflow, state_name, execution_arn, retry_count, state}); the
// response is the new state document. The step sees the time left before
// the invocation's deadline (StepContext::RemainingMs).
// A `for_each: nova` schedule's payload ({"for_each": "nova", "input"})
// publishes the workflow's input event once per nova of `catalog`
// (store/for_each_nova.h) and answers {"for_each": "nova", "published": n};
// without a catalog it is a TerminalError.
InvocationHandler WorkflowHandler(const runtime::WorkflowBinding& binding,
                                  runtime::HostServices& services,
                                  store::Table* catalog = nullptr,
                                  std::function<int64_t()> now_ms = WallMs);

}  // namespace novacat::lambda
