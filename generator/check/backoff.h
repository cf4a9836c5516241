// Backoff schedules and the ASL Retrier parameters that produce them.
//
// Step Functions waits IntervalSeconds * BackoffRate^n before retry n (n from
// 0), capped by MaxDelaySeconds, with JitterStrategy NONE for an exact
// schedule. A spec states the waits it wants ("2s, 10s, 30s"); the solver
// finds (IntervalSeconds, BackoffRate, MaxDelaySeconds) that reproduce them
// exactly, or reports the closest it can get.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace novacat {

struct BackoffParameters {
  int64_t interval_seconds = 1;
  double backoff_rate = 1.0;
  int64_t max_delay_seconds = 1;
};

// The waits Step Functions produces for the first `retries` retries.
std::vector<double> AslSchedule(const BackoffParameters& p, int retries);

struct BackoffSolution {
  bool exact = false;
  BackoffParameters parameters;  // exact, or the closest found
  std::vector<double> produced;  // what `parameters` yields
};

// Solves for `waits` (non-empty, seconds). The solution is exact when every
// produced wait equals the requested one.
BackoffSolution SolveBackoff(const std::vector<int64_t>& waits);

// "2s, 10s, 30s" — waits written the way specs write them.
std::string FormatWaits(const std::vector<double>& waits);
std::string FormatWaits(const std::vector<int64_t>& waits);
// A BackoffRate as printed in diagnostics and JSON: "5", "1.5".
std::string FormatRate(double rate);

}  // namespace novacat
