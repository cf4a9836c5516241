#include "novacat/store/repository.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/json_reader.h"

namespace novacat::store {

namespace {

using runtime::ObjectReader;
using runtime::Parsed;
using runtime::RetryableError;
using runtime::Rules;
using runtime::TerminalError;

constexpr const char* kProcessingStatus = "processing_status";
constexpr const char* kLeaseOwner = "lease_owner";
constexpr const char* kLeaseExpiresAt = "lease_expires_at";
constexpr const char* kFailedRuns = "failed_runs";

// Key components end up inside prefix queries: '#' would let one
// component's prefix match another's items.
void CheckPart(const char* operation, const char* what,
               std::string_view value) {
  if (value.empty() || value.find('#') != std::string_view::npos)
    throw TerminalError(std::string(operation) + ": " + what +
                        " must be non-empty and must not contain '#' (got '" +
                        std::string(value) + "')");
}

void CheckText(const char* operation, const char* what,
               std::string_view value) {
  if (value.empty())
    throw TerminalError(std::string(operation) + ": " + what +
                        " must be non-empty");
}

void CheckDatasetKey(const char* operation, const DatasetKey& key) {
  CheckPart(operation, "nova_id", key.nova_id);
  CheckPart(operation, "provider", key.provider);
  CheckPart(operation, "dataset_id", key.dataset_id);
}

std::string KeyText(const Item& item) {
  auto text = [&](const char* name) {
    auto it = item.find(name);
    return it != item.end() && it->is_string() ? it->get<std::string>()
                                               : std::string("?");
  };
  return text("PK") + " / " + text("SK");
}

// A stored item of kind T, or a TerminalError naming its key and what is
// wrong with it (a corrupted table is not something a retry fixes).
template <typename T>
T Read(const Item& item, const char* entity) {
  Parsed<T> parsed = T::FromItem(item);
  if (!parsed.ok())
    throw TerminalError(std::string("stored ") + entity + " item " +
                        KeyText(item) + " is invalid:\n" +
                        runtime::FormatErrors(parsed.errors));
  return std::move(*parsed.value);
}

template <typename T>
std::vector<T> ReadAll(const std::vector<Item>& items, const char* entity) {
  std::vector<T> out;
  out.reserve(items.size());
  for (const Item& item : items) out.push_back(Read<T>(item, entity));
  return out;
}

template <typename T>
void PutOptional(Item& item, const char* name, const std::optional<T>& value) {
  if (value) item[name] = *value;
}

void CheckEntity(ObjectReader& reader, std::string_view expected) {
  auto entity = reader.String("entity", Rules{}.Required());
  if (entity && *entity != expected)
    reader.errors().push_back(
        {reader.Path("entity"), "must be " + std::string(expected)});
}

// Reads a required string member into `out`.
void Text(ObjectReader& reader, const char* name, std::string& out) {
  if (auto v = reader.String(name, Rules{}.Required())) out = std::move(*v);
}

void Number(ObjectReader& reader, const char* name, double& out) {
  if (auto v = reader.Number(name, Rules{}.Required())) out = *v;
}

// Any JSON value (object, array, scalar); absent -> nullopt.
std::optional<nlohmann::json> AnyJson(const Item& item, const char* name) {
  auto it = item.find(name);
  if (it == item.end()) return std::nullopt;
  return *it;
}

std::optional<DatasetType> ReadDatasetType(ObjectReader& reader,
                                           const char* name) {
  auto s =
      reader.String(name, Rules{}.Required().OneOf({"SPECTRA", "PHOTOMETRY"}));
  return s ? ParseDatasetType(*s) : std::nullopt;
}

std::string DatasetSortKey(DatasetType type, std::string_view provider,
                           std::string_view dataset_id) {
  return "DATASET#" + std::string(DatasetTypeName(type)) + "#" +
         std::string(provider) + "#" + std::string(dataset_id);
}

std::string DatasetPrefix(DatasetType type, std::string_view provider) {
  return "DATASET#" + std::string(DatasetTypeName(type)) + "#" +
         std::string(provider) + "#";
}

// GSI1 (DatasetEligibilityIndex): a dataset eligible for `eligibility` is
// under GSI1PK = NOVA#<nova_id>, GSI1SK = ELIG#<eligibility>#<dataset_id>.
std::string EligibilityPrefix(std::string_view eligibility) {
  return "ELIG#" + std::string(eligibility) + "#";
}

// The update that puts dataset `key` in GSI1 under `eligibility`.
void SetEligibility(Update& update, const DatasetKey& key,
                    std::string_view eligibility) {
  update.set["eligibility"] = eligibility;
  update.set["GSI1PK"] = NovaKey(key.nova_id).pk;
  update.set["GSI1SK"] = EligibilityPrefix(eligibility) + key.dataset_id;
}

QueryRequest PrefixQuery(Index index, std::string pk, std::string prefix) {
  QueryRequest request;
  request.index = index;
  request.partition_key = std::move(pk);
  request.sort_key_prefix = std::move(prefix);
  return request;
}

bool SameNovaIdentity(const Nova& a, const Nova& b) {
  return a.nova_id == b.nova_id && a.primary_name == b.primary_name &&
         a.normalized_name == b.normalized_name && a.ra_deg == b.ra_deg &&
         a.dec_deg == b.dec_deg && a.epoch == b.epoch;
}

bool SameDatasetIdentity(const Dataset& a, const Dataset& b) {
  return a.key() == b.key() && a.provider_identity == b.provider_identity;
}

void CheckRaDec(const char* operation, double ra_deg, double dec_deg) {
  if (!std::isfinite(ra_deg) || ra_deg < 0 || ra_deg >= 360)
    throw TerminalError(std::string(operation) +
                        ": ra_deg must be in [0, 360)");
  if (!std::isfinite(dec_deg) || dec_deg < -90 || dec_deg > 90)
    throw TerminalError(std::string(operation) +
                        ": dec_deg must be in [-90, 90]");
}

bool IsLowerHex64(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// SET `name` = value when present, else REMOVE it.
template <typename T>
void SetOrRemove(Update& update, const char* name,
                 const std::optional<T>& value) {
  if (value)
    update.set[name] = *value;
  else
    update.remove.push_back(name);
}

// A stored date's precision: absent (items written before the attribute
// existed) reads as DAY.
DatePrecision ReadDatePrecision(ObjectReader& reader, const char* name) {
  auto s = reader.String(name, Rules{}.OneOf({"YEAR", "MONTH", "DAY"}));
  return s ? ParseDatePrecision(*s).value_or(DatePrecision::kDay)
           : DatePrecision::kDay;
}

// A date written with its precision: YYYY-MM-DD, and the first day of its
// year (YEAR) or month (MONTH).
void CheckPartialDate(const char* operation, const char* name,
                      const std::string& date, DatePrecision precision) {
  bool ok = runtime::IsDate(date);
  if (ok && precision == DatePrecision::kYear)
    ok = date.compare(4, 6, "-01-01") == 0;
  if (ok && precision == DatePrecision::kMonth)
    ok = date.compare(7, 3, "-01") == 0;
  if (!ok)
    throw TerminalError(std::string(operation) + ": " + name +
                        " must be YYYY-MM-DD, the first day of its " +
                        DatePrecisionName(precision) + " (got '" + date + "')");
}

// Whether the stored precision attribute `name` is `precision` (an absent
// attribute is DAY).
Condition PrecisionIs(const char* name, DatePrecision precision) {
  Condition is = Condition::Eq(name, DatePrecisionName(precision));
  if (precision != DatePrecision::kDay) return is;
  return Condition::Or({is, Condition::NotExists(name)});
}

// The last day of a dated period as text that compares correctly with any
// YYYY-MM-DD: a MONTH's is "YYYY-MM-31" (no date of the month is later).
std::string LastDayBound(const std::string& first_day,
                         DatePrecision precision) {
  switch (precision) {
    case DatePrecision::kYear:
      return first_day.substr(0, 4) + "-12-31";
    case DatePrecision::kMonth:
      return first_day.substr(0, 7) + "-31";
    case DatePrecision::kDay:
      break;
  }
  return first_day;
}

}  // namespace

// ---------------------------------------------------------------------------
// Enumerations.

const char* DatasetTypeName(DatasetType type) {
  return type == DatasetType::kPhotometry ? "PHOTOMETRY" : "SPECTRA";
}

std::optional<DatasetType> ParseDatasetType(std::string_view name) {
  if (name == "SPECTRA") return DatasetType::kSpectra;
  if (name == "PHOTOMETRY") return DatasetType::kPhotometry;
  return std::nullopt;
}

const char* ProcessingStatusName(ProcessingStatus status) {
  switch (status) {
    case ProcessingStatus::kReady:
      return "READY";
    case ProcessingStatus::kInProgress:
      return "IN_PROGRESS";
    case ProcessingStatus::kFailedRetryable:
      return "FAILED_RETRYABLE";
    case ProcessingStatus::kCompleted:
      return "COMPLETED";
    case ProcessingStatus::kFailedTerminal:
      return "FAILED_TERMINAL";
    case ProcessingStatus::kQuarantined:
      return "QUARANTINED";
  }
  return "READY";
}

std::optional<ProcessingStatus> ParseProcessingStatus(std::string_view name) {
  for (auto s :
       {ProcessingStatus::kReady, ProcessingStatus::kInProgress,
        ProcessingStatus::kFailedRetryable, ProcessingStatus::kCompleted,
        ProcessingStatus::kFailedTerminal, ProcessingStatus::kQuarantined})
    if (name == ProcessingStatusName(s)) return s;
  return std::nullopt;
}

const char* ValidationStatusName(ValidationStatus status) {
  switch (status) {
    case ValidationStatus::kValid:
      return "VALID";
    case ValidationStatus::kQuarantined:
      return "QUARANTINED";
    case ValidationStatus::kTerminalInvalid:
      return "TERMINAL_INVALID";
    case ValidationStatus::kRetryableError:
      return "RETRYABLE_ERROR";
  }
  return "VALID";
}

std::optional<ValidationStatus> ParseValidationStatus(std::string_view name) {
  for (auto s :
       {ValidationStatus::kValid, ValidationStatus::kQuarantined,
        ValidationStatus::kTerminalInvalid, ValidationStatus::kRetryableError})
    if (name == ValidationStatusName(s)) return s;
  return std::nullopt;
}

const char* DatePrecisionName(DatePrecision precision) {
  switch (precision) {
    case DatePrecision::kYear:
      return "YEAR";
    case DatePrecision::kMonth:
      return "MONTH";
    case DatePrecision::kDay:
      return "DAY";
  }
  return "DAY";
}

std::optional<DatePrecision> ParseDatePrecision(std::string_view name) {
  for (auto p :
       {DatePrecision::kYear, DatePrecision::kMonth, DatePrecision::kDay})
    if (name == DatePrecisionName(p)) return p;
  return std::nullopt;
}

std::string PartialDateText(std::string_view first_day,
                            DatePrecision precision) {
  switch (precision) {
    case DatePrecision::kYear:
      return std::string(first_day.substr(0, 4));
    case DatePrecision::kMonth:
      return std::string(first_day.substr(0, 7));
    case DatePrecision::kDay:
      break;
  }
  return std::string(first_day);
}

const char* CreateResultName(CreateResult result) {
  switch (result) {
    case CreateResult::kCreated:
      return "CREATED";
    case CreateResult::kAlreadyExists:
      return "ALREADY_EXISTS";
    case CreateResult::kConflict:
      return "CONFLICT";
  }
  return "CREATED";
}

const char* UpdateOutcomeName(UpdateOutcome outcome) {
  switch (outcome) {
    case UpdateOutcome::kUpdated:
      return "UPDATED";
    case UpdateOutcome::kNotFound:
      return "NOT_FOUND";
    case UpdateOutcome::kNotLeaseHolder:
      return "NOT_LEASE_HOLDER";
  }
  return "UPDATED";
}

const char* LeaseStatusName(LeaseResult::Status status) {
  switch (status) {
    case LeaseResult::Status::kAcquired:
      return "ACQUIRED";
    case LeaseResult::Status::kHeldByOther:
      return "HELD_BY_OTHER";
    case LeaseResult::Status::kNotAcquirable:
      return "NOT_ACQUIRABLE";
    case LeaseResult::Status::kNotFound:
      return "NOT_FOUND";
  }
  return "ACQUIRED";
}

// ---------------------------------------------------------------------------
// Keys.

Key NovaKey(std::string_view nova_id) {
  return {"NOVA#" + std::string(nova_id), "META"};
}

Key NameClaimKey(std::string_view normalized_name) {
  return {"NAME#" + std::string(normalized_name), "CLAIM"};
}

Key AliasKey(std::string_view normalized_name, std::string_view nova_id) {
  return {"NAME#" + std::string(normalized_name),
          "NOVA#" + std::string(nova_id)};
}

Key ReferenceKey(std::string_view nova_id, std::string_view reference_id) {
  return {"NOVA#" + std::string(nova_id), "REF#" + std::string(reference_id)};
}

Key NovaReferenceKey(std::string_view nova_id, std::string_view reference_id) {
  return {"NOVA#" + std::string(nova_id),
          "NOVAREF#" + std::string(reference_id)};
}

Key FileObjectKey(std::string_view nova_id, std::string_view dataset_id,
                  std::string_view file_id) {
  return {"NOVA#" + std::string(nova_id),
          "FILE#" + std::string(dataset_id) + "#" + std::string(file_id)};
}

Key DatasetKey::ToKey() const {
  return {"NOVA#" + nova_id, DatasetSortKey(type, provider, dataset_id)};
}

int SkyBand(double dec_deg) {
  double band = std::floor(dec_deg);
  if (!(band >= -90)) return -90;  // also NaN
  if (band > 89) return 89;
  return static_cast<int>(band);
}

std::string SkyBandPartition(int band) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "SKY#%+03d", band);
  return buffer;
}

