// The step logic of workflow ingest_photometry_dataset, written by hand
// (see steps.hpp).
#include "ingest_photometry_dataset/steps.hpp"

#include <charconv>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "novacat/domain/spectra.h"
#include "novacat/domain/uuid.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/transfer/download.h"
#include "novacat/workflows/failure.h"

namespace novacat::ingest_photometry_dataset {

namespace {

using nlohmann::json;
using runtime::ErrorClass;
using store::DatasetKey;
using store::DatasetType;
using store::ProcessingStatus;
using store::ValidationStatus;
using workflows::Fail;
using workflows::Required;
using workflows::RequireHeld;

// The spec's failure cases (specs/ingest_photometry_dataset.yaml).
constexpr std::string_view kUnknownObject = "unknown_object";
constexpr std::string_view kAmbiguousObject = "ambiguous_object";
constexpr std::string_view kInvalidPhotometry = "invalid_photometry";

constexpr char kRawFile[] = "raw";
constexpr char kLightCurve[] = "light_curve";
constexpr char kCsvContentType[] = "text/csv";
constexpr char kFitsContentType[] = "application/fits";
constexpr char kIngested[] = "INGESTED";

std::string S3Url(const std::string& bucket, const std::string& key) {
  return "s3://" + bucket + "/" + key;
}

// The state's dataset, as ResolveS3Object found it.
DatasetKey StateDataset(const IngestPhotometryDatasetState& state,
                        std::string_view step) {
  return {Required(state.nova_id, step, "nova_id"), DatasetType::kPhotometry,
          Required(state.provider, step, "provider"),
          Required(state.dataset_id, step, "dataset_id")};
}

[[noreturn]] void FailGone(const DatasetKey& key) {
  // Datasets are never deleted: mapped a moment ago, gone now.
  Fail(ErrorClass::kTerminal, kUnknownObject,
       "dataset " + key.dataset_id + " of nova " + key.nova_id +
           " no longer exists");
}

// Files in the scratch folder, removed when this goes out of scope.
class ScratchFiles {
 public:
  ScratchFiles() = default;
  ScratchFiles(const ScratchFiles&) = delete;
  ScratchFiles& operator=(const ScratchFiles&) = delete;
  ~ScratchFiles() {
    for (const auto& path : paths_) {
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
    }
  }
  // Returns `path` (a copy: a reference into paths_ would not survive the
  // next Add).
  std::filesystem::path Add(std::filesystem::path path) {
    paths_.push_back(path);
    return path;
  }

 private:
  std::vector<std::filesystem::path> paths_;
};

void AppendNumber(std::string& out, double value) {
  char buffer[32];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, error == std::errc() ? end : buffer);
}

void AppendField(std::string& out, const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void WriteFile(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out)
    throw runtime::TerminalError("IngestPhotometry: cannot write " +
                                 path.string());
}

// A retry of IngestPhotometry whose writes all landed: the dataset is
// COMPLETED and INGESTED with its light curve; its stored summary answers.
std::optional<IngestPhotometryOutput> AlreadyIngested(
    const store::Dataset& dataset) {
  if (dataset.processing_status != ProcessingStatus::kCompleted ||
      dataset.ingestion_status != kIngested || !dataset.artifacts ||
      !dataset.artifacts->contains(kLightCurve) ||
      !(*dataset.artifacts)[kLightCurve].is_object() ||
      !dataset.validation_details || !dataset.validation_details->is_object())
    return std::nullopt;
  const json& summary = *dataset.validation_details;
  IngestPhotometryOutput out;
  out.ingestion_status = kIngested;
  out.rows_total = summary.value("rows_total", int64_t{0});
  out.rows_usable = summary.value("rows_usable", int64_t{0});
  out.rows_bad = summary.value("rows_bad", int64_t{0});
  out.bands = summary.value("bands", std::vector<std::string>{});
  out.artifact_key = (*dataset.artifacts)[kLightCurve].value("key", "");
  return out;
}

bool StartsWithFitsCard(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char head[9] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head &&
         std::string_view(head, sizeof head) == "SIMPLE  =";
}

}  // namespace

std::string LightCurveKey(const std::string& nova_id,
                          const std::string& dataset_id) {
  return "derived/photometry/" + nova_id + "/" + dataset_id +
         "/light_curve.csv";
}

