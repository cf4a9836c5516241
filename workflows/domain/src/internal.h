// Helpers shared by the domain sources (and the fixture clients in
// fixtures/): message formatting and the calendar. Not part of the public
// interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
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

// The days of `month` (1 to 12) of `year` in the proleptic Gregorian
// calendar, for the date checks of references and spectra.
int DaysInMonth(int64_t year, int64_t month);

// The `count` digits at text[pos] as a number; -1 when they are not all
// digits or run past the end.
int64_t Digits(std::string_view text, size_t pos, size_t count);

}  // namespace novacat::domain::internal
