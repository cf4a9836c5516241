// The single-table store's access patterns (seed:
// dynamodb_access_patterns.md), one benchmark each, through store::Repository
// (and store::TableRecordStore for AP-INGEST-2, AP-DL-3 and AP-OPS-1..3), on
// every test backend: MemoryTable (the baseline every other figure is a ratio
// to), SqliteTable in memory and on a file, and DynamoDbTable on dynalite
// (started by this binary on 127.0.0.1, or the one NOVACAT_DYNALITE_STATE
// names). Then lease acquisition under contention: 2, 8 and 32 workers racing
// for the leases of a few datasets with AcquireDatasetLease /
// ReleaseDatasetLease.
//
// Names: "<AP>:<Operation>/<backend>" and "Lease:Contention/<backend>", then
// Google Benchmark's suffixes ("/iterations:250", "/threads:8", ...).
// Figures: items_per_second is operations (access-pattern calls) per second
// of wall time; for the lease benchmarks it is leases acquired per second,
// with the counters condition_failures (per second: the table's answers
// kConditionFailed, refused takes and AcquireDatasetLease's re-tries alike)
// and retryable_errors (per second: a call threw RetryableError, e.g.
// AcquireDatasetLease giving up after 4 re-reads). condition_failures /
// items_per_second is the contention: condition failures per lease acquired.
//
// Every benchmark has its own table, seeded once (on its first run) and kept
// until the end, so none sees another's items; operations that create
// entities use fresh ids on every iteration. dynalite answers in about a
// millisecond, so its benchmarks run a fixed number of iterations;
// the others run for --benchmark_min_time.
//
//   build/release/store_bench --benchmark_min_time=0.3
//   build/release/store_bench --benchmark_filter=Lease
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/records.h"
#include "novacat/store/repository.h"
#include "novacat/store/table_record_store.h"

