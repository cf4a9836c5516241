#include "novacat/domain/resolver.h"

#include <algorithm>

#include "internal.h"
#include "novacat/domain/coordinates.h"

namespace novacat::domain {

using internal::Quote;

std::string_view ToString(ClassicalNovaStatus status) {
  switch (status) {
    case ClassicalNovaStatus::kYes:
      return "YES";
    case ClassicalNovaStatus::kNo:
      return "NO";
    case ClassicalNovaStatus::kAmbiguous:
      return "AMBIGUOUS";
  }
  return "NO";
}

std::optional<ClassicalNovaStatus> ParseClassicalNovaStatus(
    std::string_view text) {
  if (text == "YES") return ClassicalNovaStatus::kYes;
  if (text == "NO") return ClassicalNovaStatus::kNo;
  if (text == "AMBIGUOUS") return ClassicalNovaStatus::kAmbiguous;
  return std::nullopt;
}

namespace {

struct Known {
  const std::string* source;
  const SourceMatch* match;
};

ResolverError Conflict(std::string_view name, const std::string& detail) {
  return ResolverError(
      ResolverFailure::kConflictingAuthoritativeSources,
      "conflicting authoritative sources for " + Quote(name) + ": " + detail);
}

}  // namespace

Resolution CombineSourceAnswers(std::string_view normalized_name,
                                const std::vector<SourceAnswer>& answers) {
  std::vector<Known> known;
  for (const SourceAnswer& answer : answers) {
    if (answer.matches.size() > 1) {
      std::string ids;
      for (const SourceMatch& m : answer.matches) {
        ids += (ids.empty() ? "" : ", ") + m.id;
      }
      throw ResolverError(
          ResolverFailure::kAmbiguous,
          "ambiguous resolver result for " + Quote(normalized_name) + ": " +
              answer.source + " matched " +
              std::to_string(answer.matches.size()) + " objects (" + ids + ")");
    }
    if (answer.matches.empty()) continue;
    const SourceMatch& m = answer.matches.front();
    if (m.ra_deg.has_value() != m.dec_deg.has_value()) {
      throw ResolverError(
          ResolverFailure::kMalformedAnswer,
          answer.source + " match " + Quote(m.id) + " for " +
              Quote(normalized_name) + " has " +
              (m.ra_deg ? "ra_deg without dec_deg" : "dec_deg without ra_deg"));
    }
    if (m.ra_deg) {
      std::string what = " of " + answer.source + " match " + m.id;
      try {
        ValidateCoordinates(*m.ra_deg, *m.dec_deg, "ra_deg" + what,
                            "dec_deg" + what);
      } catch (const CoordinateError& e) {
        throw ResolverError(ResolverFailure::kMalformedAnswer, e.what());
      }
    }
    known.push_back({&answer.source, &m});
  }
  Resolution r;
  if (known.empty()) return r;

  const Known& first = known.front();
  for (const Known& k : known) {
    if (k.match->is_nova != first.match->is_nova) {
      throw Conflict(normalized_name,
                     *first.source + " says is_nova " +
                         (first.match->is_nova ? "true" : "false") + ", " +
                         *k.source + " says is_nova " +
                         (k.match->is_nova ? "true" : "false"));
    }
  }
  r.found = true;
  r.is_nova = first.match->is_nova;
  r.object_type = first.match->object_type;
  for (const Known& k : known) {
    r.sources.push_back(*k.source);
    for (const std::string& alias : k.match->aliases) {
      if (std::find(r.aliases.begin(), r.aliases.end(), alias) ==
          r.aliases.end())
        r.aliases.push_back(alias);
    }
  }

  if (r.is_nova) {
    const Known* decided = nullptr;  // the first YES or NO
    bool ambiguous = false;
    for (const Known& k : known) {
      if (!k.match->classical_nova_status) continue;  // says nothing
      ClassicalNovaStatus s = *k.match->classical_nova_status;
      if (s == ClassicalNovaStatus::kAmbiguous) {
        ambiguous = true;
      } else if (decided == nullptr) {
        decided = &k;
      } else if (*decided->match->classical_nova_status != s) {
        throw Conflict(
            normalized_name,
            *decided->source + " says classical_nova_status " +
                std::string(ToString(*decided->match->classical_nova_status)) +
                ", " + *k.source + " says " + std::string(ToString(s)));
      }
    }
    r.classical_nova_status = ambiguous || decided == nullptr
                                  ? ClassicalNovaStatus::kAmbiguous
                                  : *decided->match->classical_nova_status;
  }

  const Known* positioned = nullptr;
  for (const Known& k : known) {
    if (!k.match->ra_deg) continue;
    if (positioned == nullptr) {
      positioned = &k;
      continue;
    }
    double separation = AngularSeparationArcsec(
        *positioned->match->ra_deg, *positioned->match->dec_deg,
        *k.match->ra_deg, *k.match->dec_deg);
    if (separation > kSourceAgreementArcsec) {
      throw Conflict(normalized_name, *positioned->source + " and " +
                                          *k.source + " positions are " +
                                          internal::FormatFixed(separation, 3) +
                                          "\" apart (more than 2\")");
    }
  }
  if (positioned != nullptr) {
    r.ra_deg = positioned->match->ra_deg;
    r.dec_deg = positioned->match->dec_deg;
    r.epoch = positioned->match->epoch;
  } else if (r.is_nova) {
    std::string sources;
    for (const std::string& s : r.sources) {
      sources += (sources.empty() ? "" : ", ") + s;
    }
    throw ResolverError(ResolverFailure::kMissingCoordinates,
                        "resolver returned no coordinates for nova " +
                            Quote(normalized_name) + " (sources: " + sources +
                            ")");
  }
  return r;
}

}  // namespace novacat::domain
