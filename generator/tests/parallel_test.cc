// JobQueue: every job runs once, the failure reported is the earliest
// added whatever the scheduling, `first` jumps the queue, jobs not started
// are dropped with the queue, and a closed queue still runs every job.
#include "support/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace novacat {
namespace parallel_test {
namespace {

TEST(JobQueueTest, RunsEveryJobOnceOnAnyNumberOfHelpers) {
  for (unsigned helpers : {0u, 1u, 3u}) {
    std::vector<std::atomic<int>> runs(500);
    JobQueue jobs(helpers);
    for (size_t i = 0; i < runs.size(); ++i)
      jobs.Add([&runs, i] { runs[i].fetch_add(1); });
    jobs.Wait();
    for (size_t i = 0; i < runs.size(); ++i)
      ASSERT_EQ(runs[i].load(), 1) << "job " << i << ", helpers " << helpers;
    // The queue takes more work after a wait.
    std::atomic<int> later{0};
    jobs.Add([&later] { later = 7; });
    jobs.Wait();
    EXPECT_EQ(later.load(), 7);
  }
}

TEST(JobQueueTest, RethrowsTheEarliestAddedFailure) {
  for (unsigned helpers : {0u, 1u, 3u}) {
    JobQueue jobs(helpers);
    std::atomic<int> ran{0};
    for (int i = 0; i < 40; ++i) {
      jobs.Add([i, &ran] {
        ran.fetch_add(1);
        if (i == 9 || i == 30) throw std::runtime_error(std::to_string(i));
      });
    }
    try {
      jobs.Wait();
      FAIL() << "no exception, helpers " << helpers;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "9") << "helpers " << helpers;
    }
    EXPECT_EQ(ran.load(), 40);  // a failure stops no other job
    jobs.Add([] {});
    EXPECT_NO_THROW(jobs.Wait());  // reported once
  }
}

TEST(JobQueueTest, FirstGoesAheadOfTheQueuedJobs) {
  JobQueue jobs(0);  // the caller runs them in queue order
  std::vector<std::string> order;
  jobs.Add([&] { order.push_back("a"); });
  jobs.Add([&] { order.push_back("b"); });
  jobs.Add([&] { order.push_back("stack"); }, /*first=*/true);
  jobs.Wait();
  EXPECT_EQ(order, (std::vector<std::string>{"stack", "a", "b"}));
}

TEST(JobQueueTest, AClosedQueueRunsEveryJobQueuedAndAddedLater) {
  for (unsigned helpers : {0u, 1u, 3u}) {
    std::vector<std::atomic<int>> runs(300);
    JobQueue jobs(helpers);
    for (size_t i = 0; i < 200; ++i)
      jobs.Add([&runs, i] { runs[i].fetch_add(1); });
    jobs.Close();  // the helpers drain the queue, then end
    for (size_t i = 200; i < runs.size(); ++i)
      jobs.Add([&runs, i] { runs[i].fetch_add(1); });
    jobs.Wait();
    for (size_t i = 0; i < runs.size(); ++i)
      ASSERT_EQ(runs[i].load(), 1) << "job " << i << ", helpers " << helpers;
    std::atomic<int> later{0};  // after the helpers ended: run in Wait
    jobs.Add([&later] { later.fetch_add(1); });
    jobs.Wait();
    EXPECT_EQ(later.load(), 1) << "helpers " << helpers;
  }
}

TEST(JobQueueTest, DropsTheJobsNotStarted) {
  std::atomic<int> ran{0};
  {
    JobQueue jobs(0);
    jobs.Add([&ran] { ran.fetch_add(1); });
    jobs.Add([&ran] { ran.fetch_add(1); });
  }
  EXPECT_EQ(ran.load(), 0);
}

}  // namespace
}  // namespace parallel_test
}  // namespace novacat
