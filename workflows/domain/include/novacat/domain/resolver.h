// Resolving a candidate name against public archives (initialize_nova,
// ResolveCandidateAgainstPublicArchives).
//
// ArchiveResolver is the seam a real client plugs into: a SIMBAD (TAP/
// sesame) or AAVSO VSX client over HTTP implements Resolve by querying each
// archive for the normalized name, turning each archive's rows into a
// SourceAnswer (SIMBAD's otype "No*" or VSX's type "NA"/"NB"/"NC" is a
// classical nova, "NR" a recurrent one, ...), and calling
// CombineSourceAnswers, which holds the decision rules below. Transport
// failures are its own to classify (ClientError, failure.h): HTTP 429,
// 5xx, timeouts and connection errors are kUnavailable; a response that
// is not an answer kMalformedResponse. FixtureResolver (fixtures/, target
// novacat_domain_fixtures) is the same thing over a JSON file.
//
// Decision rules (CombineSourceAnswers), in order; failures are
// ResolverError with the case named (the step maps it to the spec's
// failure id in parentheses):
// 1. A source with two or more matches for the name -> kAmbiguous
//    (ambiguous_resolver_result): the name cannot be tied to one object.
// 2. No source with a match -> not found (found = false, is_nova = false,
//    classical_nova_status NO): initialize_nova ends NOT_FOUND.
// 3. Sources that disagree on is_nova, or on classical_nova_status YES
//    versus NO, or whose positions are more than kSourceAgreementArcsec
//    apart -> kConflictingAuthoritativeSources
//    (conflicting_authoritative_sources). A source
//    answering AMBIGUOUS next to YES or NO makes the result AMBIGUOUS (the
//    spec's Choice quarantines it), not a conflict. A source that says
//    nothing of classical status (SIMBAD's "No*" does not tell classical
//    from recurrent) leaves it to the others; a nova no source classifies
//    is AMBIGUOUS: it cannot safely be decided.
// 4. Position, epoch: from the first source (in answer order) that has a
//    position. object_type: from the first source with a match.
// 5. A nova (is_nova true) without a position from any source ->
//    kMissingCoordinates (resolver_missing_coordinates): the coordinate
//    identity check cannot run. A found non-nova without a position is
//    fine: the coordinate check has nothing to compare and the run ends
//    NOT_FOUND.
// Every message names the candidate and the sources involved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::domain {

// Positions two sources give for one object may differ by at most this.
inline constexpr double kSourceAgreementArcsec = 2.0;

enum class ClassicalNovaStatus { kYes, kNo, kAmbiguous };

// "YES", "NO", "AMBIGUOUS": the spec's classical_nova_status values.
std::string_view ToString(ClassicalNovaStatus status);
// The inverse of ToString; nullopt for any other text.
std::optional<ClassicalNovaStatus> ParseClassicalNovaStatus(
    std::string_view text);

// What the archives say about a name (the spec's resolved_* fields).
struct Resolution {
  bool found = false;                // some archive knows the name
  bool is_nova = false;              // ... and it is a nova (implies found)
  std::optional<double> ra_deg;      // ICRS degrees; always set when is_nova
  std::optional<double> dec_deg;     // ICRS degrees; always set when is_nova
  std::optional<std::string> epoch;  // e.g. "J2000", when the source says
  std::string object_type;           // the archive's type; "" if not found
  ClassicalNovaStatus classical_nova_status = ClassicalNovaStatus::kNo;
  std::vector<std::string> sources;  // the sources that matched, in order
  // Every identifier the matching sources gave the object (SIMBAD's ids),
  // each once, in the order given.
  std::vector<std::string> aliases;
  // The sources not asked, each with its reason ("TNS: no API key
  // configured"): for the log, never for the decision.
  std::vector<std::string> skipped;
  bool operator==(const Resolution&) const = default;
};

// One object an archive matched the name to.
struct SourceMatch {
  std::string id;           // the archive's identifier ("V* V1500 Cyg")
  std::string object_type;  // the archive's type ("No*", "NA", ...)
  bool is_nova = false;
  // nullopt: the source does not say (rule 3).
  std::optional<ClassicalNovaStatus> classical_nova_status =
      ClassicalNovaStatus::kNo;
  std::optional<double> ra_deg;  // both or neither
  std::optional<double> dec_deg;
  std::optional<std::string> epoch;
  std::vector<std::string> aliases;  // the source's other identifiers
};

// One archive's answer: no match, one, or several (ambiguous).
struct SourceAnswer {
  std::string source;  // "SIMBAD", "VSX", ...
  std::vector<SourceMatch> matches;
};

// Applies the decision rules above. Throws ResolverError: kAmbiguous,
// kConflictingAuthoritativeSources, kMissingCoordinates, or
// kMalformedAnswer (a match with only one of ra/dec or with invalid ones).
Resolution CombineSourceAnswers(std::string_view normalized_name,
                                const std::vector<SourceAnswer>& answers);

class ArchiveResolver {
 public:
  virtual ~ArchiveResolver() = default;
  // Resolves a name already in canonical form (NormalizeCandidateName).
  // Returns found = false for a name no archive knows. Throws ClientError
  // for the exchange (kUnavailable for throttling, timeouts, 5xx) and
  // ResolverError as CombineSourceAnswers. `budget_ms` bounds the time the
  // whole resolution may take (the Task's remaining time, less a margin).
  virtual Resolution Resolve(std::string_view normalized_name,
                             int64_t budget_ms) = 0;
};

}  // namespace novacat::domain
