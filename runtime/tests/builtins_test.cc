#include "novacat/runtime/builtins.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/host.h"
#include "novacat/runtime/json_reader.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/table_record_store.h"
#include "seed_error_names.h"

namespace novacat::runtime {
namespace builtins_test {
namespace {

using nlohmann::json;

// SeededRandom(1)'s UUIDs, in order.
constexpr const char* kU1 = "2245bd5f-bb68-4f68-a2eb-92502318fa4e";
constexpr const char* kU2 = "7382d1e7-7ae6-459a-8561-d8057935c08e";
constexpr const char* kU3 = "59d47572-ecfc-4738-a94e-c2d2b9936849";

constexpr const char* kArn = "arn:aws:states:us-east-1:1:execution:wf:e1";
constexpr const char* kCorrelation = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";
constexpr const char* kNova = "0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d";
constexpr const char* kDatasetA = "11111111-2222-4333-8444-555555555555";
constexpr const char* kDatasetB = "66666666-7777-4888-9999-aaaaaaaaaaaa";
constexpr int64_t kNow = 1795614300;  // 2026-11-25T13:45:00Z

// What the generated ValidateEvent of the two workflows does (same readers,
// same rules).
std::optional<ValidationErrors> ValidateInitializeNova(std::string_view event,
                                                       const json& doc) {
  ValidationErrors errors;
  ObjectReader reader(doc, "$", errors);
  if (event == "initialize_nova") {
    reader.String("candidate_name", Rules{}.Required().MinLength(1));
    reader.Uuid("correlation_id", Rules{});
    reader.SchemaVersion(1);
    reader.RejectUnknown(
        {"candidate_name", "correlation_id", "schema_version"});
    return errors;
  }
  if (event == "ingest_new_nova") {
    reader.Uuid("nova_id", Rules{}.Required());
    reader.Uuid("correlation_id", Rules{}.Required());
    reader.SchemaVersion(1);
    reader.RejectUnknown({"nova_id", "correlation_id", "schema_version"});
    return errors;
  }
  return std::nullopt;
}

std::optional<ValidationErrors> ValidateDiscover(std::string_view event,
                                                 const json& doc) {
  ValidationErrors errors;
  ObjectReader reader(doc, "$", errors);
  if (event == "DiscoverSpectraProducts") {
    reader.Uuid("nova_id", Rules{}.Required());
    reader.Array("providers", Rules{});
    reader.String("cursor", Rules{});
    reader.Uuid("correlation_id", Rules{});
    reader.SchemaVersion(1);
    reader.RejectUnknown(
        {"nova_id", "providers", "cursor", "correlation_id", "schema_version"});
    return errors;
  }
  if (event == "DatasetDiscovered") {
    reader.Uuid("nova_id", Rules{}.Required());
    reader.Uuid("dataset_id", Rules{}.Required());
    reader.String("provider", Rules{}.Required().MinLength(1));
    reader.Uuid("correlation_id", Rules{}.Required());
    reader.SchemaVersion(1);
    reader.RejectUnknown({"nova_id", "dataset_id", "provider", "correlation_id",
                          "schema_version"});
    return errors;
  }
  return std::nullopt;
}

WorkflowFacts InitializeNovaFacts() {
  WorkflowFacts facts;
  facts.workflow_name = "initialize_nova";
  facts.schema_version = 1;
  facts.input_event = "initialize_nova";
  facts.nova_scoped = false;
  facts.time_bucket_seconds = 86400;
  facts.log_spec = LogSpec{
      {"workflow_name", "execution_arn", "job_run_id", "state_name",
       "attempt_number", "schema_version", "correlation_id", "candidate_name"},
      {"workflow_idempotency_key", "step_dedupe_key", "error_classification",
       "error_fingerprint", "normalized_candidate_name", "nova_id"}};
  facts.errors = SeedErrorNames();
  // InitializeNova:{normalized_candidate_name}:{schema_version}:{time_bucket};
  // the lock comes before NormalizeCandidateName, so the host normalizes.
  facts.idempotency_key = [](const json& state, std::string_view bucket) {
    std::string name = state.at("candidate_name").get<std::string>();
    for (char& c : name) c = static_cast<char>(std::tolower(c));
    return "InitializeNova:" + name + ":1:" + std::string(bucket);
  };
  facts.validate_event = ValidateInitializeNova;
  return facts;
}

WorkflowFacts DiscoverFacts() {
  WorkflowFacts facts;
  facts.workflow_name = "discover_spectra_products";
  facts.schema_version = 1;
  facts.input_event = "DiscoverSpectraProducts";
  facts.nova_scoped = true;
  facts.time_bucket_seconds = 86400;
  facts.log_spec =
      LogSpec{{"workflow_name", "execution_arn", "job_run_id", "state_name",
               "attempt_number", "schema_version", "correlation_id", "nova_id"},
              {"workflow_idempotency_key", "step_dedupe_key",
               "error_classification", "error_fingerprint", "provider"}};
  facts.errors = SeedErrorNames();
  facts.idempotency_key = [](const json& state, std::string_view bucket) {
    return "DiscoverSpectraProducts:" + state.at("nova_id").get<std::string>() +
           ":1:" + std::string(bucket);
  };
  facts.validate_event = ValidateDiscover;
  return facts;
}

// A world for builtins: the record store over an in-memory table, captured
// logs and events, seeded identifiers and a virtual clock the test moves.
struct World {
  explicit World(WorkflowFacts f) : facts(std::move(f)) {}

  BuiltinContext Ctx(const std::string& state_name, int attempt = 1) {
    StepContext step{
        facts.workflow_name, state_name, kArn, attempt, "", 0, {}, {}};
    return BuiltinContext{
        step, facts, store, log, bus, random, [this] { return clock; }};
  }
  StepContext Step(const std::string& state_name, int attempt = 1) {
    return StepContext{
        facts.workflow_name, state_name, kArn, attempt, "", 0, {}, {}};
  }
  AttemptRecorder Recorder() {
    return AttemptRecorder(store, facts, [this] { return clock * 1000; });
  }
  std::vector<json> Lines() {
    std::vector<json> out;
    for (const auto& l : log.lines()) out.push_back(json::parse(l));
    return out;
  }

  // Every stored item, in (PK, SK) order.
  std::vector<json> Items() const { return table.Scan(); }

  WorkflowFacts facts;
  store::MemoryTable table;
  store::TableRecordStore store{table};
  CaptureSink log;
  CaptureBus bus;
  SeededRandom random{1};
  int64_t clock = kNow;
};

// Each line parsed: expected items, compared with what the table holds.
std::vector<json> Parsed(const std::vector<std::string>& lines) {
  std::vector<json> items;
  for (const std::string& line : lines) items.push_back(json::parse(line));
  return items;
}

std::string What(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "<no exception>";
}

// --- Error summaries -----------------------------------------------------

TEST(ErrorNamesTest, TaxonomyAlsoRetryAndTheRest) {
  const ErrorNames names = SeedErrorNames();
  EXPECT_STREQ(names.Classify("RetryableError"), "RETRYABLE");
  EXPECT_STREQ(names.Classify("TerminalError"), "TERMINAL");
  EXPECT_STREQ(names.Classify("QuarantineError"), "QUARANTINE");
  EXPECT_STREQ(names.Classify("States.Timeout"), "RETRYABLE");
  EXPECT_STREQ(names.Classify("Lambda.TooManyRequestsException"), "RETRYABLE");
  // A function that died (Lambda's timeout, a crash): retried and recorded
  // like a RETRYABLE failure.
  EXPECT_STREQ(names.Classify("Runtime.ExitError"), "RETRYABLE");
  EXPECT_STREQ(names.Classify("States.Runtime"), "TERMINAL");
  EXPECT_STREQ(names.Classify("States.TaskFailed"), "TERMINAL");
  EXPECT_EQ(names.NameOf(ErrorClass::kQuarantine), "QuarantineError");
}

// Other governance names: the runtime knows only what it is given.
TEST(ErrorNamesTest, RenamedClassesAreFollowed) {
  const ErrorNames names{"TransientError", "FatalError", "ReviewError", {}};
  EXPECT_STREQ(names.Classify("TransientError"), "RETRYABLE");
  EXPECT_STREQ(names.Classify("RetryableError"), "TERMINAL");
  EXPECT_STREQ(names.Classify("States.Timeout"), "TERMINAL");
  EXPECT_EQ(DescribeFailure(RetryableError("503"), names).error_type,
            "TransientError");
  EXPECT_EQ(DescribeFailure(std::out_of_range("at"), names).error_type,
            "FatalError");
  EXPECT_EQ(SummarizeException(QuarantineError("two"), "S", names).error_name,
            "ReviewError");
}

TEST(SummarizeTest, ExceptionsKeepTheirClass) {
  ErrorSummary s =
      SummarizeException(QuarantineError("3 novae match v1324 sco"),
                         "CheckExistingNovaByName", SeedErrorNames());
  EXPECT_EQ(
      s.ToJson().dump(),
      R"({"error_name":"QuarantineError","error_classification":"QUARANTINE",)"
      R"("error_fingerprint":")" +
          ErrorFingerprint("QUARANTINE", "CheckExistingNovaByName",
                           "3 novae match v1324 sco") +
          R"(","failed_state":"CheckExistingNovaByName",)"
          R"("message":"3 novae match v1324 sco"})");
  // Outside the taxonomy: an internal invariant violation.
  ErrorSummary other = SummarizeException(std::out_of_range("vector::at"), "S",
                                          SeedErrorNames());
  EXPECT_EQ(other.error_name, "TerminalError");
  EXPECT_EQ(other.classification, "TERMINAL");
  EXPECT_EQ(other.fingerprint, ErrorFingerprint("TERMINAL", "S", "vector::at"));
}

TEST(SummarizeTest, CaughtLambdaErrorUsesErrorMessage) {
  json error = {
      {"Error", "RetryableError"},
      {"Cause",
       R"({"errorMessage":"HTTP 503 from SIMBAD","errorType":"RetryableError","stackTrace":[]})"}};
  ErrorSummary s = SummarizeCaughtError(error, SeedErrorNames());
  EXPECT_EQ(
      s.ToJson().dump(),
      R"({"error_name":"RetryableError","error_classification":"RETRYABLE",)"
      R"("error_fingerprint":")" +
          ErrorFingerprint("RETRYABLE", "", "HTTP 503 from SIMBAD") +
          R"(","message":"HTTP 503 from SIMBAD"})");
}

