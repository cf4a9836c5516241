// The seed workflows end to end on one machine, through the same code as
// `novacat run` (LocalRunner): the generated ASL on the local executor, the
// real step logic, the SQLite store and the fixture clients (fixtures/).
// Each scenario is one of issue 7's: what a user sees, checked exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <latch>
#include <set>
#include <thread>

#include <unistd.h>

#include "fixture_world.h"
#include "ingest_photometry_dataset/steps.hpp"
#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/log.h"
#include "novacat/store/repository.h"
#include "novacat/store/sqlite_table.h"
#include "novacat/store/table_record_store.h"
#include "runner.h"
#include "seed.h"

namespace novacat::workflows {
namespace end_to_end_test {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr const char* kV1500Cyg = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr const char* kGkPer = "86cb14e8-2bf7-4bec-9837-df4287f58a01";
constexpr double kStart = 1767225600;  // 2026-01-01T00:00:00Z
constexpr double kDay = 86400;

// One client of the store: its own fixture clients (their throttle
// counters are per instance) over a shared table.
struct Client {
  Client(store::Table& table, uint64_t seed)
      : random(seed),
        world(table, "fixtures", random),
        runner(world.env, world.records, log, random) {}

  runtime::SeededRandom random;
  FixtureWorld world;
  runtime::CaptureSink log;
  LocalRunner runner;
};

class EndToEndTest : public ::testing::Test {
 protected:
  EndToEndTest() : table_(":memory:") {
    table_.EnsureCreated();
    client_ = std::make_unique<Client>(table_, 7);
    SeedFixtureNovae(client_->world.repository, "fixtures/novae/existing.json",
                     static_cast<int64_t>(kStart));
  }

  std::vector<WorkflowRun> Run(const std::string& workflow, const ojson& input,
                               bool follow = false, double start = kStart) {
    RunnerOptions options;
    options.start_time = start;
    options.follow = follow;
    return client_->runner.Run(workflow, input, options).runs;
  }

  WorkflowRun RunOne(const std::string& workflow, const ojson& input,
                     double start = kStart) {
    std::vector<WorkflowRun> runs = Run(workflow, input, false, start);
    EXPECT_EQ(runs.size(), 1u);
    return runs.front();
  }

  // Why a run failed: its error log lines.
  std::string Why() const {
    std::string why;
    for (const auto& line : client_->log.lines())
      if (line.find("\"level\":\"ERROR\"") != std::string::npos)
        why += "\n" + line;
    return why;
  }

  static std::vector<std::string> EventNames(const WorkflowRun& run) {
    std::vector<std::string> names;
    for (const auto& e : run.events) names.push_back(e.event_name);
    return names;
  }

  // The novae of the store, by id.
  std::set<std::string> NovaIds() {
    std::set<std::string> ids;
    for (const char* name :
         {"V1500 CYG", "GK PER", "NOVA PER 1901", "V1674 HER", "V1405 CAS",
          "TCP J21113658+4809030", "NOVA CYG 1975"})
      for (const auto& id : client_->world.repository.ResolveName(name))
        ids.insert(id);
    return ids;
  }

  std::vector<std::string> Attempts(const WorkflowRun& run,
                                    const std::string& state) {
    std::vector<std::string> out;
    for (const auto& a : client_->world.records.ListAttempts(
             run.job_run->job_run_id, run.job_run->nova_id))
      if (a.state_name == state)
        out.push_back(std::to_string(a.attempt_number) + ":" +
                      runtime::AttemptStatusName(a.status) + ":" +
                      a.error_classification.value_or(""));
    return out;
  }

