// Reading JSON documents into typed values, recording every problem with
// its field path. Generated parsers call these readers field by field; the
// rules are those of the generated JSON Schemas (draft 2020-12), and a
// corpus of events proves both give the same verdict.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/validation.h"

namespace novacat::runtime {

// The rules of one field, as in its JSON Schema. Built fluently:
// `Rules{}.Required().MinLength(1)`.
struct Rules {
  bool required = false;
  bool nullable = false;              // null is accepted (and read as absent)
  std::optional<int64_t> min_length;  // in Unicode code points
  std::optional<int64_t> min_items;   // arrays
  std::optional<double> minimum;
  std::vector<std::string_view> one_of;  // enum values

  Rules Required() const {
    Rules r = *this;
    r.required = true;
    return r;
  }
  Rules Nullable() const {
    Rules r = *this;
    r.nullable = true;
    return r;
  }
  Rules MinLength(int64_t n) const {
    Rules r = *this;
    r.min_length = n;
    return r;
  }
  Rules MinItems(int64_t n) const {
    Rules r = *this;
    r.min_items = n;
    return r;
  }
  Rules Minimum(double n) const {
    Rules r = *this;
    r.minimum = n;
    return r;
  }
  Rules OneOf(std::initializer_list<std::string_view> values) const {
    Rules r = *this;
    r.one_of = values;
    return r;
  }
};

// True for 8-4-4-4-12 hex digits (either case).
bool IsUuid(std::string_view text);
// True for YYYY-MM-DD with a valid day of the month.
bool IsDate(std::string_view text);
// True for an RFC 3339 date-time (T separator, Z or ±hh:mm offset).
bool IsDateTime(std::string_view text);

// Reads the members of one JSON object at `path`, recording errors.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& json, std::string path,
               ValidationErrors& errors);

  // False when the value at `path` is not an object (already recorded).
  bool ok() const { return object_ != nullptr; }

  std::optional<std::string> String(std::string_view key, const Rules& rules);
  std::optional<std::string> Uuid(std::string_view key, const Rules& rules);
  std::optional<std::string> Date(std::string_view key, const Rules& rules);
  std::optional<std::string> DateTime(std::string_view key, const Rules& rules);
  std::optional<int64_t> Integer(std::string_view key, const Rules& rules);
  std::optional<double> Number(std::string_view key, const Rules& rules);
  std::optional<bool> Boolean(std::string_view key, const Rules& rules);
  // The array or object member itself (its elements are read by the
  // caller with Path()); null when absent, null-valued or of another type.
  const nlohmann::json* Array(std::string_view key, const Rules& rules);
  const nlohmann::json* Object(std::string_view key, const Rules& rules);
  // True when `key` is present with the value null (a nullable field's
  // "no value", which is not the same as absent).
  bool IsNull(std::string_view key) const;
  // `schema_version`, when present, must equal `version`.
  void SchemaVersion(int version);
  // Records every member not in `known`.
  void RejectUnknown(std::initializer_list<std::string_view> known);

  std::string Path(std::string_view key) const;
  ValidationErrors& errors() { return errors_; }

 private:
  const nlohmann::json* Member(std::string_view key, const Rules& rules,
                               const char* expected);
  void Fail(std::string_view key, std::string message);

  const nlohmann::json* object_ = nullptr;
  std::string path_;
  ValidationErrors& errors_;
};

// Element readers for arrays: read `json` (at `path`) as a scalar.
std::optional<std::string> ReadString(const nlohmann::json& json,
                                      const std::string& path,
                                      const Rules& rules,
                                      ValidationErrors& errors);
std::optional<std::string> ReadUuid(const nlohmann::json& json,
                                    const std::string& path,
                                    ValidationErrors& errors);
std::optional<int64_t> ReadInteger(const nlohmann::json& json,
                                   const std::string& path, const Rules& rules,
                                   ValidationErrors& errors);
std::optional<double> ReadNumber(const nlohmann::json& json,
                                 const std::string& path, const Rules& rules,
                                 ValidationErrors& errors);
std::optional<bool> ReadBoolean(const nlohmann::json& json,
                                const std::string& path,
                                ValidationErrors& errors);

}  // namespace novacat::runtime