Key NovaPositionKey(double dec_deg, std::string_view nova_id) {
  return {SkyBandPartition(SkyBand(dec_deg)), "NOVA#" + std::string(nova_id)};
}

// ---------------------------------------------------------------------------
// Entities.

Item Nova::ToItem() const {
  Key key = NovaKey(nova_id);
  Item item = Item::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["entity"] = "Nova";
  item["nova_id"] = nova_id;
  item["primary_name"] = primary_name;
  item["normalized_name"] = normalized_name;
  item["ra_deg"] = ra_deg;
  item["dec_deg"] = dec_deg;
  PutOptional(item, "epoch", epoch);
  item["status"] = status;
  item["created_at"] = created_at;
  PutOptional(item, "discovery_date", discovery_date);
  if (discovery_date)
    item["discovery_date_precision"] =
        DatePrecisionName(discovery_date_precision);
  PutOptional(item, "discovery_reference_id", discovery_reference_id);
  PutOptional(item, "ingest_status", ingest_status);
  PutOptional(item, "last_ingest_at", last_ingest_at);
  PutOptional(item, "last_ingest_job_run_id", last_ingest_job_run_id);
  return item;
}

Parsed<Nova> Nova::FromItem(const Item& item) {
  Parsed<Nova> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "Nova");
  Nova nova;
  Text(reader, "nova_id", nova.nova_id);
  Text(reader, "primary_name", nova.primary_name);
  Text(reader, "normalized_name", nova.normalized_name);
  Number(reader, "ra_deg", nova.ra_deg);
  Number(reader, "dec_deg", nova.dec_deg);
  nova.epoch = reader.String("epoch", Rules{});
  Text(reader, "status", nova.status);
  Text(reader, "created_at", nova.created_at);
  nova.discovery_date = reader.Date("discovery_date", Rules{});
  nova.discovery_date_precision =
      ReadDatePrecision(reader, "discovery_date_precision");
  nova.discovery_reference_id = reader.String("discovery_reference_id", {});
  nova.ingest_status = reader.String("ingest_status", Rules{});
  nova.last_ingest_at = reader.String("last_ingest_at", Rules{});
  nova.last_ingest_job_run_id = reader.String("last_ingest_job_run_id", {});
  if (result.errors.empty()) result.value = std::move(nova);
  return result;
}

