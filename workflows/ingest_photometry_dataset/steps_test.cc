// Unit tests of the ingest_photometry_dataset step logic: the steps over a
// MemoryTable repository and a FolderObjectStore in a temporary folder,
// files registered with RegisterPhotometryFile (the fixtures' light curve
// of V1500 Cyg, or files the tests write), called through the generated
// dispatcher as the state machine runs them.
#include "ingest_photometry_dataset/steps.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "novacat/domain/fixtures.h"
#include "novacat/fits/photometry.h"
#include "novacat/runtime/errors.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/repository.h"
#include "novacat/transfer/download.h"
#include "novacat/transfer/object_store.h"

namespace novacat::ingest_photometry_dataset {
namespace steps_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kNova = "5b0f8a52-7c1e-4d3a-9f6b-2e8c1a7d4b90";
constexpr const char* kRun = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c";
constexpr const char* kOtherRun = "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d";
constexpr const char* kBucket = "novacat-test";
constexpr int64_t kNow = 1795614300;  // 2026-11-25T13:45:00Z
constexpr const char* kNowText = "2026-11-25T13:45:00Z";
constexpr const char* kCsvFixture = "fixtures/photometry/v1500cyg_aavso.csv";
constexpr const char* kFitsFixture = "fixtures/photometry/v1500cyg_aavso.fits";

// The derived light curve of the CSV fixture: its 10 usable rows (JD made
// MJD), in file order.
constexpr const char* kFixtureLightCurve =
    "time_mjd,magnitude,magnitude_error,band\n"
    "42654.25,3.2,0.05,V\n"
    "42654.25,3.55,0.05,B\n"
    "42655,2.1,0.04,V\n"
    "42655,2.4,0.04,B\n"
    "42655.75,1.85,0.03,V\n"
    "42656.5,2.05,0.03,V\n"
    "42656.5,2.35,0.03,B\n"
    "42658.25,2.6,0.04,V\n"
    "42660,3.1,0.05,V\n"
    "42660,3.5,0.05,B\n";

// The ASL error name of a step's error (the governance's), as the catcher
// puts it in $.error.Error.
std::string ErrorName(const runtime::StepError& e) {
  static const std::map<runtime::ErrorClass, std::string> kNames = {
      {runtime::ErrorClass::kRetryable, "RetryableError"},
      {runtime::ErrorClass::kQuarantine, "QuarantineError"},
      {runtime::ErrorClass::kTerminal, "TerminalError"}};
  return kNames.at(e.error_class());
}

class PhotometryStepsTest : public ::testing::Test {
 protected:
  PhotometryStepsTest()
      : root_(fs::temp_directory_path() /
              ("novacat-photometry-steps-" + std::to_string(::getpid()) + "-" +
               std::to_string(++instances_))),
        objects_(root_ / "objects", kBucket) {
    fs::remove_all(root_);
    fs::create_directories(root_ / "files");
    context_.workflow_name = "ingest_photometry_dataset";
    context_.now = kNow;
    store::Nova nova;
    nova.nova_id = kNova;
    nova.primary_name = "V1500 Cyg";
    nova.normalized_name = "V1500 CYG";
    nova.ra_deg = 315.5;
    nova.dec_deg = 48.0;
    nova.status = "ACTIVE";
    nova.created_at = "2026-01-01T00:00:00Z";
    EXPECT_EQ(repository_.CreateNova(nova), store::CreateResult::kCreated);
  }
  ~PhotometryStepsTest() override { fs::remove_all(root_); }

