// The step logic of workflow download_and_validate_spectra, written by hand.
//
// novacat-gen created this file once, from download_and_validate_spectra.yaml,
// and never touches it again.
//
// One Map item per eligible dataset: AcquireDatasetLease -> (leased)
// DownloadSpectrum -> ValidateSpectrum; the Map's item_failure catches every
// class, so a failed item goes to RecordDatasetFailure, which records it on
// the dataset and ends the lease, and the other datasets continue. The
// classes: bad bytes (a checksum mismatch, content that is not a sane 1-D
// FITS spectrum, a product the provider refuses for good) are QUARANTINE,
// never retried; a dataset with nothing to fetch is TERMINAL; a throttled,
// failing or slow archive is RETRYABLE on the long-running preset.
//
// Quarantine causes read "<failure id>: <REASON_CODE>: <detail>"
// ("checksum_mismatch: CHECKSUM_MISMATCH: ...", "invalid_spectrum_content:
// NON_FINITE_FLUX: flux[17] is NaN"): the reason code is what
// RecordDatasetFailure persists as quarantine_reason_code (AP-DL-5).
//
// Every dataset write after the lease carries the lease fence (the
// repository's lease_owner argument; the FileObject's lease_fence too): a
// run whose lease was taken over after expiry cannot overwrite its
// successor's results; it fails the item TERMINAL lease_lost (never
// retried: no retry wins the lease back), and RecordDatasetFailure, finding
// the lease another run's, writes nothing and answers lease_status LOST.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "download_and_validate_spectra/download_and_validate_spectra.hpp"
#include "novacat/workflows/environment.h"
#include "novacat/workflows/failure.h"

namespace novacat::download_and_validate_spectra {

// How long a lease lasts: longer than the worst case of one dataset
// (DownloadSpectrum: 4 attempts of 15 minutes plus 250 s of waits, then
// ValidateSpectrum), so that only a dead run's lease expires.
inline constexpr int64_t kLeaseSeconds = 90 * 60;

// The governance's "no unbounded retries" across runs: a dataset whose
// kMaxFailedRuns-th run in a row ends RETRYABLE (an archive down for days,
// a function that dies on it every time) is QUARANTINED
// kRetriesExhaustedReason instead of left FAILED_RETRYABLE, and a person
// reviews it. 16 runs are 4 days of the 6-hourly schedule: longer than an
// archive's usual outage.
inline constexpr int64_t kMaxFailedRuns = 16;
inline constexpr const char* kRetriesExhaustedReason = "RETRIES_EXHAUSTED";

class Steps final : public DownloadAndValidateSpectraSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  // AP-DL-1: the nova's SPECTRA datasets in GSI1 under ELIG#DOWNLOAD#, in
  // the index's order, as {dataset_id, provider} items; eligible_count.
  QueryEligibleDatasetsOutput QueryEligibleDatasets(
      const DownloadAndValidateSpectraState& state,
      runtime::StepContext& context) override;

  // From download_results (one document per item: the item as its last
  // state left it): valid_dataset_ids (in item order), and the counts of
  // VALID, QUARANTINED, failed (RETRYABLE_ERROR or TERMINAL_INVALID, or an
  // error no status was recorded for: RecordDatasetFailure itself failed,
  // DatasetFailureUnrecorded) and skipped (lease_status other than ACQUIRED,
  // LOST included) items. TERMINAL when the results are absent or an item
  // has none of these.
  SummarizeDownloadsOutput SummarizeDownloads(
      const DownloadAndValidateSpectraState& state,
      runtime::StepContext& context) override;

  // AP-DL-2 for the item's dataset, owner = the run's job_run_id, for
  // kLeaseSeconds from context.now: ACQUIRED (also when the run already
  // holds it: a retry), HELD_BY_OTHER (a live lease), NOT_ACQUIRABLE (a
  // final state, or the dataset is gone). TERMINAL when the item is not
  // {dataset_id, provider} or the job_run_id is missing.
  AcquireDatasetLeaseOutput AcquireDatasetLease(
      const DownloadDatasetsItem& item, runtime::StepContext& context) override;