Item NovaPosition::ToItem() const {
  Key key = NovaPositionKey(dec_deg, nova_id);
  Item item = Item::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["entity"] = "NovaPosition";
  item["nova_id"] = nova_id;
  item["ra_deg"] = ra_deg;
  item["dec_deg"] = dec_deg;
  return item;
}

Parsed<NovaPosition> NovaPosition::FromItem(const Item& item) {
  Parsed<NovaPosition> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "NovaPosition");
  NovaPosition position;
  Text(reader, "nova_id", position.nova_id);
  Number(reader, "ra_deg", position.ra_deg);
  Number(reader, "dec_deg", position.dec_deg);
  if (result.errors.empty()) result.value = std::move(position);
  return result;
}

Item Alias::ToItem() const {
  Key key = AliasKey(normalized_name, nova_id);
  Item item = Item::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["GSI2PK"] = key.pk;
  item["GSI2SK"] = key.sk;
  item["entity"] = "Alias";
  item["normalized_name"] = normalized_name;
  item["nova_id"] = nova_id;
  item["name"] = name;
  item["created_at"] = created_at;
  return item;
}

Parsed<Alias> Alias::FromItem(const Item& item) {
  Parsed<Alias> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "Alias");
  Alias alias;
  Text(reader, "normalized_name", alias.normalized_name);
  Text(reader, "nova_id", alias.nova_id);
  Text(reader, "name", alias.name);
  Text(reader, "created_at", alias.created_at);
  if (result.errors.empty()) result.value = std::move(alias);
  return result;
}

Item Reference::ToItem() const {
  Key key = ReferenceKey(nova_id, reference_id);
  Item item = Item::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["entity"] = "Reference";
  item["nova_id"] = nova_id;
  item["reference_id"] = reference_id;
  item["source"] = source;
  item["source_key"] = source_key;
  PutOptional(item, "title", title);
  PutOptional(item, "publication_date", publication_date);
  if (publication_date)
    item["publication_date_precision"] =
        DatePrecisionName(publication_date_precision);
  item["updated_at"] = updated_at;
  return item;
}

Parsed<Reference> Reference::FromItem(const Item& item) {
  Parsed<Reference> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "Reference");
  Reference reference;
  Text(reader, "nova_id", reference.nova_id);
  Text(reader, "reference_id", reference.reference_id);
  Text(reader, "source", reference.source);
  Text(reader, "source_key", reference.source_key);
  reference.title = reader.String("title", Rules{});
  reference.publication_date = reader.Date("publication_date", Rules{});
  reference.publication_date_precision =
      ReadDatePrecision(reader, "publication_date_precision");
  Text(reader, "updated_at", reference.updated_at);
  if (result.errors.empty()) result.value = std::move(reference);
  return result;
}

Item NovaReference::ToItem() const {
  Key key = NovaReferenceKey(nova_id, reference_id);
  Item item = Item::object();
  item["PK"] = key.pk;
  item["SK"] = key.sk;
  item["entity"] = "NovaReference";
  item["nova_id"] = nova_id;
  item["reference_id"] = reference_id;
  item["linked_at"] = linked_at;
  return item;
}

Parsed<NovaReference> NovaReference::FromItem(const Item& item) {
  Parsed<NovaReference> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "NovaReference");
  NovaReference link;
  Text(reader, "nova_id", link.nova_id);
  Text(reader, "reference_id", link.reference_id);
  Text(reader, "linked_at", link.linked_at);
  if (result.errors.empty()) result.value = std::move(link);
  return result;
}

