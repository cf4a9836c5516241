#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/store.h"

namespace novacat::runtime {
namespace {

constexpr const char* kNova = "59d47572-ecfc-4738-a94e-c2d2b9936849";
constexpr const char* kOtherNova = "78833635-915b-41b4-930d-84f91bf14b09";
constexpr const char* kRunA = "2245bd5f-bb68-4f68-a2eb-92502318fa4e";
constexpr const char* kRunB = "91e180b3-64f4-4100-a29e-835c0e448010";
constexpr const char* kRunC = "16e6678d-39fe-4f00-8e61-bd8674b6331b";
constexpr const char* kKey = "RefreshReferences:n:1:2026-11-25T00:00:00Z";

JobRun Started(const char* id, std::optional<std::string> nova) {
  JobRun run;
  run.job_run_id = id;
  run.workflow = "refresh_references";
  run.nova_id = std::move(nova);
  run.correlation_id = "7382d1e7-7ae6-459a-8561-d8057935c08e";
  run.execution_arn = "arn:e";
  run.started_at = "2026-11-25T13:45:00Z";
  return run;
}

Attempt MakeAttempt(const char* run, std::string state, int number,
                    std::optional<int64_t> item = std::nullopt) {
  Attempt a;
  a.job_run_id = run;
  a.nova_id = kNova;
  a.state_name = std::move(state);
  a.map_item_index = item;
  a.attempt_number = number;
  a.correlation_id = "7382d1e7-7ae6-459a-8561-d8057935c08e";
  a.started_at = a.ended_at = "2026-11-25T13:45:00Z";
  return a;
}

JobRunUpdate Succeeded(const char* id, std::optional<std::string> nova,
                       std::string outcome = "REFRESHED") {
  JobRunUpdate u;
  u.job_run_id = id;
  u.nova_id = std::move(nova);
  u.status = JobRunStatus::kSucceeded;
  u.outcome = std::move(outcome);
  u.ended_at = "2026-11-25T13:50:00Z";
  return u;
}

TEST(MemoryStoreTest, JobRunsPerNovaInSkOrder) {
  MemoryStore store;
  store.PutJobRun(Started(kRunB, std::string(kNova)));
  store.PutJobRun(Started(kRunA, std::string(kNova)));
  store.PutJobRun(Started(kRunC, std::string(kOtherNova)));
  store.PutJobRun(Started(kRunC, std::nullopt));
  std::vector<JobRun> runs = store.ListJobRuns(kNova);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].job_run_id, kRunA);
  EXPECT_EQ(runs[1].job_run_id, kRunB);
  EXPECT_EQ(store.ListJobRuns(kOtherNova).size(), 1u);
  EXPECT_EQ(store.GetJobRun(kRunC, std::nullopt), Started(kRunC, std::nullopt));
  EXPECT_EQ(store.GetJobRun(kRunA, std::nullopt), std::nullopt);
  EXPECT_EQ(store.GetJobRun(kRunA, std::string(kOtherNova)), std::nullopt);
}

TEST(MemoryStoreTest, UpdateJobRunIsConditional) {
  MemoryStore store;
  store.PutJobRun(Started(kRunA, std::string(kNova)));
  EXPECT_EQ(store.UpdateJobRun(Succeeded(kRunA, std::string(kNova))),
            UpdateResult::kUpdated);
  JobRun expected = Started(kRunA, std::string(kNova));
  expected.status = JobRunStatus::kSucceeded;
  expected.outcome = "REFRESHED";
  expected.ended_at = "2026-11-25T13:50:00Z";
  EXPECT_EQ(store.GetJobRun(kRunA, std::string(kNova)), expected);

  // A retried Finalize (later clock) changes nothing.
  JobRunUpdate retry = Succeeded(kRunA, std::string(kNova));
  retry.ended_at = "2026-11-25T13:50:02Z";
  EXPECT_EQ(store.UpdateJobRun(retry), UpdateResult::kUnchanged);
  EXPECT_EQ(store.GetJobRun(kRunA, std::string(kNova)), expected);

  JobRunUpdate failed = Succeeded(kRunA, std::string(kNova));
  failed.status = JobRunStatus::kFailed;
  failed.outcome.reset();
  failed.error_classification = "TERMINAL";
  EXPECT_EQ(store.UpdateJobRun(failed), UpdateResult::kConflict);
  EXPECT_EQ(store.UpdateJobRun(Succeeded(kRunA, std::string(kNova), "OTHER")),
            UpdateResult::kConflict);
  EXPECT_EQ(store.GetJobRun(kRunA, std::string(kNova)), expected);

  EXPECT_EQ(store.UpdateJobRun(Succeeded(kRunB, std::string(kNova))),
            UpdateResult::kNotFound);
  EXPECT_EQ(store.UpdateJobRun(Succeeded(kRunA, std::nullopt)),
            UpdateResult::kNotFound);
  JobRunUpdate to_started = Succeeded(kRunA, std::string(kNova));
  to_started.status = JobRunStatus::kStarted;
  EXPECT_THROW(store.UpdateJobRun(to_started), TerminalError);
}

