// libFuzzer target: arbitrary bytes as a workflow spec, through load and
// check. Any crash, hang, leak or sanitizer report is a bug: bad input must
// only ever produce diagnostics.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler.h"
#include "load/spec_loader.h"

namespace {

// The real governance, read once, so fuzzed specs exercise the checker's
// governance-dependent rules.
const std::string& Governance() {
  static const std::string text =
      novacat::DiskFileReader()("specs/shared/governance.yaml").value_or("");
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  const std::string& governance = Governance();
  novacat::FileReader read =
      [&](const std::string& path) -> std::optional<std::string> {
    if (path == "specs/fuzz.yaml") return spec;
    if (path == "specs/shared/governance.yaml") return governance;
    return std::nullopt;
  };
  novacat::DiagnosticSink sink;
  auto files = novacat::Compile({"specs/fuzz.yaml"}, read, sink);
  (void)sink.FormatAll();
  return 0;
}