  RegisteredPhotometry Register(const fs::path& file,
                                const std::string& now = kNowText) {
    return RegisterPhotometryFile(repository_, objects_, kNova, "AAVSO", file,
                                  now);
  }
  // A file of the test's, under root_/files.
  fs::path Write(const std::string& name, const std::string& bytes) {
    fs::path file = root_ / "files" / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  }
  // The workflow's document after BeginJobRun: the input and the run.
  static json Input(const RegisteredPhotometry& registered,
                    const std::string& run = kRun) {
    json document = registered.input;
    document["correlation_id"] = "0e6f1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c";
    document["job_run_id"] = run;
    return document;
  }
  json Step(const char* state, const json& document) {
    return Step(state, document, *steps_);
  }
  json Step(const char* state, const json& document,
            IngestPhotometryDatasetSteps& steps) {
    return Dispatch(steps, state, document, context_);
  }
  // The domain Tasks as the state machine runs them: Resolve, Lease, then
  // (when acquired) Ingest, whose failure goes to RecordIngestionQuarantine
  // (QUARANTINE) or RecordIngestionFailure (the others) with the error as
  // the catcher puts it. Errors of the first two propagate (the workflow's
  // own catch).
  json Run(json document, IngestPhotometryDatasetSteps& steps) {
    document = Step("ResolveS3Object", document, steps);
    document = Step("AcquireDatasetLease", document, steps);
    if (document["lease_status"] != "ACQUIRED") return document;
    try {
      return Step("IngestPhotometry", document, steps);
    } catch (const runtime::StepError& e) {
      document["error"] = {{"Error", ErrorName(e)}, {"Cause", e.what()}};
      return Step(e.error_class() == runtime::ErrorClass::kQuarantine
                      ? "RecordIngestionQuarantine"
                      : "RecordIngestionFailure",
                  document, steps);
    }
  }
  json Run(json document) { return Run(std::move(document), *steps_); }
  store::DatasetKey Key(const std::string& dataset_id) {
    return {kNova, store::DatasetType::kPhotometry, "AAVSO", dataset_id};
  }
  store::Dataset Stored(const std::string& dataset_id) {
    return *repository_.GetDataset(Key(dataset_id));
  }
  fs::path ObjectPath(const std::string& key) { return objects_.PathOf(key); }
  std::string Read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  bool ScratchEmpty() {
    return !fs::exists(env_.scratch) || fs::is_empty(env_.scratch);
  }
  // The message of the StepError of class E `call` throws ("" when none).
  template <typename E, typename F>
  std::string ErrorOf(F call) {
    try {
      call();
    } catch (const E& e) {
      return e.what();
    }
    return "";
  }

  // Unique per process and per fixture: ctest runs tests in parallel
  // processes.
  static inline int instances_ = 0;
  fs::path root_;
  store::MemoryTable table_;
  store::Repository repository_{table_};
  domain::FixtureResolver resolver_{"fixtures/resolver/names.json"};
  domain::FixtureProvider providers_{"fixtures/providers"};
  domain::FixtureReferenceSource references_{"fixtures/references"};
  runtime::SeededRandom random_{42};
  transfer::FolderObjectStore objects_;
  workflows::Environment env_{repository_, resolver_,        providers_,
                              references_, random_,          nullptr,
                              &objects_,   root_ / "scratch"};
  std::unique_ptr<IngestPhotometryDatasetSteps> steps_ = MakeSteps(env_);
  runtime::StepContext context_;
};

// --- RegisterPhotometryFile --------------------------------------------------

TEST_F(PhotometryStepsTest, RegisterWritesDatasetFileObjectThenObject) {
  const std::string sha256 = transfer::Sha256OfFile(kCsvFixture);
  const int64_t length = static_cast<int64_t>(fs::file_size(kCsvFixture));
  RegisteredPhotometry r = Register(kCsvFixture);
  EXPECT_TRUE(r.created);
  EXPECT_EQ(r.dataset_id, domain::DatasetId("AAVSO:" + sha256));
  const std::string key = std::string("photometry/") + kNova + "/" +
                          r.dataset_id + "/" + sha256 + ".csv";
  EXPECT_EQ(r.input, json({{"bucket", kBucket},
                           {"key", key},
                           {"etag", r.input["etag"]},
                           {"byte_length", length}}));
  EXPECT_EQ(r.input["etag"].get<std::string>().size(), 32u);

  store::Dataset d = Stored(r.dataset_id);
  EXPECT_EQ(d.provider_identity, "AAVSO:" + sha256);
  EXPECT_EQ(d.locators, json({{"file_name", "v1500cyg_aavso.csv"}}));
  EXPECT_EQ(d.created_at, kNowText);
  EXPECT_EQ(d.updated_at, kNowText);
  EXPECT_EQ(d.eligibility, std::nullopt);
  EXPECT_EQ(d.processing_status, std::nullopt);
  std::vector<store::FileObject> files =
      repository_.ListFileObjects(kNova, r.dataset_id);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].dataset_type, store::DatasetType::kPhotometry);
  EXPECT_EQ(files[0].provider, "AAVSO");
  EXPECT_EQ(files[0].file_id, "raw");
  EXPECT_EQ(files[0].bucket, kBucket);
  EXPECT_EQ(files[0].key, key);
  EXPECT_EQ(files[0].byte_length, length);
  EXPECT_EQ(files[0].sha256, sha256);
  EXPECT_EQ(files[0].content_type, "text/csv");
  EXPECT_EQ(files[0].created_at, kNowText);
  EXPECT_EQ(transfer::Sha256OfFile(ObjectPath(key)), sha256);

  // The same file again, later: the same dataset, FileObject and object.
  RegisteredPhotometry again = Register(kCsvFixture, "2026-11-26T08:00:00Z");
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.dataset_id, r.dataset_id);
  EXPECT_EQ(again.input, r.input);
  EXPECT_EQ(Stored(r.dataset_id), d);
  EXPECT_EQ(repository_.ListFileObjects(kNova, r.dataset_id), files);
  EXPECT_EQ(repository_.FindByS3Object(kBucket, key).size(), 1u);
}

