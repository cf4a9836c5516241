// Helpers shared by the domain sources: message formatting and strict
// reading of the fixture files. Not part of the public interface.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace novacat::domain::internal {

// The shortest decimal text that reads back as `value` ("318.0825", "2",
// "1e-07", "nan", "inf").
std::string FormatDouble(double value);

// `value` with a fixed number of decimals ("12.500").
std::string FormatFixed(double value, int decimals);

// `text` as a JSON string literal, quotes included; invalid UTF-8 is
// replaced by U+FFFD so that a message can always be built.
std::string Quote(std::string_view text);

// The JSON type of `value` as a schema names it: null, boolean, integer,
// number, string, array, object.
std::string TypeName(const nlohmann::json& value);

// `value` for a message: strings quoted, other values as compact JSON,
// cut to 60 characters.
std::string Describe(const nlohmann::json& value);

// Field paths: `parent.key` (or `parent["key"]` when the key is not an
// identifier), `parent[index]`.
std::string MemberPath(std::string_view parent, std::string_view key);
std::string IndexPath(std::string_view parent, size_t index);

// Reads and parses a JSON file. Throws runtime::TerminalError naming the
// file when it cannot be read or is not JSON: a broken fixture or
// configuration file is not something a retry can fix.
nlohmann::json ReadJsonFile(const std::filesystem::path& file);

// Strict reading of one object of a fixture file. Every error is a
// runtime::TerminalError "<origin>: <path>: <message>".
class FixtureObject {
 public:
  // Throws when `value` is not an object.
  FixtureObject(const nlohmann::json& value, std::string origin,
                std::string path);

  const nlohmann::json& value() const { return value_; }
  const std::string& origin() const { return origin_; }
  const std::string& path() const { return path_; }
  std::string Path(std::string_view key) const {
    return MemberPath(path_, key);
  }

  // Throws naming every member not in `known` (typos in fixtures must not
  // pass silently).
  void AllowOnly(std::initializer_list<std::string_view> known) const;

  const nlohmann::json* Find(std::string_view key) const;
  std::string RequiredString(std::string_view key) const;
  std::optional<std::string> OptionalString(std::string_view key) const;
  std::optional<double> OptionalNumber(std::string_view key) const;
  bool RequiredBool(std::string_view key) const;
  // A non-negative integer; `fallback` when absent.
  int64_t Count(std::string_view key, int64_t fallback) const;
  const nlohmann::json& RequiredArray(std::string_view key) const;
  const nlohmann::json& RequiredObject(std::string_view key) const;

  [[noreturn]] void Fail(std::string_view path, std::string_view message) const;

 private:
  const nlohmann::json& value_;
  std::string origin_;
  std::string path_;
};

}  // namespace novacat::domain::internal
