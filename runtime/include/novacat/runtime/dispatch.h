// What generated dispatchers share: turning a JSON document into the typed
// record a step takes, or a TERMINAL error that says why not.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/validation.h"

namespace novacat::runtime {

// Parses `document` as `Record` (which has a static FromJson), or throws
// TerminalError listing every problem with its field path.
template <typename Record>
Record ParseDocumentOrThrow(const nlohmann::json& document,
                            std::string_view state) {
  Parsed<Record> parsed = Record::FromJson(document);
  if (!parsed.ok()) {
    throw TerminalError("the document given to " + std::string(state) +
                        " is invalid:\n" + FormatErrors(parsed.errors));
  }
  return std::move(*parsed.value);
}

}  // namespace novacat::runtime
