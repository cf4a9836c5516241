// `novacat jobs` (app/jobs.h): the whole table and the whole JSON of
// records written with known times through TableRecordStore, the usage and
// not-found answers, and what it shows of runs made through LocalRunner
// (what `novacat run` does) on SQLite and the fixtures. Run from the root.
#include "jobs.h"

#include <gtest/gtest.h>

#include "fixture_world.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/log.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/sqlite_table.h"
#include "novacat/store/table_record_store.h"
#include "runner.h"
#include "seed.h"

namespace novacat::workflows {
namespace jobs_test {
namespace {

using ojson = nlohmann::ordered_json;
using runtime::Attempt;
using runtime::AttemptStatus;
using runtime::JobRun;
using runtime::JobRunStatus;

constexpr const char* kNova = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr const char* kDiscovered = "1b4e28ba-2fa1-4d3b-9a5e-0c1f2d3e4f50";
constexpr const char* kQuarantined = "5c6d7e8f-1a2b-4c3d-8e4f-5a6b7c8d9e0f";
constexpr const char* kRunning = "9f8e7d6c-5b4a-4392-a180-7f6e5d4c3b2a";
constexpr const char* kInit = "0e1d2c3b-4a59-4687-b7a6-958473625140";
constexpr const char* kCorrelation = "3f2e1d0c-9b8a-4776-a554-433221100fed";

JobRun MakeRun(const std::string& id, const std::string& workflow,
               std::optional<std::string> nova, JobRunStatus status,
               const std::string& started, std::optional<std::string> ended) {
  JobRun run;
  run.job_run_id = id;
  run.workflow = workflow;
  run.nova_id = std::move(nova);
  run.correlation_id = kCorrelation;
  run.execution_arn =
      "arn:aws:states:local:000000000000:execution:" + workflow + ":" + id;
  run.status = status;
  run.started_at = started;
  run.ended_at = std::move(ended);
  return run;
}

Attempt Try(const std::string& run, std::optional<std::string> nova,
            const std::string& state, std::optional<int64_t> item, int number,
            const std::string& started, const std::string& ended) {
  Attempt a;
  a.job_run_id = run;
  a.nova_id = std::move(nova);
  a.state_name = state;
  a.map_item_index = item;
  a.attempt_number = number;
  a.correlation_id = kCorrelation;
  a.started_at = started;
  a.ended_at = ended;
  return a;
}

Attempt Failed(Attempt a, const std::string& name, const std::string& cls) {
  a.status = AttemptStatus::kFailed;
  a.error_name = name;
  a.error_classification = cls;
  a.error_fingerprint = "f00d";
  return a;
}

// Three runs of one nova and an initialize_nova run under its own id, put
// out of SK order; every time known.
class JobsTest : public ::testing::Test {
 protected:
  JobsTest() {
    JobRun running =
        MakeRun(kRunning, "discover_spectra_products", kNova,
                JobRunStatus::kStarted, "2026-01-02T00:00:00Z", {});
    JobRun quarantined = MakeRun(
        kQuarantined, "refresh_references", kNova, JobRunStatus::kQuarantined,
        "2026-01-01T00:01:00Z", "2026-01-01T00:01:01Z");
    quarantined.error_classification = "QUARANTINE";
    quarantined.error_fingerprint = "5eed";
    JobRun discovered = MakeRun(kDiscovered, "discover_spectra_products", kNova,
                                JobRunStatus::kSucceeded,
                                "2026-01-01T00:00:00Z", "2026-01-01T00:00:03Z");
    discovered.outcome = "DISCOVERED";
    // Its workflow's job_run_output, in the spec's order (not sorted).
    discovered.output =
        R"({"provider_failures":[{"provider":"ESO"}],"dataset_count_new":2})";
    for (const JobRun& r : {running, quarantined, discovered})
      records_.PutJobRun(r);
    const std::string d = kDiscovered;
    records_.PutAttempt(Try(d, kNova, "SummarizeDiscovery", {}, 1,
                            "2026-01-01T00:00:02.900Z",
                            "2026-01-01T00:00:02.905Z"));
    records_.PutAttempt(
        Failed(Try(d, kNova, "QueryProviderForProducts", 12, 1,
                   "2026-01-01T00:00:00.100Z", "2026-01-01T00:00:00.140Z"),
               "QuarantineError", "QUARANTINE"));
    records_.PutAttempt(Try(d, kNova, "QueryProviderForProducts", 0, 2,
                            "2026-01-01T00:00:02.000Z",
                            "2026-01-01T00:00:02.257Z"));
    records_.PutAttempt(
        Failed(Try(d, kNova, "QueryProviderForProducts", 0, 1,
                   "2026-01-01T00:00:00.100Z", "2026-01-01T00:00:01.350Z"),
               "RetryableError", "RETRYABLE"));
    Attempt begin = Try(d, kNova, "BeginJobRun", {}, 1,
                        "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.012Z");
    begin.dedupe_key = "BeginJobRun:" + d;
    records_.PutAttempt(begin);
    JobRun init = MakeRun(kInit, "initialize_nova", {}, JobRunStatus::kFailed,
                          "2026-01-03T10:00:00Z", "2026-01-03T10:02:05Z");
    init.error_classification = "TERMINAL";
    init.error_fingerprint = "bad1";
    records_.PutJobRun(init);
    records_.PutAttempt(
        Failed(Try(kInit, {}, "BeginJobRun", {}, 1, "2026-01-03T10:00:00.000Z",
                   "2026-01-03T10:02:05.001Z"),
               "TerminalError", "TERMINAL"));
  }

