// Worst-case durations: exact seconds and paths on the seed specs.
#include "check/limits.h"

#include <gtest/gtest.h>

#include "compiler.h"

namespace novacat {
namespace limits_test {
namespace {

std::unique_ptr<WorkflowSpec> Load(const std::string& path) {
  DiagnosticSink sink;
  auto specs = LoadAndCheck({path}, DiskFileReader(), sink);
  EXPECT_EQ(sink.FormatAll(), "");
  return specs.empty() ? nullptr : std::move(specs.front());
}

TEST(LimitsTest, InitializeNovaWorstCaseIsExact) {
  auto spec = Load("specs/initialize_nova.yaml");
  ASSERT_TRUE(spec);
  WorstCase w = ComputeWorstCase(*spec);
  EXPECT_TRUE(w.bounded);
  // Each Task: timeout x (1 + retries) + waits. The longest path runs every
  // domain Task to exhaustion, then quarantine, and fails finalizing it:
  // 10s Tasks with 3 retries cost 82s, 20s ones 122s, 60s 282s, 30s 162s,
  // NormalizeCandidateName (2 retries) 42s.
  EXPECT_EQ(w.seconds, 1304);
  EXPECT_EQ(FormatSeconds(w.seconds), "21m 44s");
  EXPECT_EQ(w.retry_seconds, 474);
  EXPECT_EQ(w.path.front(), "ValidateInput");
  EXPECT_EQ(w.path.back(), "WorkflowFailed");
  EXPECT_EQ(w.path.size(), 21u);
}

TEST(LimitsTest, MapRoundsMultiplyTheItemWorstCase) {
  auto spec = Load("specs/discover_spectra_products.yaml");
  ASSERT_TRUE(spec);
  // 16 providers, MaxConcurrency 1: 16 rounds of the item processor's worst
  // case (Query 282 + Normalize 102 + Dedupe 162 + Publish 42 + Quarantine
  // 82 after Publish fails = 670s); PublishDownloadAndValidateSpectra (2
  // retries) 42s.
  WorstCase w = ComputeWorstCase(*spec);
  EXPECT_EQ(w.seconds, 82 + 82 + 16 * 670 + 162 + 82 + 42 + 82 + 82 + 82);
}

TEST(LimitsTest, FormatSecondsDropsZeroParts) {
  EXPECT_EQ(FormatSeconds(0), "0s");
  EXPECT_EQ(FormatSeconds(960), "16m");
  EXPECT_EQ(FormatSeconds(3605), "1h 5s");
  EXPECT_EQ(FormatSeconds(3723), "1h 2m 3s");
}

}  // namespace
}  // namespace limits_test
}  // namespace novacat
