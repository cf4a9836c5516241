// The RecordStore contract (runtime/store.h) on TableRecordStore over every
// test backend: the one implementation of the lock and JobRun rules. Plus
// what only a table store has to show: the items are exactly
// runtime::ToItem()'s, and racing clients (not threads sharing a mutex) get
// exactly one winner.
#include "novacat/store/table_record_store.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/store.h"
#include "novacat/store/reaper.h"
#include "novacat/store/repository.h"
#include "race.h"
#include "store_test_util.h"

namespace novacat::store {
namespace table_record_store_test {
namespace {

using runtime::Attempt;
using runtime::AttemptStatus;
using runtime::JobRun;
using runtime::JobRunStatus;
using runtime::JobRunUpdate;
using runtime::LockResult;
using runtime::RecordStore;
using runtime::UpdateResult;
using testing::Backend;

using namespace testing::ids;

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

Item LockItem(const char* owner, const char* state,
              std::optional<int64_t> expires_at,
              std::optional<std::string> outcome) {
  Item item{{"PK", std::string("LOCK#") + kKey},
            {"SK", "LOCK"},
            {"entity", "Lock"},
            {"idempotency_key", kKey},
            {"owner_job_run_id", owner},
            {"state", state}};
  if (expires_at) item["expires_at"] = *expires_at;
  if (outcome) item["outcome"] = *outcome;
  return item;
}

// A store under test: TableRecordStore on a backend's table.
struct StoreParam {
  std::string name;
  Backend backend;
};

// For gtest's test names and messages.
void PrintTo(const StoreParam& param, std::ostream* os) { *os << param.name; }

std::vector<StoreParam> StoreParams() {
  std::vector<StoreParam> params;
  for (const Backend& backend : testing::TestBackends())
    params.push_back({"table_" + backend.name, backend});
  return params;
}

class RecordStoreTest : public ::testing::TestWithParam<StoreParam> {
 protected:
  void SetUp() override {
    table_ = GetParam().backend.make();
    store_ = std::make_unique<TableRecordStore>(*table_);
  }

  RecordStore& store() { return *store_; }

  // The items of kKey's lock partition, as stored.
  std::vector<Item> LockItems() {
    std::string pk = std::string("LOCK#") + kKey;
    QueryRequest request;
    request.partition_key = pk;
    return table_->QueryAll(request);
  }

  // Runs body(i, store) on n racing threads, each with a store of the same
  // data (its own client where the backend needs one).
  template <class Body>
  void RaceStores(int n, Body body) {
    testing::Race(GetParam().backend, *table_, n, [&](int i, Table& client) {
      TableRecordStore store(client);
      body(i, store);
    });
  }

  Table& table() { return *table_; }

