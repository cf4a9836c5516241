#include "novacat/domain/references.h"

#include <cstdio>
#include <map>
#include <tuple>

#include "internal.h"
#include "novacat/domain/uuid.h"

namespace novacat::domain {

using internal::DaysInMonth;
using internal::Describe;
using internal::Digits;
using internal::IndexPath;
using internal::Quote;
using internal::TypeName;
using nlohmann::json;

// --- PartialDate -------------------------------------------------------------

namespace {

std::string Ymd(int y, int m, int d) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d", y, m, d);
  return buffer;
}

}  // namespace

std::optional<PartialDate> PartialDate::Parse(std::string_view text) {
  if (text.size() != 4 && text.size() != 7 && text.size() != 10) {
    return std::nullopt;
  }
  const int year = static_cast<int>(Digits(text, 0, 4));
  if (year < 1) return std::nullopt;
  if (text.size() == 4) return PartialDate(year, 0, 0);
  if (text[4] != '-') return std::nullopt;
  const int month = static_cast<int>(Digits(text, 5, 2));
  if (month < 0 || month > 12) return std::nullopt;
  if (text.size() == 7) {
    if (month == 0) return std::nullopt;
    return PartialDate(year, month, 0);
  }
  if (text[7] != '-') return std::nullopt;
  const int day = static_cast<int>(Digits(text, 8, 2));
  if (day < 0) return std::nullopt;
  if (month == 0) {
    if (day != 0) return std::nullopt;
    return PartialDate(year, 0, 0);  // ADS "YYYY-00-00"
  }
  if (day > DaysInMonth(year, month)) return std::nullopt;
  return PartialDate(year, month, day);  // day 0: ADS "YYYY-MM-00"
}

PartialDate::Precision PartialDate::precision() const {
  if (month_ == 0) return Precision::kYear;
  if (day_ == 0) return Precision::kMonth;
  return Precision::kDay;
}

std::string PartialDate::ToString() const {
  std::string ymd = Ymd(year_, month_, day_);
  switch (precision()) {
    case Precision::kYear:
      return ymd.substr(0, 4);
    case Precision::kMonth:
      return ymd.substr(0, 7);
    case Precision::kDay:
      break;
  }
  return ymd;
}

std::string PartialDate::FirstDay() const {
  return Ymd(year_, month_ == 0 ? 1 : month_, day_ == 0 ? 1 : day_);
}

std::string PartialDate::LastDay() const {
  int month = month_ == 0 ? 12 : month_;
  return Ymd(year_, month, day_ == 0 ? DaysInMonth(year_, month) : day_);
}

bool PartialDate::EarlierThan(const PartialDate& other) const {
  // YYYY-MM-DD text compares as the dates do; finer precision is larger.
  return std::make_tuple(LastDay(), -static_cast<int>(precision())) <
         std::make_tuple(other.LastDay(), -static_cast<int>(other.precision()));
}

bool PartialDate::Within(const PartialDate& other) const {
  return FirstDay() >= other.FirstDay() && LastDay() <= other.LastDay();
}

// --- Roles -------------------------------------------------------------------

namespace {
constexpr std::pair<ReferenceRole, std::string_view> kRoles[] = {
    {ReferenceRole::kDiscovery, "DISCOVERY"},
    {ReferenceRole::kConfirmation, "CONFIRMATION"},
    {ReferenceRole::kSpectroscopy, "SPECTROSCOPY"},
    {ReferenceRole::kPhotometry, "PHOTOMETRY"},
    {ReferenceRole::kAnalysis, "ANALYSIS"},
    {ReferenceRole::kCatalog, "CATALOG"},
    {ReferenceRole::kProgenitor, "PROGENITOR"},
    {ReferenceRole::kErratum, "ERRATUM"},
    {ReferenceRole::kOther, "OTHER"},
};
}  // namespace

std::string_view ToString(ReferenceRole role) {
  for (const auto& [r, name] : kRoles) {
    if (r == role) return name;
  }
  return "OTHER";
}

std::optional<ReferenceRole> ParseReferenceRole(std::string_view text) {
  for (const auto& [r, name] : kRoles) {
    if (name == text) return r;
  }
  return std::nullopt;
}

ReferenceRole PublicationRole(std::string_view bibcode,
                              std::string_view doctype) {
  if (!doctype.empty()) {
    if (doctype == "circular" || doctype == "telegram")
      return ReferenceRole::kDiscovery;
    if (doctype == "catalog") return ReferenceRole::kCatalog;
    if (doctype == "erratum") return ReferenceRole::kErratum;
    for (std::string_view work :
         {"article", "eprint", "inproceedings", "inbook", "abstract"}) {
      if (doctype == work) return ReferenceRole::kAnalysis;
    }
    return ReferenceRole::kOther;
  }
  if (bibcode.size() < 9) return ReferenceRole::kOther;
  // Numbers past the volume field run into the journal's ("2021ATel14704"):
  // the journal is known by its first four characters.
  std::string_view journal = bibcode.substr(4, 4);
  if (journal == "IAUC" || journal == "CBET" || journal == "ATel")
    return ReferenceRole::kDiscovery;
  return ReferenceRole::kAnalysis;
}

