// event_validator EVENT DOCUMENT.json: validates the document with the
// generated C++ parser of EVENT. Exit 0 when it parses, 1 when it does not
// (the errors, with their field paths, on stdout), 2 on a usage error. The
// event corpus test compares its verdicts with ajv's and jsonschema's.
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "discover_spectra_products/discover_spectra_products.hpp"
#include "download_and_validate_spectra/download_and_validate_spectra.hpp"
#include "ingest_photometry_dataset/ingest_photometry_dataset.hpp"
#include "initialize_nova/initialize_nova.hpp"
#include "refresh_references/refresh_references.hpp"

namespace {

std::optional<novacat::runtime::ValidationErrors> Validate(
    const std::string& event, const nlohmann::json& document) {
  if (auto e = novacat::initialize_nova::ValidateEvent(event, document))
    return e;
  if (auto e =
          novacat::discover_spectra_products::ValidateEvent(event, document))
    return e;
  if (auto e = novacat::download_and_validate_spectra::ValidateEvent(event,
                                                                     document))
    return e;
  if (auto e =
          novacat::ingest_photometry_dataset::ValidateEvent(event, document))
    return e;
  return novacat::refresh_references::ValidateEvent(event, document);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: event_validator EVENT DOCUMENT.json\n");
    return 2;
  }
  std::ifstream in(argv[2]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[2]);
    return 2;
  }
  nlohmann::json document = nlohmann::json::parse(in, nullptr, false);
  if (document.is_discarded()) {
    std::fprintf(stderr, "%s is not JSON\n", argv[2]);
    return 2;
  }
  auto errors = Validate(argv[1], document);
  if (!errors) {
    std::fprintf(stderr, "unknown event %s\n", argv[1]);
    return 2;
  }
  std::fputs(novacat::runtime::FormatErrors(*errors).c_str(), stdout);
  return errors->empty() ? 0 : 1;
}
