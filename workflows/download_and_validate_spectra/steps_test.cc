// Unit tests of the download_and_validate_spectra step logic: the steps over
// a MemoryTable repository, a scripted Downloader (files the tests write
// with cfitsio, or scripted failures) and a FolderObjectStore in a
// temporary folder, called through the generated dispatcher as the Map's
// items run them.
#include "download_and_validate_spectra/steps.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "novacat/domain/fixtures.h"
#include "novacat/fits/fixtures.h"
#include "novacat/fits/spectrum.h"
#include "novacat/runtime/errors.h"
#include "novacat/store/fault_injecting_table.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/repository.h"
#include "novacat/transfer/download.h"
#include "novacat/transfer/object_store.h"

namespace novacat::download_and_validate_spectra {
namespace steps_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kNova = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr const char* kDatasetA = "4578f250-980c-595f-8853-fb9b6f646be2";
constexpr const char* kDatasetB = "830096df-1ce3-56ed-b51d-030b8f268e0e";
constexpr const char* kDatasetC = "8b1bef8f-c705-5c31-b9b7-7da92d50172e";
constexpr const char* kRun = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c";
constexpr const char* kOtherRun = "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d";
constexpr int64_t kNow = 1795614300;  // 2026-11-25T13:45:00Z
constexpr const char* kNowText = "2026-11-25T13:45:00Z";
constexpr const char* kUrlA = "https://archive.example/a.fits";
constexpr const char* kUrlB = "https://archive.example/b.fits";

// The ASL error name a step's error is raised as (the governance's).
std::string ErrorName(const runtime::StepError& e) {
  switch (e.error_class()) {
    case runtime::ErrorClass::kRetryable:
      return "RetryableError";
    case runtime::ErrorClass::kQuarantine:
      return "QuarantineError";
    case runtime::ErrorClass::kTerminal:
      break;
  }
  return "TerminalError";
}

// Answers each locator with a copy of the file the test put under it, or
// with the exception the test scripted; counts the fetches.
class ScriptedDownloader : public transfer::Downloader {
 public:
  transfer::Fetched Fetch(const std::string& locator,
                          const fs::path& directory) override {
    std::function<void()> failure;
    fs::path source;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++fetches[locator];
      if (auto f = failures.find(locator); f != failures.end())
        failure = f->second;
      if (auto s = files.find(locator); s != files.end()) source = s->second;
    }
    if (failure) failure();
    if (source.empty())
      throw transfer::FetchError(transfer::FetchFailure::kNotFound,
                                 "fetch " + locator + ": HTTP 404");
    fs::path copy = directory / ("fetch-" + std::to_string(++counter_));
    fs::copy_file(source, copy, fs::copy_options::overwrite_existing);
    transfer::Fetched fetched;
    fetched.file = copy;
    fetched.byte_length = static_cast<int64_t>(fs::file_size(copy));
    fetched.sha256 = transfer::Sha256OfFile(copy);
    // A file:// product has no ETag.
    if (locator.find("/file/") == std::string::npos)
      fetched.etag = "etag-" + fetched.sha256.substr(0, 8);
    return fetched;
  }
  std::map<std::string, fs::path> files;
  std::map<std::string, std::function<void()>> failures;
  std::map<std::string, int> fetches;

 private:
  std::mutex mutex_;
  std::atomic<int> counter_{0};
};

class DownloadStepsTest : public ::testing::Test {
 protected:
  DownloadStepsTest()
      : root_(fs::temp_directory_path() /
              ("novacat-download-steps-" + std::to_string(::getpid()) + "-" +
               std::to_string(++instances_))),
        objects_(root_ / "objects", "novacat-test") {
    fs::remove_all(root_);
    fs::create_directories(root_ / "sources");
    context_.workflow_name = "download_and_validate_spectra";
    context_.now = kNow;
  }
  ~DownloadStepsTest() override { fs::remove_all(root_); }

