// Every repository and TableRecordStore function under injected table
// faults (FaultInjectingTable: throttle, timeout, 5xx, connection reset, and
// "applied then lost"), on every test backend.
//
// For each function, each of its table calls n and each fault: the call
// with the n-th table call failing must throw runtime::RetryableError (never
// answer, never TerminalError), and calling it again (what Step Functions'
// Retry does) must give a success answer and leave exactly the items a
// fault-free call leaves: nothing half-written, nothing duplicated, even
// when the failed call's write had landed.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends.h"
#include "novacat/runtime/errors.h"
#include "novacat/store/fault_injecting_table.h"
#include "novacat/store/repository.h"
#include "novacat/store/table_record_store.h"
#include "store_test_util.h"

namespace novacat::store {
namespace repository_fault_test {
namespace {

using testing::Backend;

using namespace testing::ids;

constexpr const char* kKey = "DownloadAndValidate:n:1:2026-11-25T00:00:00Z";

Nova MakeNova(const char* id, std::string name = "V1500 Cyg") {
  Nova nova;
  nova.nova_id = id;
  nova.primary_name = std::move(name);
  nova.normalized_name = "v1500 cyg";
  nova.ra_deg = 315.5;
  nova.dec_deg = 47.75;
  nova.status = "ACTIVE";
  nova.created_at = kT0;
  return nova;
}

Alias MakeAlias(const char* nova_id) {
  return {"nova cyg 1975", nova_id, "Nova Cyg 1975", kT0};
}

Dataset MakeDataset() {
  Dataset d;
  d.nova_id = kNova;
  d.provider = "ESO";
  d.dataset_id = kDs1;
  d.provider_identity = "ESO|p-1";
  d.locators = {{"url", "https://archive.example/p-1"}};
  d.created_at = d.updated_at = kT0;
  return d;
}

FileObject MakeFile() {
  return {kNova,         DatasetType::kSpectra, "ESO", kDs1, "raw",
          "novacat-raw", "spectra/a.fits",      2880,  kSha, std::nullopt,
          kT0,           std::nullopt};
}

runtime::JobRun MakeRun() {
  runtime::JobRun run;
  run.job_run_id = kRunA;
  run.workflow = "download_and_validate_spectra";
  run.nova_id = kNova;
  run.correlation_id = "7382d1e7-7ae6-459a-8561-d8057935c08e";
  run.execution_arn = "arn:e";
  run.started_at = kT0;
  return run;
}

runtime::Attempt MakeAttempt() {
  runtime::Attempt a;
  a.job_run_id = kRunA;
  a.nova_id = kNova;
  a.state_name = "DownloadSpectrum";
  a.correlation_id = "7382d1e7-7ae6-459a-8561-d8057935c08e";
  a.started_at = a.ended_at = kT0;
  return a;
}

// The answers, as text to compare.
template <class T>
std::string Dump(const std::vector<T>& values) {
  std::string out;
  for (const T& v : values) out += v.ToItem().dump() + "\n";
  return out;
}
std::string Dump(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += v + "\n";
  return out;
}
std::string Dump(const AliasResult& r) {
  switch (r.status) {
    case AliasResult::Status::kCreated:
      return "CREATED";
    case AliasResult::Status::kAlreadyMapped:
      return "ALREADY_MAPPED";
    case AliasResult::Status::kMappedToOtherNova:
      return "MAPPED_TO_OTHER_NOVA " + r.other_nova_id;
  }
  return "?";
}
std::string Dump(const LeaseResult& r) {
  return std::string(LeaseStatusName(r.status)) + " " + r.owner + " " +
         std::to_string(r.expires_at);
}
std::string Dump(const DiscoveryDateResult& r) {
  return std::string(r.status == DiscoveryDateResult::Status::kUpdated
                         ? "UPDATED"
                     : r.status == DiscoveryDateResult::Status::kUnchanged
                         ? "UNCHANGED"
                         : "NOT_FOUND") +
         " " + r.discovery_date.value_or("-");
}
std::string Dump(const RequeueResult& r) {
  return r.status == RequeueResult::Status::kRequeued ? "REQUEUED"
         : r.status == RequeueResult::Status::kNotFound
             ? "NOT_FOUND"
             : std::string("NOT_REQUEUEABLE ") +
                   (r.processing_status
                        ? ProcessingStatusName(*r.processing_status)
                        : "-");
}
std::string Dump(ReleaseResult r) {
  return r == ReleaseResult::kReleased  ? "RELEASED"
         : r == ReleaseResult::kNotHeld ? "NOT_HELD"
                                        : "NOT_FOUND";
}
std::string Dump(runtime::UpdateResult r) {
  switch (r) {
    case runtime::UpdateResult::kUpdated:
      return "UPDATED";
    case runtime::UpdateResult::kUnchanged:
      return "UNCHANGED";
    case runtime::UpdateResult::kNotFound:
      return "NOT_FOUND";
    case runtime::UpdateResult::kConflict:
      return "CONFLICT";
  }
  return "?";
}
std::string Dump(const runtime::LockResult& r) {
  return std::string(runtime::LockStatusName(r.status)) + " " +
         r.owner_job_run_id;
}

struct Api {
  Repository& repo;
  TableRecordStore& records;
};

struct FaultCase {
  std::string name;
  std::function<void(Api)> setup;
  std::function<std::string(Api)> call;
  // The answers a retry may give after a fault; empty: exactly the
  // fault-free answer (reads, and writes whose retry cannot tell).
  std::vector<std::string> retry_answers;
};

// Every partition the cases touch, on the table and on each index: the
// state compared after a retry.
std::vector<Item> Snapshot(Table& table) {
  const std::pair<Index, std::string> partitions[] = {
      {Index::kTable, std::string("NOVA#") + kNova},
      {Index::kTable, std::string("NOVA#") + kNova2},
      {Index::kTable, "SKY#+47"},
      {Index::kTable, "NAME#nova cyg 1975"},
      {Index::kTable, std::string("LOCK#") + kKey},
      {Index::kGsi1, std::string("NOVA#") + kNova},
      {Index::kGsi2, "NAME#nova cyg 1975"},
      {Index::kGsi3, "S3#novacat-raw"},
  };
  std::vector<Item> items;
  for (const auto& [index, pk] : partitions) {
    QueryRequest request;
    request.index = index;
    request.partition_key = pk;
    for (Item& item : table.QueryAll(request)) items.push_back(std::move(item));
  }
  return items;
}

std::vector<FaultCase> Cases() {
  DatasetKey ds = MakeDataset().key();
  auto with_nova = [](Api a) { a.repo.CreateNova(MakeNova(kNova)); };
  auto with_dataset = [](Api a) { a.repo.CreateDataset(MakeDataset()); };
  auto with_lease = [](Api a) {
    a.repo.CreateDataset(MakeDataset());
    a.repo.AcquireDatasetLease(MakeDataset().key(), kRunA, 1000, 600);
  };
  auto nothing = [](Api) {};
  const std::vector<std::string> created{"CREATED", "ALREADY_EXISTS"};
  const std::vector<std::string> updated{"UPDATED"};
  return {
      // initialize_nova
      {"ResolveName",
       [](Api a) {
         a.repo.PutAlias(MakeAlias(kNova));
         a.repo.PutAlias(MakeAlias(kNova2), AliasPolicy::kAllowMany);
       },
       [](Api a) { return Dump(a.repo.ResolveName("nova cyg 1975")); },
       {}},
      {"CreateNova", nothing,
       [](Api a) {
         return CreateResultName(a.repo.CreateNova(MakeNova(kNova)));
       },
       created},
      {"CreateNovaConflict",
       with_nova,
       [](Api a) {
         return CreateResultName(a.repo.CreateNova(MakeNova(kNova, "Other")));
       },
       {}},
      {"PutAliasExclusive",
       nothing,
       [](Api a) { return Dump(a.repo.PutAlias(MakeAlias(kNova))); },
       {"CREATED", "ALREADY_MAPPED"}},
      {"PutAliasAllowMany",
       [](Api a) { a.repo.PutAlias(MakeAlias(kNova)); },
       [](Api a) {
         return Dump(
             a.repo.PutAlias(MakeAlias(kNova2), AliasPolicy::kAllowMany));
       },
       {"CREATED", "ALREADY_MAPPED"}},
      {"PutAliasRefused",
       [](Api a) { a.repo.PutAlias(MakeAlias(kNova)); },
       [](Api a) { return Dump(a.repo.PutAlias(MakeAlias(kNova2))); },
       {}},
      {"NovaeNear",
       with_nova,
       [](Api a) { return Dump(a.repo.NovaeNear(315.5, 47.75, 5)); },
       {}},
      // ListNovae is NovaeNear's read over all 180 bands: a fault at each of
      // its 180 queries would cost minutes on dynalite and prove nothing
      // more.
      // ingest_new_nova
      {"GetNova",
       with_nova,
       [](Api a) { return a.repo.GetNova(kNova)->ToItem().dump(); },
       {}},
      {"UpdateNovaCoordinatorState", with_nova,
       [](Api a) {
         NovaCoordinatorState s;
         s.ingest_status = "INGESTING";
         s.last_ingest_at = kT1;
         return UpdateOutcomeName(a.repo.UpdateNovaCoordinatorState(kNova, s));
       },
       updated},
      // refresh_references
      {"UpsertReference",
       nothing,
       [](Api a) {
         a.repo.UpsertReference(
             {kNova, "ref-1", "ADS", "k", std::nullopt, "1975-08-29", kT0});
         return std::string("OK");
       },
       {"OK"}},
      {"ListReferences",
       [](Api a) {
         a.repo.UpsertReference(
             {kNova, "ref-1", "ADS", "k", std::nullopt, std::nullopt, kT0});
       },
       [](Api a) { return Dump(a.repo.ListReferences(kNova)); },
       {}},
      {"LinkNovaReference", nothing,
       [](Api a) {
         return CreateResultName(
             a.repo.LinkNovaReference({kNova, "ref-1", kT0}));
       },
       created},
      {"ListNovaReferences",
       [](Api a) {
         a.repo.LinkNovaReference({kNova, "ref-1", kT0});
       },
       [](Api a) { return Dump(a.repo.ListNovaReferences(kNova)); },
       {}},
      {"UpdateDiscoveryDate",
       with_nova,
       [](Api a) {
         return Dump(a.repo.UpdateDiscoveryDate(kNova, "1975-08-29", "ref-1"));
       },
       {"UPDATED 1975-08-29", "UNCHANGED 1975-08-29"}},
      // discover_spectra_products
      {"ListProviderDatasets",
       with_dataset,
       [](Api a) { return Dump(a.repo.ListProviderDatasets(kNova, "ESO")); },
       {}},
      {"CreateDataset", nothing,
       [](Api a) {
         return CreateResultName(a.repo.CreateDataset(MakeDataset()));
       },
       created},
      {"UpdateDatasetLocators", with_dataset,
       [ds](Api a) {
         return UpdateOutcomeName(a.repo.UpdateDatasetLocators(
             ds, {Item{{"id", "x"}}, std::nullopt}, kT1));
       },
       updated},
      {"SetDownloadEligibility", with_dataset,
       [ds](Api a) {
         return UpdateOutcomeName(
             a.repo.SetDownloadEligibility(ds, "DOWNLOAD", kT1));
       },
       updated},
      // download_and_validate_spectra / ingest_photometry_dataset
      {"QueryEligibleDatasets",
       [ds](Api a) {
         a.repo.CreateDataset(MakeDataset());
         a.repo.SetDownloadEligibility(ds, "DOWNLOAD", kT1);
       },
       [](Api a) { return Dump(a.repo.QueryEligibleDatasets(kNova)); },
       {}},
      {"AcquireDatasetLease",
       with_dataset,
       [ds](Api a) {
         return Dump(a.repo.AcquireDatasetLease(ds, kRunA, 1000, 600));
       },
       {"ACQUIRED " + std::string(kRunA) + " 1600"}},
      {"AcquireDatasetLeaseHeld",
       with_lease,
       [ds](Api a) {
         return Dump(a.repo.AcquireDatasetLease(ds, kRunB, 1001, 600));
       },
       {}},
      {"RequeueDataset",
       [ds](Api a) {
         a.repo.CreateDataset(MakeDataset());
         a.repo.AcquireDatasetLease(ds, kRunA, 1000, 600);
         a.repo.ReleaseDatasetLease(ds, kRunA, ProcessingStatus::kQuarantined,
                                    kT0, 16);
       },
       [ds](Api a) { return Dump(a.repo.RequeueDataset(ds, 2000, kT1)); },
       {"REQUEUED"}},
      {"ReleaseDatasetLease",
       with_lease,
       [ds](Api a) {
         return Dump(a.repo.ReleaseDatasetLease(
             ds, kRunA, ProcessingStatus::kCompleted, kT1));
       },
       {"RELEASED"}},
      {"PutFingerprints", with_lease,
       [ds](Api a) {
         return UpdateOutcomeName(a.repo.PutFingerprints(
             ds, {2880, "e", kSha, "ZZ", "h"}, kT1, std::string(kRunA)));
       },
       updated},
      {"PutValidationResult", with_lease,
       [ds](Api a) {
         return UpdateOutcomeName(a.repo.PutValidationResult(
             ds,
             {ValidationStatus::kQuarantined, "CHECKSUM_MISMATCH",
              Item{{"a", 1}}, std::nullopt},
             kT1, std::string(kRunA)));
       },
       updated},
      {"PutFileObject",
       with_dataset,
       [](Api a) {
         a.repo.PutFileObject(MakeFile());
         return std::string("OK");
       },
       {"OK"}},
      {"ListFileObjects",
       [](Api a) { a.repo.PutFileObject(MakeFile()); },
       [](Api a) { return Dump(a.repo.ListFileObjects(kNova, kDs1)); },
       {}},
      {"FindByS3Object",
       [](Api a) { a.repo.PutFileObject(MakeFile()); },
       [](Api a) {
         return Dump(a.repo.FindByS3Object("novacat-raw", "spectra/a.fits"));
       },
       {}},
      {"GetDataset",
       with_dataset,
       [ds](Api a) { return a.repo.GetDataset(ds)->ToItem().dump(); },
       {}},
      {"UpdateIngestionStatus", with_lease,
       [ds](Api a) {
         return UpdateOutcomeName(a.repo.UpdateIngestionStatus(
             ds, {"INGESTED", Item{{"x", "y"}}}, kT1, std::string(kRunA)));
       },
       updated},
      // TableRecordStore: AP-INGEST-2, AP-DL-3, AP-OPS-1..3 and the lock.
      {"PutJobRun",
       nothing,
       [](Api a) {
         a.records.PutJobRun(MakeRun());
         return std::string("OK");
       },
       {"OK"}},
      {"UpdateJobRun",
       [](Api a) { a.records.PutJobRun(MakeRun()); },
       [](Api a) {
         runtime::JobRunUpdate u;
         u.job_run_id = kRunA;
         u.nova_id = kNova;
         u.outcome = "DONE";
         u.ended_at = kT1;
         return Dump(a.records.UpdateJobRun(u));
       },
       {"UPDATED", "UNCHANGED"}},
      {"ListJobRuns",
       [](Api a) { a.records.PutJobRun(MakeRun()); },
       [](Api a) {
         return std::to_string(a.records.ListJobRuns(kNova).size());
       },
       {}},
      {"PutAttempt",
       nothing,
       [](Api a) {
         a.records.PutAttempt(MakeAttempt());
         return std::string("OK");
       },
       {"OK"}},
      {"ListAttempts",
       [](Api a) { a.records.PutAttempt(MakeAttempt()); },
       [](Api a) {
         return std::to_string(
             a.records.ListAttempts(kRunA, std::string(kNova)).size());
       },
       {}},
      {"AcquireLock",
       nothing,
       [](Api a) { return Dump(a.records.AcquireLock(kKey, kRunA, 1000, 60)); },
       {"ACQUIRED " + std::string(kRunA)}},
      {"AcquireLockHeld",
       [](Api a) { a.records.AcquireLock(kKey, kRunA, 1000, 60); },
       [](Api a) { return Dump(a.records.AcquireLock(kKey, kRunB, 1001, 60)); },
       {}},
      {"CompleteLock",
       [](Api a) { a.records.AcquireLock(kKey, kRunA, 1000, 60); },
       [](Api a) {
         return std::string(
             a.records.CompleteLock(kKey, kRunA, "DONE") ? "true" : "false");
       },
       {"true"}},
      // The RecordStore contract: releasing an absent lock answers false, so a
      // retry after a landed release cannot say true. The item is gone
      // either way.
      {"ReleaseLock",
       [](Api a) { a.records.AcquireLock(kKey, kRunA, 1000, 60); },
       [](Api a) {
         return std::string(a.records.ReleaseLock(kKey, kRunA) ? "true"
                                                               : "false");
       },
       {"true", "false"}},
  };
}

const Fault kFaults[] = {Fault::kThrottle, Fault::kTimeout, Fault::kServerError,
                         Fault::kConnectionReset, Fault::kAppliedThenLost};

class RepositoryFaultTest : public ::testing::TestWithParam<Backend> {};

TEST_P(RepositoryFaultTest, EveryFaultIsRetryableAndARetryConverges) {
  for (const FaultCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    // The fault-free run: its answer, its table calls, its items.
    std::unique_ptr<Table> clean = GetParam().make();
    {
      Repository repo(*clean);
      TableRecordStore records(*clean);
      c.setup({repo, records});
    }
    FaultInjectingTable counting(*clean);
    Repository counted_repo(counting);
    TableRecordStore counted_records(counting);
    std::string answer = c.call({counted_repo, counted_records});
    size_t calls = counting.calls().size();
    std::vector<Item> expected = Snapshot(*clean);
    ASSERT_GT(calls, 0u);
    if (!c.retry_answers.empty()) {
      EXPECT_NE(
          std::find(c.retry_answers.begin(), c.retry_answers.end(), answer),
          c.retry_answers.end())
          << answer;
    }

    for (size_t n = 1; n <= calls; ++n) {
      for (Fault fault : kFaults) {
        SCOPED_TRACE("call " + std::to_string(n) + ": " + FaultName(fault));
        std::unique_ptr<Table> table = GetParam().make();
        {
          Repository repo(*table);
          TableRecordStore records(*table);
          c.setup({repo, records});
        }
        FaultInjectingTable faulty(*table);
        faulty.InjectOn(static_cast<int>(n), fault);
        Repository repo(faulty);
        TableRecordStore records(faulty);
        EXPECT_THROW(c.call({repo, records}), runtime::RetryableError);
        std::vector<FaultInjectingTable::Call> seen = faulty.calls();
        ASSERT_EQ(seen.size(), n);  // the fault stopped the call there
        EXPECT_EQ(seen.back().fault, fault);

        std::string retry = c.call({repo, records});
        if (c.retry_answers.empty()) {
          EXPECT_EQ(retry, answer);
        } else {
          EXPECT_NE(
              std::find(c.retry_answers.begin(), c.retry_answers.end(), retry),
              c.retry_answers.end())
              << retry;
        }
        EXPECT_EQ(Snapshot(*table), expected);
      }
    }
  }
}

// A condition failure is an answer on every conditional update, never an
// exception, and writes nothing: on an empty table each one answers "not
// found" and the table stays empty (UpdateItem would otherwise create the
// item).
TEST_P(RepositoryFaultTest, ConditionFailuresAreAnswersNotErrors) {
  std::unique_ptr<Table> table = GetParam().make();
  Repository repo(*table);
  DatasetKey ds = MakeDataset().key();
  EXPECT_EQ(repo.UpdateNovaCoordinatorState(kNova, {"A", {}, {}, {}}),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(repo.UpdateDiscoveryDate(kNova, "1975-08-29", "r").status,
            DiscoveryDateResult::Status::kNotFound);
  EXPECT_EQ(repo.UpdateDatasetLocators(ds, {Item::object(), {}}, kT1),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(repo.SetDownloadEligibility(ds, "DOWNLOAD", kT1),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(repo.AcquireDatasetLease(ds, kRunA, 1, 1).status,
            LeaseResult::Status::kNotFound);
  EXPECT_EQ(repo.ReleaseDatasetLease(ds, kRunA, ProcessingStatus::kReady, kT1),
            ReleaseResult::kNotFound);
  EXPECT_EQ(repo.PutFingerprints(ds, {1, "e", kSha, {}, "h"}, kT1),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(repo.PutValidationResult(ds, {ValidationStatus::kValid, {}, {}, {}},
                                     kT1, "r"),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(repo.UpdateIngestionStatus(ds, {"X", {}}, kT1),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(Snapshot(*table), std::vector<Item>{});
}

INSTANTIATE_TEST_SUITE_P(Backends, RepositoryFaultTest,
                         ::testing::ValuesIn(testing::TestBackends()),
                         testing::BackendName());

}  // namespace
}  // namespace repository_fault_test
}  // namespace novacat::store