bool IsCredibleRole(ReferenceRole role) {
  switch (role) {
    case ReferenceRole::kDiscovery:
    case ReferenceRole::kConfirmation:
    case ReferenceRole::kSpectroscopy:
    case ReferenceRole::kPhotometry:
    case ReferenceRole::kAnalysis:
      return true;
    default:
      return false;
  }
}

// --- Normalization -----------------------------------------------------------

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool IsBibcode(std::string_view b) {
  if (b.size() != 19) return false;
  for (size_t i = 0; i < 4; ++i) {
    if (b[i] < '0' || b[i] > '9') return false;
  }
  for (char c : b.substr(4)) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '&';
    if (!ok) return false;
  }
  return true;
}

// The canonical DOI of `text`, or nullopt.
std::optional<std::string> CanonicalDoi(std::string_view text) {
  std::string doi = Lower(Trim(text));
  for (std::string_view prefix :
       {"https://doi.org/", "http://doi.org/", "https://dx.doi.org/",
        "http://dx.doi.org/", "doi:"}) {
    if (std::string_view(doi).substr(0, prefix.size()) == prefix) {
      doi = doi.substr(prefix.size());
      break;
    }
  }
  // 10.<4-9 digits>/<suffix of visible ASCII>
  if (doi.size() < 3 || doi.compare(0, 3, "10.") != 0) return std::nullopt;
  size_t slash = doi.find('/');
  if (slash == std::string::npos || slash < 7 || slash > 12 ||
      slash + 1 == doi.size()) {
    return std::nullopt;
  }
  for (size_t i = 3; i < slash; ++i) {
    if (doi[i] < '0' || doi[i] > '9') return std::nullopt;
  }
  for (size_t i = slash + 1; i < doi.size(); ++i) {
    if (doi[i] <= ' ' || doi[i] == 0x7F) return std::nullopt;
  }
  return doi;
}

class CandidateReader {
 public:
  CandidateReader(const json& candidate, std::string_view path)
      : candidate_(candidate), path_(path) {
    if (!candidate_.is_object()) {
      Fail("", "must be an object, got " + TypeName(candidate_));
    }
  }

  [[noreturn]] void Fail(std::string_view member,
                         const std::string& message) const {
    throw ReferenceError(ReferenceFailure::kInvalidCandidate,
                         "invalid reference " + path_ +
                             (member.empty() ? "" : "." + std::string(member)) +
                             ": " + message);
  }

  // A string member, trimmed; nullopt when absent, null or blank.
  std::optional<std::string> String(std::string_view member) const {
    auto it = candidate_.find(std::string(member));
    if (it == candidate_.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) {
      Fail(member, "must be a string, got " + Describe(*it));
    }
    std::string_view value = Trim(it->get_ref<const std::string&>());
    if (value.empty()) return std::nullopt;
    return std::string(value);
  }

 private:
  const json& candidate_;
  std::string path_;
};

}  // namespace

NormalizedReference NormalizeReferenceCandidate(const json& candidate,
                                                std::string_view path) {
  CandidateReader r(candidate, path);
  NormalizedReference ref;
  std::optional<std::string> source = r.String("source");
  if (!source) r.Fail("source", "is missing");
  ref.reference_source = *source;

  if (std::optional<std::string> bibcode = r.String("bibcode")) {
    if (!IsBibcode(*bibcode)) {
      r.Fail("bibcode", Quote(*bibcode) +
                            " is not a bibcode (19 characters: a 4-digit "
                            "year, then letters, digits, '.' or '&')");
    }
    ref.bibcode = *bibcode;
  }
  if (std::optional<std::string> doi = r.String("doi")) {
    ref.doi = CanonicalDoi(*doi);
    if (!ref.doi) {
      r.Fail("doi", Quote(*doi) + " is not a DOI (10.<registrant>/<suffix>)");
    }
  }
  if (ref.bibcode) {
    ref.source = "bibcode";
    ref.source_key = *ref.bibcode;
  } else if (ref.doi) {
    ref.source = "doi";
    ref.source_key = *ref.doi;
  } else {
    r.Fail("",
           "neither bibcode nor doi is present (the reference would "
           "have no stable key)");
  }
  ref.title = r.String("title");
  if (std::optional<std::string> date = r.String("publication_date")) {
    ref.publication_date = PartialDate::Parse(*date);
    if (!ref.publication_date) {
      r.Fail("publication_date",
             Quote(*date) + " is not a date (YYYY, YYYY-MM or YYYY-MM-DD)");
    }
  }
  if (std::optional<std::string> role = r.String("role")) {
    std::optional<ReferenceRole> parsed = ParseReferenceRole(*role);
    if (!parsed) {
      std::string known;
      for (const auto& [value, name] : kRoles) {
        known += (known.empty() ? "" : ", ") + std::string(name);
      }
      r.Fail("role", Quote(*role) + " is not a role (" + known + ")");
    }
    ref.role = *parsed;
  }
  ref.reference_id = ReferenceId(ref.source, ref.source_key);
  return ref;
}