TEST_F(PhotometryStepsTest, RegisterKeepsAFitsFileAsFits) {
  const std::string sha256 = transfer::Sha256OfFile(kFitsFixture);
  RegisteredPhotometry r = Register(kFitsFixture);
  EXPECT_EQ(r.input["key"], std::string("photometry/") + kNova + "/" +
                                r.dataset_id + "/" + sha256 + ".fits");
  EXPECT_EQ(repository_.ListFileObjects(kNova, r.dataset_id)[0].content_type,
            "application/fits");
  EXPECT_EQ(Stored(r.dataset_id).locators,
            json({{"file_name", "v1500cyg_aavso.fits"}}));
}

TEST_F(PhotometryStepsTest, RegisterRefusesAnUnknownNovaOrABadId) {
  const std::string unknown = "0b7f2d7e-1c3a-4e5b-9a8c-7d6e5f4a3b2c";
  EXPECT_EQ(ErrorOf<runtime::TerminalError>([&] {
              RegisterPhotometryFile(repository_, objects_, unknown, "AAVSO",
                                     kCsvFixture, kNowText);
            }),
            std::string("register photometry ") + kCsvFixture + ": nova " +
                unknown + " does not exist");
  EXPECT_EQ(ErrorOf<runtime::TerminalError>([&] {
              RegisterPhotometryFile(repository_, objects_, "V1500 Cyg",
                                     "AAVSO", kCsvFixture, kNowText);
            }),
            std::string("register photometry ") + kCsvFixture +
                ": nova_id \"V1500 Cyg\" is not a UUID");
  EXPECT_EQ(ErrorOf<runtime::TerminalError>([&] {
              RegisterPhotometryFile(repository_, objects_, kNova, "AA#VSO",
                                     kCsvFixture, kNowText);
            }),
            std::string("register photometry ") + kCsvFixture +
                ": provider \"AA#VSO\" must be non-empty and without '#'");
  // Nothing was written.
  EXPECT_FALSE(fs::exists(root_ / "objects"));
  EXPECT_TRUE(
      repository_
          .ListProviderDatasets(kNova, "AAVSO", store::DatasetType::kPhotometry)
          .empty());
}

// --- ResolveS3Object ---------------------------------------------------------

TEST_F(PhotometryStepsTest, ResolveFindsTheObjectsDataset) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json out = Step("ResolveS3Object", Input(r));
  EXPECT_EQ(out["nova_id"], kNova);
  EXPECT_EQ(out["dataset_id"], r.dataset_id);
  EXPECT_EQ(out["provider"], "AAVSO");
}

TEST_F(PhotometryStepsTest, ResolveOfAnUnknownObjectIsTerminal) {
  json input = {{"bucket", kBucket},
                {"key", "photometry/stray.csv"},
                {"etag", "9b2cf535f27731c974343645a3985328"},
                {"job_run_id", kRun}};
  EXPECT_EQ(
      ErrorOf<runtime::TerminalError>([&] { Step("ResolveS3Object", input); }),
      "unknown_object: no FileObject maps "
      "s3://novacat-test/photometry/stray.csv");
}

TEST_F(PhotometryStepsTest, ResolveOfAnObjectTwoFileObjectsClaimIsQuarantined) {
  RegisteredPhotometry r = Register(kCsvFixture);
  store::FileObject other =
      repository_.ListFileObjects(kNova, r.dataset_id).front();
  other.dataset_id = "0b7f2d7e-1c3a-4e5b-9a8c-7d6e5f4a3b2c";
  repository_.PutFileObject(other);
  EXPECT_EQ(ErrorOf<runtime::QuarantineError>(
                [&] { Step("ResolveS3Object", Input(r)); }),
            "ambiguous_object: AMBIGUOUS_OBJECT: 2 FileObjects map s3://" +
                std::string(kBucket) + "/" + r.input["key"].get<std::string>() +
                " (datasets 0b7f2d7e-1c3a-4e5b-9a8c-7d6e5f4a3b2c, " +
                r.dataset_id + ")");
}

