// The local executor's side of the host: a workflow's Lambda as an
// asl::TaskHandler, so that the generated definition runs on this machine
// with its Tasks answered in process (novacat run, conformance tests).
#pragma once

#include "novacat/runtime/asl/executor.h"
#include "novacat/runtime/host.h"

namespace novacat::runtime {

// lambda:invoke Tasks go to HandleInvocation with the `Payload` the
// definition built, at the executor's virtual time; a failure becomes the
// AslError named as Lambda reports it (DescribeFailure).
asl::TaskHandler MakeTaskHandler(const WorkflowBinding& binding,
                                 HostServices& services);

}  // namespace novacat::runtime
