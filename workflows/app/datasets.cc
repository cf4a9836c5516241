#include "datasets.h"

#include <algorithm>
#include <optional>

#include "novacat/runtime/ids.h"
#include "text_table.h"

namespace novacat::workflows {

namespace {

using json = nlohmann::ordered_json;
using store::Dataset;

template <typename T>
json OrNull(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

std::string ProcessingText(const std::optional<store::ProcessingStatus>& s) {
  return s ? store::ProcessingStatusName(*s) : "-";
}

std::string ValidationText(const std::optional<store::ValidationStatus>& s) {
  return s ? store::ValidationStatusName(*s) : "-";
}

}  // namespace

std::string FormatDatasetsTable(std::string_view nova_id,
                                const std::vector<Dataset>& datasets) {
  std::string out =
      "Datasets of nova " + std::string(nova_id) + ": " +
      (datasets.empty() ? "none" : std::to_string(datasets.size())) + "\n";
  if (datasets.empty()) return out;
  std::vector<std::vector<std::string>> rows = {
      {"DATASET_ID", "TYPE", "PROVIDER", "PROCESSING", "VALIDATION", "REASON",
       "FAILED_RUNS", "ELIGIBLE", "UPDATED"}};
  for (const Dataset& d : datasets)
    rows.push_back({d.dataset_id, store::DatasetTypeName(d.type), d.provider,
                    ProcessingText(d.processing_status),
                    ValidationText(d.validation_status),
                    OrDash(d.quarantine_reason_code),
                    d.failed_runs ? std::to_string(*d.failed_runs) : "-",
                    OrDash(d.eligibility), d.updated_at});
  return out + AlignedRows(rows, {false, false, false, false, false, false,
                                  true, false, false});
}

json DatasetsToJson(std::string_view nova_id,
                    const std::vector<Dataset>& datasets) {
  json list = json::array();
  for (const Dataset& d : datasets) {
    json item;
    item["dataset_id"] = d.dataset_id;
    item["type"] = store::DatasetTypeName(d.type);
    item["provider"] = d.provider;
    item["processing_status"] =
        d.processing_status
            ? json(store::ProcessingStatusName(*d.processing_status))
            : json(nullptr);
    item["validation_status"] =
        d.validation_status
            ? json(store::ValidationStatusName(*d.validation_status))
            : json(nullptr);
    item["quarantine_reason_code"] = OrNull(d.quarantine_reason_code);
    item["validation_details"] = OrNull(d.validation_details);
    item["failed_runs"] = OrNull(d.failed_runs);
    item["eligibility"] = OrNull(d.eligibility);
    item["lease_owner"] = OrNull(d.lease_owner);
    item["lease_expires_at"] = OrNull(d.lease_expires_at);
    item["updated_at"] = d.updated_at;
    list.push_back(std::move(item));
  }
  json out;
  out["nova_id"] = nova_id;
  out["datasets"] = std::move(list);
  return out;
}

RequeueAnswer RequeueDataset(store::Repository& repository,
                             const std::string& nova_id,
                             const std::string& dataset_id, int64_t now,
                             std::string_view where) {
  const std::vector<Dataset> datasets = repository.ListNovaDatasets(nova_id);
  auto found = std::find_if(
      datasets.begin(), datasets.end(),
      [&](const Dataset& d) { return d.dataset_id == dataset_id; });
  const std::string named = "dataset " + dataset_id + " of nova " + nova_id;
  if (found == datasets.end())
    return {false, "no " + named + " in " + std::string(where)};
  if (found->type != store::DatasetType::kSpectra)
    return {false, named + " is " + store::DatasetTypeName(found->type) +
                       ": only a SPECTRA dataset is requeued (a photometry "
                       "file is ingested when its object is written)"};
  store::RequeueResult result = repository.RequeueDataset(
      found->key(), now, runtime::FormatTimestamp(now));
  using Status = store::RequeueResult::Status;
  if (result.status == Status::kNotFound)
    return {false, "no " + named + " in " + std::string(where)};
  if (result.status == Status::kNotRequeueable)
    return {false,
            named + " is " +
                (result.processing_status
                     ? std::string(store::ProcessingStatusName(
                           *result.processing_status))
                     : std::string("without a processing status (never "
                                   "leased)")) +
                ": only a QUARANTINED, FAILED_TERMINAL or FAILED_RETRYABLE "
                "dataset, or one whose lease expired, is requeued"};
  std::string before = ProcessingText(found->processing_status);
  if (found->processing_status == store::ProcessingStatus::kInProgress)
    before += " (lease expired)";
  else if (found->quarantine_reason_code)
    before += " " + *found->quarantine_reason_code;
  return {true, "requeued dataset " + dataset_id + " (SPECTRA, " +
                    found->provider + ") of nova " + nova_id + ": " + before +
                    " -> READY, download-eligible"};
}

}  // namespace novacat::workflows