TEST(SummarizeTest, CaughtStatesErrorsKeepTheirNameInTheFingerprint) {
  json error = {{"Error", "States.Timeout"},
                {"Cause", "Task timed out after 10 seconds"}};
  ErrorSummary s = SummarizeCaughtError(error, SeedErrorNames());
  EXPECT_EQ(s.classification, "RETRYABLE");
  EXPECT_EQ(s.message, "Task timed out after 10 seconds");
  EXPECT_EQ(
      s.fingerprint,
      ErrorFingerprint("RETRYABLE", "",
                       "States.Timeout: Task timed out after 10 seconds"));
  // A Cause that is an object (not Lambda's string) and a missing error.
  ErrorSummary object = SummarizeCaughtError(
      {{"Error", "States.Runtime"}, {"Cause", {{"errorMessage", "bad path"}}}},
      {});
  EXPECT_EQ(object.message, "bad path");
  EXPECT_EQ(object.classification, "TERMINAL");
  ErrorSummary none = SummarizeCaughtError(nullptr, {});
  EXPECT_EQ(none.error_name, "Unknown");
  EXPECT_EQ(none.message, "the state document has no caught error");
  EXPECT_EQ(none.classification, "TERMINAL");
}

TEST(RunNovaIdTest, OnlyForNovaScopedWorkflowsWithAUuid) {
  WorkflowFacts scoped = DiscoverFacts(), unscoped = InitializeNovaFacts();
  EXPECT_EQ(RunNovaId({{"nova_id", kNova}}, scoped), kNova);
  EXPECT_EQ(RunNovaId({{"nova_id", kNova}}, unscoped), std::nullopt);
  EXPECT_EQ(RunNovaId({{"nova_id", "V1324 Sco"}}, scoped), std::nullopt);
  EXPECT_EQ(RunNovaId(json::object(), scoped), std::nullopt);
}

// --- BeginJobRun ---------------------------------------------------------

