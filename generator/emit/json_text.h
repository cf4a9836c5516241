// The pretty-printed text of a JSON document, byte for byte what
// nlohmann::json::dump(indent) writes (ensure_ascii off, strict UTF-8),
// appended to a string. The emitters write every JSON artifact with it:
// nlohmann's serializer decodes each character through a UTF-8 state
// machine, which made dumping a tenth of `--check`; here runs of plain
// ASCII are copied whole. Strings with other bytes, and floats, take
// nlohmann's own serializer (invalid UTF-8 throws as dump does).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace novacat {

// Appends `value` as json::dump(indent_step) would print it, with every line
// after the first `current_indent` spaces further in (the first line's
// indentation is the caller's).
void AppendPrettyJson(std::string& out, const nlohmann::ordered_json& value,
                      int indent_step, int current_indent = 0);

// value.dump(indent_step).
std::string PrettyJson(const nlohmann::ordered_json& value, int indent_step);

// The length of PrettyJson(value, indent_step) from the document's shape
// and string lengths, without reading a string: exact when no string needs
// an escape and no number is a float, and never more (PrettyJson reserves
// it).
size_t PrettyJsonLength(const nlohmann::ordered_json& value, int indent_step);

// Writes a document's pretty text as it is walked, byte for byte what
// AppendPrettyJson writes for the same document, without building it: for
// a large text made of many small documents (the conformance plan), where
// building each as a JSON tree cost more than its text.
//
//   JsonWriter w(out, 1);
//   w.BeginObject().Key("status").String("FAILED").Key("waits");
//   w.BeginArray().Int(2).Int(4).End().End();
//
// The caller writes one value; a container's members are Key then a value.
// Nothing checks the nesting: a Key outside an object writes bad JSON.
class JsonWriter {
 public:
  // Appends to `out`; the first line's indentation is the caller's, each
  // later line `current_indent` spaces further in (as AppendPrettyJson).
  JsonWriter(std::string& out, int indent_step, int current_indent = 0)
      : out_(out), step_(indent_step), indent_(current_indent) {}

  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& End();  // the innermost container open
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view text);
  JsonWriter& Int(int64_t number);
  JsonWriter& Bool(bool value);
  // A whole value, as AppendPrettyJson writes it at this position.
  JsonWriter& Value(const nlohmann::ordered_json& value);
  // An array of `items`' strings.
  template <typename Strings>
  JsonWriter& StringArray(const Strings& items) {
    BeginArray();
    for (const auto& item : items) String(item);
    return End();
  }

 private:
  struct Level {
    char close;
    bool empty = true;
  };
  JsonWriter& Open(char open);
  // Before a value: in an array, its line; after a Key, nothing.
  void Separate();

  std::string& out_;
  const int step_;
  int indent_;  // of the innermost container's closing line
  std::vector<Level> levels_;
  bool after_key_ = false;
};

}  // namespace novacat
