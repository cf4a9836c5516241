// What the seeds may still report when they load cleanly: the
// schedule-missing warnings of their scheduled refreshes, which have no
// schedule until a per-nova sweep exists (README, Known gaps).
#pragma once

#include <string>

#include "support/diagnostics.h"

namespace novacat::testing {

// The diagnostics of `sink` other than schedule-missing warnings, as text
// ("<file>: <rule>: <message>" per line); empty when there are none.
inline std::string UnexpectedDiagnostics(const DiagnosticSink& sink) {
  std::string out;
  for (const auto& d : sink.diagnostics())
    if (d.rule != "schedule-missing")
      out += d.location.file + ": " + d.rule + ": " + d.message + "\n";
  return out;
}

}  // namespace novacat::testing
