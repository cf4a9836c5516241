// SIMBAD (CDS) through its TAP service: synchronous ADQL, answers in
// VOTable (TABLEDATA), for name resolution (initialize_nova) and for an
// object's bibliography (refresh_references without an ADS token).
//
// Requests: POST <base>/sync, a form of REQUEST=doQuery, LANG=ADQL,
// FORMAT=votable/td (SIMBAD's "votable" is the BINARY serialization, which
// ParseVoTable refuses), MAXREC and QUERY. Names are matched with
// `ident.id = '<name>'`: SIMBAD compares identifiers the way its name
// resolver does (case and runs of blanks do not matter, "V1500 CYG" finds
// "V* V1500 Cyg", "m1" finds "M   1"); quotes in a name are doubled.
//
// Object types (basic.otype): "No*" (nova) is a nova whose classical
// status SIMBAD does not tell (it has no type for recurrent novae:
// "RNe" is a reflection nebula), "No?" (nova candidate) a nova of
// AMBIGUOUS status, anything else (NL* nova-like, CV*, ...) not a nova.
//
// Errors (domain::ClientError, messages "<service name>: ..."): HTTP as
// HttpClient::Fetch classifies it; a body that is not a VOTable, a
// QUERY_STATUS of ERROR, a missing column or a position that is not a
// number: kMalformedResponse.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/sources/http.h"

namespace novacat::sources {

// The most objects one name is resolved to (MAXREC): more than one is
// already ambiguous.
inline constexpr int kSimbadMaxMatches = 10;
// The source SIMBAD's answers and candidates are stamped with.
inline constexpr std::string_view kSimbadSource = "SIMBAD";
// The most references Bibliography returns (TOP and MAXREC).
inline constexpr int kSimbadMaxReferences = 200;

// `text` as an ADQL string literal: in single quotes, quotes doubled.
std::string AdqlString(std::string_view text);

class SimbadTap {
 public:
  explicit SimbadTap(Service service, Clock& clock = SystemClock());

  // The objects SIMBAD knows by this identifier (source "SIMBAD"), one
  // match per object: main_id, ICRS ra/dec (epoch "J2000"; none when
  // SIMBAD has no position), otype, every identifier of `ids` as aliases, as
  // published: without SIMBAD's markers "V* ", "* ", "** ", "NAME ".
  domain::SourceAnswer Identify(std::string_view normalized_name,
                                int64_t budget_ms);

  // The bibliography of the object named first in `query.names` (ident ->
  // has_ref -> ref), at most kSimbadMaxReferences, by year then bibcode,
  // as raw reference candidates: {"source": "SIMBAD", "bibcode",
  // "doi"?, "title"?, "publication_date"?: "<year>", "role":
  // PublicationRole(bibcode, "")}. A name SIMBAD does not know has no
  // references. Throws ClientError kInvalidRequest when `query.names` is
  // empty.
  std::vector<nlohmann::json> Bibliography(const domain::ReferenceQuery& query);

  // The ADQL the two calls send (for tests and `novacat sources check`).
  static std::string IdentifyQuery(std::string_view normalized_name);
  static std::string BibliographyQuery(std::string_view name);

 private:
  HttpClient client_;
};

}  // namespace novacat::sources