TEST_F(PhotometryStepsTest, ResolveOfASpectraObjectIsTerminal) {
  store::FileObject spectrum;
  spectrum.nova_id = kNova;
  spectrum.dataset_type = store::DatasetType::kSpectra;
  spectrum.provider = "ESO";
  spectrum.dataset_id = "4578f250-980c-595f-8853-fb9b6f646be2";
  spectrum.file_id = "raw";
  spectrum.bucket = kBucket;
  spectrum.key = "raw/a.fits";
  spectrum.created_at = kNowText;
  repository_.PutFileObject(spectrum);
  json input = {{"bucket", kBucket},
                {"key", "raw/a.fits"},
                {"etag", "9b2cf535f27731c974343645a3985328"}};
  EXPECT_EQ(
      ErrorOf<runtime::TerminalError>([&] { Step("ResolveS3Object", input); }),
      "unknown_object: s3://novacat-test/raw/a.fits belongs to SPECTRA "
      "dataset 4578f250-980c-595f-8853-fb9b6f646be2, not to a "
      "photometry dataset");
}

// --- AcquireDatasetLease -----------------------------------------------------

TEST_F(PhotometryStepsTest, ALiveLeaseIsSkippedAndAnExpiredOneReclaimed) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json mine = Step("ResolveS3Object", Input(r));
  json theirs = Step("ResolveS3Object", Input(r, kOtherRun));
  EXPECT_EQ(Step("AcquireDatasetLease", theirs)["lease_status"], "ACQUIRED");
  store::Dataset d = Stored(r.dataset_id);
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kInProgress);
  EXPECT_EQ(d.lease_owner, kOtherRun);
  EXPECT_EQ(d.lease_expires_at, kNow + 30 * 60);
  // A retry of the holder's acquire keeps it.
  EXPECT_EQ(Step("AcquireDatasetLease", theirs)["lease_status"], "ACQUIRED");

  // Still held at its expiry; taken over one second later.
  context_.now = kNow + kLeaseSeconds;
  EXPECT_EQ(Step("AcquireDatasetLease", mine)["lease_status"], "HELD_BY_OTHER");
  EXPECT_EQ(Stored(r.dataset_id).lease_owner, kOtherRun);
  context_.now = kNow + kLeaseSeconds + 1;
  EXPECT_EQ(Step("AcquireDatasetLease", mine)["lease_status"], "ACQUIRED");
  EXPECT_EQ(Stored(r.dataset_id).lease_owner, kRun);
}

TEST_F(PhotometryStepsTest, AnIngestedDatasetIsNotAcquirable) {
  RegisteredPhotometry r = Register(kCsvFixture);
  ASSERT_EQ(Run(Input(r))["ingestion_status"], "INGESTED");
  json again = Run(Input(r, kOtherRun));
  EXPECT_EQ(again["lease_status"], "NOT_ACQUIRABLE");
  EXPECT_FALSE(again.contains("ingestion_status"));
  EXPECT_EQ(Stored(r.dataset_id).processing_status,
            store::ProcessingStatus::kCompleted);
}

TEST_F(PhotometryStepsTest, ADatasetThatIsGoneIsTerminal) {
  json document = {{"bucket", kBucket},
                   {"key", "photometry/a.csv"},
                   {"etag", "9b2cf535f27731c974343645a3985328"},
                   {"job_run_id", kRun},
                   {"nova_id", kNova},
                   {"dataset_id", "0b7f2d7e-1c3a-4e5b-9a8c-7d6e5f4a3b2c"},
                   {"provider", "AAVSO"}};
  EXPECT_EQ(ErrorOf<runtime::TerminalError>(
                [&] { Step("AcquireDatasetLease", document); }),
            std::string("unknown_object: dataset "
                        "0b7f2d7e-1c3a-4e5b-9a8c-7d6e5f4a3b2c of nova ") +
                kNova + " no longer exists");
}

// --- IngestPhotometry --------------------------------------------------------