Item Dataset::ToItem() const {
  Key k = key().ToKey();
  Item item = Item::object();
  item["PK"] = k.pk;
  item["SK"] = k.sk;
  if (eligibility) {
    item["GSI1PK"] = NovaKey(nova_id).pk;
    item["GSI1SK"] = EligibilityPrefix(*eligibility) + dataset_id;
  }
  item["entity"] = "Dataset";
  item["nova_id"] = nova_id;
  item["dataset_type"] = DatasetTypeName(type);
  item["provider"] = provider;
  item["dataset_id"] = dataset_id;
  item["provider_identity"] = provider_identity;
  item["locators"] = locators;
  PutOptional(item, "hints", hints);
  item["created_at"] = created_at;
  item["updated_at"] = updated_at;
  PutOptional(item, "created_by_execution_arn", created_by_execution_arn);
  PutOptional(item, "eligibility", eligibility);
  if (processing_status)
    item[kProcessingStatus] = ProcessingStatusName(*processing_status);
  PutOptional(item, kLeaseOwner, lease_owner);
  PutOptional(item, kLeaseExpiresAt, lease_expires_at);
  PutOptional(item, kFailedRuns, failed_runs);
  PutOptional(item, "byte_length", byte_length);
  PutOptional(item, "etag", etag);
  PutOptional(item, "sha256", sha256);
  PutOptional(item, "fits_checksum", fits_checksum);
  PutOptional(item, "header_signature", header_signature);
  if (validation_status)
    item["validation_status"] = ValidationStatusName(*validation_status);
  PutOptional(item, "quarantine_reason_code", quarantine_reason_code);
  PutOptional(item, "validation_details", validation_details);
  PutOptional(item, "profile_selection", profile_selection);
  PutOptional(item, "ingestion_status", ingestion_status);
  PutOptional(item, "artifacts", artifacts);
  return item;
}

Parsed<Dataset> Dataset::FromItem(const Item& item) {
  Parsed<Dataset> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "Dataset");
  Dataset d;
  Text(reader, "nova_id", d.nova_id);
  if (auto type = ReadDatasetType(reader, "dataset_type")) d.type = *type;
  Text(reader, "provider", d.provider);
  Text(reader, "dataset_id", d.dataset_id);
  Text(reader, "provider_identity", d.provider_identity);
  if (auto locators = AnyJson(item, "locators"))
    d.locators = std::move(*locators);
  else
    reader.errors().push_back({reader.Path("locators"), "is required"});
  d.hints = AnyJson(item, "hints");
  Text(reader, "created_at", d.created_at);
  Text(reader, "updated_at", d.updated_at);
  d.created_by_execution_arn =
      reader.String("created_by_execution_arn", Rules{});
  d.eligibility = reader.String("eligibility", Rules{});
  if (auto s = reader.String(
          kProcessingStatus,
          Rules{}.OneOf({"READY", "IN_PROGRESS", "FAILED_RETRYABLE",
                         "COMPLETED", "FAILED_TERMINAL", "QUARANTINED"})))
    d.processing_status = ParseProcessingStatus(*s);
  d.lease_owner = reader.String(kLeaseOwner, Rules{});
  d.lease_expires_at = reader.Integer(kLeaseExpiresAt, Rules{});
  d.failed_runs = reader.Integer(kFailedRuns, Rules{}.Minimum(1));
  d.byte_length = reader.Integer("byte_length", Rules{}.Minimum(0));
  d.etag = reader.String("etag", Rules{});
  d.sha256 = reader.String("sha256", Rules{});
  d.fits_checksum = reader.String("fits_checksum", Rules{});
  d.header_signature = reader.String("header_signature", Rules{});
  if (auto s =
          reader.String("validation_status",
                        Rules{}.OneOf({"VALID", "QUARANTINED",
                                       "TERMINAL_INVALID", "RETRYABLE_ERROR"})))
    d.validation_status = ParseValidationStatus(*s);
  d.quarantine_reason_code = reader.String("quarantine_reason_code", {});
  d.validation_details = AnyJson(item, "validation_details");
  d.profile_selection = AnyJson(item, "profile_selection");
  d.ingestion_status = reader.String("ingestion_status", Rules{});
  d.artifacts = AnyJson(item, "artifacts");
  if (result.errors.empty()) result.value = std::move(d);
  return result;
}

Item FileObject::ToItem() const {
  Key k = FileObjectKey(nova_id, dataset_id, file_id);
  Item item = Item::object();
  item["PK"] = k.pk;
  item["SK"] = k.sk;
  item["GSI3PK"] = "S3#" + bucket;
  item["GSI3SK"] = key;
  item["entity"] = "FileObject";
  item["nova_id"] = nova_id;
  item["dataset_type"] = DatasetTypeName(dataset_type);
  item["provider"] = provider;
  item["dataset_id"] = dataset_id;
  item["file_id"] = file_id;
  item["bucket"] = bucket;
  item["key"] = key;
  PutOptional(item, "byte_length", byte_length);
  PutOptional(item, "sha256", sha256);
  PutOptional(item, "content_type", content_type);
  item["created_at"] = created_at;
  PutOptional(item, "lease_fence", lease_fence);
  return item;
}

Parsed<FileObject> FileObject::FromItem(const Item& item) {
  Parsed<FileObject> result;
  ObjectReader reader(item, "$", result.errors);
  if (!reader.ok()) return result;
  CheckEntity(reader, "FileObject");
  FileObject f;
  Text(reader, "nova_id", f.nova_id);
  if (auto type = ReadDatasetType(reader, "dataset_type"))
    f.dataset_type = *type;
  Text(reader, "provider", f.provider);
  Text(reader, "dataset_id", f.dataset_id);
  Text(reader, "file_id", f.file_id);
  Text(reader, "bucket", f.bucket);
  Text(reader, "key", f.key);
  f.byte_length = reader.Integer("byte_length", Rules{}.Minimum(0));
  f.sha256 = reader.String("sha256", Rules{});
  f.content_type = reader.String("content_type", Rules{});
  Text(reader, "created_at", f.created_at);
  f.lease_fence = reader.Integer("lease_fence", Rules{});
  if (result.errors.empty()) result.value = std::move(f);
  return result;
}

// ---------------------------------------------------------------------------
// initialize_nova.

