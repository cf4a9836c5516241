#include "support/diagnostics.h"

#include <gtest/gtest.h>

namespace novacat {
namespace diagnostics_test {
namespace {

TEST(DiagnosticsTest, FormatsLocationSourceLineAndCaret) {
  DiagnosticSink sink;
  sink.AddSource("specs/x.yaml", "states:\n  A:\n    tiemout: 10s\n");
  sink.Error({"specs/x.yaml", 3, 5, 7}, "unknown-key",
             "unknown key 'tiemout'; did you mean 'timeout'?");
  EXPECT_EQ(sink.FormatAll(),
            "specs/x.yaml:3:5: error: unknown key 'tiemout'; did you mean "
            "'timeout'? [unknown-key]\n"
            "    3 |     tiemout: 10s\n"
            "      |     ^~~~~~~\n"
            "1 error, 0 warnings\n");
}

TEST(DiagnosticsTest, WholeFileDiagnosticHasNoSourceLine) {
  DiagnosticSink sink;
  sink.Error({"specs/missing.yaml", 0, 0, 1}, "file-not-found",
             "cannot read the spec file");
  EXPECT_EQ(sink.FormatAll(),
            "specs/missing.yaml: error: cannot read the spec file "
            "[file-not-found]\n"
            "1 error, 0 warnings\n");
}

TEST(DiagnosticsTest, SortsByFileLineColumnKeepingNotesAttached) {
  DiagnosticSink sink;
  sink.Error({"b.yaml", 1, 1, 1}, "r", "third");
  sink.Error({"a.yaml", 9, 2, 1}, "r", "second");
  sink.Note({"a.yaml", 1, 1, 1}, "note of second");
  sink.Warning({"a.yaml", 2, 1, 1}, "w", "first");
  sink.SortByLocation();
  ASSERT_EQ(sink.diagnostics().size(), 4u);
  EXPECT_EQ(sink.diagnostics()[0].message, "first");
  EXPECT_EQ(sink.diagnostics()[1].message, "second");
  EXPECT_EQ(sink.diagnostics()[2].message, "note of second");
  EXPECT_EQ(sink.diagnostics()[3].message, "third");
  EXPECT_EQ(sink.error_count(), 2);
}

TEST(DiagnosticsTest, CaretIsClippedToTheLine) {
  DiagnosticSink sink;
  sink.AddSource("f.yaml", "ab\n");
  sink.Error({"f.yaml", 1, 2, 40}, "r", "m");
  EXPECT_EQ(sink.Format(sink.diagnostics()[0]),
            "f.yaml:1:2: error: m [r]\n"
            "    1 | ab\n"
            "      |  ^\n");
}

TEST(DiagnosticsTest, ClosestMatchSuggestsOnlyPlausibleTypos) {
  std::vector<std::string> keys = {"timeout", "retry", "next", "end"};
  EXPECT_EQ(ClosestMatch("tiemout", keys), "timeout");
  EXPECT_EQ(ClosestMatch("retyr", keys), "retry");
  EXPECT_EQ(ClosestMatch("banana", keys), "");
}

}  // namespace
}  // namespace diagnostics_test
}  // namespace novacat
