// The step logic of workflow download_and_validate_spectra, written by hand
// (see steps.hpp).
#include "download_and_validate_spectra/steps.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "novacat/domain/spectra.h"
#include "novacat/fits/spectrum.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/failure.h"

namespace novacat::download_and_validate_spectra {

namespace {

using nlohmann::json;
using runtime::ErrorClass;
using store::DatasetKey;
using store::DatasetType;
using store::ProcessingStatus;
using store::UpdateOutcome;
using store::ValidationStatus;
using workflows::Fail;
using workflows::Required;
using workflows::RequireHeld;

// The spec's failure cases (specs/download_and_validate_spectra.yaml).
constexpr std::string_view kMissingLocator = "missing_locator";
constexpr std::string_view kProductUnavailable = "product_unavailable";
constexpr std::string_view kChecksumMismatch = "checksum_mismatch";
constexpr std::string_view kInvalidSpectrumContent = "invalid_spectrum_content";

constexpr char kRawFile[] = "raw";
constexpr char kFitsContentType[] = "application/fits";

// The item's dataset: {dataset_id, provider} as QueryEligibleDatasets made
// it, under the item's nova.
DatasetKey ItemDataset(const DownloadDatasetsItem& item,
                       std::string_view state) {
  const std::string& nova_id = Required(item.nova_id, state, "nova_id");
  const json* dataset = item.dataset ? &*item.dataset : nullptr;
  auto member = [&](const char* name) -> std::string {
    if (dataset == nullptr || !dataset->is_object() ||
        !dataset->contains(name) || !(*dataset)[name].is_string() ||
        (*dataset)[name].get_ref<const std::string&>().empty())
      throw runtime::TerminalError(std::string(state) +
                                   ": the item's dataset has no " + name);
    return (*dataset)[name].get<std::string>();
  };
  return {nova_id, DatasetType::kSpectra, member("provider"),
          member("dataset_id")};
}

store::Dataset ReadDataset(store::Repository& repository, const DatasetKey& key,
                           std::string_view state) {
  std::optional<store::Dataset> dataset = repository.GetDataset(key);
  // Datasets are never deleted: eligible a moment ago, gone now.
  if (!dataset)
    throw runtime::TerminalError(std::string(state) + ": dataset " +
                                 key.dataset_id + " of nova " + key.nova_id +
                                 " does not exist");
  return *dataset;
}

template <typename T>
T& Configured(T* world_part, const char* name) {
  if (world_part == nullptr)
    throw runtime::TerminalError(
        std::string("the Environment has no ") + name +
        " (download_and_validate_spectra needs a downloader and an object "
        "store)");
  return *world_part;
}

// A file in the scratch folder, removed when it goes out of scope.
struct ScratchFile {
  std::filesystem::path path;
  ~ScratchFile() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove(path, ignored);
  }
};

// raw/<nova>/<dataset>/<sha256>.fits, for every product: the object holds
// the bytes as the provider served them, whose SHA-256 names it, also when
// they are gzip-compressed FITS (MAST's IUE *.mxlo.gz; CheckSpectrum tells
// them by their first bytes and records "compression": "gzip" in the
// validation details and profile_selection). The key stays a function of
// the dataset and the hash alone, never of the content, and FITS readers
// (cfitsio, astropy) recognise a gzip-compressed file by its bytes, not its
// name. The content type stays application/fits too, never with
// Content-Encoding: gzip, which would have clients decompress the bytes the
// hash is of.
std::string ObjectKey(const DatasetKey& key, std::string_view sha256) {
  return "raw/" + key.nova_id + "/" + key.dataset_id + "/" +
         std::string(sha256) + ".fits";
}

// What CheckSpectrum gets of the provider (recorded in the dataset's
// profile_selection): its name and the hints discovery stored (e.g.
// {"provider": "ESO", "instrument": "UVES"}).
json ProviderHints(const store::Dataset& dataset) {
  json hints = json::object();
  if (dataset.hints && dataset.hints->is_object()) hints = *dataset.hints;
  hints["provider"] = dataset.provider;
  return hints;
}

std::optional<std::string> ProviderChecksum(const store::Dataset& dataset) {
  if (!dataset.locators.is_object()) return std::nullopt;
  auto it = dataset.locators.find("sha256");
  if (it == dataset.locators.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// A dataset already VALID with these bytes: nothing to redo.
bool AlreadyValid(const store::Dataset& dataset, std::string_view sha256) {
  return dataset.validation_status == ValidationStatus::kValid &&
         dataset.sha256 == sha256 && dataset.header_signature &&
         !dataset.header_signature->empty();
}

[[noreturn]] void FailFetch(const transfer::FetchError& error) {
  switch (error.failure()) {
    case transfer::FetchFailure::kBadLocator:
      Fail(ErrorClass::kTerminal, kMissingLocator, error.what());
    case transfer::FetchFailure::kNotFound:
      Fail(ErrorClass::kQuarantine, kProductUnavailable,
           std::string("NOT_FOUND: ") + error.what());
    case transfer::FetchFailure::kRefused:
      Fail(ErrorClass::kQuarantine, kProductUnavailable,
           std::string("REFUSED: ") + error.what());
    case transfer::FetchFailure::kTooLarge:
      Fail(ErrorClass::kQuarantine, kProductUnavailable,
           std::string("TOO_LARGE: ") + error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

const char* LeaseStatusOf(store::LeaseResult::Status status) {
  switch (status) {
    case store::LeaseResult::Status::kAcquired:
      return "ACQUIRED";
    case store::LeaseResult::Status::kHeldByOther:
      return "HELD_BY_OTHER";
    case store::LeaseResult::Status::kNotAcquirable:
    case store::LeaseResult::Status::kNotFound:
      break;
  }
  return "NOT_ACQUIRABLE";
}

}  // namespace

std::unique_ptr<DownloadAndValidateSpectraSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

QueryEligibleDatasetsOutput Steps::QueryEligibleDatasets(
    const DownloadAndValidateSpectraState& state,
    runtime::StepContext& context) {
  const std::string& nova_id =
      Required(state.nova_id, "QueryEligibleDatasets", "nova_id");
  QueryEligibleDatasetsOutput out;
  out.datasets.emplace();
  for (const store::Dataset& d :
       env_.repository.QueryEligibleDatasets(nova_id)) {
    // Photometry datasets are ingest_photometry_dataset's.
    if (d.type != DatasetType::kSpectra) continue;
    out.datasets->push_back(
        json{{"dataset_id", d.dataset_id}, {"provider", d.provider}});
  }
  out.eligible_count = static_cast<int64_t>(out.datasets->size());
  context.Log("eligible datasets queried",
              {{"eligible_count", *out.eligible_count}});
  return out;
}

AcquireDatasetLeaseOutput Steps::AcquireDatasetLease(
    const DownloadDatasetsItem& item, runtime::StepContext& context) {
  constexpr std::string_view kState = "AcquireDatasetLease";
  DatasetKey key = ItemDataset(item, kState);
  const std::string& owner = Required(item.job_run_id, kState, "job_run_id");
  store::LeaseResult lease = env_.repository.AcquireDatasetLease(
      key, owner, context.now, kLeaseSeconds);
  AcquireDatasetLeaseOutput out;
  out.dataset_id = key.dataset_id;
  out.lease_status = LeaseStatusOf(lease.status);
  json fields = {{"dataset_id", key.dataset_id},
                 {"lease_status", *out.lease_status}};
  if (lease.status == store::LeaseResult::Status::kHeldByOther) {
    fields["lease_owner"] = lease.owner;
    fields["lease_expires_at"] = lease.expires_at;
  }
  context.Log("dataset lease", fields);
  return out;
}

DownloadSpectrumOutput Steps::DownloadSpectrum(const DownloadDatasetsItem& item,
                                               runtime::StepContext& context) {
  constexpr std::string_view kState = "DownloadSpectrum";
  DatasetKey key = ItemDataset(item, kState);
  const std::string& owner = Required(item.job_run_id, kState, "job_run_id");
  transfer::Downloader& downloads = Configured(env_.downloads, "downloader");
  transfer::ObjectStore& objects = Configured(env_.objects, "object store");
  store::Dataset dataset = ReadDataset(env_.repository, key, kState);
  // A run that lost the lease downloads nothing (no retry wins it back).
  if (dataset.lease_owner != owner ||
      dataset.processing_status != ProcessingStatus::kInProgress)
    workflows::LeaseLost(kState, "the lease is no longer this run's", key);

  std::optional<std::string> locator =
      domain::DownloadLocator(key.provider, dataset.locators);
  if (!locator)
    Fail(ErrorClass::kTerminal, kMissingLocator,
         "dataset " + key.dataset_id + " (" + key.provider +
             ") has no url and no provider key to fetch");

  std::filesystem::create_directories(env_.scratch);
  ScratchFile file;
  transfer::Fetched fetched;
  try {
    fetched = downloads.Fetch(*locator, env_.scratch);
  } catch (const transfer::FetchError& e) {
    FailFetch(e);
  }
  file.path = fetched.file;

  DownloadSpectrumOutput out;
  out.sha256 = fetched.sha256;
  out.byte_length = fetched.byte_length;
  out.etag = fetched.etag;
  out.object_key = ObjectKey(key, fetched.sha256);
  const std::string now = runtime::FormatTimestamp(context.now);
  json fields = {{"dataset_id", key.dataset_id},
                 {"sha256", fetched.sha256},
                 {"byte_length", fetched.byte_length}};

  if (AlreadyValid(dataset, fetched.sha256)) {
    context.Log("dataset already valid with these bytes", fields);
    return out;
  }
  if (std::optional<std::string> expected = ProviderChecksum(dataset);
      expected && *expected != fetched.sha256) {
    // What was fetched, for the review (the fingerprints proper need the
    // FITS header, which bytes this wrong are not read for).
    store::ValidationOutcome outcome;
    outcome.status = ValidationStatus::kQuarantined;
    outcome.quarantine_reason_code = "CHECKSUM_MISMATCH";
    outcome.details = json{{"locator", *locator},
                           {"expected_sha256", *expected},
                           {"sha256", fetched.sha256},
                           {"byte_length", fetched.byte_length},
                           {"etag", fetched.etag}};
    RequireHeld(env_.repository.PutValidationResult(key, outcome, now, owner),
                kState, "PutValidationResult", key);
    Fail(ErrorClass::kQuarantine, kChecksumMismatch,
         "CHECKSUM_MISMATCH: sha256 " + fetched.sha256 + " of " + *locator +
             " differs from the provider's " + *expected);
  }

  transfer::StoredObject stored =
      objects.Put(*out.object_key, fetched.file, kFitsContentType);
  store::FileObject object;
  object.nova_id = key.nova_id;
  object.dataset_type = key.type;
  object.provider = key.provider;
  object.dataset_id = key.dataset_id;
  object.file_id = kRawFile;
  object.bucket = stored.bucket;
  object.key = stored.key;
  object.byte_length = fetched.byte_length;
  object.sha256 = fetched.sha256;
  object.content_type = kFitsContentType;
  object.created_at = now;
  RequireHeld(env_.repository.PutFileObject(object, owner), kState,
              "PutFileObject", key);
  fields["object_key"] = *out.object_key;
  context.Log("spectrum downloaded", fields);
  return out;
}

ValidateSpectrumOutput Steps::ValidateSpectrum(const DownloadDatasetsItem& item,
                                               runtime::StepContext& context) {
  constexpr std::string_view kState = "ValidateSpectrum";
  DatasetKey key = ItemDataset(item, kState);
  const std::string& owner = Required(item.job_run_id, kState, "job_run_id");
  const std::string& sha256 = Required(item.sha256, kState, "sha256");
  const std::string& object_key =
      Required(item.object_key, kState, "object_key");
  transfer::ObjectStore& objects = Configured(env_.objects, "object store");
  store::Dataset dataset = ReadDataset(env_.repository, key, kState);
  const std::string now = runtime::FormatTimestamp(context.now);
  ValidateSpectrumOutput out;

  auto complete = [&] {
    RequireHeld(
        env_.repository.SetDownloadEligibility(key, std::nullopt, now, owner),
        kState, "SetDownloadEligibility", key);
    store::ReleaseResult released = env_.repository.ReleaseDatasetLease(
        key, owner, ProcessingStatus::kCompleted, now);
    if (released != store::ReleaseResult::kReleased)
      workflows::LeaseLost(kState, "ReleaseDatasetLease", key);
    out.validation_status = "VALID";
    out.quarantine_reason_code = std::optional<std::string>();
    context.Log("spectrum valid",
                {{"dataset_id", key.dataset_id}, {"sha256", sha256}});
    return out;
  };
  if (AlreadyValid(dataset, sha256)) return complete();

  std::filesystem::create_directories(env_.scratch);
  ScratchFile file;
  std::optional<transfer::Fetched> fetched =
      objects.Get(object_key, env_.scratch);
  if (!fetched)
    throw runtime::RetryableError(std::string(kState) + ": object " +
                                  object_key + " is not in bucket " +
                                  objects.bucket() + " (yet)");
  file.path = fetched->file;
  if (fetched->sha256 != sha256)
    throw runtime::RetryableError(std::string(kState) + ": object " +
                                  object_key + " has sha256 " +
                                  fetched->sha256 + ", not " + sha256);

  fits::SpectrumCheck check =
      fits::CheckSpectrum(fetched->file, ProviderHints(dataset));
  store::Fingerprints fingerprints;
  fingerprints.byte_length = fetched->byte_length;
  if (item.etag && !item.etag->empty()) fingerprints.etag = *item.etag;
  fingerprints.sha256 = sha256;
  fingerprints.fits_checksum = check.fits_checksum;
  // Bytes that are not FITS have no header to sign: they get no
  // fingerprints (the repository requires the signature), only the verdict.
  if (check.profile) {
    fingerprints.header_signature = check.profile->header_signature;
    RequireHeld(env_.repository.PutFingerprints(key, fingerprints, now, owner),
                kState, "PutFingerprints", key);
  }

  store::ValidationOutcome outcome;
  outcome.details = check.ToJson();
  if (check.profile) outcome.profile_selection = check.profile->ToJson();
  if (check.valid()) {
    outcome.status = ValidationStatus::kValid;
    RequireHeld(env_.repository.PutValidationResult(key, outcome, now, owner),
                kState, "PutValidationResult", key);
    return complete();
  }
  const std::string code = fits::ReasonCode(*check.problem);
  outcome.status = ValidationStatus::kQuarantined;
  outcome.quarantine_reason_code = code;
  RequireHeld(env_.repository.PutValidationResult(key, outcome, now, owner),
              kState, "PutValidationResult", key);
  Fail(ErrorClass::kQuarantine, kInvalidSpectrumContent,
       code + ": " + check.detail);
}

RecordDatasetFailureOutput Steps::RecordDatasetFailure(
    const DownloadDatasetsItem& item, runtime::StepContext& context) {
  constexpr std::string_view kState = "RecordDatasetFailure";
  DatasetKey key = ItemDataset(item, kState);
  const std::string& owner = Required(item.job_run_id, kState, "job_run_id");
  workflows::CaughtError caught =
      workflows::ClassifyCaughtError(item.error, kState);
  const std::string now = runtime::FormatTimestamp(context.now);

  store::ValidationOutcome& outcome = caught.outcome;
  outcome.details = json{{"error", caught.error}, {"cause", caught.cause}};

  // Not ours (the item failed before or while taking the lease, or lost
  // it): the dataset belongs to its holder, nothing is written.
  std::optional<store::Dataset> dataset =
      workflows::LeaseHeldBy(env_.repository, key, owner);
  // This run's place in the dataset's runs in a row ending RETRYABLE; at
  // the limit the dataset is quarantined for a person to review, the run
  // named in the details (so that a retry of this step after its release
  // landed still answers QUARANTINED).
  int64_t failed_runs = 0;
  auto exhausted = [&](int64_t runs) {
    outcome.status = ValidationStatus::kQuarantined;
    outcome.quarantine_reason_code = kRetriesExhaustedReason;
    (*outcome.details)["failed_runs"] = runs;
    (*outcome.details)["job_run_id"] = owner;
    caught.next = ProcessingStatus::kQuarantined;
  };
  if (caught.next == ProcessingStatus::kFailedRetryable) {
    if (dataset) {
      failed_runs = dataset->failed_runs.value_or(0) + 1;
      if (failed_runs >= kMaxFailedRuns) exhausted(failed_runs);
    } else if (std::optional<store::Dataset> ended =
                   env_.repository.GetDataset(key);
               ended && ended->failed_runs &&
               ended->quarantine_reason_code == kRetriesExhaustedReason &&
               ended->validation_details &&
               ended->validation_details->value("job_run_id", "") == owner) {
      exhausted(*ended->failed_runs);
    }
  }
  const ProcessingStatus next = caught.next;
  const bool leaves_eligibility = next != ProcessingStatus::kFailedRetryable;

  RecordDatasetFailureOutput out;
  if (!dataset) {
    // Another run holds the lease now: the dataset is its; this run neither
    // records nor knows its status, and the item counts as skipped.
    if (std::optional<store::Dataset> now_held =
            env_.repository.GetDataset(key);
        now_held &&
        now_held->processing_status == ProcessingStatus::kInProgress &&
        now_held->lease_owner != owner) {
      out.lease_status = "LOST";
      context.Log("dataset failure not recorded: the lease is another run's",
                  {{"dataset_id", key.dataset_id},
                   {"lease_status", *out.lease_status},
                   {"error", caught.error}});
      return out;
    }
  }
  out.validation_status = store::ValidationStatusName(outcome.status);
  out.quarantine_reason_code = outcome.quarantine_reason_code;
  json fields = {{"dataset_id", key.dataset_id},
                 {"validation_status", *out.validation_status}};
  if (outcome.quarantine_reason_code)
    fields["quarantine_reason_code"] = *outcome.quarantine_reason_code;
  if (!dataset) {
    // Not leased by anyone: the item failed before it took the lease, or
    // this is a retry whose release landed. Nothing is written.
    context.Log("dataset failure not recorded: the lease is not this run's",
                fields);
    return out;
  }
  // ValidateSpectrum's own quarantine (with the check's details and
  // profile) is kept as written.
  bool written =
      dataset->validation_status == outcome.status &&
      dataset->quarantine_reason_code == outcome.quarantine_reason_code &&
      outcome.status == ValidationStatus::kQuarantined;
  if (!written)
    RequireHeld(env_.repository.PutValidationResult(key, outcome, now, owner),
                kState, "PutValidationResult", key);
  if (leaves_eligibility)
    RequireHeld(
        env_.repository.SetDownloadEligibility(key, std::nullopt, now, owner),
        kState, "SetDownloadEligibility", key);
  store::ReleaseResult released =
      env_.repository.ReleaseDatasetLease(key, owner, next, now, failed_runs);
  if (released == store::ReleaseResult::kNotHeld)
    context.Log("dataset lease lost before its failure was recorded", fields);
  context.Log("dataset failure recorded", fields);
  return out;
}

SummarizeDownloadsOutput Steps::SummarizeDownloads(
    const DownloadAndValidateSpectraState& state,
    runtime::StepContext& context) {
  constexpr std::string_view kState = "SummarizeDownloads";
  if (!state.download_results)
    throw runtime::TerminalError(std::string(kState) +
                                 ": the document has no download_results");
  SummarizeDownloadsOutput out;
  out.valid_dataset_ids.emplace();
  int64_t quarantined = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < state.download_results->size(); ++i) {
    const json& r = (*state.download_results)[i];
    std::string status = r.is_object() ? r.value("validation_status", "") : "";
    std::string lease = r.is_object() ? r.value("lease_status", "") : "";
    if (status == "VALID") {
      out.valid_dataset_ids->push_back(r.value("dataset_id", ""));
    } else if (status == "QUARANTINED") {
      ++quarantined;
    } else if (status == "RETRYABLE_ERROR" || status == "TERMINAL_INVALID") {
      ++failed;
    } else if (!lease.empty() && lease != "ACQUIRED") {
      ++skipped;
    } else if (r.is_object() && r.contains("error")) {
      // RecordDatasetFailure failed too (DatasetFailureUnrecorded): the
      // dataset keeps its lease until it expires, then is taken again.
      ++failed;
    } else {
      throw runtime::TerminalError(
          std::string(kState) + ": download_results[" + std::to_string(i) +
          "] has neither a validation_status nor a skipped lease");
    }
  }
  out.valid_count = static_cast<int64_t>(out.valid_dataset_ids->size());
  out.quarantined_count = quarantined;
  out.failed_count = failed;
  out.skipped_count = skipped;
  context.Log("downloads summarized", {{"valid_count", *out.valid_count},
                                       {"quarantined_count", quarantined},
                                       {"failed_count", failed},
                                       {"skipped_count", skipped}});
  return out;
}

}  // namespace novacat::download_and_validate_spectra
