// The typed access-pattern layer over store::Table: one function per access
// pattern of the seed (dynamodb_access_patterns.md), each with the seed's key
// shapes, conditions and index, returning typed answers.
//
// Contracts shared by every function:
//   - A condition failure is an answer (a value of the function's result
//     type), never an exception.
//   - Transient failures of the table (throttling, timeouts, 5xx, resets)
//     propagate as runtime::RetryableError, untouched: the repository never
//     retries them itself and never turns them into answers. Step Functions
//     retries the Task, and every write below is safe to repeat (each
//     function states its idempotency rule).
//   - Invalid arguments (an empty id, a '#' inside a key component, a
//     declination outside [-90, 90] ...) and stored items that do not parse
//     throw runtime::TerminalError; a stored item's error names the item's
//     key and the attribute ($.ra_deg: must be a number).
//   - Times are passed in, never read from the clock here: timestamps as
//     runtime::FormatTimestamp strings ("2026-11-25T13:45:00Z"), lease times
//     as int64 epoch seconds (compared numerically in conditions).
//   - Queries page through Table::QueryAll and return everything, in the
//     order the function states (never relying on a backend's order beyond
//     table.h's: ascending sort key).
//
// Item families (all in the one table `NovaCat`):
//
//   Nova          PK=NOVA#<nova_id>  SK=META
//   NovaPosition  PK=SKY#<dec band>  SK=NOVA#<nova_id>        (AP-INIT-4, ours)
//   NameClaim     PK=NAME#<normalized_name>  SK=CLAIM         (AP-INIT-3, ours)
//   Alias         PK=NAME#<normalized_name>  SK=NOVA#<nova_id>
//                 GSI2PK=NAME#<normalized_name>  GSI2SK=NOVA#<nova_id>
//   Reference     PK=NOVA#<nova_id>  SK=REF#<reference_id>
//   NovaReference PK=NOVA#<nova_id>  SK=NOVAREF#<reference_id>
//   Dataset       PK=NOVA#<nova_id>  SK=DATASET#<type>#<provider>#<dataset_id>
//                 GSI1PK=NOVA#<nova_id>  GSI1SK=ELIG#<eligibility>#<dataset_id>
//                 (only while the dataset has an eligibility)
//   FileObject    PK=NOVA#<nova_id>  SK=FILE#<dataset_id>#<file_id>
//                 GSI3PK=S3#<bucket>  GSI3SK=<key>
//   JobRun, Attempt, Lock: runtime/records.h and runtime/store.h, written by
//                 TableRecordStore (AP-INGEST-2, AP-DL-3, AP-OPS-1..3).
//
// Key components (ids, provider, eligibility, file_id, bucket) must be
// non-empty and must not contain '#', so that a prefix query
// (DATASET#SPECTRA#<provider>#) can never match another component's items.
// Normalized names and S3 keys are only required to be non-empty: they are
// matched by equality, never by prefix.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/validation.h"
#include "novacat/store/table.h"

