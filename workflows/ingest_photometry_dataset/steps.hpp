// The step logic of workflow ingest_photometry_dataset, written by hand.
//
// novacat-gen created this file once, from ingest_photometry_dataset.yaml, and
// never touches it again. When a Task is added to the spec, the build fails
// until the method is declared here and written in steps.cpp; when one is
// removed, its `override` below stops compiling.
//
// A photometry file lands in the catalog's bucket under photometry/ (put
// there by RegisterPhotometryFile, below, after its dataset and FileObject
// were written); S3's Object Created event starts a run: ResolveS3Object
// finds the FileObject (AP-PHOT-1), AcquireDatasetLease takes the dataset's
// lease (AP-PHOT-2), IngestPhotometry reads the file, stores the derived
// light curve and records the ingestion (AP-PHOT-3); a failure of
// IngestPhotometry goes to RecordIngestionFailure, which records it on the
// dataset and ends the lease.
//
// Causes read "<failure id>: <detail>", and for quarantines "<failure id>:
// <REASON_CODE>: <detail>" ("invalid_photometry: NO_USABLE_ROWS: ..."): the
// reason code is what RecordIngestionFailure persists as
// quarantine_reason_code.
//
// Every dataset write after the lease carries the lease fence (the
// repository's lease_owner argument, the run's job_run_id): a run whose
// lease was taken over after expiry cannot overwrite its successor's
// results; it fails RETRYABLE ("lease lost").
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "ingest_photometry_dataset/ingest_photometry_dataset.hpp"
#include "novacat/fits/photometry.h"
#include "novacat/store/repository.h"
#include "novacat/transfer/object_store.h"
#include "novacat/workflows/environment.h"