  // A spectra dataset of kNova, eligible for download, fetched from `url`
  // (none: only a provider key), with the provider's checksum when given.
  void AddDataset(const std::string& dataset_id, const std::string& provider,
                  std::optional<std::string> url,
                  std::optional<std::string> sha256 = std::nullopt) {
    store::Dataset d;
    d.nova_id = kNova;
    d.provider = provider;
    d.dataset_id = dataset_id;
    d.provider_identity = "identity-" + dataset_id;
    d.locators = json{{"product_timestamp", "2016-05-31T08:12:33Z"}};
    if (url) d.locators["url"] = *url;
    if (sha256) d.locators["sha256"] = *sha256;
    d.created_at = d.updated_at = "2026-11-25T00:00:00Z";
    d.eligibility = store::kEligibilityDownload;
    ASSERT_EQ(repository_.CreateDataset(d), store::CreateResult::kCreated);
  }
  // A FITS file the downloader serves under `url`.
  fs::path Serve(const std::string& url, fits::SpectrumFixture kind) {
    fs::path file = root_ / "sources" / (std::to_string(files_++) + ".fits");
    fits::WriteSpectrumFixture(file, kind);
    downloads_.files[url] = file;
    return file;
  }
  json Item(const std::string& dataset_id, const std::string& provider,
            const std::string& run = kRun) {
    return {{"dataset", {{"dataset_id", dataset_id}, {"provider", provider}}},
            {"nova_id", kNova},
            {"correlation_id", "0e6f1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c"},
            {"job_run_id", run}};
  }
  json Step(const char* state, const json& document) {
    return Dispatch(*steps_, state, document, context_);
  }
  // One item as the Map runs it: lease, then (when acquired) download and
  // validation; a failure goes to RecordDatasetFailure with the error as
  // the catcher puts it ($.error: Error, Cause).
  json RunItem(json document, DownloadAndValidateSpectraSteps& steps) {
    auto step = [&](const char* state) {
      document = Dispatch(steps, state, document, context_);
    };
    try {
      step("AcquireDatasetLease");
      if (document["lease_status"] != "ACQUIRED") return document;
      step("DownloadSpectrum");
      step("ValidateSpectrum");
    } catch (const runtime::StepError& e) {
      document["error"] = {{"Error", ErrorName(e)}, {"Cause", e.what()}};
      step("RecordDatasetFailure");
    }
    return document;
  }
  json RunItem(json document) { return RunItem(std::move(document), *steps_); }
  store::Dataset Stored(const std::string& dataset_id,
                        const std::string& provider) {
    return *repository_.GetDataset(
        {kNova, store::DatasetType::kSpectra, provider, dataset_id});
  }
  std::vector<std::string> Eligible() {
    std::vector<std::string> ids;
    for (const auto& d : repository_.QueryEligibleDatasets(kNova))
      ids.push_back(d.dataset_id);
    return ids;
  }
  int ObjectFiles() {
    int n = 0;
    for (const auto& e : fs::recursive_directory_iterator(root_ / "objects"))
      n += e.is_regular_file() ? 1 : 0;
    return n;
  }
  bool ScratchEmpty() {
    return !fs::exists(env_.scratch) || fs::is_empty(env_.scratch);
  }

  // Unique per process and per fixture: ctest runs tests in parallel
  // processes, and heap addresses repeat across processes under ASan.
  static inline int instances_ = 0;
  fs::path root_;
  int files_ = 0;
  store::MemoryTable table_;
  store::Repository repository_{table_};
  domain::FixtureResolver resolver_{"fixtures/resolver/names.json"};
  domain::FixtureProvider providers_{"fixtures/providers"};
  domain::FixtureReferenceSource references_{"fixtures/references"};
  runtime::SeededRandom random_{42};
  ScriptedDownloader downloads_;
  transfer::FolderObjectStore objects_;
  workflows::Environment env_{repository_, resolver_,        providers_,
                              references_, random_,          &downloads_,
                              &objects_,   root_ / "scratch"};
  std::unique_ptr<DownloadAndValidateSpectraSteps> steps_ = MakeSteps(env_);
  runtime::StepContext context_;
};

// --- QueryEligibleDatasets ---------------------------------------------------

TEST_F(DownloadStepsTest, QueryListsTheNovasEligibleSpectraOnly) {
  AddDataset(kDatasetA, "ESO", kUrlA);
  AddDataset(kDatasetB, "MAST", std::nullopt);
  store::Dataset photometry;
  photometry.nova_id = kNova;
  photometry.type = store::DatasetType::kPhotometry;
  photometry.provider = "AAVSO";
  photometry.dataset_id = kDatasetC;
  photometry.provider_identity = "identity-c";
  photometry.locators = json::object();
  photometry.created_at = photometry.updated_at = kNowText;
  photometry.eligibility = store::kEligibilityDownload;
  ASSERT_EQ(repository_.CreateDataset(photometry),
            store::CreateResult::kCreated);

  json out = Step("QueryEligibleDatasets", {{"nova_id", kNova}});
  EXPECT_EQ(
      out["datasets"],
      json::parse(
          R"([{"dataset_id":"4578f250-980c-595f-8853-fb9b6f646be2","provider":"ESO"},
                            {"dataset_id":"830096df-1ce3-56ed-b51d-030b8f268e0e","provider":"MAST"}])"));
  EXPECT_EQ(out["eligible_count"], 2);
}

// --- One item, end to end
// -----------------------------------------------------

