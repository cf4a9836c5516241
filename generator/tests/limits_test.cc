// Worst-case durations: exact seconds and paths on the seed specs.
#include "check/limits.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "compiler.h"
#include "emit/generator.h"
#include "in_memory_files.h"

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

// specs/<name>.yaml: `tasks` Tasks in a chain between the builtins.
std::pair<std::string, std::string> ChainSpec(const std::string& name,
                                              int tasks) {
  std::string s = fmt::format(
      "workflow: {0}\n"
      "governance: shared/governance.yaml\n"
      "input: {0}_requested\n"
      "events:\n  {0}_requested:\n    fields:\n"
      "      nova_id: {{type: uuid, required: true}}\n"
      "      correlation_id: {{type: uuid}}\n"
      "outcomes:\n  DONE: done\n"
      "idempotency:\n  key: \"{0}:{{nova_id}}:{{schema_version}}\"\n"
      "catch:\n  quarantine: QuarantineHandler\n  failure: "
      "TerminalFailHandler\n"
      "states:\n"
      "  BeginJobRun: {{type: Task, builtin: BeginJobRun, timeout: 10s, next: "
      "AcquireIdempotencyLock}}\n"
      "  AcquireIdempotencyLock: {{type: Task, builtin: "
      "AcquireIdempotencyLock, timeout: 10s, next: Step0}}\n",
      name);
  for (int i = 0; i < tasks; ++i)
    s += fmt::format(
        "  Step{}: {{type: Task, timeout: 20s, retry: {{max_attempts: 2}}, "
        "next: {}}}\n",
        i,
        i + 1 < tasks ? fmt::format("Step{}", i + 1)
                      : "FinalizeJobRunSuccess, outcome: DONE");
  s += "  FinalizeJobRunSuccess: {type: Task, builtin: FinalizeJobRunSuccess, "
       "timeout: 10s, end: true}\n"
       "  QuarantineHandler: {type: Task, builtin: QuarantineHandler, "
       "timeout: 10s, next: FinalizeJobRunQuarantined}\n"
       "  FinalizeJobRunQuarantined: {type: Task, builtin: "
       "FinalizeJobRunQuarantined, timeout: 10s, end: true}\n"
       "  TerminalFailHandler: {type: Task, builtin: TerminalFailHandler, "
       "timeout: 10s, next: FinalizeJobRunFailed}\n"
       "  FinalizeJobRunFailed: {type: Task, builtin: FinalizeJobRunFailed, "
       "timeout: 10s, next: Failed}\n"
       "  Failed: {type: Fail, error: TerminalError}\n";
  return {"specs/" + name + ".yaml", s};
}

// The idempotency lock outlasts every live run: download_and_validate_spectra
// can run 151h 49m 26s (500 datasets, 4 at a time, each up to an hour of
// downloads), far past the hour the runtime's default gave. A cycle (a
// Choice looping back) has no bound: Step Functions' one year.
TEST(LimitsTest, TheLockLastsTheWorstCase) {
  auto download = Load("specs/download_and_validate_spectra.yaml");
  ASSERT_TRUE(download);
  EXPECT_EQ(LockLeaseSeconds(*download), 546566);
  EXPECT_EQ(LockLeaseSeconds(*download), ComputeWorstCase(*download).seconds);

  auto [path, text] = ChainSpec("looping", 1);
  const std::string step =
      "  Step0: {type: Task, timeout: 20s, retry: {max_attempts: 2}, next: "
      "FinalizeJobRunSuccess, outcome: DONE}\n";
  ASSERT_NE(text.find(step), std::string::npos);
  text.replace(text.find(step), step.size(),
               "  Step0: {type: Task, timeout: 20s, produces: [again], next: "
               "Repeat}\n"
               "  Repeat: {type: Choice, rules: [{when: {field: again, "
               "equals: false}, next: FinalizeJobRunSuccess, outcome: DONE}], "
               "default: Step0}\n");
  text.replace(text.find("outcomes:"), 0, "data:\n  again: {type: boolean}\n");
  DiagnosticSink sink;
  auto specs =
      LoadAndCheck({path}, testing::FilesOverDisk({{path, text}}), sink);
  ASSERT_EQ(sink.FormatAll(), "");
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_FALSE(ComputeWorstCase(*specs[0]).bounded);
  EXPECT_EQ(LockLeaseSeconds(*specs[0]), kMaxExecutionSeconds);
  EXPECT_EQ(kMaxExecutionSeconds, 31536000);
}