std::vector<std::string> Repository::ResolveName(
    std::string_view normalized_name) {
  CheckText("ResolveName", "normalized_name", normalized_name);
  QueryRequest request;
  request.index = Index::kGsi2;
  request.partition_key = "NAME#" + std::string(normalized_name);
  std::vector<std::string> ids;
  for (const Alias& alias : ReadAll<Alias>(table_.QueryAll(request), "Alias"))
    ids.push_back(alias.nova_id);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

CreateResult Repository::CreateNova(const Nova& nova) {
  const char* op = "CreateNova";
  CheckPart(op, "nova_id", nova.nova_id);
  CheckText(op, "primary_name", nova.primary_name);
  CheckText(op, "normalized_name", nova.normalized_name);
  CheckText(op, "status", nova.status);
  CheckText(op, "created_at", nova.created_at);
  CheckRaDec(op, nova.ra_deg, nova.dec_deg);
  CreateResult result = CreateResult::kCreated;
  WriteResult write = table_.PutItem(
      nova.ToItem(),
      Condition::And({Condition::NotExists("PK"), Condition::NotExists("SK")}));
  if (!write.applied()) {
    std::optional<Item> current = table_.GetItem(NovaKey(nova.nova_id));
    // Novae are never deleted: a refusal followed by nothing is a backend
    // anomaly a retry resolves.
    if (!current)
      throw RetryableError("CreateNova " + NovaKey(nova.nova_id).pk +
                           ": refused, then not found");
    if (!SameNovaIdentity(Read<Nova>(*current, "Nova"), nova))
      return CreateResult::kConflict;
    result = CreateResult::kAlreadyExists;
  }
  table_.PutItem(NovaPosition{nova.nova_id, nova.ra_deg, nova.dec_deg}.ToItem(),
                 std::nullopt);
  return result;
}

// The NameClaim item of AP-INIT-3 (see PutAlias).
static Item NameClaimItem(std::string_view normalized_name,
                          std::string_view nova_id) {
  Key claim_key = NameClaimKey(normalized_name);
  return {{"PK", claim_key.pk},
          {"SK", claim_key.sk},
          {"entity", "NameClaim"},
          {"normalized_name", normalized_name},
          {"nova_id", nova_id}};
}

AliasResult Repository::ClaimName(std::string_view normalized_name,
                                  std::string_view nova_id) {
  const char* op = "ClaimName";
  CheckText(op, "normalized_name", normalized_name);
  CheckPart(op, "nova_id", nova_id);
  Key claim_key = NameClaimKey(normalized_name);
  WriteResult write = table_.PutItem(
      NameClaimItem(normalized_name, nova_id),
      Condition::Or({Condition::NotExists("PK"),
                     Condition::Eq("nova_id", std::string(nova_id))}));
  if (write.applied()) return {AliasResult::Status::kCreated, ""};
  std::optional<Item> current = table_.GetItem(claim_key);
  // Claims are never deleted (see PutAlias).
  if (!current)
    throw RetryableError(std::string(op) + " " + claim_key.pk +
                         ": claim refused, then not found");
  auto holder = current->find("nova_id");
  if (holder == current->end() || !holder->is_string())
    throw TerminalError("stored NameClaim item " + KeyText(*current) +
                        " is invalid:\n$.nova_id: must be a string");
  return {AliasResult::Status::kMappedToOtherNova, holder->get<std::string>()};
}

AliasResult Repository::PutAlias(const Alias& alias, AliasPolicy policy) {
  const char* op = "PutAlias";
  CheckText(op, "normalized_name", alias.normalized_name);
  CheckPart(op, "nova_id", alias.nova_id);
  CheckText(op, "name", alias.name);
  CheckText(op, "created_at", alias.created_at);
  if (policy == AliasPolicy::kExclusive) {
    AliasResult claim = ClaimName(alias.normalized_name, alias.nova_id);
    if (claim.status == AliasResult::Status::kMappedToOtherNova) return claim;
  } else {
    table_.PutItem(NameClaimItem(alias.normalized_name, alias.nova_id),
                   Condition::NotExists("PK"));
  }
  WriteResult write = table_.PutItem(
      alias.ToItem(),
      Condition::And({Condition::NotExists("PK"), Condition::NotExists("SK")}));
  return {write.applied() ? AliasResult::Status::kCreated
                          : AliasResult::Status::kAlreadyMapped,
          ""};
}

std::vector<NovaPosition> Repository::NovaeNear(double ra_deg, double dec_deg,
                                                double radius_arcsec) {
  CheckRaDec("NovaeNear", ra_deg, dec_deg);
  if (!std::isfinite(radius_arcsec) || radius_arcsec < 0)
    throw TerminalError("NovaeNear: radius_arcsec must be >= 0");
  // |dec - dec'| <= separation for any two positions, so every nova within
  // the radius has its declination in [dec - r, dec + r], and floor() is
  // monotonic: its band lies between the bands of the two ends. The margin
  // covers rounding in the subtraction.
  constexpr double kMargin = 1e-9;
  double radius_deg = radius_arcsec / 3600;
  return NovaeInBands(SkyBand(std::max(-90.0, dec_deg - radius_deg - kMargin)),
                      SkyBand(std::min(90.0, dec_deg + radius_deg + kMargin)));
}

std::vector<std::string> Repository::ListNovae() {
  std::vector<std::string> ids;
  for (const auto& position : NovaeInBands(SkyBand(-90), SkyBand(90)))
    ids.push_back(position.nova_id);
  return ids;
}

std::vector<NovaPosition> Repository::NovaeInBands(int low, int high) {
  std::vector<NovaPosition> found;
  for (int band = low; band <= high; ++band) {
    std::vector<NovaPosition> in_band = ReadAll<NovaPosition>(
        table_.QueryAll(
            PrefixQuery(Index::kTable, SkyBandPartition(band), "NOVA#")),
        "NovaPosition");
    found.insert(found.end(), in_band.begin(), in_band.end());
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a.nova_id < b.nova_id; });
  return found;
}

// ---------------------------------------------------------------------------
// ingest_new_nova.

std::optional<Nova> Repository::GetNova(std::string_view nova_id) {
  CheckPart("GetNova", "nova_id", nova_id);
  std::optional<Item> item = table_.GetItem(NovaKey(nova_id));
  if (!item) return std::nullopt;
  return Read<Nova>(*item, "Nova");
}

UpdateOutcome Repository::UpdateNovaCoordinatorState(
    std::string_view nova_id, const NovaCoordinatorState& state) {
  const char* op = "UpdateNovaCoordinatorState";
  CheckPart(op, "nova_id", nova_id);
  Update update;
  auto set = [&](const char* name, const std::optional<std::string>& value) {
    if (value) update.set[name] = *value;
  };
  set("status", state.status);
  set("ingest_status", state.ingest_status);
  set("last_ingest_at", state.last_ingest_at);
  set("last_ingest_job_run_id", state.last_ingest_job_run_id);
  if (update.set.empty())
    throw TerminalError(std::string(op) + ": nothing to update");
  WriteResult write =
      table_.UpdateItem(NovaKey(nova_id), update, Condition::Exists("PK"));
  return write.applied() ? UpdateOutcome::kUpdated : UpdateOutcome::kNotFound;
}

// ---------------------------------------------------------------------------
// refresh_references.

void Repository::UpsertReference(const Reference& reference) {
  const char* op = "UpsertReference";
  CheckPart(op, "nova_id", reference.nova_id);
  CheckPart(op, "reference_id", reference.reference_id);
  CheckText(op, "source", reference.source);
  CheckText(op, "source_key", reference.source_key);
  CheckText(op, "updated_at", reference.updated_at);
  if (reference.publication_date)
    CheckPartialDate(op, "publication_date", *reference.publication_date,
                     reference.publication_date_precision);
  // The stored date the new one would coarsen (see the header).
  const char* kDate = "publication_date";
  const char* kPrecision = "publication_date_precision";
  std::optional<Condition> coarsens = Condition::Exists(kDate);
  if (reference.publication_date) {
    const std::string& first = *reference.publication_date;
    const DatePrecision p = reference.publication_date_precision;
    Condition inside =
        Condition::And({Condition::Ge(kDate, first),
                        Condition::Le(kDate, LastDayBound(first, p))});
    if (p == DatePrecision::kYear)
      coarsens = Condition::And(
          {Condition::Not(PrecisionIs(kPrecision, DatePrecision::kYear)),
           inside});
    else if (p == DatePrecision::kMonth)
      coarsens = Condition::And(
          {PrecisionIs(kPrecision, DatePrecision::kDay), inside});
    else
      coarsens.reset();  // a day coarsens nothing
  }
  if (!coarsens) {
    table_.PutItem(reference.ToItem(), std::nullopt);
    return;
  }
  if (table_.PutItem(reference.ToItem(), Condition::Not(*coarsens)).applied())
    return;
  // The stored date is more precise: everything but the date is written.
  Update update;
  update.set["source"] = reference.source;
  update.set["source_key"] = reference.source_key;
  SetOrRemove(update, "title", reference.title);
  update.set["updated_at"] = reference.updated_at;
  table_.UpdateItem(ReferenceKey(reference.nova_id, reference.reference_id),
                    update, std::nullopt);
}