namespace novacat::store {

// ---------------------------------------------------------------------------
// Enumerations stored as text.

enum class DatasetType { kSpectra, kPhotometry };
// SPECTRA, PHOTOMETRY.
const char* DatasetTypeName(DatasetType type);
std::optional<DatasetType> ParseDatasetType(std::string_view name);

// A dataset's processing_status. The seed names READY, FAILED_RETRYABLE and
// IN_PROGRESS (and NULL: the attribute is absent; this layer never writes a
// null value); the final states are ours.
enum class ProcessingStatus {
  kReady,
  kInProgress,
  kFailedRetryable,
  kCompleted,
  kFailedTerminal,
  kQuarantined,
};
// READY, IN_PROGRESS, FAILED_RETRYABLE, COMPLETED, FAILED_TERMINAL,
// QUARANTINED.
const char* ProcessingStatusName(ProcessingStatus status);
std::optional<ProcessingStatus> ParseProcessingStatus(std::string_view name);

// AP-DL-5's validation_status.
enum class ValidationStatus {
  kValid,
  kQuarantined,
  kTerminalInvalid,
  kRetryableError,
};
// VALID, QUARANTINED, TERMINAL_INVALID, RETRYABLE_ERROR.
const char* ValidationStatusName(ValidationStatus status);
std::optional<ValidationStatus> ParseValidationStatus(std::string_view name);

// The eligibility AP-DL-1 queries (GSI1SK prefix ELIG#DOWNLOAD#).
inline constexpr const char* kEligibilityDownload = "DOWNLOAD";

// ---------------------------------------------------------------------------
// Keys.

Key NovaKey(std::string_view nova_id);
Key NameClaimKey(std::string_view normalized_name);
Key AliasKey(std::string_view normalized_name, std::string_view nova_id);
Key ReferenceKey(std::string_view nova_id, std::string_view reference_id);
Key NovaReferenceKey(std::string_view nova_id, std::string_view reference_id);
Key FileObjectKey(std::string_view nova_id, std::string_view dataset_id,
                  std::string_view file_id);

// The sky bands of AP-INIT-4: one partition per whole degree of
// declination, band b holding declinations in [b, b + 1) (b = -90 .. 89;
// +90 belongs to band 89). SkyBandPartition(-1) == "SKY#-01",
// SkyBandPartition(5) == "SKY#+05".
int SkyBand(double dec_deg);
std::string SkyBandPartition(int band);
Key NovaPositionKey(double dec_deg, std::string_view nova_id);

// ---------------------------------------------------------------------------
// Entities: plain structs, ToItem() builds the whole item (keys, `entity`,
// index attributes, then the fields; absent optionals are omitted) and
// FromItem() reads it back, errors naming the attribute ($.dec_deg ...).

// How precise a stored date is. Dates are stored as YYYY-MM-DD (the first
// day of their period, the spec's `date` form) with the precision beside
// them: YEAR "1975-01-01" is 1975, MONTH "1975-08-01" is 1975-08, DAY
// "1975-08-30" is that day. An item written without the precision
// attribute (before it existed) reads as DAY. A YEAR date must be the
// year's first day and a MONTH date the month's (writes refuse others).
enum class DatePrecision { kYear, kMonth, kDay };
// YEAR, MONTH, DAY.
const char* DatePrecisionName(DatePrecision precision);
std::optional<DatePrecision> ParseDatePrecision(std::string_view name);
// The canonical partial-date text (domain::PartialDate::ToString's form) of
// a stored date: ("1975-01-01", kYear) -> "1975", ("1975-08-01", kMonth) ->
// "1975-08", ("1975-08-30", kDay) -> "1975-08-30".
std::string PartialDateText(std::string_view first_day,
                            DatePrecision precision);

struct Nova {
  std::string nova_id;               // UUID
  std::string primary_name;          // as published ("V1500 Cyg")
  std::string normalized_name;       // NormalizeCandidateName's output
  double ra_deg = 0;                 // [0, 360)
  double dec_deg = 0;                // [-90, 90]
  std::optional<std::string> epoch;  // "J2000"
  std::string status;                // "ACTIVE", ...
  std::string created_at;
  std::optional<std::string> discovery_date;          // YYYY-MM-DD
  std::optional<std::string> discovery_reference_id;  // its reference
  // Coordinator state (AP-INGEST-3).
  std::optional<std::string> ingest_status;
  std::optional<std::string> last_ingest_at;
  std::optional<std::string> last_ingest_job_run_id;
  // discovery_date's precision (attribute discovery_date_precision, written
  // with discovery_date; absent reads as DAY).
  DatePrecision discovery_date_precision = DatePrecision::kDay;

  Item ToItem() const;
  static runtime::Parsed<Nova> FromItem(const Item& item);
  bool operator==(const Nova&) const = default;
};

// A nova's position in its sky band (AP-INIT-4): written with the nova.
struct NovaPosition {
  std::string nova_id;
  double ra_deg = 0;
  double dec_deg = 0;

  Item ToItem() const;
  static runtime::Parsed<NovaPosition> FromItem(const Item& item);
  bool operator==(const NovaPosition&) const = default;
};

// A name or alias mapped to a nova (AP-INIT-3), found through GSI2.
struct Alias {
  std::string normalized_name;
  std::string nova_id;
  std::string name;  // the name as given, before normalization
  std::string created_at;

  Item ToItem() const;
  static runtime::Parsed<Alias> FromItem(const Item& item);
  bool operator==(const Alias&) const = default;
};

struct Reference {
  std::string nova_id;
  std::string reference_id;
  std::string source;      // "ADS", ...
  std::string source_key;  // the source's id (a bibcode, ...)
  std::optional<std::string> title;
  std::optional<std::string> publication_date;  // YYYY-MM-DD, first day
  std::string updated_at;
  // publication_date's precision (attribute publication_date_precision,
  // written with publication_date; absent reads as DAY).
  DatePrecision publication_date_precision = DatePrecision::kDay;

  Item ToItem() const;
  static runtime::Parsed<Reference> FromItem(const Item& item);
  bool operator==(const Reference&) const = default;
};

struct NovaReference {
  std::string nova_id;
  std::string reference_id;
  std::string linked_at;

