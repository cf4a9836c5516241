// The failures the domain reports: one enum per area, a case per way the
// area's functions can fail, and the human message.
//
// The domain knows nothing of Step Functions: it never says whether a
// failure is retried, quarantined or fatal, nor which of a spec's failure
// ids it is. A step (workflows/<workflow>/steps.cpp) catches the area's
// error and maps its case, with a switch over the enum (so that -Wswitch
// names every step to revisit when a case is added), to the spec's failure
// id and error class. The message is for people: nothing decides on it.
//
//   try {
//     name = domain::NormalizeCandidateName(text);
//   } catch (const domain::NameError& e) {
//     switch (e.failure()) { case domain::NameFailure::kEmpty: ... }
//   }
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace novacat::domain {

// Base of every domain failure: catch it to handle "any domain failure".
class DomainError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A failure of one area: `Case` is the area's enum.
template <typename Case>
class Failure : public DomainError {
 public:
  // what() is `message`; detail() too.
  Failure(Case failure, std::string message)
      : DomainError(message), failure_(failure), detail_(std::move(message)) {}
  // what() is "<subject>: <detail>" ("invalid candidate_name: empty or only
  // whitespace"); detail() is the part after the subject, for a step whose
  // failure id replaces the subject.
  Failure(Case failure, const std::string& subject, std::string detail)
      : DomainError(subject + ": " + detail),
        failure_(failure),
        detail_(std::move(detail)) {}

  Case failure() const { return failure_; }
  const std::string& detail() const { return detail_; }

 private:
  Case failure_;
  std::string detail_;
};

// NormalizeCandidateName (names.h): "invalid candidate_name: <detail>".
enum class NameFailure {
  kTooLong,               // more than kMaxCandidateNameBytes bytes
  kNotUtf8,               // not valid UTF-8
  kControlCharacter,      // a control character
  kReplacementCharacter,  // U+FFFD, an earlier decoding failure
  kEmpty,                 // empty or only whitespace
};
using NameError = Failure<NameFailure>;

// Coordinates and separations (coordinates.h).
enum class CoordinateFailure {
  kNotFinite,          // an RA or Dec that is NaN or infinite
  kOutOfRange,         // RA outside [0, 360) or Dec outside [-90, 90]
  kInvalidSeparation,  // a negative or non-finite separation
  kAmbiguousMatch,     // two or more novae in the DUPLICATE band
};
using CoordinateError = Failure<CoordinateFailure>;

// CombineSourceAnswers (resolver.h).
enum class ResolverFailure {
  kAmbiguous,                        // a source matched several objects
  kConflictingAuthoritativeSources,  // sources disagree (is_nova, status,
                                     // position)
  kMissingCoordinates,               // a nova with no position
  kMalformedAnswer,  // a match with half a position or invalid coordinates
};
using ResolverError = Failure<ResolverFailure>;

// The provider list (spectra.h: ResolveProviders, NormalizeProviderRecords).
enum class ProviderFailure {
  kEmptyList,          // providers: []
  kUnknownProvider,    // a provider not in kDefaultProviders
  kDuplicateProvider,  // a provider listed twice
  kNoRecordSchema,     // no record schema for the provider
};
using ProviderError = Failure<ProviderFailure>;

// Provider records and products (spectra.h).
enum class ProductFailure {
  kMalformedRecord,           // a record member of the wrong type or value
  kUnknownSchemaVariant,      // a record sharing no member with the schema
  kAmbiguousIdentity,         // no identity, or one identity for two products
  kInvalidNormalizedProduct,  // NormalizedProduct::FromJson: not our shape
  kInvalidProviderResult,     // SummarizeDiscovery: not our shape
};
using ProductError = Failure<ProductFailure>;

// Reference candidates and the discovery date (references.h).
enum class ReferenceFailure {
  kInvalidCandidate,             // NormalizeReferenceCandidate
  kIrreconcilableDiscoveryDate,  // one reference, two dates
  kInvalidReconcileResult,       // TallyReconcileResults: not our shape
};
using ReferenceError = Failure<ReferenceFailure>;

// Name-based UUIDs (uuid.h).
enum class UuidFailure {
  kInvalidNamespace,  // the namespace is not a UUID
  kDigestFailed,      // SHA-1 failed (OpenSSL)
};
using UuidError = Failure<UuidFailure>;

// What a client of an outside source (ArchiveResolver, ProviderClient,
// ReferenceSource) reports through its interface about the exchange itself;
// what the answer means is the area's own failure (ResolverError, ...).
enum class ClientFailure {
  kUnavailable,        // transient: throttling, timeouts, 5xx; may succeed
                       // if asked again
  kInvalidRequest,     // the request cannot be made (an unknown provider, a
                       // nova_id that is not a UUID)
  kMalformedResponse,  // the source answered something that is not an
                       // answer (a provider's records not a list)
};
using ClientError = Failure<ClientFailure>;

// A client call's time budget (ArchiveResolver::Resolve, ProviderQuery,
// ReferenceQuery) when nothing bounds it: the local executor, unit tests.
inline constexpr int64_t kUnlimitedBudgetMs =
    std::numeric_limits<int64_t>::max();

// The budget of a client call made by a Task with `remaining_ms` left: a
// margin of 2 s, or a tenth of the time left when that is less, stays for
// the step to report what happened before Lambda stops it.
inline int64_t ClientBudgetMs(int64_t remaining_ms) {
  if (remaining_ms == kUnlimitedBudgetMs) return kUnlimitedBudgetMs;
  int64_t margin = remaining_ms / 10 < 2000 ? remaining_ms / 10 : 2000;
  return remaining_ms - margin > 0 ? remaining_ms - margin : 0;
}

}  // namespace novacat::domain
