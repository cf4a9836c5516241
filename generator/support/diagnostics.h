// Diagnostics: every problem found in a spec, with its source location.
//
// Loader and checker report into a DiagnosticSink instead of throwing, so a
// run reports every error, not only the first (as Cap'n Proto's
// ErrorReporter). Printing follows compilers: `file:line:col: error: message
// [rule-id]`, then the source line and a caret under the offending token.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace novacat {

// A position in a spec file. Lines and columns are 1-based; line 0 means
// "the whole file" (no line to show). `length` is the width to underline.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  int length = 1;
};

enum class Severity { kError, kWarning, kNote };

// "error", "warning" or "note".
const char* SeverityName(Severity s);

struct Diagnostic {
  SourceLocation location;
  Severity severity = Severity::kError;
  std::string rule;  // e.g. "unknown-key"; names the check in tests and docs
  std::string message;
};

// Collects diagnostics and the text of every file they point into.
class DiagnosticSink {
 public:
  // Registers the text of `file` so diagnostics can quote its lines.
  void AddSource(const std::string& file, std::string text);

  void Error(const SourceLocation& at, std::string rule, std::string message);
  void Warning(const SourceLocation& at, std::string rule, std::string message);
  void Note(const SourceLocation& at, std::string message);

  int error_count() const { return error_count_; }
  bool has_errors() const { return error_count_ > 0; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // Sorts by file, line and column (stable for equal positions), so the
  // output order does not depend on the order the checks ran in.
  void SortByLocation();

  // Renders one diagnostic with its quoted source line and caret.
  std::string Format(const Diagnostic& d) const;
  // Renders all diagnostics, then a summary line when there are any.
  std::string FormatAll() const;

 private:
  std::map<std::string, std::string> text_by_file_;
  std::vector<Diagnostic> diagnostics_;
  int error_count_ = 0;
};

// The candidate closest to `word` by edit distance, or "" when none is close
// enough to be a plausible typo.
std::string ClosestMatch(std::string_view word,
                         const std::vector<std::string>& candidates);

}  // namespace novacat
