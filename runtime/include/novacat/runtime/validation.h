// Validation results: errors that name the field path
// (`$.candidate_name: must be a non-empty string`) and parse results.
// Light on purpose: generated headers include it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace novacat::runtime {

struct ValidationError {
  std::string path;     // "$.provider_summaries[0].provider"
  std::string message;  // "must be a non-empty string"
  std::string ToString() const { return path + ": " + message; }
  bool operator==(const ValidationError&) const = default;
};
using ValidationErrors = std::vector<ValidationError>;

// One line per error.
std::string FormatErrors(const ValidationErrors& errors);

// A parse result: the value when the document was valid, else the errors.
template <typename T>
struct Parsed {
  std::optional<T> value;
  ValidationErrors errors;
  bool ok() const { return value.has_value(); }
};

}  // namespace novacat::runtime
