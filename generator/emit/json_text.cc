#include "emit/json_text.h"

#include <array>
#include <cstdint>
#include <cstdio>

#include "support/byte_scan.h"

namespace novacat {

namespace {

using Json = nlohmann::ordered_json;

// nlohmann's own serializer, for what the fast path leaves to it.
void Serialize(std::string& out, const Json& value, int step, int indent) {
  nlohmann::detail::serializer<Json> serializer(
      nlohmann::detail::output_adapter<char, std::string>(out), ' ',
      nlohmann::detail::error_handler_t::strict);
  serializer.dump(value, /*pretty_print=*/true, /*ensure_ascii=*/false,
                  static_cast<unsigned>(step), static_cast<unsigned>(indent));
}

// kPlain[c]: byte c stands for itself in a JSON string (printable ASCII
// but '"' and '\\').
constexpr std::array<bool, 256> kPlain = [] {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}();

// The bytes of `word` that are not plain in a JSON string (byte_scan.h).
inline uint64_t NotPlainBytes(uint64_t word) {
  using namespace byte_scan;
  return Below(word, 0x20) | Equal(word, '"') | Equal(word, '\\') |
         NonAscii(word);
}

void AppendString(std::string& out, std::string_view text) {
  const size_t start = out.size();
  out.reserve(start + text.size() + 2);
  out += '"';
  size_t run = 0;  // the first character of text not yet appended
  auto plain = [](unsigned char c) { return kPlain[c]; };
  for (size_t i = 0;
       (i = byte_scan::SkipPlain(text, i, NotPlainBytes, plain)) < text.size();
       ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // A multi-byte character: nlohmann validates the string and writes
      // it, or throws as dump does.
      out.resize(start);
      Serialize(out, Json(std::string(text)), 0, 0);
      return;
    }
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default: {
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
        out += escaped;
      }
    }
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

void Append(std::string& out, const Json& value, int step, int indent);

// An object's or an array's text: `open`, each of `items` on its own line
// (written by `write`) one step further in, `close` on a line at `indent`;
// "{}" or "[]" when empty.
template <typename Items, typename Write>
void AppendContainer(std::string& out, const Items& items, char open,
                     char close, int step, int indent, Write write) {
  out += open;
  if (items.empty()) {
    out += close;
    return;
  }
  const int inner = indent + step;
  bool first = true;
  for (const auto& item : items) {
    out += first ? "\n" : ",\n";
    first = false;
    out.append(static_cast<size_t>(inner), ' ');
    write(item, inner);
  }
  out += '\n';
  out.append(static_cast<size_t>(indent), ' ');
  out += close;
}

void Append(std::string& out, const Json& value, int step, int indent) {
  switch (value.type()) {
    case Json::value_t::object:
      AppendContainer(out, value.get_ref<const Json::object_t&>(), '{', '}',
                      step, indent, [&](const auto& member, int inner) {
                        AppendString(out, member.first);
                        out += ": ";
                        Append(out, member.second, step, inner);
                      });
      return;
    case Json::value_t::array:
      AppendContainer(
          out, value.get_ref<const Json::array_t&>(), '[', ']', step, indent,
          [&](const Json& item, int inner) { Append(out, item, step, inner); });
      return;
    case Json::value_t::string:
      AppendString(out, value.get_ref<const std::string&>());
      return;
    case Json::value_t::boolean:
      out += value.get<bool>() ? "true" : "false";
      return;
    case Json::value_t::null:
      out += "null";
      return;
    case Json::value_t::number_integer:
      out += std::to_string(value.get<int64_t>());
      return;
    case Json::value_t::number_unsigned:
      out += std::to_string(value.get<uint64_t>());
      return;
    case Json::value_t::number_float:  // nlohmann's number formatting
    case Json::value_t::binary:
    case Json::value_t::discarded:
      Serialize(out, value, step, indent);
      return;
  }
}

// The number of decimal digits of `n`.
size_t Digits(uint64_t n) {
  size_t digits = 1;
  while (n >= 10) {
    n /= 10;
    ++digits;
  }
  return digits;
}

// Append's text length, but for what reading the strings would tell: a
// string counts its bytes and quotes (an escape adds more) and a float one
// byte (nlohmann's shortest form is longer). So it is the exact length when
// no string needs an escape and no number is a float, and never more.
size_t PrettyLength(const Json& value, int step, int indent) {
  // An object's or an array's frame, as AppendContainer writes it: the
  // brackets, and for each of `items` a line break and its indentation,
  // the commas between them, and the closing bracket's line.
  auto frame = [&](size_t items) -> size_t {
    if (items == 0) return 2;
    return 2 + items * (1 + static_cast<size_t>(indent + step)) + (items - 1) +
           1 + static_cast<size_t>(indent);
  };
  switch (value.type()) {
    case Json::value_t::object: {
      const auto& members = value.get_ref<const Json::object_t&>();
      size_t n = frame(members.size());
      for (const auto& [key, member] : members)
        n += key.size() + 2 + 2 + PrettyLength(member, step, indent + step);
      return n;
    }
    case Json::value_t::array: {
      const auto& items = value.get_ref<const Json::array_t&>();
      size_t n = frame(items.size());
      for (const Json& item : items)
        n += PrettyLength(item, step, indent + step);
      return n;
    }
    case Json::value_t::string:
      return value.get_ref<const std::string&>().size() + 2;
    case Json::value_t::boolean:
      return value.get<bool>() ? 4 : 5;
    case Json::value_t::null:
      return 4;
    case Json::value_t::number_integer: {
      const int64_t i = value.get<int64_t>();
      return i < 0 ? 1 + Digits(0 - static_cast<uint64_t>(i))
                   : Digits(static_cast<uint64_t>(i));
    }
    case Json::value_t::number_unsigned:
      return Digits(value.get<uint64_t>());
    case Json::value_t::number_float:
    case Json::value_t::binary:
    case Json::value_t::discarded:
      return 1;
  }
  return 0;
}

}  // namespace

size_t PrettyJsonLength(const Json& value, int indent_step) {
  return PrettyLength(value, indent_step, 0);
}

void AppendPrettyJson(std::string& out, const Json& value, int indent_step,
                      int current_indent) {
  Append(out, value, indent_step, current_indent);
}

std::string PrettyJson(const Json& value, int indent_step) {
  std::string out;
  // One block of the text's size rather than a doubling series of them:
  // the stack's 200 KB took eight, and memory first touched costs a page
  // fault a page. A few escapes past the room grow it once.
  const size_t length = PrettyLength(value, indent_step, 0);
  out.reserve(length + length / 64);
  Append(out, value, indent_step, 0);
  return out;
}

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;  // the document's value
  // An array's item, on its own line (AppendContainer).
  out_ += levels_.back().empty ? "\n" : ",\n";
  levels_.back().empty = false;
  out_.append(static_cast<size_t>(indent_ + step_), ' ');
}

JsonWriter& JsonWriter::Open(char open) {
  Separate();
  if (!levels_.empty()) indent_ += step_;
  out_ += open;
  levels_.push_back(Level{open == '{' ? '}' : ']'});
  return *this;
}

JsonWriter& JsonWriter::End() {
  const Level level = levels_.back();
  levels_.pop_back();
  if (!level.empty) {
    out_ += '\n';
    out_.append(static_cast<size_t>(indent_), ' ');
  }
  out_ += level.close;
  if (!levels_.empty()) indent_ -= step_;
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  out_ += levels_.back().empty ? "\n" : ",\n";
  levels_.back().empty = false;
  out_.append(static_cast<size_t>(indent_ + step_), ' ');
  AppendString(out_, key);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view text) {
  Separate();
  AppendString(out_, text);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t number) {
  Separate();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  Separate();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Value(const Json& value) {
  Separate();
  Append(out_, value, step_, levels_.empty() ? indent_ : indent_ + step_);
  return *this;
}

}  // namespace novacat
