// NASA ADS's search API as a reference source (refresh_references): the
// nova's bibliography, one raw reference candidate per ADS record.
//
// The request (GET <base>/search/query, base e.g.
// "https://api.adsabs.harvard.edu/v1"):
//   q     an object query over the nova's names, resolved by ADS through
//         SIMBAD and NED: object:"V1500 CYG", or for several names
//         object:("GK PER" OR "NOVA PER 1901") (names deduplicated without
//         regard to case, in the query's order; '"' and '\' escaped)
//   fl    bibcode,title,pubdate,doctype,doi
//   sort  date asc
//   rows  kAdsRows; start 0, kAdsRows, ... while ADS says there are more
//         (response.numFound), at most kAdsMaxRecords records in all
//   Authorization: Bearer <token>; the User-Agent of every client
//         (http.h). The token appears in no message this client makes: a
//         service's message that repeats it has it replaced by "<token>".
//
// The answer (Solr's JSON): {"responseHeader": {...}, "response":
// {"numFound": 6, "start": 0, "docs": [{"bibcode": "1975IAUC.2826....1H",
// "title": ["..."], "pubdate": "1975-08-00", "doctype": "circular",
// "doi": ["10.1086/155424"]}, ...]}}; title and doi are lists, absent when
// ADS has none.
//
// Failures (domain::ClientError, messages "ADS: ..."):
//   kInvalidRequest     no name to ask about; no token; 4xx (a bad token is
//                       401 with ADS's own message: "ADS: HTTP 401:
//                       { "error": "Unauthorized" }")
//   kUnavailable        429 (the daily quota: X-RateLimit-Remaining 0),
//                       503, other 5xx, timeouts (HttpClient, http.h)
//   kMalformedResponse  a body that is not JSON, without response.docs as a
//                       list or response.numFound as a count, or a record
//                       that is not an object with a bibcode (identity)
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "novacat/domain/references.h"
#include "novacat/sources/http.h"

namespace novacat::sources {

// Records asked for per page, and in all: ADS allows up to 2000 rows per
// request and counts each request against a daily quota.
inline constexpr int64_t kAdsRows = 200;
inline constexpr int64_t kAdsMaxRecords = 1000;

// The object query of `names` (see above); "" when no name is left.
std::string AdsObjectQuery(const std::vector<std::string>& names);

class Ads : public domain::ReferenceSource {
 public:
  // `service.name` is used in messages as given ("ADS").
  Ads(Service service, std::string token, Clock& clock = SystemClock());

  // The nova's bibliography as raw reference candidates, in ADS's order:
  //   {"source": "ADS", "bibcode", "doi" (the first of ADS's list),
  //    "title" (the first), "publication_date" (pubdate as ADS gives it:
  //    "1975-08-00"), "role" (ToString(domain::PublicationRole(bibcode,
  //    doctype))), "doctype"}
  // doi, title, publication_date and doctype are left out when ADS gives
  // none (or not as a string / a list whose first item is a string); the
  // candidate is checked later (NormalizeReferenceCandidate), item by item.
  // The pages share query.budget_ms. The answer's source is
  // `service.name`; its quota what the last page's rate-limit headers
  // (X-RateLimit-Limit: requests a day, X-RateLimit-Remaining,
  // X-RateLimit-Reset: Unix time of the reset, midnight UTC) said, nullopt
  // when one of the three is missing or not an integer.
  domain::ReferenceAnswer Fetch(const domain::ReferenceQuery& query) override;

 private:
  // One page of the search: the response object and the page's quota.
  std::pair<nlohmann::json, std::optional<domain::SourceQuota>> Page(
      const std::string& q, int64_t start, int64_t budget_ms);

  HttpClient http_;
  std::string token_;
  Clock& clock_;
};

}  // namespace novacat::sources