json NormalizedReference::ToJson() const {
  json j = json::object();
  j["reference_source"] = reference_source;
  j["source"] = source;
  j["source_key"] = source_key;
  j["reference_id"] = reference_id;
  j["role"] = std::string(ToString(role));
  if (bibcode) j["bibcode"] = *bibcode;
  if (doi) j["doi"] = *doi;
  if (title) j["title"] = *title;
  if (publication_date) j["publication_date"] = publication_date->ToString();
  j["reference_date"] =
      publication_date ? json(publication_date->ToIsoDate()) : json(nullptr);
  return j;
}

std::string ReferenceId(std::string_view source, std::string_view source_key) {
  return UuidV5(kReferenceIdNamespace,
                std::string(source) + ":" + std::string(source_key));
}

std::string ReferenceUpsertDedupeKey(std::string_view source,
                                     std::string_view source_key,
                                     int64_t schema_version) {
  return "ReferenceUpsert:" + std::string(source) + ":" +
         std::string(source_key) + ":" + std::to_string(schema_version);
}

std::string NovaReferenceLinkDedupeKey(std::string_view nova_id,
                                       std::string_view reference_id) {
  return "NovaReferenceLink:" + std::string(nova_id) + ":" +
         std::string(reference_id);
}

std::string DiscoveryDateDedupeKey(std::string_view nova_id,
                                   std::string_view earliest_reference_id,
                                   int64_t rule_version) {
  return "DiscoveryDate:" + std::string(nova_id) + ":" +
         std::string(earliest_reference_id) + ":" +
         std::to_string(rule_version);
}

// --- Tally -------------------------------------------------------------------

namespace {
[[noreturn]] void InvalidResult(const std::string& what) {
  throw ReferenceError(ReferenceFailure::kInvalidReconcileResult,
                       "invalid reconcile result " + what);
}
}  // namespace

ReconcileTally TallyReconcileResults(const std::vector<json>& results) {
  ReconcileTally tally;
  for (size_t i = 0; i < results.size(); ++i) {
    const json& result = results[i];
    std::string path = IndexPath("reconcile_results", i);
    if (!result.is_object()) {
      InvalidResult(path + ": must be an object, got " + TypeName(result));
    }
    bool quarantined = false;
    if (auto q = result.find("quarantined"); q != result.end()) {
      if (!q->is_boolean()) {
        InvalidResult(path + ".quarantined: must be true or false, got " +
                      Describe(*q));
      }
      quarantined = q->get<bool>();
    }
    bool upserted = false;
    if (auto id = result.find("reference_id");
        id != result.end() && !id->is_null()) {
      if (!id->is_string() || !IsUuid(id->get<std::string>())) {
        InvalidResult(path + ".reference_id: must be a UUID, got " +
                      Describe(*id));
      }
      upserted = true;
    }
    tally.upsert_count += upserted ? 1 : 0;
    tally.link_count += upserted && !quarantined ? 1 : 0;
    tally.quarantined_count += quarantined ? 1 : 0;
  }
  return tally;
}

// --- Discovery date ----------------------------------------------------------

std::string_view ToString(DiscoveryDateChange change) {
  switch (change) {
    case DiscoveryDateChange::kUnchanged:
      return "UNCHANGED";
    case DiscoveryDateChange::kSet:
      return "SET";
    case DiscoveryDateChange::kMovedEarlier:
      return "MOVED_EARLIER";
    case DiscoveryDateChange::kRefined:
      return "REFINED";
  }
  return "UNCHANGED";
}

DiscoveryDateDecision DecideDiscoveryDate(
    const std::optional<PartialDate>& current,
    const std::vector<DiscoveryEvidence>& evidence) {
  std::map<std::string, PartialDate> dated;  // credible reference -> date
  for (const DiscoveryEvidence& e : evidence) {
    if (!e.date || !IsCredibleRole(e.role)) continue;
    auto [it, inserted] = dated.emplace(e.reference_id, *e.date);
    if (!inserted && !(it->second == *e.date)) {
      throw ReferenceError(ReferenceFailure::kIrreconcilableDiscoveryDate,
                           "irreconcilable discovery date: reference " +
                               e.reference_id + " is dated both " +
                               it->second.ToString() + " and " +
                               e.date->ToString());
    }
  }
  // The earliest; on equal dates the smallest reference_id (map order).
  const std::pair<const std::string, PartialDate>* best = nullptr;
  for (const auto& entry : dated) {
    if (best == nullptr || entry.second.EarlierThan(best->second)) {
      best = &entry;
    }
  }

  DiscoveryDateDecision d;
  d.old_date = current;
  d.new_date = current;
  if (best == nullptr) return d;
  if (!current) {
    d.change = DiscoveryDateChange::kSet;
  } else if (best->second.EarlierThan(*current)) {
    d.change = best->second.Within(*current)
                   ? DiscoveryDateChange::kRefined
                   : DiscoveryDateChange::kMovedEarlier;
  }
  if (d.changed()) d.new_date = best->second;
  if (d.new_date && *d.new_date == best->second) {
    d.earliest_reference_id = best->first;
  }
  return d;
}

}  // namespace novacat::domain
