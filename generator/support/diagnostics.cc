#include "support/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <tuple>

namespace novacat {

namespace {

// Line `number` (from 1) of `text` without its '\r's, or nullopt past the
// last line (a last line with nothing on it after the final '\n' is none).
// Found when a diagnostic quotes it: a run without diagnostics splits no
// file into lines.
std::optional<std::string> LineOf(const std::string& text, int number) {
  size_t start = 0;
  for (int line = 1; start <= text.size(); ++line) {
    size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    if (line == number) {
      std::string out;
      for (size_t i = start; i < end; ++i)
        if (text[i] != '\r') out += text[i];
      if (last && out.empty()) return std::nullopt;
      return out;
    }
    if (last) break;
    start = end + 1;
  }
  return std::nullopt;
}

// Optimal string alignment distance: Levenshtein plus adjacent swaps
// ("Taks" is one edit from "Task"), the commonest typo.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] =
          std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

void DiagnosticSink::AddSource(const std::string& file, std::string text) {
  text_by_file_[file] = std::move(text);
}

void DiagnosticSink::Error(const SourceLocation& at, std::string rule,
                           std::string message) {
  diagnostics_.push_back(
      {at, Severity::kError, std::move(rule), std::move(message)});
  ++error_count_;
}

void DiagnosticSink::Warning(const SourceLocation& at, std::string rule,
                             std::string message) {
  diagnostics_.push_back(
      {at, Severity::kWarning, std::move(rule), std::move(message)});
}

void DiagnosticSink::Note(const SourceLocation& at, std::string message) {
  diagnostics_.push_back({at, Severity::kNote, "", std::move(message)});
}

void DiagnosticSink::SortByLocation() {
  // Notes stay attached to the diagnostic before them.
  std::vector<std::vector<Diagnostic>> groups;
  for (auto& d : diagnostics_) {
    if (d.severity == Severity::kNote && !groups.empty()) {
      groups.back().push_back(std::move(d));
    } else {
      groups.push_back({std::move(d)});
    }
  }
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) {
                     const auto& la = a.front().location;
                     const auto& lb = b.front().location;
                     return std::tie(la.file, la.line, la.column) <
                            std::tie(lb.file, lb.line, lb.column);
                   });
  diagnostics_.clear();
  for (auto& g : groups)
    for (auto& d : g) diagnostics_.push_back(std::move(d));
}

std::string DiagnosticSink::Format(const Diagnostic& d) const {
  const SourceLocation& at = d.location;
  std::string out;
  if (at.line > 0) {
    out = fmt::format("{}:{}:{}: {}: {}", at.file, at.line, at.column,
                      SeverityName(d.severity), d.message);
  } else {
    out =
        fmt::format("{}: {}: {}", at.file, SeverityName(d.severity), d.message);
  }
  if (!d.rule.empty()) out += fmt::format(" [{}]", d.rule);
  out += '\n';
  auto file = text_by_file_.find(at.file);
  std::optional<std::string> line;
  if (at.line > 0 && file != text_by_file_.end())
    line = LineOf(file->second, at.line);
  if (line) {
    const std::string& text = *line;
    std::string gutter = fmt::format("{:>5}", at.line);
    out += fmt::format("{} | {}\n", gutter, text);
    int column = std::max(at.column, 1);
    int width = std::max(at.length, 1);
    int available = static_cast<int>(text.size()) - (column - 1);
    if (available > 0) width = std::min(width, available);
    out +=
        fmt::format("{} | {}^{}\n", std::string(gutter.size(), ' '),
                    std::string(column - 1, ' '), std::string(width - 1, '~'));
  }
  return out;
}

std::string DiagnosticSink::FormatAll() const {
  std::string out;
  int warnings = 0;
  for (const auto& d : diagnostics_) {
    out += Format(d);
    if (d.severity == Severity::kWarning) ++warnings;
  }
  if (error_count_ > 0 || warnings > 0) {
    out += fmt::format("{} error{}, {} warning{}\n", error_count_,
                       error_count_ == 1 ? "" : "s", warnings,
                       warnings == 1 ? "" : "s");
  }
  return out;
}

std::string ClosestMatch(std::string_view word,
                         const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = std::string::npos;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Plausible typos only: at most a third of the word, and at least 1 edit.
  size_t limit = std::max<size_t>(1, (word.size() + 2) / 3);
  return best_distance <= limit ? best : std::string();
}

}  // namespace novacat