std::vector<Reference> Repository::ListReferences(std::string_view nova_id) {
  CheckPart("ListReferences", "nova_id", nova_id);
  return ReadAll<Reference>(
      table_.QueryAll(PrefixQuery(Index::kTable, NovaKey(nova_id).pk, "REF#")),
      "Reference");
}

CreateResult Repository::LinkNovaReference(const NovaReference& link) {
  const char* op = "LinkNovaReference";
  CheckPart(op, "nova_id", link.nova_id);
  CheckPart(op, "reference_id", link.reference_id);
  CheckText(op, "linked_at", link.linked_at);
  WriteResult write = table_.PutItem(
      link.ToItem(),
      Condition::And({Condition::NotExists("PK"), Condition::NotExists("SK")}));
  return write.applied() ? CreateResult::kCreated
                         : CreateResult::kAlreadyExists;
}

std::vector<NovaReference> Repository::ListNovaReferences(
    std::string_view nova_id) {
  CheckPart("ListNovaReferences", "nova_id", nova_id);
  return ReadAll<NovaReference>(
      table_.QueryAll(
          PrefixQuery(Index::kTable, NovaKey(nova_id).pk, "NOVAREF#")),
      "NovaReference");
}

DiscoveryDateResult Repository::UpdateDiscoveryDate(
    std::string_view nova_id, const std::string& date,
    const std::string& reference_id, DatePrecision precision) {
  const char* op = "UpdateDiscoveryDate";
  CheckPart(op, "nova_id", nova_id);
  CheckPart(op, "reference_id", reference_id);
  CheckPartialDate(op, "date", date, precision);
  const char* kDate = "discovery_date";
  const char* kPrecision = "discovery_date_precision";
  Update update;
  update.set[kDate] = date;
  update.set[kPrecision] = DatePrecisionName(precision);
  update.set["discovery_reference_id"] = reference_id;
  // domain::PartialDate's order, by the stored precision (see the header).
  const std::string last = LastDayBound(date, precision);
  const std::string month_first = last.substr(0, 7) + "-01";
  const std::string year_first = last.substr(0, 4) + "-01-01";
  std::vector<Condition> earlier = {
      Condition::NotExists(kDate),
      Condition::And({PrecisionIs(kPrecision, DatePrecision::kDay),
                      Condition::Gt(kDate, last)})};
  std::vector<Condition> month = {Condition::Gt(kDate, month_first)};
  if (precision == DatePrecision::kDay)
    month.push_back(Condition::Eq(kDate, month_first));
  earlier.push_back(
      Condition::And({PrecisionIs(kPrecision, DatePrecision::kMonth),
                      Condition::Or(std::move(month))}));
  std::vector<Condition> year = {Condition::Gt(kDate, year_first)};
  if (precision != DatePrecision::kYear)
    year.push_back(Condition::Eq(kDate, year_first));
  earlier.push_back(
      Condition::And({PrecisionIs(kPrecision, DatePrecision::kYear),
                      Condition::Or(std::move(year))}));
  Condition condition = Condition::And(
      {Condition::Exists("PK"), Condition::Or(std::move(earlier))});
  WriteResult write = table_.UpdateItem(NovaKey(nova_id), update, condition);
  if (write.applied())
    return {DiscoveryDateResult::Status::kUpdated, date, precision};
  std::optional<Nova> nova = GetNova(nova_id);
  if (!nova) return {DiscoveryDateResult::Status::kNotFound, std::nullopt};
  return {DiscoveryDateResult::Status::kUnchanged, nova->discovery_date,
          nova->discovery_date_precision};
}

// ---------------------------------------------------------------------------
// discover_spectra_products.

std::vector<Dataset> Repository::ListProviderDatasets(std::string_view nova_id,
                                                      std::string_view provider,
                                                      DatasetType type) {
  CheckPart("ListProviderDatasets", "nova_id", nova_id);
  CheckPart("ListProviderDatasets", "provider", provider);
  return ReadAll<Dataset>(
      table_.QueryAll(PrefixQuery(Index::kTable, NovaKey(nova_id).pk,
                                  DatasetPrefix(type, provider))),
      "Dataset");
}

std::vector<Dataset> Repository::ListNovaDatasets(std::string_view nova_id) {
  CheckPart("ListNovaDatasets", "nova_id", nova_id);
  return ReadAll<Dataset>(table_.QueryAll(PrefixQuery(
                              Index::kTable, NovaKey(nova_id).pk, "DATASET#")),
                          "Dataset");
}

CreateResult Repository::CreateDataset(const Dataset& dataset) {
  const char* op = "CreateDataset";
  CheckDatasetKey(op, dataset.key());
  CheckText(op, "provider_identity", dataset.provider_identity);
  CheckText(op, "created_at", dataset.created_at);
  CheckText(op, "updated_at", dataset.updated_at);
  if (dataset.eligibility) CheckPart(op, "eligibility", *dataset.eligibility);
  WriteResult write = table_.PutItem(
      dataset.ToItem(),
      Condition::And({Condition::NotExists("PK"), Condition::NotExists("SK")}));
  if (write.applied()) return CreateResult::kCreated;
  std::optional<Dataset> current = GetDataset(dataset.key());
  // Datasets are never deleted.
  if (!current)
    throw RetryableError("CreateDataset " + dataset.key().ToKey().sk +
                         ": refused, then not found");
  return SameDatasetIdentity(*current, dataset) ? CreateResult::kAlreadyExists
                                                : CreateResult::kConflict;
}

UpdateOutcome Repository::UpdateDataset(
    const char* operation, const DatasetKey& key, const Update& update,
    const std::optional<std::string>& lease_owner) {
  CheckDatasetKey(operation, key);
  std::vector<Condition> all{Condition::Exists("PK")};
  if (lease_owner) {
    CheckPart(operation, "lease_owner", *lease_owner);
    all.push_back(
        Condition::Eq(kProcessingStatus,
                      ProcessingStatusName(ProcessingStatus::kInProgress)));
    all.push_back(Condition::Eq(kLeaseOwner, *lease_owner));
  }
  WriteResult write =
      table_.UpdateItem(key.ToKey(), update, Condition::And(std::move(all)));
  if (write.applied()) return UpdateOutcome::kUpdated;
  if (!lease_owner) return UpdateOutcome::kNotFound;
  return table_.GetItem(key.ToKey()) ? UpdateOutcome::kNotLeaseHolder
                                     : UpdateOutcome::kNotFound;
}

