// Reference reconciliation and the discovery date (refresh_references).
//
// Flow:
//   FetchReferenceCandidates   ReferenceSource::Fetch -> raw candidates
//   ReconcileReferences (Map, one candidate per item)
//     NormalizeReference       NormalizeReferenceCandidate
//     UpsertReferenceEntity    ReferenceUpsertDedupeKey; reference_id
//     LinkNovaReference        NovaReferenceLinkDedupeKey
//   ComputeDiscoveryDate       TallyReconcileResults; DecideDiscoveryDate
//                              over the nova's references (AP-REF-3)
//   UpsertDiscoveryDateMetadata  DiscoveryDateDedupeKey; a no-op unless
//                              DecideDiscoveryDate says changed
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::domain {

// --- Partial dates -----------------------------------------------------------

// A publication date known to the year, the month or the day.
//
// Accepted text: "YYYY", "YYYY-MM", "YYYY-MM-DD", and the ADS forms with
// zeros for the unknown parts, "YYYY-00-00" and "YYYY-MM-00". Years are
// 0001-9999, months 01-12, days valid for the month (leap years included).
// The canonical text (ToString) is the shortest form: "1975", "1975-08",
// "1975-08-30".
//
// Order (rule_version 1): a date is earlier when the last day it can denote
// is earlier; on the same last day the more precise date is earlier.
// Calendar periods either nest or are disjoint, so this means: of two
// disjoint dates the earlier wins; of nested ones ("1975" and "1975-08-30")
// the more precise wins, because the coarse one is consistent with it and
// says no more. In terms of what a reference proves: a paper dated "1975"
// shows the nova was known by 1975-12-31, an IAU Circular of 1975-08-30
// shows it was known by 1975-08-30; the earlier proof wins.
class PartialDate {
 public:
  enum class Precision { kYear, kMonth, kDay };

  // nullopt when `text` is not one of the accepted forms.
  static std::optional<PartialDate> Parse(std::string_view text);

  int year() const { return year_; }
  int month() const { return month_; }  // 0 when unknown
  int day() const { return day_; }      // 0 when unknown
  Precision precision() const;

  std::string ToString() const;  // canonical: "1975", "1975-08", ...
  std::string FirstDay() const;  // "1975-01-01" for "1975"
  std::string LastDay() const;   // "1975-12-31" for "1975"
  // The spec's `date` fields (reference_date, discovery_date_old/new) hold
  // YYYY-MM-DD: the first day of the period. Keep the canonical text (or
  // the precision) beside it in the store: FirstDay alone loses precision.
  std::string ToIsoDate() const { return FirstDay(); }

  // The order above; false for equal dates.
  bool EarlierThan(const PartialDate& other) const;
  // Whether this date's period lies inside `other`'s ("1975-08-30" in
  // "1975"; every date in itself).
  bool Within(const PartialDate& other) const;

  bool operator==(const PartialDate&) const = default;

 private:
  PartialDate(int year, int month, int day)
      : year_(year), month_(month), day_(day) {}
  int year_ = 1;
  int month_ = 0;
  int day_ = 0;
};

// --- Reference candidates ----------------------------------------------------

// What a reference is to the nova. The candidate's `role` member, exactly
// these names; absent or null means OTHER.
enum class ReferenceRole {
  kDiscovery,     // DISCOVERY: the discovery report (circular, telegram)
  kConfirmation,  // CONFIRMATION: confirmation / classification spectra
  kSpectroscopy,  // SPECTROSCOPY: spectroscopic study of the eruption
  kPhotometry,    // PHOTOMETRY: light curve / photometric study
  kAnalysis,      // ANALYSIS: modelling or analysis of the nova
  kCatalog,       // CATALOG: a catalog or compilation listing it
  kProgenitor,    // PROGENITOR: about the progenitor before the eruption
  kErratum,       // ERRATUM: a correction notice
  kOther,         // OTHER: anything else, or unknown
};
std::string_view ToString(ReferenceRole role);
std::optional<ReferenceRole> ParseReferenceRole(std::string_view text);

// Whether a reference of this role can date the discovery. Credible:
// DISCOVERY, CONFIRMATION, SPECTROSCOPY, PHOTOMETRY, ANALYSIS (work on the
// eruption itself: it cannot predate the discovery). Not credible:
// PROGENITOR (predates the eruption by design), CATALOG (compilations
// inherit dates and misassociate by position), ERRATUM (dated by the
// correction, not the work) and OTHER (unknown).
bool IsCredibleRole(ReferenceRole role);

// The role a bibliographic service's record gives a reference, for the
// candidates the real clients make (ADS, SIMBAD's bibliography), which
// carry no role of their own. From ADS's `doctype` when given: "circular"
// and "telegram" (IAU Circulars, CBETs, ATels: how novae are announced)
// DISCOVERY; "catalog" CATALOG; "erratum" ERRATUM; "article", "eprint",
// "inproceedings", "inbook", "abstract" ANALYSIS (work on the object,
// which cannot predate its discovery); anything else OTHER. Without a
// doctype (SIMBAD), from the bibcode's journal (characters 5-9, known by
// its first four, since ATel's five-digit numbers run into it: IAUC, CBET,
// ATel) DISCOVERY; any other journal ANALYSIS; a text too short to be a
// bibcode OTHER.
ReferenceRole PublicationRole(std::string_view bibcode,
                              std::string_view doctype);

// A candidate in canonical form.
//
// Identity: the bibcode when there is one, else the DOI (ADS, the usual
// source, always has a bibcode; many older works and all IAU Circulars have
// no DOI). `source` names the key's kind, `source_key` the key:
//   source "bibcode", source_key "1975IAUC.2826....1H"
//   source "doi",     source_key "10.1086/155424"
// and reference_id = UuidV5(kReferenceIdNamespace, source + ":" +
// source_key), the same for the same reference on every run and for every
// nova. A reference seen first with only a DOI and later with a bibcode
// gets two ids; reconciling those needs a lookup, not this function.
struct NormalizedReference {
  std::string reference_source;  // who returned it: "ADS", "SIMBAD"
  std::string source;            // "bibcode" or "doi"
  std::string source_key;        // the bibcode or the canonical DOI
  std::optional<std::string> bibcode;
  std::optional<std::string> doi;  // canonical: lower case, no prefix
  std::optional<std::string> title;
  std::optional<PartialDate> publication_date;
  ReferenceRole role = ReferenceRole::kOther;
  std::string reference_id;

  bool credible() const { return IsCredibleRole(role); }
  // {"reference_source", "source", "source_key", "reference_id", "role",
  //  "bibcode"?, "doi"?, "title"?, "publication_date"? (canonical text),
  //  "reference_date" (ToIsoDate, or null)}
  nlohmann::json ToJson() const;
  bool operator==(const NormalizedReference&) const = default;
};

// Normalizes one raw candidate (a Map item's `candidate`):
//
//   {"source": "ADS",                          required, non-empty string
//    "bibcode": "1977ApJ...215..873F",         19 characters: 4 digits of
//                                              year, then letters, digits,
//                                              '.' and '&'
//    "doi": "https://doi.org/10.1086/155424",  "10.<4-9 digits>/<suffix>",
//                                              optionally prefixed by
//                                              doi:, https://doi.org/,
//                                              http://dx.doi.org/, ...
//    "title": "...",                           optional string
//    "publication_date": "1977-06-00",         optional, a PartialDate
//    "role": "ANALYSIS"}                       optional, a ReferenceRole
//
// At least one of bibcode and doi is required. Null counts as absent;
// other members are ignored. Throws ReferenceError kInvalidCandidate (the
// spec's reference_parse_failure) naming `path` and the member:
// `invalid reference candidate.publication_date: "1975-13-01" is not a
// date (YYYY, YYYY-MM or YYYY-MM-DD)`.
NormalizedReference NormalizeReferenceCandidate(
    const nlohmann::json& candidate, std::string_view path = "candidate");

// UuidV5(kReferenceIdNamespace, source + ":" + source_key).
std::string ReferenceId(std::string_view source, std::string_view source_key);

// "ReferenceUpsert:{source}:{source_key}:{schema_version}"
std::string ReferenceUpsertDedupeKey(std::string_view source,
                                     std::string_view source_key,
                                     int64_t schema_version);
// "NovaReferenceLink:{nova_id}:{reference_id}"
std::string NovaReferenceLinkDedupeKey(std::string_view nova_id,
                                       std::string_view reference_id);
// "DiscoveryDate:{nova_id}:{earliest_reference_id}:{rule_version}"
std::string DiscoveryDateDedupeKey(std::string_view nova_id,
                                   std::string_view earliest_reference_id,
                                   int64_t rule_version);

// The version of the discovery-date rule implemented here (the order of
// PartialDate, the credible roles, DecideDiscoveryDate). Equal to the
// spec's constants.rule_version; a change to the rule bumps both.
inline constexpr int64_t kDiscoveryDateRuleVersion = 1;

// --- Reference sources -------------------------------------------------------

// What a reference source is asked about: the nova, its names as
// published (the primary name first: what ADS and SIMBAD know it by) and
// its position.
struct ReferenceQuery {
  std::string nova_id;
  std::vector<std::string> names;
  std::optional<double> ra_deg;
  std::optional<double> dec_deg;
  int64_t budget_ms = kUnlimitedBudgetMs;  // see ArchiveResolver::Resolve
};

// A source's published usage quota as its last answer stated it (ADS's
// X-RateLimit-Limit, -Remaining and -Reset headers): requests allowed in
// the period, left in it, and when it starts again (Unix seconds).
struct SourceQuota {
  int64_t limit = 0, remaining = 0, reset = 0;
  bool operator==(const SourceQuota&) const = default;
};

// What a reference source answered: the raw candidates for the nova, each
// an object stamped with its `source`; the service that answered ("ADS",
// "SIMBAD"); its quota after this fetch, when it publishes one. The run
// records the last two in its JobRun output, for the operator who watches
// a daily quota run down.
struct ReferenceAnswer {
  std::string source;
  std::vector<nlohmann::json> candidates;
  std::optional<SourceQuota> quota;
};

// The seam a real client implements (ADS search API, SIMBAD's reference
// list). Throws ClientError (failure.h): kUnavailable for transient
// failures, kInvalidRequest for a nova_id that is not a UUID.
// FixtureReferenceSource (fixtures/, target novacat_domain_fixtures)
// answers from files.
class ReferenceSource {
 public:
  virtual ~ReferenceSource() = default;
  virtual ReferenceAnswer Fetch(const ReferenceQuery& query) = 0;
};

// --- Reconciliation results --------------------------------------------------

struct ReconcileTally {
  int64_t upsert_count = 0;       // items with a reference_id
  int64_t link_count = 0;         // ... that were not quarantined
  int64_t quarantined_count = 0;  // items with quarantined: true
  bool operator==(const ReconcileTally&) const = default;
};

// ComputeDiscoveryDate's counts from the Map's reconcile_results (each the
// item document as its last state left it: `reference_id` once
// UpsertReferenceEntity ran, `quarantined: true` after QuarantineItem).
// Throws ReferenceError kInvalidReconcileResult naming reconcile_results[i]
// for a result that is not an object or has a reference_id that is not a
// UUID.
ReconcileTally TallyReconcileResults(
    const std::vector<nlohmann::json>& reconcile_results);

// --- Discovery date ----------------------------------------------------------

// One of the nova's references as ComputeDiscoveryDate sees it.
struct DiscoveryEvidence {
  std::string reference_id;
  std::optional<PartialDate> date;  // publication date; nullopt: undated
  ReferenceRole role = ReferenceRole::kOther;
};

enum class DiscoveryDateChange {
  kUnchanged,     // no-op
  kSet,           // there was no discovery_date
  kMovedEarlier,  // the new date is disjoint from and before the old one
  kRefined,       // the new date is a more precise date inside the old one
};
std::string_view ToString(DiscoveryDateChange change);

struct DiscoveryDateDecision {
  std::optional<PartialDate> old_date;  // the current discovery_date
  std::optional<PartialDate> new_date;  // == old_date when unchanged
  // The credible reference whose date is new_date; nullopt when no
  // credible dated reference has exactly that date (e.g. none at all, or
  // the stored date came from elsewhere and nothing earlier was found).
  std::optional<std::string> earliest_reference_id;
  DiscoveryDateChange change = DiscoveryDateChange::kUnchanged;
  bool changed() const { return change != DiscoveryDateChange::kUnchanged; }
  bool operator==(const DiscoveryDateDecision&) const = default;
};

// The discovery-date rule (rule_version 1): the earliest (PartialDate
// order) publication date among the credible, dated references; ties on
// date go to the smallest reference_id. It replaces `current` only when it
// is earlier in that order (kSet, kMovedEarlier, kRefined); otherwise
// nothing changes (monotonic: the last day the discovery can be is never
// moved later). Throws ReferenceError kIrreconcilableDiscoveryDate (the
// spec's irreconcilable_discovery_date) when the evidence gives one credible
// reference_id two different dates.
DiscoveryDateDecision DecideDiscoveryDate(
    const std::optional<PartialDate>& current,
    const std::vector<DiscoveryEvidence>& evidence);

}  // namespace novacat::domain