std::string LightCurveCsv(const fits::PhotometryCheck& check) {
  std::string out = "time_mjd,magnitude,magnitude_error,band\n";
  for (const fits::PhotometryRow& row : check.rows) {
    AppendNumber(out, row.time_mjd);
    out += ',';
    AppendNumber(out, row.magnitude);
    out += ',';
    AppendNumber(out, row.magnitude_error);
    out += ',';
    AppendField(out, row.band);
    out += '\n';
  }
  return out;
}

std::unique_ptr<IngestPhotometryDatasetSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

ResolveS3ObjectOutput Steps::ResolveS3Object(
    const IngestPhotometryDatasetState& state, runtime::StepContext& context) {
  constexpr std::string_view kState = "ResolveS3Object";
  const std::string& bucket = Required(state.bucket, kState, "bucket");
  const std::string& key = Required(state.key, kState, "key");
  const std::string object = S3Url(bucket, key);
  std::vector<store::FileObject> files =
      env_.repository.FindByS3Object(bucket, key);
  if (files.empty())
    Fail(ErrorClass::kTerminal, kUnknownObject, "no FileObject maps " + object);
  if (files.size() > 1) {
    std::string datasets;
    for (const store::FileObject& f : files)
      datasets += (datasets.empty() ? "" : ", ") + f.dataset_id;
    Fail(ErrorClass::kQuarantine, kAmbiguousObject,
         "AMBIGUOUS_OBJECT: " + std::to_string(files.size()) +
             " FileObjects map " + object + " (datasets " + datasets + ")");
  }
  const store::FileObject& file = files.front();
  if (file.dataset_type != DatasetType::kPhotometry)
    Fail(ErrorClass::kTerminal, kUnknownObject,
         object + " belongs to " + store::DatasetTypeName(file.dataset_type) +
             " dataset " + file.dataset_id + ", not to a photometry dataset");
  ResolveS3ObjectOutput out;
  out.nova_id = file.nova_id;
  out.dataset_id = file.dataset_id;
  out.provider = file.provider;
  context.Log("object resolved", {{"nova_id", file.nova_id},
                                  {"dataset_id", file.dataset_id},
                                  {"provider", file.provider}});
  return out;
}

AcquireDatasetLeaseOutput Steps::AcquireDatasetLease(
    const IngestPhotometryDatasetState& state, runtime::StepContext& context) {
  constexpr std::string_view kState = "AcquireDatasetLease";
  DatasetKey key = StateDataset(state, kState);
  const std::string& owner = Required(state.job_run_id, kState, "job_run_id");
  if (!env_.repository.GetDataset(key)) FailGone(key);
  store::LeaseResult lease = env_.repository.AcquireDatasetLease(
      key, owner, context.now, kLeaseSeconds);
  if (lease.status == store::LeaseResult::Status::kNotFound) FailGone(key);
  AcquireDatasetLeaseOutput out;
  out.lease_status = store::LeaseStatusName(lease.status);
  json fields = {{"dataset_id", key.dataset_id},
                 {"lease_status", *out.lease_status}};
  // The holder (this run or another) and until when.
  if (!lease.owner.empty())
    fields.update(
        {{"lease_owner", lease.owner}, {"lease_expires_at", lease.expires_at}});
  if (lease.processing_status)
    fields["processing_status"] =
        store::ProcessingStatusName(*lease.processing_status);
  context.Log("dataset lease", fields);
  return out;
}