  Item ToItem() const;
  static runtime::Parsed<NovaReference> FromItem(const Item& item);
  bool operator==(const NovaReference&) const = default;
};

// Where a dataset item is: everything its key is built from.
struct DatasetKey {
  std::string nova_id;
  DatasetType type = DatasetType::kSpectra;
  std::string provider;
  std::string dataset_id;

  // PK=NOVA#<nova_id>  SK=DATASET#<type>#<provider>#<dataset_id>.
  Key ToKey() const;
  bool operator==(const DatasetKey&) const = default;
};

struct Dataset {
  std::string nova_id;
  DatasetType type = DatasetType::kSpectra;
  std::string provider;
  std::string dataset_id;
  std::string provider_identity;  // the stable dataset identity
  nlohmann::json locators;        // provider ids / URLs (AP-DISC-3)
  std::optional<nlohmann::json> hints;
  std::string created_at;
  std::string updated_at;
  // The run (its execution: one JobRun each) whose CreateDataset wrote the
  // item (AP-DISC-2), set once: a retry of that run's discovery, after a
  // write that landed, tells the datasets it created itself (new: their
  // DatasetDiscovered events are still to be published) from the ones that
  // were already there. Absent on items written without it.
  std::optional<std::string> created_by_execution_arn;
  // AP-DISC-4: while set, the item is in GSI1 under
  // ELIG#<eligibility>#<dataset_id>.
  std::optional<std::string> eligibility;
  // AP-DL-2 / AP-PHOT-2.
  std::optional<ProcessingStatus> processing_status;  // absent = NULL
  std::optional<std::string> lease_owner;             // a job_run_id
  std::optional<int64_t> lease_expires_at;            // epoch seconds
  // The runs in a row whose lease ended with a failure count (see
  // ReleaseDatasetLease); absent = none. download_and_validate_spectra
  // counts its FAILED_RETRYABLE runs here to stop retrying past a limit.
  std::optional<int64_t> failed_runs;
  // AP-DL-4.
  std::optional<int64_t> byte_length;
  std::optional<std::string> etag;
  std::optional<std::string> sha256;
  std::optional<std::string> fits_checksum;
  std::optional<std::string> header_signature;
  // AP-DL-5.
  std::optional<ValidationStatus> validation_status;
  std::optional<std::string> quarantine_reason_code;
  std::optional<nlohmann::json> validation_details;
  std::optional<nlohmann::json> profile_selection;
  // AP-PHOT-3.
  std::optional<std::string> ingestion_status;
  std::optional<nlohmann::json> artifacts;

  DatasetKey key() const { return {nova_id, type, provider, dataset_id}; }
  Item ToItem() const;
  static runtime::Parsed<Dataset> FromItem(const Item& item);
  bool operator==(const Dataset&) const = default;
};

// An S3 object of a dataset (AP-DL-6), found by bucket and key through GSI3
// (AP-PHOT-1).
struct FileObject {
  std::string nova_id;
  DatasetType dataset_type = DatasetType::kSpectra;
  std::string provider;
  std::string dataset_id;
  std::string file_id;  // the file's role in the dataset: "raw", ...
  std::string bucket;
  std::string key;
  std::optional<int64_t> byte_length;
  std::optional<std::string> sha256;
  std::optional<std::string> content_type;
  std::string created_at;
  // The lease_expires_at of the dataset lease it was written under (the
  // fenced PutFileObject); absent for a file registered without a lease.
  std::optional<int64_t> lease_fence;

