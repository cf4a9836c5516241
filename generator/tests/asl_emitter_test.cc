// The ASL emitter: a golden file for every construct, exact Retry/Catch
// content on the seed specs, and the lint of what asl-validator misses.
// Regenerate the golden file with
//   NOVACAT_UPDATE_GOLDEN=1 ctest -R AslEmitterTest.Golden
#include "emit/asl_emitter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "asl_lint.h"
#include "compiler.h"
#include "seed_diagnostics.h"

namespace novacat {
namespace asl_emitter_test {
namespace {

using testing::UnexpectedDiagnostics;

using nlohmann::json;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::unique_ptr<WorkflowSpec> LoadClean(const std::string& path) {
  DiagnosticSink sink;
  auto specs = LoadAndCheck({path}, DiskFileReader(), sink);
  EXPECT_EQ(UnexpectedDiagnostics(sink), "");
  EXPECT_EQ(specs.size(), 1u);
  return specs.empty() ? nullptr : std::move(specs.front());
}

json Emit(const std::string& path) {
  auto spec = LoadClean(path);
  return spec ? json::parse(EmitAsl(*spec)) : json();
}

TEST(AslEmitterTest, Golden) {
  const std::string golden = "tests/golden/emitter_features.asl.json";
  auto spec = LoadClean("tests/golden/emitter_features.yaml");
  ASSERT_TRUE(spec);
  std::string text = EmitAsl(*spec);
  if (std::getenv("NOVACAT_UPDATE_GOLDEN")) {
    std::ofstream(golden) << text;
  }
  EXPECT_EQ(text, ReadText(golden))
      << "the emitted ASL changed; if intended, regenerate with\n"
         "  NOVACAT_UPDATE_GOLDEN=1 ctest -R AslEmitterTest.Golden";
  EXPECT_EQ(text, EmitAsl(*spec)) << "emission is not deterministic";
}

TEST(AslEmitterTest, DefaultRetryIsTheExactSchedule) {
  json asl = Emit("specs/initialize_nova.yaml");
  EXPECT_EQ(asl["States"]["CheckExistingNovaByName"]["Retry"], json::parse(R"([{
      "ErrorEquals": ["RetryableError", "States.Timeout",
        "Lambda.ServiceException", "Lambda.AWSLambdaException",
        "Lambda.SdkClientException", "Lambda.ClientExecutionTimeoutException",
        "Lambda.TooManyRequestsException", "Lambda.Unknown",
        "Sandbox.Timedout", "Runtime.ExitError", "Runtime.OutOfMemory"],
      "IntervalSeconds": 2, "MaxAttempts": 3, "BackoffRate": 5,
      "MaxDelaySeconds": 30, "JitterStrategy": "NONE"}])"));
  // MaxAttempts 2 keeps the first two waits: 2s, 10s.
  const json& two = asl["States"]["PublishIngestNewNova"]["Retry"][0];
  EXPECT_EQ(two["MaxAttempts"], 2);
  EXPECT_EQ(two["IntervalSeconds"], 2);
  EXPECT_EQ(two["BackoffRate"], 5);
  EXPECT_EQ(two["MaxDelaySeconds"], 10);
  EXPECT_EQ(asl["States"]["CheckExistingNovaByName"]["TimeoutSeconds"], 20);
}

TEST(AslEmitterTest, QuarantineIsCaughtBeforeStatesAll) {
  json asl = Emit("specs/initialize_nova.yaml");
  EXPECT_EQ(asl["States"]["ResolveCandidateAgainstPublicArchives"]["Catch"],
            json::parse(R"([
      {"ErrorEquals": ["QuarantineError"], "ResultPath": "$.error",
       "Next": "QuarantineHandler"},
      {"ErrorEquals": ["States.ALL"], "ResultPath": "$.error",
       "Next": "TerminalFailHandler"}])"));
  // Builtins do not quarantine; the failure path catches nothing.
  EXPECT_EQ(asl["States"]["BeginJobRun"]["Catch"],
            json::parse(R"([{"ErrorEquals": ["States.ALL"],
      "ResultPath": "$.error", "Next": "TerminalFailHandler"}])"));
  EXPECT_FALSE(asl["States"]["TerminalFailHandler"].contains("Catch"));
  EXPECT_FALSE(asl["States"]["FinalizeJobRunFailed"].contains("Catch"));
  EXPECT_EQ(asl["States"]["QuarantineHandler"]["Catch"].size(), 1u);
}

// A failure path far longer than the few states a handler usually leads
// to: none of its states catches, the states before it all do.
TEST(AslEmitterTest, ALongFailurePathCatchesNothing) {
  std::string spec =
      "workflow: long_failure_path\n"
      "governance: shared/governance.yaml\n"
      "input: start\n"
      "events:\n  start:\n    fields:\n"
      "      nova_id: {type: uuid, required: true}\n"
      "      correlation_id: {type: uuid}\n"
      "outcomes:\n  DONE: done\n"
      "idempotency:\n  key: \"Long:{nova_id}:{schema_version}\"\n"
      "catch:\n  quarantine: QuarantineHandler\n  failure: "
      "TerminalFailHandler\n"
      "states:\n"
      "  BeginJobRun: {type: Task, builtin: BeginJobRun, timeout: 10s, "
      "next: AcquireIdempotencyLock}\n"
      "  AcquireIdempotencyLock: {type: Task, builtin: "
      "AcquireIdempotencyLock, timeout: 10s, next: Work}\n"
      "  Work: {type: Task, timeout: 20s, next: FinalizeJobRunSuccess, "
      "outcome: DONE}\n"
      "  FinalizeJobRunSuccess: {type: Task, builtin: FinalizeJobRunSuccess, "
      "timeout: 10s, end: true}\n"
      "  QuarantineHandler: {type: Task, builtin: QuarantineHandler, "
      "timeout: 10s, next: FinalizeJobRunQuarantined}\n"
      "  FinalizeJobRunQuarantined: {type: Task, builtin: "
      "FinalizeJobRunQuarantined, timeout: 10s, end: true}\n"
      "  TerminalFailHandler: {type: Task, builtin: TerminalFailHandler, "
      "timeout: 10s, next: Cleanup0}\n";
  constexpr int kCleanups = 80;
  for (int i = 0; i < kCleanups; ++i)
    spec += "  Cleanup" + std::to_string(i) +
            ": {type: Task, timeout: 20s, next: " +
            (i + 1 < kCleanups ? "Cleanup" + std::to_string(i + 1)
                               : std::string("FinalizeJobRunFailed")) +
            "}\n";
  spec +=
      "  FinalizeJobRunFailed: {type: Task, builtin: FinalizeJobRunFailed, "
      "timeout: 10s, next: Failed}\n"
      "  Failed: {type: Fail, error: TerminalError}\n";
  const std::string governance = ReadText("specs/shared/governance.yaml");
  FileReader read = [&](const std::string& path) -> std::optional<std::string> {
    if (path == "specs/long_failure_path.yaml") return spec;
    if (path == "specs/shared/governance.yaml") return governance;
    return std::nullopt;
  };
  DiagnosticSink sink;
  auto specs = LoadAndCheck({"specs/long_failure_path.yaml"}, read, sink);
  ASSERT_EQ(UnexpectedDiagnostics(sink), "");
  ASSERT_EQ(specs.size(), 1u);
  json states = json::parse(EmitAsl(*specs.front()))["States"];
  EXPECT_EQ(states["Work"]["Catch"], json::parse(R"([
      {"ErrorEquals": ["QuarantineError"], "ResultPath": "$.error",
       "Next": "QuarantineHandler"},
      {"ErrorEquals": ["States.ALL"], "ResultPath": "$.error",
       "Next": "TerminalFailHandler"}])"));
  for (const std::string name :
       {"TerminalFailHandler", "Cleanup0", "Cleanup63", "Cleanup64",
        "Cleanup79", "FinalizeJobRunFailed"})
    EXPECT_FALSE(states[name].contains("Catch")) << name;
}

TEST(AslEmitterTest, OneAliasTaskLeadsToTwoOutcomesByBranch) {
  json asl = Emit("specs/initialize_nova.yaml");
  const json& states = asl["States"];
  EXPECT_EQ(states["ExistsInDB?"]["Choices"][0]["Next"],
            "RecordOutcome_EXISTS_AND_LAUNCHED");
  EXPECT_EQ(states["UpsertAliasForExistingNova"]["Next"],
            "RecordOutcome_EXISTS_AND_LAUNCHED");
  EXPECT_EQ(states["UpsertMinimalNovaMetadata"]["Next"],
            "RecordOutcome_CREATED_AND_LAUNCHED");
  for (const char* name : {"RecordOutcome_EXISTS_AND_LAUNCHED",
                           "RecordOutcome_CREATED_AND_LAUNCHED"}) {
    EXPECT_EQ(states[name]["Next"], "PublishIngestNewNova");
    EXPECT_EQ(states[name]["ResultPath"], "$.outcome");
  }
  EXPECT_EQ(states["RecordOutcome_NOT_FOUND"]["Next"], "FinalizeJobRunSuccess");
  EXPECT_EQ(states["CoordinateMatchClassification?"]["Choices"],
            json::parse(R"([
      {"Variable": "$.coordinate_match_min_sep_arcsec", "NumericLessThan": 2,
       "Next": "UpsertAliasForExistingNova"},
      {"Variable": "$.coordinate_match_min_sep_arcsec",
       "NumericLessThanEquals": 10,
       "Next": "RecordQuarantineReason_coordinate_match_ambiguous"}])"));
  EXPECT_EQ(states["RecordQuarantineReason_coordinate_match_ambiguous"]["Next"],
            "QuarantineHandler");
}

TEST(AslEmitterTest, MapConcurrencyComesFromGovernance) {
  json discover = Emit("specs/discover_spectra_products.yaml");
  const json& map = discover["States"]["DiscoverAcrossProviders"];
  EXPECT_EQ(map["MaxConcurrency"], 1);
  EXPECT_EQ(map["ItemsPath"], "$.providers");
  EXPECT_EQ(map["ItemSelector"]["provider.$"], "$$.Map.Item.Value");
  EXPECT_EQ(map["ItemProcessor"]["ProcessorConfig"]["Mode"], "INLINE");
  // Only QUARANTINE item errors are quarantined; the Map continues.
  EXPECT_EQ(map["ItemProcessor"]["States"]["QueryProviderForProducts"]["Catch"],
            json::parse(R"([{"ErrorEquals": ["QuarantineError"],
      "ResultPath": "$.error", "Next": "QuarantineProvider"}])"));
  json refresh = Emit("specs/refresh_references.yaml");
  EXPECT_EQ(refresh["States"]["ReconcileReferences"]["MaxConcurrency"], 5);
}