 private:
  std::unique_ptr<Table> table_;
  std::unique_ptr<RecordStore> store_;
};

TEST_P(RecordStoreTest, JobRunsPerNovaInSkOrder) {
  store().PutJobRun(Started(kRunB, std::string(kNova)));
  store().PutJobRun(Started(kRunA, std::string(kNova)));
  store().PutJobRun(Started(kRunC, std::string(kNova2)));
  store().PutJobRun(Started(kRunC, std::nullopt));
  std::vector<JobRun> runs = store().ListJobRuns(kNova);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0], Started(kRunA, std::string(kNova)));
  EXPECT_EQ(runs[1], Started(kRunB, std::string(kNova)));
  EXPECT_EQ(store().ListJobRuns(kNova2),
            std::vector<JobRun>{Started(kRunC, std::string(kNova2))});
  EXPECT_EQ(store().GetJobRun(kRunC, std::nullopt),
            Started(kRunC, std::nullopt));
  EXPECT_EQ(store().GetJobRun(kRunA, std::nullopt), std::nullopt);
  EXPECT_EQ(store().GetJobRun(kRunA, std::string(kNova2)), std::nullopt);
}

TEST_P(RecordStoreTest, UpdateJobRunIsConditional) {
  store().PutJobRun(Started(kRunA, std::string(kNova)));
  EXPECT_EQ(store().UpdateJobRun(Succeeded(kRunA, std::string(kNova))),
            UpdateResult::kUpdated);
  JobRun expected = Started(kRunA, std::string(kNova));
  expected.status = JobRunStatus::kSucceeded;
  expected.outcome = "REFRESHED";
  expected.ended_at = "2026-11-25T13:50:00Z";
  EXPECT_EQ(store().GetJobRun(kRunA, std::string(kNova)), expected);

  // A retried Finalize (later clock) changes nothing.
  JobRunUpdate retry = Succeeded(kRunA, std::string(kNova));
  retry.ended_at = "2026-11-25T13:50:02Z";
  EXPECT_EQ(store().UpdateJobRun(retry), UpdateResult::kUnchanged);
  EXPECT_EQ(store().GetJobRun(kRunA, std::string(kNova)), expected);

  JobRunUpdate failed = Succeeded(kRunA, std::string(kNova));
  failed.status = JobRunStatus::kFailed;
  failed.outcome.reset();
  failed.error_classification = "TERMINAL";
  EXPECT_EQ(store().UpdateJobRun(failed), UpdateResult::kConflict);
  EXPECT_EQ(store().UpdateJobRun(Succeeded(kRunA, std::string(kNova), "OTHER")),
            UpdateResult::kConflict);
  EXPECT_EQ(store().GetJobRun(kRunA, std::string(kNova)), expected);

  EXPECT_EQ(store().UpdateJobRun(Succeeded(kRunB, std::string(kNova))),
            UpdateResult::kNotFound);
  EXPECT_EQ(store().UpdateJobRun(Succeeded(kRunA, std::nullopt)),
            UpdateResult::kNotFound);
  JobRunUpdate to_started = Succeeded(kRunA, std::string(kNova));
  to_started.status = JobRunStatus::kStarted;
  EXPECT_THROW(store().UpdateJobRun(to_started), runtime::TerminalError);
}

// The run's output (job_run_output) is stored as its JSON text and read
// back as written, on every backend; a retry with another output conflicts.
TEST_P(RecordStoreTest, TheOutputIsStoredAndReadBack) {
  const std::string output =
      R"({"provider_failures":[{"provider":"ESO","quarantine_reason":)"
      R"("r \"q\" \u00e9"}],"dataset_count_new":2})";
  store().PutJobRun(Started(kRunA, std::string(kNova)));
  JobRunUpdate update = Succeeded(kRunA, std::string(kNova));
  update.output = output;
  EXPECT_EQ(store().UpdateJobRun(update), UpdateResult::kUpdated);
  std::optional<JobRun> read = store().GetJobRun(kRunA, std::string(kNova));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->output, output);
  EXPECT_EQ(store().ListJobRuns(kNova).at(0).output, output);
  EXPECT_EQ(store().UpdateJobRun(update), UpdateResult::kUnchanged);
  JobRunUpdate other = update;
  other.output = "{}";
  EXPECT_EQ(store().UpdateJobRun(other), UpdateResult::kConflict);
  EXPECT_EQ(store().GetJobRun(kRunA, std::string(kNova))->output, output);

  // Put whole (FinalizeJobRunFailed before BeginJobRun): the same.
  JobRun failed = Started(kRunB, std::nullopt);
  failed.status = JobRunStatus::kFailed;
  failed.output = "{}";
  store().PutJobRun(failed);
  EXPECT_EQ(store().GetJobRun(kRunB, std::nullopt), failed);
}

