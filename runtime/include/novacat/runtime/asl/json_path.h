// JSONPath as ASL (JSONPath query language) uses it: reference paths such as
// `$.a.b[0]`, `$['key']`, `$`, for the context object `$$.Execution.Id`,
// and for a workflow variable (Assign) `$name`, `$name.a[0]`.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace novacat::runtime::asl {

// One step of a path: an object member or an array index.
using PathStep = std::variant<std::string, size_t>;

struct Path {
  bool context = false;  // starts with $$ (the context object)
  std::string variable;  // `$name...`: the variable's name; else empty
  std::vector<PathStep> steps;
};

// Whether `name` can name a workflow variable here: a letter or "_", then
// letters, digits and "_" (ASCII), at most 80 characters.
bool IsVariableName(const std::string& name);

// Parses `text`; nullopt when it is not a reference path this executor
// supports (wildcards, filters and slices are not).
std::optional<Path> ParsePath(const std::string& text);

// The value at `path` in `root`, or null when a step is missing. With
// `first`, the steps before it are skipped (`root` is where they lead).
const nlohmann::ordered_json* Find(const nlohmann::ordered_json& root,
                                   const Path& path, size_t first = 0);

// Sets the value at `path` inside `root`, creating objects on the way
// (ResultPath semantics). False when a step runs into a non-object value or
// an index (ResultPath takes member names only).
bool Assign(nlohmann::ordered_json& root, const Path& path,
            nlohmann::ordered_json value);

}  // namespace novacat::runtime::asl