  store::SqliteTable table_;
  std::unique_ptr<Client> client_;
};

TEST_F(EndToEndTest, KnownNameExistsAndLaunchesWithoutANewNova) {
  std::set<std::string> before = NovaIds();
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "V1500 Cyg"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "EXISTS_AND_LAUNCHED");
  EXPECT_EQ(EventNames(run), std::vector<std::string>{"ingest_new_nova"});
  EXPECT_EQ(run.events[0].event["nova_id"], kV1500Cyg);
  EXPECT_EQ(NovaIds(), before);
}

// RunnerOptions::history: every event with its documents by default, as
// --verbose prints them; none when asked (what `novacat run` keeps without
// --verbose), the run's states and outcome the same.
TEST_F(EndToEndTest, AHistoryIsKeptOnlyWhenAskedFor) {
  const WorkflowRun full =
      RunOne("initialize_nova", {{"candidate_name", "V1500 Cyg"}});
  ASSERT_EQ(full.result.status, "SUCCEEDED") << Why();
  ASSERT_FALSE(full.result.history.empty());
  EXPECT_EQ(full.result.history.front().type, "ExecutionStarted");
  EXPECT_EQ(full.result.history.front().details.at("input"),
            ojson({{"candidate_name", "V1500 Cyg"}}));
  RunnerOptions options;
  options.start_time = kStart + kDay;  // another time bucket: not a duplicate
  options.history = runtime::asl::History::kNone;
  const std::vector<WorkflowRun> runs =
      client_->runner
          .Run("initialize_nova", {{"candidate_name", "V1500 Cyg"}}, options)
          .runs;
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].result.status, "SUCCEEDED") << Why();
  EXPECT_TRUE(runs[0].result.history.empty());
  EXPECT_EQ(runs[0].result.states, full.result.states);
  EXPECT_EQ(runs[0].job_run->outcome, "EXISTS_AND_LAUNCHED");
}

TEST_F(EndToEndTest, NewClassicalNovaIsCreatedWithItsAliasAndLaunched) {
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "V1674 Her"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "CREATED_AND_LAUNCHED");
  ASSERT_EQ(EventNames(run), std::vector<std::string>{"ingest_new_nova"});
  const std::string nova_id = run.events[0].event["nova_id"];
  EXPECT_TRUE(runtime::IsUuidV4(nova_id)) << nova_id;
  EXPECT_EQ(client_->world.repository.ResolveName("V1674 HER"),
            std::vector<std::string>{nova_id});
  std::optional<store::Nova> nova = client_->world.repository.GetNova(nova_id);
  ASSERT_TRUE(nova);
  EXPECT_EQ(nova->primary_name, "V1674 Her");
  EXPECT_EQ(nova->normalized_name, "V1674 HER");
  // SIMBAD's other name of the object is the nova's alias too, so a run
  // on it finds the nova by name, asking no archive.
  EXPECT_EQ(client_->world.repository.ResolveName("NOVA HER 2021"),
            std::vector<std::string>{nova_id});
  WorkflowRun again =
      RunOne("initialize_nova", {{"candidate_name", "Nova Herculis 2021"}});
  ASSERT_EQ(again.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(again.job_run->outcome, "EXISTS_AND_LAUNCHED");
  EXPECT_EQ(again.events[0].event["nova_id"], nova_id);
  const std::vector<std::string>& states = again.result.states;
  EXPECT_EQ(std::count(states.begin(), states.end(), "CheckExistingNovaByName"),
            1);
  EXPECT_EQ(std::count(states.begin(), states.end(),
                       "ResolveCandidateAgainstPublicArchives"),
            0);
}

TEST_F(EndToEndTest, CoordinatesWithin2ArcsecAddAnAliasToTheStoredNova) {
  std::set<std::string> before = NovaIds();
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "TCP J21113658+4809030"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "EXISTS_AND_LAUNCHED");
  ASSERT_EQ(EventNames(run), std::vector<std::string>{"ingest_new_nova"});
  EXPECT_EQ(run.events[0].event["nova_id"], kV1500Cyg);
  EXPECT_EQ(client_->world.repository.ResolveName("TCP J21113658+4809030"),
            std::vector<std::string>{kV1500Cyg});
  EXPECT_EQ(NovaIds(), before);
}