TEST(AslLintTest, SeedDefinitionsAreClean) {
  for (const char* spec :
       {"specs/initialize_nova.yaml", "specs/discover_spectra_products.yaml",
        "specs/refresh_references.yaml",
        "tests/golden/emitter_features.yaml"}) {
    EXPECT_EQ(testing::LintAsl(Emit(spec)), std::vector<std::string>{}) << spec;
  }
}

TEST(AslLintTest, FindsWhatAslValidatorMisses) {
  json bad = json::parse(R"({"States": {
    "T": {"Type": "Task",
      "Retry": [{"ErrorEquals": ["States.ALL", "X"], "IntervalSeconds": 2,
                 "MaxAttempts": 3, "BackoffRate": 0.5}],
      "Catch": [{"ErrorEquals": ["States.ALL"], "Next": "A"},
                {"ErrorEquals": ["Q"], "ResultPath": "$.e", "Next": "B"}]}}})");
  EXPECT_EQ(
      testing::LintAsl(bad),
      (std::vector<std::string>{"T: States.ALL must be alone in its Retrier",
                                "T: Retrier without MaxDelaySeconds",
                                "T: Retrier without JitterStrategy NONE",
                                "T: BackoffRate must be a number >= 1",
                                "T: the Catcher with States.ALL must be last",
                                "T: Catcher without explicit ResultPath"}));
}

}  // namespace
}  // namespace asl_emitter_test
}  // namespace novacat
