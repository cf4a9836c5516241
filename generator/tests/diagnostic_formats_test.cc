// The machine formats of diagnostics (support/diagnostic_formats.h), whole
// outputs: escaping, a diagnostic without a line, warnings.
#include "support/diagnostic_formats.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace novacat {
namespace diagnostic_formats_test {
namespace {

std::vector<Diagnostic> Sample() {
  Diagnostic error;
  error.location = {"specs/a,b.yaml", 12, 7, 5};
  error.rule = "unknown-key";
  error.message = "100% wrong:\nsee here";
  Diagnostic warning;
  warning.location = {"specs/t.yaml", 3, 1, 1};
  warning.severity = Severity::kWarning;
  warning.rule = "unused-event";
  warning.message = "event 'x' is unused";
  Diagnostic stale;
  stale.location = {"generated/MANIFEST", 0, 0, 1};
  stale.rule = "stale-file";
  stale.message = "generated/MANIFEST is out of date";
  return {error, warning, stale};
}

TEST(DiagnosticFormatsTest, Names) {
  EXPECT_EQ(ParseDiagnosticFormat("text"), DiagnosticFormat::kText);
  EXPECT_EQ(ParseDiagnosticFormat("json"), DiagnosticFormat::kJson);
  EXPECT_EQ(ParseDiagnosticFormat("github"), DiagnosticFormat::kGithub);
  EXPECT_EQ(ParseDiagnosticFormat("sarif"), DiagnosticFormat::kSarif);
  EXPECT_EQ(ParseDiagnosticFormat("xml"), std::nullopt);
}

TEST(DiagnosticFormatsTest, Github) {
  EXPECT_EQ(FormatDiagnostics(Sample(), DiagnosticFormat::kGithub, "0.1.0"),
            "::error file=specs/a%2Cb.yaml,line=12,col=7,endColumn=12,"
            "title=unknown-key::100%25 wrong:%0Asee here\n"
            "::warning file=specs/t.yaml,line=3,col=1,endColumn=2,"
            "title=unused-event::event 'x' is unused\n"
            "::error file=generated/MANIFEST,title=stale-file::"
            "generated/MANIFEST is out of date\n");
}

TEST(DiagnosticFormatsTest, JsonLines) {
  EXPECT_EQ(
      FormatDiagnostics(Sample(), DiagnosticFormat::kJson, "0.1.0"),
      R"({"file":"specs/a,b.yaml","line":12,"column":7,"end_column":12,)"
      R"("severity":"error","rule":"unknown-key","message":"100% wrong:\nsee here"})"
      "\n"
      R"({"file":"specs/t.yaml","line":3,"column":1,"end_column":2,)"
      R"("severity":"warning","rule":"unused-event","message":"event 'x' is unused"})"
      "\n"
      R"({"file":"generated/MANIFEST","line":0,"column":0,"end_column":1,)"
      R"("severity":"error","rule":"stale-file","message":"generated/MANIFEST is out of date"})"
      "\n");
}

TEST(DiagnosticFormatsTest, Sarif) {
  nlohmann::json log = nlohmann::json::parse(
      FormatDiagnostics(Sample(), DiagnosticFormat::kSarif, "0.1.0"));
  EXPECT_EQ(log, nlohmann::json::parse(R"({
    "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
    "version": "2.1.0",
    "runs": [{
      "tool": {"driver": {
        "name": "novacat-gen", "version": "0.1.0",
        "rules": [
          {"id": "stale-file",
           "help": {"text": "See docs/spec-format.md, section Diagnostics."}},
          {"id": "unknown-key",
           "help": {"text": "See docs/spec-format.md, section Diagnostics."}},
          {"id": "unused-event",
           "help": {"text": "See docs/spec-format.md, section Diagnostics."}}]}},
      "results": [
        {"ruleId": "unknown-key", "level": "error",
         "message": {"text": "100% wrong:\nsee here"},
         "locations": [{"physicalLocation": {
           "artifactLocation": {"uri": "specs/a,b.yaml"},
           "region": {"startLine": 12, "startColumn": 7, "endColumn": 12}}}]},
        {"ruleId": "unused-event", "level": "warning",
         "message": {"text": "event 'x' is unused"},
         "locations": [{"physicalLocation": {
           "artifactLocation": {"uri": "specs/t.yaml"},
           "region": {"startLine": 3, "startColumn": 1, "endColumn": 2}}}]},
        {"ruleId": "stale-file", "level": "error",
         "message": {"text": "generated/MANIFEST is out of date"},
         "locations": [{"physicalLocation": {
           "artifactLocation": {"uri": "generated/MANIFEST"}}}]}]}]})"));
  // Nothing found: one run, no results.
  EXPECT_EQ(nlohmann::json::parse(FormatDiagnostics(
                {}, DiagnosticFormat::kSarif, "0.1.0"))["runs"][0]["results"],
            nlohmann::json::array());
}

}  // namespace
}  // namespace diagnostic_formats_test
}  // namespace novacat
