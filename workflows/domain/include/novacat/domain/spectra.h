// Spectra product discovery (discover_spectra_products): the provider list,
// the ProviderClient seam, normalization of raw provider records into the
// internal product shape, dataset identity, stable dataset_id, and the
// per-provider summary.
//
// Flow of the Map item (one provider):
//   QueryProviderForProducts        ProviderClient::Query -> raw records
//   NormalizeProviderProducts       NormalizeProviderRecords -> products,
//                                   NormalizedProduct::ToJson each
//   DeduplicateAndAssignDatasetIds  NormalizedProduct::FromJson each,
//                                   AssignDatasetIdentities -> identity,
//                                   dataset_id and dedupe key per product;
//                                   the step looks each dataset_id up
//                                   (AP-DISC-1) to split new / existing
// and after the Map, SummarizeDiscovery over provider_results.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::domain {

// --- Providers ---------------------------------------------------------------

// Every configured provider, in the order the Map visits them when the
// input names none. The seed names no provider; these are the archives
// with a public query service whose record shapes NormalizeProviderRecords
// knows: the ESO Science Archive (its SSAP service) and MAST (HST and IUE
// spectra through its public API). Adding a provider means adding it here
// and its record schema in spectra.cc (a test checks both agree), and to
// the DiscoverSpectraProducts event's enum (specs/shared/events.yaml).
inline constexpr std::array<std::string_view, 2> kDefaultProviders = {"ESO",
                                                                      "MAST"};

bool IsKnownProvider(std::string_view provider);
// kDefaultProviders for a message: "ESO, MAST".
std::string KnownProviders();

// The providers a run queries: kDefaultProviders when `requested` is
// absent, else `requested` itself after checking it. Throws ProviderError
// (the spec's invalid_provider_list) kEmptyList, kUnknownProvider or
// kDuplicateProvider, naming the index:
// `invalid provider list: providers[1] "FOO" is not a known provider
// (known: ESO, MAST)`.
std::vector<std::string> ResolveProviders(
    const std::optional<std::vector<std::string>>& requested);

// What a provider is asked about. QueryProviderForProducts has nova_id (and
// the provider) from the Map item; coordinates and names are there for
// clients that search by position or name, when the step looks them up.
struct ProviderQuery {
  std::string provider;
  std::string nova_id;
  std::optional<double> ra_deg;
  std::optional<double> dec_deg;
  std::vector<std::string> names;          // canonical names / aliases
  int64_t budget_ms = kUnlimitedBudgetMs;  // see ArchiveResolver::Resolve
};

// The seam a real provider client implements (sources::EsoSsap,
// sources::Mast): one call returns the provider's raw records for the nova, as
// JSON objects in the provider's own shape, unchanged; NormalizeProviderRecords
// interprets them. Throws ClientError (failure.h): kUnavailable for
// transient failures (throttling, timeouts, 5xx), kMalformedResponse when
// the response is not a list of records, kInvalidRequest for a query that
// cannot be made (unknown provider, nova_id not a UUID). FixtureProvider
// (fixtures/, target novacat_domain_fixtures) answers from files.
class ProviderClient {
 public:
  virtual ~ProviderClient() = default;
  virtual std::vector<nlohmann::json> Query(const ProviderQuery& query) = 0;
};

// --- Normalization -----------------------------------------------------------

// The internal product shape (the items of normalized_products):
//
//   {"provider": "ESO",
//    "product_timestamp": "2016-03-01T05:12:33Z",   always
//    "url": "https://...",                           when known
//    "size_bytes": 1234567,                          when known
//    "provider_key": "ADP.2016-03-15T10:21:40.123",  when known
//    "instrument": "UVES",                           when known
//    "sha256": "9f86d0..."}                          when the provider gives it
//
// product_timestamp is the start of the observation in UTC, RFC 3339 with
// whole seconds (fractions are truncated, so the same record always gives
// the same text); absent members are omitted, never null.
struct NormalizedProduct {
  std::string provider;
  std::string product_timestamp;
  std::optional<std::string> url;
  std::optional<int64_t> size_bytes;
  std::optional<std::string> provider_key;
  std::optional<std::string> instrument;
  std::optional<std::string> sha256;  // the provider's checksum of the bytes

