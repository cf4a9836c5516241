// `novacat datasets` (app/datasets.h): the whole table and the whole JSON
// of datasets written through store::Repository, and every answer of a
// requeue.
#include "datasets.h"

#include <gtest/gtest.h>

#include "novacat/store/memory_table.h"

namespace novacat::workflows {
namespace datasets_test {
namespace {

using ojson = nlohmann::ordered_json;
using store::Dataset;
using store::DatasetType;
using store::ProcessingStatus;
using store::ValidationStatus;

constexpr const char* kNova = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr const char* kExhausted = "4578f250-980c-595f-8853-fb9b6f646be2";
constexpr const char* kValid = "830096df-1ce3-56ed-b51d-030b8f268e0e";
constexpr const char* kCurve = "8b1bef8f-c705-5c31-b9b7-7da92d50172e";
constexpr const char* kNew = "11111111-1111-4111-8111-111111111111";
constexpr const char* kRun = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c";
constexpr const char* kT0 = "2026-11-25T13:45:00Z";
constexpr const char* kT1 = "2026-11-28T09:00:00Z";
constexpr int64_t kNow = 1795856400;  // kT1

class DatasetsTest : public ::testing::Test {
 protected:
  void Create(const char* id, const char* provider, DatasetType type) {
    Dataset d;
    d.nova_id = kNova;
    d.type = type;
    d.provider = provider;
    d.dataset_id = id;
    d.provider_identity = std::string(provider) + ":" + id;
    d.locators = {{"url", std::string("https://archive.example/") + id}};
    d.created_at = d.updated_at = kT0;
    if (type == DatasetType::kSpectra)
      d.eligibility = store::kEligibilityDownload;
    ASSERT_EQ(repository_.CreateDataset(d), store::CreateResult::kCreated);
  }
  // Leased by kRun, given `validation` and released into `end`.
  void End(const char* id, const char* provider, DatasetType type,
           ValidationStatus validation, std::optional<std::string> reason,
           ProcessingStatus end, int64_t failed_runs = 0) {
    store::DatasetKey key{kNova, type, provider, id};
    ASSERT_EQ(repository_.AcquireDatasetLease(key, kRun, 1000, 600).status,
              store::LeaseResult::Status::kAcquired);
    store::ValidationOutcome outcome;
    outcome.status = validation;
    outcome.quarantine_reason_code = std::move(reason);
    if (outcome.quarantine_reason_code)
      outcome.details = ojson{{"error", "Runtime.ExitError"}};
    ASSERT_EQ(repository_.PutValidationResult(key, outcome, kT0),
              store::UpdateOutcome::kUpdated);
    if (end != ProcessingStatus::kFailedRetryable) {
      ASSERT_EQ(repository_.SetDownloadEligibility(key, std::nullopt, kT0),
                store::UpdateOutcome::kUpdated);
    }
    ASSERT_EQ(repository_.ReleaseDatasetLease(key, kRun, end, kT0, failed_runs),
              store::ReleaseResult::kReleased);
  }
  void SetUp() override {
    Create(kExhausted, "ESO", DatasetType::kSpectra);
    End(kExhausted, "ESO", DatasetType::kSpectra,
        ValidationStatus::kQuarantined, "RETRIES_EXHAUSTED",
        ProcessingStatus::kQuarantined, 16);
    Create(kValid, "MAST", DatasetType::kSpectra);
    End(kValid, "MAST", DatasetType::kSpectra, ValidationStatus::kValid,
        std::nullopt, ProcessingStatus::kCompleted);
    Create(kCurve, "AAVSO", DatasetType::kPhotometry);
    Create(kNew, "ESO", DatasetType::kSpectra);
  }
  std::vector<Dataset> List() { return repository_.ListNovaDatasets(kNova); }
  RequeueAnswer Requeue(const std::string& id) {
    return RequeueDataset(repository_, kNova, id, kNow, "/tmp/cat.db");
  }