TEST_P(RecordStoreTest, AttemptsOfOneRunInSkOrder) {
  store().PutAttempt(MakeAttempt(kRunA, "QueryProviderForProducts", 2, 1));
  store().PutAttempt(MakeAttempt(kRunA, "QueryProviderForProducts", 1, 1));
  store().PutAttempt(MakeAttempt(kRunA, "QueryProviderForProducts", 1, 0));
  store().PutAttempt(MakeAttempt(kRunA, "BeginJobRun", 1));
  store().PutAttempt(MakeAttempt(kRunB, "BeginJobRun", 1));
  // Re-recording an invocation rewrites it.
  Attempt rewritten = MakeAttempt(kRunA, "BeginJobRun", 1);
  rewritten.ended_at = "2026-11-25T13:45:01Z";
  store().PutAttempt(rewritten);
  std::vector<Attempt> attempts =
      store().ListAttempts(kRunA, std::string(kNova));
  ASSERT_EQ(attempts.size(), 4u);
  EXPECT_EQ(attempts[0], rewritten);
  EXPECT_EQ(attempts[1], MakeAttempt(kRunA, "QueryProviderForProducts", 1, 0));
  EXPECT_EQ(attempts[2], MakeAttempt(kRunA, "QueryProviderForProducts", 1, 1));
  EXPECT_EQ(attempts[3], MakeAttempt(kRunA, "QueryProviderForProducts", 2, 1));
  EXPECT_TRUE(store().ListAttempts(kRunA, std::nullopt).empty());
  EXPECT_EQ(store().ListAttempts(kRunB, std::string(kNova)),
            std::vector<Attempt>{MakeAttempt(kRunB, "BeginJobRun", 1)});
}

TEST_P(RecordStoreTest, LockLifecycle) {
  using S = LockResult::Status;
  LockResult r = store().AcquireLock(kKey, kRunA, 1000, 3600);
  EXPECT_EQ(r.status, S::kAcquired);
  EXPECT_EQ(r.owner_job_run_id, kRunA);
  EXPECT_EQ(LockItems(),
            std::vector<Item>{LockItem(kRunA, "HELD", 4600, std::nullopt)});

  r = store().AcquireLock(kKey, kRunB, 1001, 3600);
  EXPECT_EQ(r.status, S::kHeldByOther);
  EXPECT_EQ(r.owner_job_run_id, kRunA);
  EXPECT_EQ(r.outcome, std::nullopt);

  // The owner's retry renews its lease.
  EXPECT_EQ(store().AcquireLock(kKey, kRunA, 2000, 3600).status, S::kAcquired);
  EXPECT_EQ(LockItems(),
            std::vector<Item>{LockItem(kRunA, "HELD", 5600, std::nullopt)});
  EXPECT_EQ(store().AcquireLock(kKey, kRunB, 5599, 3600).status,
            S::kHeldByOther);

  EXPECT_FALSE(store().CompleteLock(kKey, kRunB, "REFRESHED"));
  EXPECT_TRUE(store().CompleteLock(kKey, kRunA, "REFRESHED"));
  EXPECT_TRUE(store().CompleteLock(kKey, kRunA, "REFRESHED"));  // a retry
  EXPECT_FALSE(store().CompleteLock(kKey, kRunA, "OTHER"));
  EXPECT_FALSE(store().ReleaseLock(kKey, kRunA));  // DONE stays DONE
  EXPECT_EQ(LockItems(), std::vector<Item>{LockItem(kRunA, "DONE", std::nullopt,
                                                    "REFRESHED")});

  // DONE never expires; even the completer sees it done.
  for (const char* run : {kRunB, kRunA}) {
    r = store().AcquireLock(kKey, run, 999999, 3600);
    EXPECT_EQ(r.status, S::kAlreadyDone);
    EXPECT_EQ(r.owner_job_run_id, kRunA);
    EXPECT_EQ(r.outcome, "REFRESHED");
  }
}

TEST_P(RecordStoreTest, ExpiredLeaseIsTakenOverAndTheOldOwnerLosesIt) {
  using S = LockResult::Status;
  EXPECT_EQ(store().AcquireLock(kKey, kRunA, 1000, 60).status, S::kAcquired);
  EXPECT_EQ(store().AcquireLock(kKey, kRunB, 1059, 60).status, S::kHeldByOther);
  LockResult r = store().AcquireLock(kKey, kRunB, 1060, 60);
  EXPECT_EQ(r.status, S::kAcquired);
  EXPECT_EQ(r.owner_job_run_id, kRunB);
  EXPECT_FALSE(store().CompleteLock(kKey, kRunA, "REFRESHED"));
  EXPECT_FALSE(store().ReleaseLock(kKey, kRunA));
  EXPECT_EQ(store().AcquireLock(kKey, kRunA, 1061, 60).status, S::kHeldByOther);
  EXPECT_EQ(LockItems(),
            std::vector<Item>{LockItem(kRunB, "HELD", 1120, std::nullopt)});
}