  DatasetKey dataset_key() const {
    return {nova_id, dataset_type, provider, dataset_id};
  }
  Item ToItem() const;
  static runtime::Parsed<FileObject> FromItem(const Item& item);
  bool operator==(const FileObject&) const = default;
};

// ---------------------------------------------------------------------------
// Arguments and answers.

enum class CreateResult {
  kCreated,        // this call wrote the item
  kAlreadyExists,  // the same entity (same identity, see each function) was
                   // already there: a retry whose first write landed, or a
                   // concurrent creator of the same thing. Nothing written;
                   // callers treat it as success.
  kConflict,       // a different entity holds the key. Nothing written.
};
// CREATED, ALREADY_EXISTS, CONFLICT.
const char* CreateResultName(CreateResult result);

enum class AliasPolicy {
  kExclusive,  // the name may map to this nova only
  kAllowMany,  // explicitly allowed to map to several novae
};

struct AliasResult {
  enum class Status {
    kCreated,            // this call wrote the alias item
    kAlreadyMapped,      // the name already maps to this nova
    kMappedToOtherNova,  // kExclusive only: the name is claimed by another
                         // nova; nothing written
  };
  Status status = Status::kCreated;
  std::string other_nova_id;  // kMappedToOtherNova: the claim's nova
};

enum class UpdateOutcome {
  kUpdated,         // written (also when the values were already there)
  kNotFound,        // no such item: nothing written
  kNotLeaseHolder,  // fenced writes: the caller no longer holds the lease
};
// UPDATED, NOT_FOUND, NOT_LEASE_HOLDER.
const char* UpdateOutcomeName(UpdateOutcome outcome);

// AP-INGEST-3: the coordinator fields to SET (absent ones are left alone;
// at least one must be present).
struct NovaCoordinatorState {
  std::optional<std::string> status;
  std::optional<std::string> ingest_status;
  std::optional<std::string> last_ingest_at;
  std::optional<std::string> last_ingest_job_run_id;
};

struct DiscoveryDateResult {
  enum class Status {
    kUpdated,    // discovery_date was absent or later: now `discovery_date`
    kUnchanged,  // the stored date is earlier or equal: nothing written
                 // (earlier in domain::PartialDate's order, see
                 // UpdateDiscoveryDate)
    kNotFound,   // no such nova
  };
  Status status = Status::kUpdated;
  std::optional<std::string> discovery_date;  // the stored date afterwards
  DatePrecision discovery_date_precision = DatePrecision::kDay;  // its
};

struct LeaseResult {
  enum class Status {
    kAcquired,       // the caller holds the lease until expires_at
    kHeldByOther,    // IN_PROGRESS under another owner, not expired
    kNotAcquirable,  // in a final state (COMPLETED, ...): nothing to do
    kNotFound,       // no such dataset
  };
  Status status = Status::kAcquired;
  std::string owner;       // kAcquired / kHeldByOther: the holder
  int64_t expires_at = 0;  // kAcquired / kHeldByOther: its lease_expires_at
  std::optional<ProcessingStatus> processing_status;  // as read on refusal
};
// ACQUIRED, HELD_BY_OTHER, NOT_ACQUIRABLE, NOT_FOUND.

struct RequeueResult {
  enum class Status {
    kRequeued,        // READY and download-eligible again
    kNotRequeueable,  // not in a failed state (processing_status says which)
    kNotFound,        // no such dataset
  };
  Status status = Status::kRequeued;
  std::optional<ProcessingStatus> processing_status;  // as read on refusal
};
const char* LeaseStatusName(LeaseResult::Status status);

enum class ReleaseResult {
  kReleased,  // IN_PROGRESS under the caller -> the requested status
  kNotHeld,   // the caller does not hold it (taken over after expiry, ...)
  kNotFound,
};

// AP-DL-4.
struct Fingerprints {
  int64_t byte_length = 0;
  // The server's ETag; absent when it gives none (a file:// product).
  std::optional<std::string> etag;
  std::string sha256;  // 64 lower-case hex digits
  std::optional<std::string> fits_checksum;
  std::string header_signature;
};

// AP-DL-5. quarantine_reason_code is required for QUARANTINED and refused
// otherwise.
struct ValidationOutcome {
  ValidationStatus status = ValidationStatus::kValid;
  std::optional<std::string> quarantine_reason_code;
  std::optional<nlohmann::json> details;
  std::optional<nlohmann::json> profile_selection;
};

// AP-DISC-3.
struct DatasetLocators {
  nlohmann::json locators;
  std::optional<nlohmann::json> hints;  // absent: REMOVE hints
};

// AP-PHOT-3.
struct IngestionUpdate {
  std::string ingestion_status;
  std::optional<nlohmann::json> artifacts;  // absent: left alone
};

// ---------------------------------------------------------------------------

class Repository {
 public:
  // `table` must outlive the repository. A Repository is as thread-safe as
  // its Table (it keeps no state of its own).
  explicit Repository(Table& table) : table_(table) {}

  // --- initialize_nova ----------------------------------------------------

  // AP-INIT-1: every nova_id the name maps to, sorted, without duplicates.
  // Query GSI2 (NameResolutionIndex) GSI2PK = NAME#<normalized_name>, all
  // pages. Only Alias items carry GSI2 attributes (never the NameClaim).
  // The determinism rule is the caller's: none -> not found; one -> that
  // nova; several -> ambiguous (explicit reconciliation: quarantine), never
  // "pick the first". GSI2 is eventually consistent on DynamoDB: an alias
  // written a moment ago may be missing; PutAlias is the authority.
  std::vector<std::string> ResolveName(std::string_view normalized_name);