  nlohmann::json ToJson() const;
  // Reads a product back (DeduplicateAndAssignDatasetIds reads the item's
  // normalized_products). Unknown members are rejected. Throws
  // ProductError kInvalidNormalizedProduct naming `path` and the member:
  // these documents are our own output, so a bad one is an internal
  // invariant violation.
  static NormalizedProduct FromJson(const nlohmann::json& json,
                                    std::string_view path);
  bool operator==(const NormalizedProduct&) const = default;
};

// Normalizes `provider`'s raw records (the provider-specific boundary).
// The records are the providers' own (sources::EsoSsap: a row of ESO's SSAP
// answer keyed by FIELD name; sources::Mast: a MAST observation merged with
// its product). Each provider's record members (null counts as absent,
// unknown members are ignored):
//
//   ESO:   t_min (MJD), access_url, access_estsize (kbyte), dp_id,
//          COLLECTION
//   MAST:  t_min (MJD), dataURL, size (bytes), obs_id, instrument_name
//   all:   sha256 (the product's SHA-256, 64 lower-case hex digits), optional
//
// in the order: timestamp (required), url, size, key, instrument.
//
// ESO's key is dp_id, the archive's product id ("ADP.2016-06-02T10:01:19.436")
// by which its file endpoint serves the product (DownloadLocator), rather than
// CREATORDID, the creator's own file name, which ESO warns two products can
// share. ESO's access_estsize is an estimate in kbyte (ObsCore's unit, VOUnit
// k = 1000): size_bytes = access_estsize * 1000, an estimate too, stable for
// the same record. COLLECTION names the instrument's collection ("UVES",
// "XSHOOTER", "HARPS"), the instrument for the FITS profile's hints.
//
// The timestamp, an MJD (UTC), is a number in (0, 100000). url must be
// http(s) or ftp without whitespace; size a positive integer; key a non-empty
// string or a non-negative integer (written in decimal); instrument a non-empty
// string.
//
// Throws ProductError naming the record and the member: kMalformedRecord
//   `malformed ESO record products[2]: t_min must be an MJD number in
//   (0, 100000), got "yesterday"` (malformed_provider_records), or
//   kUnknownSchemaVariant `unknown schema variant in ESO record
//   products[4]: none of t_min, access_url, access_estsize, dp_id,
//   COLLECTION is present (members: link, obsdate)` (unknown_schema_variant)
//   when a record shares no member with the provider's schema. Throws
//   ProviderError kNoRecordSchema for a provider with no schema.
std::vector<NormalizedProduct> NormalizeProviderRecords(
    std::string_view provider, const std::vector<nlohmann::json>& records);

// --- Identity ----------------------------------------------------------------

// dataset_identity = provider + product_timestamp + (url OR size OR
// provider_key): the first of url, size_bytes (decimal), provider_key that
// the product has, composed exactly as the generated DatasetIdentity
// builder does:
//
//   "provider=ESO|product_timestamp=2016-03-01T05:12:33Z|url=https://..."
//   "provider=MAST|product_timestamp=...|size=1234567"
//   "provider=MAST|product_timestamp=...|provider_key=obs-42"
//
// The last part runs to the end of the string, so a '|' inside a URL
// cannot make two identities collide. Throws ProductError
// kAmbiguousIdentity (ambiguous_product_identity) when the product has none
// of the three:
// `ambiguous product identity: normalized_products[3] (MAST at
// 2016-03-01T05:12:33Z) has none of url, size, provider_key`.
std::string DatasetIdentity(const NormalizedProduct& product,
                            std::string_view path = "product");

