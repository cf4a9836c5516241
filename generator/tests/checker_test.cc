// Whole-diagnostic tests of the checker on small in-memory specs; the
// malformed corpus (tests/malformed/) covers every rule from files.
#include "check/checker.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler.h"
#include "emit/cpp_emitter.h"
#include "in_memory_files.h"
#include "load/spec_loader.h"

namespace novacat {
namespace checker_test {
namespace {

// In-memory specs over the real governance files.
constexpr auto Files = testing::FilesOverDisk;

std::string Diagnose(const std::string& text) {
  DiagnosticSink sink;
  LoadAndCheck({"specs/t.yaml"}, Files({{"specs/t.yaml", text}}), sink);
  return sink.FormatAll();
}

const char* kHead = R"(workflow: t
governance: shared/governance.yaml
input: t
events:
  t:
    fields:
      nova_id: {type: uuid, required: true}
outcomes:
  DONE: done
idempotency:
  key: "T:{nova_id}"
catch:
  failure: TerminalFailHandler
states:
  BeginJobRun: {type: Task, builtin: BeginJobRun, timeout: 10s, next: AcquireIdempotencyLock}
  AcquireIdempotencyLock: {type: Task, builtin: AcquireIdempotencyLock, timeout: 10s, next: Work}
)";
const char* kTail =
    R"(  FinalizeJobRunSuccess: {type: Task, builtin: FinalizeJobRunSuccess, timeout: 10s, end: true}
  TerminalFailHandler: {type: Task, builtin: TerminalFailHandler, timeout: 10s, next: FinalizeJobRunFailed}
  FinalizeJobRunFailed: {type: Task, builtin: FinalizeJobRunFailed, timeout: 10s, next: Failed}
  Failed: {type: Fail, error: TerminalError}
)";

TEST(CheckerTest, SeedSpecsHaveNoDiagnostics) {
  DiagnosticSink sink;
  auto specs = LoadAndCheck(
      {"specs/initialize_nova.yaml", "specs/discover_spectra_products.yaml",
       "specs/refresh_references.yaml"},
      DiskFileReader(), sink);
  EXPECT_EQ(sink.FormatAll(), "");
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(specs.size(), 3u);
}

// An event two specs declare themselves (identically or not) is declared
// once, in the event catalog; naming it there is fine.
TEST(CheckerTest, AnEventIsDeclaredOnce) {
  std::string first = std::string(kHead) +
                      "  Work: {type: Task, timeout: 5s, next: "
                      "FinalizeJobRunSuccess, outcome: DONE}\n" +
                      kTail;
  std::string second = first;
  second.replace(second.find("workflow: t"), 11, "workflow: u");
  DiagnosticSink sink;
  LoadAndCheck({"specs/t.yaml", "specs/u.yaml"},
               Files({{"specs/t.yaml", first}, {"specs/u.yaml", second}}),
               sink);
  EXPECT_EQ(sink.FormatAll(),
            "specs/u.yaml:5:3: error: event 't' is also declared at "
            "specs/t.yaml:5; declare it once, in the event catalog "
            "(event_catalog: shared/events.yaml), and name it in each spec "
            "without 'fields' [event-conflict]\n"
            "    5 |   t:\n"
            "      |   ^\n"
            "1 error, 0 warnings\n");
  // Both from the catalog: nothing to say.
  const std::string catalog =
      "events:\n  t:\n    fields:\n      nova_id: {type: uuid, required: "
      "true}\n";
  auto from_catalog = [](std::string spec) {
    spec.replace(spec.find("governance:"), 0,
                 "event_catalog: shared/events.yaml\n");
    spec.replace(spec.find("  t:\n    fields:\n      nova_id: {type: "
                           "uuid, required: true}\n"),
                 std::string("  t:\n    fields:\n      nova_id: {type: uuid, "
                             "required: true}\n")
                     .size(),
                 "  t: {}\n");
    return spec;
  };
  DiagnosticSink shared;
  auto specs = LoadAndCheck({"specs/t.yaml", "specs/u.yaml"},
                            Files({{"specs/t.yaml", from_catalog(first)},
                                   {"specs/u.yaml", from_catalog(second)},
                                   {"specs/shared/events.yaml", catalog}}),
                            shared);
  EXPECT_EQ(shared.FormatAll(), "");
  ASSERT_EQ(specs.size(), 2u);
  ASSERT_TRUE(specs[1]->FindEvent("t"));
  EXPECT_EQ(specs[1]->FindEvent("t")->fields.front().location.file,
            "specs/shared/events.yaml");
}

TEST(CheckerTest, MinimalSpecIsClean) {
  EXPECT_EQ(Diagnose(std::string(kHead) +
                     "  Work: {type: Task, timeout: 5s, next: "
                     "FinalizeJobRunSuccess, outcome: DONE}\n" +
                     kTail),
            "");
}

TEST(CheckerTest, SuccessPathWithoutOutcomeNamesThePath) {
  EXPECT_EQ(Diagnose(std::string(kHead) +
                     "  Work: {type: Task, timeout: 5s, next: "
                     "FinalizeJobRunSuccess}\n" +
                     kTail),
            "specs/t.yaml:9:3: error: outcome 'DONE' is declared but no path "
            "to FinalizeJobRunSuccess records it [outcome-unreachable]\n"
            "    9 |   DONE: done\n"
            "      |   ^~~~\n"
            "specs/t.yaml:17:41: error: this path reaches "
            "FinalizeJobRunSuccess without recording an outcome: BeginJobRun "
            "-> AcquireIdempotencyLock -> Work -> FinalizeJobRunSuccess; add "
            "'outcome:' to one of its transitions [outcome-missing]\n"
            "   17 |   Work: {type: Task, timeout: 5s, next: "
            "FinalizeJobRunSuccess}\n"
            "      |                                         "
            "^~~~~~~~~~~~~~~~~~~~~\n"
            "2 errors, 0 warnings\n");
}

TEST(CheckerTest, RetryOnTerminalAndInexpressibleBackoffAreBothReported) {
  EXPECT_EQ(
      Diagnose(std::string(kHead) +
               "  Work:\n    type: Task\n    timeout: 5s\n"
               "    retry: {on: [TERMINAL], max_attempts: 3, backoff: [2s, "
               "4s, 16s]}\n"
               "    next: FinalizeJobRunSuccess\n    outcome: DONE\n" +
               kTail),
      "specs/t.yaml:20:18: error: state 'Work' retries TERMINAL errors; only "
      "RETRYABLE errors may be retried [retry-only-retryable]\n"
      "   20 |     retry: {on: [TERMINAL], max_attempts: 3, backoff: [2s, 4s, "
      "16s]}\n"
      "      |                  ^~~~~~~~\n"
      "specs/t.yaml:20:55: error: backoff 2s, 4s, 16s of state 'Work' cannot "
      "be produced by IntervalSeconds * BackoffRate^n capped by "
      "MaxDelaySeconds; closest is IntervalSeconds 2, BackoffRate 2.828427, "
      "MaxDelaySeconds 16 giving 2s, 5.66s, 16s [backoff-inexpressible]\n"
      "   20 |     retry: {on: [TERMINAL], max_attempts: 3, backoff: [2s, 4s, "
      "16s]}\n"
      "      |                                                       ^\n"
      "2 errors, 0 warnings\n");
}

TEST(CheckerTest, QuarantineWithoutRouteIsAnError) {
  std::string spec = std::string(kHead) +
                     "  Work: {type: Task, timeout: 5s, next: "
                     "FinalizeJobRunSuccess, outcome: DONE}\n" +
                     kTail +
                     "failures:\n  odd:\n    class: QUARANTINE\n"
                     "    raised_by: [Work]\n";
  EXPECT_EQ(Diagnose(spec),
            "specs/t.yaml:17:3: error: state 'Work' may raise QUARANTINE "
            "errors but nothing routes them to a quarantine handler; set "
            "'catch: {quarantine: ...}' (or a Map's 'item_failure') so the "
            "run is not recorded FAILED [quarantine-unrouted]\n"
            "   17 |   Work: {type: Task, timeout: 5s, next: "
            "FinalizeJobRunSuccess, outcome: DONE}\n"
            "      |   ^~~~\n"
            "1 error, 0 warnings\n");
}

TEST(CheckerTest, ErrorsStopEmission) {
  DiagnosticSink sink;
  auto files = Compile({"specs/t.yaml"},
                       Files({{"specs/t.yaml", "workflow: [\n"}}), sink);
  EXPECT_FALSE(files.has_value());
  EXPECT_EQ(sink.error_count(), 1);
  EXPECT_EQ(sink.diagnostics()[0].rule, "yaml-syntax");
}

// A run that writes nothing makes no scaffold; every other file is the same.
TEST(CompileTest, SkipsTheScaffoldsWhenAsked) {
  const std::vector<std::string> seeds = {"specs/initialize_nova.yaml"};
  DiagnosticSink sink;
  auto made = Compile(seeds, DiskFileReader(), sink);
  auto skipped = Compile(seeds, DiskFileReader(), sink, "", Scaffolds::kSkip);
  ASSERT_TRUE(made.has_value());
  ASSERT_TRUE(skipped.has_value());
  std::vector<std::string> scaffolds;
  for (const auto& [path, content] : made->scaffolds()) {
    scaffolds.push_back(path);
    EXPECT_FALSE(content.empty()) << path;
  }
  EXPECT_EQ(scaffolds, (std::vector<std::string>{"initialize_nova/steps.cpp",
                                                 "initialize_nova/steps.hpp"}));
  EXPECT_TRUE(skipped->scaffolds().empty());
  ASSERT_EQ(made->files().size(), skipped->files().size());
  for (const auto& [path, file] : made->files())
    EXPECT_EQ(skipped->files().at(path).content, file.content) << path;
}

// A file edited in the output folder is the one CheckFiles finds stale.
TEST(CompileTest, CheckFilesFindsTheFileEditedInTheOutputFolder) {
  namespace fs = std::filesystem;
  // The pid keeps two test runs at once (two build folders) apart.
  const fs::path out = fs::temp_directory_path() /
                       ("novacat_compile_edited_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::vector<std::string> seeds = {"specs/initialize_nova.yaml"};
  DiagnosticSink sink;
  auto first = Compile(seeds, DiskFileReader(), sink, out.string());
  ASSERT_TRUE(first.has_value());
  ASSERT_TRUE(WriteFiles(*first, out.string()).errors.empty());
  std::ofstream(out / "initialize_nova/README.md") << "edited\n";
  auto second = Compile(seeds, DiskFileReader(), sink, out.string());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(CheckFiles(*second, out.string()).findings,
            (std::vector<std::pair<std::string, std::string>>{
                {"initialize_nova/README.md", "out of date"}}));
  fs::remove_all(out);
}

// A spec names secrets the governance declares, each once.
TEST(CheckerTest, SecretsAreTheGovernances) {
  const std::string work =
      "  Work: {type: Task, timeout: 5s, next: FinalizeJobRunSuccess, "
      "outcome: DONE}\n";
  auto with = [&](const std::string& secrets) {
    std::string spec = std::string(kHead) + work + kTail;
    spec.replace(spec.find("input: t\n"), 0, secrets);
    return spec;
  };
  EXPECT_EQ(Diagnose(with("secrets: [tns, ads]\n")), "");
  EXPECT_EQ(Diagnose(with("secrets: [tns, adz]\n")),
            "specs/t.yaml:3:16: error: secret 'adz' is not declared in the "
            "governance's 'secrets'; did you mean 'ads'? [unknown-secret]\n"
            "    3 | secrets: [tns, adz]\n"
            "      |                ^~~\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Diagnose(with("secrets: [tns, ads, tns]\n")),
            "specs/t.yaml:3:21: error: secret 'tns' is named twice in "
            "'secrets' (first at line 3) [duplicate-key]\n"
            "    3 | secrets: [tns, ads, tns]\n"
            "      |                     ^~~\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Diagnose(with("secrets: tns\n")),
            "specs/t.yaml:3:10: error: 'secrets' in the workflow spec must be "
            "a list, got 'tns' [wrong-type]\n"
            "    3 | secrets: tns\n"
            "      |          ^~~\n"
            "1 error, 0 warnings\n");
}

// `job_run_output` names `data` fields, each once; the binding carries the
// list, in the spec's order, to the runtime's Finalize builtins.
TEST(CheckerTest, JobRunOutputNamesDataFields) {
  const std::string work =
      "  Work: {type: Task, timeout: 5s, produces: [summary, count], next: "
      "FinalizeJobRunSuccess, outcome: DONE}\n";
  auto with = [&](const std::string& output) {
    std::string spec = std::string(kHead) + work + kTail;
    spec.replace(
        spec.find("outcomes:\n"), 0,
        "data:\n  summary: {type: object}\n  count: integer\n" + output);
    return spec;
  };
  EXPECT_EQ(Diagnose(with("job_run_output: [count, summary]\n")), "");
  EXPECT_EQ(Diagnose(with("job_run_output: [count, sumary]\n")),
            "specs/t.yaml:11:25: error: 'job_run_output' names 'sumary', "
            "which is not declared under 'data'; did you mean 'summary'? "
            "[unknown-field]\n"
            "   11 | job_run_output: [count, sumary]\n"
            "      |                         ^~~~~~\n"
            "1 error, 0 warnings\n");
  // An input field is not the run's output.
  EXPECT_EQ(Diagnose(with("job_run_output: [nova_id]\n")),
            "specs/t.yaml:11:18: error: 'job_run_output' names 'nova_id', "
            "which is not declared under 'data' [unknown-field]\n"
            "   11 | job_run_output: [nova_id]\n"
            "      |                  ^~~~~~~\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Diagnose(with("job_run_output: [count, summary, count]\n")),
            "specs/t.yaml:11:34: error: field 'count' is named twice in "
            "'job_run_output' (first at line 11) [duplicate-key]\n"
            "   11 | job_run_output: [count, summary, count]\n"
            "      |                                  ^~~~~\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Diagnose(with("job_run_output: count\n")),
            "specs/t.yaml:11:17: error: 'job_run_output' in the workflow spec "
            "must be a list, got 'count' [wrong-type]\n"
            "   11 | job_run_output: count\n"
            "      |                 ^~~~~\n"
            "1 error, 0 warnings\n");
  EXPECT_EQ(Diagnose(with("job_run_output: [[count]]\n")),
            "specs/t.yaml:11:18: error: entries of 'job_run_output' in the "
            "workflow spec must be strings, got a sequence [wrong-type]\n"
            "   11 | job_run_output: [[count]]\n"
            "      |                  ^\n"
            "1 error, 0 warnings\n");

  DiagnosticSink sink;
  auto specs = LoadAndCheck(
      {"specs/t.yaml"},
      Files({{"specs/t.yaml", with("job_run_output: [count, summary]\n")}}),
      sink);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0]->job_run_output,
            (std::vector<std::string>{"count", "summary"}));
  std::string source = EmitCpp(*specs[0]).source;
  EXPECT_NE(source.find("\n  facts.job_run_output = {\"count\", "
                        "\"summary\"};\n"),
            std::string::npos);
  specs =
      LoadAndCheck({"specs/t.yaml"}, Files({{"specs/t.yaml", with("")}}), sink);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_NE(EmitCpp(*specs[0]).source.find("\n  facts.job_run_output = {};\n"),
            std::string::npos);
}