  // AP-INIT-2: PutItem Nova PK=NOVA#<nova_id> SK=META, condition
  // attribute_not_exists(PK) AND attribute_not_exists(SK); then (not
  // conditional) its NovaPosition item (AP-INIT-4).
  // Idempotency: on the condition failure the stored nova is read; the same
  // identity (nova_id, primary_name, normalized_name, ra_deg, dec_deg,
  // epoch; not created_at nor the mutable fields) -> kAlreadyExists, and
  // the position item is written again, which completes a call that
  // crashed between the two writes; any other nova -> kConflict, nothing
  // written. The stored created_at stays the first writer's.
  // Order: nova first, so a position item only ever names an existing nova
  // with those coordinates; a crash between leaves a nova that NovaeNear
  // does not see until the retry.
  CreateResult CreateNova(const Nova& nova);

  // AP-INIT-3: maps alias.normalized_name to alias.nova_id.
  // 1. The claim (ours; the seed asks that a name not map to two novae
  //    unless explicitly allowed, which one conditional alias item cannot
  //    enforce: its condition sees only its own key, never its siblings in
  //    the NAME# partition). PutItem NameClaim PK=NAME#<n> SK=CLAIM
  //    {nova_id}:
  //      kExclusive: condition attribute_not_exists(PK) OR nova_id = :nova.
  //        A failure is read back -> kMappedToOtherNova with that nova.
  //      kAllowMany: condition attribute_not_exists(PK), failure ignored
  //        (the first mapping of a name claims it, whatever the policy).
  // 2. The alias: PutItem Alias PK=NAME#<n> SK=NOVA#<nova_id>, GSI2PK/GSI2SK
  //    set, condition attribute_not_exists(PK) AND attribute_not_exists(SK)
  //    -> kCreated, or kAlreadyMapped on the condition failure.
  // Why this is safe: a claim is written before any alias of its name and
  // is never changed or deleted, so an exclusive writer whose claim
  // condition passed knows that every other nova's alias under that name
  // was written with kAllowMany (explicitly allowed). Racing exclusive
  // writers for different novae: exactly one claim wins. A crash between
  // the two writes leaves a claim without its alias: ResolveName does not
  // see the name yet, other novae are refused (safe), and the retry of the
  // same PutAlias passes the claim condition (same nova) and writes the
  // alias. The claim has no GSI2 attributes, so it never appears in
  // ResolveName. Retries: kCreated / kAlreadyMapped are both success.
  AliasResult PutAlias(const Alias& alias,
                       AliasPolicy policy = AliasPolicy::kExclusive);

  // AP-INIT-3's exclusive claim alone (PutAlias step 1 with kExclusive):
  // PutItem NameClaim PK=NAME#<n> SK=CLAIM {nova_id}, condition
  // attribute_not_exists(PK) OR nova_id = :nova -> kCreated (the name is
  // claimed for this nova: written now or by an earlier call), or, read
  // back on the condition failure, kMappedToOtherNova with the claim's
  // nova. Writes no alias, so ResolveName does not see the name until
  // PutAlias: a caller can claim a name before the nova it names exists
  // (initialize_nova claims first, then creates the nova, then the alias).
  AliasResult ClaimName(std::string_view normalized_name,
                        std::string_view nova_id);

  // AP-INIT-4 (ours, not the seed's: the seed has no pattern to list the
  // novae near a position, which CheckExistingNovaByCoordinates needs).
  // Query PK=SKY#<band>, begins_with(SK, "NOVA#"), all pages, for every
  // one-degree declination band the circle of `radius_arcsec` around
  // (ra, dec) touches (widened by 1e-9 degree against rounding). Returns
  // candidates sorted by nova_id: every nova within the radius (a band holds
  // the whole RA circle, so RA wrap-around and the poles need no special
  // case), and others; the caller computes the separations
  // (domain::AngularSeparationArcsec) and classifies. ra in [0, 360), dec in
  // [-90, 90], radius >= 0.
  std::vector<NovaPosition> NovaeNear(double ra_deg, double dec_deg,
                                      double radius_arcsec);

  // AP-SWEEP-1 (ours: a `for_each: nova` schedule starts one run per nova,
  // and the seed has no pattern listing them). Every nova_id of the
  // catalog, sorted: the NovaPosition items of all 180 SKY# bands (Query
  // each, all pages), one per nova. A nova whose CreateNova crashed
  // between its two writes is listed once the retry wrote its position.
  std::vector<std::string> ListNovae();

  // --- ingest_new_nova ----------------------------------------------------

  // AP-INGEST-1: GetItem PK=NOVA#<nova_id> SK=META (strongly consistent).
  std::optional<Nova> GetNova(std::string_view nova_id);

  // AP-INGEST-2 (Put JobRun) is runtime::RecordStore::PutJobRun, served by
  // TableRecordStore.