TEST_P(RecordStoreTest, ReleasedLockCanBeAcquiredAgain) {
  using S = LockResult::Status;
  EXPECT_FALSE(store().ReleaseLock(kKey, kRunA));
  EXPECT_FALSE(store().CompleteLock(kKey, kRunA, "X"));
  EXPECT_TRUE(LockItems().empty());  // neither created anything
  store().AcquireLock(kKey, kRunA, 1000, 60);
  EXPECT_FALSE(store().ReleaseLock(kKey, kRunB));
  EXPECT_TRUE(store().ReleaseLock(kKey, kRunA));
  EXPECT_TRUE(LockItems().empty());
  EXPECT_EQ(store().AcquireLock(kKey, kRunB, 1001, 60).status, S::kAcquired);
}

// 16 runs race for one free lock, then for the same lock once expired:
// exactly one owner each time, and the item names it.
TEST_P(RecordStoreTest, ConcurrentAcquireHasOneWinner) {
  constexpr int kThreads = 16;
  std::vector<std::string> owners;
  for (int i = 0; i < kThreads; ++i)
    owners.push_back("run-" + std::to_string(i));
  for (int64_t now : {1000, 5000}) {  // free, then expired (1000 + 60)
    std::vector<LockResult> results(kThreads);
    RaceStores(kThreads, [&](int i, RecordStore& s) {
      results[i] = s.AcquireLock(kKey, owners[i], now, 60);
    });
    int winner = -1, acquired = 0;
    for (int i = 0; i < kThreads; ++i) {
      if (results[i].status == LockResult::Status::kAcquired) {
        winner = i;
        ++acquired;
      }
    }
    ASSERT_EQ(acquired, 1) << "now=" << now;
    for (int i = 0; i < kThreads; ++i) {
      if (i == winner) continue;
      EXPECT_EQ(results[i].status, LockResult::Status::kHeldByOther);
      EXPECT_EQ(results[i].owner_job_run_id, owners[winner]);
    }
    EXPECT_EQ(LockItems(),
              std::vector<Item>{LockItem(owners[winner].c_str(), "HELD",
                                         now + 60, std::nullopt)});
  }
}

// Attempts written concurrently with lock traffic are all kept.
TEST_P(RecordStoreTest, ConcurrentAttemptsAreAllKept) {
  constexpr int kThreads = 8;
  RaceStores(kThreads, [&](int i, RecordStore& s) {
    for (int n = 1; n <= 10; ++n) {
      s.AcquireLock(kKey, kRunA, 1000, 3600);
      s.PutAttempt(MakeAttempt(kRunA, "S" + std::to_string(i), n));
    }
  });
  EXPECT_EQ(store().ListAttempts(kRunA, std::string(kNova)).size(), 80u);
}

// 16 Finalize calls with different outcomes race on one STARTED run: one
// kUpdated, the others kConflict, and the item holds the winner's outcome.
TEST_P(RecordStoreTest, ConcurrentFinalizeHasOneWinner) {
  constexpr int kThreads = 16;
  store().PutJobRun(Started(kRunA, std::string(kNova)));
  std::vector<UpdateResult> results(kThreads);
  RaceStores(kThreads, [&](int i, RecordStore& s) {
    results[i] = s.UpdateJobRun(
        Succeeded(kRunA, std::string(kNova), "O" + std::to_string(i)));
  });
  int winner = -1, updated = 0;
  for (int i = 0; i < kThreads; ++i) {
    if (results[i] == UpdateResult::kUpdated) {
      winner = i;
      ++updated;
    } else {
      EXPECT_EQ(results[i], UpdateResult::kConflict);
    }
  }
  ASSERT_EQ(updated, 1);
  EXPECT_EQ(store().GetJobRun(kRunA, std::string(kNova))->outcome,
            "O" + std::to_string(winner));
}