IngestPhotometryOutput Steps::IngestPhotometry(
    const IngestPhotometryDatasetState& state, runtime::StepContext& context) {
  constexpr std::string_view kState = "IngestPhotometry";
  DatasetKey key = StateDataset(state, kState);
  const std::string& owner = Required(state.job_run_id, kState, "job_run_id");
  const std::string& bucket = Required(state.bucket, kState, "bucket");
  const std::string& object_key = Required(state.key, kState, "key");
  if (env_.objects == nullptr)
    throw runtime::TerminalError(
        "the Environment has no object store (ingest_photometry_dataset "
        "reads and writes the catalog's bucket)");
  transfer::ObjectStore& objects = *env_.objects;
  const std::string object = S3Url(bucket, object_key);
  if (bucket != objects.bucket())
    Fail(ErrorClass::kTerminal, kUnknownObject,
         object + " is not in the catalog's bucket " + objects.bucket());

  std::optional<store::Dataset> dataset = env_.repository.GetDataset(key);
  if (!dataset) FailGone(key);
  if (std::optional<IngestPhotometryOutput> done = AlreadyIngested(*dataset)) {
    context.Log(
        "dataset already ingested",
        {{"dataset_id", key.dataset_id}, {"rows_usable", *done->rows_usable}});
    return *done;
  }

  std::filesystem::create_directories(env_.scratch);
  ScratchFiles scratch;
  std::optional<transfer::Fetched> fetched =
      objects.Get(object_key, env_.scratch);
  if (!fetched)
    Fail(ErrorClass::kTerminal, kUnknownObject, object + " is gone");
  const std::filesystem::path file = scratch.Add(fetched->file);

  fits::PhotometryCheck check = fits::CheckPhotometry(file);
  if (check.problem)
    Fail(ErrorClass::kQuarantine, kInvalidPhotometry,
         std::string(fits::ReasonCode(*check.problem)) + ": " + check.detail);

  const std::filesystem::path derived =
      scratch.Add(file.string() + ".light_curve.csv");
  WriteFile(derived, LightCurveCsv(check));
  IngestPhotometryOutput out;
  out.artifact_key = LightCurveKey(key.nova_id, key.dataset_id);
  transfer::StoredObject stored =
      objects.Put(*out.artifact_key, derived, kCsvContentType);

  const std::string now = runtime::FormatTimestamp(context.now);
  store::ValidationOutcome outcome;
  outcome.status = ValidationStatus::kValid;
  outcome.details = check.ToJson();
  RequireHeld(env_.repository.PutValidationResult(key, outcome, now, owner),
              kState, "PutValidationResult", key);
  store::IngestionUpdate update;
  update.ingestion_status = kIngested;
  update.artifacts = json{{kLightCurve,
                           {{"bucket", stored.bucket},
                            {"key", stored.key},
                            {"rows", check.rows_usable},
                            {"sha256", stored.sha256}}}};
  RequireHeld(env_.repository.UpdateIngestionStatus(key, update, now, owner),
              kState, "UpdateIngestionStatus", key);
  if (env_.repository.ReleaseDatasetLease(key, owner,
                                          ProcessingStatus::kCompleted, now) !=
      store::ReleaseResult::kReleased)
    workflows::LeaseLost(kState, "ReleaseDatasetLease", key);

  out.ingestion_status = kIngested;
  out.rows_total = check.rows_total;
  out.rows_usable = check.rows_usable;
  out.rows_bad = check.rows_bad;
  out.bands = check.bands;
  context.Log("light curve ingested", {{"dataset_id", key.dataset_id},
                                       {"format", check.format},
                                       {"rows_usable", check.rows_usable},
                                       {"rows_bad", check.rows_bad},
                                       {"artifact_key", *out.artifact_key}});
  return out;
}

RecordIngestionQuarantineOutput Steps::RecordIngestionQuarantine(
    const IngestPhotometryDatasetState& state, runtime::StepContext& context) {
  RecordedFailure recorded =
      RecordFailure(state, context, "RecordIngestionQuarantine");
  RecordIngestionQuarantineOutput out;
  out.ingestion_status = recorded.ingestion_status;
  out.quarantine_reason_code = recorded.quarantine_reason_code;
  return out;
}

RecordIngestionFailureOutput Steps::RecordIngestionFailure(
    const IngestPhotometryDatasetState& state, runtime::StepContext& context) {
  RecordedFailure recorded =
      RecordFailure(state, context, "RecordIngestionFailure");
  RecordIngestionFailureOutput out;
  out.ingestion_status = recorded.ingestion_status;
  out.quarantine_reason_code = recorded.quarantine_reason_code;
  return out;
}