  // AP-INGEST-3: UpdateItem PK=NOVA#<nova_id> SK=META, SET the present
  // fields, condition attribute_exists(PK) (never creates a nova) ->
  // kUpdated / kNotFound. Idempotent (SETs of the same values).
  UpdateOutcome UpdateNovaCoordinatorState(std::string_view nova_id,
                                           const NovaCoordinatorState& state);

  // --- refresh_references -------------------------------------------------

  // AP-REF-1: PutItem Reference PK=NOVA#<nova_id> SK=REF#<reference_id>,
  // an upsert that never coarsens the stored publication date. Condition:
  // NOT (the stored date lies strictly inside the new one's period and is
  // more precise: "1975-08-30" stored, "1975" or "1975-08" given; or the
  // new reference is undated and the stored one is dated). When that
  // condition fails, the item is updated without its date (SET source,
  // source_key, updated_at, title or REMOVE title), so the more precise
  // stored date stays. Otherwise the item is replaced: a more precise date
  // inside the stored one refines it ("1975" -> "1975-08-30"), a date
  // disjoint from it replaces it (the latest reconciliation wins), as does
  // anything on an absent or undated item. A retry rewrites the same item.
  // Throws TerminalError for a date that is not YYYY-MM-DD or not its
  // precision's first day.
  void UpsertReference(const Reference& reference);
  // Query PK=NOVA#<nova_id>, begins_with(SK, "REF#"): by reference_id.
  std::vector<Reference> ListReferences(std::string_view nova_id);

  // AP-REF-2: PutItem NovaReference PK=NOVA#<nova_id>
  // SK=NOVAREF#<reference_id>, condition attribute_not_exists(PK) AND
  // attribute_not_exists(SK) -> kCreated, or kAlreadyExists (the link is
  // there: a retry or a duplicate; the first linked_at is kept). Never
  // kConflict: the key is the whole identity.
  CreateResult LinkNovaReference(const NovaReference& link);
  // AP-REF-3's read: Query PK=NOVA#<nova_id>, begins_with(SK, "NOVAREF#"):
  // by reference_id.
  std::vector<NovaReference> ListNovaReferences(std::string_view nova_id);

  // AP-REF-3's write, monotonic earlier (refresh_references' invariant):
  // UpdateItem PK=NOVA#<nova_id> SK=META SET discovery_date,
  // discovery_date_precision, discovery_reference_id, condition
  // attribute_exists(PK) AND (attribute_not_exists(discovery_date) OR the
  // new date is earlier than the stored one in domain::PartialDate's order:
  // its last day is earlier, or on the same last day it is more precise).
  // With N the new date's last day, that is, by the stored precision
  // (YYYY-MM-DD compares as text in date order):
  //   DAY (or absent):  discovery_date > N
  //   MONTH:  discovery_date > N's month's first day, or == it and the new
  //           date is a DAY
  //   YEAR:   discovery_date > N's year's first day, or == it and the new
  //           date is a MONTH or a DAY
  // so a stored YEAR 1975 is refined by 1975-08-30, and never moved later.
  // On the condition failure the nova is read: absent -> kNotFound, else
  // kUnchanged with the stored date. A retry after a landed write answers
  // kUnchanged with discovery_date == `date` (the caller compares, if it
  // needs to know). Throws TerminalError for a date that is not YYYY-MM-DD
  // or not its precision's first day.
  DiscoveryDateResult UpdateDiscoveryDate(
      std::string_view nova_id, const std::string& date,
      const std::string& reference_id,
      DatePrecision precision = DatePrecision::kDay);

  // --- discover_spectra_products ------------------------------------------

  // Every dataset of the nova, of both types: Query PK=NOVA#<nova_id>,
  // begins_with(SK, "DATASET#"), all pages, in SK order (type, provider,
  // dataset_id). For an operator (`novacat datasets list`).
  std::vector<Dataset> ListNovaDatasets(std::string_view nova_id);

  // AP-DISC-1: Query PK=NOVA#<nova_id>,
  // begins_with(SK, "DATASET#<type>#<provider>#"): by dataset_id.
  std::vector<Dataset> ListProviderDatasets(
      std::string_view nova_id, std::string_view provider,
      DatasetType type = DatasetType::kSpectra);

  // AP-DISC-2: PutItem Dataset (dataset.key()), condition
  // attribute_not_exists(PK) AND attribute_not_exists(SK). On the condition
  // failure the stored dataset is read: the same identity (dataset_id,
  // type, provider, provider_identity) -> kAlreadyExists, else kConflict;
  // nothing written either way (re-published metadata goes through
  // UpdateDatasetLocators). Derive dataset_id from the dataset identity
  // (domain::DatasetId) so that retries and concurrent discoveries of one
  // product meet on one key.
  CreateResult CreateDataset(const Dataset& dataset);