// The diagnostics of Compile on `specs`, each "file:line:col rule:
// message", and the sizes of what Emit makes of them (which Compile does
// not return when it refuses them): the definitions' and the stack's.
struct QuotaRun {
  std::vector<std::string> diagnostics;
  std::vector<size_t> definitions;
  size_t stack = 0;
};
QuotaRun CompileChains(const std::map<std::string, std::string>& specs) {
  QuotaRun run;
  std::vector<std::string> paths;
  for (const auto& [path, text] : specs) paths.push_back(path);
  const FileReader read = testing::FilesOverDisk(specs);
  DiagnosticSink loaded;
  const auto models = LoadAndCheck(paths, read, loaded);
  EXPECT_EQ(loaded.FormatAll(), "");
  const FileSet files = Emit(models);
  for (const auto& spec : models)
    run.definitions.push_back(
        files.files().at(DefinitionPath(*spec)).content.size());
  run.stack = files.files().at("stack.template.json").content.size();
  DiagnosticSink sink;
  EXPECT_FALSE(Compile(paths, read, sink, "generated"));
  for (const Diagnostic& d : sink.diagnostics())
    run.diagnostics.push_back(fmt::format("{}:{}:{} {}: {}", d.location.file,
                                          d.location.line, d.location.column,
                                          d.rule, d.message));
  return run;
}

// A definition over 1 MiB is refused at the spec's `workflow:` key; its
// stack, which embeds it, is over CloudFormation's quota too.
TEST(DeployQuotasTest, ADefinitionOverOneMebibyteIsRefused) {
  const QuotaRun run = CompileChains({ChainSpec("long_chain", 710)});
  ASSERT_EQ(run.definitions.size(), 1u);
  ASSERT_GT(run.definitions[0], kDefinitionQuotaBytes);
  EXPECT_EQ(
      run.diagnostics,
      (std::vector<std::string>{
          fmt::format("generated/stack.template.json:0:0 template-size: the "
                      "stack template is {} bytes, above CloudFormation's "
                      "quota of 1000000 bytes for a template in S3; deploy "
                      "fewer workflows in one stack",
                      run.stack),
          fmt::format("specs/long_chain.yaml:1:11 definition-size: the "
                      "definition of 'long_chain' is {} bytes, above Step "
                      "Functions' quota of 1048576 bytes (1 MiB) for a state "
                      "machine definition; split the workflow",
                      run.definitions[0])}));
}

// Definitions under the quota whose stack is over CloudFormation's: only
// the template is refused.
TEST(DeployQuotasTest, AStackOverCloudFormationsQuotaIsRefused) {
  const QuotaRun run = CompileChains(
      {ChainSpec("first_chain", 330), ChainSpec("second_chain", 330)});
  ASSERT_EQ(run.definitions.size(), 2u);
  EXPECT_LE(run.definitions[0], kDefinitionQuotaBytes);
  EXPECT_LE(run.definitions[1], kDefinitionQuotaBytes);
  EXPECT_EQ(run.diagnostics,
            (std::vector<std::string>{fmt::format(
                "generated/stack.template.json:0:0 template-size: the stack "
                "template is {} bytes, above CloudFormation's quota of "
                "1000000 bytes for a template in S3; deploy fewer workflows "
                "in one stack",
                run.stack)}));
}

}  // namespace
}  // namespace limits_test
}  // namespace novacat