Steps::RecordedFailure Steps::RecordFailure(
    const IngestPhotometryDatasetState& state, runtime::StepContext& context,
    std::string_view state_name) {
  DatasetKey key = StateDataset(state, state_name);
  const std::string& owner =
      Required(state.job_run_id, state_name, "job_run_id");
  workflows::CaughtError caught =
      workflows::ClassifyCaughtError(state.error, state_name);
  const std::string now = runtime::FormatTimestamp(context.now);
  store::ValidationOutcome& outcome = caught.outcome;
  const ProcessingStatus next = caught.next;
  outcome.details = json{{"cause", caught.cause}};

  // The ingestion_status is the status the lease ends with.
  RecordedFailure out;
  out.ingestion_status = store::ProcessingStatusName(next);
  out.quarantine_reason_code = outcome.quarantine_reason_code;
  json fields = {{"dataset_id", key.dataset_id},
                 {"ingestion_status", out.ingestion_status}};
  if (outcome.quarantine_reason_code)
    fields["quarantine_reason_code"] = *outcome.quarantine_reason_code;

  // Not ours (the lease was taken over after expiry, or the dataset left
  // IN_PROGRESS): the dataset belongs to its holder, nothing is written.
  if (!workflows::LeaseHeldBy(env_.repository, key, owner)) {
    context.Log("ingestion failure not recorded: the lease is not this run's",
                fields);
    return out;
  }
  RequireHeld(env_.repository.PutValidationResult(key, outcome, now, owner),
              state_name, "PutValidationResult", key);
  RequireHeld(env_.repository.UpdateIngestionStatus(
                  key, {out.ingestion_status, std::nullopt}, now, owner),
              state_name, "UpdateIngestionStatus", key);
  if (env_.repository.ReleaseDatasetLease(key, owner, next, now) ==
      store::ReleaseResult::kNotHeld)
    context.Log("dataset lease lost before its failure was recorded", fields);
  context.Log("ingestion failure recorded", fields);
  return out;
}

RegisteredPhotometry RegisterPhotometryFile(store::Repository& repository,
                                            transfer::ObjectStore& objects,
                                            const std::string& nova_id,
                                            const std::string& provider,
                                            const std::filesystem::path& file,
                                            const std::string& now) {
  const std::string what = "register photometry " + file.string();
  if (!domain::IsUuid(nova_id))
    throw runtime::TerminalError(what + ": nova_id \"" + nova_id +
                                 "\" is not a UUID");
  if (provider.empty() || provider.find('#') != std::string::npos)
    throw runtime::TerminalError(what + ": provider \"" + provider +
                                 "\" must be non-empty and without '#'");
  if (!repository.GetNova(nova_id))
    throw runtime::TerminalError(what + ": nova " + nova_id +
                                 " does not exist");
  std::error_code error;
  const auto byte_length =
      static_cast<int64_t>(std::filesystem::file_size(file, error));
  if (error)
    throw runtime::TerminalError(what +
                                 ": cannot read the file: " + error.message());
  const std::string sha256 = transfer::Sha256OfFile(file);
  const bool is_fits = StartsWithFitsCard(file);
  const std::string identity = provider + ":" + sha256;

  RegisteredPhotometry registered;
  registered.dataset_id = domain::DatasetId(identity);
  store::Dataset dataset;
  dataset.nova_id = nova_id;
  dataset.type = DatasetType::kPhotometry;
  dataset.provider = provider;
  dataset.dataset_id = registered.dataset_id;
  dataset.provider_identity = identity;
  dataset.locators = json{{"file_name", file.filename().string()}};
  dataset.created_at = now;
  dataset.updated_at = now;
  switch (repository.CreateDataset(dataset)) {
    case store::CreateResult::kCreated:
      registered.created = true;
      break;
    case store::CreateResult::kAlreadyExists:
      break;
    case store::CreateResult::kConflict:
      throw runtime::TerminalError(
          what + ": dataset " + dataset.dataset_id + " of nova " + nova_id +
          " exists with another identity than \"" + identity + "\"");
  }

  store::FileObject object;
  object.nova_id = nova_id;
  object.dataset_type = DatasetType::kPhotometry;
  object.provider = provider;
  object.dataset_id = dataset.dataset_id;
  object.file_id = kRawFile;
  object.bucket = objects.bucket();
  object.key = "photometry/" + nova_id + "/" + dataset.dataset_id + "/" +
               sha256 + (is_fits ? ".fits" : ".csv");
  object.byte_length = byte_length;
  object.sha256 = sha256;
  object.content_type = is_fits ? kFitsContentType : kCsvContentType;
  object.created_at = now;
  // The FileObject of an earlier registration is kept (with its
  // created_at); the same one is written again only when it is missing.
  bool stored = false;
  for (const store::FileObject& f :
       repository.ListFileObjects(nova_id, dataset.dataset_id)) {
    store::FileObject same = f;
    same.created_at = now;
    stored = stored || same == object;
  }
  if (!stored) repository.PutFileObject(object);

  transfer::StoredObject put =
      objects.Put(object.key, file, *object.content_type);
  registered.input = json{{"bucket", put.bucket},
                          {"key", put.key},
                          {"etag", put.etag},
                          {"byte_length", put.byte_length}};
  return registered;
}

}  // namespace novacat::ingest_photometry_dataset