  // AP-DISC-3: UpdateItem dataset SET locators, hints (REMOVE when absent),
  // updated_at; condition attribute_exists(PK). Idempotent.
  UpdateOutcome UpdateDatasetLocators(const DatasetKey& key,
                                      const DatasetLocators& locators,
                                      const std::string& updated_at);

  // AP-DISC-4: UpdateItem dataset SET eligibility = <e>,
  // GSI1PK = NOVA#<nova_id>, GSI1SK = ELIG#<e>#<dataset_id>, updated_at; or,
  // with nullopt, REMOVE eligibility, GSI1PK, GSI1SK (the dataset leaves
  // GSI1). Condition attribute_exists(PK) [AND the lease fence, as the
  // dataset updates below]. Idempotent. `eligibility` is a key component
  // (kEligibilityDownload for AP-DL-1).
  UpdateOutcome SetDownloadEligibility(
      const DatasetKey& key, const std::optional<std::string>& eligibility,
      const std::string& updated_at,
      const std::optional<std::string>& lease_owner = std::nullopt);

  // --- download_and_validate_spectra / ingest_photometry_dataset ----------

  // An operator's decision after review: a SPECTRA dataset that runs left
  // QUARANTINED, FAILED_TERMINAL or FAILED_RETRYABLE, or whose lease
  // expired (a run that died holding it), is made download-eligible again:
  // UpdateItem dataset SET processing_status = READY, eligibility =
  // DOWNLOAD with its GSI1 keys, updated_at, REMOVE failed_runs,
  // lease_owner, lease_expires_at; condition attribute_exists(PK) AND
  // (processing_status IN (QUARANTINED, FAILED_TERMINAL, FAILED_RETRYABLE)
  // OR (processing_status = IN_PROGRESS AND lease_expires_at < :now)). The
  // validation result stays until the next run writes its own. On the
  // condition failure the item is read: absent -> kNotFound; READY and
  // eligible with this very updated_at -> kRequeued (a retry whose first
  // write landed); else kNotRequeueable with its status (a live lease,
  // COMPLETED, never leased). TerminalError for a PHOTOMETRY key: its runs
  // start from the object, not from GSI1.
  RequeueResult RequeueDataset(const DatasetKey& key, int64_t now,
                               const std::string& updated_at);

  // AP-DL-1: Query GSI1 (DatasetEligibilityIndex) GSI1PK = NOVA#<nova_id>,
  // begins_with(GSI1SK, "ELIG#DOWNLOAD#"), all pages: by dataset_id. Other
  // eligibilities are not returned. Eventually consistent on DynamoDB.
  std::vector<Dataset> QueryEligibleDatasets(std::string_view nova_id);

  // AP-DL-2 / AP-PHOT-2: UpdateItem dataset SET processing_status =
  // IN_PROGRESS, lease_owner = <owner>, lease_expires_at = now +
  // lease_seconds, condition
  //   attribute_exists(PK) AND (
  //     attribute_not_exists(processing_status)                (NULL)
  //     OR processing_status IN (READY, FAILED_RETRYABLE)
  //     OR (processing_status = IN_PROGRESS AND lease_expires_at < :now)
  //     OR (processing_status = IN_PROGRESS AND lease_owner = :owner))
  // The seed's bare "OR lease_expires_at < now" is narrowed to IN_PROGRESS
  // (a released dataset has no lease attributes anyway). The same owner
  // re-acquiring renews its lease: a retried acquire whose first write
  // landed must not lock its own run out until expiry (as the idempotency
  // lock). Expiry is strict: a lease expiring at t is still held at t.
  // On the condition failure the item is read: absent -> kNotFound,
  // IN_PROGRESS -> kHeldByOther (holder, expiry), a final state ->
  // kNotAcquirable; if what is read would now pass the condition (the
  // holder released in between), the update is tried again (at most 4
  // times, then RetryableError). Racing owners: exactly one kAcquired,
  // including on the reclaim of an expired lease.
  LeaseResult AcquireDatasetLease(const DatasetKey& key,
                                  const std::string& owner, int64_t now,
                                  int64_t lease_seconds);

  // The end of a lease: UpdateItem dataset SET processing_status = `next`
  // (not IN_PROGRESS), updated_at, failed_runs = `failed_runs` when it is
  // above 0 (else REMOVE failed_runs), REMOVE lease_owner, lease_expires_at;
  // condition processing_status = IN_PROGRESS AND lease_owner = :owner.
  // The holder computes failed_runs from the item it read under its lease:
  // nothing else writes failed_runs while a lease is held (RequeueDataset
  // takes only a failed dataset or an expired lease), and the count moves
  // with the release, so a retried release cannot count a run twice.
  // On the condition failure the item is read: absent -> kNotFound; already
  // `next` with no lease -> kReleased (a retry whose first write landed);
  // otherwise kNotHeld (the lease was taken over; the caller's work must be
  // considered lost).
  ReleaseResult ReleaseDatasetLease(const DatasetKey& key,
                                    const std::string& owner,
                                    ProcessingStatus next,
                                    const std::string& updated_at,
                                    int64_t failed_runs = 0);