TEST(BeginJobRunTest, StartsTheRun) {
  World w(InitializeNovaFacts());
  auto ctx = w.Ctx("BeginJobRun");
  json out = BeginJobRun({{"candidate_name", "V1324 Sco"}}, ctx);
  EXPECT_EQ(out, json({{"candidate_name", "V1324 Sco"},
                       {"correlation_id", kU1},
                       {"job_run_id", kU2}}));
  EXPECT_EQ(
      w.Items(),
      Parsed(std::vector<std::string>{
          // What the reaper finds the run by (store/reaper.h).
          R"({"PK":"EXECUTION#arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("SK":"EXECUTION","entity":"Execution",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("workflow":"initialize_nova",)"
          R"("job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e"})",
          R"({"PK":"JOBRUN#7382d1e7-7ae6-459a-8561-d8057935c08e","SK":"META",)"
          R"("entity":"JobRun","job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
          R"("workflow":"initialize_nova",)"
          R"("correlation_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("status":"STARTED","started_at":"2026-11-25T13:45:00Z"})"}));
  EXPECT_EQ(
      w.log.lines(),
      std::vector<std::string>{
          R"({"ts":"2026-11-25T13:45:00Z","level":"INFO","message":"job run started",)"
          R"("workflow_name":"initialize_nova",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
          R"("state_name":"BeginJobRun","attempt_number":1,"schema_version":1,)"
          R"("correlation_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("candidate_name":"V1324 Sco"})"});
}

TEST(BeginJobRunTest, FillsInTheInputDefaultsAfterValidating) {
  WorkflowFacts facts = InitializeNovaFacts();
  facts.input_defaults = {{"providers", {"ESO", "MAST"}},
                          {"candidate_name", "never used"}};
  World w(facts);
  auto ctx = w.Ctx("BeginJobRun");
  json out = BeginJobRun({{"candidate_name", "V1324 Sco"}}, ctx);
  EXPECT_EQ(out, json({{"candidate_name", "V1324 Sco"},
                       {"correlation_id", kU1},
                       {"job_run_id", kU2},
                       {"providers", {"ESO", "MAST"}}}));
}

TEST(BeginJobRunTest, NovaScopedRunLivesUnderItsNova) {
  World w(DiscoverFacts());
  auto ctx = w.Ctx("BeginJobRun");
  json out =
      BeginJobRun({{"nova_id", kNova}, {"correlation_id", kCorrelation}}, ctx);
  EXPECT_EQ(out["job_run_id"], kU1);
  EXPECT_EQ(
      w.Items(),
      Parsed(std::vector<std::string>{
          R"({"PK":"EXECUTION#arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("SK":"EXECUTION","entity":"Execution",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("workflow":"discover_spectra_products",)"
          R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d"})",
          R"({"PK":"NOVA#0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
          R"("SK":"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("entity":"JobRun","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("workflow":"discover_spectra_products",)"
          R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
          R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("status":"STARTED","started_at":"2026-11-25T13:45:00Z"})"}));
}

TEST(BeginJobRunTest, InvalidInputIsTerminalAndWritesNothing) {
  World w(InitializeNovaFacts());
  auto ctx = w.Ctx("BeginJobRun");
  EXPECT_EQ(What([&] {
              BeginJobRun({{"correlation_id", "abc"}, {"name", "x"}}, ctx);
            }),
            "the input event initialize_nova is invalid:\n"
            "$.candidate_name: is required\n"
            "$.correlation_id: must be a UUID\n"
            "$.name: is not a known property\n");
  EXPECT_TRUE(w.Items().empty());
  EXPECT_TRUE(w.log.lines().empty());
}

TEST(BeginJobRunTest, MisconfiguredFactsAreTerminal) {
  World w(InitializeNovaFacts());
  w.facts.input_event = "nope";
  auto ctx = w.Ctx("BeginJobRun");
  EXPECT_EQ(
      What([&] {
        BeginJobRun({{"candidate_name", "x"}}, ctx);
      }),
      "BeginJobRun: initialize_nova does not know its input event 'nope'");
  w.facts.validate_event = nullptr;
  EXPECT_EQ(What([&] {
              BeginJobRun({{"candidate_name", "x"}}, ctx);
            }),
            "BeginJobRun: no event validator for initialize_nova");
}

// --- AcquireIdempotencyLock ----------------------------------------------

json Started(World& w, json input) {
  auto ctx = w.Ctx("BeginJobRun");
  return BeginJobRun(input, ctx);
}

TEST(AcquireIdempotencyLockTest, AcquiredAddsTheKeyAndStatus) {
  World w(InitializeNovaFacts());
  json state = Started(
      w, {{"candidate_name", "V1324 Sco"}, {"correlation_id", kCorrelation}});
  w.log.Clear();
  auto ctx = w.Ctx("AcquireIdempotencyLock");
  json out = AcquireIdempotencyLock(state, ctx);
  json expected = state;
  expected["workflow_idempotency_key"] =
      "InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z";
  expected["idempotency"] = {{"status", "ACQUIRED"}};
  expected["idempotency_status"] = "ACQUIRED";
  EXPECT_EQ(out, expected);
  EXPECT_EQ(
      w.log.lines(),
      std::vector<std::string>{
          R"({"ts":"2026-11-25T13:45:00Z","level":"INFO","message":"idempotency lock acquired",)"
          R"("workflow_name":"initialize_nova",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("state_name":"AcquireIdempotencyLock","attempt_number":1,"schema_version":1,)"
          R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
          R"("candidate_name":"V1324 Sco",)"
          R"("workflow_idempotency_key":"InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z"})"});
  // A retried AcquireIdempotencyLock (the Lambda timed out after the write)
  // is still the owner.
  auto retry = w.Ctx("AcquireIdempotencyLock", 2);
  EXPECT_EQ(AcquireIdempotencyLock(state, retry), expected);
}

TEST(AcquireIdempotencyLockTest, DuplicateIsNotAnError) {
  World w(InitializeNovaFacts());
  json first = Started(w, {{"candidate_name", "V1324 Sco"}});
  auto ctx = w.Ctx("AcquireIdempotencyLock");
  first = AcquireIdempotencyLock(first, ctx);

  json second = Started(
      w, {{"candidate_name", "v1324 SCO"}, {"correlation_id", kCorrelation}});
  w.log.Clear();
  json out = AcquireIdempotencyLock(second, ctx);
  json expected = second;
  expected["workflow_idempotency_key"] =
      "InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z";
  expected["idempotency"] = {{"status", "DUPLICATE"},
                             {"lock", "HELD_BY_OTHER"},
                             {"owner_job_run_id", first["job_run_id"]},
                             {"outcome", nullptr}};
  expected["idempotency_status"] = "DUPLICATE";
  EXPECT_EQ(out, expected);
  EXPECT_EQ(
      w.log.lines(),
      std::vector<std::string>{
          R"({"ts":"2026-11-25T13:45:00Z","level":"WARN",)"
          R"("message":"duplicate run: the idempotency key is taken",)"
          R"("workflow_name":"initialize_nova",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("job_run_id":"59d47572-ecfc-4738-a94e-c2d2b9936849",)"
          R"("state_name":"AcquireIdempotencyLock","attempt_number":1,"schema_version":1,)"
          R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
          R"("candidate_name":"v1324 SCO",)"
          R"("workflow_idempotency_key":"InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z",)"
          R"("lock":"HELD_BY_OTHER",)"
          R"("owner_job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
          R"("owner_outcome":null})"});
}

TEST(AcquireIdempotencyLockTest, KeyBuilderFailuresAndMissingRunAreTerminal) {
  World w(InitializeNovaFacts());
  auto ctx = w.Ctx("AcquireIdempotencyLock");
  EXPECT_EQ(What([&] {
              AcquireIdempotencyLock({{"candidate_name", "x"}}, ctx);
            }),
            "AcquireIdempotencyLock: $.job_run_id is required (a non-empty "
            "string)");
  w.facts.idempotency_key = [](const json&, std::string_view) -> std::string {
    throw TerminalError("$.normalized_candidate_name: is required for the key");
  };
  EXPECT_EQ(What([&] {
              AcquireIdempotencyLock({{"job_run_id", kU1}}, ctx);
            }),
            "$.normalized_candidate_name: is required for the key");
  w.facts.idempotency_key = nullptr;
  EXPECT_EQ(What([&] {
              AcquireIdempotencyLock({{"job_run_id", kU1}}, ctx);
            }),
            "AcquireIdempotencyLock: initialize_nova has no idempotency key "
            "builder");
  EXPECT_TRUE(w.Items().empty());
}

TEST(AcquireIdempotencyLockTest, BucketlessWorkflowGetsAnEmptyBucket) {
  World w(DiscoverFacts());
  w.facts.time_bucket_seconds = 0;
  std::string seen = "unset";
  w.facts.idempotency_key = [&](const json&, std::string_view bucket) {
    seen = std::string(bucket);
    return std::string("K");
  };
  json state = Started(w, {{"nova_id", kNova}});
  auto ctx = w.Ctx("AcquireIdempotencyLock");
  EXPECT_EQ(AcquireIdempotencyLock(state, ctx)["workflow_idempotency_key"],
            "K");
  EXPECT_EQ(seen, "");
}

// --- PublishEvent --------------------------------------------------------

TEST(PublishEventTest, BuildsValidatesAndPublishesTheDeclaredFields) {
  World w(InitializeNovaFacts());
  auto ctx = w.Ctx("PublishIngestNewNova");
  json state = {{"candidate_name", "V1324 Sco"},
                {"correlation_id", kCorrelation},
                {"job_run_id", kU1},
                {"nova_id", kNova},
                {"workflow_idempotency_key", "InitializeNova:v1324 sco:1:x"},
                {"outcome", "EXISTS_AND_LAUNCHED"}};
  EventSpec spec{"ingest_new_nova", {"nova_id", "correlation_id"}, 1, {}};
  EXPECT_EQ(PublishEvent(state, ctx, spec), state);
  EXPECT_EQ(
      w.bus.published(),
      (std::vector<CaptureBus::Published>{{"ingest_new_nova",
                                           {{"nova_id", kNova},
                                            {"correlation_id", kCorrelation},
                                            {"schema_version", 1}}}}));
  EXPECT_EQ(
      w.log.lines(),
      std::vector<std::string>{
          R"({"ts":"2026-11-25T13:45:00Z","level":"INFO","message":"event published",)"
          R"("workflow_name":"initialize_nova",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("state_name":"PublishIngestNewNova","attempt_number":1,"schema_version":1,)"
          R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
          R"("candidate_name":"V1324 Sco",)"
          R"("workflow_idempotency_key":"InitializeNova:v1324 sco:1:x",)"
          R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
          R"("event":"ingest_new_nova"})"});
}

TEST(PublishEventTest, InvalidEventIsTerminalAndNothingIsPublished) {
  World w(InitializeNovaFacts());
  auto ctx = w.Ctx("PublishIngestNewNova");
  json state = {{"candidate_name", "V1324 Sco"},
                {"correlation_id", kCorrelation},
                {"job_run_id", kU1},
                {"nova_id", "V1324 Sco"}};
  EventSpec spec{"ingest_new_nova", {"nova_id", "correlation_id"}, {}, {}};
  EXPECT_EQ(What([&] { PublishEvent(state, ctx, spec); }),
            "the event ingest_new_nova is invalid; nothing was published:\n"
            "$.nova_id: must be a UUID\n");
  state.erase("nova_id");
  EXPECT_EQ(What([&] { PublishEvent(state, ctx, spec); }),
            "the event ingest_new_nova is invalid; nothing was published:\n"
            "$.nova_id: is required\n");
  EXPECT_TRUE(w.bus.published().empty());
  EXPECT_TRUE(w.log.lines().empty());
  spec.event = "launch";
  state["nova_id"] = kNova;
  EXPECT_EQ(What([&] { PublishEvent(state, ctx, spec); }),
            "PublishEvent: initialize_nova does not know event 'launch'");
  state.erase("correlation_id");
  EXPECT_EQ(What([&] { PublishEvent(state, ctx, spec); }),
            "PublishEvent launch: $.correlation_id is required");
}

// A Map item of DiscoverAcrossProviders.
json ProviderItem() {
  return {{"provider", "MAST"},
          {"nova_id", kNova},
          {"correlation_id", kCorrelation},
          {"job_run_id", kU1},
          {"new_dataset_ids", {kDatasetA, kDatasetB}}};
}

EventSpec DatasetDiscovered() {
  return {"DatasetDiscovered",
          {"nova_id", "dataset_id", "provider", "correlation_id"},
          {},
          EventSpec::ForEach{"new_dataset_ids", "dataset_id"}};
}

TEST(PublishEventTest, ForEachPublishesOneEventPerElement) {
  World w(DiscoverFacts());
  auto ctx = w.Ctx("PublishDatasetDiscoveredEvents");
  json item = ProviderItem();
  EXPECT_EQ(PublishEvent(item, ctx, DatasetDiscovered()), item);
  auto event = [](const char* dataset) {
    return json{{"nova_id", kNova},
                {"dataset_id", dataset},
                {"provider", "MAST"},
                {"correlation_id", kCorrelation}};
  };
  EXPECT_EQ(w.bus.published(), (std::vector<CaptureBus::Published>{
                                   {"DatasetDiscovered", event(kDatasetA)},
                                   {"DatasetDiscovered", event(kDatasetB)}}));
  std::string prefix =
      R"({"ts":"2026-11-25T13:45:00Z","level":"INFO","message":"event published",)"
      R"("workflow_name":"discover_spectra_products",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
      R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("state_name":"PublishDatasetDiscoveredEvents","attempt_number":1,)"
      R"("schema_version":1,"correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
      R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d","provider":"MAST",)"
      R"("event":"DatasetDiscovered","dataset_id":")";
  EXPECT_EQ(w.log.lines(),
            (std::vector<std::string>{prefix + kDatasetA + "\"}",
                                      prefix + kDatasetB + "\"}"}));
}

TEST(PublishEventTest, ForEachValidatesEveryEventBeforePublishingAny) {
  World w(DiscoverFacts());
  auto ctx = w.Ctx("PublishDatasetDiscoveredEvents");
  json item = ProviderItem();
  item["new_dataset_ids"] = {kDatasetA, "not-a-uuid", 7};
  EXPECT_EQ(What([&] { PublishEvent(item, ctx, DatasetDiscovered()); }),
            "the event DatasetDiscovered is invalid; nothing was published:\n"
            "event DatasetDiscovered[1] (dataset_id = \"not-a-uuid\"):\n"
            "$.dataset_id: must be a UUID\n"
            "event DatasetDiscovered[2] (dataset_id = 7):\n"
            "$.dataset_id: must be a UUID\n");
  EXPECT_TRUE(w.bus.published().empty());

  item["new_dataset_ids"] = json::array();
  EXPECT_EQ(PublishEvent(item, ctx, DatasetDiscovered()), item);
  EXPECT_TRUE(w.bus.published().empty());
  EXPECT_TRUE(w.log.lines().empty());

  item.erase("new_dataset_ids");
  EXPECT_EQ(What([&] { PublishEvent(item, ctx, DatasetDiscovered()); }),
            "PublishEvent DatasetDiscovered: $.new_dataset_ids must be an "
            "array (for_each)");
}

// --- Finalize and handlers -----------------------------------------------

TEST(FinalizeJobRunSuccessTest, NeedsAnOutcome) {
  World w(InitializeNovaFacts());
  json state = Started(w, {{"candidate_name", "V1324 Sco"}});
  auto ctx = w.Ctx("FinalizeJobRunSuccess");
  EXPECT_EQ(
      What([&] { FinalizeJobRunSuccess(state, ctx); }),
      "FinalizeJobRunSuccess: $.outcome is required (a non-empty string)");
  EXPECT_EQ(w.store.GetJobRun(kU2, std::nullopt)->status,
            JobRunStatus::kStarted);
}

TEST(FinalizeJobRunSuccessTest, RetryIsHarmlessConflictAndMissingRunAreNot) {
  World w(InitializeNovaFacts());
  json state = Started(w, {{"candidate_name", "V1324 Sco"}});
  state["outcome"] = "NOT_FOUND";
  auto ctx = w.Ctx("FinalizeJobRunSuccess");
  FinalizeJobRunSuccess(state, ctx);
  w.clock += 5;
  auto retry = w.Ctx("FinalizeJobRunSuccess", 2);
  EXPECT_EQ(FinalizeJobRunSuccess(state, retry), state);
  EXPECT_EQ(w.store.GetJobRun(kU2, std::nullopt)->ended_at,
            "2026-11-25T13:45:00Z");
  state["outcome"] = "NOT_A_CLASSICAL_NOVA";
  EXPECT_EQ(What([&] { FinalizeJobRunSuccess(state, ctx); }),
            "FinalizeJobRunSuccess: JobRun " + std::string(kU2) +
                " is already final with another result");
  state["job_run_id"] = kU3;
  EXPECT_EQ(
      What([&] { FinalizeJobRunSuccess(state, ctx); }),
      "FinalizeJobRunSuccess: JobRun " + std::string(kU3) + " does not exist");
}

TEST(QuarantineHandlerTest, ReasonFromAChoice) {
  World w(InitializeNovaFacts());
  json state = Started(w, {{"candidate_name", "V1324 Sco"}});
  state["quarantine_reason"] = "coordinate_match_ambiguous";
  w.log.Clear();
  auto ctx = w.Ctx("QuarantineHandler");
  json out = QuarantineHandler(state, ctx);
  json expected = state;
  expected["error_classification"] = "QUARANTINE";
  expected["error_fingerprint"] =
      ErrorFingerprint("QUARANTINE", "", "coordinate_match_ambiguous");
  EXPECT_EQ(out, expected);
  EXPECT_EQ(
      w.log.lines(),
      std::vector<std::string>{
          R"({"ts":"2026-11-25T13:45:00Z","level":"WARN","message":"run quarantined",)"
          R"("workflow_name":"initialize_nova",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
          R"("state_name":"QuarantineHandler","attempt_number":1,"schema_version":1,)"
          R"("correlation_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("candidate_name":"V1324 Sco","error_classification":"QUARANTINE",)"
          R"("error_fingerprint":")" +
          expected["error_fingerprint"].get<std::string>() +
          R"(","quarantine_reason":"coordinate_match_ambiguous"})"});
}

TEST(QuarantineHandlerTest, NeitherReasonNorErrorIsTerminal) {
  World w(InitializeNovaFacts());
  json state = Started(w, {{"candidate_name", "V1324 Sco"}});
  auto ctx = w.Ctx("QuarantineHandler");
  EXPECT_EQ(What([&] { QuarantineHandler(state, ctx); }),
            "QuarantineHandler: the state has neither quarantine_reason nor "
            "error");
}

TEST(FinalizeJobRunFailedTest, AlreadyFinalRunIsLoggedAndLeftAlone) {
  World w(InitializeNovaFacts());
  json state = Started(w, {{"candidate_name", "V1324 Sco"}});
  state["outcome"] = "NOT_FOUND";
  auto ctx = w.Ctx("FinalizeJobRunSuccess");
  FinalizeJobRunSuccess(state, ctx);
  state["error"] = {{"Error", "States.Runtime"}, {"Cause", "boom"}};
  w.log.Clear();
  auto failed = w.Ctx("FinalizeJobRunFailed");
  EXPECT_NO_THROW(FinalizeJobRunFailed(state, failed));
  EXPECT_EQ(w.store.GetJobRun(kU2, std::nullopt)->status,
            JobRunStatus::kSucceeded);
  ASSERT_EQ(w.Lines().size(), 2u);
  EXPECT_EQ(w.Lines()[0]["message"],
            "the JobRun is already final with another result; not recorded "
            "FAILED");
  EXPECT_EQ(w.Lines()[1]["message"], "job run failed");
}

// --- The JobRun's output (job_run_output) ----------------------------------

// A discovery whose spec names three output fields, the second never
// produced: each Finalize records those present, in the spec's order.
WorkflowFacts DiscoverWithOutputFacts() {
  WorkflowFacts facts = DiscoverFacts();
  facts.job_run_output = {"provider_failures", "quarantined_count",
                          "dataset_count_new"};
  return facts;
}

json DiscoveryDone(World& w) {
  json state = Started(w, {{"nova_id", kNova}});
  state["dataset_count_new"] = 2;
  state["provider_failures"] = json::array(
      {{{"provider", "ESO"},
        {"error_classification", "QUARANTINE"},
        {"quarantine_reason", "malformed_provider_records: no table"}}});
  state["provider_summaries"] = json::array();  // not in the list
  return state;
}

constexpr const char* kDiscoveryOutput =
    R"({"provider_failures":[{"error_classification":"QUARANTINE",)"
    R"("provider":"ESO","quarantine_reason":)"
    R"("malformed_provider_records: no table"}],"dataset_count_new":2})";

TEST(JobRunOutputTest, SuccessRecordsTheListedFieldsPresentInSpecOrder) {
  World w(DiscoverWithOutputFacts());
  json state = DiscoveryDone(w);
  state["outcome"] = "DISCOVERED";
  auto ctx = w.Ctx("FinalizeJobRunSuccess");
  EXPECT_EQ(FinalizeJobRunSuccess(state, ctx), state);
  EXPECT_EQ(w.store.GetJobRun(kU2, std::string(kNova))->output,
            kDiscoveryOutput);
  // A retried Finalize records the same output: nothing changes.
  auto retry = w.Ctx("FinalizeJobRunSuccess", 2);
  EXPECT_EQ(FinalizeJobRunSuccess(state, retry), state);
}

TEST(JobRunOutputTest, QuarantinedAndFailedRecordItToo) {
  World w(DiscoverWithOutputFacts());
  json state = DiscoveryDone(w);
  state["quarantine_reason"] = "ambiguous_product_identity";
  auto ctx = w.Ctx("FinalizeJobRunQuarantined");
  FinalizeJobRunQuarantined(state, ctx);
  std::optional<JobRun> run = w.store.GetJobRun(kU2, std::string(kNova));
  EXPECT_EQ(run->status, JobRunStatus::kQuarantined);
  EXPECT_EQ(run->output, kDiscoveryOutput);

  World f(DiscoverWithOutputFacts());
  json failed = Started(f, {{"nova_id", kNova}});
  failed["quarantined_count"] = 0;
  failed["error"] = {{"Error", "TerminalError"}, {"Cause", "boom"}};
  auto fail_ctx = f.Ctx("FinalizeJobRunFailed");
  FinalizeJobRunFailed(failed, fail_ctx);
  run = f.store.GetJobRun(kU2, std::string(kNova));
  EXPECT_EQ(run->status, JobRunStatus::kFailed);
  EXPECT_EQ(run->output, R"({"quarantined_count":0})");
}

TEST(JobRunOutputTest, NoneOfTheFieldsIsAnEmptyObjectNoListIsNoOutput) {
  World w(DiscoverWithOutputFacts());
  json state = Started(w, {{"nova_id", kNova}});
  state["error"] = {{"Error", "TerminalError"}, {"Cause", "boom"}};
  auto ctx = w.Ctx("FinalizeJobRunFailed");
  FinalizeJobRunFailed(state, ctx);
  EXPECT_EQ(w.store.GetJobRun(kU2, std::string(kNova))->output, "{}");

  World bare(DiscoverFacts());
  json done = DiscoveryDone(bare);
  done["outcome"] = "DISCOVERED";
  auto bare_ctx = bare.Ctx("FinalizeJobRunSuccess");
  FinalizeJobRunSuccess(done, bare_ctx);
  std::optional<JobRun> run = bare.store.GetJobRun(kU2, std::string(kNova));
  EXPECT_EQ(run->status, JobRunStatus::kSucceeded);
  EXPECT_EQ(run->output, std::nullopt);
}

TEST(JobRunOutputTest, AFailureBeforeBeginJobRunRecordsItsOutput) {
  World w(DiscoverWithOutputFacts());
  json state = {{"job_run_id", kU3},
                {"nova_id", kNova},
                {"dataset_count_new", 0},
                {"error", {{"Error", "TerminalError"}, {"Cause", "boom"}}}};
  auto ctx = w.Ctx("FinalizeJobRunFailed");
  FinalizeJobRunFailed(state, ctx);
  EXPECT_EQ(w.store.GetJobRun(kU3, std::string(kNova))->output,
            R"({"dataset_count_new":0})");
}

// --- QuarantineItem ------------------------------------------------------

TEST(QuarantineItemTest, QuarantinesTheItemAndRecordsItsAttempt) {
  World w(DiscoverFacts());
  json item = {
      {"provider", "ESO"},
      {"nova_id", kNova},
      {"correlation_id", kCorrelation},
      {"job_run_id", kU1},
      {"map_item_index", 2},
      {"error",
       {{"Error", "QuarantineError"},
        {"Cause",
         R"({"errorMessage":"ESO returned 4 rows without a product timestamp","errorType":"QuarantineError"})"}}}};
  // The item's Task failed first; the host's recorder kept its Attempt.
  AttemptRecorder recorder = w.Recorder();
  EXPECT_THROW(recorder.Run(w.Step("NormalizeProviderProducts"), item,
                            [&]() -> json {
                              throw QuarantineError(
                                  "ESO returned 4 rows without a product "
                                  "timestamp");
                            }),
               QuarantineError);
  std::string fingerprint =
      ErrorFingerprint("QUARANTINE", "NormalizeProviderProducts",
                       "ESO returned 4 rows without a product timestamp");

  w.clock += 1;
  auto ctx = w.Ctx("QuarantineProvider");
  json out = QuarantineItem(item, ctx);
  json expected = item;
  expected["quarantine_reason"] =
      "ESO returned 4 rows without a product timestamp";
  expected["error_classification"] = "QUARANTINE";
  expected["error_fingerprint"] = fingerprint;
  expected["error_summary"] = {
      {"error_name", "QuarantineError"},
      {"error_classification", "QUARANTINE"},
      {"error_fingerprint", fingerprint},
      {"failed_state", "NormalizeProviderProducts"},
      {"message", "ESO returned 4 rows without a product timestamp"}};
  expected["quarantined"] = true;
  EXPECT_EQ(out, expected);

  std::string pk = R"({"PK":"NOVA#0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)";
  std::string sk = R"("SK":"ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#)";
  std::string common =
      R"("entity":"Attempt","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)";
  std::vector<std::string> items = {
      pk + sk + R"(NormalizeProviderProducts#ITEM#000002#001",)" + common +
          R"("state_name":"NormalizeProviderProducts","map_item_index":2,)"
          R"("attempt_number":1,"status":"FAILED","error_name":"QuarantineError",)"
          R"("error_classification":"QUARANTINE","error_fingerprint":")" +
          fingerprint +
          R"(","correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
          R"("started_at":"2026-11-25T13:45:00.000Z","ended_at":"2026-11-25T13:45:00.000Z"})",
      pk + sk + R"(QuarantineProvider#ITEM#000002#001",)" + common +
          R"("state_name":"QuarantineProvider","map_item_index":2,)"
          R"("attempt_number":1,"status":"SUCCEEDED","error_name":"QuarantineError",)"
          R"("error_classification":"QUARANTINE","error_fingerprint":")" +
          fingerprint +
          R"(","correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
          R"("started_at":"2026-11-25T13:45:01.000Z","ended_at":"2026-11-25T13:45:01.000Z"})"};
  EXPECT_EQ(w.Items(), Parsed(items));

  // The host's recorder around QuarantineItem rewrites the same item.
  w.log.Clear();
  json again = recorder.Run(w.Step("QuarantineProvider"), item,
                            [&] { return QuarantineItem(item, ctx); });
  EXPECT_EQ(again, expected);
  EXPECT_EQ(w.Items(), Parsed(items));
  EXPECT_EQ(
      w.log.lines(),
      std::vector<std::string>{
          R"({"ts":"2026-11-25T13:45:01Z","level":"WARN","message":"item quarantined",)"
          R"("workflow_name":"discover_spectra_products",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("state_name":"QuarantineProvider","attempt_number":1,"schema_version":1,)"
          R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
          R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
          R"("error_classification":"QUARANTINE","error_fingerprint":")" +
          fingerprint +
          R"(","provider":"ESO",)"
          R"("quarantine_reason":"ESO returned 4 rows without a product timestamp"})"});
}