TEST(MemoryStoreTest, AttemptsOfOneRunInSkOrder) {
  MemoryStore store;
  store.PutAttempt(MakeAttempt(kRunA, "QueryProviderForProducts", 2, 1));
  store.PutAttempt(MakeAttempt(kRunA, "QueryProviderForProducts", 1, 1));
  store.PutAttempt(MakeAttempt(kRunA, "QueryProviderForProducts", 1, 0));
  store.PutAttempt(MakeAttempt(kRunA, "BeginJobRun", 1));
  store.PutAttempt(MakeAttempt(kRunB, "BeginJobRun", 1));
  // Re-recording an invocation rewrites it.
  Attempt rewritten = MakeAttempt(kRunA, "BeginJobRun", 1);
  rewritten.ended_at = "2026-11-25T13:45:01Z";
  store.PutAttempt(rewritten);
  std::vector<Attempt> attempts = store.ListAttempts(kRunA, std::string(kNova));
  ASSERT_EQ(attempts.size(), 4u);
  EXPECT_EQ(attempts[0], rewritten);
  EXPECT_EQ(attempts[1], MakeAttempt(kRunA, "QueryProviderForProducts", 1, 0));
  EXPECT_EQ(attempts[2], MakeAttempt(kRunA, "QueryProviderForProducts", 1, 1));
  EXPECT_EQ(attempts[3], MakeAttempt(kRunA, "QueryProviderForProducts", 2, 1));
  EXPECT_TRUE(store.ListAttempts(kRunA, std::nullopt).empty());
  EXPECT_EQ(store.ListAttempts(kRunB, std::string(kNova)).size(), 1u);
}