// A run that died (store/reaper.h): its JobRun finalized FAILED with how
// it ended, its lock released, its leases ended FAILED_RETRYABLE (its
// failed_runs kept), another run's lease left alone; a second reaper
// changes nothing more.
TEST_P(RecordStoreTest, ADeadRunIsReapedOnce) {
  Repository repository(table());
  auto dataset = [&](const char* id) {
    Dataset d;
    d.nova_id = kNova;
    d.provider = "ESO";
    d.dataset_id = id;
    d.provider_identity = std::string("ESO|") + id;
    d.locators = {{"url", "https://archive.example/p"}};
    d.created_at = d.updated_at = kT0;
    d.eligibility = kEligibilityDownload;
    EXPECT_EQ(repository.CreateDataset(d), CreateResult::kCreated);
    return d;
  };
  constexpr const char* kDs2 = "22222222-2222-4222-8222-222222222222";
  Dataset mine = dataset(kDs1), other = dataset(kDs2);
  store().PutJobRun(Started(kRunA, kNova));
  ASSERT_EQ(store().AcquireLock(kKey, kRunA, 1000, 600).status,
            LockResult::Status::kAcquired);
  ASSERT_EQ(repository.AcquireDatasetLease(mine.key(), kRunA, 1000, 600).status,
            LeaseResult::Status::kAcquired);
  ASSERT_EQ(
      repository.AcquireDatasetLease(other.key(), kRunB, 1000, 600).status,
      LeaseResult::Status::kAcquired);

  DeadRun dead{kRunA, kNova, kNova, kKey};
  Reaped first = ReapRun(store(), repository, dead, "ABORTED",
                         "the process running it was killed", 1100);
  EXPECT_EQ(first.ToJson().dump(),
            R"({"job_run":"FINALIZED","lock":"RELEASED","leases_released":[")" +
                std::string(kDs1) + R"("]})");
  JobRun reaped = *store().GetJobRun(kRunA, kNova);
  EXPECT_EQ(reaped.status, JobRunStatus::kFailed);
  EXPECT_EQ(reaped.error_classification, "ABORTED");
  EXPECT_EQ(reaped.error_fingerprint,
            runtime::ErrorFingerprint("ABORTED", "",
                                      "the process running it was killed"));
  EXPECT_EQ(reaped.ended_at, "1970-01-01T00:18:20Z");
  EXPECT_TRUE(LockItems().empty());
  Dataset after = *repository.GetDataset(mine.key());
  EXPECT_EQ(after.processing_status, ProcessingStatus::kFailedRetryable);
  EXPECT_EQ(after.lease_owner, std::nullopt);
  EXPECT_EQ(repository.GetDataset(other.key())->lease_owner, kRunB);
  // The work can run again at once.
  EXPECT_EQ(store().AcquireLock(kKey, kRunC, 1100, 600).status,
            LockResult::Status::kAcquired);
  EXPECT_EQ(repository.AcquireDatasetLease(mine.key(), kRunC, 1100, 600).status,
            LeaseResult::Status::kAcquired);

  Reaped again = ReapRun(store(), repository, dead, "ABORTED",
                         "the process running it was killed", 1200);
  EXPECT_EQ(
      again.ToJson().dump(),
      R"({"job_run":"ALREADY_FINAL","lock":"NOT_HELD","leases_released":[]})");
  EXPECT_EQ(*store().GetJobRun(kRunA, kNova), reaped);
  EXPECT_EQ(repository.GetDataset(mine.key())->lease_owner, kRunC);
}