// The stable dataset_id of an identity: UuidV5(kDatasetIdNamespace,
// dataset_identity). The same identity gives the same id on every run.
std::string DatasetId(std::string_view dataset_identity);

// "DatasetIdentity:{dataset_identity}:{schema_version}" (the spec's dedupe
// key of DeduplicateAndAssignDatasetIds).
std::string DatasetDedupeKey(std::string_view dataset_identity,
                             int64_t schema_version);

struct IdentifiedProduct {
  NormalizedProduct product;
  std::string dataset_identity;
  std::string dataset_id;
  std::string dedupe_key;
  bool operator==(const IdentifiedProduct&) const = default;
};

// Identity, id and dedupe key of every product, in order. A product listed
// twice (equal in every member) is kept once. Throws ProductError
// kAmbiguousIdentity (ambiguous_product_identity) when a product has
// no identity (see DatasetIdentity) or two products share an identity but
// differ: `ambiguous product identity: normalized_products[0] and
// normalized_products[3] share dataset_identity "..." but differ in
// size_bytes (1000 vs 2000)`.
std::vector<IdentifiedProduct> AssignDatasetIdentities(
    const std::vector<NormalizedProduct>& products, int64_t schema_version);

// --- Summary -----------------------------------------------------------------

struct ProviderSummary {
  std::string provider;
  int64_t dataset_count_new = 0;
  int64_t dataset_count_existing = 0;
  bool quarantined = false;
  // The SpectraProductsDiscovered provider_summaries item.
  nlohmann::json ToJson() const;
  bool operator==(const ProviderSummary&) const = default;
};

// A quarantined provider, as its item document's quarantine left it
// (QuarantineProvider: error_classification, quarantine_reason).
struct QuarantinedProvider {
  std::string provider;
  std::string error_classification;  // QUARANTINE
  std::string quarantine_reason;     // "<failure id>: <cause>"
  // The provider_failures item: provider, error_classification,
  // quarantine_reason.
  nlohmann::json ToJson() const;
  bool operator==(const QuarantinedProvider&) const = default;
};

struct DiscoverySummary {
  std::vector<std::string> dataset_ids;  // new then existing, per provider,
                                         // each once, in provider order
  int64_t dataset_count_new = 0;
  int64_t dataset_count_existing = 0;
  int64_t quarantined_count = 0;  // providers quarantined
  std::vector<ProviderSummary> provider_summaries;
  std::vector<QuarantinedProvider> provider_failures;  // in provider order
  bool operator==(const DiscoverySummary&) const = default;
};

// SummarizeDiscovery's outputs from the Map's provider_results: one
// document per provider item, the item document as the item's last state
// left it: `provider`, `new_dataset_ids` and `existing_dataset_ids`
// (arrays of UUIDs, absent = empty) and `quarantined: true` when
// QuarantineProvider handled it. A quarantined provider still counts the
// ids it recorded before the failure, and gives a provider_failures entry
// from its `error_classification` and `quarantine_reason`. Throws
// ProductError kInvalidProviderResult naming provider_results[i] and the
// member for a document without a provider, with ids that are not UUIDs,
// or quarantined without those two as non-empty strings.
DiscoverySummary SummarizeDiscovery(
    const std::vector<nlohmann::json>& provider_results);

// --- Downloads ---------------------------------------------------------------

// ESO's file endpoint: a product without an access_url is fetched by dp_id
// (the provider_key), as ESO's SSAP access_url itself names it.
inline constexpr char kEsoFileEndpoint[] =
    "https://dataportal.eso.org/dataPortal/file/";

// Where a dataset's bytes are fetched from, from its locators (the
// normalized product's url, size_bytes, provider_key, sha256): the url when
// there is one; else, for ESO, the file endpoint + provider_key; else none
// (the dataset cannot be downloaded: missing_locator).
std::optional<std::string> DownloadLocator(std::string_view provider,
                                           const nlohmann::json& locators);

}  // namespace novacat::domain
