// JSONPath as ASL (JSONPath query language) uses it: reference paths such as
// `$.a.b[0]`, `$['key']`, `$`, for the context object `$$.Execution.Id`,
// and for a workflow variable (Assign) `$name`, `$name.a[0]`; and the
// queries Step Functions accepts where a field takes a Path rather than a
// Reference Path (a payload template's ".$" values, intrinsic arguments,
// InputPath, OutputPath): `[*]` and `.*`, slices `[a:b]`, index lists
// `[0,2]` and `..name`. Filters (`[?(...)]`), slices with a step, lists of
// names and negative single indexes are not supported.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace novacat::runtime::asl {

// One step of a path: an object member or an array index.
using PathStep = std::variant<std::string, size_t>;

// One selector of a query, after the first that can match more than one
// node. Indexes may be negative (from the end, as Jayway's JsonPath, which
// Step Functions runs, reads them).
struct Selector {
  enum class Kind {
    kName,      // .name, ['name']
    kIndex,     // [n] (`index`)
    kWildcard,  // [*], .*: an array's elements or an object's values
    kSlice,     // [start:end], either omitted
    kIndexes,   // [i,j,...]
    kDescend,   // ..name: `name` in this node and every node below it
  };
  Kind kind = Kind::kName;
  std::string name;                     // kName, kDescend
  std::vector<long long> indexes;       // kIndex (one), kIndexes
  std::optional<long long> start, end;  // kSlice
};

struct Path {
  bool context = false;  // starts with $$ (the context object)
  std::string variable;  // `$name...`: the variable's name; else empty
  // The definite part: member names and indexes up to the first selector
  // that can match more than one node (all of a reference path).
  std::vector<PathStep> steps;
  // The rest from that selector on: empty for a reference path; else the
  // path is a query, whose value is the array of what it matches.
  std::vector<Selector> query;

  bool IsReference() const { return query.empty(); }
};

// Whether `name` can name a workflow variable here: a letter or "_", then
// letters, digits and "_" (ASCII), at most 80 characters.
bool IsVariableName(const std::string& name);

// Parses `text`; nullopt when it is not a path this executor supports, with
// the reason in `*why` when given. A query parses: the fields that take a
// Reference Path refuse it (Path::IsReference) themselves.
std::optional<Path> ParsePath(const std::string& text,
                              std::string* why = nullptr);

// The value at `path` in `root`, or null when a step is missing. With
// `first`, the steps before it are skipped (`root` is where they lead).
const nlohmann::ordered_json* Find(const nlohmann::ordered_json& root,
                                   const Path& path, size_t first = 0);

// A query's value (Jayway's JsonPath, which Step Functions runs): the array
// of the nodes `path.query` matches from `at`, the node its definite part
// (`path.steps`) leads to, in document order; a selector that meets a node
// it cannot apply to (a member of a number, an index past the end, a
// wildcard on a string) skips it, so a query matching nothing is []. But
// nullopt, no result, when the first selector is a slice or an index list
// and `at` is not an array: Jayway then reports the path not found, as for
// a missing member of the definite part.
std::optional<nlohmann::ordered_json> Query(const nlohmann::ordered_json& at,
                                            const Path& path);

// Sets the value at `path` inside `root`, creating objects on the way
// (ResultPath semantics). False when a step runs into a non-object value or
// an index (ResultPath takes member names only).
bool Assign(nlohmann::ordered_json& root, const Path& path,
            nlohmann::ordered_json value);

}  // namespace novacat::runtime::asl
