// ASL intrinsic functions (`States.Format('{}', $.x)` ...) in payload
// templates of the JSONPath query language.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace novacat::runtime::asl {

// Whether `text` is an intrinsic call (starts with "States.").
bool IsIntrinsic(const std::string& text);

// Evaluates the call in `text`; paths read `input` ($) and `context` ($$).
// `random` supplies 64-bit values for States.UUID and States.MathRandom, so
// runs are reproducible. Throws AslError States.IntrinsicFailure on a
// malformed call or bad arguments.
nlohmann::ordered_json EvaluateIntrinsic(
    const std::string& text, const nlohmann::ordered_json& input,
    const nlohmann::ordered_json& context,
    const std::function<uint64_t()>& random);

// Whether the named function is one this executor implements.
bool IsSupportedIntrinsic(const std::string& name);

}  // namespace novacat::runtime::asl