TEST_F(DownloadStepsTest, AValidSpectrumIsStoredFingerprintedAndCompleted) {
  fs::path source = Serve(kUrlA, fits::SpectrumFixture::kValidImageWcs);
  const std::string sha256 = transfer::Sha256OfFile(source);
  const int64_t length = static_cast<int64_t>(fs::file_size(source));
  AddDataset(kDatasetA, "ESO", kUrlA, sha256);

  json item = RunItem(Item(kDatasetA, "ESO"));
  const std::string key =
      std::string("raw/") + kNova + "/" + kDatasetA + "/" + sha256 + ".fits";
  EXPECT_EQ(item["lease_status"], "ACQUIRED");
  EXPECT_EQ(item["sha256"], sha256);
  EXPECT_EQ(item["byte_length"], length);
  EXPECT_EQ(item["object_key"], key);
  EXPECT_EQ(item["validation_status"], "VALID");
  EXPECT_TRUE(item["quarantine_reason_code"].is_null());
  EXPECT_FALSE(item.contains("error"));

  store::Dataset d = Stored(kDatasetA, "ESO");
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kValid);
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kCompleted);
  EXPECT_EQ(d.lease_owner, std::nullopt);
  EXPECT_EQ(d.lease_expires_at, std::nullopt);
  EXPECT_EQ(d.eligibility, std::nullopt);
  EXPECT_EQ(d.sha256, sha256);
  EXPECT_EQ(d.byte_length, length);
  EXPECT_EQ(d.etag, "etag-" + sha256.substr(0, 8));
  fits::SpectrumCheck check =
      fits::CheckSpectrum(source, {{"provider", "ESO"}});
  ASSERT_TRUE(check.profile);
  EXPECT_EQ(d.header_signature, check.profile->header_signature);
  EXPECT_EQ(d.fits_checksum, check.fits_checksum);
  EXPECT_EQ(d.profile_selection, check.profile->ToJson());
  EXPECT_EQ(d.validation_details, check.ToJson());
  EXPECT_EQ(d.quarantine_reason_code, std::nullopt);
  EXPECT_TRUE(Eligible().empty());

  std::vector<store::FileObject> files =
      repository_.ListFileObjects(kNova, kDatasetA);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].file_id, "raw");
  EXPECT_EQ(files[0].bucket, "novacat-test");
  EXPECT_EQ(files[0].key, key);
  EXPECT_EQ(files[0].sha256, sha256);
  EXPECT_EQ(files[0].byte_length, length);
  EXPECT_EQ(files[0].content_type, "application/fits");
  EXPECT_EQ(repository_.FindByS3Object("novacat-test", key).size(), 1u);
  EXPECT_EQ(transfer::Sha256OfFile(root_ / "objects" / "novacat-test" / key),
            sha256);
  EXPECT_TRUE(ScratchEmpty());
}

// MAST serves IUE's spectra gzip-compressed (*.mxlo.gz): stored as served,
// under the same kind of key, and checked decompressed.
TEST_F(DownloadStepsTest, AGzipCompressedProductIsStoredAsServedAndValid) {
  const std::string url =
      "https://mast.stsci.edu/api/v0.1/Download/file?uri=mast:IUE/url/pub/"
      "iue/data/lwr/01000/lwr01642.mxlo.gz";
  fs::path source = Serve(url, fits::SpectrumFixture::kIueSwpMxloGzip);
  const std::string sha256 = transfer::Sha256OfFile(source);
  AddDataset(kDatasetB, "MAST", url);

  json item = RunItem(Item(kDatasetB, "MAST"));
  const std::string key =
      std::string("raw/") + kNova + "/" + kDatasetB + "/" + sha256 + ".fits";
  EXPECT_EQ(item["validation_status"], "VALID");
  EXPECT_EQ(item["sha256"], sha256);
  EXPECT_EQ(item["byte_length"], static_cast<int64_t>(fs::file_size(source)));
  EXPECT_EQ(item["object_key"], key);

  store::Dataset d = Stored(kDatasetB, "MAST");
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kValid);
  EXPECT_EQ(d.sha256, sha256);
  fits::SpectrumCheck check =
      fits::CheckSpectrum(source, {{"provider", "MAST"}});
  ASSERT_TRUE(check.profile);
  EXPECT_EQ(d.profile_selection, check.profile->ToJson());
  EXPECT_EQ((*d.profile_selection)["profile"], "IUE_MXLO");
  EXPECT_EQ((*d.profile_selection)["compression"], "gzip");
  EXPECT_EQ(d.validation_details, check.ToJson());
  EXPECT_EQ((*d.validation_details)["compression"], "gzip");
  // The header signature is the decompressed file's, as for the plain one.
  fs::path plain = root_ / "sources" / "plain.fits";
  fits::WriteSpectrumFixture(plain, fits::SpectrumFixture::kIueSwpMxlo);
  EXPECT_EQ(d.header_signature,
            fits::CheckSpectrum(plain).profile->header_signature);

  std::vector<store::FileObject> files =
      repository_.ListFileObjects(kNova, kDatasetB);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].key, key);
  EXPECT_EQ(files[0].content_type, "application/fits");
  // The bytes the provider served, gzip and all.
  EXPECT_EQ(transfer::Sha256OfFile(root_ / "objects" / "novacat-test" / key),
            sha256);
  EXPECT_TRUE(ScratchEmpty());
}