// --- AttemptRecorder -----------------------------------------------------

TEST(AttemptRecorderTest, OneAttemptPerInvocationIncludingRetries) {
  World w(DiscoverFacts());
  json state = {{"nova_id", kNova},
                {"correlation_id", kCorrelation},
                {"job_run_id", kU1}};
  AttemptRecorder recorder = w.Recorder();
  int calls = 0;
  auto task = [&]() -> json {
    w.clock += 2;
    if (++calls < 3)
      throw RetryableError("SIMBAD HTTP 503 (request " +
                           std::string(calls == 1 ? kU2 : kU3) + ")");
    json out = state;
    out["summary"] = "ok";
    return out;
  };
  for (int attempt = 1; attempt <= 3; ++attempt) {
    try {
      json out = recorder.Run(w.Step("SummarizeDiscovery", attempt), state,
                              task, std::string("Summary:1"));
      EXPECT_EQ(out["summary"], "ok");
    } catch (const RetryableError& e) {
      EXPECT_LT(attempt, 3) << e.what();
    }
    w.clock += 10;
  }
  std::string fp = ErrorFingerprint("RETRYABLE", "SummarizeDiscovery",
                                    "SIMBAD HTTP 503 (request <uuid>)");
  std::string head =
      R"({"PK":"NOVA#0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
      R"("SK":"ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#SummarizeDiscovery#00)";
  std::string common =
      R"(","entity":"Attempt","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
      R"("state_name":"SummarizeDiscovery","attempt_number":)";
  std::string failed =
      R"(,"status":"FAILED","error_name":"RetryableError",)"
      R"("error_classification":"RETRYABLE","error_fingerprint":")" +
      fp + "\",";
  std::string corr =
      R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)";
  EXPECT_EQ(
      w.Items(),
      Parsed(std::vector<std::string>{
          head + "1" + common + "1" + failed + corr +
              R"("started_at":"2026-11-25T13:45:00.000Z","ended_at":"2026-11-25T13:45:02.000Z",)"
              R"("dedupe_key":"Summary:1"})",
          head + "2" + common + "2" + failed + corr +
              R"("started_at":"2026-11-25T13:45:12.000Z","ended_at":"2026-11-25T13:45:14.000Z",)"
              R"("dedupe_key":"Summary:1"})",
          head + "3" + common + "3" + R"(,"status":"SUCCEEDED",)" + corr +
              R"("started_at":"2026-11-25T13:45:24.000Z","ended_at":"2026-11-25T13:45:26.000Z",)"
              R"("dedupe_key":"Summary:1"})"}));
}

