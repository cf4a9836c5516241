// The pretty-printed text of a JSON document, byte for byte what
// nlohmann::json::dump(indent) writes (ensure_ascii off, strict UTF-8),
// appended to a string. The emitters write every JSON artifact with it:
// nlohmann's serializer decodes each character through a UTF-8 state
// machine, which made dumping a tenth of `--check`; here runs of plain
// ASCII are copied whole. Strings with other bytes, and floats, take
// nlohmann's own serializer (invalid UTF-8 throws as dump does).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace novacat {

// Appends `value` as json::dump(indent_step) would print it, with every line
// after the first `current_indent` spaces further in (the first line's
// indentation is the caller's).
void AppendPrettyJson(std::string& out, const nlohmann::ordered_json& value,
                      int indent_step, int current_indent = 0);

// value.dump(indent_step).
std::string PrettyJson(const nlohmann::ordered_json& value, int indent_step);

}  // namespace novacat