TEST_F(PhotometryStepsTest, TheCsvFixtureIsIngested) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json out = Run(Input(r));
  const std::string artifact = std::string("derived/photometry/") + kNova +
                               "/" + r.dataset_id + "/light_curve.csv";
  EXPECT_EQ(out["lease_status"], "ACQUIRED");
  EXPECT_EQ(out["ingestion_status"], "INGESTED");
  EXPECT_EQ(out["rows_total"], 12);
  EXPECT_EQ(out["rows_usable"], 10);
  EXPECT_EQ(out["rows_bad"], 2);
  EXPECT_EQ(out["bands"], json({"B", "V"}));
  EXPECT_EQ(out["artifact_key"], artifact);
  EXPECT_FALSE(out.contains("error"));
  EXPECT_EQ(Read(ObjectPath(artifact)), kFixtureLightCurve);

  store::Dataset d = Stored(r.dataset_id);
  EXPECT_EQ(d.ingestion_status, "INGESTED");
  EXPECT_EQ(d.artifacts,
            json({{"light_curve",
                   {{"bucket", kBucket},
                    {"key", artifact},
                    {"rows", 10},
                    {"sha256", runtime::Sha256Hex(kFixtureLightCurve)}}}}));
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kValid);
  EXPECT_EQ(d.quarantine_reason_code, std::nullopt);
  EXPECT_EQ(d.validation_details, fits::CheckPhotometry(kCsvFixture).ToJson());
  EXPECT_EQ((*d.validation_details)["rows_bad"], 2);
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kCompleted);
  EXPECT_EQ(d.lease_owner, std::nullopt);
  EXPECT_EQ(d.lease_expires_at, std::nullopt);
  EXPECT_EQ(d.updated_at, kNowText);
  // The derived curve has no FileObject: it never starts the workflow.
  EXPECT_TRUE(repository_.FindByS3Object(kBucket, artifact).empty());
  EXPECT_TRUE(ScratchEmpty());
}

TEST_F(PhotometryStepsTest, TheFitsFixtureIsIngested) {
  RegisteredPhotometry r = Register(kFitsFixture);
  json out = Run(Input(r));
  fits::PhotometryCheck check = fits::CheckPhotometry(kFitsFixture);
  EXPECT_EQ(check.format, "FITS_BINTABLE");
  EXPECT_EQ(out["ingestion_status"], "INGESTED");
  EXPECT_EQ(out["rows_total"], 12);
  EXPECT_EQ(out["rows_usable"], 10);
  EXPECT_EQ(out["rows_bad"], 2);
  EXPECT_EQ(out["bands"], json({"B", "V"}));
  // The same light curve as the CSV's.
  EXPECT_EQ(Read(ObjectPath(out["artifact_key"])), kFixtureLightCurve);
  store::Dataset d = Stored(r.dataset_id);
  EXPECT_EQ(d.ingestion_status, "INGESTED");
  EXPECT_EQ(d.validation_details, check.ToJson());
  EXPECT_EQ(d.artifacts->at("light_curve").at("rows"), 10);
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kCompleted);
  EXPECT_TRUE(ScratchEmpty());
}

TEST_F(PhotometryStepsTest, AFileWithNoUsableRowIsQuarantined) {
  RegisteredPhotometry r =
      Register(Write("bad.csv",
                     "MJD,MAG,MAG_ERR,BAND\n42654.25,3.2,0,V\n"
                     "42655,x,0.04,B\n-1,2.1,0.04,V\n"));
  fits::PhotometryCheck check =
      fits::CheckPhotometry(root_ / "files" / "bad.csv");
  json document =
      Step("AcquireDatasetLease", Step("ResolveS3Object", Input(r)));
  EXPECT_EQ(ErrorOf<runtime::QuarantineError>(
                [&] { Step("IngestPhotometry", document); }),
            "invalid_photometry: NO_USABLE_ROWS: " + check.detail);
  EXPECT_FALSE(check.detail.empty());
  EXPECT_TRUE(ScratchEmpty());

  json out = Run(Input(r));  // the run's retry of the Tasks: the same lease
  EXPECT_EQ(out["ingestion_status"], "QUARANTINED");
  EXPECT_EQ(out["quarantine_reason_code"], "NO_USABLE_ROWS");
  store::Dataset d = Stored(r.dataset_id);
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kQuarantined);
  EXPECT_EQ(d.quarantine_reason_code, "NO_USABLE_ROWS");
  EXPECT_EQ(
      d.validation_details,
      json({{"cause", "invalid_photometry: NO_USABLE_ROWS: " + check.detail}}));
  EXPECT_EQ(d.ingestion_status, "QUARANTINED");
  EXPECT_EQ(d.artifacts, std::nullopt);
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kQuarantined);
  EXPECT_EQ(d.lease_owner, std::nullopt);
  EXPECT_FALSE(fs::exists(root_ / "objects" / kBucket / "derived"));
  EXPECT_TRUE(ScratchEmpty());
}