  JobsResult Query(JobsQuery query) {
    return QueryJobs(records_, query, "memory");
  }

  // The table of a query that finds something.
  std::string Table(JobsQuery query) {
    JobsResult result = Query(std::move(query));
    EXPECT_EQ(result.status, JobsResult::Status::kOk) << result.message;
    return FormatJobsTable(result.report);
  }

  store::MemoryTable table_;
  store::TableRecordStore records_{table_};
};

TEST_F(JobsTest, ANovasRunsAreOneAlignedTableInSkOrder) {
  EXPECT_EQ(Table({kNova, {}, false}),
            "JobRuns of nova d4bbdda3-6824-4e82-b1ce-1b781190fbec: 3\n"
            "JOB_RUN_ID                            WORKFLOW                   "
            "STATUS       RESULT      STARTED               ENDED          "
            "       DURATION\n"
            "1b4e28ba-2fa1-4d3b-9a5e-0c1f2d3e4f50  discover_spectra_products  "
            "SUCCEEDED    DISCOVERED  2026-01-01T00:00:00Z  "
            "2026-01-01T00:00:03Z        3s\n"
            "5c6d7e8f-1a2b-4c3d-8e4f-5a6b7c8d9e0f  refresh_references         "
            "QUARANTINED  QUARANTINE  2026-01-01T00:01:00Z  "
            "2026-01-01T00:01:01Z        1s\n"
            "9f8e7d6c-5b4a-4392-a180-7f6e5d4c3b2a  discover_spectra_products  "
            "STARTED      -           2026-01-02T00:00:00Z  -              "
            "              -\n");
}

TEST_F(JobsTest, WithAttemptsEachRunListsItsAttemptsWithDurationsAndErrors) {
  const std::string table = Table({kNova, {}, true});
  const std::string attempts = table.substr(table.find("\nAttempts of"));
  EXPECT_EQ(attempts,
            "\n"
            "Attempts of 1b4e28ba-2fa1-4d3b-9a5e-0c1f2d3e4f50 "
            "(discover_spectra_products): 5\n"
            "STATE                     ITEM  ATTEMPT  STATUS     DURATION_MS  "
            "ERROR            CLASSIFICATION\n"
            "BeginJobRun                  -        1  SUCCEEDED           12  "
            "-                -\n"
            "QueryProviderForProducts     0        1  FAILED            1250  "
            "RetryableError   RETRYABLE\n"
            "QueryProviderForProducts     0        2  SUCCEEDED          257  "
            "-                -\n"
            "QueryProviderForProducts    12        1  FAILED              40  "
            "QuarantineError  QUARANTINE\n"
            "SummarizeDiscovery           -        1  SUCCEEDED            5  "
            "-                -\n"
            "\n"
            "Attempts of 5c6d7e8f-1a2b-4c3d-8e4f-5a6b7c8d9e0f "
            "(refresh_references): none\n"
            "\n"
            "Attempts of 9f8e7d6c-5b4a-4392-a180-7f6e5d4c3b2a "
            "(discover_spectra_products): none\n");
  // The runs' table is the one without --attempts.
  EXPECT_EQ(table.substr(0, table.find("\nAttempts of")),
            Table({kNova, {}, false}));
}

TEST_F(JobsTest, TheJsonHasEveryKeyOfEveryRecord) {
  JobsResult result = Query({kNova, {}, true});
  ASSERT_EQ(result.status, JobsResult::Status::kOk) << result.message;
  ojson json = JobsToJson(result.report);
  EXPECT_EQ(json.dump(2), R"({
  "nova_id": "d4bbdda3-6824-4e82-b1ce-1b781190fbec",
  "job_runs": [
    {
      "job_run_id": "1b4e28ba-2fa1-4d3b-9a5e-0c1f2d3e4f50",
      "workflow": "discover_spectra_products",
      "nova_id": "d4bbdda3-6824-4e82-b1ce-1b781190fbec",
      "status": "SUCCEEDED",
      "outcome": "DISCOVERED",
      "error_classification": null,
      "error_fingerprint": null,
      "correlation_id": "3f2e1d0c-9b8a-4776-a554-433221100fed",
      "execution_arn": "arn:aws:states:local:000000000000:execution:discover_spectra_products:1b4e28ba-2fa1-4d3b-9a5e-0c1f2d3e4f50",
      "started_at": "2026-01-01T00:00:00Z",
      "ended_at": "2026-01-01T00:00:03Z",
      "duration_ms": 3000,
      "output": {
        "provider_failures": [
          {
            "provider": "ESO"
          }
        ],
        "dataset_count_new": 2
      },
      "attempts": [
        {
          "state_name": "BeginJobRun",
          "map_item_index": null,
          "attempt_number": 1,
          "status": "SUCCEEDED",
          "started_at": "2026-01-01T00:00:00.000Z",
          "ended_at": "2026-01-01T00:00:00.012Z",
          "duration_ms": 12,
          "error_name": null,
          "error_classification": null,
          "error_fingerprint": null,
          "dedupe_key": "BeginJobRun:1b4e28ba-2fa1-4d3b-9a5e-0c1f2d3e4f50"
        },
        {
          "state_name": "QueryProviderForProducts",
          "map_item_index": 0,
          "attempt_number": 1,
          "status": "FAILED",
          "started_at": "2026-01-01T00:00:00.100Z",
          "ended_at": "2026-01-01T00:00:01.350Z",
          "duration_ms": 1250,
          "error_name": "RetryableError",
          "error_classification": "RETRYABLE",
          "error_fingerprint": "f00d",
          "dedupe_key": null
        },
        {
          "state_name": "QueryProviderForProducts",
          "map_item_index": 0,
          "attempt_number": 2,
          "status": "SUCCEEDED",
          "started_at": "2026-01-01T00:00:02.000Z",
          "ended_at": "2026-01-01T00:00:02.257Z",
          "duration_ms": 257,
          "error_name": null,
          "error_classification": null,
          "error_fingerprint": null,
          "dedupe_key": null
        },
        {
          "state_name": "QueryProviderForProducts",
          "map_item_index": 12,
          "attempt_number": 1,
          "status": "FAILED",
          "started_at": "2026-01-01T00:00:00.100Z",
          "ended_at": "2026-01-01T00:00:00.140Z",
          "duration_ms": 40,
          "error_name": "QuarantineError",
          "error_classification": "QUARANTINE",
          "error_fingerprint": "f00d",
          "dedupe_key": null
        },
        {
          "state_name": "SummarizeDiscovery",
          "map_item_index": null,
          "attempt_number": 1,
          "status": "SUCCEEDED",
          "started_at": "2026-01-01T00:00:02.900Z",
          "ended_at": "2026-01-01T00:00:02.905Z",
          "duration_ms": 5,
          "error_name": null,
          "error_classification": null,
          "error_fingerprint": null,
          "dedupe_key": null
        }
      ]
    },
    {
      "job_run_id": "5c6d7e8f-1a2b-4c3d-8e4f-5a6b7c8d9e0f",
      "workflow": "refresh_references",
      "nova_id": "d4bbdda3-6824-4e82-b1ce-1b781190fbec",
      "status": "QUARANTINED",
      "outcome": null,
      "error_classification": "QUARANTINE",
      "error_fingerprint": "5eed",
      "correlation_id": "3f2e1d0c-9b8a-4776-a554-433221100fed",
      "execution_arn": "arn:aws:states:local:000000000000:execution:refresh_references:5c6d7e8f-1a2b-4c3d-8e4f-5a6b7c8d9e0f",
      "started_at": "2026-01-01T00:01:00Z",
      "ended_at": "2026-01-01T00:01:01Z",
      "duration_ms": 1000,
      "output": null,
      "attempts": []
    },
    {
      "job_run_id": "9f8e7d6c-5b4a-4392-a180-7f6e5d4c3b2a",
      "workflow": "discover_spectra_products",
      "nova_id": "d4bbdda3-6824-4e82-b1ce-1b781190fbec",
      "status": "STARTED",
      "outcome": null,
      "error_classification": null,
      "error_fingerprint": null,
      "correlation_id": "3f2e1d0c-9b8a-4776-a554-433221100fed",
      "execution_arn": "arn:aws:states:local:000000000000:execution:discover_spectra_products:9f8e7d6c-5b4a-4392-a180-7f6e5d4c3b2a",
      "started_at": "2026-01-02T00:00:00Z",
      "ended_at": null,
      "duration_ms": null,
      "output": null,
      "attempts": []
    }
  ]
})");
  // Without --attempts, no "attempts" key at all.
  ojson bare = JobsToJson(Query({kNova, {}, false}).report);
  for (const auto& run : bare["job_runs"])
    EXPECT_FALSE(run.contains("attempts")) << run.dump();
}

TEST_F(JobsTest, ARunStartedWithoutANovaIsFoundByItsIdAlone) {
  EXPECT_EQ(Table({{}, kInit, false}),
            "JobRun 0e1d2c3b-4a59-4687-b7a6-958473625140\n"
            "JOB_RUN_ID                            WORKFLOW         STATUS  "
            "RESULT    STARTED               ENDED                 DURATION\n"
            "0e1d2c3b-4a59-4687-b7a6-958473625140  initialize_nova  FAILED  "
            "TERMINAL  2026-01-03T10:00:00Z  2026-01-03T10:02:05Z      125s\n"
            "\n"
            "Attempts of 0e1d2c3b-4a59-4687-b7a6-958473625140 "
            "(initialize_nova): 1\n"
            "STATE        ITEM  ATTEMPT  STATUS  DURATION_MS  ERROR          "
            "CLASSIFICATION\n"
            "BeginJobRun     -        1  FAILED       125001  TerminalError  "
            "TERMINAL\n");
  EXPECT_EQ(JobsToJson(Query({{}, kInit, false}).report)["nova_id"], nullptr);
}

TEST_F(JobsTest, ARunOfANovaIsFoundWithTheNova) {
  JobsResult result = Query({kNova, kQuarantined, false});
  ASSERT_EQ(result.status, JobsResult::Status::kOk) << result.message;
  ASSERT_EQ(result.report.runs.size(), 1u);
  EXPECT_EQ(result.report.runs[0].run.workflow, "refresh_references");
  EXPECT_EQ(result.report.runs[0].attempts, std::vector<runtime::Attempt>{});
  EXPECT_EQ(FormatJobsTable(result.report).substr(0, 96),
            "JobRun 5c6d7e8f-1a2b-4c3d-8e4f-5a6b7c8d9e0f of nova "
            "d4bbdda3-6824-4e82-b1ce-1b781190fbec\nJOB_RUN");
}

TEST_F(JobsTest, WhatIsNotFoundIsNamed) {
  const std::string other = "86cb14e8-2bf7-4bec-9837-df4287f58a01";
  JobsResult none = Query({other, {}, true});
  EXPECT_EQ(none.status, JobsResult::Status::kNotFound);
  EXPECT_EQ(none.message,
            "no JobRuns of nova 86cb14e8-2bf7-4bec-9837-df4287f58a01 in "
            "memory (a run started without a nova_id, as initialize_nova's, "
            "is found by --run JOB_RUN_ID)");
  // A nova's run looked for under its own id, and the other way round.
  JobsResult alone = Query({{}, kDiscovered, false});
  EXPECT_EQ(alone.status, JobsResult::Status::kNotFound);
  EXPECT_EQ(alone.message,
            "no JobRun 1b4e28ba-2fa1-4d3b-9a5e-0c1f2d3e4f50 in memory under "
            "its own id (a run started with a nova_id is found with --nova "
            "NOVA_ID --run JOB_RUN_ID)");
  JobsResult wrong = Query({kNova, kInit, false});
  EXPECT_EQ(wrong.status, JobsResult::Status::kNotFound);
  EXPECT_EQ(wrong.message,
            "no JobRun 0e1d2c3b-4a59-4687-b7a6-958473625140 of nova "
            "d4bbdda3-6824-4e82-b1ce-1b781190fbec in memory (a run started "
            "without a nova_id, as initialize_nova's, is found by --run "
            "alone)");
}

TEST_F(JobsTest, AQueryThatIsNoneIsAUsageError) {
  JobsResult empty = Query({});
  EXPECT_EQ(empty.status, JobsResult::Status::kInvalid);
  EXPECT_EQ(empty.message,
            "give --nova NOVA_ID (a nova's JobRuns) or --run JOB_RUN_ID (one "
            "run and its Attempts)");
  EXPECT_EQ(Query({"V1500 Cyg", {}, false}).message,
            "--nova 'V1500 Cyg' is not a nova id (a UUID)");
  JobsResult run = Query({kNova, "42", false});
  EXPECT_EQ(run.status, JobsResult::Status::kInvalid);
  EXPECT_EQ(run.message, "--run '42' is not a JobRun id (a UUID)");
}

TEST(JobsDurationTest, MillisecondsBetweenTheRuntimesTimestamps) {
  EXPECT_EQ(DurationMs("2026-11-25T13:45:00Z", "2026-11-25T13:45:00.257Z"),
            257);
  EXPECT_EQ(DurationMs("2026-12-31T23:59:59.999Z", "2027-01-01T00:00:00Z"), 1);
  EXPECT_EQ(DurationMs("2028-02-28T00:00:00Z", "2028-03-01T00:00:00Z"),
            2 * 86400000);  // a leap year
  EXPECT_EQ(DurationMs("2026-01-01T00:00:05Z", "2026-01-01T00:00:00Z"), -5000);
  for (const char* bad :
       {"", "2026-01-01", "2026-01-01T00:00:00", "2026-02-30T00:00:00Z",
        "2026-01-01T24:00:00Z", "2026-01-01T00:00:00.5Z",
        "2026-01-01T00:00:00+01:00", "2026-01-01 00:00:00Z"})
    EXPECT_EQ(DurationMs(bad, "2026-01-01T00:00:00Z"), std::nullopt) << bad;
}

// Runs made through LocalRunner, as `novacat run` makes them.
class JobsOfRealRunsTest : public ::testing::Test {
 protected:
  JobsOfRealRunsTest()
      : table_(":memory:"),
        random_(7),
        world_(table_, "fixtures", random_),
        runner_(world_.env, world_.records, log_, random_) {
    table_.EnsureCreated();
    SeedFixtureNovae(world_.repository, "fixtures/novae/existing.json",
                     1767225600);
  }

