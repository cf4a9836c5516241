// ASL intrinsic functions (`States.Format('{}', $.x)` ...) in payload
// templates of the JSONPath query language.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace novacat::runtime::asl {

// A path argument of an intrinsic call that matches nothing. Step Functions
// fails the execution with States.Runtime then, which no Retry or Catch
// handles, as for a payload template's path (not States.IntrinsicFailure,
// which is for the function's own failures): the caller, which knows the
// field holding the call, raises it.
struct IntrinsicPathNotFound : std::runtime_error {
  IntrinsicPathNotFound(const std::string& path_text,
                        const nlohmann::ordered_json& searched)
      : std::runtime_error("the path " + path_text + " matches nothing"),
        path(path_text),
        data(searched) {}
  std::string path;
  // What the path was applied to: the input, the context object or a
  // variable's value (a reference into the caller's documents).
  const nlohmann::ordered_json& data;
};

// Whether `text` is an intrinsic call (starts with "States.").
bool IsIntrinsic(const std::string& text);

// A workflow variable's value by name; the caller decides what an
// unassigned one does (it may throw).
using VariableLookup =
    std::function<const nlohmann::ordered_json&(const std::string& name)>;

// Evaluates the call in `text`; paths read `input` ($), `context` ($$) and
// `variables` ($name; none without it). `random` supplies 64-bit values for
// States.UUID and States.MathRandom, so runs are reproducible. Throws
// AslError States.IntrinsicFailure on a malformed call or bad arguments,
// and IntrinsicPathNotFound when a path argument matches nothing.
nlohmann::ordered_json EvaluateIntrinsic(
    const std::string& text, const nlohmann::ordered_json& input,
    const nlohmann::ordered_json& context,
    const std::function<uint64_t()>& random,
    const VariableLookup* variables = nullptr);

// Whether the named function is one this executor implements.
bool IsSupportedIntrinsic(const std::string& name);

}  // namespace novacat::runtime::asl