TEST_F(PhotometryStepsTest, AFileMissingAColumnIsQuarantined) {
  RegisteredPhotometry r = Register(
      Write("no_band.csv", "JD,Magnitude,Uncertainty\n2442654.75,3.20,0.05\n"));
  fits::PhotometryCheck check =
      fits::CheckPhotometry(root_ / "files" / "no_band.csv");
  ASSERT_EQ(check.problem, fits::PhotometryProblem::kMissingColumns);
  json out = Run(Input(r));
  EXPECT_EQ(out["error"]["Cause"],
            "invalid_photometry: MISSING_COLUMNS: " + check.detail);
  EXPECT_EQ(out["ingestion_status"], "QUARANTINED");
  EXPECT_EQ(out["quarantine_reason_code"], "MISSING_COLUMNS");
  store::Dataset d = Stored(r.dataset_id);
  EXPECT_EQ(d.quarantine_reason_code, "MISSING_COLUMNS");
  EXPECT_EQ(d.ingestion_status, "QUARANTINED");
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kQuarantined);
  EXPECT_FALSE(fs::exists(root_ / "objects" / kBucket / "derived"));
  EXPECT_TRUE(ScratchEmpty());
}

TEST_F(PhotometryStepsTest, AnObjectThatIsGoneOrElsewhereIsTerminal) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json document =
      Step("AcquireDatasetLease", Step("ResolveS3Object", Input(r)));
  const std::string key = r.input["key"];
  json elsewhere = document;
  elsewhere["bucket"] = "another-bucket";
  EXPECT_EQ(ErrorOf<runtime::TerminalError>(
                [&] { Step("IngestPhotometry", elsewhere); }),
            "unknown_object: s3://another-bucket/" + key +
                " is not in the catalog's bucket novacat-test");
  fs::remove(ObjectPath(key));
  EXPECT_EQ(ErrorOf<runtime::TerminalError>(
                [&] { Step("IngestPhotometry", document); }),
            "unknown_object: s3://novacat-test/" + key + " is gone");
  EXPECT_TRUE(ScratchEmpty());

  workflows::Environment no_store = env_;
  no_store.objects = nullptr;
  Steps steps(no_store);
  EXPECT_EQ(ErrorOf<runtime::TerminalError>(
                [&] { Step("IngestPhotometry", document, steps); }),
            "the Environment has no object store (ingest_photometry_dataset "
            "reads and writes the catalog's bucket)");
}

// A store whose Get fails as a throttled S3 does.
class ThrottledStore : public transfer::ObjectStore {
 public:
  explicit ThrottledStore(transfer::ObjectStore& store) : store_(store) {}
  const std::string& bucket() const override { return store_.bucket(); }
  transfer::StoredObject Put(const std::string& key, const fs::path& file,
                             const std::string& content_type) override {
    return store_.Put(key, file, content_type);
  }
  std::optional<transfer::Fetched> Get(const std::string& key,
                                       const fs::path&) override {
    throw runtime::RetryableError("get s3://" + bucket() + "/" + key +
                                  ": S3 HTTP 503");
  }

 private:
  transfer::ObjectStore& store_;
};

TEST_F(PhotometryStepsTest, AThrottledStoreIsRetryableThenRecorded) {
  RegisteredPhotometry r = Register(kCsvFixture);
  ThrottledStore throttled(objects_);
  workflows::Environment env = env_;
  env.objects = &throttled;
  Steps steps(env);
  json out = Run(Input(r), steps);
  const std::string cause = "get s3://novacat-test/" +
                            r.input["key"].get<std::string>() + ": S3 HTTP 503";
  EXPECT_EQ(out["error"],
            json({{"Error", "RetryableError"}, {"Cause", cause}}));
  EXPECT_EQ(out["ingestion_status"], "FAILED_RETRYABLE");
  EXPECT_TRUE(out["quarantine_reason_code"].is_null());
  store::Dataset d = Stored(r.dataset_id);
  EXPECT_EQ(d.validation_status, store::ValidationStatus::kRetryableError);
  EXPECT_EQ(d.validation_details, json({{"cause", cause}}));
  EXPECT_EQ(d.ingestion_status, "FAILED_RETRYABLE");
  EXPECT_EQ(d.processing_status, store::ProcessingStatus::kFailedRetryable);
  EXPECT_EQ(d.lease_owner, std::nullopt);

  // The store answering again, a new run takes the dataset and ingests it.
  json again = Run(Input(r, kOtherRun));
  EXPECT_EQ(again["lease_status"], "ACQUIRED");
  EXPECT_EQ(again["ingestion_status"], "INGESTED");
  EXPECT_EQ(Stored(r.dataset_id).validation_status,
            store::ValidationStatus::kValid);
}

