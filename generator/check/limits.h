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

#include <cstddef>
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

// How long an idempotency lock keeps duplicates out when its run never
// releases it: the workflow's worst-case duration, which no live run
// outlasts, or Step Functions' longest execution (one year) when a cycle
// leaves it unbounded. A run that died sooner is reaped, not waited for
// (docs/manual.md, Runs that die).
int64_t LockLeaseSeconds(const WorkflowSpec& spec);
inline constexpr int64_t kMaxExecutionSeconds = 365 * 24 * 3600;

// "1h 2m 3s", "45s".
std::string FormatSeconds(int64_t seconds);

// The limit rules (ids map-max-items, lambda-timeout, express-duration,
// retry-budget, payload-size); see docs/spec-format.md.
void CheckLimits(const WorkflowSpec& spec, DiagnosticSink& sink);

// The deploy quotas only the generated text shows. CheckDefinitionSize
// (rule definition-size): `spec`'s definition, `bytes` long, over Step
// Functions' 1 MiB (a hard quota: CreateStateMachine refuses it), reported
// at the spec's `workflow:` key. CheckTemplateSize (template-size): the
// stack template at `path`, `bytes` long, over CloudFormation's 1,000,000
// bytes for a template in S3 (deploy.sh uploads every template there: over
// 51,200 bytes it must), reported on the template.
void CheckDefinitionSize(const WorkflowSpec& spec, size_t bytes,
                         DiagnosticSink& sink);
void CheckTemplateSize(const std::string& path, size_t bytes,
                       DiagnosticSink& sink);

// The quotas they enforce, in bytes.
inline constexpr size_t kDefinitionQuotaBytes = 1024 * 1024;
inline constexpr size_t kTemplateQuotaBytes = 1000 * 1000;

}  // namespace novacat