TEST_F(DownloadStepsTest, AChecksumMismatchIsQuarantinedAtOnceAndNotStored) {
  fs::path source = Serve(kUrlA, fits::SpectrumFixture::kValidImageWcs);
  const std::string actual = transfer::Sha256OfFile(source);
  const std::string expected(64, 'a');
  AddDataset(kDatasetA, "ESO", kUrlA, expected);

  json document = Step("AcquireDatasetLease", Item(kDatasetA, "ESO"));
  try {
    Step("DownloadSpectrum", document);
    FAIL() << "no QuarantineError";
  } catch (const runtime::QuarantineError& e) {
    EXPECT_EQ(std::string(e.what()),
              "checksum_mismatch: CHECKSUM_MISMATCH: sha256 " + actual +
                  " of " + kUrlA + " differs from the provider's " + expected);
  }
  json item = RunItem(Item(kDatasetA, "ESO"));
  EXPECT_EQ(item["validation_status"], "QUARANTINED");
  EXPECT_EQ(item["quarantine_reason_code"], "CHECKSUM_MISMATCH");
  store::Dataset d = Stored(kDatasetA, "ESO");
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kQuarantined);
  EXPECT_EQ(d.quarantine_reason_code, "CHECKSUM_MISMATCH");
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kQuarantined);
  // What was fetched, for the review; no fingerprints (no header read).
  EXPECT_EQ(d.validation_details,
            json({{"locator", kUrlA},
                  {"expected_sha256", expected},
                  {"sha256", actual},
                  {"byte_length", 5760},
                  {"etag", "etag-" + actual.substr(0, 8)}}));
  EXPECT_EQ(d.sha256, std::nullopt);
  EXPECT_EQ(d.lease_owner, std::nullopt);
  EXPECT_TRUE(Eligible().empty());
  EXPECT_TRUE(repository_.ListFileObjects(kNova, kDatasetA).empty());
  EXPECT_FALSE(fs::exists(root_ / "objects"));
  EXPECT_TRUE(ScratchEmpty());
}

TEST_F(DownloadStepsTest, BadContentIsQuarantinedWithItsReasonAndProfile) {
  fs::path source = Serve(kUrlA, fits::SpectrumFixture::kNanFlux);
  AddDataset(kDatasetA, "ESO", kUrlA);
  fits::SpectrumCheck check =
      fits::CheckSpectrum(source, {{"provider", "ESO"}});
  ASSERT_EQ(check.problem, fits::SpectrumProblem::kNonFiniteFlux);

  json document = Step("AcquireDatasetLease", Item(kDatasetA, "ESO"));
  document = Step("DownloadSpectrum", document);
  try {
    Step("ValidateSpectrum", document);
    FAIL() << "no QuarantineError";
  } catch (const runtime::QuarantineError& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid_spectrum_content: NON_FINITE_FLUX: " + check.detail);
    document["error"] = {{"Error", "QuarantineError"}, {"Cause", e.what()}};
  }
  document = Step("RecordDatasetFailure", document);
  EXPECT_EQ(document["validation_status"], "QUARANTINED");
  EXPECT_EQ(document["quarantine_reason_code"], "NON_FINITE_FLUX");
  store::Dataset d = Stored(kDatasetA, "ESO");
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kQuarantined);
  EXPECT_EQ(d.quarantine_reason_code, "NON_FINITE_FLUX");
  // ValidateSpectrum's details and profile are kept, not replaced by the
  // caught error.
  EXPECT_EQ(d.validation_details, check.ToJson());
  EXPECT_EQ(d.profile_selection, check.profile->ToJson());
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kQuarantined);
  EXPECT_EQ(d.lease_owner, std::nullopt);
  EXPECT_TRUE(Eligible().empty());
  // The raw file stays in the store for the review.
  EXPECT_EQ(repository_.ListFileObjects(kNova, kDatasetA).size(), 1u);
}

TEST_F(DownloadStepsTest, AFailingArchiveLeavesTheDatasetRetryableAndEligible) {
  AddDataset(kDatasetA, "ESO", kUrlA);
  downloads_.failures[kUrlA] = [] {
    throw runtime::RetryableError(
        "fetch https://archive.example/a.fits: "
        "HTTP 503");
  };
  json item = RunItem(Item(kDatasetA, "ESO"));
  EXPECT_EQ(item["validation_status"], "RETRYABLE_ERROR");
  EXPECT_TRUE(item["quarantine_reason_code"].is_null());
  store::Dataset d = Stored(kDatasetA, "ESO");
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kRetryableError);
  EXPECT_EQ(
      d.validation_details,
      json({{"error", "RetryableError"},
            {"cause", "fetch https://archive.example/a.fits: HTTP 503"}}));
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kFailedRetryable);
  EXPECT_EQ(d.failed_runs, 1);
  EXPECT_EQ(d.lease_owner, std::nullopt);
  EXPECT_EQ(Eligible(), std::vector<std::string>{kDatasetA});

  // The next run takes it again (AP-DL-2 from FAILED_RETRYABLE) and, the
  // archive answering, completes it: the count of failed runs is gone.
  downloads_.failures.clear();
  Serve(kUrlA, fits::SpectrumFixture::kValidTable);
  json again = RunItem(Item(kDatasetA, "ESO", kOtherRun));
  EXPECT_EQ(again["lease_status"], "ACQUIRED");
  EXPECT_EQ(again["validation_status"], "VALID");
  EXPECT_EQ(Stored(kDatasetA, "ESO").validation_status,
            store::ValidationStatus::kValid);
  EXPECT_EQ(Stored(kDatasetA, "ESO").failed_runs, std::nullopt);
}