TEST_F(PhotometryStepsTest, ARunThatLostItsLeaseWritesNothing) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json late = Step("AcquireDatasetLease", Step("ResolveS3Object", Input(r)));
  context_.now = kNow + kLeaseSeconds + 1;
  ASSERT_EQ(Step("AcquireDatasetLease",
                 Step("ResolveS3Object", Input(r, kOtherRun)))["lease_status"],
            "ACQUIRED");
  store::Dataset before = Stored(r.dataset_id);

  EXPECT_EQ(
      ErrorOf<runtime::TerminalError>([&] { Step("IngestPhotometry", late); }),
      "lease_lost: IngestPhotometry: dataset " + r.dataset_id +
          ": PutValidationResult answered NOT_LEASE_HOLDER");
  late["error"] = {{"Error", "TerminalError"}, {"Cause", "lease_lost: ..."}};
  json recorded = Step("RecordIngestionFailure", late);
  EXPECT_EQ(recorded["ingestion_status"], "FAILED_TERMINAL");
  EXPECT_EQ(Stored(r.dataset_id), before);
  EXPECT_EQ(before.lease_owner, kOtherRun);
  EXPECT_EQ(before.validation_status, std::nullopt);
  EXPECT_EQ(before.ingestion_status, std::nullopt);
  EXPECT_TRUE(ScratchEmpty());
}

// The steps that record a result on the dataset declare a dedupe key.
TEST_F(PhotometryStepsTest, StepsRecordingResultsHaveDedupeKeys) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json document = Step("ResolveS3Object", Input(r));
  runtime::WorkflowBinding binding = MakeBinding(*steps_);
  EXPECT_EQ(binding.dedupe_key("RecordIngestionFailure", document),
            "PhotometryFailure:" + r.dataset_id + ":" + kRun);
  EXPECT_EQ(binding.dedupe_key("RecordIngestionQuarantine", document),
            "PhotometryQuarantine:" + r.dataset_id + ":" + kRun);
}

TEST_F(PhotometryStepsTest, ARetryAfterTheWritesLandedAnswersTheStoredResult) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json document =
      Step("AcquireDatasetLease", Step("ResolveS3Object", Input(r)));
  json first = Step("IngestPhotometry", document);
  store::Dataset ingested = Stored(r.dataset_id);
  fs::remove_all(root_ / "objects");  // nothing is read again
  context_.now = kNow + 60;
  json retry = Step("IngestPhotometry", document);
  EXPECT_EQ(retry, first);
  EXPECT_EQ(Stored(r.dataset_id), ingested);
  EXPECT_FALSE(fs::exists(root_ / "objects"));
}

// --- RecordIngestionFailure --------------------------------------------------

