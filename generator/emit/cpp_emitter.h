// CppEmitter: a spec → the typed C++ of its workflow.
//
// Generated (owned by novacat-gen, under generated/<workflow>/):
// - <workflow>.hpp: records for the input event, each published event, the
//   state document, each Map item document and each Task's output, with
//   FromJson (validating, errors with field paths) and ToJson; the abstract
//   step interface (one pure virtual method per domain Task, documented from
//   the spec); the dispatcher; key and identity builders.
// - <workflow>.cpp: their definitions.
// Scaffolded once (owned by people, under workflows/<workflow>/):
// - steps.hpp / steps.cpp: `Steps`, implementing the interface with every
//   method throwing a TERMINAL "not implemented" error.
//
// Every text from the spec is escaped for where it lands: names are
// identifiers already (the checker's `invalid-name` rule), descriptions go
// into `//` comments (one line, no trailing backslash) and key templates
// into string literals.
#pragma once

#include <string>
#include <string_view>

#include "model/spec.h"
#include "support/file_set.h"

namespace novacat {

struct CppFiles {
  std::string header;        // <workflow>/<workflow>.hpp
  std::string source;        // <workflow>/<workflow>.cpp
  std::string steps_header;  // workflows/<workflow>/steps.hpp (scaffold)
  std::string steps_source;  // workflows/<workflow>/steps.cpp (scaffold)
};

CppFiles EmitCpp(const WorkflowSpec& spec);
// As EmitCpp, with the spec's definition already emitted: `asl` must be
// EmitAsl(spec) (Emit makes it once for both files). With
// Scaffolds::kSkip, steps_header and steps_source stay empty.
CppFiles EmitCpp(const WorkflowSpec& spec, const std::string& asl,
                 Scaffolds scaffolds = Scaffolds::kMake);

// Escapes `text` as the contents of a C++ string literal.
std::string CppStringLiteral(const std::string& text);
// Appends CppStringLiteral(text) to `out` (what a large output appends line
// by line, with no temporary per line).
void AppendCppStringLiteral(std::string& out, std::string_view text);
// Appends `text` as a C++ raw string literal, R"json(...)json": its bytes as
// they are, so that a definition embedded in the binding reads as its JSON
// file and costs a copy. The delimiter is the first of json, json1, json2...
// whose closing sequence (`)json"`) the text does not hold.
void AppendCppRawStringLiteral(std::string& out, std::string_view text);
// Makes `text` safe as the rest of a `//` comment line.
std::string CppComment(const std::string& text);

}  // namespace novacat