TEST(AttemptRecorderTest, BeginJobRunIsRecordedUnderTheRunItStarted) {
  World w(InitializeNovaFacts());
  AttemptRecorder recorder = w.Recorder();
  json input = {{"candidate_name", "V1324 Sco"},
                {"correlation_id", kCorrelation}};
  auto ctx = w.Ctx("BeginJobRun");
  json out = recorder.Run(w.Step("BeginJobRun"), input,
                          [&] { return BeginJobRun(input, ctx); });
  std::vector<Attempt> attempts = w.store.ListAttempts(kU1, std::nullopt);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(
      ToItem(attempts[0]).dump(),
      R"({"PK":"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("SK":"ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#BeginJobRun#001",)"
      R"("entity":"Attempt","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("state_name":"BeginJobRun","attempt_number":1,"status":"SUCCEEDED",)"
      R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
      R"("started_at":"2026-11-25T13:45:00.000Z","ended_at":"2026-11-25T13:45:00.000Z"})");
  // Before any JobRun exists, a failed BeginJobRun records nothing.
  size_t before = w.Items().size();
  EXPECT_THROW(recorder.Run(w.Step("BeginJobRun"), json::object(),
                            [&] { return BeginJobRun(json::object(), ctx); }),
               TerminalError);
  EXPECT_EQ(w.Items().size(), before);
}

