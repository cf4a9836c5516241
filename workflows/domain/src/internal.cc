#include "internal.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "novacat/runtime/errors.h"

namespace novacat::domain::internal {

using nlohmann::json;

std::string FormatDouble(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string FormatFixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

std::string Quote(std::string_view text) {
  return json(std::string(text))
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string TypeName(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "integer";
    case json::value_t::number_float:
      return "number";
    case json::value_t::string:
      return "string";
    case json::value_t::array:
      return "array";
    case json::value_t::object:
      return "object";
    default:
      return "binary";
  }
}

std::string Describe(const json& value) {
  std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

namespace {
bool IsIdentifier(std::string_view key) {
  if (key.empty()) return false;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}
}  // namespace

std::string MemberPath(std::string_view parent, std::string_view key) {
  if (IsIdentifier(key)) return std::string(parent) + "." + std::string(key);
  return std::string(parent) + "[" + Quote(key) + "]";
}

std::string IndexPath(std::string_view parent, size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

json ReadJsonFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw runtime::TerminalError(file.generic_string() +
                                 ": cannot be read (missing file?)");
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  try {
    return json::parse(buffer.str());
  } catch (const json::parse_error& e) {
    throw runtime::TerminalError(file.generic_string() +
                                 ": not valid JSON: " + e.what());
  }
}

FixtureObject::FixtureObject(const json& value, std::string origin,
                             std::string path)
    : value_(value), origin_(std::move(origin)), path_(std::move(path)) {
  if (!value_.is_object()) {
    Fail(path_, "must be an object, got " + TypeName(value_));
  }
}

void FixtureObject::Fail(std::string_view path,
                         std::string_view message) const {
  throw runtime::TerminalError(origin_ + ": " + std::string(path) + ": " +
                               std::string(message));
}

void FixtureObject::AllowOnly(
    std::initializer_list<std::string_view> known) const {
  for (const auto& [key, member] : value_.items()) {
    bool found = false;
    for (std::string_view k : known) found = found || k == key;
    if (!found) {
      std::string list;
      for (std::string_view k : known) {
        list += list.empty() ? "" : ", ";
        list += k;
      }
      Fail(Path(key), "unknown member (known: " + list + ")");
    }
  }
}

const json* FixtureObject::Find(std::string_view key) const {
  auto it = value_.find(std::string(key));
  return it == value_.end() ? nullptr : &*it;
}

std::string FixtureObject::RequiredString(std::string_view key) const {
  const json* m = Find(key);
  if (m == nullptr) Fail(Path(key), "missing");
  if (!m->is_string() || m->get_ref<const std::string&>().empty()) {
    Fail(Path(key), "must be a non-empty string, got " + Describe(*m));
  }
  return m->get<std::string>();
}

std::optional<std::string> FixtureObject::OptionalString(
    std::string_view key) const {
  const json* m = Find(key);
  if (m == nullptr) return std::nullopt;
  if (!m->is_string() || m->get_ref<const std::string&>().empty()) {
    Fail(Path(key), "must be a non-empty string, got " + Describe(*m));
  }
  return m->get<std::string>();
}

std::optional<double> FixtureObject::OptionalNumber(
    std::string_view key) const {
  const json* m = Find(key);
  if (m == nullptr) return std::nullopt;
  if (!m->is_number()) {
    Fail(Path(key), "must be a number, got " + Describe(*m));
  }
  return m->get<double>();
}

bool FixtureObject::RequiredBool(std::string_view key) const {
  const json* m = Find(key);
  if (m == nullptr) Fail(Path(key), "missing");
  if (!m->is_boolean()) {
    Fail(Path(key), "must be true or false, got " + Describe(*m));
  }
  return m->get<bool>();
}

int64_t FixtureObject::Count(std::string_view key, int64_t fallback) const {
  const json* m = Find(key);
  if (m == nullptr) return fallback;
  if (!m->is_number_integer() || m->get<int64_t>() < 0) {
    Fail(Path(key), "must be a non-negative integer, got " + Describe(*m));
  }
  return m->get<int64_t>();
}

const json& FixtureObject::RequiredArray(std::string_view key) const {
  const json* m = Find(key);
  if (m == nullptr) Fail(Path(key), "missing");
  if (!m->is_array()) Fail(Path(key), "must be an array, got " + TypeName(*m));
  return *m;
}

const json& FixtureObject::RequiredObject(std::string_view key) const {
  const json* m = Find(key);
  if (m == nullptr) Fail(Path(key), "missing");
  if (!m->is_object()) {
    Fail(Path(key), "must be an object, got " + TypeName(*m));
  }
  return *m;
}

}  // namespace novacat::domain::internal