TEST(MemoryStoreTest, LockLifecycle) {
  MemoryStore store;
  using S = LockResult::Status;
  LockResult r = store.AcquireLock(kKey, kRunA, 1000, 3600);
  EXPECT_EQ(r.status, S::kAcquired);
  EXPECT_EQ(r.owner_job_run_id, kRunA);
  EXPECT_EQ(
      store.DumpItems(),
      std::vector<std::string>{
          R"({"PK":"LOCK#RefreshReferences:n:1:2026-11-25T00:00:00Z",)"
          R"("SK":"LOCK","entity":"Lock",)"
          R"("idempotency_key":"RefreshReferences:n:1:2026-11-25T00:00:00Z",)"
          R"("owner_job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("state":"HELD","expires_at":4600})"});

  r = store.AcquireLock(kKey, kRunB, 1001, 3600);
  EXPECT_EQ(r.status, S::kHeldByOther);
  EXPECT_EQ(r.owner_job_run_id, kRunA);
  EXPECT_EQ(r.outcome, std::nullopt);

  // The owner's retry renews its lease.
  EXPECT_EQ(store.AcquireLock(kKey, kRunA, 2000, 3600).status, S::kAcquired);
  EXPECT_EQ(store.AcquireLock(kKey, kRunB, 5599, 3600).status, S::kHeldByOther);

  EXPECT_FALSE(store.CompleteLock(kKey, kRunB, "REFRESHED"));
  EXPECT_TRUE(store.CompleteLock(kKey, kRunA, "REFRESHED"));
  EXPECT_TRUE(store.CompleteLock(kKey, kRunA, "REFRESHED"));  // a retry
  EXPECT_FALSE(store.CompleteLock(kKey, kRunA, "OTHER"));
  EXPECT_FALSE(store.ReleaseLock(kKey, kRunA));  // DONE stays DONE
  EXPECT_EQ(
      store.DumpItems(),
      std::vector<std::string>{
          R"({"PK":"LOCK#RefreshReferences:n:1:2026-11-25T00:00:00Z",)"
          R"("SK":"LOCK","entity":"Lock",)"
          R"("idempotency_key":"RefreshReferences:n:1:2026-11-25T00:00:00Z",)"
          R"("owner_job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("state":"DONE","outcome":"REFRESHED"})"});

  // DONE never expires; even the completer sees it done.
  for (const char* run : {kRunB, kRunA}) {
    r = store.AcquireLock(kKey, run, 999999, 3600);
    EXPECT_EQ(r.status, S::kAlreadyDone);
    EXPECT_EQ(r.owner_job_run_id, kRunA);
    EXPECT_EQ(r.outcome, "REFRESHED");
  }
}

TEST(MemoryStoreTest, ExpiredLeaseIsTakenOverAndTheOldOwnerLosesIt) {
  MemoryStore store;
  using S = LockResult::Status;
  EXPECT_EQ(store.AcquireLock(kKey, kRunA, 1000, 60).status, S::kAcquired);
  EXPECT_EQ(store.AcquireLock(kKey, kRunB, 1059, 60).status, S::kHeldByOther);
  LockResult r = store.AcquireLock(kKey, kRunB, 1060, 60);
  EXPECT_EQ(r.status, S::kAcquired);
  EXPECT_EQ(r.owner_job_run_id, kRunB);
  EXPECT_FALSE(store.CompleteLock(kKey, kRunA, "REFRESHED"));
  EXPECT_FALSE(store.ReleaseLock(kKey, kRunA));
  EXPECT_EQ(store.AcquireLock(kKey, kRunA, 1061, 60).status, S::kHeldByOther);
}

TEST(MemoryStoreTest, ReleasedLockCanBeAcquiredAgain) {
  MemoryStore store;
  using S = LockResult::Status;
  EXPECT_FALSE(store.ReleaseLock(kKey, kRunA));
  EXPECT_FALSE(store.CompleteLock(kKey, kRunA, "X"));
  store.AcquireLock(kKey, kRunA, 1000, 60);
  EXPECT_FALSE(store.ReleaseLock(kKey, kRunB));
  EXPECT_TRUE(store.ReleaseLock(kKey, kRunA));
  EXPECT_TRUE(store.DumpItems().empty());
  EXPECT_EQ(store.AcquireLock(kKey, kRunB, 1001, 60).status, S::kAcquired);
}

TEST(MemoryStoreTest, ConcurrentAcquireHasOneWinner) {
  MemoryStore store;
  const char* runs[] = {kRunA, kRunB, kRunC, kNova, kOtherNova};
  std::atomic<int> acquired{0};
  std::vector<std::thread> threads;
  for (const char* run : runs)
    threads.emplace_back([&, run] {
      for (int i = 0; i < 200; ++i) {
        if (store.AcquireLock(kKey, run, 1000, 3600).status ==
                LockResult::Status::kAcquired &&
            i == 0)
          ++acquired;
        store.PutAttempt(MakeAttempt(kRunA, run, i + 1));
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(acquired.load(), 1);
  EXPECT_EQ(store.ListAttempts(kRunA, std::string(kNova)).size(), 1000u);
}

TEST(MemoryStoreTest, LockStatusNames) {
  EXPECT_STREQ(LockStatusName(LockResult::Status::kAcquired), "ACQUIRED");
  EXPECT_STREQ(LockStatusName(LockResult::Status::kHeldByOther),
               "HELD_BY_OTHER");
  EXPECT_STREQ(LockStatusName(LockResult::Status::kAlreadyDone),
               "ALREADY_DONE");
  EXPECT_EQ(LockKey("K"), (ItemKey{"LOCK#K", "LOCK"}));
}

}  // namespace
}  // namespace novacat::runtime