TEST(AttemptRecorderTest, ForeignExceptionsAreTerminalAndRethrownUnchanged) {
  World w(DiscoverFacts());
  json state = {{"nova_id", kNova}, {"job_run_id", kU1}};
  StepContext step = w.Step("SummarizeDiscovery");
  step.correlation_id = kCorrelation;
  AttemptRecorder recorder = w.Recorder();
  EXPECT_THROW(
      recorder.Run(step, state, []() -> json { return json::array().at(3); }),
      nlohmann::json::out_of_range);
  std::vector<Attempt> attempts = w.store.ListAttempts(kU1, std::string(kNova));
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].status, AttemptStatus::kFailed);
  EXPECT_EQ(attempts[0].error_name, "TerminalError");
  EXPECT_EQ(attempts[0].error_classification, "TERMINAL");
  EXPECT_EQ(attempts[0].correlation_id, kCorrelation);
}

class ThrottledStore : public store::TableRecordStore {
 public:
  using TableRecordStore::TableRecordStore;
  void PutAttempt(const Attempt&) override {
    throw RetryableError("DynamoDB ProvisionedThroughputExceededException");
  }
};

TEST(AttemptRecorderTest, StoreFailuresNeverMaskTheTasksError) {
  WorkflowFacts facts = DiscoverFacts();
  store::MemoryTable table;
  ThrottledStore store(table);
  AttemptRecorder recorder(store, facts, [] { return kNow * 1000; });
  json state = {{"nova_id", kNova}, {"job_run_id", kU1}};
  StepContext step{
      "discover_spectra_products", "S", kArn, 1, kCorrelation, 0, {}, {}};
  EXPECT_EQ(What([&] {
              recorder.Run(step, state,
                           []() -> json { throw TerminalError("bad row"); });
            }),
            "bad row");
  // A successful invocation whose Attempt cannot be written fails
  // retryably, so Step Functions retries it.
  EXPECT_THROW(recorder.Run(step, state, [&] { return state; }),
               RetryableError);
}

// --- Whole runs ----------------------------------------------------------

// Runs builtin or domain Task `state_name` the way the host does: through
// the AttemptRecorder, with the state's correlation id in the context.
struct Host {
  World& w;
  int attempt = 1;

  json Run(const std::string& state_name, const json& state,
           const std::function<json(BuiltinContext&)>& task) {
    BuiltinContext ctx = w.Ctx(state_name, attempt);
    if (state.contains("correlation_id"))
      ctx.step.correlation_id = state["correlation_id"].get<std::string>();
    AttemptRecorder recorder = w.Recorder();
    return recorder.Run(ctx.step, state, [&] { return task(ctx); });
  }
};

TEST(WholeRunTest, InitializeNovaExistsAndLaunchedWithARetry) {
  World w(InitializeNovaFacts());
  Host host{w};
  json state = {{"candidate_name", "V1324 Sco"},
                {"correlation_id", kCorrelation}};
  state = host.Run("BeginJobRun", state,
                   [&](BuiltinContext& c) { return BeginJobRun(state, c); });
  w.clock += 1;
  state = host.Run("AcquireIdempotencyLock", state, [&](BuiltinContext& c) {
    return AcquireIdempotencyLock(state, c);
  });
  ASSERT_EQ(state["idempotency"]["status"], "ACQUIRED");
  w.clock += 1;
  // NormalizeCandidateName: a transient failure, retried 2s later.
  EXPECT_THROW(host.Run("NormalizeCandidateName", state,
                        [&](BuiltinContext&) -> json {
                          throw RetryableError("normalizer HTTP 503");
                        }),
               RetryableError);
  w.clock += 2;
  host.attempt = 2;
  state = host.Run("NormalizeCandidateName", state, [&](BuiltinContext&) {
    json out = state;
    out["normalized_candidate_name"] = "v1324 sco";
    return out;
  });
  host.attempt = 1;
  w.clock += 1;
  state = host.Run("CheckExistingNovaByName", state, [&](BuiltinContext&) {
    json out = state;
    out["exists_in_db"] = true;
    out["nova_id"] = kNova;
    return out;
  });
  state["outcome"] =
      "EXISTS_AND_LAUNCHED";  // RecordOutcome_EXISTS_AND_LAUNCHED
  w.clock += 1;
  EventSpec ingest{"ingest_new_nova", {"nova_id", "correlation_id"}, 1, {}};
  state = host.Run("PublishIngestNewNova", state, [&](BuiltinContext& c) {
    return PublishEvent(state, c, ingest);
  });
  w.clock += 1;
  state = host.Run("FinalizeJobRunSuccess", state, [&](BuiltinContext& c) {
    return FinalizeJobRunSuccess(state, c);
  });

  std::string pk = R"({"PK":"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e",)";
  std::string attempt =
      R"("SK":"ATTEMPT#2245bd5f-bb68-4f68-a2eb-92502318fa4e#)";
  std::string run =
      R"("entity":"Attempt","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)";
  std::string corr =
      R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)";
  auto ok = [&](const std::string& state_name, int n, const std::string& t) {
    return pk + attempt + state_name + "#00" + std::to_string(n) + "\"," + run +
           R"("state_name":")" + state_name + R"(","attempt_number":)" +
           std::to_string(n) + R"(,"status":"SUCCEEDED",)" + corr +
           R"("started_at":")" + t + R"(","ended_at":")" + t + "\"}";
  };
  EXPECT_EQ(
      w.Items(),
      Parsed(std::vector<std::string>{
          // What the reaper finds the run by (store/reaper.h).
          R"({"PK":"EXECUTION#arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("SK":"EXECUTION","entity":"Execution",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("workflow":"initialize_nova",)"
          R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("idempotency_key":"InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z"})",
          ok("AcquireIdempotencyLock", 1, "2026-11-25T13:45:01.000Z"),
          ok("BeginJobRun", 1, "2026-11-25T13:45:00.000Z"),
          ok("CheckExistingNovaByName", 1, "2026-11-25T13:45:05.000Z"),
          ok("FinalizeJobRunSuccess", 1, "2026-11-25T13:45:07.000Z"),
          pk + attempt + R"(NormalizeCandidateName#001",)" + run +
              R"("state_name":"NormalizeCandidateName","attempt_number":1,)"
              R"("status":"FAILED","error_name":"RetryableError",)"
              R"("error_classification":"RETRYABLE","error_fingerprint":")" +
              ErrorFingerprint("RETRYABLE", "NormalizeCandidateName",
                               "normalizer HTTP 503") +
              "\"," + corr +
              R"("started_at":"2026-11-25T13:45:02.000Z","ended_at":"2026-11-25T13:45:02.000Z"})",
          ok("NormalizeCandidateName", 2, "2026-11-25T13:45:04.000Z"),
          ok("PublishIngestNewNova", 1, "2026-11-25T13:45:06.000Z"),
          pk +
              R"("SK":"META","entity":"JobRun",)"
              R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
              R"("workflow":"initialize_nova",)" +
              corr +
              R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
              R"("status":"SUCCEEDED","outcome":"EXISTS_AND_LAUNCHED",)"
              R"("started_at":"2026-11-25T13:45:00Z","ended_at":"2026-11-25T13:45:07Z"})",
          R"({"PK":"LOCK#InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z",)"
          R"("SK":"LOCK","entity":"Lock",)"
          R"("idempotency_key":"InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z",)"
          R"("owner_job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("state":"DONE","outcome":"EXISTS_AND_LAUNCHED"})",
          // The nova it found lists the run too (AP-OPS-1).
          std::string(R"({"PK":"NOVA#)") + kNova + R"(","SK":"JOBRUN#)" +
              "2245bd5f-bb68-4f68-a2eb-92502318fa4e" +
              R"(","entity":"JobRun",)"
              R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
              R"("workflow":"initialize_nova","nova_id":")" +
              kNova + R"(",)" + corr +
              R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
              R"("status":"SUCCEEDED","outcome":"EXISTS_AND_LAUNCHED",)"
              R"("started_at":"2026-11-25T13:45:00Z","ended_at":"2026-11-25T13:45:07Z"})"}));
  EXPECT_EQ(
      w.bus.published(),
      (std::vector<CaptureBus::Published>{{"ingest_new_nova",
                                           {{"nova_id", kNova},
                                            {"correlation_id", kCorrelation},
                                            {"schema_version", 1}}}}));
  std::vector<std::string> messages;
  for (const json& line : w.Lines())
    messages.push_back(line["state_name"].get<std::string>() + ": " +
                       line["message"].get<std::string>());
  EXPECT_EQ(messages, (std::vector<std::string>{
                          "BeginJobRun: job run started",
                          "AcquireIdempotencyLock: idempotency lock acquired",
                          "PublishIngestNewNova: event published",
                          "FinalizeJobRunSuccess: job run succeeded"}));
  EXPECT_EQ(
      w.log.lines().back(),
      R"({"ts":"2026-11-25T13:45:07Z","level":"INFO","message":"job run succeeded",)"
      R"("workflow_name":"initialize_nova",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
      R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("state_name":"FinalizeJobRunSuccess","attempt_number":1,"schema_version":1,)"
      R"("correlation_id":"6ba7b810-9dad-11d1-80b4-00c04fd430c8",)"
      R"("candidate_name":"V1324 Sco",)"
      R"("workflow_idempotency_key":"InitializeNova:v1324 sco:1:2026-11-25T00:00:00Z",)"
      R"("normalized_candidate_name":"v1324 sco",)"
      R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
      R"("outcome":"EXISTS_AND_LAUNCHED"})");
}