TEST_F(EndToEndTest, Coordinates5ArcsecAwayAreQuarantined) {
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "TCP J21113658+4809070"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(runtime::JobRunStatusName(run.job_run->status),
            std::string("QUARANTINED"));
  EXPECT_EQ(run.job_run->error_classification, "QUARANTINE");
  EXPECT_EQ(run.result.output.value("quarantine_reason", ""),
            "coordinate_match_ambiguous");
  EXPECT_TRUE(run.events.empty());
  EXPECT_TRUE(
      client_->world.repository.ResolveName("TCP J21113658+4809070").empty());
}

TEST_F(EndToEndTest, NotANovaEndsNotFoundAndPublishesNothing) {
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "Betelgeuse"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "NOT_FOUND");
  EXPECT_TRUE(run.events.empty());
}

TEST_F(EndToEndTest, ANovaThatIsNotClassicalLaunchesNothing) {
  WorkflowRun run = RunOne("initialize_nova", {{"candidate_name", "RS Oph"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "NOT_A_CLASSICAL_NOVA");
  EXPECT_TRUE(run.events.empty());
}

TEST_F(EndToEndTest, AnAmbiguousResolverAnswerIsQuarantined) {
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "Nova Sgr 2015"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(runtime::JobRunStatusName(run.job_run->status),
            std::string("QUARANTINED"));
  EXPECT_EQ(Attempts(run, "ResolveCandidateAgainstPublicArchives"),
            std::vector<std::string>{"1:FAILED:QUARANTINE"});
  EXPECT_TRUE(run.events.empty());
}

TEST_F(EndToEndTest,
       AResolverThrottledTwiceThenAnsweringSucceedsInThreeAttempts) {
  WorkflowRun run =
      RunOne("initialize_nova", {{"candidate_name", "V1405 Cas"}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "CREATED_AND_LAUNCHED");
  EXPECT_EQ(Attempts(run, "ResolveCandidateAgainstPublicArchives"),
            (std::vector<std::string>{"1:FAILED:RETRYABLE",
                                      "2:FAILED:RETRYABLE", "3:SUCCEEDED:"}));
  // The spec's backoff, on the virtual clock.
  EXPECT_EQ(run.result.waits, (std::vector<double>{2, 10}));
}

TEST_F(EndToEndTest, MissingCandidateNameFailsTerminalAndWritesOnlyTheJobRun) {
  std::vector<std::string> before;
  std::set<std::string> novae = NovaIds();
  WorkflowRun run = RunOne("initialize_nova", ojson::object());
  EXPECT_EQ(run.result.status, "FAILED");
  ASSERT_TRUE(run.job_run);
  EXPECT_EQ(runtime::JobRunStatusName(run.job_run->status),
            std::string("FAILED"));
  EXPECT_EQ(run.job_run->error_classification, "TERMINAL");
  EXPECT_TRUE(run.events.empty());
  EXPECT_EQ(NovaIds(), novae);
  // Only the failure handlers ran after BeginJobRun rejected the input.
  for (const auto& a : client_->world.records.ListAttempts(
           run.job_run->job_run_id, run.job_run->nova_id))
    EXPECT_TRUE(a.state_name == "TerminalFailHandler" ||
                a.state_name == "FinalizeJobRunFailed")
        << a.state_name;
}

TEST_F(EndToEndTest, TheSameInputTwiceInOneBucketMakesOneNovaAndOneLaunch) {
  WorkflowRun first =
      RunOne("initialize_nova", {{"candidate_name", "V1674 Her"}});
  WorkflowRun second = RunOne("initialize_nova",
                              {{"candidate_name", "v1674  her"}}, kStart + 60);
  EXPECT_EQ(first.job_run->outcome, "CREATED_AND_LAUNCHED");
  EXPECT_EQ(second.job_run->outcome, "DUPLICATE_SKIPPED");
  EXPECT_TRUE(second.events.empty());
  EXPECT_EQ(client_->world.repository.ResolveName("V1674 HER").size(), 1u);
}

TEST_F(EndToEndTest, TheSameInputTwiceConcurrentlyMakesOneNovaAndOneLaunch) {
  // Two clients (two processes' worth of connections and fixture clients)
  // over one database file.
  const std::filesystem::path db =
      std::filesystem::temp_directory_path() /
      ("novacat_e2e_" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(db);
  {
    store::SqliteTable a_table(db.string()), b_table(db.string());
    a_table.EnsureCreated();
    b_table.EnsureCreated();
    Client a(a_table, 11), b(b_table, 13);
    std::latch go(2);
    std::vector<WorkflowRun> runs(2);
    auto start = [&](Client& c, WorkflowRun& out) {
      go.arrive_and_wait();
      RunnerOptions options;
      options.start_time = kStart;
      out = c.runner
                .Run("initialize_nova", {{"candidate_name", "V1674 Her"}},
                     options)
                .runs[0];
    };
    std::thread t1(start, std::ref(a), std::ref(runs[0]));
    std::thread t2(start, std::ref(b), std::ref(runs[1]));
    t1.join();
    t2.join();
    std::multiset<std::string> outcomes;
    size_t launches = 0;
    for (const auto& r : runs) {
      ASSERT_EQ(r.result.status, "SUCCEEDED") << r.result.cause.value_or("");
      outcomes.insert(r.job_run->outcome.value_or(""));
      launches += r.events.size();
    }
    EXPECT_EQ(outcomes, (std::multiset<std::string>{"CREATED_AND_LAUNCHED",
                                                    "DUPLICATE_SKIPPED"}));
    EXPECT_EQ(launches, 1u);
    EXPECT_EQ(a.world.repository.ResolveName("V1674 HER").size(), 1u);
  }
  std::filesystem::remove(db);
  std::filesystem::remove(db.string() + "-wal");
  std::filesystem::remove(db.string() + "-shm");
}

TEST_F(EndToEndTest, OneNameFollowsThroughIngestToReferencesAndDiscovery) {
  std::vector<WorkflowRun> runs =
      Run("initialize_nova", {{"candidate_name", "V1500 Cygni"}}, true);
  std::vector<std::string> chain;
  for (const auto& r : runs) {
    chain.push_back(r.workflow + ":" +
                    r.job_run->outcome.value_or(
                        runtime::JobRunStatusName(r.job_run->status)));
    EXPECT_EQ(r.job_run->correlation_id, runs[0].job_run->correlation_id)
        << r.workflow;
  }
  EXPECT_EQ(chain,
            (std::vector<std::string>{"initialize_nova:EXISTS_AND_LAUNCHED",
                                      "ingest_new_nova:LAUNCHED",
                                      "refresh_references:REFRESHED",
                                      "discover_spectra_products:DISCOVERED",
                                      "download_and_validate_spectra:"
                                      "VALIDATED"}));
  EXPECT_EQ(runs[1].started_by, "initialize_nova");
  EXPECT_EQ(runs[2].started_by, "ingest_new_nova");
  EXPECT_EQ(runs[4].started_by, "discover_spectra_products");
  // The downloads of the products ESO's SSAP service and MAST answer for
  // V1500 Cyg (fixtures/archives/): two UVES spectra (the second fetched by
  // its dp_id) and two IUE spectra, all VALID, each stored once.
  EXPECT_EQ(runs[4].result.output["valid_count"], 4);
  EXPECT_EQ(runs[4].result.output["quarantined_count"], 0);
  EXPECT_EQ(runs[4].result.output["failed_count"], 0);
  EXPECT_EQ(runs[4].result.output["skipped_count"], 0);
  struct Expected {
    const char* provider;
    const char* dataset_id;
  };
  for (const Expected& e : {
           Expected{"ESO", "326baf4c-1981-5d3e-a9c2-55908a6c93b6"},
           Expected{"ESO", "475cb1a5-dbc4-5b30-b5e2-fabfd76e9d50"},
           Expected{"MAST", "7f45e844-3d27-5d6c-a36b-e3f21dbd146f"},
           Expected{"MAST", "972ca194-26e0-5628-91be-4579aac67555"},
       }) {
    std::optional<store::Dataset> d = client_->world.repository.GetDataset(
        {kV1500Cyg, store::DatasetType::kSpectra, e.provider, e.dataset_id});
    ASSERT_TRUE(d) << e.dataset_id;
    EXPECT_EQ(d->validation_status, store::ValidationStatus::kValid)
        << e.dataset_id;
    EXPECT_EQ(d->quarantine_reason_code, std::nullopt) << e.dataset_id;
    EXPECT_EQ(d->lease_owner, std::nullopt) << e.dataset_id;
    EXPECT_EQ(client_->world.repository.ListFileObjects(kV1500Cyg, e.dataset_id)
                  .size(),
              1u)
        << e.dataset_id;
  }
  // MAST serves IUE's MXLO spectra gzip-compressed: lwr01642.mxlo.gz
  // (fixtures/spectra/iue_swp_mxlo.fits.gz) is checked decompressed, and
  // says so.
  std::optional<store::Dataset> lwr = client_->world.repository.GetDataset(
      {kV1500Cyg, store::DatasetType::kSpectra, "MAST",
       "7f45e844-3d27-5d6c-a36b-e3f21dbd146f"});
  ASSERT_TRUE(lwr && lwr->profile_selection && lwr->validation_details);
  EXPECT_EQ((*lwr->profile_selection)["profile"], "IUE_MXLO");
  EXPECT_EQ((*lwr->profile_selection)["compression"], "gzip");
  EXPECT_EQ((*lwr->validation_details)["compression"], "gzip");
  EXPECT_TRUE(
      client_->world.repository.QueryEligibleDatasets(kV1500Cyg).empty());
  // refresh_references dated the nova from its earliest credible reference.
  std::optional<store::Nova> nova =
      client_->world.repository.GetNova(kV1500Cyg);
  ASSERT_TRUE(nova);
  EXPECT_EQ(nova->discovery_date, "1975-08-30");
  EXPECT_EQ(nova->ingest_status, "LAUNCHED");
}

TEST_F(EndToEndTest, ARediscoveryCreatesNoNewDataset) {
  ojson input = {{"nova_id", kV1500Cyg}};
  WorkflowRun first = RunOne("discover_spectra_products", input);
  WorkflowRun again = RunOne("discover_spectra_products", input, kStart + kDay);
  ASSERT_EQ(first.result.status, "SUCCEEDED")
      << first.result.cause.value_or("");
  ASSERT_EQ(again.result.status, "SUCCEEDED")
      << again.result.cause.value_or("");
  EXPECT_GT(first.result.output["dataset_count_new"].get<int>(), 0);
  EXPECT_EQ(again.result.output["dataset_count_new"], 0);
  EXPECT_EQ(again.result.output["dataset_count_existing"],
            first.result.output["dataset_count_new"]);
  EXPECT_EQ(again.result.output["dataset_ids"],
            first.result.output["dataset_ids"]);
  // No DatasetDiscovered the second time: nothing new.
  EXPECT_EQ(EventNames(again),
            (std::vector<std::string>{"SpectraProductsDiscovered",
                                      "DownloadAndValidateSpectra"}));
}

// V1674 Her, created by initialize_nova: ESO's SSAP service answers its
// cone search with QUERY_STATUS ERROR (fixtures/archives/eso/), which
// quarantines ESO alone; MAST's answer (images only) completes.
TEST_F(EndToEndTest,
       AProviderWithMalformedRecordsIsQuarantinedTheOthersComplete) {
  std::vector<WorkflowRun> runs =
      Run("initialize_nova", {{"candidate_name", "V1674 Her"}}, true);
  const WorkflowRun* discovery = nullptr;
  for (const WorkflowRun& r : runs)
    if (r.workflow == "discover_spectra_products") discovery = &r;
  ASSERT_NE(discovery, nullptr);
  const WorkflowRun& run = *discovery;
  ASSERT_EQ(run.result.status, "SUCCEEDED") << run.result.cause.value_or("");
  EXPECT_EQ(run.job_run->outcome, "DISCOVERED");
  EXPECT_EQ(run.result.output["quarantined_count"], 1);
  EXPECT_EQ(run.result.output["dataset_count_new"], 0);
  json summaries = json::parse(run.result.output["provider_summaries"].dump());
  std::vector<std::string> quarantined;
  for (const auto& s : summaries)
    if (s["quarantined"].get<bool>()) quarantined.push_back(s["provider"]);
  EXPECT_EQ(quarantined, std::vector<std::string>{"ESO"});
  EXPECT_EQ(summaries.size(), 2u);
  // The JobRun records why, for diagnosis (the spec's job_run_output).
  ASSERT_TRUE(run.job_run->output);
  json output = json::parse(*run.job_run->output);
  // ESO's SSAP answered QUERY_STATUS ERROR (its recorded answer).
  EXPECT_EQ(
      output["provider_failures"],
      json::array({{{"provider", "ESO"},
                    {"error_classification", "QUARANTINE"},
                    {"quarantine_reason",
                     "malformed_provider_records: ESO SSAP: query "
                     "failed: Query execution failed: the spectra "
                     "database did not answer in time (ssap.ObsCore)"}}}));
  EXPECT_EQ(output["provider_summaries"], summaries);
  EXPECT_EQ(output["quarantined_count"], 1);
}

TEST_F(EndToEndTest, ALaterReferenceNeverMovesTheDiscoveryDateLater) {
  std::optional<store::Nova> before = client_->world.repository.GetNova(kGkPer);
  ASSERT_TRUE(before && before->discovery_date);
  WorkflowRun run = RunOne("refresh_references", {{"nova_id", kGkPer}});
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "REFRESHED");
  EXPECT_EQ(client_->world.repository.GetNova(kGkPer)->discovery_date,
            before->discovery_date);
  // The JobRun records where the references came from and ADS's quota
  // (its recorded answer's X-RateLimit-* headers).
  ASSERT_TRUE(run.job_run->output);
  EXPECT_EQ(json::parse(*run.job_run->output),
            (json{{"references_from", "ADS"},
                  {"source_quota",
                   {{"limit", 5000},
                    {"remaining", 4986},
                    {"reset", "2026-01-02T00:00:00Z"}}},
                  {"candidate_count", 2},
                  {"upsert_count", 2},
                  {"link_count", 2},
                  {"quarantined_count", 0}}));
}

TEST_F(EndToEndTest, FollowStopsAtMaxRunsAndSaysHowManyWereNotStarted) {
  RunnerOptions options;
  options.start_time = kStart;
  options.follow = true;
  options.max_runs = 2;
  RunReport report = client_->runner.Run(
      "initialize_nova", {{"candidate_name", "V1500 Cyg"}}, options);
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_EQ(report.runs[1].workflow, "ingest_new_nova");
  EXPECT_EQ(report.not_run, 2);  // refresh_references, discover_...
  EXPECT_EQ(report.error, "");
}

// ingest_photometry_dataset as `novacat photometry add` drives it: the
// fixture light curve registered for V1500 Cyg, then the run the bucket's
// Object Created event starts in AWS, with the event's fields.
TEST_F(EndToEndTest, ARegisteredLightCurveIsIngestedOnce) {
  store::Repository& repository = client_->world.repository;
  ingest_photometry_dataset::RegisteredPhotometry registered =
      ingest_photometry_dataset::RegisterPhotometryFile(
          repository, *client_->world.objects, kV1500Cyg, "AAVSO",
          "fixtures/photometry/v1500cyg_aavso.csv", "2026-01-01T00:00:00Z");
  EXPECT_TRUE(registered.created);
  const std::string key = registered.input["key"];
  EXPECT_EQ(key.rfind(std::string("photometry/") + kV1500Cyg + "/" +
                          registered.dataset_id + "/",
                      0),
            0u)
      << key;

  WorkflowRun run = RunOne("ingest_photometry_dataset", registered.input);
  ASSERT_EQ(run.result.status, "SUCCEEDED") << Why();
  EXPECT_EQ(run.job_run->outcome, "INGESTED");
  EXPECT_EQ(run.job_run->nova_id, std::nullopt);  // unknown when it began
  ASSERT_EQ(EventNames(run), std::vector<std::string>{"PhotometryIngested"});
  const std::string artifact = std::string("derived/photometry/") + kV1500Cyg +
                               "/" + registered.dataset_id + "/light_curve.csv";
  json detail = json::parse(run.events[0].event.dump());
  EXPECT_EQ(detail["nova_id"], kV1500Cyg);
  EXPECT_EQ(detail["dataset_id"], registered.dataset_id);
  EXPECT_EQ(detail["rows_usable"], 10);
  EXPECT_EQ(detail["rows_bad"], 2);
  EXPECT_EQ(detail["bands"], json::array({"B", "V"}));
  EXPECT_EQ(detail["artifact_key"], artifact);

  std::optional<store::Dataset> dataset =
      repository.GetDataset({kV1500Cyg, store::DatasetType::kPhotometry,
                             "AAVSO", registered.dataset_id});
  ASSERT_TRUE(dataset);
  EXPECT_EQ(dataset->ingestion_status, "INGESTED");
  EXPECT_EQ(dataset->processing_status, store::ProcessingStatus::kCompleted);
  EXPECT_EQ(dataset->lease_owner, std::nullopt);
  EXPECT_EQ(dataset->validation_status, store::ValidationStatus::kValid);
  ASSERT_TRUE(dataset->artifacts);
  EXPECT_EQ((*dataset->artifacts)["light_curve"]["key"], artifact);
  EXPECT_EQ((*dataset->artifacts)["light_curve"]["rows"], 10);
  std::filesystem::path scratch =
      std::filesystem::temp_directory_path() /
      ("novacat-e2e-photometry-" + std::to_string(::getpid()));
  std::filesystem::create_directories(scratch);
  std::optional<transfer::Fetched> derived =
      client_->world.objects->Get(artifact, scratch);
  std::filesystem::remove_all(scratch);
  ASSERT_TRUE(derived);
  EXPECT_EQ(derived->sha256, (*dataset->artifacts)["light_curve"]["sha256"]);

  // S3 delivers at least once: the same event again repeats nothing.
  WorkflowRun again =
      RunOne("ingest_photometry_dataset", registered.input, kStart + 60);
  EXPECT_EQ(again.job_run->outcome, "DUPLICATE_SKIPPED");
  EXPECT_TRUE(again.events.empty());
  // Registering the same file again is the same dataset and object.
  ingest_photometry_dataset::RegisteredPhotometry twice =
      ingest_photometry_dataset::RegisterPhotometryFile(
          repository, *client_->world.objects, kV1500Cyg, "AAVSO",
          "fixtures/photometry/v1500cyg_aavso.csv", "2026-01-02T00:00:00Z");
  EXPECT_FALSE(twice.created);
  EXPECT_EQ(twice.dataset_id, registered.dataset_id);
  EXPECT_EQ(twice.input, registered.input);
}

TEST_F(EndToEndTest, AnObjectNoDatasetOwnsFailsTerminalAndIsRecorded) {
  WorkflowRun run = RunOne("ingest_photometry_dataset",
                           {{"bucket", "novacat-local"},
                            {"key", "photometry/stray.csv"},
                            {"etag", "9b2cf535f27731c974343645a3985328"}});
  EXPECT_EQ(run.result.status, "FAILED");
  ASSERT_TRUE(run.job_run);
  EXPECT_EQ(runtime::JobRunStatusName(run.job_run->status),
            std::string("FAILED"));
  EXPECT_EQ(run.job_run->error_classification, "TERMINAL");
  EXPECT_TRUE(run.events.empty());
  EXPECT_EQ(Attempts(run, "ResolveS3Object"),
            std::vector<std::string>{"1:FAILED:TERMINAL"});
}

TEST_F(EndToEndTest, AnUnknownWorkflowIsRefusedAndNothingRuns) {
  EXPECT_THROW(Run("initialise_nova", ojson::object()), std::invalid_argument);
}

}  // namespace
}  // namespace end_to_end_test
}  // namespace novacat::workflows
