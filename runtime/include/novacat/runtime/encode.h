// Encoding typed values (generated records, scalars, vectors, optionals)
// as JSON, uniformly, for generated ToJson functions and dispatchers.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace novacat::runtime {

template <typename T>
nlohmann::json Encode(const T& value);

template <typename T>
nlohmann::json Encode(const std::vector<T>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& v : values) out.push_back(Encode(v));
  return out;
}

template <typename T>
nlohmann::json Encode(const std::optional<T>& value) {
  return value ? Encode(*value) : nlohmann::json(nullptr);
}

template <typename T>
nlohmann::json Encode(const T& value) {
  if constexpr (requires { value.ToJson(); }) {
    return value.ToJson();
  } else {
    return nlohmann::json(value);
  }
}

}  // namespace novacat::runtime