namespace novacat::ingest_photometry_dataset {

// How long a lease lasts: longer than the worst case of IngestPhotometry,
// the only Task that works under it (3 attempts of its 120 s timeout plus
// the retry waits of 2 s and 10 s, about 6 minutes, then
// RecordIngestionFailure), so that only a dead run's lease expires.
inline constexpr int64_t kLeaseSeconds = 30 * 60;

// Where the derived light curve of a dataset is stored: never under
// photometry/, whose Object Created events start this workflow.
std::string LightCurveKey(const std::string& nova_id,
                          const std::string& dataset_id);

class Steps final : public IngestPhotometryDatasetSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  // AP-PHOT-1: the FileObjects of (bucket, key). None: TERMINAL
  // unknown_object; several: QUARANTINE ambiguous_object
  // (AMBIGUOUS_OBJECT, listing their datasets in table order); one of a
  // dataset that is not PHOTOMETRY: TERMINAL unknown_object. Else its
  // nova_id, dataset_id and provider.
  ResolveS3ObjectOutput ResolveS3Object(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;

  // AP-PHOT-2: reads the dataset (gone: TERMINAL unknown_object), then takes
  // its lease, owner = the run's job_run_id, for kLeaseSeconds from
  // context.now: ACQUIRED (also when the run already holds it: a retry),
  // HELD_BY_OTHER (a live lease of another run), NOT_ACQUIRABLE (a final
  // state: COMPLETED, QUARANTINED, FAILED_TERMINAL; a photometry dataset is
  // one file's content, so a final one is never ingested again: a new file
  // is a new dataset).
  AcquireDatasetLeaseOutput AcquireDatasetLease(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;

  // AP-PHOT-3: gets the object (from the Environment's object store, whose
  // bucket must be the state's) into the scratch folder and checks it with
  // fits::CheckPhotometry. A problem: QUARANTINE invalid_photometry with the
  // check's reason code (UNREADABLE, MISSING_COLUMNS, NO_USABLE_ROWS),
  // nothing stored. Else the usable rows are written as CSV
  // (LightCurveCsv) and put under LightCurveKey (text/csv), then, fenced:
  // validation VALID with the check's summary as details, ingestion_status
  // INGESTED with artifacts {"light_curve": {bucket, key, rows, sha256}},
  // and the lease ends COMPLETED. An object that is gone, or in another
  // bucket: TERMINAL unknown_object; the store's RetryableError propagates.
  // A dataset already COMPLETED and INGESTED (a retry whose writes landed)
  // answers what is stored without reading anything. Every scratch file is
  // removed on every path.
  IngestPhotometryOutput IngestPhotometry(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;

  // The caught error ($.error: Error, Cause) of IngestPhotometry (the spec
  // sends QUARANTINE errors to RecordIngestionQuarantine, the others here;
  // both record any class the same way), recorded on
  // the dataset, fenced, with details {"cause": <cause>}:
  //   QuarantineError -> validation QUARANTINED with the cause's reason
  //     code, ingestion_status and processing_status QUARANTINED;
  //   TerminalError -> TERMINAL_INVALID, FAILED_TERMINAL;
  //   anything else (RetryableError, States.Timeout...) -> RETRYABLE_ERROR,
  //     FAILED_RETRYABLE (the lease can be taken again).
  // Then the lease ends. When the lease is not (or no longer) the run's,
  // nothing is written. Answers ingestion_status and quarantine_reason_code
  // (null unless QUARANTINED). TERMINAL when the error is missing.
  RecordIngestionFailureOutput RecordIngestionFailure(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;
  // The same, for the QUARANTINE errors the spec routes here (then to
  // QuarantineHandler, where RecordIngestionFailure goes on to
  // TerminalFailHandler).
  RecordIngestionQuarantineOutput RecordIngestionQuarantine(
      const IngestPhotometryDatasetState& state,
      runtime::StepContext& context) override;

 private:
  struct RecordedFailure {
    std::string ingestion_status;
    std::optional<std::string> quarantine_reason_code;
  };
  // What both record: the caught error on the dataset (see above), as the
  // Task `state_name`.
  RecordedFailure RecordFailure(const IngestPhotometryDatasetState& state,
                                runtime::StepContext& context,
                                std::string_view state_name);

  workflows::Environment env_;
};

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<IngestPhotometryDatasetSteps> MakeSteps(
    const workflows::Environment& env);

// The derived light curve of `check`'s usable rows, in file order: the
// header "time_mjd,magnitude,magnitude_error,band" then one line per row,
// '\n'-terminated; numbers in their shortest round-trip form (std::to_chars:
// 42654.25, 3.2, 1e-05), a band with a comma, a quote or a line break
// quoted as RFC 4180 does.
std::string LightCurveCsv(const fits::PhotometryCheck& check);

// Registers a photometry file of a nova for ingestion (the `novacat` CLI's
// and the end-to-end tests' way in), in this order, so that the object's
// Object Created event always finds its mapping:
//   1. the PHOTOMETRY dataset (AP-DISC-2): provider_identity
//      "<provider>:<sha256 of the file>", dataset_id derived from it as
//      discovery does (domain::DatasetId), locators {"file_name": <the
//      file's name>}, created_at = updated_at = now, no eligibility, no
//      processing_status (acquirable);
//   2. its FileObject "raw": key photometry/<nova_id>/<dataset_id>/
//      <sha256>.<fits|csv> (fits when the file starts with "SIMPLE  ="),
//      byte_length, sha256, content_type application/fits or text/csv;
//   3. the object itself, in `objects`.
// Idempotent: the same file (same bytes) registered again for the same
// nova and provider meets the same dataset (its first locators and
// created_at kept), leaves the FileObject as it is and puts the same bytes
// under the same key (a repeated Object Created event carries the same
// ETag: the run is a duplicate); created is false then. Returns the
// workflow's input for the object: {bucket, key, etag, byte_length}.
// TerminalError: a nova_id that is not a UUID, a nova that does not exist,
// an empty provider or one with '#', a file that cannot be read, a dataset
// of another identity under the derived id.
struct RegisteredPhotometry {
  std::string dataset_id;
  bool created = false;  // false: the same file was registered before
  nlohmann::json input;  // the PhotometryObjectCreated input: {bucket, key,
                         // etag, byte_length}
};
RegisteredPhotometry RegisterPhotometryFile(store::Repository& repository,
                                            transfer::ObjectStore& objects,
                                            const std::string& nova_id,
                                            const std::string& provider,
                                            const std::filesystem::path& file,
                                            const std::string& now);

}  // namespace novacat::ingest_photometry_dataset