// The reaper on AWS: Step Functions' status-change event names the
// execution; the run it recorded is reaped with the status as its class.
TEST_P(RecordStoreTest, AnExecutionThatTimedOutIsReapedByItsEvent) {
  Repository repository(table());
  const std::string arn =
      "arn:aws:states:us-east-1:123456789012:execution:refresh_references:x1";
  nlohmann::json event = {
      {"version", "0"},
      {"detail-type", "Step Functions Execution Status Change"},
      {"source", "aws.states"},
      {"resources", {arn}},
      {"detail",
       {{"executionArn", arn},
        {"stateMachineArn",
         "arn:aws:states:us-east-1:123456789012:"
         "stateMachine:refresh_references"},
        {"status", "TIMED_OUT"},
        {"error", "States.Timeout"},
        {"cause", "The execution timed out"},
        {"input", "{}"}}}};
  std::optional<StatusChange> change = StatusChangeOf(event);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->execution_arn, arn);
  EXPECT_EQ(change->status, "TIMED_OUT");
  EXPECT_EQ(change->cause,
            "the execution ended TIMED_OUT: States.Timeout: The execution "
            "timed out");
  // Nothing recorded for it (it ended before BeginJobRun): nothing to do.
  EXPECT_EQ(ReapExecution(store(), repository, *change, 2000), std::nullopt);

  JobRun run = Started(kRunA, kNova);
  run.execution_arn = arn;
  store().PutJobRun(run);
  store().PutExecution(
      {arn, "refresh_references", kRunA, kNova, kKey, std::nullopt});
  EXPECT_EQ(store().GetExecution(arn),
            (runtime::ExecutionRecord{arn, "refresh_references", kRunA, kNova,
                                      kKey, std::nullopt}));
  ASSERT_EQ(store().AcquireLock(kKey, kRunA, 1000, 600).status,
            LockResult::Status::kAcquired);
  std::optional<Reaped> reaped =
      ReapExecution(store(), repository, *change, 2000);
  ASSERT_TRUE(reaped);
  EXPECT_EQ(
      reaped->ToJson().dump(),
      R"({"job_run":"FINALIZED","lock":"RELEASED","leases_released":[]})");
  JobRun after = *store().GetJobRun(kRunA, kNova);
  EXPECT_EQ(after.status, JobRunStatus::kFailed);
  EXPECT_EQ(after.error_classification, "TIMED_OUT");
  EXPECT_EQ(after.error_fingerprint,
            runtime::ErrorFingerprint("TIMED_OUT", "", change->cause));
  EXPECT_TRUE(LockItems().empty());
  // EventBridge delivers at least once: the second changes nothing.
  EXPECT_EQ(
      ReapExecution(store(), repository, *change, 2100)->ToJson().dump(),
      R"({"job_run":"ALREADY_FINAL","lock":"NOT_HELD","leases_released":[]})");

  // Other payloads are not status changes to reap.
  nlohmann::json succeeded = event;
  succeeded["detail"]["status"] = "SUCCEEDED";
  EXPECT_EQ(StatusChangeOf(succeeded), std::nullopt);
  nlohmann::json custom = event;
  custom["source"] = "novacat.refresh_references";
  EXPECT_EQ(StatusChangeOf(custom), std::nullopt);
  EXPECT_EQ(StatusChangeOf(nlohmann::json{{"workflow", "x"}}), std::nullopt);
}

