// Parsing JSON text into an ordered_json in time linear in the text.
//
// nlohmann's ordered_json keeps an object's members in a vector and checks
// each new key against the members already read, so parsing an object of n
// keys costs n^2/2 comparisons: a definition's `States` of 20,000 states
// took a second to read. This parser indexes each open object's keys in a
// hash map instead and builds the same value ordered_json::parse does (a
// repeated key keeps its first position and takes its last value).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace novacat::runtime::asl {

// nullopt when `text` is not one JSON document; `error` (when given) then
// says where, as nlohmann's parse error does.
std::optional<nlohmann::ordered_json> ParseOrderedJson(
    std::string_view text, std::string* error = nullptr);

}  // namespace novacat::runtime::asl
