// `novacat datasets`: a nova's datasets for an operator, and the requeue,
// after review, of a spectra dataset that runs left failed.
//
//   FormatDatasetsTable / DatasetsToJson   `novacat datasets list`: what
//                 store::Repository::ListNovaDatasets reads, as an aligned
//                 table or JSON.
//   RequeueDataset  `novacat datasets requeue`: the nova's SPECTRA dataset
//                 of that id made download-eligible again
//                 (store::Repository::RequeueDataset), e.g. one that
//                 download_and_validate_spectra quarantined
//                 RETRIES_EXHAUSTED once the archive is back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/store/repository.h"

namespace novacat::workflows {

// A title line "Datasets of nova <nova_id>: <n>" ("none" when empty), then
// one aligned row per dataset (text_table.h)
//   DATASET_ID TYPE PROVIDER PROCESSING VALIDATION REASON FAILED_RUNS
//   ELIGIBLE UPDATED
// (PROCESSING: processing_status; VALIDATION: validation_status; REASON:
// quarantine_reason_code; ELIGIBLE: the eligibility (DOWNLOAD) while in
// GSI1; FAILED_RUNS right-aligned; "-" for what the item has not).
std::string FormatDatasetsTable(std::string_view nova_id,
                                const std::vector<store::Dataset>& datasets);

// {"nova_id", "datasets": [{dataset_id, type, provider, processing_status,
// validation_status, quarantine_reason_code, validation_details,
// failed_runs, eligibility, lease_owner, lease_expires_at, updated_at}...]}:
// every key always present, null when the item has no value.
nlohmann::ordered_json DatasetsToJson(
    std::string_view nova_id, const std::vector<store::Dataset>& datasets);

struct RequeueAnswer {
  bool requeued = false;
  // Requeued: "requeued dataset <id> (SPECTRA, <provider>) of nova <nova>:
  // <status> [<reason>] -> READY, download-eligible" (<status> IN_PROGRESS
  // "(lease expired)" for a dead run's). Otherwise why not,
  // without a "novacat datasets requeue: " prefix.
  std::string message;
};

// Requeues the nova's SPECTRA dataset `dataset_id`, found among
// ListNovaDatasets(nova_id), at `now` (epoch seconds: an expired lease is
// one that ended before it; updated_at its FormatTimestamp); `where` names
// the store in a not-found message. Refused: no such dataset, a PHOTOMETRY
// one, or one neither failed nor with an expired lease (with its status).
// Store errors propagate.
RequeueAnswer RequeueDataset(store::Repository& repository,
                             const std::string& nova_id,
                             const std::string& dataset_id, int64_t now,
                             std::string_view where);

}  // namespace novacat::workflows