// Begin + lock for a new execution of initialize_nova.
json BeginAndLock(World& w, const std::string& name) {
  Host host{w};
  json state = {{"candidate_name", name}};
  state = host.Run("BeginJobRun", state,
                   [&](BuiltinContext& c) { return BeginJobRun(state, c); });
  return host.Run("AcquireIdempotencyLock", state, [&](BuiltinContext& c) {
    return AcquireIdempotencyLock(state, c);
  });
}

json FinalizeSuccess(World& w, json state, const std::string& outcome) {
  Host host{w};
  state["outcome"] = outcome;
  return host.Run("FinalizeJobRunSuccess", state, [&](BuiltinContext& c) {
    return FinalizeJobRunSuccess(state, c);
  });
}

TEST(WholeRunTest, DuplicatesEndSucceededAndNeverTouchTheOwnersLock) {
  World w(InitializeNovaFacts());
  json a = BeginAndLock(w, "V1324 Sco");
  ASSERT_EQ(a["idempotency"]["status"], "ACQUIRED");
  const std::string owner = a["job_run_id"];
  const std::string key = a["workflow_idempotency_key"];

  // B runs while A holds the lock: DUPLICATE, routed (IsDuplicate?) to
  // RecordOutcome_DUPLICATE and FinalizeJobRunSuccess.
  json b = BeginAndLock(w, "V1324 SCO");
  EXPECT_EQ(b["idempotency"], json({{"status", "DUPLICATE"},
                                    {"lock", "HELD_BY_OTHER"},
                                    {"owner_job_run_id", owner},
                                    {"outcome", nullptr}}));
  FinalizeSuccess(w, b, "DUPLICATE");
  EXPECT_EQ(w.store.GetJobRun(b["job_run_id"].get<std::string>(), std::nullopt)
                ->outcome,
            "DUPLICATE");
  // A's lock is untouched: still HELD by A.
  EXPECT_EQ(w.store.AcquireLock(key, owner, kNow, 3600).status,
            LockResult::Status::kAcquired);

  FinalizeSuccess(w, a, "CREATED_AND_LAUNCHED");
  json c = BeginAndLock(w, "v1324 sco");
  EXPECT_EQ(c["idempotency"], json({{"status", "DUPLICATE"},
                                    {"lock", "ALREADY_DONE"},
                                    {"owner_job_run_id", owner},
                                    {"outcome", "CREATED_AND_LAUNCHED"}}));

  // The next day is a new bucket, so a new key.
  w.clock += 86400;
  json d = BeginAndLock(w, "V1324 Sco");
  EXPECT_EQ(d["idempotency"]["status"], "ACQUIRED");
  EXPECT_EQ(d["workflow_idempotency_key"],
            "InitializeNova:v1324 sco:1:2026-11-26T00:00:00Z");

  std::vector<std::string> runs;
  for (const json& j : {a, b, c, d}) {
    std::optional<JobRun> run =
        w.store.GetJobRun(j["job_run_id"].get<std::string>(), std::nullopt);
    runs.push_back(std::string(JobRunStatusName(run->status)) + " " +
                   run->outcome.value_or("-"));
  }
  EXPECT_EQ(runs, (std::vector<std::string>{"SUCCEEDED CREATED_AND_LAUNCHED",
                                            "SUCCEEDED DUPLICATE", "STARTED -",
                                            "STARTED -"}));
}

TEST(WholeRunTest, QuarantinedRunRecordsTheFailingTasksFingerprint) {
  World w(InitializeNovaFacts());
  Host host{w};
  json state = BeginAndLock(w, "V1324 Sco");
  const std::string run_id = state["job_run_id"];
  const std::string key = state["workflow_idempotency_key"];
  w.clock += 3;
  EXPECT_THROW(host.Run("CheckExistingNovaByName", state,
                        [&](BuiltinContext&) -> json {
                          throw QuarantineError("3 novae match 'v1324 sco'");
                        }),
               QuarantineError);
  // Catch [QuarantineError] -> QuarantineHandler, ResultPath $.error (the
  // local executor's plain Cause).
  state["error"] = {{"Error", "QuarantineError"},
                    {"Cause", "3 novae match 'v1324 sco'"}};
  w.clock += 1;
  state = host.Run("QuarantineHandler", state, [&](BuiltinContext& c) {
    return QuarantineHandler(state, c);
  });
  std::string fp = ErrorFingerprint("QUARANTINE", "CheckExistingNovaByName",
                                    "3 novae match 'v1324 sco'");
  EXPECT_EQ(state["error_fingerprint"], fp);
  EXPECT_EQ(state["quarantine_reason"], "3 novae match 'v1324 sco'");
  EXPECT_EQ(state["error_summary"]["failed_state"], "CheckExistingNovaByName");
  state = host.Run("FinalizeJobRunQuarantined", state, [&](BuiltinContext& c) {
    return FinalizeJobRunQuarantined(state, c);
  });
  std::optional<JobRun> run = w.store.GetJobRun(run_id, std::nullopt);
  EXPECT_EQ(
      ToItem(*run).dump(),
      R"({"PK":"JOBRUN#7382d1e7-7ae6-459a-8561-d8057935c08e","SK":"META",)"
      R"("entity":"JobRun","job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("workflow":"initialize_nova",)"
      R"("correlation_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
      R"("status":"QUARANTINED","error_classification":"QUARANTINE",)"
      R"("error_fingerprint":")" +
          fp +
          R"(","started_at":"2026-11-25T13:45:00Z","ended_at":"2026-11-25T13:45:04Z"})");
  // The lock is released: the same name may be tried again after review.
  EXPECT_EQ(w.store.AcquireLock(key, "someone-else", kNow, 60).status,
            LockResult::Status::kAcquired);
  EXPECT_EQ(w.Lines().back()["message"], "job run quarantined");
  EXPECT_EQ(w.Lines().back()["error_fingerprint"], fp);
}