TEST_F(DownloadStepsTest, ADatasetFailingEveryRunIsQuarantinedAtTheLimit) {
  AddDataset(kDatasetA, "ESO", kUrlA);
  const json died = {{"Error", "Runtime.ExitError"},
                     {"Cause", R"({"errorType":"Runtime.ExitError"})"}};
  auto run_id = [](int64_t run) {  // a job_run_id of its own per run
    std::string digits = std::to_string(run);
    return "00000000-0000-4000-8000-" + std::string(12 - digits.size(), '0') +
           digits;
  };
  for (int64_t run = 1; run < kMaxFailedRuns; ++run) {
    json document =
        Step("AcquireDatasetLease", Item(kDatasetA, "ESO", run_id(run)));
    ASSERT_EQ(document["lease_status"], "ACQUIRED") << run;
    document["error"] = died;
    json recorded = Step("RecordDatasetFailure", document);
    EXPECT_EQ(recorded["validation_status"], "RETRYABLE_ERROR") << run;
    // A retry of the step after its release landed counts nothing more.
    EXPECT_EQ(Step("RecordDatasetFailure", document)["validation_status"],
              "RETRYABLE_ERROR");
    store::Dataset d = Stored(kDatasetA, "ESO");
    EXPECT_EQ(d.failed_runs, run);
    EXPECT_EQ(d.processing_status, store::ProcessingStatus::kFailedRetryable);
    EXPECT_EQ(Eligible(), std::vector<std::string>{kDatasetA}) << run;
  }
  json last = Step("AcquireDatasetLease",
                   Item(kDatasetA, "ESO", run_id(kMaxFailedRuns)));
  last["error"] = died;
  json recorded = Step("RecordDatasetFailure", last);
  EXPECT_EQ(recorded["validation_status"], "QUARANTINED");
  EXPECT_EQ(recorded["quarantine_reason_code"], "RETRIES_EXHAUSTED");
  // A retry of the step after its release landed answers the same.
  json again = Step("RecordDatasetFailure", last);
  EXPECT_EQ(again["validation_status"], "QUARANTINED");
  EXPECT_EQ(again["quarantine_reason_code"], "RETRIES_EXHAUSTED");
  store::Dataset d = Stored(kDatasetA, "ESO");
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kQuarantined);
  EXPECT_EQ(d.quarantine_reason_code, "RETRIES_EXHAUSTED");
  EXPECT_EQ(d.validation_details,
            json({{"error", "Runtime.ExitError"},
                  {"cause", R"({"errorType":"Runtime.ExitError"})"},
                  {"failed_runs", 16},
                  {"job_run_id", run_id(kMaxFailedRuns)}}));
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kQuarantined);
  EXPECT_EQ(d.failed_runs, 16);
  EXPECT_EQ(d.lease_owner, std::nullopt);
  EXPECT_EQ(Eligible(), std::vector<std::string>{});
  // Never leased again: a person reviews it...
  EXPECT_EQ(RunItem(Item(kDatasetA, "ESO", kOtherRun))["lease_status"],
            "NOT_ACQUIRABLE");
  // ... and requeues it once the archive answers: the next run completes it.
  ASSERT_EQ(repository_.RequeueDataset(d.key(), kNow, kNowText).status,
            store::RequeueResult::Status::kRequeued);
  Serve(kUrlA, fits::SpectrumFixture::kValidTable);
  json valid = RunItem(Item(kDatasetA, "ESO", kOtherRun));
  EXPECT_EQ(valid["validation_status"], "VALID");
  EXPECT_EQ(Stored(kDatasetA, "ESO").processing_status,
            store::ProcessingStatus::kCompleted);
}

TEST_F(DownloadStepsTest, ADatasetWithNothingToFetchIsTerminalInvalid) {
  AddDataset(kDatasetB, "MAST", std::nullopt);
  json document = Step("AcquireDatasetLease", Item(kDatasetB, "MAST"));
  try {
    Step("DownloadSpectrum", document);
    FAIL() << "no TerminalError";
  } catch (const runtime::TerminalError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("missing_locator: dataset ") + kDatasetB +
                  " (MAST) has no url and no provider key to fetch");
  }
  json item = RunItem(Item(kDatasetB, "MAST"));
  EXPECT_EQ(item["validation_status"], "TERMINAL_INVALID");
  store::Dataset d = Stored(kDatasetB, "MAST");
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kTerminalInvalid);
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kFailedTerminal);
  EXPECT_TRUE(Eligible().empty());
}

