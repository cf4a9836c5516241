// The local executor's side of the host: a workflow's Lambda as an
// asl::TaskHandler, so that the generated definition runs on this machine
// with its Tasks answered in process (novacat run, conformance tests).
#pragma once

#include <chrono>
#include <functional>

#include "novacat/runtime/asl/executor.h"
#include "novacat/runtime/host.h"

namespace novacat::runtime {

// The real time that moves an invocation's clock on: steady_clock's,
// replaced in tests by one they move themselves.
using ElapsedClock = std::function<std::chrono::steady_clock::time_point()>;

// lambda:invoke Tasks go to HandleInvocation with the `Payload` the
// definition built, at the executor's virtual time moved on by the real
// time (`clock`) the invocation has taken; a failure becomes the AslError
// named as Lambda reports it (DescribeFailure). `binding`, `services` and
// `clock` must outlive the handler.
asl::TaskHandler MakeTaskHandler(
    const WorkflowBinding& binding, HostServices& services,
    ElapsedClock clock = [] { return std::chrono::steady_clock::now(); });

}  // namespace novacat::runtime