UpdateOutcome Repository::UpdateDatasetLocators(const DatasetKey& key,
                                                const DatasetLocators& locators,
                                                const std::string& updated_at) {
  CheckText("UpdateDatasetLocators", "updated_at", updated_at);
  Update update;
  update.set["locators"] = locators.locators;
  SetOrRemove(update, "hints", locators.hints);
  update.set["updated_at"] = updated_at;
  return UpdateDataset("UpdateDatasetLocators", key, update, std::nullopt);
}

UpdateOutcome Repository::SetDownloadEligibility(
    const DatasetKey& key, const std::optional<std::string>& eligibility,
    const std::string& updated_at,
    const std::optional<std::string>& lease_owner) {
  const char* op = "SetDownloadEligibility";
  CheckText(op, "updated_at", updated_at);
  Update update;
  if (eligibility) {
    CheckPart(op, "eligibility", *eligibility);
    SetEligibility(update, key, *eligibility);
  } else {
    update.remove = {"eligibility", "GSI1PK", "GSI1SK"};
  }
  update.set["updated_at"] = updated_at;
  return UpdateDataset(op, key, update, lease_owner);
}

// ---------------------------------------------------------------------------
// download_and_validate_spectra / ingest_photometry_dataset.

RequeueResult Repository::RequeueDataset(const DatasetKey& key, int64_t now,
                                         const std::string& updated_at) {
  const char* op = "RequeueDataset";
  CheckDatasetKey(op, key);
  CheckText(op, "updated_at", updated_at);
  if (key.type != DatasetType::kSpectra)
    throw TerminalError(std::string(op) + ": dataset " + key.dataset_id +
                        " is " + DatasetTypeName(key.type) +
                        ": only a SPECTRA dataset is download-eligible");
  Update update;
  update.set[kProcessingStatus] =
      ProcessingStatusName(ProcessingStatus::kReady);
  SetEligibility(update, key, kEligibilityDownload);
  update.set["updated_at"] = updated_at;
  update.remove = {kFailedRuns, kLeaseOwner, kLeaseExpiresAt};
  Condition condition = Condition::And(
      {Condition::Exists("PK"),
       Condition::Or(
           {Condition::In(
                kProcessingStatus,
                {ProcessingStatusName(ProcessingStatus::kQuarantined),
                 ProcessingStatusName(ProcessingStatus::kFailedTerminal),
                 ProcessingStatusName(ProcessingStatus::kFailedRetryable)}),
            Condition::And({Condition::Eq(kProcessingStatus,
                                          ProcessingStatusName(
                                              ProcessingStatus::kInProgress)),
                            Condition::Lt(kLeaseExpiresAt, now)})})});
  if (table_.UpdateItem(key.ToKey(), update, condition).applied())
    return {RequeueResult::Status::kRequeued, ProcessingStatus::kReady};
  std::optional<Dataset> current = GetDataset(key);
  if (!current) return {RequeueResult::Status::kNotFound, std::nullopt};
  // A retry whose first write landed finds exactly what it wrote.
  if (current->processing_status == ProcessingStatus::kReady &&
      current->eligibility == kEligibilityDownload && !current->failed_runs &&
      current->updated_at == updated_at)
    return {RequeueResult::Status::kRequeued, ProcessingStatus::kReady};
  return {RequeueResult::Status::kNotRequeueable, current->processing_status};
}

std::vector<Dataset> Repository::QueryEligibleDatasets(
    std::string_view nova_id) {
  CheckPart("QueryEligibleDatasets", "nova_id", nova_id);
  return ReadAll<Dataset>(
      table_.QueryAll(PrefixQuery(Index::kGsi1, NovaKey(nova_id).pk,
                                  EligibilityPrefix(kEligibilityDownload))),
      "Dataset");
}

LeaseResult Repository::AcquireDatasetLease(const DatasetKey& key,
                                            const std::string& owner,
                                            int64_t now,
                                            int64_t lease_seconds) {
  const char* op = "AcquireDatasetLease";
  CheckDatasetKey(op, key);
  CheckPart(op, "owner", owner);
  if (lease_seconds <= 0)
    throw TerminalError(std::string(op) + ": lease_seconds must be > 0");
  const char* in_progress = ProcessingStatusName(ProcessingStatus::kInProgress);
  Condition condition = Condition::And(
      {Condition::Exists("PK"),
       Condition::Or(
           {Condition::NotExists(kProcessingStatus),
            Condition::In(
                kProcessingStatus,
                {ProcessingStatusName(ProcessingStatus::kReady),
                 ProcessingStatusName(ProcessingStatus::kFailedRetryable)}),
            Condition::And({Condition::Eq(kProcessingStatus, in_progress),
                            Condition::Lt(kLeaseExpiresAt, now)}),
            Condition::And({Condition::Eq(kProcessingStatus, in_progress),
                            Condition::Eq(kLeaseOwner, owner)})})});
  Update update;
  update.set[kProcessingStatus] = in_progress;
  update.set[kLeaseOwner] = owner;
  update.set[kLeaseExpiresAt] = now + lease_seconds;
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (table_.UpdateItem(key.ToKey(), update, condition).applied())
      return {LeaseResult::Status::kAcquired, owner, now + lease_seconds,
              ProcessingStatus::kInProgress};
    std::optional<Item> current = table_.GetItem(key.ToKey());
    if (!current) return {LeaseResult::Status::kNotFound, "", 0, std::nullopt};
    // The holder released (or the lease expired) between the refusal and
    // the read: try again rather than answer with a stale refusal.
    if (EvaluateCondition(condition, current)) continue;
    Dataset dataset = Read<Dataset>(*current, "Dataset");
    if (dataset.processing_status == ProcessingStatus::kInProgress)
      return {LeaseResult::Status::kHeldByOther,
              dataset.lease_owner.value_or(""),
              dataset.lease_expires_at.value_or(0), dataset.processing_status};
    return {LeaseResult::Status::kNotAcquirable, "", 0,
            dataset.processing_status};
  }
  throw RetryableError(std::string(op) + " " + key.ToKey().sk +
                       ": the lease changed hands during every attempt");
}

