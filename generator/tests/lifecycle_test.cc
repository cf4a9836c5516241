// The shared run lifecycle (`lifecycle: shared`, the governance's prologue
// and epilogue): where its states go, overrides, "$begin", what is left
// out, and the errors, with whole messages.
#include <gtest/gtest.h>

#include <map>

#include "compiler.h"
#include "in_memory_files.h"

namespace novacat {
namespace lifecycle_test {
namespace {

// In-memory specs over the real governance files.
constexpr auto Files = testing::FilesOverDisk;

// A workflow on the seeds' governance with `states` (and `extra` keys).
std::string Spec(
    const std::string& states, const std::string& extra = "",
    const std::string& catch_routes = "  failure: TerminalFailHandler\n") {
  return "workflow: t\ngovernance: shared/governance.yaml\nlifecycle: "
         "shared\n" +
         extra +
         "input: t\nevents:\n  t:\n    fields:\n      nova_id: {type: uuid, "
         "required: true}\n      correlation_id: uuid\noutcomes:\n  "
         "DUPLICATE_SKIPPED: skipped\n  DONE: done\nidempotency:\n  key: "
         "\"T:{nova_id}\"\ncatch:\n" +
         catch_routes + "states:\n" + states;
}

struct Loaded {
  std::unique_ptr<WorkflowSpec> spec;
  std::string diagnostics;
};

Loaded Load(const std::string& text,
            std::map<std::string, std::string> more = {}) {
  more["specs/t.yaml"] = text;
  DiagnosticSink sink;
  auto specs = LoadAndCheck({"specs/t.yaml"}, Files(more), sink);
  Loaded out;
  out.diagnostics = sink.FormatAll();
  if (!specs.empty()) out.spec = std::move(specs.front());
  return out;
}

std::vector<std::string> Names(const WorkflowSpec& spec) {
  std::vector<std::string> names;
  for (const auto& s : spec.graph.states) names.push_back(s.name);
  return names;
}

const char* kWork =
    "  DoWork: {type: Task, timeout: 5s, next: FinalizeJobRunSuccess, "
    "outcome: DONE}\n";

TEST(LifecycleTest, PrologueOwnStatesEpilogue) {
  Loaded l = Load(Spec(kWork));
  ASSERT_TRUE(l.spec);
  EXPECT_EQ(l.diagnostics, "");
  // No quarantine route: no QuarantineHandler, no FinalizeJobRunQuarantined.
  EXPECT_EQ(Names(*l.spec),
            (std::vector<std::string>{
                "ValidateInput", "EnsureCorrelationId", "GenerateCorrelationId",
                "BeginJobRun", "AcquireIdempotencyLock", "IsDuplicateRun?",
                "DoWork", "FinalizeJobRunSuccess", "TerminalFailHandler",
                "FinalizeJobRunFailed", "WorkflowFailed"}));
  EXPECT_EQ(l.spec->graph.start, "ValidateInput");
  EXPECT_EQ(l.spec->graph.Find("IsDuplicateRun?")->default_transition.target,
            "DoWork");
  // The lifecycle's states keep their place in the governance file.
  EXPECT_EQ(l.spec->graph.Find("BeginJobRun")->location.file,
            "specs/shared/governance.yaml");
}

TEST(LifecycleTest, AQuarantineRouteKeepsTheQuarantineEnd) {
  Loaded l = Load(Spec(kWork, "",
                       "  quarantine: QuarantineHandler\n  failure: "
                       "TerminalFailHandler\n"));
  ASSERT_TRUE(l.spec);
  EXPECT_EQ(l.diagnostics, "");
  std::vector<std::string> names = Names(*l.spec);
  EXPECT_EQ(std::vector<std::string>(names.begin() + 7, names.end()),
            (std::vector<std::string>{
                "FinalizeJobRunSuccess", "QuarantineHandler",
                "FinalizeJobRunQuarantined", "TerminalFailHandler",
                "FinalizeJobRunFailed", "WorkflowFailed"}));
}

// An override takes the lifecycle state's place; `begin` is where the
// duplicate check leads.
TEST(LifecycleTest, OverridesAndBegin) {
  Loaded l = Load(
      Spec("  BeginJobRun: {type: Task, builtin: BeginJobRun, timeout: 10s, "
           "next: Prepare}\n"
           "  Prepare: {type: Pass, next: AcquireIdempotencyLock}\n" +
               std::string(kWork),
           "begin: DoWork\n"));
  ASSERT_TRUE(l.spec);
  EXPECT_EQ(l.diagnostics, "");
  EXPECT_EQ(
      Names(*l.spec),
      (std::vector<std::string>{
          "ValidateInput", "EnsureCorrelationId", "GenerateCorrelationId",
          "BeginJobRun", "AcquireIdempotencyLock", "IsDuplicateRun?", "Prepare",
          "DoWork", "FinalizeJobRunSuccess", "TerminalFailHandler",
          "FinalizeJobRunFailed", "WorkflowFailed"}));
  EXPECT_EQ(l.spec->graph.Find("BeginJobRun")->next.target, "Prepare");
  EXPECT_EQ(l.spec->graph.Find("BeginJobRun")->location.file, "specs/t.yaml");
  EXPECT_EQ(l.spec->graph.Find("IsDuplicateRun?")->default_transition.target,
            "DoWork");
}

TEST(LifecycleTest, Errors) {
  std::string mine = Spec(kWork);
  mine.replace(mine.find("lifecycle: shared"), 17, "lifecycle: mine");
  std::string wrong = Load(mine).diagnostics;
  EXPECT_NE(wrong.find("specs/t.yaml:3:12: error: lifecycle must be 'shared' "
                       "(the governance's run lifecycle); got 'mine' "
                       "[wrong-type]\n"),
            std::string::npos)
      << wrong;
  std::string unknown = Load(Spec(kWork, "begin: DoIt\n")).diagnostics;
  EXPECT_NE(unknown.find("specs/t.yaml:4:8: error: begin: no state 'DoIt' "
                         "[unknown-state]\n"),
            std::string::npos)
      << unknown;
  // A governance without a lifecycle.
  std::string governance = *DiskFileReader()("specs/shared/governance.yaml");
  governance.erase(governance.find("\nlifecycle:"));
  std::string spec = Spec(kWork);
  spec.replace(spec.find("shared/governance.yaml"), 22, "other.yaml");
  std::string missing =
      Load(spec, {{"specs/other.yaml", governance + "\n"}}).diagnostics;
  EXPECT_NE(
      missing.find("specs/t.yaml:3:12: error: lifecycle: shared, but "
                   "the governance file specs/other.yaml has no "
                   "lifecycle (prologue and epilogue) [lifecycle-missing]"),
      std::string::npos)
      << missing;
}

}  // namespace
}  // namespace lifecycle_test
}  // namespace novacat