  store::MemoryTable table_;
  store::Repository repository_{table_};
};

TEST_F(DatasetsTest, TableShowsEveryDatasetOfTheNova) {
  // clang-format off
  EXPECT_EQ(FormatDatasetsTable(kNova, List()), R"(Datasets of nova d4bbdda3-6824-4e82-b1ce-1b781190fbec: 4
DATASET_ID                            TYPE        PROVIDER  PROCESSING   VALIDATION   REASON             FAILED_RUNS  ELIGIBLE  UPDATED
8b1bef8f-c705-5c31-b9b7-7da92d50172e  PHOTOMETRY  AAVSO     -            -            -                            -  -         2026-11-25T13:45:00Z
11111111-1111-4111-8111-111111111111  SPECTRA     ESO       -            -            -                            -  DOWNLOAD  2026-11-25T13:45:00Z
4578f250-980c-595f-8853-fb9b6f646be2  SPECTRA     ESO       QUARANTINED  QUARANTINED  RETRIES_EXHAUSTED           16  -         2026-11-25T13:45:00Z
830096df-1ce3-56ed-b51d-030b8f268e0e  SPECTRA     MAST      COMPLETED    VALID        -                            -  -         2026-11-25T13:45:00Z
)");
  // clang-format on
  EXPECT_EQ(FormatDatasetsTable(kNova, {}),
            "Datasets of nova d4bbdda3-6824-4e82-b1ce-1b781190fbec: none\n");
}

TEST_F(DatasetsTest, JsonHasEveryKeyOfEveryDataset) {
  std::vector<Dataset> datasets = List();
  datasets.resize(3);  // the photometry, the new and the exhausted one
  EXPECT_EQ(DatasetsToJson(kNova, datasets), ojson::parse(R"({
    "nova_id": "d4bbdda3-6824-4e82-b1ce-1b781190fbec",
    "datasets": [
      {"dataset_id": "8b1bef8f-c705-5c31-b9b7-7da92d50172e",
       "type": "PHOTOMETRY", "provider": "AAVSO", "processing_status": null,
       "validation_status": null, "quarantine_reason_code": null,
       "validation_details": null, "failed_runs": null, "eligibility": null,
       "lease_owner": null, "lease_expires_at": null,
       "updated_at": "2026-11-25T13:45:00Z"},
      {"dataset_id": "11111111-1111-4111-8111-111111111111",
       "type": "SPECTRA", "provider": "ESO", "processing_status": null,
       "validation_status": null, "quarantine_reason_code": null,
       "validation_details": null, "failed_runs": null,
       "eligibility": "DOWNLOAD", "lease_owner": null,
       "lease_expires_at": null, "updated_at": "2026-11-25T13:45:00Z"},
      {"dataset_id": "4578f250-980c-595f-8853-fb9b6f646be2",
       "type": "SPECTRA", "provider": "ESO",
       "processing_status": "QUARANTINED",
       "validation_status": "QUARANTINED",
       "quarantine_reason_code": "RETRIES_EXHAUSTED",
       "validation_details": {"error": "Runtime.ExitError"},
       "failed_runs": 16, "eligibility": null, "lease_owner": null,
       "lease_expires_at": null, "updated_at": "2026-11-25T13:45:00Z"}]})"));
}

TEST_F(DatasetsTest, RequeueMakesTheQuarantinedDatasetEligible) {
  RequeueAnswer answer = Requeue(kExhausted);
  EXPECT_TRUE(answer.requeued);
  EXPECT_EQ(answer.message,
            "requeued dataset 4578f250-980c-595f-8853-fb9b6f646be2 (SPECTRA, "
            "ESO) of nova d4bbdda3-6824-4e82-b1ce-1b781190fbec: QUARANTINED "
            "RETRIES_EXHAUSTED -> READY, download-eligible");
  std::vector<std::string> eligible;
  for (const Dataset& d : repository_.QueryEligibleDatasets(kNova))
    eligible.push_back(d.dataset_id);
  EXPECT_EQ(eligible, (std::vector<std::string>{kNew, kExhausted}));
  Dataset d = *repository_.GetDataset(
      {kNova, DatasetType::kSpectra, "ESO", kExhausted});
  EXPECT_EQ(d.processing_status, ProcessingStatus::kReady);
  EXPECT_EQ(d.failed_runs, std::nullopt);
  EXPECT_EQ(d.updated_at, kT1);
}

TEST_F(DatasetsTest, RequeueRefusesWhatIsNotAFailedSpectraDataset) {
  const std::string of = " of nova d4bbdda3-6824-4e82-b1ce-1b781190fbec";
  auto refused = [&](const std::string& id, const std::string& message) {
    RequeueAnswer answer = Requeue(id);
    EXPECT_FALSE(answer.requeued) << id;
    EXPECT_EQ(answer.message, message);
  };
  refused(kValid, std::string("dataset ") + kValid + of +
                      " is COMPLETED: only a QUARANTINED, FAILED_TERMINAL or "
                      "FAILED_RETRYABLE dataset, or one whose lease expired, "
                      "is requeued");
  refused(kNew, std::string("dataset ") + kNew + of +
                    " is without a processing status (never leased): only a "
                    "QUARANTINED, FAILED_TERMINAL or FAILED_RETRYABLE "
                    "dataset, or one whose lease expired, is requeued");
  refused(kCurve, std::string("dataset ") + kCurve + of +
                      " is PHOTOMETRY: only a SPECTRA dataset is requeued (a "
                      "photometry file is ingested when its object is "
                      "written)");
  refused("99999999-9999-4999-8999-999999999999",
          "no dataset 99999999-9999-4999-8999-999999999999" + of +
              " in /tmp/cat.db");
  // Nothing changed.
  EXPECT_EQ(
      repository_.GetDataset({kNova, DatasetType::kSpectra, "MAST", kValid})
          ->processing_status,
      ProcessingStatus::kCompleted);
}

}  // namespace
}  // namespace datasets_test
}  // namespace novacat::workflows