// The stack has one parameter per secret id: specs of one run whose
// governance files declare an id differently are an error; the same
// declaration in two files is not.
TEST(CheckerTest, ASecretIsOneSecretInAStack) {
  std::ifstream in("specs/shared/governance.yaml");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string governance = buffer.str();
  const std::string spec = std::string(kHead) +
                           "  Work: {type: Task, timeout: 5s, next: "
                           "FinalizeJobRunSuccess, outcome: DONE}\n" +
                           kTail;
  std::string t = spec;
  t.replace(t.find("input: t\n"), 0, "secrets: [tns]\n");
  std::string u = t;
  u.replace(u.find("workflow: t"), 11, "workflow: u");
  u.replace(u.find("shared/governance.yaml"), 22, "shared/other.yaml");
  // Its own input event (not a second declaration of t's).
  const std::string event = "input: t\nevents:\n  t:";
  u.replace(u.find(event), event.size(), "input: u\nevents:\n  u:");
  auto run = [&](const std::string& other) {
    DiagnosticSink sink;
    LoadAndCheck({"specs/t.yaml", "specs/u.yaml"},
                 Files({{"specs/t.yaml", t},
                        {"specs/u.yaml", u},
                        {"specs/shared/other.yaml", other}}),
                 sink);
    return sink.FormatAll();
  };
  EXPECT_EQ(run(governance), "");
  std::string renamed = governance;
  ASSERT_NE(renamed.find("variable: NOVACAT_TNS_SECRET"), std::string::npos);
  renamed.replace(renamed.find("variable: NOVACAT_TNS_SECRET"), 28,
                  "variable: NOVACAT_TNS_BOT_SECRET");
  const int line = [&] {
    const std::string key = "\n  tns:\n";
    const size_t at = governance.find(key);
    return 2 + static_cast<int>(std::count(governance.begin(),
                                           governance.begin() + at, '\n'));
  }();
  EXPECT_EQ(
      run(renamed),
      fmt::format("specs/u.yaml:3:11: error: secret 'tns' is declared at "
                  "specs/shared/other.yaml:{0} with another variable than at "
                  "specs/shared/governance.yaml:{0}; the stack has one "
                  "parameter per secret, so the specs of one stack must name "
                  "the same governance [secret-conflict]\n"
                  "    3 | secrets: [tns]\n"
                  "      |           ^~~\n"
                  "1 error, 0 warnings\n",
                  line));
  std::string described = governance;
  ASSERT_NE(described.find("The TNS bot's credentials"), std::string::npos);
  described.replace(described.find("The TNS bot's credentials"), 25,
                    "TNS's credentials");
  EXPECT_NE(run(described).find("with another description than at"),
            std::string::npos);
}

}  // namespace
}  // namespace checker_test
}  // namespace novacat
