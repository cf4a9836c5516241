#include "support/diagnostic_formats.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

namespace novacat {

namespace {

using Json = nlohmann::ordered_json;

// GitHub's escaping of a workflow command's message (data) and, further, of
// a property value.
std::string EscapeData(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '%')
      out += "%25";
    else if (c == '\r')
      out += "%0D";
    else if (c == '\n')
      out += "%0A";
    else
      out += c;
  }
  return out;
}

std::string EscapeProperty(const std::string& text) {
  std::string out;
  for (char c : EscapeData(text)) {
    if (c == ':')
      out += "%3A";
    else if (c == ',')
      out += "%2C";
    else
      out += c;
  }
  return out;
}

std::string Github(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    const char* command = d.severity == Severity::kError     ? "error"
                          : d.severity == Severity::kWarning ? "warning"
                                                             : "notice";
    std::string properties = "file=" + EscapeProperty(d.location.file);
    if (d.location.line > 0) {
      properties +=
          fmt::format(",line={},col={},endColumn={}", d.location.line,
                      d.location.column, d.location.column + d.location.length);
    }
    properties += ",title=" + EscapeProperty(d.rule);
    out += fmt::format("::{} {}::{}\n", command, properties,
                       EscapeData(d.message));
  }
  return out;
}

std::string JsonLines(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    Json line = {{"file", d.location.file},
                 {"line", d.location.line},
                 {"column", d.location.column},
                 {"end_column", d.location.column + d.location.length},
                 {"severity", SeverityName(d.severity)},
                 {"rule", d.rule},
                 {"message", d.message}};
    out += line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
  }
  return out;
}

std::string Sarif(const std::vector<Diagnostic>& diagnostics,
                  const std::string& version) {
  std::set<std::string> rule_ids;
  for (const auto& d : diagnostics) rule_ids.insert(d.rule);
  Json rules = Json::array();
  // SARIF wants helpUri and informationUri absolute; the rules are documented
  // in the repository, so the pointer is help text instead.
  for (const auto& id : rule_ids)
    rules.push_back(
        {{"id", id},
         {"help",
          {{"text", "See docs/spec-format.md, section Diagnostics."}}}});
  Json results = Json::array();
  for (const auto& d : diagnostics) {
    Json region = Json::object();
    if (d.location.line > 0) {
      region["startLine"] = d.location.line;
      region["startColumn"] = d.location.column;
      region["endColumn"] = d.location.column + d.location.length;
    }
    Json physical = {{"artifactLocation", {{"uri", d.location.file}}}};
    if (!region.empty()) physical["region"] = region;
    results.push_back({{"ruleId", d.rule},
                       {"level", SeverityName(d.severity)},
                       {"message", {{"text", d.message}}},
                       {"locations", {{{"physicalLocation", physical}}}}});
  }
  Json log = {{"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
              {"version", "2.1.0"},
              {"runs",
               {{{"tool",
                  {{"driver",
                    {{"name", "novacat-gen"},
                     {"version", version},
                     {"rules", rules}}}}},
                 {"results", results}}}}};
  return log.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

std::optional<DiagnosticFormat> ParseDiagnosticFormat(std::string_view name) {
  if (name == "text") return DiagnosticFormat::kText;
  if (name == "json") return DiagnosticFormat::kJson;
  if (name == "github") return DiagnosticFormat::kGithub;
  if (name == "sarif") return DiagnosticFormat::kSarif;
  return std::nullopt;
}

std::string FormatDiagnostics(const std::vector<Diagnostic>& diagnostics,
                              DiagnosticFormat format,
                              const std::string& tool_version) {
  switch (format) {
    case DiagnosticFormat::kJson:
      return JsonLines(diagnostics);
    case DiagnosticFormat::kGithub:
      return Github(diagnostics);
    case DiagnosticFormat::kSarif:
      return Sarif(diagnostics, tool_version);
    case DiagnosticFormat::kText:
      break;
  }
  return "";
}

}  // namespace novacat
