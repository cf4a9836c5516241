#include "novacat/runtime/errors.h"

namespace novacat::runtime {

const char* StepError::classification() const {
  return ErrorClassName(error_class_);
}

const std::string& ErrorNames::NameOf(ErrorClass error_class) const {
  switch (error_class) {
    case ErrorClass::kRetryable:
      return retryable;
    case ErrorClass::kQuarantine:
      return quarantine;
    case ErrorClass::kTerminal:
      break;
  }
  return terminal;
}

const char* ErrorNames::Classify(std::string_view error_name) const {
  if (error_name == retryable) return "RETRYABLE";
  if (error_name == quarantine) return "QUARANTINE";
  for (const auto& name : also_retry)
    if (error_name == name) return "RETRYABLE";
  return "TERMINAL";
}

bool ErrorNames::IsClassName(std::string_view error_name) const {
  return error_name == retryable || error_name == terminal ||
         error_name == quarantine;
}

}  // namespace novacat::runtime
