#include "check/backoff.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace novacat {

namespace {

bool SameWait(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

double Error(const std::vector<double>& produced,
             const std::vector<int64_t>& waits) {
  double sum = 0;
  for (size_t i = 0; i < waits.size(); ++i)
    sum += std::fabs(produced[i] - static_cast<double>(waits[i]));
  return sum;
}

// Rounds a rate to 6 significant decimals so that the emitted JSON is short
// and the same value is used to check and to emit.
double TidyRate(double rate) { return std::round(rate * 1e6) / 1e6; }

}  // namespace

std::vector<double> AslSchedule(const BackoffParameters& p, int retries) {
  std::vector<double> out;
  double wait = static_cast<double>(p.interval_seconds);
  for (int n = 0; n < retries; ++n) {
    out.push_back(std::min(wait, static_cast<double>(p.max_delay_seconds)));
    wait *= p.backoff_rate;
  }
  return out;
}

BackoffSolution SolveBackoff(const std::vector<int64_t>& waits) {
  BackoffSolution best;
  if (waits.empty()) return best;
  const int count = static_cast<int>(waits.size());
  const int64_t first = waits.front();
  const int64_t largest = *std::max_element(waits.begin(), waits.end());

  // Candidate rates: 1, and every rate that hits some wait k exactly from
  // the first. The exact solution, when one exists, is among them: the rate
  // is fixed by the second wait, the cap is the largest wait.
  std::vector<double> rates = {1.0};
  for (int k = 1; k < count; ++k) {
    if (waits[k] > first) {
      rates.push_back(TidyRate(
          std::pow(static_cast<double>(waits[k]) / static_cast<double>(first),
                   1.0 / k)));
    }
  }
  bool have = false;
  double best_error = 0;
  for (double rate : rates) {
    for (int64_t cap : {largest, std::max<int64_t>(first, waits.back())}) {
      BackoffParameters p{first, rate, cap};
      std::vector<double> produced = AslSchedule(p, count);
      double error = Error(produced, waits);
      if (!have || error < best_error - 1e-12) {
        have = true;
        best_error = error;
        best.parameters = p;
        best.produced = produced;
      }
    }
  }
  best.exact = true;
  for (int i = 0; i < count; ++i)
    best.exact =
        best.exact && SameWait(best.produced[i], static_cast<double>(waits[i]));
  return best;
}

std::string FormatRate(double rate) {
  if (rate == std::floor(rate))
    return fmt::format("{}", static_cast<int64_t>(rate));
  return fmt::format("{}", rate);
}

std::string FormatWaits(const std::vector<double>& waits) {
  std::string out;
  for (double w : waits) {
    if (!out.empty()) out += ", ";
    if (w == std::floor(w)) {
      out += fmt::format("{}s", static_cast<int64_t>(w));
    } else {
      out += fmt::format("{:.3g}s", w);
    }
  }
  return out;
}

std::string FormatWaits(const std::vector<int64_t>& waits) {
  std::vector<double> d(waits.begin(), waits.end());
  return FormatWaits(d);
}

}  // namespace novacat