TEST_F(DownloadStepsTest, AnEsoProductWithoutUrlIsFetchedByItsKey) {
  const std::string url =
      std::string(domain::kEsoFileEndpoint) + "ADP.2016-06-02T10:01:19.512";
  Serve(url, fits::SpectrumFixture::kValidTable);
  AddDataset(kDatasetB, "ESO", std::nullopt);
  ASSERT_EQ(repository_.UpdateDatasetLocators(
                {kNova, store::DatasetType::kSpectra, "ESO", kDatasetB},
                {json{{"product_timestamp", "2016-05-31T06:45:10Z"},
                      {"provider_key", "ADP.2016-06-02T10:01:19.512"}},
                 std::nullopt},
                kNowText),
            store::UpdateOutcome::kUpdated);
  json item = RunItem(Item(kDatasetB, "ESO"));
  EXPECT_EQ(item["validation_status"], "VALID");
  EXPECT_EQ(downloads_.fetches[url], 1);
  // No ETag from the server: the fingerprints have none.
  store::Dataset d = Stored(kDatasetB, "ESO");
  EXPECT_EQ(d.etag, std::nullopt);
  EXPECT_EQ(d.byte_length, 8640);
  EXPECT_TRUE(d.header_signature && d.header_signature->size() == 64);
}

TEST_F(DownloadStepsTest, AProductTheArchiveDoesNotHaveIsQuarantined) {
  AddDataset(kDatasetA, "ESO", kUrlA);  // nothing served: HTTP 404
  json item = RunItem(Item(kDatasetA, "ESO"));
  EXPECT_EQ(item["validation_status"], "QUARANTINED");
  EXPECT_EQ(item["quarantine_reason_code"], "NOT_FOUND");
  EXPECT_EQ(item["error"]["Cause"],
            "product_unavailable: NOT_FOUND: fetch "
            "https://archive.example/a.fits: HTTP 404");
}

// --- Leases
// -------------------------------------------------------------------

TEST_F(DownloadStepsTest, ALiveLeaseIsSkippedAndAnExpiredOneReclaimed) {
  AddDataset(kDatasetA, "ESO", kUrlA);
  Serve(kUrlA, fits::SpectrumFixture::kValidImageWcs);
  EXPECT_EQ(Step("AcquireDatasetLease",
                 Item(kDatasetA, "ESO", kOtherRun))["lease_status"],
            "ACQUIRED");
  json skipped = RunItem(Item(kDatasetA, "ESO"));
  EXPECT_EQ(skipped["lease_status"], "HELD_BY_OTHER");
  EXPECT_FALSE(skipped.contains("validation_status"));
  EXPECT_EQ(downloads_.fetches[kUrlA], 0);

  // Still held at its expiry; taken over one second later.
  context_.now = kNow + kLeaseSeconds;
  EXPECT_EQ(RunItem(Item(kDatasetA, "ESO"))["lease_status"], "HELD_BY_OTHER");
  context_.now = kNow + kLeaseSeconds + 1;
  json reclaimed = RunItem(Item(kDatasetA, "ESO"));
  EXPECT_EQ(reclaimed["lease_status"], "ACQUIRED");
  EXPECT_EQ(reclaimed["validation_status"], "VALID");

  // The run that lost its lease can no longer write its results.
  json late = Item(kDatasetA, "ESO", kOtherRun);
  late["error"] = {{"Error", "RetryableError"}, {"Cause", "timeout"}};
  // (the dataset completed, leased by no one: its answer is the caught
  // error's class, nothing written)
  EXPECT_EQ(Step("RecordDatasetFailure", late)["validation_status"],
            "RETRYABLE_ERROR");
  EXPECT_EQ(Stored(kDatasetA, "ESO").validation_status,
            store::ValidationStatus::kValid);
  // A completed dataset is not taken again.
  EXPECT_EQ(RunItem(Item(kDatasetA, "ESO", kOtherRun))["lease_status"],
            "NOT_ACQUIRABLE");
}

// Issue 39: a run whose lease expired and passed to another downloads
// nothing, is not retried (TERMINAL lease_lost) and writes nothing; the
// item counts as skipped.
TEST_F(DownloadStepsTest, ARunThatLostItsLeaseDownloadsNothing) {
  AddDataset(kDatasetA, "ESO", kUrlA);
  Serve(kUrlA, fits::SpectrumFixture::kValidImageWcs);
  json late = Step("AcquireDatasetLease", Item(kDatasetA, "ESO"));
  ASSERT_EQ(late["lease_status"], "ACQUIRED");
  context_.now = kNow + kLeaseSeconds + 1;
  ASSERT_EQ(Step("AcquireDatasetLease",
                 Item(kDatasetA, "ESO", kOtherRun))["lease_status"],
            "ACQUIRED");
  store::Dataset before = Stored(kDatasetA, "ESO");

  try {
    Step("DownloadSpectrum", late);
    FAIL() << "no TerminalError";
  } catch (const runtime::TerminalError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("lease_lost: DownloadSpectrum: dataset ") +
                  kDatasetA + ": the lease is no longer this run's");
  }
  EXPECT_EQ(downloads_.fetches[kUrlA], 0);
  late["error"] = {{"Error", "TerminalError"}, {"Cause", "lease_lost: x"}};
  json item = Step("RecordDatasetFailure", late);
  EXPECT_EQ(item["lease_status"], "LOST");
  EXPECT_FALSE(item.contains("validation_status"));
  EXPECT_EQ(Stored(kDatasetA, "ESO"), before);
  EXPECT_EQ(before.lease_owner, kOtherRun);
  EXPECT_TRUE(ScratchEmpty());
}

