#include "novacat/runtime/records.h"

#include <gtest/gtest.h>

namespace novacat::runtime {
namespace records_test {
namespace {

using nlohmann::json;

constexpr const char* kJobRunId = "2245bd5f-bb68-4f68-a2eb-92502318fa4e";
constexpr const char* kNovaId = "59d47572-ecfc-4738-a94e-c2d2b9936849";
constexpr const char* kCorrelationId = "7382d1e7-7ae6-459a-8561-d8057935c08e";

JobRun FailedRun() {
  JobRun run;
  run.job_run_id = kJobRunId;
  run.workflow = "discover_spectra_products";
  run.nova_id = kNovaId;
  run.correlation_id = kCorrelationId;
  run.execution_arn = "arn:aws:states:us-east-1:1:execution:disc:e1";
  run.status = JobRunStatus::kFailed;
  run.error_classification = "TERMINAL";
  run.error_fingerprint = "a63cea5b8a3b8769";
  run.started_at = "2026-11-25T13:45:00Z";
  run.ended_at = "2026-11-25T13:46:10Z";
  return run;
}

Attempt RetriedAttempt() {
  Attempt attempt;
  attempt.job_run_id = kJobRunId;
  attempt.nova_id = kNovaId;
  attempt.state_name = "QueryProviderForProducts";
  attempt.map_item_index = 3;
  attempt.attempt_number = 2;
  attempt.status = AttemptStatus::kFailed;
  attempt.error_name = "RetryableError";
  attempt.error_classification = "RETRYABLE";
  attempt.error_fingerprint = "1dab8f5822339415";
  attempt.correlation_id = kCorrelationId;
  attempt.started_at = "2026-11-25T13:45:02Z";
  attempt.ended_at = "2026-11-25T13:45:03Z";
  attempt.dedupe_key = "DatasetIdentity:MAST|2026-11-20:1";
  return attempt;
}

TEST(StatusNamesTest, RoundTrip) {
  for (auto s : {JobRunStatus::kStarted, JobRunStatus::kSucceeded,
                 JobRunStatus::kQuarantined, JobRunStatus::kFailed})
    EXPECT_EQ(ParseJobRunStatus(JobRunStatusName(s)), s);
  EXPECT_STREQ(JobRunStatusName(JobRunStatus::kQuarantined), "QUARANTINED");
  EXPECT_EQ(ParseJobRunStatus("started"), std::nullopt);
  EXPECT_EQ(ParseAttemptStatus(AttemptStatusName(AttemptStatus::kFailed)),
            AttemptStatus::kFailed);
  EXPECT_EQ(ParseAttemptStatus("SUCCEEDED"), AttemptStatus::kSucceeded);
  EXPECT_EQ(ParseAttemptStatus("RETRYING"), std::nullopt);
}

TEST(KeysTest, JobRunUnderItsNovaOrItsOwnPartition) {
  EXPECT_EQ(JobRunKey(kJobRunId, std::string(kNovaId)),
            (ItemKey{"NOVA#59d47572-ecfc-4738-a94e-c2d2b9936849",
                     "JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e"}));
  EXPECT_EQ(JobRunKey(kJobRunId, std::nullopt),
            (ItemKey{"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e", "META"}));
  EXPECT_EQ(JobRunKey(FailedRun()), JobRunKey(kJobRunId, std::string(kNovaId)));
}

TEST(KeysTest, AttemptsAreZeroPaddedUnderTheRunsPartition) {
  Attempt attempt = RetriedAttempt();
  EXPECT_EQ(AttemptKey(attempt),
            (ItemKey{"NOVA#59d47572-ecfc-4738-a94e-c2d2b9936849",
                     "ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#"
                     "QueryProviderForProducts#ITEM#000003#002"}));
  attempt.map_item_index.reset();
  attempt.nova_id.reset();
  attempt.state_name = "BeginJobRun";
  attempt.attempt_number = 1;
  EXPECT_EQ(AttemptKey(attempt),
            (ItemKey{"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e",
                     "ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#"
                     "BeginJobRun#001"}));
  EXPECT_EQ(AttemptPrefix(kJobRunId),
            "ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#");
}

TEST(ItemsTest, JobRunItemIsExact) {
  EXPECT_EQ(
      ToItem(FailedRun()).dump(),
      R"({"PK":"NOVA#59d47572-ecfc-4738-a94e-c2d2b9936849",)"
      R"("SK":"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e","entity":"JobRun",)"
      R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("workflow":"discover_spectra_products",)"
      R"("nova_id":"59d47572-ecfc-4738-a94e-c2d2b9936849",)"
      R"("correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:disc:e1",)"
      R"("status":"FAILED","error_classification":"TERMINAL",)"
      R"("error_fingerprint":"a63cea5b8a3b8769",)"
      R"("started_at":"2026-11-25T13:45:00Z","ended_at":"2026-11-25T13:46:10Z"})");
  JobRun started;
  started.job_run_id = kJobRunId;
  started.workflow = "initialize_nova";
  started.correlation_id = kCorrelationId;
  started.execution_arn = "arn:e";
  started.started_at = "2026-11-25T13:45:00Z";
  EXPECT_EQ(
      ToItem(started).dump(),
      R"({"PK":"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e","SK":"META",)"
      R"("entity":"JobRun","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("workflow":"initialize_nova",)"
      R"("correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("execution_arn":"arn:e","status":"STARTED",)"
      R"("started_at":"2026-11-25T13:45:00Z"})");
}

TEST(ItemsTest, AttemptItemIsExact) {
  EXPECT_EQ(
      ToItem(RetriedAttempt()).dump(),
      R"({"PK":"NOVA#59d47572-ecfc-4738-a94e-c2d2b9936849",)"
      R"("SK":"ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#QueryProviderForProducts#ITEM#000003#002",)"
      R"("entity":"Attempt","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("nova_id":"59d47572-ecfc-4738-a94e-c2d2b9936849",)"
      R"("state_name":"QueryProviderForProducts","map_item_index":3,)"
      R"("attempt_number":2,"status":"FAILED","error_name":"RetryableError",)"
      R"("error_classification":"RETRYABLE","error_fingerprint":"1dab8f5822339415",)"
      R"("correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("started_at":"2026-11-25T13:45:02Z","ended_at":"2026-11-25T13:45:03Z",)"
      R"("dedupe_key":"DatasetIdentity:MAST|2026-11-20:1"})");
}

TEST(ItemsTest, TheOutputIsLastAndReadBack) {
  JobRun run = FailedRun();
  run.output = R"({"provider_failures":[],"dataset_count_new":0})";
  std::string item = ToItem(run).dump();
  EXPECT_EQ(
      item.substr(item.find(R"("ended_at")")),
      R"("ended_at":"2026-11-25T13:46:10Z",)"
      R"("output":"{\"provider_failures\":[],\"dataset_count_new\":0}"})");
  Parsed<JobRun> read = JobRunFromItem(json::parse(item));
  ASSERT_TRUE(read.ok()) << FormatErrors(read.errors);
  EXPECT_EQ(*read.value, run);
}

TEST(ItemsTest, RoundTrip) {
  Parsed<JobRun> run = JobRunFromItem(json(ToItem(FailedRun())));
  ASSERT_TRUE(run.ok()) << FormatErrors(run.errors);
  EXPECT_EQ(*run.value, FailedRun());
  Parsed<Attempt> attempt = AttemptFromItem(json(ToItem(RetriedAttempt())));
  ASSERT_TRUE(attempt.ok()) << FormatErrors(attempt.errors);
  EXPECT_EQ(*attempt.value, RetriedAttempt());
}

TEST(ItemsTest, BadItemsNameTheirAttributes) {
  json item = json(ToItem(FailedRun()));
  item["status"] = "DONE";
  item.erase("started_at");
  item["entity"] = "Attempt";
  EXPECT_EQ(
      FormatErrors(JobRunFromItem(item).errors),
      "$.entity: must be JobRun\n"
      "$.status: must be one of: STARTED, SUCCEEDED, QUARANTINED, FAILED\n"
      "$.started_at: is required\n");
  json with_output = json(ToItem(FailedRun()));
  with_output["output"] = "[1]";
  EXPECT_EQ(FormatErrors(JobRunFromItem(with_output).errors),
            "$.output: must be the JSON text of an object\n");
  with_output["output"] = json::object();
  EXPECT_EQ(FormatErrors(JobRunFromItem(with_output).errors),
            "$.output: must be a string\n");
  json attempt = json(ToItem(RetriedAttempt()));
  attempt["attempt_number"] = 0;
  attempt["map_item_index"] = "3";
  EXPECT_EQ(FormatErrors(AttemptFromItem(attempt).errors),
            "$.map_item_index: must be an integer\n"
            "$.attempt_number: must be >= 1\n");
  EXPECT_EQ(FormatErrors(AttemptFromItem(json::array()).errors),
            "$: must be an object\n");
}

}  // namespace
}  // namespace records_test
}  // namespace novacat::runtime
