// ConformanceEmitter: a spec → generated/<workflow>/conformance.json, the
// workflow's conformance plan: the cases that run its generated ASL on the
// local executor (and through the runtime host) and check it against the
// spec. The plan is data; one compiled runner (runtime/testing/
// conformance.h, started by cmake/conformance_main.cc) runs every
// workflow's plan.
//
// The cases are derived from the spec, not written by hand:
// - paths: a path to every outcome and quarantine reason, and enough paths
//   that every Choice rule and default is taken at least once, with the data
//   that makes each Choice go that way (values are chosen from the literals
//   the conditions use); each asserts the exact list of states entered and
//   the outcome;
// - failures, for every Task on a success path: RETRYABLE errors until the
//   retries are exhausted (exactly 1 + MaxAttempts invocations, waits equal
//   to the spec's backoff, then the failure route), a RETRYABLE error then
//   success, a TERMINAL error (never retried), a QUARANTINE error (to the
//   quarantine route when there is one), a timeout and Lambda throttling
//   (retried on the same schedule).
#pragma once

#include <string>

#include "model/spec.h"

namespace novacat {

// The plan: {"generated_by", "workflow", "runner", "case_count", "cases"}.
std::string EmitConformancePlan(const WorkflowSpec& spec);

}  // namespace novacat