// The store calls DownloadSpectrum makes, which its access_patterns name
// (specs/download_and_validate_spectra.yaml: AP-DL-5, AP-DL-6): the dataset
// read, the fence's read and the FileObject put (AP-DL-6); a checksum
// mismatch writes the validation result instead (AP-DL-5). Never the
// fingerprints (AP-DL-4, ValidateSpectrum's).
TEST_F(DownloadStepsTest, DownloadSpectrumRunsItsAccessPatternsOnly) {
  Serve(kUrlA, fits::SpectrumFixture::kValidImageWcs);
  AddDataset(kDatasetA, "ESO", kUrlA);
  AddDataset(kDatasetB, "MAST", kUrlB, std::string(64, 'a'));
  Serve(kUrlB, fits::SpectrumFixture::kValidImageWcs);
  json a = Step("AcquireDatasetLease", Item(kDatasetA, "ESO"));
  json b = Step("AcquireDatasetLease", Item(kDatasetB, "MAST"));
  store::FaultInjectingTable recording(table_);
  store::Repository repository(recording);
  workflows::Environment env{repository,  resolver_,        providers_,
                             references_, random_,          &downloads_,
                             &objects_,   root_ / "scratch"};
  std::unique_ptr<DownloadAndValidateSpectraSteps> steps = MakeSteps(env);
  using Op = store::Operation;
  auto ops = [&] {
    std::vector<std::pair<Op, std::string>> out;
    for (const auto& call : recording.calls())
      out.push_back({call.operation, call.key.sk});
    return out;
  };
  const std::string dataset_a = Stored(kDatasetA, "ESO").key().ToKey().sk;
  const std::string dataset_b = Stored(kDatasetB, "MAST").key().ToKey().sk;

  Dispatch(*steps, "DownloadSpectrum", a, context_);
  EXPECT_EQ(ops(),
            (std::vector<std::pair<Op, std::string>>{
                {Op::kGetItem, dataset_a},
                {Op::kGetItem, dataset_a},
                {Op::kPutItem, std::string("FILE#") + kDatasetA + "#raw"}}));
  size_t before = recording.calls().size();
  EXPECT_THROW(Dispatch(*steps, "DownloadSpectrum", b, context_),
               runtime::QuarantineError);
  std::vector<std::pair<Op, std::string>> mismatch = ops();
  mismatch.erase(mismatch.begin(), mismatch.begin() + before);
  EXPECT_EQ(mismatch,
            (std::vector<std::pair<Op, std::string>>{
                {Op::kGetItem, dataset_b}, {Op::kUpdateItem, dataset_b}}));
}

// The steps that record a result on a dataset declare a dedupe key: a
// retried attempt is recognisable as the same side effect in the logs.
TEST_F(DownloadStepsTest, StepsRecordingResultsHaveDedupeKeys) {
  AddDataset(kDatasetA, "ESO", kUrlA);
  json item = Step("AcquireDatasetLease", Item(kDatasetA, "ESO"));
  item["sha256"] = std::string(64, 'b');
  runtime::WorkflowBinding binding = MakeBinding(*steps_);
  EXPECT_EQ(binding.dedupe_key("RecordDatasetFailure", item),
            std::string("DatasetFailure:") + kDatasetA + ":" + kRun);
  EXPECT_EQ(
      binding.dedupe_key("ValidateSpectrum", item),
      std::string("Validation:") + kDatasetA + ":" + std::string(64, 'b'));
  EXPECT_EQ(binding.dedupe_key("DownloadSpectrum", item),
            std::string("Download:") + kDatasetA + ":" + kRun);
}

TEST_F(DownloadStepsTest, TheSameValidBytesAreNotValidatedAgain) {
  Serve(kUrlA, fits::SpectrumFixture::kValidImageWcs);
  AddDataset(kDatasetA, "ESO", kUrlA);
  ASSERT_EQ(RunItem(Item(kDatasetA, "ESO"))["validation_status"], "VALID");
  // Made eligible again (an operator's re-download): the same bytes come
  // back, nothing is read from the store (its file is gone) or rewritten.
  store::DatasetKey key{kNova, store::DatasetType::kSpectra, "ESO", kDatasetA};
  ASSERT_EQ(repository_.SetDownloadEligibility(key, store::kEligibilityDownload,
                                               kNowText),
            store::UpdateOutcome::kUpdated);
  store::Update ready;
  ready.set["processing_status"] = "READY";
  ASSERT_TRUE(table_.UpdateItem(key.ToKey(), ready, std::nullopt).applied());
  store::Dataset before = Stored(kDatasetA, "ESO");
  fs::remove_all(root_ / "objects");
  json again = RunItem(Item(kDatasetA, "ESO", kOtherRun));
  EXPECT_EQ(again["validation_status"], "VALID");
  EXPECT_EQ(downloads_.fetches[kUrlA], 2);
  EXPECT_FALSE(fs::exists(root_ / "objects"));
  store::Dataset after = Stored(kDatasetA, "ESO");
  EXPECT_EQ(after.header_signature, before.header_signature);
  EXPECT_EQ(after.validation_details, before.validation_details);
  EXPECT_EQ(after.processing_status, store::ProcessingStatus::kCompleted);
}