// A run that is not nova-scoped (ingest_photometry_dataset) lives under
// JOBRUN#; the leases it took are on the nova it learned.
TEST_P(RecordStoreTest, AnExecutionThatLearnedItsNovaHasItsLeasesEnded) {
  Repository repository(table());
  Dataset d;
  d.nova_id = kNova;
  d.type = DatasetType::kPhotometry;
  d.provider = "AAVSO";
  d.dataset_id = kDs1;
  d.provider_identity = "AAVSO|x";
  d.locators = nlohmann::json::object();
  d.created_at = d.updated_at = kT0;
  ASSERT_EQ(repository.CreateDataset(d), CreateResult::kCreated);
  const std::string arn = "arn:aws:states:us-east-1:1:execution:p:x";
  store().PutJobRun(Started(kRunA, std::nullopt));
  store().PutExecution(
      {arn, "ingest_photometry_dataset", kRunA, std::nullopt, kKey, kNova});
  ASSERT_EQ(store().AcquireLock(kKey, kRunA, 1000, 600).status,
            LockResult::Status::kAcquired);
  ASSERT_EQ(repository.AcquireDatasetLease(d.key(), kRunA, 1000, 600).status,
            LeaseResult::Status::kAcquired);
  std::optional<Reaped> reaped =
      ReapExecution(store(), repository,
                    {arn, "ABORTED", "the execution ended ABORTED"}, 2000);
  ASSERT_TRUE(reaped);
  EXPECT_EQ(reaped->ToJson().dump(),
            R"({"job_run":"FINALIZED","lock":"RELEASED","leases_released":[")" +
                std::string(kDs1) + R"("]})");
  EXPECT_EQ(store().GetJobRun(kRunA, std::nullopt)->status,
            JobRunStatus::kFailed);
  EXPECT_EQ(repository.GetDataset(d.key())->lease_owner, std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(Stores, RecordStoreTest,
                         ::testing::ValuesIn(StoreParams()),
                         [](const auto& info) { return info.param.name; });

// What only the table store shows: the stored items are exactly
// runtime::ToItem()'s, before and after a finalize.
class TableRecordStoreItemsTest : public ::testing::TestWithParam<Backend> {};

TEST_P(TableRecordStoreItemsTest, ItemsAreToItems) {
  std::unique_ptr<Table> table = GetParam().make();
  TableRecordStore store(*table);
  JobRun run = Started(kRunA, std::string(kNova));
  store.PutJobRun(run);
  EXPECT_EQ(table->GetItem(
                {std::string("NOVA#") + kNova, std::string("JOBRUN#") + kRunA}),
            Item(runtime::ToItem(run)));

  JobRunUpdate failed = Succeeded(kRunA, std::string(kNova));
  failed.status = JobRunStatus::kFailed;
  failed.outcome.reset();
  failed.error_classification = "TERMINAL";
  failed.error_fingerprint = "0123456789abcdef";
  ASSERT_EQ(store.UpdateJobRun(failed), UpdateResult::kUpdated);
  run.status = JobRunStatus::kFailed;
  run.error_classification = "TERMINAL";
  run.error_fingerprint = "0123456789abcdef";
  run.ended_at = "2026-11-25T13:50:00Z";
  EXPECT_EQ(table->GetItem(
                {std::string("NOVA#") + kNova, std::string("JOBRUN#") + kRunA}),
            Item(runtime::ToItem(run)));

  // A run without a nova lives in its own partition (AP-OPS-3).
  JobRun orphan = Started(kRunB, std::nullopt);
  store.PutJobRun(orphan);
  EXPECT_EQ(table->GetItem({std::string("JOBRUN#") + kRunB, "META"}),
            Item(runtime::ToItem(orphan)));

  Attempt attempt = MakeAttempt(kRunA, "DownloadSpectrum", 2, 7);
  attempt.status = AttemptStatus::kFailed;
  attempt.error_name = "RetryableError";
  store.PutAttempt(attempt);
  EXPECT_EQ(table->GetItem({std::string("NOVA#") + kNova,
                            std::string("ATTEMPT#") + kRunA +
                                "#DownloadSpectrum#ITEM#000007#002"}),
            Item(runtime::ToItem(attempt)));
}

TEST_P(TableRecordStoreItemsTest, CorruptItemsAreTerminal) {
  std::unique_ptr<Table> table = GetParam().make();
  TableRecordStore store(*table);
  Item bad(runtime::ToItem(Started(kRunA, std::string(kNova))));
  bad["status"] = "WEIRD";
  table->PutItem(bad, std::nullopt);
  try {
    store.GetJobRun(kRunA, std::string(kNova));
    FAIL() << "no TerminalError";
  } catch (const runtime::TerminalError& e) {
    EXPECT_NE(std::string(e.what()).find("$.status"), std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TableRecordStoreItemsTest,
                         ::testing::ValuesIn(testing::TestBackends()),
                         testing::BackendName());

}  // namespace
}  // namespace table_record_store_test
}  // namespace novacat::store