ReleaseResult Repository::ReleaseDatasetLease(const DatasetKey& key,
                                              const std::string& owner,
                                              ProcessingStatus next,
                                              const std::string& updated_at,
                                              int64_t failed_runs) {
  const char* op = "ReleaseDatasetLease";
  CheckDatasetKey(op, key);
  CheckPart(op, "owner", owner);
  CheckText(op, "updated_at", updated_at);
  if (next == ProcessingStatus::kInProgress)
    throw TerminalError(std::string(op) +
                        ": cannot release a lease into IN_PROGRESS");
  if (failed_runs < 0)
    throw TerminalError(std::string(op) + ": failed_runs must be >= 0");
  Update update;
  update.set[kProcessingStatus] = ProcessingStatusName(next);
  update.set["updated_at"] = updated_at;
  update.remove = {kLeaseOwner, kLeaseExpiresAt};
  if (failed_runs > 0)
    update.set[kFailedRuns] = failed_runs;
  else
    update.remove.push_back(kFailedRuns);
  Condition condition = Condition::And(
      {Condition::Eq(kProcessingStatus,
                     ProcessingStatusName(ProcessingStatus::kInProgress)),
       Condition::Eq(kLeaseOwner, owner)});
  if (table_.UpdateItem(key.ToKey(), update, condition).applied())
    return ReleaseResult::kReleased;
  std::optional<Dataset> current = GetDataset(key);
  if (!current) return ReleaseResult::kNotFound;
  if (current->processing_status == next && !current->lease_owner)
    return ReleaseResult::kReleased;
  return ReleaseResult::kNotHeld;
}

UpdateOutcome Repository::PutFingerprints(
    const DatasetKey& key, const Fingerprints& fingerprints,
    const std::string& updated_at,
    const std::optional<std::string>& lease_owner) {
  const char* op = "PutFingerprints";
  if (fingerprints.byte_length < 0)
    throw TerminalError(std::string(op) + ": byte_length must be >= 0");
  if (fingerprints.etag) CheckText(op, "etag", *fingerprints.etag);
  if (!IsLowerHex64(fingerprints.sha256))
    throw TerminalError(std::string(op) +
                        ": sha256 must be 64 lower-case hex digits");
  CheckText(op, "header_signature", fingerprints.header_signature);
  CheckText(op, "updated_at", updated_at);
  Update update;
  update.set["byte_length"] = fingerprints.byte_length;
  SetOrRemove(update, "etag", fingerprints.etag);
  update.set["sha256"] = fingerprints.sha256;
  SetOrRemove(update, "fits_checksum", fingerprints.fits_checksum);
  update.set["header_signature"] = fingerprints.header_signature;
  update.set["updated_at"] = updated_at;
  return UpdateDataset(op, key, update, lease_owner);
}

UpdateOutcome Repository::PutValidationResult(
    const DatasetKey& key, const ValidationOutcome& outcome,
    const std::string& updated_at,
    const std::optional<std::string>& lease_owner) {
  const char* op = "PutValidationResult";
  CheckText(op, "updated_at", updated_at);
  bool quarantined = outcome.status == ValidationStatus::kQuarantined;
  if (quarantined != outcome.quarantine_reason_code.has_value())
    throw TerminalError(std::string(op) +
                        ": quarantine_reason_code is required for "
                        "QUARANTINED and only for it");
  if (outcome.quarantine_reason_code)
    CheckText(op, "quarantine_reason_code", *outcome.quarantine_reason_code);
  Update update;
  update.set["validation_status"] = ValidationStatusName(outcome.status);
  SetOrRemove(update, "quarantine_reason_code", outcome.quarantine_reason_code);
  SetOrRemove(update, "validation_details", outcome.details);
  SetOrRemove(update, "profile_selection", outcome.profile_selection);
  update.set["updated_at"] = updated_at;
  return UpdateDataset(op, key, update, lease_owner);
}

namespace {

void CheckFileObject(const char* op, const FileObject& file) {
  CheckDatasetKey(op, file.dataset_key());
  CheckPart(op, "file_id", file.file_id);
  CheckPart(op, "bucket", file.bucket);
  CheckText(op, "key", file.key);
  CheckText(op, "created_at", file.created_at);
}

}  // namespace

void Repository::PutFileObject(const FileObject& file) {
  CheckFileObject("PutFileObject", file);
  table_.PutItem(file.ToItem(), std::nullopt);
}

UpdateOutcome Repository::PutFileObject(const FileObject& file,
                                        const std::string& lease_owner) {
  const char* op = "PutFileObject";
  CheckFileObject(op, file);
  CheckPart(op, "lease_owner", lease_owner);
  std::optional<Dataset> dataset = GetDataset(file.dataset_key());
  if (!dataset) return UpdateOutcome::kNotFound;
  if (dataset->processing_status != ProcessingStatus::kInProgress ||
      dataset->lease_owner != lease_owner || !dataset->lease_expires_at)
    return UpdateOutcome::kNotLeaseHolder;
  FileObject fenced = file;
  fenced.lease_fence = *dataset->lease_expires_at;
  WriteResult write = table_.PutItem(
      fenced.ToItem(),
      Condition::Or({Condition::NotExists("PK"),
                     Condition::NotExists("lease_fence"),
                     Condition::Le("lease_fence", *fenced.lease_fence)}));
  return write.applied() ? UpdateOutcome::kUpdated
                         : UpdateOutcome::kNotLeaseHolder;
}

std::vector<FileObject> Repository::ListFileObjects(
    std::string_view nova_id, std::string_view dataset_id) {
  CheckPart("ListFileObjects", "nova_id", nova_id);
  CheckPart("ListFileObjects", "dataset_id", dataset_id);
  return ReadAll<FileObject>(
      table_.QueryAll(PrefixQuery(Index::kTable, NovaKey(nova_id).pk,
                                  "FILE#" + std::string(dataset_id) + "#")),
      "FileObject");
}

std::vector<FileObject> Repository::FindByS3Object(std::string_view bucket,
                                                   std::string_view key) {
  CheckPart("FindByS3Object", "bucket", bucket);
  CheckText("FindByS3Object", "key", key);
  QueryRequest request;
  request.index = Index::kGsi3;
  request.partition_key = "S3#" + std::string(bucket);
  request.sort_key_equals = std::string(key);
  return ReadAll<FileObject>(table_.QueryAll(request), "FileObject");
}

std::optional<Dataset> Repository::GetDataset(const DatasetKey& key) {
  CheckDatasetKey("GetDataset", key);
  std::optional<Item> item = table_.GetItem(key.ToKey());
  if (!item) return std::nullopt;
  return Read<Dataset>(*item, "Dataset");
}

UpdateOutcome Repository::UpdateIngestionStatus(
    const DatasetKey& key, const IngestionUpdate& update,
    const std::string& updated_at,
    const std::optional<std::string>& lease_owner) {
  const char* op = "UpdateIngestionStatus";
  CheckText(op, "ingestion_status", update.ingestion_status);
  CheckText(op, "updated_at", updated_at);
  Update u;
  u.set["ingestion_status"] = update.ingestion_status;
  if (update.artifacts) u.set["artifacts"] = *update.artifacts;
  u.set["updated_at"] = updated_at;
  return UpdateDataset(op, key, u, lease_owner);
}

}  // namespace novacat::store