  // Fetches the dataset's product (domain::DownloadLocator; none ->
  // TERMINAL missing_locator) into the scratch folder with the
  // Environment's Downloader, computing sha256, byte length and ETag.
  //   - A dataset already VALID with the same sha256 is short-circuited:
  //     nothing is written, ValidateSpectrum completes it.
  //   - A provider checksum (locators.sha256) that differs: the dataset is
  //     recorded QUARANTINED CHECKSUM_MISMATCH with what was fetched
  //     (locator, expected and actual sha256, length, ETag) as its details,
  //     then QUARANTINE checksum_mismatch (nothing is stored).
  //   - Otherwise the file is put in the object store under
  //     raw/<nova_id>/<dataset_id>/<sha256>.fits (the same bytes, the same
  //     key: a retry rewrites it) and its FileObject "raw" is written with
  //     the GSI3 keys under the lease (AP-DL-6, the fenced PutFileObject).
  //     The fingerprints wait for ValidateSpectrum,
  //     which reads the header they include.
  // Fetch failures: RETRYABLE as the Downloader reports them; not found,
  // refused or too large -> QUARANTINE product_unavailable (NOT_FOUND,
  // REFUSED, TOO_LARGE); a malformed locator -> TERMINAL missing_locator.
  // A dataset whose lease is no longer this run's -> TERMINAL lease_lost,
  // before anything is fetched. The scratch file is removed on every path.
  DownloadSpectrumOutput DownloadSpectrum(
      const DownloadDatasetsItem& item, runtime::StepContext& context) override;

  // Reads the object back into the scratch folder and checks it with
  // fits::CheckSpectrum; records the fingerprints (length, the provider's
  // ETag, sha256, FITS checksum, header signature: AP-DL-4; none for bytes
  // that are not FITS) and the validation result with its
  // details and reader profile (AP-DL-5). VALID: the dataset leaves GSI1
  // and its lease ends COMPLETED. Otherwise QUARANTINE
  // invalid_spectrum_content with the check's reason code
  // (RecordDatasetFailure ends the lease). A dataset already VALID with
  // this sha256 is completed without reading the file.
  ValidateSpectrumOutput ValidateSpectrum(
      const DownloadDatasetsItem& item, runtime::StepContext& context) override;

  // The caught error ($.error: Error, Cause) of a failed item, recorded on
  // its dataset:
  //   QuarantineError -> validation_status QUARANTINED with the cause's
  //     reason code (kept as ValidateSpectrum wrote it, with its details
  //     and profile, when it is already there), processing QUARANTINED,
  //     out of GSI1 (a person reviews it);
  //   TerminalError -> TERMINAL_INVALID, FAILED_TERMINAL, out of GSI1;
  //   anything else (RetryableError, States.Timeout...) -> RETRYABLE_ERROR,
  //     FAILED_RETRYABLE, still eligible: the next run retries it. The
  //     lease's end counts the run in the dataset's failed_runs (the runs
  //     in a row ending so); the kMaxFailedRuns-th is QUARANTINED
  //     kRetriesExhaustedReason instead, out of GSI1, failed_runs kept.
  // Details: the error's name and cause (and failed_runs and the run's
  // job_run_id when the count quarantined it; a retry of the step after
  // its release landed finds them and answers QUARANTINED again). Any other end
  // of a lease removes failed_runs. Then the lease ends. When the item failed
  // before its lease was taken, or the lease was lost, nothing is written;
  // when another run holds the lease now, the answer is lease_status LOST
  // alone (the item counts as skipped).
  // TERMINAL when the error is missing.
  RecordDatasetFailureOutput RecordDatasetFailure(
      const DownloadDatasetsItem& item, runtime::StepContext& context) override;

 private:
  workflows::Environment env_;
};

// The reason code of a quarantine cause (novacat/workflows/failure.h).
using workflows::QuarantineReasonCode;

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<DownloadAndValidateSpectraSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::download_and_validate_spectra
