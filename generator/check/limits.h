// Execution limits, proven before deploy: the worst-case duration of a
// workflow (and the path that takes it), its retry share and the worst-case
// size of its state document.
//
// Costs: a Task takes its timeout on every attempt (1 + MaxAttempts) plus
// every retry wait; a Map takes its item processor's worst case once per
// round of MaxConcurrency items (ceil(max_items / MaxConcurrency)); Pass and
// Choice take nothing. Catch edges count: the worst case of a Task may be to
// exhaust its retries and take its failure path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/spec.h"
#include "support/diagnostics.h"

namespace novacat {

struct WorstCase {
  bool bounded = true;            // false when a cycle makes it unbounded
  int64_t seconds = 0;            // the longest path's cost
  int64_t retry_seconds = 0;      // of which retry waits
  std::vector<std::string> path;  // state names, start to end
};

// The worst-case duration of `spec` (its top-level graph).
WorstCase ComputeWorstCase(const WorkflowSpec& spec);

// "1h 2m 3s", "45s".
std::string FormatSeconds(int64_t seconds);

// The limit rules (ids map-max-items, lambda-timeout, express-duration,
// retry-budget, payload-size); see docs/spec-format.md.
void CheckLimits(const WorkflowSpec& spec, DiagnosticSink& sink);

}  // namespace novacat
