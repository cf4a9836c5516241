#include "novacat/runtime/json_reader.h"

#include <cmath>
#include <string>

namespace novacat::runtime {

std::string FormatErrors(const ValidationErrors& errors) {
  std::string out;
  for (const auto& e : errors) out += e.ToString() + "\n";
  return out;
}

namespace {

bool IsHex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int Digits(std::string_view text, size_t at, size_t count) {
  int value = 0;
  for (size_t i = at; i < at + count; ++i) value = value * 10 + (text[i] - '0');
  return value;
}

bool AllDigits(std::string_view text, size_t at, size_t count) {
  if (at + count > text.size()) return false;
  for (size_t i = at; i < at + count; ++i)
    if (!IsDigit(text[i])) return false;
  return true;
}

// Unicode code points in valid UTF-8 (JSON Schema's minLength unit).
int64_t CodePoints(std::string_view text) {
  int64_t n = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

// Checks a string against `rules` (minLength, enum).
void CheckString(const std::string& value, const std::string& path,
                 const Rules& rules, ValidationErrors& errors) {
  if (rules.min_length && CodePoints(value) < *rules.min_length) {
    errors.push_back({path, *rules.min_length == 1
                                ? "must be a non-empty string"
                                : "must be at least " +
                                      std::to_string(*rules.min_length) +
                                      " characters"});
  }
  if (!rules.one_of.empty()) {
    bool found = false;
    for (auto v : rules.one_of) found = found || v == value;
    if (!found) {
      std::string list;
      for (auto v : rules.one_of) {
        if (!list.empty()) list += ", ";
        list += v;
      }
      errors.push_back({path, "must be one of: " + list});
    }
  }
}

std::string NumberText(double value) {
  if (value == std::floor(value) && std::fabs(value) < 1e15)
    return std::to_string(static_cast<int64_t>(value));
  return std::to_string(value);
}

void CheckMinimum(double value, const std::string& path, const Rules& rules,
                  ValidationErrors& errors) {
  if (rules.minimum && value < *rules.minimum)
    errors.push_back({path, "must be >= " + NumberText(*rules.minimum)});
}

// JSON Schema's "integer": any number with a zero fractional part.
bool AsInteger(const nlohmann::json& json, int64_t* out) {
  if (json.is_number_integer()) {
    *out = json.get<int64_t>();
    return true;
  }
  if (json.is_number_float()) {
    double d = json.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) {
      *out = static_cast<int64_t>(d);
      return true;
    }
  }
  return false;
}

}  // namespace

bool IsUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : !IsHex(text[i])) return false;
  }
  return true;
}

bool IsDate(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-' ||
      !AllDigits(text, 0, 4) || !AllDigits(text, 5, 2) ||
      !AllDigits(text, 8, 2))
    return false;
  int year = Digits(text, 0, 4), month = Digits(text, 5, 2),
      day = Digits(text, 8, 2);
  static const int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1])
    return false;
  bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return !(month == 2 && day == 29 && !leap);
}

bool IsDateTime(std::string_view text) {
  if (text.size() < 20 || !IsDate(text.substr(0, 10))) return false;
  if (text[10] != 'T' && text[10] != 't') return false;
  if (!AllDigits(text, 11, 2) || text[13] != ':' || !AllDigits(text, 14, 2) ||
      text[16] != ':' || !AllDigits(text, 17, 2))
    return false;
  if (Digits(text, 11, 2) > 23 || Digits(text, 14, 2) > 59 ||
      Digits(text, 17, 2) > 59)
    return false;
  size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    size_t start = ++at;
    while (at < text.size() && IsDigit(text[at])) ++at;
    if (at == start) return false;
  }
  std::string_view zone = text.substr(at);
  if (zone == "Z" || zone == "z") return true;
  return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') &&
         AllDigits(zone, 1, 2) && zone[3] == ':' && AllDigits(zone, 4, 2) &&
         Digits(zone, 1, 2) <= 23 && Digits(zone, 4, 2) <= 59;
}

ObjectReader::ObjectReader(const nlohmann::json& json, std::string path,
                           ValidationErrors& errors)
    : path_(std::move(path)), errors_(errors) {
  if (json.is_object()) {
    object_ = &json;
  } else {
    errors_.push_back({path_, "must be an object"});
  }
}

std::string ObjectReader::Path(std::string_view key) const {
  return path_ + "." + std::string(key);
}

void ObjectReader::Fail(std::string_view key, std::string message) {
  errors_.push_back({Path(key), std::move(message)});
}

const nlohmann::json* ObjectReader::Member(std::string_view key,
                                           const Rules& rules,
                                           const char* expected) {
  if (!object_) return nullptr;
  auto it = object_->find(key);
  if (it == object_->end()) {
    if (rules.required) Fail(key, "is required");
    return nullptr;
  }
  if (it->is_null()) {
    if (!rules.nullable) Fail(key, std::string("must be ") + expected);
    return nullptr;
  }
  return &*it;
}