  // The dataset updates below take an optional `lease_owner` fence: when
  // set, the condition also requires processing_status = IN_PROGRESS AND
  // lease_owner = :owner (a worker whose lease was taken over cannot
  // overwrite its successor's results) -> kNotLeaseHolder. Every one is a
  // SET of given values, so a retry rewrites the same item.

  // AP-DL-4: UpdateItem dataset SET byte_length, sha256, header_signature,
  // etag and fits_checksum (each REMOVEd when absent), updated_at;
  // condition attribute_exists(PK) [AND the fence].
  UpdateOutcome PutFingerprints(
      const DatasetKey& key, const Fingerprints& fingerprints,
      const std::string& updated_at,
      const std::optional<std::string>& lease_owner = std::nullopt);

  // AP-DL-5: UpdateItem dataset SET validation_status, updated_at, and
  // quarantine_reason_code, validation_details, profile_selection (each
  // REMOVEd when absent); condition attribute_exists(PK) [AND the fence].
  UpdateOutcome PutValidationResult(
      const DatasetKey& key, const ValidationOutcome& outcome,
      const std::string& updated_at,
      const std::optional<std::string>& lease_owner = std::nullopt);

  // AP-DL-6: PutItem FileObject PK=NOVA#<nova_id>
  // SK=FILE#<dataset_id>#<file_id>, GSI3PK=S3#<bucket>, GSI3SK=<key>; no
  // condition (an upsert keyed by dataset and role; a retry rewrites the
  // same item). One S3 object should belong to one FileObject: the caller
  // builds keys that embed the dataset (nothing here can check it
  // atomically).
  void PutFileObject(const FileObject& file);
  // The same write under the dataset's lease (download_and_validate_spectra):
  // GetItem dataset (strongly consistent): NOT_FOUND without it,
  // NOT_LEASE_HOLDER unless IN_PROGRESS under lease_owner; then the PutItem
  // with lease_fence = the lease's lease_expires_at, condition
  // attribute_not_exists(PK) OR attribute_not_exists(lease_fence) OR
  // lease_fence <= :fence. A later holder's
  // lease always expires later (it is taken only once this one expired), so
  // a run that lost its lease cannot overwrite what the next holder wrote,
  // however late its write lands (NOT_LEASE_HOLDER); file.lease_fence is
  // ignored.
  UpdateOutcome PutFileObject(const FileObject& file,
                              const std::string& lease_owner);
  // Query PK=NOVA#<nova_id>, begins_with(SK, "FILE#<dataset_id>#"): by
  // file_id.
  std::vector<FileObject> ListFileObjects(std::string_view nova_id,
                                          std::string_view dataset_id);

  // AP-PHOT-1: Query GSI3 (S3ObjectIndex) GSI3PK = S3#<bucket>, GSI3SK =
  // <key> (exact match), all pages: the FileObjects of that object, sorted
  // by table key. None -> not ours; one -> its dataset_key(); several ->
  // an invariant broken (quarantine). Eventually consistent on DynamoDB.
  std::vector<FileObject> FindByS3Object(std::string_view bucket,
                                         std::string_view key);

  // AP-PHOT-2's read: GetItem dataset (strongly consistent); the lease is
  // AcquireDatasetLease.
  std::optional<Dataset> GetDataset(const DatasetKey& key);

  // AP-PHOT-3: UpdateItem dataset SET ingestion_status, artifacts (when
  // present), updated_at; condition attribute_exists(PK) [AND the fence].
  UpdateOutcome UpdateIngestionStatus(
      const DatasetKey& key, const IngestionUpdate& update,
      const std::string& updated_at,
      const std::optional<std::string>& lease_owner = std::nullopt);

  // AP-DL-3 (Attempts) and AP-OPS-1..3 (JobRuns and Attempts per nova and
  // per run) are runtime::RecordStore's, served by TableRecordStore.

 private:
  // The NovaPosition items of SKY# bands low..high, sorted by nova_id.
  std::vector<NovaPosition> NovaeInBands(int low, int high);
  UpdateOutcome UpdateDataset(const char* operation, const DatasetKey& key,
                              const Update& update,
                              const std::optional<std::string>& lease_owner);

  Table& table_;
};

}  // namespace novacat::store