TEST_F(PhotometryStepsTest, EachErrorClassIsRecordedOnTheDataset) {
  struct Case {
    const char* error;
    const char* cause;
    const char* ingestion_status;
    store::ValidationStatus validation_status;
    std::optional<std::string> reason_code;
    store::ProcessingStatus processing_status;
  };
  const std::vector<Case> cases = {
      {"QuarantineError", "invalid_photometry: UNREADABLE: a NUL byte",
       "QUARANTINED", store::ValidationStatus::kQuarantined, "UNREADABLE",
       store::ProcessingStatus::kQuarantined},
      {"TerminalError", "unknown_object: s3://novacat-test/x is gone",
       "FAILED_TERMINAL", store::ValidationStatus::kTerminalInvalid,
       std::nullopt, store::ProcessingStatus::kFailedTerminal},
      {"States.Timeout", "Task timed out after 120 seconds", "FAILED_RETRYABLE",
       store::ValidationStatus::kRetryableError, std::nullopt,
       store::ProcessingStatus::kFailedRetryable},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(c.error);
    RegisteredPhotometry r = Register(
        Write(std::to_string(i) + ".csv",
              "MJD,MAG,MAG_ERR,BAND\n4265" + std::to_string(i) + ",3,0.1,V\n"));
    context_.now = kNow + static_cast<int64_t>(i);
    json document =
        Step("AcquireDatasetLease", Step("ResolveS3Object", Input(r)));
    document["error"] = {{"Error", c.error}, {"Cause", c.cause}};
    // The spec routes QUARANTINE to RecordIngestionQuarantine, the others
    // to RecordIngestionFailure; both record any class the same way.
    const char* task = std::string_view(c.error) == "QuarantineError"
                           ? "RecordIngestionQuarantine"
                           : "RecordIngestionFailure";
    json out = Step(task, document);
    EXPECT_EQ(out["ingestion_status"], c.ingestion_status);
    EXPECT_EQ(out["quarantine_reason_code"],
              c.reason_code ? json(*c.reason_code) : json(nullptr));
    store::Dataset d = Stored(r.dataset_id);
    EXPECT_EQ(d.validation_status, c.validation_status);
    EXPECT_EQ(d.quarantine_reason_code, c.reason_code);
    EXPECT_EQ(d.validation_details, json({{"cause", c.cause}}));
    EXPECT_EQ(d.ingestion_status, c.ingestion_status);
    EXPECT_EQ(d.artifacts, std::nullopt);
    EXPECT_EQ(d.processing_status, c.processing_status);
    EXPECT_EQ(d.lease_owner, std::nullopt);
    EXPECT_EQ(d.lease_expires_at, std::nullopt);
    EXPECT_EQ(d.updated_at, runtime::FormatTimestamp(context_.now));
    // A retry of the step (its first answer lost), or the other Task,
    // changes nothing.
    EXPECT_EQ(Step(task, document), out);
    EXPECT_EQ(Step("RecordIngestionFailure", document), out);
    EXPECT_EQ(Stored(r.dataset_id), d);
  }
}

TEST_F(PhotometryStepsTest, RecordingWithoutAnErrorIsTerminal) {
  RegisteredPhotometry r = Register(kCsvFixture);
  json document =
      Step("AcquireDatasetLease", Step("ResolveS3Object", Input(r)));
  EXPECT_EQ(ErrorOf<runtime::TerminalError>(
                [&] { Step("RecordIngestionFailure", document); }),
            "RecordIngestionFailure: the document has no error");
}

// --- Races and the CSV form --------------------------------------------------

// Two runs of one object at the same time: exactly one takes the lease and
// ingests; the other is skipped.
TEST_F(PhotometryStepsTest, RacingRunsIngestOnce) {
  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE(round);
    RegisteredPhotometry r = Register(Write(
        std::to_string(round) + ".csv",
        "MJD,MAG,MAG_ERR,BAND\n4265" + std::to_string(round) + ",3,0.1,V\n"));
    auto other = MakeSteps(env_);
    json a, b;
    std::thread ta([&] { a = Run(Input(r)); });
    std::thread tb([&] { b = Run(Input(r, kOtherRun), *other); });
    ta.join();
    tb.join();
    EXPECT_EQ(
        (a["lease_status"] == "ACQUIRED") + (b["lease_status"] == "ACQUIRED"),
        1);
    EXPECT_EQ((a.value("ingestion_status", "") == "INGESTED") +
                  (b.value("ingestion_status", "") == "INGESTED"),
              1);
    int artifacts = 0;
    for (const auto& e : fs::recursive_directory_iterator(root_ / "objects" /
                                                          kBucket / "derived"))
      artifacts += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(artifacts, round + 1);
    EXPECT_EQ(Stored(r.dataset_id).processing_status,
              store::ProcessingStatus::kCompleted);
  }
  EXPECT_TRUE(ScratchEmpty());
}

TEST(IngestLightCurveCsvTest, NumbersAreShortestAndBandsQuotedWhenNeeded) {
  fits::PhotometryCheck check;
  check.rows = {{60000.123456789, 12.5, 1e-05, "V"},
                {0.1, -2, 0.3, "Johnson, \"R\""}};
  EXPECT_EQ(LightCurveCsv(check),
            "time_mjd,magnitude,magnitude_error,band\n"
            "60000.123456789,12.5,1e-05,V\n"
            "0.1,-2,0.3,\"Johnson, \"\"R\"\"\"\n");
  EXPECT_EQ(LightCurveKey("n", "d"), "derived/photometry/n/d/light_curve.csv");
}

}  // namespace
}  // namespace steps_test
}  // namespace novacat::ingest_photometry_dataset