std::optional<std::string> ReadString(const nlohmann::json& json,
                                      const std::string& path,
                                      const Rules& rules,
                                      ValidationErrors& errors) {
  if (!json.is_string()) {
    errors.push_back({path, "must be a string"});
    return std::nullopt;
  }
  std::string value = json.get<std::string>();
  size_t before = errors.size();
  CheckString(value, path, rules, errors);
  if (errors.size() != before) return std::nullopt;
  return value;
}

std::optional<std::string> ReadUuid(const nlohmann::json& json,
                                    const std::string& path,
                                    ValidationErrors& errors) {
  if (!json.is_string() || !IsUuid(json.get_ref<const std::string&>())) {
    errors.push_back({path, "must be a UUID"});
    return std::nullopt;
  }
  return json.get<std::string>();
}

std::optional<int64_t> ReadInteger(const nlohmann::json& json,
                                   const std::string& path, const Rules& rules,
                                   ValidationErrors& errors) {
  int64_t value = 0;
  if (!AsInteger(json, &value)) {
    errors.push_back({path, "must be an integer"});
    return std::nullopt;
  }
  size_t before = errors.size();
  CheckMinimum(static_cast<double>(value), path, rules, errors);
  if (errors.size() != before) return std::nullopt;
  return value;
}

std::optional<double> ReadNumber(const nlohmann::json& json,
                                 const std::string& path, const Rules& rules,
                                 ValidationErrors& errors) {
  if (!json.is_number()) {
    errors.push_back({path, "must be a number"});
    return std::nullopt;
  }
  double value = json.get<double>();
  size_t before = errors.size();
  CheckMinimum(value, path, rules, errors);
  if (errors.size() != before) return std::nullopt;
  return value;
}

std::optional<bool> ReadBoolean(const nlohmann::json& json,
                                const std::string& path,
                                ValidationErrors& errors) {
  if (!json.is_boolean()) {
    errors.push_back({path, "must be a boolean"});
    return std::nullopt;
  }
  return json.get<bool>();
}

std::optional<std::string> ObjectReader::String(std::string_view key,
                                                const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "a string");
  if (!m) return std::nullopt;
  return ReadString(*m, Path(key), rules, errors_);
}

std::optional<std::string> ObjectReader::Uuid(std::string_view key,
                                              const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "a UUID");
  if (!m) return std::nullopt;
  return ReadUuid(*m, Path(key), errors_);
}

std::optional<std::string> ObjectReader::Date(std::string_view key,
                                              const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "a date");
  if (!m) return std::nullopt;
  if (!m->is_string() || !IsDate(m->get_ref<const std::string&>())) {
    Fail(key, "must be a date (YYYY-MM-DD)");
    return std::nullopt;
  }
  return m->get<std::string>();
}

std::optional<std::string> ObjectReader::DateTime(std::string_view key,
                                                  const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "a date-time");
  if (!m) return std::nullopt;
  if (!m->is_string() || !IsDateTime(m->get_ref<const std::string&>())) {
    Fail(key, "must be an RFC 3339 date-time");
    return std::nullopt;
  }
  return m->get<std::string>();
}

std::optional<int64_t> ObjectReader::Integer(std::string_view key,
                                             const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "an integer");
  if (!m) return std::nullopt;
  return ReadInteger(*m, Path(key), rules, errors_);
}

std::optional<double> ObjectReader::Number(std::string_view key,
                                           const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "a number");
  if (!m) return std::nullopt;
  return ReadNumber(*m, Path(key), rules, errors_);
}

std::optional<bool> ObjectReader::Boolean(std::string_view key,
                                          const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "a boolean");
  if (!m) return std::nullopt;
  return ReadBoolean(*m, Path(key), errors_);
}

bool ObjectReader::IsNull(std::string_view key) const {
  if (!object_) return false;
  auto it = object_->find(key);
  return it != object_->end() && it->is_null();
}

const nlohmann::json* ObjectReader::Array(std::string_view key,
                                          const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "an array");
  if (!m) return nullptr;
  if (!m->is_array()) {
    Fail(key, "must be an array");
    return nullptr;
  }
  if (rules.min_items && static_cast<int64_t>(m->size()) < *rules.min_items) {
    Fail(key, *rules.min_items == 1
                  ? std::string("must not be empty")
                  : "must have at least " + std::to_string(*rules.min_items) +
                        " items");
    return nullptr;
  }
  return m;
}

const nlohmann::json* ObjectReader::Object(std::string_view key,
                                           const Rules& rules) {
  const nlohmann::json* m = Member(key, rules, "an object");
  if (!m) return nullptr;
  if (!m->is_object()) {
    Fail(key, "must be an object");
    return nullptr;
  }
  return m;
}

void ObjectReader::SchemaVersion(int version) {
  if (!object_) return;
  auto it = object_->find("schema_version");
  if (it == object_->end()) return;
  int64_t value = 0;
  if (!AsInteger(*it, &value) || value != version)
    Fail("schema_version", "must be " + std::to_string(version));
}

void ObjectReader::RejectUnknown(
    std::initializer_list<std::string_view> known) {
  if (!object_) return;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    bool listed = false;
    for (auto k : known) listed = listed || k == it.key();
    if (!listed) Fail(it.key(), "is not a known property");
  }
}

}  // namespace novacat::runtime
