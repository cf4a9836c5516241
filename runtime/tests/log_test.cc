#include "novacat/runtime/log.h"

#include <gtest/gtest.h>

#include "novacat/runtime/errors.h"

namespace novacat::runtime {
namespace log_test {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// initialize_nova's logging section.
// initialize_nova's log fields, as its generated binding has them (the
// governance's, then its own).
LogSpec InitializeNovaLogSpec() {
  return LogSpec{
      {"workflow_name", "execution_arn", "job_run_id", "state_name",
       "attempt_number", "schema_version", "correlation_id", "candidate_name"},
      {"workflow_idempotency_key", "step_dedupe_key", "error_classification",
       "error_fingerprint", "normalized_candidate_name", "nova_id",
       "resolved_ra", "resolved_dec", "resolved_epoch",
       "coordinate_match_min_sep_arcsec", "coordinate_match_outcome"}};
}

LogContext Context(std::string correlation_id = "") {
  StepContext step;
  step.workflow_name = "initialize_nova";
  step.state_name = "CheckExistingNovaByCoordinates";
  step.execution_arn = "arn:aws:states:us-east-1:1:execution:init:e1";
  step.attempt_number = 2;
  step.correlation_id = std::move(correlation_id);
  return LogContext{step, 1, [] { return int64_t{1795614300}; }};
}

const json kState = {{"candidate_name", "V1324 Sco"},
                     {"correlation_id", "7382d1e7-7ae6-459a-8561-d8057935c08e"},
                     {"job_run_id", "2245bd5f-bb68-4f68-a2eb-92502318fa4e"},
                     {"normalized_candidate_name", "v1324 sco"},
                     {"coordinate_match_min_sep_arcsec", nullptr},
                     {"workflow_idempotency_key",
                      "InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z"},
                     {"exists_in_db", false}};

TEST(LogLevelTest, Names) {
  EXPECT_STREQ(LogLevelName(LogLevel::kDebug), "DEBUG");
  EXPECT_STREQ(LogLevelName(LogLevel::kInfo), "INFO");
  EXPECT_STREQ(LogLevelName(LogLevel::kWarn), "WARN");
  EXPECT_STREQ(LogLevelName(LogLevel::kError), "ERROR");
}

TEST(StepLoggerTest, WholeLineInFixedOrder) {
  CaptureSink sink;
  StepLogger logger(InitializeNovaLogSpec(), sink, Context(), &kState);
  ordered_json fields = {{"separation_count", 3}};
  logger.Log(LogLevel::kInfo, "coordinates compared", fields);
  ASSERT_EQ(sink.lines().size(), 1u);
  EXPECT_EQ(
      sink.lines()[0],
      R"({"ts":"2026-11-25T13:45:00Z","level":"INFO","message":"coordinates compared",)"
      R"("workflow_name":"initialize_nova",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:init:e1",)"
      R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("state_name":"CheckExistingNovaByCoordinates","attempt_number":2,)"
      R"("schema_version":1,"correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("candidate_name":"V1324 Sco",)"
      R"("workflow_idempotency_key":"InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z",)"
      R"("normalized_candidate_name":"v1324 sco",)"
      R"("coordinate_match_min_sep_arcsec":null,"separation_count":3})");
}

TEST(StepLoggerTest, MissingRequiredFieldThrowsAndWritesNothing) {
  CaptureSink sink;
  json state = kState;
  state.erase("candidate_name");
  state.erase("job_run_id");
  StepLogger logger(InitializeNovaLogSpec(), sink, Context(), &state);
  try {
    logger.Log(LogLevel::kInfo, "coordinates compared");
    FAIL();
  } catch (const TerminalError& e) {
    EXPECT_EQ(std::string(e.what()),
              "log line \"coordinates compared\" in "
              "CheckExistingNovaByCoordinates lacks required field(s): "
              "job_run_id, candidate_name");
  }
  EXPECT_TRUE(sink.lines().empty());
}

TEST(StepLoggerTest, NullIsMissingForRequiredFields) {
  CaptureSink sink;
  json state = kState;
  state["candidate_name"] = nullptr;
  StepLogger logger(InitializeNovaLogSpec(), sink, Context(), &state);
  EXPECT_THROW(logger.Log(LogLevel::kInfo, "x"), TerminalError);
  // No document at all: only the context's fields are there.
  StepLogger bare(InitializeNovaLogSpec(), sink, Context());
  EXPECT_THROW(bare.Log(LogLevel::kInfo, "x"), TerminalError);
  EXPECT_TRUE(sink.lines().empty());
}

TEST(StepLoggerTest, EmptyContextValuesAreMissing) {
  CaptureSink sink;
  LogContext context = Context();
  context.step.execution_arn = "";
  StepLogger logger(InitializeNovaLogSpec(), sink, context, &kState);
  try {
    logger.Log(LogLevel::kInfo, "x");
    FAIL();
  } catch (const TerminalError& e) {
    EXPECT_EQ(std::string(e.what()),
              "log line \"x\" in CheckExistingNovaByCoordinates lacks "
              "required field(s): execution_arn");
  }
}

TEST(StepLoggerTest, ContextCorrelationIdWinsOverTheState) {
  CaptureSink sink;
  StepLogger logger(InitializeNovaLogSpec(), sink,
                    Context("6ba7b810-9dad-11d1-80b4-00c04fd430c8"), &kState);
  logger.Log(LogLevel::kDebug, "x");
  EXPECT_EQ(json::parse(sink.lines()[0])["correlation_id"],
            "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
}

TEST(StepLoggerTest, ExtraFieldsSupplyKnownFieldsAtTheirPlace) {
  CaptureSink sink;
  json state = {{"candidate_name", "V1324 Sco"},
                {"correlation_id", "7382d1e7-7ae6-459a-8561-d8057935c08e"}};
  StepLogger logger(InitializeNovaLogSpec(), sink, Context(), &state);
  ordered_json fields = {{"cause", "HTTP 503"},
                         {"error_fingerprint", "1dab8f5822339415"},
                         {"job_run_id", "2245bd5f-bb68-4f68-a2eb-92502318fa4e"},
                         {"error_classification", "RETRYABLE"}};
  logger.Log(LogLevel::kError, "task failed", fields);
  EXPECT_EQ(
      sink.lines()[0],
      R"({"ts":"2026-11-25T13:45:00Z","level":"ERROR","message":"task failed",)"
      R"("workflow_name":"initialize_nova",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:init:e1",)"
      R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("state_name":"CheckExistingNovaByCoordinates","attempt_number":2,)"
      R"("schema_version":1,"correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("candidate_name":"V1324 Sco","error_classification":"RETRYABLE",)"
      R"("error_fingerprint":"1dab8f5822339415","cause":"HTTP 503"})");
}

TEST(StepLoggerTest, ReservedAndNonObjectFieldsAreInvariantViolations) {
  CaptureSink sink;
  StepLogger logger(InitializeNovaLogSpec(), sink, Context(), &kState);
  for (const char* key :
       {"ts", "level", "message", "missing_required_fields"}) {
    try {
      logger.Log(LogLevel::kInfo, "x", ordered_json{{key, 1}});
      FAIL() << key;
    } catch (const TerminalError& e) {
      EXPECT_EQ(
          std::string(e.what()),
          std::string("log line \"x\": field name '") + key + "' is reserved");
    }
  }
  try {
    logger.Log(LogLevel::kInfo, "x", ordered_json::array());
    FAIL();
  } catch (const TerminalError& e) {
    EXPECT_EQ(std::string(e.what()),
              "log line \"x\": extra fields must be an object");
  }
  EXPECT_TRUE(sink.lines().empty());
}

TEST(StepLoggerTest, BestEffortWritesMissingFieldsAsNullAndNamesThem) {
  CaptureSink sink;
  json state = {{"correlation_id", "7382d1e7-7ae6-459a-8561-d8057935c08e"},
                {"job_run_id", "2245bd5f-bb68-4f68-a2eb-92502318fa4e"},
                {"error_classification", "TERMINAL"}};
  StepLogger logger(InitializeNovaLogSpec(), sink, Context(), &state);
  logger.LogBestEffort(
      LogLevel::kError, "workflow failed",
      ordered_json{{"cause", "$.candidate_name: is required"}});
  EXPECT_EQ(
      sink.lines()[0],
      R"({"ts":"2026-11-25T13:45:00Z","level":"ERROR","message":"workflow failed",)"
      R"("workflow_name":"initialize_nova",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:init:e1",)"
      R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("state_name":"CheckExistingNovaByCoordinates","attempt_number":2,)"
      R"("schema_version":1,"correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("candidate_name":null,"error_classification":"TERMINAL",)"
      R"("cause":"$.candidate_name: is required",)"
      R"("missing_required_fields":["candidate_name"]})");
  // With every field present, the best-effort line is the strict one.
  sink.Clear();
  logger.set_state(&kState);
  logger.LogBestEffort(LogLevel::kInfo, "x");
  std::string best_effort = sink.lines()[0];
  sink.Clear();
  logger.Log(LogLevel::kInfo, "x");
  EXPECT_EQ(sink.lines()[0], best_effort);
}

TEST(StepLoggerTest, InvalidUtf8IsReplacedNotLost) {
  CaptureSink sink;
  json state = kState;
  state["candidate_name"] = std::string("V1324 \xff Sco");
  StepLogger logger(InitializeNovaLogSpec(), sink, Context(), &state);
  logger.Log(LogLevel::kInfo, "x");
  EXPECT_NE(
      sink.lines()[0].find("\"candidate_name\":\"V1324 \xEF\xBF\xBD Sco\""),
      std::string::npos)
      << sink.lines()[0];
}

TEST(StreamSinkTest, OneLinePerWriteOnStderr) {
  StreamSink sink(stderr);
  testing::internal::CaptureStderr();
  sink.Write(R"({"a":1})");
  sink.Write(R"({"b":2})");
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "{\"a\":1}\n{\"b\":2}\n");
}

TEST(StreamSinkTest, OneLinePerWriteOnStdout) {
  StreamSink sink(stdout);
  testing::internal::CaptureStdout();
  sink.Write(R"({"a":1})");
  sink.Write(R"({"b":2})");
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "{\"a\":1}\n{\"b\":2}\n");
}

}  // namespace
}  // namespace log_test
}  // namespace novacat::runtime