// Two runs on one nova, item by item at the same time: every dataset has
// exactly one lease winner, is fetched once and gets one FileObject.
TEST_F(DownloadStepsTest, RacingRunsLeaveOneWinnerPerDataset) {
  const std::vector<std::string> ids = {kDatasetA, kDatasetB, kDatasetC};
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string url = "https://archive.example/" + ids[i] + ".fits";
    Serve(url, fits::SpectrumFixture::kValidImageWcs);
    AddDataset(ids[i], "ESO", url);
  }
  auto other = MakeSteps(env_);
  std::vector<json> results_a, results_b;
  std::thread a([&] {
    for (const auto& id : ids) results_a.push_back(RunItem(Item(id, "ESO")));
  });
  std::thread b([&] {
    for (const auto& id : ids)
      results_b.push_back(RunItem(Item(id, "ESO", kOtherRun), *other));
  });
  a.join();
  b.join();
  for (size_t i = 0; i < ids.size(); ++i) {
    int winners = (results_a[i]["lease_status"] == "ACQUIRED") +
                  (results_b[i]["lease_status"] == "ACQUIRED");
    EXPECT_EQ(winners, 1) << ids[i];
    EXPECT_EQ(downloads_.fetches["https://archive.example/" + ids[i] + ".fits"],
              1);
    EXPECT_EQ(repository_.ListFileObjects(kNova, ids[i]).size(), 1u);
    EXPECT_EQ(Stored(ids[i], "ESO").validation_status,
              store::ValidationStatus::kValid);
  }
}

// --- SummarizeDownloads and the reason codes
// ------------------------------------

TEST_F(DownloadStepsTest, SummaryCountsEveryKindOfItem) {
  json state = {
      {"nova_id", kNova},
      {"download_results",
       json::array(
           {{{"dataset_id", kDatasetA},
             {"lease_status", "ACQUIRED"},
             {"validation_status", "VALID"}},
            {{"dataset_id", kDatasetB},
             {"lease_status", "ACQUIRED"},
             {"validation_status", "QUARANTINED"}},
            {{"dataset_id", kDatasetC},
             {"lease_status", "ACQUIRED"},
             {"validation_status", "RETRYABLE_ERROR"}},
            {{"dataset_id", kDatasetC},
             {"lease_status", "ACQUIRED"},
             {"validation_status", "TERMINAL_INVALID"}},
            {{"dataset_id", kDatasetC}, {"lease_status", "HELD_BY_OTHER"}},
            {{"dataset_id", kDatasetC}, {"lease_status", "NOT_ACQUIRABLE"}},
            {{"dataset_id", kDatasetC}, {"lease_status", "LOST"}},
            // RecordDatasetFailure failed too (DatasetFailureUnrecorded).
            {{"dataset_id", kDatasetB},
             {"lease_status", "ACQUIRED"},
             {"error",
              {{"Error", "RetryableError"}, {"Cause", "throttled"}}}}})}};
  json out = Step("SummarizeDownloads", state);
  EXPECT_EQ(out["valid_dataset_ids"], json::array({kDatasetA}));
  EXPECT_EQ(out["valid_count"], 1);
  EXPECT_EQ(out["quarantined_count"], 1);
  EXPECT_EQ(out["failed_count"], 3);
  EXPECT_EQ(out["skipped_count"], 3);

  state["download_results"].push_back({{"dataset_id", kDatasetA}});
  try {
    Step("SummarizeDownloads", state);
    FAIL() << "no TerminalError";
  } catch (const runtime::TerminalError& e) {
    EXPECT_STREQ(e.what(),
                 "SummarizeDownloads: download_results[8] has neither a "
                 "validation_status nor a skipped lease");
  }
}

TEST(QuarantineReasonCodeTest, TakesTheCodeAfterTheFailureId) {
  EXPECT_EQ(QuarantineReasonCode("checksum_mismatch: CHECKSUM_MISMATCH: x"),
            "CHECKSUM_MISMATCH");
  EXPECT_EQ(QuarantineReasonCode("invalid_spectrum_content: NON_FINITE_FLUX: "
                                 "flux[3] is NaN"),
            "NON_FINITE_FLUX");
  EXPECT_EQ(QuarantineReasonCode("product_unavailable: not a code: x"),
            "PRODUCT_UNAVAILABLE");
  EXPECT_EQ(QuarantineReasonCode("product_unavailable: NOT_FOUND"),
            "PRODUCT_UNAVAILABLE");
  EXPECT_EQ(QuarantineReasonCode("no failure id at all"), "UNSPECIFIED");
  EXPECT_EQ(QuarantineReasonCode(""), "UNSPECIFIED");
}

}  // namespace
}  // namespace steps_test
}  // namespace novacat::download_and_validate_spectra