  WorkflowRun RunOne(const std::string& workflow, const ojson& input) {
    RunnerOptions options;
    options.start_time = 1767225600;  // 2026-01-01T00:00:00Z
    std::vector<WorkflowRun> runs = runner_.Run(workflow, input, options).runs;
    EXPECT_EQ(runs.size(), 1u);
    return runs.front();
  }

  // The Attempts' rows of the table without their durations, which hold
  // the real time each invocation took: "STATE ITEM ATTEMPT STATUS ERROR".
  static std::vector<std::string> AttemptRows(const JobRunView& view) {
    std::vector<std::string> rows;
    for (const runtime::Attempt& a : *view.attempts) {
      std::optional<int64_t> ms = DurationMs(a.started_at, a.ended_at);
      EXPECT_TRUE(ms && *ms >= 0) << a.started_at << " " << a.ended_at;
      rows.push_back(
          a.state_name + " " +
          (a.map_item_index ? std::to_string(*a.map_item_index) : "-") + " " +
          std::to_string(a.attempt_number) + " " +
          runtime::AttemptStatusName(a.status) + " " +
          a.error_name.value_or("-"));
    }
    return rows;
  }

  store::SqliteTable table_;
  runtime::SeededRandom random_;
  FixtureWorld world_;
  runtime::CaptureSink log_;
  LocalRunner runner_;
};

TEST_F(JobsOfRealRunsTest, ADiscoveryIsListedUnderItsNovaWithItsAttempts) {
  WorkflowRun run = RunOne("discover_spectra_products", {{"nova_id", kNova}});
  ASSERT_EQ(run.result.status, "SUCCEEDED");
  JobsResult result = QueryJobs(world_.records, {kNova, {}, true}, "sqlite");
  ASSERT_EQ(result.status, JobsResult::Status::kOk) << result.message;
  ASSERT_EQ(result.report.runs.size(), 1u);
  const JobRunView& view = result.report.runs[0];
  EXPECT_EQ(view.run, *run.job_run);
  EXPECT_EQ(FormatJobsTable(result.report)
                .substr(0, FormatJobsTable(result.report).find("\n\n")),
            "JobRuns of nova d4bbdda3-6824-4e82-b1ce-1b781190fbec: 1\n"
            "JOB_RUN_ID                            WORKFLOW                   "
            "STATUS     RESULT      STARTED               ENDED          "
            "       DURATION\n" +
                run.job_run->job_run_id +
                "  discover_spectra_products  SUCCEEDED  DISCOVERED  "
                "2026-01-01T00:00:00Z  2026-01-01T00:00:00Z        0s");
  EXPECT_EQ(AttemptRows(view),
            (std::vector<std::string>{
                "AcquireIdempotencyLock - 1 SUCCEEDED -",
                "BeginJobRun - 1 SUCCEEDED -",
                "DeduplicateAndAssignDatasetIds 0 1 SUCCEEDED -",
                "DeduplicateAndAssignDatasetIds 1 1 SUCCEEDED -",
                "FinalizeJobRunSuccess - 1 SUCCEEDED -",
                "NormalizeProviderProducts 0 1 SUCCEEDED -",
                "NormalizeProviderProducts 1 1 SUCCEEDED -",
                "PublishDatasetDiscoveredEvents 0 1 SUCCEEDED -",
                "PublishDatasetDiscoveredEvents 1 1 SUCCEEDED -",
                "PublishDownloadAndValidateSpectra - 1 SUCCEEDED -",
                "PublishSpectraProductsDiscovered - 1 SUCCEEDED -",
                "QueryProviderForProducts 0 1 SUCCEEDED -",
                "QueryProviderForProducts 1 1 SUCCEEDED -",
                "SummarizeDiscovery - 1 SUCCEEDED -",
            }));
}

TEST_F(JobsOfRealRunsTest, AnInitializeNovaRunIsFoundByItsIdAlone) {
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "V1500 Cyg"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED");
  // Its records are under its own id; the nova it created lists it too,
  // its Attempts read from under its id.
  JobsResult by_nova = QueryJobs(world_.records, {kNova, {}, true}, "sqlite");
  ASSERT_EQ(by_nova.status, JobsResult::Status::kOk) << by_nova.message;
  ASSERT_EQ(by_nova.report.runs.size(), 1u);
  EXPECT_EQ(by_nova.report.runs[0].run.job_run_id, run.job_run->job_run_id);
  EXPECT_EQ(by_nova.report.runs[0].run.nova_id, kNova);
  const std::vector<std::string> attempts = {
      "AcquireIdempotencyLock - 1 SUCCEEDED -",
      "BeginJobRun - 1 SUCCEEDED -",
      "CheckExistingNovaByName - 1 SUCCEEDED -",
      "FinalizeJobRunSuccess - 1 SUCCEEDED -",
      "NormalizeCandidateName - 1 SUCCEEDED -",
      "PublishIngestNewNova - 1 SUCCEEDED -",
  };
  EXPECT_EQ(AttemptRows(by_nova.report.runs[0]), attempts);
  JobsResult result =
      QueryJobs(world_.records, {{}, run.job_run->job_run_id, false}, "s");
  ASSERT_EQ(result.status, JobsResult::Status::kOk) << result.message;
  ojson json = JobsToJson(result.report);
  ASSERT_EQ(json["job_runs"].size(), 1u);
  EXPECT_EQ(json["job_runs"][0]["outcome"], "EXISTS_AND_LAUNCHED");
  EXPECT_EQ(json["job_runs"][0]["nova_id"], nullptr);
  EXPECT_EQ(AttemptRows(result.report.runs[0]), attempts);
}

}  // namespace
}  // namespace jobs_test
}  // namespace novacat::workflows
