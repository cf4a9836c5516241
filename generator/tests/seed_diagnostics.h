// The seeds load cleanly: any diagnostic of theirs is unexpected.
#pragma once

#include <string>

#include "support/diagnostics.h"

namespace novacat::testing {

// Every diagnostic of `sink` as text ("<file>: <rule>: <message>" per
// line); empty when there are none.
inline std::string UnexpectedDiagnostics(const DiagnosticSink& sink) {
  std::string out;
  for (const auto& d : sink.diagnostics())
    out += d.location.file + ": " + d.rule + ": " + d.message + "\n";
  return out;
}

}  // namespace novacat::testing