TEST(WholeRunTest, FailedMapItemFailsTheRunWithTheItemsFingerprint) {
  World w(DiscoverFacts());
  Host host{w};
  json state = {{"nova_id", kNova}, {"providers", {"MAST"}}};
  state = host.Run("BeginJobRun", state,
                   [&](BuiltinContext& c) { return BeginJobRun(state, c); });
  state = host.Run("AcquireIdempotencyLock", state, [&](BuiltinContext& c) {
    return AcquireIdempotencyLock(state, c);
  });
  const std::string key = state["workflow_idempotency_key"];
  json item = {{"provider", "MAST"},
               {"nova_id", kNova},
               {"correlation_id", state["correlation_id"]},
               {"job_run_id", state["job_run_id"]}};
  w.clock += 4;
  EXPECT_THROW(
      host.Run("QueryProviderForProducts", item,
               [&](BuiltinContext&) -> json {
                 throw TerminalError("MAST returned 17 rows without obs_id");
               }),
      TerminalError);
  // The item catches only QUARANTINE: the Map fails and its Catch
  // (States.ALL) leaves Lambda's error in $.error.
  state["error"] = {
      {"Error", "TerminalError"},
      {"Cause",
       R"({"errorMessage":"MAST returned 17 rows without obs_id","errorType":"TerminalError"})"}};
  w.clock += 1;
  state = host.Run("TerminalFailHandler", state, [&](BuiltinContext& c) {
    return TerminalFailHandler(state, c);
  });
  std::string fp = ErrorFingerprint("TERMINAL", "QueryProviderForProducts",
                                    "MAST returned 17 rows without obs_id");
  EXPECT_EQ(state["error_summary"],
            json({{"error_name", "TerminalError"},
                  {"error_classification", "TERMINAL"},
                  {"error_fingerprint", fp},
                  {"failed_state", "QueryProviderForProducts"},
                  {"message", "MAST returned 17 rows without obs_id"}}));
  state = host.Run("FinalizeJobRunFailed", state, [&](BuiltinContext& c) {
    return FinalizeJobRunFailed(state, c);
  });
  std::vector<JobRun> runs = w.store.ListJobRuns(kNova);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(
      ToItem(runs[0]).dump(),
      R"({"PK":"NOVA#0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
      R"("SK":"JOBRUN#7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("entity":"JobRun","job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("workflow":"discover_spectra_products",)"
      R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
      R"("correlation_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
      R"("status":"FAILED","error_classification":"TERMINAL",)"
      R"("error_fingerprint":")" +
          fp +
          R"(","started_at":"2026-11-25T13:45:00Z","ended_at":"2026-11-25T13:45:05Z"})");
  std::vector<std::string> attempts;
  for (const Attempt& a : w.store.ListAttempts(runs[0].job_run_id, kNova))
    attempts.push_back(a.state_name + " " + AttemptStatusName(a.status) + " " +
                       a.error_fingerprint.value_or("-"));
  EXPECT_EQ(attempts,
            (std::vector<std::string>{"AcquireIdempotencyLock SUCCEEDED -",
                                      "BeginJobRun SUCCEEDED -",
                                      "FinalizeJobRunFailed SUCCEEDED -",
                                      "QueryProviderForProducts FAILED " + fp,
                                      "TerminalFailHandler SUCCEEDED -"}));
  EXPECT_EQ(w.store.AcquireLock(key, "someone-else", kNow, 60).status,
            LockResult::Status::kAcquired);
  EXPECT_EQ(
      w.log.lines().back(),
      R"({"ts":"2026-11-25T13:45:05Z","level":"ERROR","message":"job run failed",)"
      R"("workflow_name":"discover_spectra_products",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
      R"("job_run_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("state_name":"FinalizeJobRunFailed","attempt_number":1,"schema_version":1,)"
      R"("correlation_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("nova_id":"0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d",)"
      R"("workflow_idempotency_key":"DiscoverSpectraProducts:0b0e6f4e-5d7c-4a8b-9c1d-2e3f4a5b6c7d:1:2026-11-25T00:00:00Z",)"
      R"("error_classification":"TERMINAL","error_fingerprint":")" +
          fp + R"("})");
}

TEST(WholeRunTest, InvalidInputStillEndsWithAFailedJobRun) {
  World w(InitializeNovaFacts());
  Host host{w};
  json input = {{"correlation_id", "abc"}};
  std::string cause;
  try {
    host.Run("BeginJobRun", input,
             [&](BuiltinContext& c) { return BeginJobRun(input, c); });
  } catch (const TerminalError& e) {
    cause = e.what();
  }
  EXPECT_EQ(
      cause,
      "the input event initialize_nova is invalid:\n"
      "$.candidate_name: is required\n$.correlation_id: must be a UUID\n");
  EXPECT_TRUE(w.Items().empty());
  json state = input;
  state["error"] = {{"Error", "TerminalError"}, {"Cause", cause}};
  w.clock += 1;
  BuiltinContext fail_ctx = w.Ctx("TerminalFailHandler");
  state = TerminalFailHandler(state, fail_ctx);
  EXPECT_EQ(state["job_run_id"], kU1);
  EXPECT_EQ(state["correlation_id"], kU2);
  std::string fp = ErrorFingerprint("TERMINAL", "", cause);
  EXPECT_EQ(state["error_fingerprint"], fp);
  EXPECT_EQ(
      w.log.lines(),
      std::vector<std::string>{
          R"({"ts":"2026-11-25T13:45:01Z","level":"ERROR","message":"workflow failed",)"
          R"("workflow_name":"initialize_nova",)"
          R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
          R"("job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
          R"("state_name":"TerminalFailHandler","attempt_number":1,"schema_version":1,)"
          R"("correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
          R"("candidate_name":null,"error_classification":"TERMINAL",)"
          R"("error_fingerprint":")" +
          fp +
          R"(","error_name":"TerminalError",)"
          R"("cause":"the input event initialize_nova is invalid:\n)"
          R"($.candidate_name: is required\n$.correlation_id: must be a UUID\n",)"
          R"("missing_required_fields":["candidate_name"]})"});
  state = host.Run("FinalizeJobRunFailed", state, [&](BuiltinContext& c) {
    return FinalizeJobRunFailed(state, c);
  });
  EXPECT_EQ(
      ToItem(*w.store.GetJobRun(kU1, std::nullopt)).dump(),
      R"({"PK":"JOBRUN#2245bd5f-bb68-4f68-a2eb-92502318fa4e","SK":"META",)"
      R"("entity":"JobRun","job_run_id":"2245bd5f-bb68-4f68-a2eb-92502318fa4e",)"
      R"("workflow":"initialize_nova",)"
      R"("correlation_id":"7382d1e7-7ae6-459a-8561-d8057935c08e",)"
      R"("execution_arn":"arn:aws:states:us-east-1:1:execution:wf:e1",)"
      R"("status":"FAILED","error_classification":"TERMINAL",)"
      R"("error_fingerprint":")" +
          fp +
          R"(","started_at":"2026-11-25T13:45:01Z","ended_at":"2026-11-25T13:45:01Z"})");
}

// --- The host --------------------------------------------------------------

// The Attempt spans the invocation on its clock: read when it starts (the
// step's `now`, in seconds) and again when it ends.
// A run that is not nova-scoped notes the nova a Task of it learned on its
// execution record (for the reaper: store/reaper.h), once.
TEST(HandleInvocationTest, ANovaLearnedIsNotedOnTheExecution) {
  World w(InitializeNovaFacts());
  WorkflowBinding binding;
  binding.facts = w.facts;
  binding.is_domain_task = [](std::string_view) { return true; };
  binding.dispatch = [&](std::string_view, const json& document, StepContext&) {
    json out = document;
    out["nova_id"] = kNova;
    return out;
  };
  HostServices services{w.store, w.log, w.bus, w.random};
  const ExecutionRecord begun{
      kArn,         "initialize_nova",      kU1,
      std::nullopt, "InitializeNova:x:1:b", std::nullopt};
  w.store.PutExecution(begun);
  json state = {{"candidate_name", "V1324 Sco"},
                {"job_run_id", kU1},
                {"correlation_id", kCorrelation}};
  json payload = {{"state_name", "CheckExistingNovaByName"},
                  {"retry_count", 0},
                  {"execution_arn", kArn},
                  {"state", state}};
  HandleInvocation(binding, services, payload, [&] { return kNow * 1000; });
  ExecutionRecord noted = begun;
  noted.lease_nova_id = kNova;
  EXPECT_EQ(w.store.GetExecution(kArn), noted);
  // A Task given the nova writes nothing (the record is read only when a
  // result first carries one).
  w.store.PutExecution(begun);
  state["nova_id"] = kNova;
  payload["state"] = state;
  HandleInvocation(binding, services, payload, [&] { return kNow * 1000; });
  EXPECT_EQ(w.store.GetExecution(kArn), begun);
}

TEST(HandleInvocationTest, TheAttemptSpansTheInvocationOnItsClock) {
  World w(DiscoverFacts());
  WorkflowBinding binding;
  binding.facts = w.facts;
  binding.is_domain_task = [](std::string_view) { return true; };
  int64_t clock_ms = kNow * 1000 + 7;
  int64_t step_now = 0;
  binding.dispatch = [&](std::string_view, const json& document,
                         StepContext& context) {
    step_now = context.now;
    clock_ms += 250;  // the step takes a quarter of a second
    return document;
  };
  HostServices services{w.store, w.log, w.bus, w.random};
  json payload = {{"state_name", "SummarizeDiscovery"},
                  {"retry_count", 0},
                  {"execution_arn", kArn},
                  {"state",
                   {{"nova_id", kNova},
                    {"job_run_id", kU1},
                    {"correlation_id", kCorrelation}}}};
  HandleInvocation(binding, services, payload, [&] { return clock_ms; });
  EXPECT_EQ(step_now, kNow);
  std::vector<Attempt> attempts = w.store.ListAttempts(kU1, std::string(kNova));
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].started_at, "2026-11-25T13:45:00.007Z");
  EXPECT_EQ(attempts[0].ended_at, "2026-11-25T13:45:00.257Z");
}

}  // namespace
}  // namespace builtins_test
}  // namespace novacat::runtime