namespace {

using novacat::runtime::Attempt;
using novacat::runtime::FormatTimestamp;
using novacat::runtime::JobRun;
using novacat::runtime::RetryableError;
using novacat::store::Condition;
using novacat::store::Dataset;
using novacat::store::DatasetKey;
using novacat::store::DatasetLocators;
using novacat::store::FileObject;
using novacat::store::Fingerprints;
using novacat::store::IngestionUpdate;
using novacat::store::Item;
using novacat::store::Key;
using novacat::store::LeaseResult;
using novacat::store::Nova;
using novacat::store::NovaCoordinatorState;
using novacat::store::ProcessingStatus;
using novacat::store::QueryPage;
using novacat::store::QueryRequest;
using novacat::store::Repository;
using novacat::store::Table;
using novacat::store::TableRecordStore;
using novacat::store::Update;
using novacat::store::ValidationOutcome;
using novacat::store::ValidationStatus;
using novacat::store::WriteResult;
using novacat::store::WriteStatus;
using novacat::store::testing::Backend;
using novacat::store::testing::TestBackends;

// Iterations of every dynalite benchmark (about 0.25 to 1 s each), and the
// lease attempts of one dynalite contention run, shared by its workers.
// STORE_DYNAMO_ITERATIONS in the environment replaces the 250 (and scales
// the 1,200 alike): the CI smoke (bench/smoke.py) runs 2.
constexpr int64_t kDynamoIterations = 250;
constexpr int64_t kDynamoLeaseAttempts = 1200;

int64_t DynamoIterations() {
  const char* text = std::getenv("STORE_DYNAMO_ITERATIONS");
  if (!text || !*text) return kDynamoIterations;
  char* end = nullptr;
  const long long n = std::strtoll(text, &end, 10);
  if (*end != '\0' || n < 1) {
    std::fprintf(stderr,
                 "store_bench: STORE_DYNAMO_ITERATIONS is %s, not a positive "
                 "integer\n",
                 text);
    std::exit(2);
  }
  return n;
}

constexpr int64_t kNow = 1'795'614'300;  // 2026-11-25T13:45:00Z
const std::string kT0 = FormatTimestamp(kNow);
constexpr const char* kSha =
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";

// Id families, so that ids of different entities never meet.
enum Family : uint32_t {
  kNovaFamily = 1,
  kRunFamily,
  kReferenceFamily,
  kDatasetFamily,
  kCorrelationFamily,
};

// A deterministic UUID v4 (version nibble 4, variant 8): the n-th of a
// family. Valid as every id the repository takes (no '#').
std::string Uuid(Family family, int64_t n) {
  char text[40];
  std::snprintf(text, sizeof text, "%08" PRIx32 "-0000-4000-8000-%012" PRIx64,
                static_cast<uint32_t>(family), static_cast<uint64_t>(n));
  return text;
}

// The nova every per-nova pattern works on, its job run and its dataset.
const std::string kNova = Uuid(kNovaFamily, 0);
const std::string kRun = Uuid(kRunFamily, 0);
const std::string kCorrelation = Uuid(kCorrelationFamily, 0);

Nova MakeNova(const std::string& nova_id, double ra_deg, double dec_deg) {
  Nova nova;
  nova.nova_id = nova_id;
  nova.primary_name = "V1500 Cyg";
  nova.normalized_name = "v1500 cyg";
  nova.ra_deg = ra_deg;
  nova.dec_deg = dec_deg;
  nova.epoch = "J2000";
  nova.status = "ACTIVE";
  nova.created_at = kT0;
  return nova;
}

Dataset MakeDataset(const std::string& dataset_id,
                    const std::string& provider = "ESO") {
  Dataset dataset;
  dataset.nova_id = kNova;
  dataset.provider = provider;
  dataset.dataset_id = dataset_id;
  dataset.provider_identity =
      provider + "|ADP.2026-01-01T00:00:00|" + dataset_id;
  dataset.locators = {{"url", "https://archive.example/" + dataset_id},
                      {"product_id", "ADP." + dataset_id}};
  dataset.created_at = kT0;
  dataset.updated_at = kT0;
  return dataset;
}
const DatasetKey kDataset = MakeDataset(Uuid(kDatasetFamily, 0)).key();

JobRun MakeJobRun(const std::string& job_run_id,
                  const std::optional<std::string>& nova_id) {
  JobRun run;
  run.job_run_id = job_run_id;
  run.workflow = "ingest_new_nova";
  run.nova_id = nova_id;
  run.correlation_id = kCorrelation;
  run.execution_arn =
      "arn:aws:states:us-east-1:000000000000:execution:ingest_new_nova:" +
      job_run_id;
  run.started_at = kT0;
  return run;
}

Attempt MakeAttempt(int attempt_number) {
  Attempt attempt;
  attempt.job_run_id = kRun;
  attempt.nova_id = kNova;
  attempt.state_name = "DownloadSpectra";
  attempt.attempt_number = attempt_number;
  attempt.correlation_id = kCorrelation;
  attempt.started_at = kT0;
  attempt.ended_at = kT0;
  return attempt;
}

FileObject MakeFileObject(const std::string& dataset_id) {
  FileObject file;
  file.nova_id = kNova;
  file.provider = "ESO";
  file.dataset_id = dataset_id;
  file.file_id = "raw";
  file.bucket = "novacat-raw";
  file.key = "spectra/" + kNova + "/" + dataset_id + "/raw.fits";
  file.byte_length = 4'194'304;
  file.sha256 = kSha;
  file.content_type = "application/fits";
  file.created_at = kT0;
  return file;
}

// YYYY-MM-DD, `n` days before 9999-12-31: a date earlier on every call.
std::string EarlierDate(int64_t n) {
  return FormatTimestamp(253'402'214'400 - n * 86'400).substr(0, 10);
}

// The populated sky of AP-INIT-4: nova n of kSkyNovae, declinations evenly
// spread over (-90, 90), right ascensions by the golden angle.
constexpr int kSkyNovae = 1000;
double SkyRa(int n) { return std::fmod(n * 137.508, 360.0); }
double SkyDec(int n) { return -89.95 + n * (179.9 / kSkyNovae); }

// One benchmark's table and what it works through. Seeded once; `next`
// numbers the fresh ids across the benchmark's runs.
struct World {
  explicit World(std::unique_ptr<Table> t)
      : table(std::move(t)), repo(*table), records(*table) {}
  std::unique_ptr<Table> table;
  Repository repo;
  TableRecordStore records;
  int64_t next = 0;
};

// An access pattern: `seed` writes what `run` needs (once per table); `run`
// is one operation, `i` distinct on every call.
struct AccessPattern {
  std::string name;  // "<AP>:<Operation>"
  std::function<void(World&)> seed;
  std::function<void(World&, int64_t i)> run;
};

void SeedNova(World& w) { w.repo.CreateNova(MakeNova(kNova, 315.5, 47.75)); }

// The dataset the per-dataset updates work on, leased to kRun for a day so
// the fenced writes (AP-DL-4, AP-DL-5, AP-PHOT-3) pass their fence.
void SeedLeasedDataset(World& w) {
  SeedNova(w);
  w.repo.CreateDataset(MakeDataset(kDataset.dataset_id));
  w.repo.AcquireDatasetLease(kDataset, kRun, kNow, 86'400);
}

std::vector<AccessPattern> AccessPatterns() {
  std::vector<AccessPattern> patterns;
  auto add = [&](std::string name, std::function<void(World&)> seed,
                 std::function<void(World&, int64_t)> run) {
    patterns.push_back({std::move(name), std::move(seed), std::move(run)});
  };
  auto ignore = [](World&) {};

  // --- initialize_nova -----------------------------------------------------
  add(
      "AP-INIT-1:ResolveName",
      [](World& w) {
        SeedNova(w);
        w.repo.PutAlias({"v1500 cyg", kNova, "V1500 Cyg", kT0});
      },
      [](World& w, int64_t) {
        benchmark::DoNotOptimize(w.repo.ResolveName("v1500 cyg"));
      });
  add("AP-INIT-2:CreateNova", ignore, [](World& w, int64_t i) {
    benchmark::DoNotOptimize(w.repo.CreateNova(
        MakeNova(Uuid(kNovaFamily, i + 1), static_cast<double>(i % 3600) / 10,
                 static_cast<double>(i % 1800) / 10 - 90)));
  });
  add("AP-INIT-3:PutAlias", SeedNova, [](World& w, int64_t i) {
    const std::string name = "nova cyg " + std::to_string(i);
    benchmark::DoNotOptimize(w.repo.PutAlias({name, kNova, name, kT0}));
  });
  // 1,000 novae spread over the sky (about 5.6 per declination band); each
  // query is centred on one of them with a 60" radius.
  add(
      "AP-INIT-4:NovaeNear",
      [](World& w) {
        for (int n = 0; n < kSkyNovae; ++n)
          w.repo.CreateNova(
              MakeNova(Uuid(kNovaFamily, n + 1), SkyRa(n), SkyDec(n)));
      },
      [](World& w, int64_t i) {
        const int n = static_cast<int>(i % kSkyNovae);
        benchmark::DoNotOptimize(w.repo.NovaeNear(SkyRa(n), SkyDec(n), 60));
      });

  // --- ingest_new_nova -----------------------------------------------------
  add("AP-INGEST-1:GetNova", SeedNova, [](World& w, int64_t) {
    benchmark::DoNotOptimize(w.repo.GetNova(kNova));
  });
  add("AP-INGEST-2:PutJobRun", ignore, [](World& w, int64_t i) {
    w.records.PutJobRun(MakeJobRun(Uuid(kRunFamily, i + 1), kNova));
  });
  add("AP-INGEST-3:UpdateNovaCoordinatorState", SeedNova,
      [](World& w, int64_t i) {
        NovaCoordinatorState state;
        state.ingest_status = "RUNNING";
        state.last_ingest_at = FormatTimestamp(kNow + i);
        state.last_ingest_job_run_id = kRun;
        benchmark::DoNotOptimize(
            w.repo.UpdateNovaCoordinatorState(kNova, state));
      });

  // --- refresh_references --------------------------------------------------
  add("AP-REF-1:UpsertReference", ignore, [](World& w, int64_t i) {
    w.repo.UpsertReference({kNova, Uuid(kReferenceFamily, i), "ADS",
                            "2026ApJ...900..." + std::to_string(i),
                            "Spectroscopy of V1500 Cyg", "1975-08-29", kT0});
  });
  add("AP-REF-2:LinkNovaReference", ignore, [](World& w, int64_t i) {
    benchmark::DoNotOptimize(
        w.repo.LinkNovaReference({kNova, Uuid(kReferenceFamily, i), kT0}));
  });
  // The read of 10 links, then the discovery date set to an earlier date
  // than the stored one (the update applies on every call).
  add(
      "AP-REF-3:ListNovaReferences+UpdateDiscoveryDate",
      [](World& w) {
        SeedNova(w);
        for (int n = 0; n < 10; ++n)
          w.repo.LinkNovaReference({kNova, Uuid(kReferenceFamily, n), kT0});
      },
      [](World& w, int64_t i) {
        benchmark::DoNotOptimize(w.repo.ListNovaReferences(kNova));
        benchmark::DoNotOptimize(w.repo.UpdateDiscoveryDate(
            kNova, EarlierDate(i), Uuid(kReferenceFamily, 0)));
      });

  // --- discover_spectra_products -------------------------------------------
  // 20 ESO datasets beside 5 of another provider.
  add(
      "AP-DISC-1:ListProviderDatasets",
      [](World& w) {
        for (int n = 0; n < 25; ++n)
          w.repo.CreateDataset(
              MakeDataset(Uuid(kDatasetFamily, n), n < 20 ? "ESO" : "MAST"));
      },
      [](World& w, int64_t) {
        benchmark::DoNotOptimize(w.repo.ListProviderDatasets(kNova, "ESO"));
      });
  add("AP-DISC-2:CreateDataset", ignore, [](World& w, int64_t i) {
    benchmark::DoNotOptimize(
        w.repo.CreateDataset(MakeDataset(Uuid(kDatasetFamily, i))));
  });
  add("AP-DISC-3:UpdateDatasetLocators", SeedLeasedDataset,
      [](World& w, int64_t i) {
        DatasetLocators locators;
        locators.locators = {
            {"url", "https://archive.example/v" + std::to_string(i)}};
        locators.hints = {{"resolution", 2000}};
        benchmark::DoNotOptimize(
            w.repo.UpdateDatasetLocators(kDataset, locators, kT0));
      });
  add("AP-DISC-4:SetDownloadEligibility", SeedLeasedDataset,
      [](World& w, int64_t i) {
        benchmark::DoNotOptimize(w.repo.SetDownloadEligibility(
            kDataset, novacat::store::kEligibilityDownload,
            FormatTimestamp(kNow + i)));
      });

  // --- download_and_validate_spectra ---------------------------------------
  // 20 datasets, 10 of them download-eligible.
  add(
      "AP-DL-1:QueryEligibleDatasets",
      [](World& w) {
        for (int n = 0; n < 20; ++n) {
          Dataset dataset = MakeDataset(Uuid(kDatasetFamily, n));
          w.repo.CreateDataset(dataset);
          if (n % 2 == 0)
            w.repo.SetDownloadEligibility(
                dataset.key(), novacat::store::kEligibilityDownload, kT0);
        }
      },
      [](World& w, int64_t) {
        benchmark::DoNotOptimize(w.repo.QueryEligibleDatasets(kNova));
      });
  // Take a free lease, then give it back (READY): two conditional updates.
  add(
      "AP-DL-2:AcquireDatasetLease+Release",
      [](World& w) { w.repo.CreateDataset(MakeDataset(kDataset.dataset_id)); },
      [](World& w, int64_t i) {
        const std::string owner = Uuid(kRunFamily, i + 1);
        benchmark::DoNotOptimize(
            w.repo.AcquireDatasetLease(kDataset, owner, kNow, 900));
        benchmark::DoNotOptimize(w.repo.ReleaseDatasetLease(
            kDataset, owner, ProcessingStatus::kReady, kT0));
      });
  add("AP-DL-3:PutAttempt", ignore, [](World& w, int64_t i) {
    w.records.PutAttempt(MakeAttempt(static_cast<int>(i % 1'000'000'000) + 1));
  });
  add("AP-DL-4:PutFingerprints", SeedLeasedDataset, [](World& w, int64_t i) {
    Fingerprints fingerprints{4'194'304 + i,
                              "\"etag-" + std::to_string(i) + "\"", kSha,
                              "ZjBmMGYwZjBmMGYwZjBm", "hdr-sha256"};
    benchmark::DoNotOptimize(
        w.repo.PutFingerprints(kDataset, fingerprints, kT0, kRun));
  });
  add("AP-DL-5:PutValidationResult", SeedLeasedDataset, [](World& w, int64_t) {
    ValidationOutcome outcome;
    outcome.status = ValidationStatus::kValid;
    outcome.details = {{"checks", {"fits", "wcs", "units"}}};
    outcome.profile_selection = {{"profile", "eso_uves_1d"}, {"score", 0.97}};
    benchmark::DoNotOptimize(
        w.repo.PutValidationResult(kDataset, outcome, kT0, kRun));
  });
  add("AP-DL-6:PutFileObject", ignore, [](World& w, int64_t i) {
    w.repo.PutFileObject(MakeFileObject(Uuid(kDatasetFamily, i)));
  });

  // --- ingest_photometry_dataset -------------------------------------------
  // 100 file objects; each lookup finds one.
  add(
      "AP-PHOT-1:FindByS3Object",
      [](World& w) {
        for (int n = 0; n < 100; ++n)
          w.repo.PutFileObject(MakeFileObject(Uuid(kDatasetFamily, n)));
      },
      [](World& w, int64_t i) {
        benchmark::DoNotOptimize(w.repo.FindByS3Object(
            "novacat-raw", MakeFileObject(Uuid(kDatasetFamily, i % 100)).key));
      });
  add("AP-PHOT-2:GetDataset", SeedLeasedDataset, [](World& w, int64_t) {
    benchmark::DoNotOptimize(w.repo.GetDataset(kDataset));
  });
  add("AP-PHOT-3:UpdateIngestionStatus", SeedLeasedDataset,
      [](World& w, int64_t i) {
        IngestionUpdate update;
        update.ingestion_status = "INGESTED";
        update.artifacts = {{"parquet", "s3://novacat-derived/" +
                                            std::to_string(i) + ".parquet"}};
        benchmark::DoNotOptimize(
            w.repo.UpdateIngestionStatus(kDataset, update, kT0, kRun));
      });

  // --- operational traceability --------------------------------------------
  // 10 job runs of the nova.
  add(
      "AP-OPS-1:ListJobRuns",
      [](World& w) {
        for (int n = 0; n < 10; ++n)
          w.records.PutJobRun(MakeJobRun(Uuid(kRunFamily, n), kNova));
      },
      [](World& w, int64_t) {
        benchmark::DoNotOptimize(w.records.ListJobRuns(kNova));
      });
  // 10 attempts of one run.
  add(
      "AP-OPS-2:ListAttempts",
      [](World& w) {
        for (int n = 1; n <= 10; ++n) w.records.PutAttempt(MakeAttempt(n));
      },
      [](World& w, int64_t) {
        benchmark::DoNotOptimize(w.records.ListAttempts(kRun, kNova));
      });
  // A run without a nova: its own JOBRUN#<job_run_id> partition.
  add(
      "AP-OPS-3:GetJobRun",
      [](World& w) { w.records.PutJobRun(MakeJobRun(kRun, std::nullopt)); },
      [](World& w, int64_t) {
        benchmark::DoNotOptimize(w.records.GetJobRun(kRun, std::nullopt));
      });
  return patterns;
}

// Runs one access pattern on its world, made and seeded on the first run.
// A backend that cannot start (no dynalite) skips with its error.
void RunAccessPattern(benchmark::State& state, const AccessPattern* pattern,
                      const Backend* backend, std::unique_ptr<World>* world) {
  try {
    if (!*world) {
      auto made = std::make_unique<World>(backend->make());
      pattern->seed(*made);
      *world = std::move(made);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  World& w = **world;
  for (auto _ : state) {
    try {
      pattern->run(w, w.next++);
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());  // ends the loop at its next check
    }
  }
  if (!state.error_occurred()) state.SetItemsProcessed(state.iterations());
}

// A Table that forwards to another and counts the writes whose condition
// failed. One per worker thread (not thread-safe itself).
class ConditionCountingTable : public Table {
 public:
  explicit ConditionCountingTable(Table& inner) : inner_(inner) {}
  int64_t condition_failures() const { return condition_failures_; }

  void EnsureCreated() override { inner_.EnsureCreated(); }
  std::optional<Item> GetItem(const Key& key) override {
    return inner_.GetItem(key);
  }
  WriteResult PutItem(const Item& item,
                      const std::optional<Condition>& condition) override {
    return Count(inner_.PutItem(item, condition));
  }
  WriteResult UpdateItem(const Key& key, const Update& update,
                         const std::optional<Condition>& condition) override {
    return Count(inner_.UpdateItem(key, update, condition));
  }
  WriteResult DeleteItem(const Key& key,
                         const std::optional<Condition>& condition) override {
    return Count(inner_.DeleteItem(key, condition));
  }
  QueryPage Query(const QueryRequest& request) override {
    return inner_.Query(request);
  }

 private:
  WriteResult Count(WriteResult result) {
    if (result.status == WriteStatus::kConditionFailed) ++condition_failures_;
    return result;
  }
  Table& inner_;
  int64_t condition_failures_ = 0;
};

// The datasets the lease workers race for, on one table of a backend,
// shared by its 2-, 8- and 32-worker runs (every run ends with the leases
// released: a worker releases each lease it takes within the iteration).
struct LeaseArena {
  static constexpr int kDatasets = 4;
  const Backend* backend = nullptr;
  bool connection_per_worker = false;  // connect() even when shareable
  std::mutex mutex;
  std::unique_ptr<Table> table;
  std::string error;
  std::vector<DatasetKey> datasets;

  // The table, made and seeded by the first worker to ask; nullptr (and
  // `error`) when the backend cannot start.
  Table* Get() {
    std::lock_guard lock(mutex);
    if (!table && error.empty()) {
      try {
        auto made = backend->make();
        Repository repo(*made);
        for (int n = 0; n < kDatasets; ++n) {
          Dataset dataset = MakeDataset(Uuid(kDatasetFamily, n));
          repo.CreateDataset(dataset);
          datasets.push_back(dataset.key());
        }
        table = std::move(made);
      } catch (const std::exception& e) {
        error = e.what();
      }
    }
    return table.get();
  }
};

// One worker: its own client where the backend cannot share one (or when
// the arena asks for a connection per worker). Each iteration tries to take
// the lease of the next dataset (workers start on different ones); when it
// gets it, it releases it (READY) at once.
void LeaseContention(benchmark::State& state, LeaseArena* arena) {
  Table* shared = arena->Get();
  if (!shared) {
    state.SkipWithError(arena->error.c_str());
    return;
  }
  std::unique_ptr<Table> client;
  if ((!arena->backend->shared_across_threads ||
       arena->connection_per_worker) &&
      arena->backend->connect)
    client = arena->backend->connect(*shared);
  ConditionCountingTable counting(client ? *client : *shared);
  Repository repo(counting);
  const std::string me = Uuid(kRunFamily, 1000 + state.thread_index());
  size_t next = static_cast<size_t>(state.thread_index());
  int64_t acquired = 0;
  int64_t retryable = 0;
  for (auto _ : state) {
    const DatasetKey& key = arena->datasets[next++ % arena->datasets.size()];
    try {
      if (repo.AcquireDatasetLease(key, me, kNow, 900).status ==
          LeaseResult::Status::kAcquired) {
        ++acquired;
        repo.ReleaseDatasetLease(key, me, ProcessingStatus::kReady, kT0);
      }
    } catch (const RetryableError&) {
      ++retryable;  // counted; the worker moves on (a Task would retry)
    } catch (const std::exception& e) {
      // Ends the loop at its next check; the other workers finish theirs
      // (leaving it by an exception would strand them at its barrier).
      state.SkipWithError(e.what());
    }
  }
  if (state.error_occurred()) return;
  state.SetItemsProcessed(acquired);
  state.counters["condition_failures"] =
      benchmark::Counter(static_cast<double>(counting.condition_failures()),
                         benchmark::Counter::kIsRate);
  state.counters["retryable_errors"] = benchmark::Counter(
      static_cast<double>(retryable), benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const std::vector<Backend> backends = TestBackends();
  const std::vector<AccessPattern> patterns = AccessPatterns();
  const int64_t dynamo_iterations = DynamoIterations();
  const int64_t dynamo_lease_attempts =
      kDynamoLeaseAttempts * dynamo_iterations / kDynamoIterations;
  // One world per (pattern, backend), alive until the end.
  std::vector<std::unique_ptr<World>> worlds(patterns.size() * backends.size());
  for (size_t p = 0; p < patterns.size(); ++p) {
    for (size_t b = 0; b < backends.size(); ++b) {
      auto* bench = benchmark::RegisterBenchmark(
          (patterns[p].name + "/" + backends[b].name).c_str(), RunAccessPattern,
          &patterns[p], &backends[b], &worlds[p * backends.size() + b]);
      bench->UseRealTime();
      if (!backends[b].shared_across_threads)
        bench->Iterations(dynamo_iterations);
    }
  }

  // Every backend with its clients as it needs them; sqlite_file also with
  // a connection per worker (the multi-process case: SQLite's file locks
  // serialize the workers instead of the table's mutex).
  std::vector<std::unique_ptr<LeaseArena>> arenas;
  for (const Backend& b : backends) {
    for (bool per_worker : {false, true}) {
      if (per_worker && (!b.shared_across_threads || !b.connect)) continue;
      auto arena = std::make_unique<LeaseArena>();
      arena->backend = &b;
      arena->connection_per_worker = per_worker;
      const std::string name =
          "Lease:Contention/" + b.name + (per_worker ? "_connections" : "");
      for (int threads : {2, 8, 32}) {
        auto* bench = benchmark::RegisterBenchmark(
            name.c_str(), LeaseContention, arena.get());
        bench->Threads(threads)->UseRealTime();
        if (!b.shared_across_threads)
          bench->Iterations(
              std::max<int64_t>(1, dynamo_lease_attempts / threads));
      }
      arenas.push_back(std::move(arena));
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
