// AAVSO's International Variable Star Index (VSX), for name resolution
// (initialize_nova): its variability type tells classical from recurrent
// novae, which SIMBAD does not.
//
// Request: GET <base>/index.php?view=api.object&ident=<name>&format=json.
// Answer: {"VSXObject": {"Name": "V1500 Cyg", "AUID": "...", "RA2000":
// "317.90242", "Declination2000": "48.15054", "VariabilityType": "NA+AM",
// ...}} (RA2000/Declination2000: J2000 degrees, as strings); a name VSX
// does not know: {"VSXObject": []} (also read: {}, null). VSX answers one
// object per name at most.
//
// Variability types (VariabilityType; "+" joins types, ":" marks an
// uncertain one, "|" separates alternatives): NA, NB, NC (fast, slow,
// very slow classical novae, also as NA+E, NB/M ...) a classical nova,
// YES, uncertain ("NA:") AMBIGUOUS; NR (recurrent) a nova, NO; N alone
// (a nova of unknown subclass) a nova whose status VSX does not tell
// (nullopt); NL (nova-like) and everything else not a nova, NO.
//
// Errors (domain::ClientError, "<service name>: ..."): HTTP as
// HttpClient::Fetch classifies it; a body that is not JSON, or a
// VSXObject without Name, or with a position that is not a pair of
// numbers: kMalformedResponse.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "novacat/domain/resolver.h"
#include "novacat/sources/http.h"

namespace novacat::sources {

// What a VSX variability type says of nova-ness (see above).
struct VsxNovaClass {
  bool is_nova = false;
  std::optional<domain::ClassicalNovaStatus> classical_nova_status =
      domain::ClassicalNovaStatus::kNo;
};
VsxNovaClass ClassifyVsxType(std::string_view variability_type);

class Vsx {
 public:
  explicit Vsx(Service service, Clock& clock = SystemClock());

  // What VSX knows of this name (source "VSX"): no match, or one.
  domain::SourceAnswer Identify(std::string_view normalized_name,
                                int64_t budget_ms);

 private:
  HttpClient client_;
};

}  // namespace novacat::sources
