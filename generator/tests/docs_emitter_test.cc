// The workflow docs emitter: key lines of the seed READMEs (Mermaid state
// diagram, Task table), nesting of Map items, escaping of hostile spec text
// in every context, and the DOT diagram rendered by Graphviz's `dot`.
#include "emit/docs_emitter.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include "compiler.h"
#include "emit/templates.h"
#include "seed_diagnostics.h"

namespace novacat {
namespace docs_emitter_test {
namespace {

using testing::UnexpectedDiagnostics;

using docs::DotString;
using docs::MarkdownBlock;
using docs::MarkdownCode;
using docs::MarkdownInline;
using docs::MermaidText;

const char* const kSeeds[] = {"specs/initialize_nova.yaml",
                              "specs/discover_spectra_products.yaml",
                              "specs/refresh_references.yaml"};

// Served from memory beside the real specs, so `governance:
// shared/governance.yaml` resolves to the real governance file.
const char kHostilePath[] = "specs/hostile_docs.yaml";

// Free text full of what Markdown, Mermaid, DOT, Mustache and C comments
// treat specially.
const char kNasty[] =
    R"(say "hi" \ back *star* _under_ {{mustache}} */ --> a|b: c; #d <i>tag</i> `tick` Nova Cygni 1975 — Δ)";

const char kChoiceName[] = R"(Check "it" {{x}} --> a|b: c; #d \e */ — Δ?)";
const char kPassName[] =
    "Pass <b>R&D</b> direction LR %%{init}%% [*] `t` ~~s~~";
const char kFailName[] = R"(Workflow "failed" \ here)";
const char kEnumValue[] = R"(a "b": c; #d <e> --> {{f}})";

// 5,000+ characters of hostile text in a YAML literal block (several
// paragraphs).
std::string LongDescription() {
  std::string block;
  int line = 0;
  while (block.size() < 5200) {
    block += "  " + std::string(kNasty) + " " + std::to_string(line) + "\n";
    if (++line % 10 == 0) block += "\n";
  }
  return block;
}

std::string HostileSpec() {
  std::string yaml = std::string(R"(workflow: hostile_docs
title: 'Title "quoted" \ back *star* _under_ {{mustache}} --> | pipe: colon; semi # hash <b>tag</b> Nova Cygni 1975 — Δ'
description: |
)") + LongDescription() +
                     R"(governance: shared/governance.yaml
triggers:
  - kind: manual
    description: 'Trigger "q" | pipe {{x}} */ `tick`'
invariants:
  - 'Invariant | with pipe, "quotes", \ backslash, {{mustache}}, */ and --> arrow'
input: touch_nova
events:
  touch_nova:
    description: |
      Event "desc" with
      newline | pipe
    fields:
      nova_id: {type: uuid, required: true, description: 'Field | pipe "q" \ b `t` <x>'}
      correlation_id: uuid
data:
  status: {type: string, enum: ['@ENUM@', plain]}
outcomes:
  TOUCHED: 'Outcome | pipe * star _u_ `tick` <tag> \ back'
failures:
  bad_input:
    class: TERMINAL
    description: 'Failure: "quoted" | pipe'
idempotency:
  key: "TouchNova:{nova_id}:{schema_version}"
catch:
  failure: TerminalFailHandler
states:
  EnsureCorrelationId:
    type: Choice
    rules:
      - when: {field: correlation_id, is_present: false}
        next: GenerateCorrelationId
    default: BeginJobRun
  GenerateCorrelationId:
    type: Pass
    generate: correlation_id
    next: BeginJobRun
  BeginJobRun:
    type: Task
    builtin: BeginJobRun
    timeout: 10s
    next: AcquireIdempotencyLock
  AcquireIdempotencyLock:
    type: Task
    builtin: AcquireIdempotencyLock
    timeout: 10s
    next: '@CHOICE@'
  '@CHOICE@':
    type: Choice
    description: 'Choice "desc" | pipe'
    rules:
      - when: {field: status, equals: '@ENUM@'}
        next: MarkNovaTouched
      - when: {all: [{field: status, is_present: true}, {not: {field: status, equals: plain}}]}
        next: '@PASS@'
    default: MarkNovaTouched
  '@PASS@':
    type: Pass
    description: 'Pass "desc" */ {{x}}'
    next: MarkNovaTouched
  MarkNovaTouched:
    type: Task
    description: |
      Task "desc" \ with
      newline | pipe `tick` */ {{x}} --> a: b; #c <d> — Δ
    timeout: 20s
    retry: {max_attempts: 2, note: 'note | "q" `t`'}
    dedupe_key: 'Dedupe|`k`:{nova_id}'
    access_patterns: [AP-INGEST-3]
    next: FinalizeJobRunSuccess
    outcome: TOUCHED
  FinalizeJobRunSuccess:
    type: Task
    builtin: FinalizeJobRunSuccess
    timeout: 10s
    end: true
  TerminalFailHandler:
    type: Task
    builtin: TerminalFailHandler
    timeout: 10s
    next: FinalizeJobRunFailed
  FinalizeJobRunFailed:
    type: Task
    builtin: FinalizeJobRunFailed
    timeout: 10s
    next: '@FAIL@'
  '@FAIL@':
    type: Fail
    error: TerminalError
    cause: 'Cause "x" \ y'
)";
  auto replace = [&](const std::string& token, const std::string& text) {
    for (size_t at = yaml.find(token); at != std::string::npos;
         at = yaml.find(token, at + text.size()))
      yaml.replace(at, token.size(), text);
  };
  replace("@CHOICE@", kChoiceName);
  replace("@PASS@", kPassName);
  replace("@FAIL@", kFailName);
  replace("@ENUM@", kEnumValue);
  return yaml;
}

std::unique_ptr<WorkflowSpec> Load(const std::string& path) {
  DiagnosticSink sink;
  FileReader disk = DiskFileReader();
  FileReader reader = [&](const std::string& p) -> std::optional<std::string> {
    if (p == kHostilePath) return HostileSpec();
    return disk(p);
  };
  auto specs = LoadAndCheck({path}, reader, sink);
  EXPECT_EQ(UnexpectedDiagnostics(sink), "") << path;
  EXPECT_EQ(specs.size(), 1u);
  return specs.empty() ? nullptr : std::move(specs.front());
}

std::string Readme(const std::string& path) {
  auto spec = Load(path);
  return spec ? EmitWorkflowDocs(*spec) : "";
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool HasLine(const std::string& text, const std::string& line) {
  for (const auto& l : Lines(text))
    if (l == line) return true;
  return false;
}

// The lines of the ```mermaid block.
std::vector<std::string> MermaidLines(const std::string& readme) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& l : Lines(readme)) {
    if (l == "```mermaid") {
      in = true;
    } else if (in && l == "```") {
      break;
    } else if (in) {
      out.push_back(l);
    }
  }
  return out;
}

std::string MermaidBlock(const std::string& readme) {
  std::string out;
  for (const auto& l : MermaidLines(readme)) out += l + "\n";
  return out;
}

template <typename F>
void ForEachState(const WorkflowSpec& spec, F&& f) {
  for (const auto& s : spec.graph.states) {
    f(s);
    if (s.item_states)
      for (const auto& item : s.item_states->states) f(item);
  }
}

// ---- escapers ---------------------------------------------------------------

TEST(DocsEscapeTest, Mermaid) {
  EXPECT_EQ(MermaidText("a:b;c#d\"e\nf"), "a#58;b#59;c#35;d#34;e f");
  EXPECT_EQ(MermaidText("x --> y"), "x --#62; y");
  EXPECT_EQ(MermaidText("{{m}} <i> [*] %% `t` \\ & * ~"),
            "#123;#123;m#125;#125; #60;i#62; #91;#42;#93; #37;#37; #96;t#96; "
            "#92; #38; #42; #126;");
  EXPECT_EQ(MermaidText("exists_in_db _x_"), "exists_in_db #95;x#95;");
  EXPECT_EQ(MermaidText("$$x$$"), "#36;#36;x#36;#36;");
  EXPECT_EQ(MermaidText("go Direction  LR"), "go Direction#32;LR");
  EXPECT_EQ(MermaidText("Nova Cygni 1975 — Δ"), "Nova Cygni 1975 — Δ");
}

TEST(DocsEscapeTest, Markdown) {
  EXPECT_EQ(MarkdownInline("a|b `c` *d* _e_ f_g <h> [i] \\ ~ $x"),
            "a\\|b \\`c\\` \\*d\\* \\_e\\_ f_g \\<h\\> \\[i\\] \\\\ \\~ \\$x");
  EXPECT_EQ(MarkdownInline("# title"), "\\# title");
  EXPECT_EQ(MarkdownInline("title ##"), "title \\##");
  EXPECT_EQ(MarkdownInline("a # b"), "a # b");
  EXPECT_EQ(MarkdownInline("- item"), "\\- item");
  EXPECT_EQ(MarkdownInline("1975. year"), "1975\\. year");
  EXPECT_EQ(MarkdownInline("R&D &amp; &#35;"), "R\\&D \\&amp; \\&#35;");
  EXPECT_EQ(MarkdownInline("  two\nlines\r\n  "), "two lines");
  EXPECT_EQ(MarkdownBlock("one\ntwo\n\n\nthree\n"), "one two\n\nthree");
  EXPECT_EQ(MarkdownCode("a`b", false), "``a`b``");
  EXPECT_EQ(MarkdownCode("`a", false), "`` `a ``");
  EXPECT_EQ(MarkdownCode("a|b", true), "`a\\|b`");
  EXPECT_EQ(MarkdownCode("a|b", false), "`a|b`");
}

TEST(DocsEscapeTest, Dot) {
  EXPECT_EQ(DotString(R"(a "b" \c)"), R"(a \"b\" \\c)");
  EXPECT_EQ(DotString("a\nb&c <d>"), "a\\nb&#38;c <d>");
}

// ---- seed READMEs -----------------------------------------------------------

TEST(DocsEmitterTest, InitializeNovaSectionsInOrder) {
  std::string md = Readme("specs/initialize_nova.yaml");
  size_t at = 0;
  for (const char* heading :
       {"# Initialize nova\n", "\nName-only front door", "## Triggers\n",
        "```mermaid\nstateDiagram-v2\n", "## Tasks\n", "## Outcomes\n",
        "## Events\n", "## Idempotency\n", "## Dedupe keys\n",
        "## Log fields\n", "## Invariants\n"}) {
    size_t found = md.find(heading, at);
    ASSERT_NE(found, std::string::npos)
        << "missing or out of order: " << heading;
    at = found;
  }
  EXPECT_EQ(md.rfind("<!-- Generated by novacat-gen from initialize_nova.yaml; "
                     "do not edit. -->\n",
                     0),
            0u);
  EXPECT_EQ(md.back(), '\n');
  EXPECT_EQ(md.find("\n\n\n"), std::string::npos);
}

// A trigger's schedule is in its line: the expression, and once per nova or
// the fixed input.
TEST(DocsEmitterTest, TriggersShowTheirSchedules) {
  std::string md = Readme("specs/refresh_references.yaml");
  EXPECT_TRUE(HasLine(md,
                      "- **scheduled** (`rate(1 day)`, once per nova): "
                      "Scheduled refresh (time-bucketed)."))
      << md;
  EXPECT_TRUE(HasLine(md,
                      "- **event** (after `ingest_new_nova`): Triggered "
                      "after ingest_new_nova."))
      << md;
  auto spec = Load("specs/refresh_references.yaml");
  ASSERT_TRUE(spec);
  spec->triggers[0].schedule->for_each.clear();
  spec->triggers[0].schedule->input = {{"nova_id", "n"}};
  EXPECT_TRUE(HasLine(EmitWorkflowDocs(*spec),
                      "- **scheduled** (`rate(1 day)`, input "
                      "`{\"nova_id\":\"n\"}`): Scheduled refresh "
                      "(time-bucketed)."));
}

TEST(DocsEmitterTest, InitializeNovaMermaid) {
  std::string md = Readme("specs/initialize_nova.yaml");
  std::string mermaid = MermaidBlock(md);
  for (const char* line : {
           "    [*] --> s0",
           "    state \"ValidateInput\" as s0",
           "    %% s1: EnsureCorrelationId",
           "    state s1 <<choice>>",
           "    s1 --> s2: correlation_id is not present",
           "    s1 --> s3: default",
           // ExistsInDB? branches: condition + outcome, and the default.
           "    %% s8: ExistsInDB?",
           "    state s8 <<choice>>",
           "    s8 --> s16: exists_in_db = true / outcome EXISTS_AND_LAUNCHED",
           "    s8 --> s9: default",
           "    s11 --> s17: coordinate_match_min_sep_arcsec < 2",
           "    s11 --> s19: coordinate_match_min_sep_arcsec <= 10 / "
           "quarantine reason coordinate_match_ambiguous",
           "    s13 --> s18: classical_nova_status = NO / outcome "
           "NOT_A_CLASSICAL_NOVA",
           // A Task's transition records its outcome.
           "    s15 --> s16: outcome CREATED_AND_LAUNCHED",
           // Catches: QUARANTINE first, then any failure.
           "    s6 --> s19: QUARANTINE",
           "    s6 --> s21: any failure",
           // Builtins catch only failures; the failure path nothing.
           "    s3 --> s21: any failure",
           "    s18 --> [*]",
           "    s20 --> [*]",
           "    s23 --> [*]",
       }) {
    EXPECT_TRUE(HasLine(mermaid, line)) << line << "\nin\n" << mermaid;
  }
  EXPECT_FALSE(HasLine(mermaid, "    s4 --> s20: QUARANTINE"));
  EXPECT_EQ(mermaid.find("s20 --> s17"), std::string::npos)
      << "the failure handler must not be caught";
  EXPECT_EQ(mermaid.find("s21 --> s20"), std::string::npos);
}

TEST(DocsEmitterTest, EveryStateIsInTheDiagram) {
  for (const char* path : kSeeds) {
    auto spec = Load(path);
    ASSERT_TRUE(spec);
    std::string mermaid = MermaidBlock(EmitWorkflowDocs(*spec));
    ForEachState(*spec, [&](const State& s) {
      EXPECT_NE(mermaid.find(MermaidText(s.name)), std::string::npos)
          << path << ": " << s.name;
    });
  }
}

TEST(DocsEmitterTest, InitializeNovaTaskTable) {
  std::string md = Readme("specs/initialize_nova.yaml");
  EXPECT_TRUE(HasLine(
      md,
      "| Task | Kind | Timeout | Retry | May raise | Catch | Access patterns "
      "| Dedupe key | Description |"));
  EXPECT_TRUE(HasLine(
      md,
      "| `NormalizeCandidateName` | domain | 10s | 2 retries: 2s, 10s "
      "(IntervalSeconds 2, BackoffRate 5, MaxDelaySeconds 10) | RETRYABLE "
      "(`transient_dependency_failure`); TERMINAL (`invalid_candidate_name`, "
      "`internal_invariant_violation`); QUARANTINE "
      "(`coordinate_match_ambiguous`) | QUARANTINE: `QuarantineHandler`; any "
      "failure: `TerminalFailHandler` |  |  | Runs before "
      "AcquireIdempotencyLock (the seed lists it after): the idempotency "
      "key is built from normalized_candidate_name, and normalizing has no "
      "side effect. |"))
      << md;
  EXPECT_TRUE(HasLine(
      md,
      "| `CheckExistingNovaByName` | domain | 20s | 3 retries: 2s, 10s, 30s "
      "(IntervalSeconds 2, BackoffRate 5, MaxDelaySeconds 30) | RETRYABLE "
      "(`transient_dependency_failure`); TERMINAL "
      "(`internal_invariant_violation`); QUARANTINE "
      "(`ambiguous_name_resolution`, `coordinate_match_ambiguous`) | "
      "QUARANTINE: `QuarantineHandler`; any failure: `TerminalFailHandler` | "
      "`AP-INIT-1` |  |  |"));
  EXPECT_TRUE(HasLine(
      md,
      "| `BeginJobRun` | builtin `BeginJobRun` | 10s | 3 retries: 2s, 10s, "
      "30s (IntervalSeconds 2, BackoffRate 5, MaxDelaySeconds 30) | TERMINAL "
      "(`schema_version_mismatch`, `invalid_candidate_name`) | any failure: "
      "`TerminalFailHandler` |  |  |  |"));
  EXPECT_TRUE(HasLine(
      md,
      "| `PublishIngestNewNova` | builtin `PublishEvent`: publishes "
      "[`ingest_new_nova`](../schemas/events/ingest_new_nova/latest.json) | "
      "10s | 2 retries: 2s, 10s (IntervalSeconds 2, BackoffRate 5, "
      "MaxDelaySeconds 10) |  | any failure: `TerminalFailHandler` |  |  |  "
      "|"));
  EXPECT_TRUE(HasLine(
      md,
      "| `TerminalFailHandler` | builtin `TerminalFailHandler` | 10s | 3 "
      "retries: 2s, 10s, 30s (IntervalSeconds 2, BackoffRate 5, "
      "MaxDelaySeconds 30) |  | none |  |  |  |"));
}

TEST(DocsEmitterTest, InitializeNovaOutcomesEventsKeysLogs) {
  std::string md = Readme("specs/initialize_nova.yaml");
  for (const char* line : {
           "| `EXISTS_AND_LAUNCHED` | The nova already existed (by name or by "
           "coordinates) and ingest_new_nova was launched. | `ExistsInDB?` → "
           "`PublishIngestNewNova`; `UpsertAliasForExistingNova` → "
           "`PublishIngestNewNova` | "
           "[`ingest_new_nova`](../schemas/events/ingest_new_nova/latest.json) "
           "|",
           "### `ingest_new_nova`",
           "Published by `PublishIngestNewNova` on `CREATED_AND_LAUNCHED`, "
           "`EXISTS_AND_LAUNCHED`.",
           "Schema: "
           "[`schemas/events/initialize_nova/latest.json`](../schemas/events/"
           "initialize_nova/latest.json)",
           "| `candidate_name` | string (min length 1) | yes | Public name or "
           "alias of the candidate nova. |",
           "- Workflow idempotency key: "
           "`InitializeNova:{normalized_candidate_name}:{schema_version}:{"
           "time_bucket}`",
           "- Time bucket: 1d",
           "No Task declares a step dedupe key.",
           "| `workflow_name` | required | governance |",
           "| `candidate_name` | required | this workflow |",
           "| `error_fingerprint` | when known | governance |",
           "| `coordinate_match_outcome` | when known | this workflow |",
           "- Downstream workflow launches use UUIDs only (nova_id).",
       }) {
    EXPECT_TRUE(HasLine(md, line)) << line;
  }
}

TEST(DocsEmitterTest, MapItemsAreNested) {
  std::string md = Readme("specs/discover_spectra_products.yaml");
  std::vector<std::string> lines = MermaidLines(md);
  auto open = std::find(lines.begin(), lines.end(), "    state s6 {");
  ASSERT_NE(open, lines.end()) << MermaidBlock(md);
  EXPECT_EQ(*(open - 1), "    state \"DiscoverAcrossProviders\" as s6");
  auto close = std::find(open, lines.end(), "    }");
  ASSERT_NE(close, lines.end());
  std::vector<std::string> inside(open + 1, close);
  for (const char* line : {
           "        state \"QueryProviderForProducts\" as s7",
           "        state \"NormalizeProviderProducts\" as s8",
           "        state \"DeduplicateAndAssignDatasetIds\" as s9",
           "        state \"PublishDatasetDiscoveredEvents\" as s10",
           "        state \"QuarantineProvider\" as s11",
           "        [*] --> s7",
           "        s7 --> s8",
           "        s7 --> s11: QUARANTINE",
           "        s10 --> [*]",
           "        s11 --> [*]",
       }) {
    EXPECT_NE(std::find(inside.begin(), inside.end(), line), inside.end())
        << line;
  }
  for (const auto& l : inside) EXPECT_EQ(l.rfind("        ", 0), 0u) << l;
  // The Map flows on as one state.
  EXPECT_TRUE(HasLine(MermaidBlock(md), "    s6 --> s12"));
  EXPECT_TRUE(HasLine(MermaidBlock(md), "    s6 --> s16: any failure"));
  EXPECT_TRUE(HasLine(md, "### Items of `DiscoverAcrossProviders` (Map)"));
  EXPECT_TRUE(HasLine(
      md,
      "| `DeduplicateAndAssignDatasetIds` | domain | 30s | 3 retries: 2s, "
      "10s, 30s (IntervalSeconds 2, BackoffRate 5, MaxDelaySeconds 30) | "
      "RETRYABLE (`transient_provider_failure`); QUARANTINE "
      "(`ambiguous_product_identity`) | QUARANTINE: `QuarantineProvider` | "
      "`AP-DISC-1`, `AP-DISC-2`, `AP-DISC-3`, `AP-DISC-4` | "
      "`DatasetIdentity:{dataset_identity}:{schema_version}` |  |"));
  EXPECT_TRUE(
      HasLine(md,
              "| `DeduplicateAndAssignDatasetIds` | "
              "`DatasetIdentity:{dataset_identity}:{schema_version}` |"));
  EXPECT_TRUE(HasLine(
      md,
      "| `provider_summaries[].dataset_count_new` | integer (minimum 0) | "
      "yes |  |"));
}

TEST(DocsEmitterTest, Deterministic) {
  for (const char* path : kSeeds) {
    auto spec = Load(path);
    ASSERT_TRUE(spec);
    EXPECT_EQ(EmitWorkflowDocs(*spec), EmitWorkflowDocs(*spec));
    EXPECT_EQ(EmitWorkflowDot(*spec), EmitWorkflowDot(*spec));
  }
}

TEST(DocsEmitterTest, BrokenTemplateThrows) {
  auto spec = Load("specs/initialize_nova.yaml");
  ASSERT_TRUE(spec);
  EXPECT_THROW(RenderWorkflowDocs(*spec, "{{#open}}"), std::runtime_error);
}

// ---- hostile text -----------------------------------------------------------

TEST(DocsEmitterTest, HostileTextIsEscapedInMermaid) {
  auto spec = Load(kHostilePath);
  ASSERT_TRUE(spec);
  std::string md = EmitWorkflowDocs(*spec);
  std::vector<std::string> lines = MermaidLines(md);
  std::string mermaid = MermaidBlock(md);

  EXPECT_TRUE(HasLine(mermaid,
                      "    %% s4: Check #34;it#34; #123;#123;x#125;#125; "
                      "--#62; a|b#58; c#59; #35;d #92;e #42;/ — Δ?"))
      << mermaid;
  EXPECT_TRUE(HasLine(mermaid, "    state s4 <<choice>>"));
  for (const char* name : {kChoiceName, kPassName, kFailName})
    EXPECT_NE(mermaid.find(MermaidText(name)), std::string::npos) << name;
  EXPECT_NE(mermaid.find(MermaidText("\"" + std::string(kEnumValue) + "\"")),
            std::string::npos);
  EXPECT_TRUE(
      HasLine(mermaid,
              "    state \"Pass #60;b#62;R#38;D#60;/b#62; direction#32;LR "
              "#37;#37;#123;init#125;#37;#37; #91;#42;#93; #96;t#96; "
              "#126;#126;s#126;#126;\" as s5"));
  EXPECT_TRUE(HasLine(
      mermaid, "    state \"Workflow #34;failed#34; #92; here\" as s10"));
  EXPECT_TRUE(HasLine(mermaid,
                      "    s4 --> s6: status = #34;a #34;b#34;#58; c#59; "
                      "#35;d #60;e#62; --#62; #123;#123;f#125;#125;#34;"));
  EXPECT_TRUE(HasLine(
      mermaid, "    s4 --> s5: all(status is present, not(status = plain))"));
  EXPECT_TRUE(HasLine(mermaid, "    s6 --> s7: outcome TOUCHED"));

  // Whatever the spec says, no line carries Mermaid syntax in its text: take
  // out the entity codes and the statement's own syntax, and nothing special
  // may remain.
  const std::regex entity("#[0-9]+;");
  const std::regex declaration(R"re(^ *state "([^"]*)" as s[0-9]+$)re");
  const std::regex choice(R"(^ *state s[0-9]+ <<choice>>$)");
  const std::regex comment(R"(^ *%% s[0-9]+: (.*)$)");
  const std::regex edge(
      R"(^ *(s[0-9]+|\[\*\]) --> (s[0-9]+|\[\*\])(: (.*))?$)");
  const std::regex composite(R"(^ *(state s[0-9]+ \{|\})$)");
  for (const auto& line : lines) {
    std::smatch m;
    std::string text;
    if (std::regex_match(line, m, declaration)) {
      text = m[1];
    } else if (std::regex_match(line, m, comment)) {
      text = m[1];
    } else if (std::regex_match(line, m, edge)) {
      text = m[4];
    } else {
      EXPECT_TRUE(line == "stateDiagram-v2" || std::regex_match(line, choice) ||
                  std::regex_match(line, composite))
          << "unexpected Mermaid line: " << line;
      continue;
    }
    std::string bare = std::regex_replace(text, entity, "");
    EXPECT_EQ(bare.find_first_of("\"#:;{}[]`%\\<>&*~"), std::string::npos)
        << line;
    EXPECT_EQ(bare.find("-->"), std::string::npos) << line;
  }
  // The 5,000-character description and the other free text stay out of
  // the diagram.
  EXPECT_EQ(mermaid.find("Nova Cygni"), std::string::npos);
  EXPECT_EQ(mermaid.find("desc"), std::string::npos);
}

TEST(DocsEmitterTest, HostileTextIsEscapedInMarkdown) {
  auto spec = Load(kHostilePath);
  ASSERT_TRUE(spec);
  ASSERT_GT(spec->description.size(), 5000u);
  std::string md = EmitWorkflowDocs(*spec);

  // Mustache does not re-read values: {{...}} from the spec stays text.
  EXPECT_TRUE(HasLine(
      md,
      "# Title \"quoted\" \\\\ back \\*star\\* \\_under\\_ {{mustache}} "
      "--\\> \\| pipe: colon; semi # hash \\<b\\>tag\\</b\\> Nova Cygni 1975 "
      "— Δ"));
  // The long description: paragraphs of escaped text, nothing lost.
  const std::string nasty_md =
      "say \"hi\" \\\\ back \\*star\\* \\_under\\_ {{mustache}} \\*/ --\\> "
      "a\\|b: c; #d \\<i\\>tag\\</i\\> \\`tick\\` Nova Cygni 1975 — Δ";
  EXPECT_NE(md.find("\n\n" + nasty_md + " 0 " + nasty_md + " 1 "),
            std::string::npos);
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos;
         at = text.find(what, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(count(md, nasty_md), count(spec->description, kNasty));
  EXPECT_GT(count(md, nasty_md), 40u);

  EXPECT_TRUE(HasLine(md,
                      "- **manual**: Trigger \"q\" \\| pipe {{x}} \\*/ "
                      "\\`tick\\`"));
  EXPECT_TRUE(HasLine(md,
                      "- Invariant \\| with pipe, \"quotes\", \\\\ backslash, "
                      "{{mustache}}, \\*/ and --\\> arrow"));
  // Table cells: one line, `|` escaped, code spans fenced past backticks.
  EXPECT_TRUE(HasLine(
      md,
      "| `MarkNovaTouched` | domain | 20s | 2 retries: 2s, 10s "
      "(IntervalSeconds 2, BackoffRate 5, MaxDelaySeconds 10); note: note "
      "\\| \"q\" \\`t\\` | TERMINAL (`bad_input`) | any failure: "
      "`TerminalFailHandler` | `AP-INGEST-3` | ``Dedupe\\|`k`:{nova_id}`` | "
      "Task \"desc\" \\\\ with newline \\| pipe \\`tick\\` \\*/ {{x}} --\\> "
      "a: b; #c \\<d\\> — Δ |"))
      << md;
  EXPECT_TRUE(HasLine(md,
                      "| `TOUCHED` | Outcome \\| pipe \\* star \\_u\\_ "
                      "\\`tick\\` \\<tag\\> \\\\ back | `MarkNovaTouched` "
                      "→ `FinalizeJobRunSuccess` |  |"));
  EXPECT_TRUE(HasLine(md,
                      "| `bad_input` | TERMINAL | Failure: \"quoted\" "
                      "\\| pipe | any domain Task |"));
  EXPECT_TRUE(HasLine(md,
                      "| `nova_id` | uuid | yes | Field \\| pipe \"q\" "
                      "\\\\ b \\`t\\` \\<x\\> |"));
  EXPECT_TRUE(HasLine(md, "Event \"desc\" with newline \\| pipe"));

  // Every table row has exactly the header's number of cells: no text broke
  // out of its cell.
  size_t columns = 0;
  for (const auto& line : Lines(md)) {
    if (line.rfind("|", 0) != 0) {
      columns = 0;
      continue;
    }
    std::string bare = std::regex_replace(line, std::regex(R"(\\\|)"), "");
    size_t pipes = std::count(bare.begin(), bare.end(), '|');
    if (columns == 0) columns = pipes;
    EXPECT_EQ(pipes, columns) << line;
  }
}

// ---- DOT, rendered by Graphviz ---------------------------------------------

// Decodes the XML entities Graphviz writes (&lt; &#45; ...) into UTF-8.
std::string XmlDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out += s[i];
      continue;
    }
    size_t end = s.find(';', i);
    if (end == std::string::npos || end - i > 10) {
      out += s[i];
      continue;
    }
    std::string name = s.substr(i + 1, end - i - 1);
    long code = -1;
    if (name == "lt") code = '<';
    if (name == "gt") code = '>';
    if (name == "amp") code = '&';
    if (name == "quot") code = '"';
    if (name == "apos") code = '\'';
    if (name.size() > 1 && name[0] == '#')
      code = name[1] == 'x' ? std::strtol(name.c_str() + 2, nullptr, 16)
                            : std::strtol(name.c_str() + 1, nullptr, 10);
    if (code < 0) {
      out += s[i];
      continue;
    }
    if (code == 160) code = ' ';
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
    i = end;
  }
  return out;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes the DOT of `path`'s spec, renders it with `dot -Tsvg` and checks
// the SVG shows every state name.
void RenderWithDot(const std::string& path) {
  auto spec = Load(path);
  ASSERT_TRUE(spec);
  ASSERT_EQ(std::system("command -v dot >/dev/null 2>&1"), 0)
      << "Graphviz `dot` is not installed (apt-get install graphviz)";
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "novacat_dot_XXXXXX").string();
  ASSERT_NE(mkdtemp(dir_template.data()), nullptr);
  std::filesystem::path dir = dir_template;
  std::filesystem::path dot_file = dir / (spec->workflow + ".dot");
  std::filesystem::path svg_file = dir / (spec->workflow + ".svg");
  std::ofstream(dot_file, std::ios::binary) << EmitWorkflowDot(*spec);
  std::string command = "dot -Tsvg '" + dot_file.string() + "' -o '" +
                        svg_file.string() + "' 2>'" +
                        (dir / "stderr").string() + "'";
  int status = std::system(command.c_str());
  std::string errors = ReadFile(dir / "stderr");
  EXPECT_EQ(status, 0) << errors << "\n" << EmitWorkflowDot(*spec);
  // Graphviz's own complaints (a bad lhead/ltail, syntax); font setup
  // messages of a bare machine are not ours.
  for (const auto& line : Lines(errors)) {
    EXPECT_TRUE(line.rfind("Warning", 0) != 0 && line.rfind("Error", 0) != 0 &&
                line.find("syntax error") == std::string::npos)
        << line;
  }
  std::string svg = ReadFile(svg_file);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  std::string text = XmlDecode(svg);
  ForEachState(*spec, [&](const State& s) {
    EXPECT_NE(text.find(">" + s.name + "<"), std::string::npos)
        << path << ": state " << s.name << " not in the SVG";
  });
  std::filesystem::remove_all(dir);
}

TEST(DotRenderTest, InitializeNova) {
  RenderWithDot("specs/initialize_nova.yaml");
}
TEST(DotRenderTest, DiscoverSpectraProducts) {
  RenderWithDot("specs/discover_spectra_products.yaml");
}
TEST(DotRenderTest, RefreshReferences) {
  RenderWithDot("specs/refresh_references.yaml");
}
TEST(DotRenderTest, HostileText) {
  RenderWithDot(kHostilePath);
  auto spec = Load(kHostilePath);
  ASSERT_TRUE(spec);
  std::string dot = EmitWorkflowDot(*spec);
  EXPECT_NE(dot.find(R"(s10 [label="Workflow \"failed\" \\ here", )"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find(R"(label="Pass <b>R&#38;D</b> direction LR)"),
            std::string::npos);
}

TEST(DotRenderTest, MapItemsFormACluster) {
  auto spec = Load("specs/discover_spectra_products.yaml");
  ASSERT_TRUE(spec);
  std::string dot = EmitWorkflowDot(*spec);
  size_t open = dot.find("  subgraph cluster_6 {\n");
  ASSERT_NE(open, std::string::npos) << dot;
  size_t close = dot.find("\n  }\n", open);
  std::string cluster = dot.substr(open, close - open);
  for (const char* line :
       {"    label=\"DiscoverAcrossProviders\";",
        "    s7 [label=\"QueryProviderForProducts\"];",
        "    s11 [label=\"QuarantineProvider\"];", "    s6_start -> s7;",
        "    s7 -> s11 [label=\"QUARANTINE\", style=dashed];"})
    EXPECT_NE(cluster.find(line), std::string::npos) << line;
  EXPECT_NE(dot.find("  s5 -> s6_start [lhead=cluster_6, label=\"default\"];"),
            std::string::npos);
  EXPECT_NE(dot.find("  s6_end -> s12 [ltail=cluster_6];"), std::string::npos);
  EXPECT_NE(dot.find("  s1 [label=\"EnsureCorrelationId\", shape=diamond];"),
            std::string::npos);
}

// A template is parsed once per process: a second render gives what the
// first gave, and a name that is no template is a bug, said as such.
TEST(TemplatesTest, RendersTheSameTwiceAndRefusesAnUnknownName) {
  kainjow::mustache::data data = kainjow::mustache::data::type::object;
  Put(data, "workflow", kainjow::mustache::data("a<b"));
  const std::string before = RenderTemplate(
      "workflow_readme.md.mustache", data, TemplateEscape::kNone);
  EXPECT_EQ(RenderTemplate("workflow_readme.md.mustache", data,
                           TemplateEscape::kNone),
            before);
  EXPECT_NE(before.find("a<b"), std::string::npos);
  try {
    RenderTemplate("no-such.mustache", data, TemplateEscape::kHtml);
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "no template no-such.mustache");
  }
}

}  // namespace
}  // namespace docs_emitter_test
}  // namespace novacat
