// Diagnostics for machines: `novacat-gen --format json|github|sarif`.
//
//   text    compilers' format (DiagnosticSink::FormatAll), on stderr
//   json    one JSON object per diagnostic and line (JSON Lines): file,
//           line, column, end_column, severity, rule, message
//   github  GitHub Actions workflow commands, one per diagnostic:
//           ::error file=F,line=L,col=C,endColumn=E,title=RULE::MESSAGE
//   sarif   one SARIF 2.1.0 log (code scanning): a run of the tool
//           novacat-gen with its rules and one result per diagnostic
//
// The machine formats go to stdout and hold everything a run found: the
// specs' diagnostics and, under --check, each stale generated file (rule
// `stale-file`, located at the file).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"

namespace novacat {

enum class DiagnosticFormat { kText, kJson, kGithub, kSarif };

// nullopt for a name that is not one of text, json, github, sarif.
std::optional<DiagnosticFormat> ParseDiagnosticFormat(std::string_view name);

// `diagnostics` in a machine format (not kText); `tool_version` names the
// generator in SARIF.
std::string FormatDiagnostics(const std::vector<Diagnostic>& diagnostics,
                              DiagnosticFormat format,
                              const std::string& tool_version);

}  // namespace novacat
