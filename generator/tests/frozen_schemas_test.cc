// Frozen event schema versions (emit/frozen_schemas.h): each kind of change
// to a version already in the output folder, with its whole message, and
// the bump that makes it legal.
#include "emit/frozen_schemas.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "compiler.h"
#include "in_memory_files.h"

namespace novacat {
namespace frozen_schemas_test {
namespace {

// A minimal workflow whose input event `t` has the fields `fields` (YAML
// lines under `fields:`) and the event keys `keys` (lines under `t:`).
std::string Spec(const std::string& fields, const std::string& keys = "") {
  return R"(workflow: t
governance: shared/governance.yaml
input: t
events:
  t:
)" + keys +
         "    fields:\n      nova_id: {type: uuid, required: true}\n" + fields +
         R"(outcomes:
  DONE: done
idempotency:
  key: "T:{nova_id}"
catch:
  failure: TerminalFailHandler
states:
  BeginJobRun: {type: Task, builtin: BeginJobRun, timeout: 10s, next: AcquireIdempotencyLock}
  AcquireIdempotencyLock: {type: Task, builtin: AcquireIdempotencyLock, timeout: 10s, next: Work}
  Work: {type: Task, timeout: 5s, next: FinalizeJobRunSuccess, outcome: DONE}
  FinalizeJobRunSuccess: {type: Task, builtin: FinalizeJobRunSuccess, timeout: 10s, end: true}
  TerminalFailHandler: {type: Task, builtin: TerminalFailHandler, timeout: 10s, next: FinalizeJobRunFailed}
  FinalizeJobRunFailed: {type: Task, builtin: FinalizeJobRunFailed, timeout: 10s, next: Failed}
  Failed: {type: Fail, error: TerminalError}
)";
}

// In-memory specs over the real governance files.
constexpr auto Files = testing::FilesOverDisk;

constexpr const char* kV1 = "schemas/events/t/v1.json";

// v1.json as `frozen_spec` generates it.
std::string FrozenV1(const std::string& frozen_spec) {
  DiagnosticSink sink;
  auto files =
      Compile({"specs/t.yaml"}, Files({{"specs/t.yaml", frozen_spec}}), sink);
  EXPECT_TRUE(files) << sink.FormatAll();
  return files ? files->files().at(kV1).content : "";
}

struct Result {
  std::vector<std::string> diagnostics;  // "line:col message [rule]"
  std::optional<FileSet> files;
};

// Compiles `spec` into "out", where `frozen_spec`'s v1.json already is.
Result Change(const std::string& frozen_spec, const std::string& spec) {
  DiagnosticSink sink;
  Result r;
  r.files = Compile({"specs/t.yaml"},
                    Files({{"specs/t.yaml", spec},
                           {std::string("out/") + kV1, FrozenV1(frozen_spec)}}),
                    sink, "out");
  for (const auto& d : sink.diagnostics())
    r.diagnostics.push_back(fmt::format("{}:{} {} [{}]", d.location.line,
                                        d.location.column, d.message, d.rule));
  return r;
}

std::string Frozen(int line, int column, const std::string& what) {
  return fmt::format(
      "{}:{} event 't' version 1 is frozen (out/schemas/events/t/v1.json): "
      "{}; bump its schema_version to 2 (the event's or the workflow's) to "
      "change it [schema-frozen]",
      line, column, what);
}

using Lines = std::vector<std::string>;

TEST(FrozenSchemasTest, TheSameSchemaOrNoFrozenFileIsFine) {
  std::string spec = Spec("");
  EXPECT_EQ(Change(spec, spec).diagnostics, Lines{});
  DiagnosticSink sink;
  EXPECT_TRUE(
      Compile({"specs/t.yaml"}, Files({{"specs/t.yaml", spec}}), sink, "out"));
  EXPECT_EQ(sink.FormatAll(), "");
}

TEST(FrozenSchemasTest, AddedFields) {
  Result r = Change(Spec(""), Spec("      by: {type: string, required: true}\n"
                                   "      note: string\n"));
  EXPECT_FALSE(r.files);
  EXPECT_EQ(r.diagnostics,
            (Lines{Frozen(8, 7,
                          "field 'by' was added as required: breaking for "
                          "producers (their events lack it)"),
                   Frozen(9, 7,
                          "field 'note' was added: breaking for consumers "
                          "(the version rejects unknown properties, so they "
                          "refuse events that carry it)")}));
  // Where unknown properties were allowed, an optional field is compatible,
  // still frozen.
  const std::string open = "    unknown_properties: allow\n";
  EXPECT_EQ(
      Change(Spec("", open), Spec("      note: string\n", open)).diagnostics,
      (Lines{Frozen(9, 7, "field 'note' was added as optional: compatible")}));
}

TEST(FrozenSchemasTest, RemovedFields) {
  EXPECT_EQ(Change(Spec("      by: {type: string, required: true}\n"
                        "      note: string\n"),
                   Spec(""))
                .diagnostics,
            (Lines{Frozen(5, 3,
                          "field 'by' was removed: breaking for consumers "
                          "(they require it)"),
                   Frozen(5, 3,
                          "field 'note' was removed: breaking for producers "
                          "(their events may carry it, which the version "
                          "would now reject)")}));
}

TEST(FrozenSchemasTest, RequiredAndUnknownProperties) {
  EXPECT_EQ(
      Change(Spec("      by: {type: string, required: true}\n"),
             Spec("      by: string\n", "    unknown_properties: allow\n"))
          .diagnostics,
      (Lines{Frozen(5, 3,
                    "unknown properties are now allowed: breaking for "
                    "consumers (they refuse events that carry any)"),
             Frozen(9, 7,
                    "field 'by' became optional: breaking for consumers "
                    "(they rely on it)")}));
  EXPECT_EQ(
      Change(Spec("      by: string\n", "    unknown_properties: allow\n"),
             Spec("      by: {type: string, required: true}\n"))
          .diagnostics,
      (Lines{Frozen(5, 3,
                    "unknown properties are now rejected: breaking for "
                    "producers (their events may carry some)"),
             Frozen(8, 7,
                    "field 'by' became required: breaking for producers "
                    "(their events may lack it)")}));
}

TEST(FrozenSchemasTest, RetypedEnumsAndBounds) {
  EXPECT_EQ(
      Change(Spec("      n: integer\n"), Spec("      n: string\n")).diagnostics,
      (Lines{Frozen(8, 7,
                    "field 'n' was retyped from {\"type\":\"integer\"} to "
                    "{\"type\":\"string\"}: breaking for producers and "
                    "consumers")}));
  EXPECT_EQ(Change(Spec("      s: {type: string, enum: [A, B]}\n"),
                   Spec("      s: {type: string, enum: [A, C]}\n"))
                .diagnostics,
            (Lines{Frozen(8, 7,
                          "field 's' no longer allows \"B\": breaking for "
                          "producers (their events may carry it); and now "
                          "allows \"C\": breaking for consumers (they do not "
                          "expect it)")}));
  EXPECT_EQ(Change(Spec("      n: {type: integer, minimum: 0}\n"),
                   Spec("      n: {type: integer, minimum: 1}\n"))
                .diagnostics,
            (Lines{Frozen(8, 7,
                          "field 'n' changed its minimum from 0 to 1: "
                          "breaking for producers (their events may fall "
                          "below it)")}));
  EXPECT_EQ(Change(Spec("      n: {type: integer, minimum: 1}\n"),
                   Spec("      n: integer\n"))
                .diagnostics,
            (Lines{Frozen(8, 7,
                          "field 'n' changed its minimum from 1 to none: "
                          "breaking for consumers (they may rely on the old "
                          "bound)")}));
  EXPECT_EQ(
      Change(Spec("      n: integer\n"),
             Spec("      n: {type: integer, description: How many.}\n"))
          .diagnostics,
      (Lines{Frozen(
          8, 7, "field 'n' changed its description or default: compatible")}));
}

// A bump writes v2 beside the frozen v1, which stays as it is.
TEST(FrozenSchemasTest, ABumpWritesTheNextVersion) {
  Result r = Change(Spec(""), Spec("      by: {type: string, required: true}\n",
                                   "    schema_version: 2\n"));
  EXPECT_EQ(r.diagnostics, Lines{});
  ASSERT_TRUE(r.files);
  EXPECT_TRUE(r.files->files().count("schemas/events/t/v2.json"));
  EXPECT_FALSE(r.files->files().count(kV1));
  EXPECT_TRUE(r.files->kept().count(kV1));
  EXPECT_EQ(r.files->files().at("schemas/events/t/latest.json").content,
            r.files->files().at("schemas/events/t/v2.json").content);
}

}  // namespace
}  // namespace frozen_schemas_test
}  // namespace novacat
