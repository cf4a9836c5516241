#include "check/backoff.h"

#include <gtest/gtest.h>

namespace novacat {
namespace backoff_test {
namespace {

TEST(BackoffTest, DefaultPresetIsInterval2Rate5Cap30) {
  BackoffSolution s = SolveBackoff({2, 10, 30});
  ASSERT_TRUE(s.exact);
  EXPECT_EQ(s.parameters.interval_seconds, 2);
  EXPECT_DOUBLE_EQ(s.parameters.backoff_rate, 5.0);
  EXPECT_EQ(s.parameters.max_delay_seconds, 30);
  EXPECT_EQ(s.produced, (std::vector<double>{2, 10, 30}));
}

TEST(BackoffTest, LongRunningDownloadIsInterval10Rate6Cap180) {
  BackoffSolution s = SolveBackoff({10, 60, 180});
  ASSERT_TRUE(s.exact);
  EXPECT_EQ(s.parameters.interval_seconds, 10);
  EXPECT_DOUBLE_EQ(s.parameters.backoff_rate, 6.0);
  EXPECT_EQ(s.parameters.max_delay_seconds, 180);
}

TEST(BackoffTest, PrefixOfDefaultAndSingleWaitAndConstant) {
  EXPECT_TRUE(SolveBackoff({2, 10}).exact);
  BackoffSolution one = SolveBackoff({7});
  ASSERT_TRUE(one.exact);
  EXPECT_EQ(one.produced, std::vector<double>{7});
  BackoffSolution flat = SolveBackoff({5, 5, 5});
  ASSERT_TRUE(flat.exact);
  EXPECT_DOUBLE_EQ(flat.parameters.backoff_rate, 1.0);
}

TEST(BackoffTest, FractionalRateIsExact) {
  BackoffSolution s = SolveBackoff({2, 3});
  ASSERT_TRUE(s.exact);
  EXPECT_DOUBLE_EQ(s.parameters.backoff_rate, 1.5);
  EXPECT_EQ(FormatRate(s.parameters.backoff_rate), "1.5");
}

TEST(BackoffTest, InexpressibleListReportsTheClosestParameters) {
  // 2, 4, 16 is not geometric and its last wait is not a cap of 2 * r^2.
  BackoffSolution s = SolveBackoff({2, 4, 16});
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.parameters.interval_seconds, 2);
  EXPECT_EQ(FormatWaits(s.produced), "2s, 5.66s, 16s");
  // Decreasing waits would need a rate below 1.
  EXPECT_FALSE(SolveBackoff({30, 10, 2}).exact);
}

TEST(BackoffTest, AslScheduleCapsAtMaxDelay) {
  EXPECT_EQ(AslSchedule({2, 5.0, 30}, 5),
            (std::vector<double>{2, 10, 30, 30, 30}));
  EXPECT_EQ(FormatWaits(std::vector<int64_t>{2, 10, 30}), "2s, 10s, 30s");
}

}  // namespace
}  // namespace backoff_test
}  // namespace novacat
