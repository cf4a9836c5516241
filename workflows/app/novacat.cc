// novacat: Nova Cat's workflows on this machine.
//
//   novacat run WORKFLOW --input JSON|@FILE [--db PATH | --dynamodb TABLE]
//               [--fixtures DIR] [--sources recorded|live] [--follow]
//               [--verbose] [--function NAME] [--for-each-nova]
//
// runs a registered workflow (workflows/app/registry.cc): its generated ASL
// on the local executor with the real step logic, the SQLite store (created
// on first use) and the archives' clients, which ask the recorded answers
// (fixtures/archives/, served on 127.0.0.1 for the run) or, with --sources
// live (or NOVACAT_SOURCES=live), the real services. Prints one JSON document
// on stdout,
// {"runs": [{workflow, status, outcome, job_run, events, [history]}...]};
// structured log lines go to stderr. Exit 0 when every run's execution
// succeeded (quarantined runs included), 1 when one failed, 2 when nothing
// could run (unknown workflow, input that is not JSON: the latter is still
// recorded as a FAILED JobRun). With --function, the Tasks run on that
// deployed Lambda function instead (Lambda's Invoke API, SigV4), over the
// DynamoDB table it uses. --fixtures defaults to $NOVACAT_FIXTURES, else
// the fixtures/ of the checkout the working folder or the binary is in, so
// it runs from anywhere; --db defaults to novacat.db in the working folder.
// The catalog's files (downloaded spectra) go to the folder <db>.objects/
// beside it (or $NOVACAT_OBJECTS_DIR), or, with $NOVACAT_BUCKET, to that
// S3 bucket.
//
//   novacat seed [--db PATH | --dynamodb TABLE] [--fixtures DIR]
//
// loads fixtures/novae/existing.json into the store (idempotent).
//
//   novacat jobs (--nova NOVA_ID [--attempts] | [--nova NOVA_ID] --run
//                JOB_RUN_ID) [--db PATH | --dynamodb TABLE]
//                [--format table|json]
//
// prints what the store recorded of the runs (workflows/app/jobs.h): a
// nova's JobRuns (with --attempts each one's Attempts), or one JobRun and
// its Attempts, as an aligned table or one JSON document. Reads only: a
// --db file that does not exist is an error, never created. Exit 0 when
// something was found, 2 for a usage error (no --nova nor --run, an id that
// is not a UUID, a missing database) or when nothing was found (the message
// names what).
//
//   novacat datasets list --nova NOVA_ID [--db PATH | --dynamodb TABLE]
//                [--format table|json]
//   novacat datasets requeue --nova NOVA_ID --dataset DATASET_ID
//                [--db PATH | --dynamodb TABLE]
//
// list prints the nova's datasets (workflows/app/datasets.h) as an aligned
// table or one JSON document; reads only. requeue makes a spectra dataset
// that runs left QUARANTINED, FAILED_TERMINAL or FAILED_RETRYABLE, or whose
// lease expired, READY and download-eligible again, after a person's
// review (one quarantined RETRIES_EXHAUSTED once its archive is back).
// Exit 0 when listed (a nova without datasets too) or requeued, 2 for an
// id that is not a UUID, a missing database or a refused requeue (the
// message says why); a missing option is CLI11's usage error (106).
//
//   novacat photometry add --nova NOVA_ID [--provider NAME] FILE
//               [--db PATH | --dynamodb TABLE] [--fixtures DIR]
//
// registers a nova's photometry file (a CSV or FITS light curve) for
// ingestion: its PHOTOMETRY dataset and FileObject, then the object itself
// under photometry/ in the catalog's store (ingest_photometry_dataset's
// RegisterPhotometryFile). In AWS the bucket's Object Created event starts
// ingest_photometry_dataset; here nothing listens to the folder, so the
// command then runs it with the event's fields, as the stack's rule would,
// and prints what `novacat run` prints (exit codes too).
//
//   novacat sources check [--sources live|recorded] [--format table|json]
//               [--timeout-ms N]
//   novacat sources replay [--port N] [--fixtures DIR]
//
// check asks each archive one known question and prints per service whether
// it answered, its latency and what it found (exit 1 when one failed).
// replay serves the recorded answers until SIGINT/SIGTERM, after printing
// NOVACAT_<SERVICE>_URL=<base URL> for each service.
//
//   novacat simulate DEFINITION.asl.json --script SCRIPT.json [--input
//   JSON|@FILE] [--history] [--print-history]
//
// runs any definition on the local executor with scripted tasks and prints
// one JSON document: {"status", "output", "error", "cause", "states",
// "waits"}, and "history" with --history. Exit 0 when the execution ran
// (whatever its status), 2 when the definition, the script or the input is
// invalid.
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "datasets.h"
#include "fixture_world.h"
#include "ingest_photometry_dataset/steps.hpp"
#include "jobs.h"
#include "novacat/aws/lambda_client.h"
#include "novacat/domain/uuid.h"
#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/asl/executor.h"
#include "novacat/runtime/asl/ordered_parse.h"
#include "novacat/runtime/asl/script.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/log.h"
#include "novacat/store/dynamodb_table.h"
#include "novacat/store/for_each_nova.h"
#include "novacat/store/outbox.h"
#include "novacat/store/sqlite_table.h"
#include "novacat/store/table_record_store.h"
#include "registry.h"
#include "remote_tasks.h"
#include "runner.h"
#include "seed.h"
#include "sources_check.h"

namespace {

using json = nlohmann::ordered_json;
using novacat::runtime::asl::AslError;

constexpr int kExitInvalid = 2;

// Text that is not UTF-8 (from a bad input, say) is replaced, so that the
// output is always one JSON document.
std::string Dump(const json& value) {
  return value.dump(2, ' ', false, json::error_handler_t::replace);
}

// A definition of n states is read in time linear in n (ordered_parse.h).
std::optional<json> ReadJson(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read " + path;
    return std::nullopt;
  }
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  std::optional<json> value =
      novacat::runtime::asl::ParseOrderedJson(text, nullptr);
  if (!value) *error = path + " is not JSON";
  return value;
}

// novacat simulate's command line.
struct SimulateCommand {
  std::string definition_path;
  std::string script_path;
  std::string input_text;      // JSON text or @FILE; empty: {}
  bool history = false;        // "history" in the JSON printed
  bool print_history = false;  // the history, a line per event, on stderr
  novacat::runtime::asl::RunOptions options;
};

int Simulate(SimulateCommand command) {
  const std::string& definition_path = command.definition_path;
  const std::string& input_text = command.input_text;
  // The history costs the run a copy of every document it records (a
  // 20,000-state chain's is megabytes): kept only when asked for.
  command.options.history = command.history || command.print_history
                                ? novacat::runtime::asl::History::kFull
                                : novacat::runtime::asl::History::kNone;
  std::string error;
  std::optional<json> definition = ReadJson(definition_path, &error);
  std::optional<json> script;
  if (definition) script = ReadJson(command.script_path, &error);
  json input = json::object();
  if (script && !input_text.empty()) {
    if (input_text[0] == '@') {
      std::optional<json> file = ReadJson(input_text.substr(1), &error);
      if (file)
        input = *file;
      else
        script.reset();
    } else {
      input = json::parse(input_text, nullptr, false);
      if (input.is_discarded()) {
        error = "--input is not JSON";
        script.reset();
      }
    }
  }
  if (!definition || !script ||
      !novacat::runtime::asl::CheckScript(*script, &error)) {
    std::fprintf(stderr, "novacat simulate: %s\n", error.c_str());
    return kExitInvalid;
  }
  auto machine = novacat::runtime::asl::StateMachine::Load(*definition, &error);
  if (!machine) {
    std::fprintf(stderr, "novacat simulate: %s: %s\n", definition_path.c_str(),
                 error.c_str());
    return kExitInvalid;
  }
  novacat::runtime::asl::ScriptedHandler handler(*script);
  novacat::runtime::asl::RunResult result;
  try {
    result = machine->Run(input, std::ref(handler), command.options);
  } catch (const novacat::runtime::asl::ScriptError& e) {
    std::fprintf(stderr, "novacat simulate: %s\n", e.what());
    return kExitInvalid;
  }
  json out = {{"status", result.status},
              {"output", result.output},
              {"error", result.error ? json(*result.error) : json(nullptr)},
              {"cause", result.cause ? json(*result.cause) : json(nullptr)},
              {"states", result.states},
              {"waits", result.waits}};
  if (command.history)
    out["history"] = novacat::runtime::asl::HistoryToJson(result.history);
  std::fputs((Dump(out) + "\n").c_str(), stdout);
  if (command.print_history)
    std::fputs(novacat::runtime::asl::FormatHistory(result.history).c_str(),
               stderr);
  return 0;
}

constexpr int kExitFailed = 1;

// Reads --input: JSON text or @FILE. nullopt (and `error`) when it cannot be
// read or is not JSON.
std::optional<json> ReadInput(const std::string& text, std::string* error) {
  std::string body = text;
  if (!text.empty() && text[0] == '@') {
    std::ifstream in(text.substr(1));
    if (!in) {
      *error = "cannot read " + text.substr(1);
      return std::nullopt;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    body = buffer.str();
  }
  try {
    return json::parse(body);
  } catch (const json::parse_error& e) {
    *error = std::string("--input is not JSON: ") + e.what();
    return std::nullopt;
  }
}

json JobRunJson(const novacat::runtime::JobRun& run) {
  return json::parse(nlohmann::json(novacat::runtime::ToItem(run)).dump());
}

// Where `run` and `seed` keep the catalog: the SQLite file --db (created
// on first use), or the DynamoDB table --dynamodb (the stack's; endpoint
// and credentials from the AWS_* environment, as the Lambda functions).
struct StoreChoice {
  std::string db;
  std::string dynamodb;
  std::string Describe() const {
    return dynamodb.empty() ? db : "DynamoDB table " + dynamodb;
  }
};

// The store and the fixture clients `run` and `seed` work on.
struct World {
  World(std::unique_ptr<novacat::store::Table> store,
        const std::filesystem::path& fixtures,
        std::unique_ptr<novacat::transfer::ObjectStore> objects,
        novacat::sources::SourcesMode sources)
      : table(std::move(store)),
        fixture(*table, fixtures, random, std::move(objects), sources) {}
  std::unique_ptr<novacat::store::Table> table;
  novacat::runtime::SystemRandom random;
  novacat::workflows::FixtureWorld fixture;
};

// The fixtures folder when --fixtures is not given: $NOVACAT_FIXTURES, else
// the first `fixtures/` holding novae/existing.json in the working folder
// or one of its parents, else beside the binary or one of its parents (a
// build folder inside the checkout). Empty when none is found.
std::filesystem::path FindFixtures(const char* argv0) {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("NOVACAT_FIXTURES"); env && *env)
    return env;
  auto search_up = [](fs::path dir) -> fs::path {
    std::error_code ec;
    for (; !dir.empty(); dir = dir.parent_path()) {
      if (fs::is_regular_file(dir / "fixtures" / "novae" / "existing.json", ec))
        return dir / "fixtures";
      if (dir == dir.parent_path()) break;
    }
    return {};
  };
  std::error_code ec;
  if (fs::path found = search_up(fs::current_path(ec)); !found.empty())
    return found;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) self = fs::absolute(argv0, ec);
  return search_up(self.parent_path());
}

std::unique_ptr<World> OpenWorld(const StoreChoice& store,
                                 const std::string& fixtures,
                                 const char* command,
                                 novacat::sources::SourcesMode sources =
                                     novacat::sources::SourcesMode::kRecorded) {
  if (fixtures.empty()) {
    std::fprintf(stderr,
                 "novacat %s: no fixtures folder found (looked for "
                 "fixtures/novae/existing.json in the working folder, its "
                 "parents and beside the novacat binary); give --fixtures DIR "
                 "or set NOVACAT_FIXTURES\n",
                 command);
    return nullptr;
  }
  if (!std::filesystem::is_directory(fixtures)) {
    std::fprintf(stderr,
                 "novacat %s: fixtures folder %s not found (give --fixtures "
                 "DIR or NOVACAT_FIXTURES)\n",
                 command, fixtures.c_str());
    return nullptr;
  }
  std::unique_ptr<novacat::store::Table> table;
  if (store.dynamodb.empty()) {
    table = std::make_unique<novacat::store::SqliteTable>(store.db);
    table->EnsureCreated();
  } else {
    // The stack creates the table; this only uses it.
    novacat::store::DynamoDbOptions options;
    options.table_name = store.dynamodb;
    table = std::make_unique<novacat::store::DynamoDbTable>(options);
  }
  // The catalog's files beside the SQLite file (novacat.db.objects/), or
  // the stack's bucket (NOVACAT_BUCKET) with --dynamodb.
  std::filesystem::path objects =
      store.dynamodb.empty() ? store.db + ".objects" : "novacat.objects";
  return std::make_unique<World>(
      std::move(table), fixtures,
      novacat::workflows::SourcesWorld::ObjectStoreFromEnvironment(objects),
      sources);
}

std::string KnownWorkflows() {
  std::string names;
  for (const auto& w : novacat::workflows::Workflows())
    names += (names.empty() ? "" : ", ") + w.name;
  return names;
}

// novacat run's command line.
struct RunCommand {
  std::string workflow;
  std::string input_text = "{}";  // JSON text or @FILE
  StoreChoice store;
  std::string fixtures;
  bool follow = false;         // run what the published events start
  bool verbose = false;        // each execution's history in the output
  std::string function;        // a deployed Lambda runs every Task
  bool for_each_nova = false;  // once per nova, as the schedule does
  novacat::sources::SourcesMode sources =
      novacat::sources::SourcesMode::kRecorded;
};

int Run(const RunCommand& command) {
  const std::string& workflow = command.workflow;
  const StoreChoice& store = command.store;
  const std::string& function = command.function;
  const bool follow = command.follow;
  const novacat::workflows::WorkflowInfo* info =
      novacat::workflows::FindWorkflow(workflow);
  if (!info) {
    std::fprintf(stderr, "novacat run: unknown workflow '%s' (known: %s)\n",
                 workflow.c_str(), KnownWorkflows().c_str());
    return kExitInvalid;
  }
  if (!function.empty() && (store.dynamodb.empty() || follow)) {
    std::fprintf(stderr,
                 "novacat run: --function needs --dynamodb TABLE (the "
                 "function's table, where its JobRuns are) and no --follow "
                 "(the function publishes to EventBridge, where the stack's "
                 "rules start the next workflows)\n");
    return kExitInvalid;
  }
  std::unique_ptr<World> world =
      OpenWorld(store, command.fixtures, "run", command.sources);
  if (!world) return kExitInvalid;
  novacat::runtime::StreamSink log(stderr);
  novacat::workflows::LocalRunner runner(
      world->fixture.env, world->fixture.records, log, world->random);
  const double now = static_cast<double>(std::time(nullptr));
  std::string error;
  std::optional<json> input = ReadInput(command.input_text, &error);
  if (input && !input->is_object()) {
    // An event is an object; anything else would fail inside the
    // definition's first states, before a JobRun exists.
    error = std::string("--input is not a JSON object: it is ") +
            input->type_name();
    input.reset();
  }
  if (!input) {
    novacat::workflows::RejectedInput rejected =
        runner.RejectInput(workflow, error, now);
    json out = {
        {"runs", json::array({{{"workflow", workflow},
                               {"status", "FAILED"},
                               {"error", error},
                               {"job_run", JobRunJson(rejected.job_run)}}})}};
    std::fputs((Dump(out) + "\n").c_str(), stdout);
    std::fprintf(stderr, "novacat run: %s\n", error.c_str());
    return kExitInvalid;
  }
  novacat::workflows::RunnerOptions options;
  options.start_time = now;
  options.follow = follow;
  // Only --verbose prints the histories.
  options.history = command.verbose ? novacat::runtime::asl::History::kFull
                                    : novacat::runtime::asl::History::kNone;
  // What killed runs left (workflows/app/live_runs.h, the outbox): their
  // lock and leases reaped and their undelivered events run first. Runs
  // register beside the database (novacat.runs/ with --dynamodb). Not with
  // --function: the deployed functions run the Tasks there.
  std::optional<novacat::store::Outbox> outbox;
  if (function.empty()) {
    options.live_runs =
        store.dynamodb.empty() ? store.db + ".runs" : "novacat.runs";
    outbox.emplace(*world->table);
    options.outbox = &*outbox;
  }
  // For the tests that kill a run at a known point (tests/run_kill_test.sh):
  // the process kills itself with SIGKILL after that many Task invocations.
  int tasks_before_kill = 0;
  if (const char* kill_after = std::getenv("NOVACAT_TEST_KILL_AFTER_TASKS"))
    tasks_before_kill = std::atoi(kill_after);
  if (tasks_before_kill > 0)
    options.after_task = [&tasks_before_kill] {
      if (--tasks_before_kill == 0) ::kill(::getpid(), SIGKILL);
    };
  std::unique_ptr<novacat::aws::LambdaClient> lambda;
  if (!function.empty()) {
    lambda = std::make_unique<novacat::aws::LambdaClient>();
    options.remote_tasks = [&lambda, &function](const std::string&) {
      return novacat::workflows::InvokeTaskHandler(*lambda, function);
    };
  }
  novacat::workflows::RunReport report;
  if (command.for_each_nova) {
    // What the deployed `for_each: nova` schedule does
    // (store/for_each_nova.h): the input event once per nova, every one
    // checked before the first runs; then each runs as its rule would
    // start it.
    if (input->contains("nova_id")) {
      std::fprintf(stderr,
                   "novacat run: --for-each-nova gives each run its nova_id; "
                   "--input may not set one\n");
      return kExitInvalid;
    }
    novacat::workflows::BoundWorkflow bound = info->bind(world->fixture.env);
    novacat::runtime::CaptureBus sweep;
    try {
      novacat::store::PublishPerNova(bound.binding.facts,
                                     world->fixture.repository, sweep, log,
                                     *input, static_cast<int64_t>(now));
    } catch (const novacat::runtime::TerminalError& e) {
      std::fprintf(stderr, "novacat run: %s", e.what());
      return kExitInvalid;
    }
    for (const auto& event : sweep.published()) {
      novacat::workflows::RunReport one =
          runner.Run(workflow, nlohmann::ordered_json(event.event), options);
      for (auto& r : one.runs) report.runs.push_back(std::move(r));
      for (auto& r : one.reaped) report.reaped.push_back(std::move(r));
      report.resumed += one.resumed;
      report.not_run += one.not_run;
      if (!one.error.empty()) {
        report.error = one.error;
        break;
      }
    }
  } else {
    report = runner.Run(workflow, *input, options);
  }
  json out = {{"runs", json::array()}};
  bool failed = false;
  if (!report.reaped.empty()) {
    out["reaped"] = json::array();
    for (const auto& r : report.reaped) {
      json one = {{"workflow", r.workflow},
                  {"execution", r.execution},
                  {"job_run_id", r.run.job_run_id}};
      one.update(json(r.reaped.ToJson()));
      std::fprintf(stderr,
                   "novacat run: reaped %s run %s (its process was killed): "
                   "%s\n",
                   r.workflow.c_str(), r.run.job_run_id.c_str(),
                   r.reaped.ToJson().dump().c_str());
      out["reaped"].push_back(std::move(one));
    }
  }
  if (report.resumed > 0) {
    out["resumed"] = report.resumed;
    std::fprintf(stderr,
                 "novacat run: %d event(s) a killed run left undelivered "
                 "start their workflows first\n",
                 report.resumed);
  }
  if (!report.error.empty()) {
    // The store or a fixture broke after some runs were made: report them
    // and why the rest did not run.
    out["error"] = report.error;
    std::fprintf(stderr, "novacat run: %s\n", report.error.c_str());
    failed = true;
  }
  if (report.not_run > 0) {
    out["not_run"] = report.not_run;
    std::fprintf(stderr,
                 "novacat run: %d triggered run(s) not started: more than "
                 "%d runs (an event cycle?)\n",
                 report.not_run, options.max_runs);
    failed = true;
  }
  for (const auto& run : report.runs) {
    json r = {{"workflow", run.workflow},
              {"execution_arn", run.execution_arn},
              {"status", run.result.status}};
    if (!run.started_by.empty()) r["started_by"] = run.started_by;
    if (run.job_run) {
      r["outcome"] =
          run.job_run->outcome ? json(*run.job_run->outcome) : json(nullptr);
      r["job_run"] = JobRunJson(*run.job_run);
    }
    if (run.result.status != "SUCCEEDED") {
      failed = true;
      r["error"] = run.result.error ? json(*run.result.error) : json(nullptr);
      r["cause"] = run.result.cause ? json(*run.result.cause) : json(nullptr);
    }
    json events = json::array();
    for (const auto& e : run.events)
      events.push_back(
          {{"event", e.event_name}, {"detail", json::parse(e.event.dump())}});
    r["events"] = events;
    if (command.verbose)
      r["history"] = novacat::runtime::asl::HistoryToJson(run.result.history);
    out["runs"].push_back(r);
  }
  std::fputs((Dump(out) + "\n").c_str(), stdout);
  return failed ? kExitFailed : 0;
}

int AddPhotometry(const std::string& nova_id, const std::string& provider,
                  const std::string& file, const StoreChoice& store,
                  const std::string& fixtures,
                  novacat::sources::SourcesMode sources) {
  if (!std::filesystem::is_regular_file(file)) {
    std::fprintf(stderr, "novacat photometry add: %s is not a file\n",
                 file.c_str());
    return kExitInvalid;
  }
  novacat::ingest_photometry_dataset::RegisteredPhotometry registered;
  {
    std::unique_ptr<World> world = OpenWorld(store, fixtures, "photometry");
    if (!world) return kExitInvalid;
    try {
      registered = novacat::ingest_photometry_dataset::RegisterPhotometryFile(
          world->fixture.repository, *world->fixture.objects, nova_id, provider,
          file,
          novacat::runtime::FormatTimestamp(
              static_cast<int64_t>(std::time(nullptr))));
    } catch (const novacat::runtime::TerminalError& e) {
      std::fprintf(stderr, "novacat photometry add: %s\n", e.what());
      return kExitInvalid;
    }
  }
  std::fprintf(stderr, "novacat photometry add: %s dataset %s, object %s\n",
               registered.created ? "registered" : "already registered:",
               registered.dataset_id.c_str(),
               registered.input["key"].get<std::string>().c_str());
  // What the bucket's Object Created event starts in AWS.
  RunCommand run;
  run.workflow = "ingest_photometry_dataset";
  run.input_text = registered.input.dump();
  run.store = store;
  run.fixtures = fixtures;
  run.sources = sources;
  return Run(run);
}

int Seed(const StoreChoice& store, const std::string& fixtures) {
  std::unique_ptr<World> world = OpenWorld(store, fixtures, "seed");
  if (!world) return kExitInvalid;
  const std::vector<novacat::domain::FixtureNova> novae =
      novacat::workflows::SeedFixtureNovae(
          world->fixture.repository,
          std::filesystem::path(fixtures) / "novae" / "existing.json",
          static_cast<int64_t>(std::time(nullptr)));
  // The ids are what the next commands take (`run ... --input
  // '{"nova_id": ...}'`, `jobs --nova`).
  std::printf("seeded %zu novae into %s:\n", novae.size(),
              store.Describe().c_str());
  for (const novacat::domain::FixtureNova& nova : novae)
    std::printf("  %s  %s\n", nova.nova_id.c_str(), nova.primary_name.c_str());
  return 0;
}

// The store an operator command reads or changes; it must exist (an
// operator command never creates the database). Null, after saying so as
// `command`, when --db names no file. A listing opens SQLite read-only
// (`access`): it can neither change nor lock out the runs beside it.
enum class Access { kRead, kReadWrite };
std::unique_ptr<novacat::store::Table> OpenExistingStore(
    const StoreChoice& store, const char* command, Access access) {
  if (!store.dynamodb.empty()) {
    novacat::store::DynamoDbOptions options;
    options.table_name = store.dynamodb;
    return std::make_unique<novacat::store::DynamoDbTable>(options);
  }
  if (!std::filesystem::is_regular_file(store.db)) {
    std::fprintf(stderr,
                 "novacat %s: database %s not found (novacat run and "
                 "novacat seed create it; give --db PATH or --dynamodb "
                 "TABLE)\n",
                 command, store.db.c_str());
    return nullptr;
  }
  novacat::store::SqliteOptions options;
  options.read_only = access == Access::kRead;
  return std::make_unique<novacat::store::SqliteTable>(store.db, options);
}

// An id given to an operator command as `flag`, checked before the store is
// touched: "<flag> '<id>' is not a <what> id (a UUID)", or nullopt.
std::optional<std::string> CheckIdOption(const char* flag, const char* what,
                                         const std::string& id) {
  if (novacat::domain::IsUuid(id)) return std::nullopt;
  return std::string(flag) + " '" + id + "' is not a " + what + " id (a UUID)";
}

int ListDatasets(const std::string& nova_id, const StoreChoice& store,
                 const std::string& format) {
  if (std::optional<std::string> invalid =
          CheckIdOption("--nova", "nova", nova_id)) {
    std::fprintf(stderr, "novacat datasets list: %s\n", invalid->c_str());
    return kExitInvalid;
  }
  std::unique_ptr<novacat::store::Table> table =
      OpenExistingStore(store, "datasets list", Access::kRead);
  if (!table) return kExitInvalid;
  novacat::store::Repository repository(*table);
  std::vector<novacat::store::Dataset> datasets =
      repository.ListNovaDatasets(nova_id);
  if (format == "json")
    std::fputs(
        (Dump(novacat::workflows::DatasetsToJson(nova_id, datasets)) + "\n")
            .c_str(),
        stdout);
  else
    std::fputs(
        novacat::workflows::FormatDatasetsTable(nova_id, datasets).c_str(),
        stdout);
  return 0;
}

int RequeueDataset(const std::string& nova_id, const std::string& dataset_id,
                   const StoreChoice& store) {
  std::optional<std::string> invalid = CheckIdOption("--nova", "nova", nova_id);
  if (!invalid) invalid = CheckIdOption("--dataset", "dataset", dataset_id);
  if (invalid) {
    std::fprintf(stderr, "novacat datasets requeue: %s\n", invalid->c_str());
    return kExitInvalid;
  }
  std::unique_ptr<novacat::store::Table> table =
      OpenExistingStore(store, "datasets requeue", Access::kReadWrite);
  if (!table) return kExitInvalid;
  novacat::store::Repository repository(*table);
  novacat::workflows::RequeueAnswer answer = novacat::workflows::RequeueDataset(
      repository, nova_id, dataset_id, static_cast<int64_t>(std::time(nullptr)),
      store.Describe());
  if (!answer.requeued) {
    std::fprintf(stderr, "novacat datasets requeue: %s\n",
                 answer.message.c_str());
    return kExitInvalid;
  }
  std::printf("%s\n", answer.message.c_str());
  return 0;
}

int Jobs(const novacat::workflows::JobsQuery& query, const StoreChoice& store,
         const std::string& format) {
  // A bad query is a usage error before the store is touched.
  if (std::optional<std::string> invalid =
          novacat::workflows::CheckJobsQuery(query)) {
    std::fprintf(stderr, "novacat jobs: %s\n", invalid->c_str());
    return kExitInvalid;
  }
  std::unique_ptr<novacat::store::Table> table =
      OpenExistingStore(store, "jobs", Access::kRead);
  if (!table) return kExitInvalid;
  novacat::store::TableRecordStore records(*table);
  novacat::workflows::JobsResult result =
      novacat::workflows::QueryJobs(records, query, store.Describe());
  if (result.status != novacat::workflows::JobsResult::Status::kOk) {
    std::fprintf(stderr, "novacat jobs: %s\n", result.message.c_str());
    return kExitInvalid;
  }
  if (format == "json")
    std::fputs(
        (Dump(novacat::workflows::JobsToJson(result.report)) + "\n").c_str(),
        stdout);
  else
    std::fputs(novacat::workflows::FormatJobsTable(result.report).c_str(),
               stdout);
  return 0;
}

// --sources, else NOVACAT_SOURCES, else `fallback`. Null after saying why
// for a value that is neither recorded nor live.
std::optional<novacat::sources::SourcesMode> ChosenSources(
    const std::string& option, novacat::sources::SourcesMode fallback,
    const char* command) {
  std::string text = option;
  const char* from = "--sources";
  if (text.empty()) {
    const char* env = std::getenv(novacat::sources::kSourcesModeVariable);
    if (!env || !*env) return fallback;
    text = env;
    from = novacat::sources::kSourcesModeVariable;
  }
  std::optional<novacat::sources::SourcesMode> mode =
      novacat::sources::ParseSourcesMode(text);
  if (!mode)
    std::fprintf(stderr,
                 "novacat %s: %s is \"%s\"; it must be recorded or live\n",
                 command, from, text.c_str());
  return mode;
}

// `novacat sources check`: exit 0 when every service asked answered, 1
// when one failed.
int CheckSources(novacat::sources::SourcesMode mode,
                 const std::string& fixtures, const std::string& format,
                 int64_t timeout_ms) {
  novacat::workflows::ArchiveAnswers answers(fixtures, mode);
  std::vector<novacat::workflows::SourceCheck> checks =
      novacat::workflows::CheckSources(answers.config, timeout_ms);
  bool failed = false;
  json out = json::array();
  for (const auto& c : checks) {
    failed = failed || c.status == "failed";
    out.push_back(c.ToJson());
  }
  if (format == "json")
    std::fputs(
        (Dump(json{{"sources", std::string(ToString(mode))}, {"checks", out}}) +
         "\n")
            .c_str(),
        stdout);
  else
    std::fputs(novacat::workflows::FormatSourceChecks(checks).c_str(), stdout);
  return failed ? kExitFailed : 0;
}

// `novacat sources replay`: the recorded answers on 127.0.0.1 until SIGINT
// or SIGTERM; first one line per service, NOVACAT_<SERVICE>_URL=<its base
// URL>, what a shell, a test or a Lambda function's environment takes.
int Replay(const std::string& fixtures, int port) {
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  // Blocked before the server's threads start, so they inherit the mask and
  // the signal reaches sigwait below.
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  novacat::sources::ReplayServer server(
      std::filesystem::path(fixtures) / "archives", port);
  for (const auto& v : novacat::sources::ServiceVariables())
    std::printf("%s=%s\n", std::string(v.variable).c_str(),
                server.BaseUrl(v.service).c_str());
  std::fflush(stdout);
  int signal = 0;
  sigwait(&stop, &signal);
  for (const std::string& request : server.unmatched())
    std::fprintf(stderr, "novacat sources replay: %s\n", request.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"novacat: run Nova Cat workflows on this machine."};
  app.name("novacat");
  app.require_subcommand(1);
  CLI::App* simulate = app.add_subcommand(
      "simulate",
      "Run a definition with scripted tasks; print {status, output, error, "
      "cause, states, waits} (and history with --history) as JSON. Exit 0 when "
      "it ran, 2 when the "
      "definition, script or input is invalid.");
  SimulateCommand simulation;
  simulate
      ->add_option("DEFINITION", simulation.definition_path,
                   "statemachine.asl.json")
      ->required();
  simulate
      ->add_option("--script", simulation.script_path,
                   "JSON: {\"TaskState\": [{\"return\": ...} | {\"throw\": "
                   "\"Error\", \"cause\": \"...\"}, ...]}; one outcome per "
                   "invocation, the last repeats")
      ->required();
  simulate->add_option("--input", simulation.input_text,
                       "Execution input: JSON text or @FILE");
  simulate->add_flag("--history", simulation.history,
                     "Include the history (every event with its documents) "
                     "in the JSON printed");
  simulate->add_flag("--print-history", simulation.print_history,
                     "Also print the history, one event per line, on stderr");
  bool express = false;
  simulate->add_flag("--express", express,
                     "Run as an EXPRESS workflow: the execution times out "
                     "after 5 minutes of virtual time");
  simulation.options.max_payload_bytes = 256 * 1024;
  simulate
      ->add_option("--max-payload-bytes", simulation.options.max_payload_bytes,
                   "States.DataLimitExceeded above this size")
      ->capture_default_str();
  simulate
      ->add_option("--max-history-events",
                   simulation.options.max_history_events,
                   "Step Functions' history quota: the execution fails with "
                   "States.Runtime at this event (a benchmark of a larger "
                   "definition raises it)")
      ->capture_default_str();

  CLI::App* run = app.add_subcommand(
      "run",
      "Run a workflow on this machine: its generated ASL, the real step "
      "logic, the SQLite store and the fixture clients. Prints {runs: "
      "[...]} as JSON; logs JSON lines to stderr. Exit 0 when every run "
      "succeeded, 1 when one failed, 2 when nothing could run.");
  RunCommand run_command;
  std::string db = "novacat.db", fixtures;
  run->add_option("WORKFLOW", run_command.workflow, "Workflow name")
      ->required();
  run->add_option("--input", run_command.input_text,
                  "Input event: JSON text or @FILE")
      ->capture_default_str();
  run->add_option("--db", db, "SQLite database (created on first use)")
      ->capture_default_str();
  run->add_option("--fixtures", fixtures,
                  "Fixture folder: the archives' recorded answers "
                  "(archives/), the novae and spectra (default: "
                  "$NOVACAT_FIXTURES, else the fixtures/ of the checkout the "
                  "working folder or the binary is in)");
  std::string sources_option;
  run->add_option("--sources", sources_option,
                  "recorded (the archives' recorded answers, served on "
                  "127.0.0.1: the default) or live (SIMBAD, VSX, TNS, ESO, "
                  "MAST and ADS themselves; NOVACAT_*_URL replace their "
                  "addresses); default $NOVACAT_SOURCES, else recorded")
      ->check(CLI::IsMember({"recorded", "live"}));
  StoreChoice store;
  run->add_option("--dynamodb", store.dynamodb,
                  "Use this DynamoDB table instead of --db (endpoint and "
                  "credentials from AWS_ENDPOINT_URL_DYNAMODB, AWS_REGION, "
                  "AWS_ACCESS_KEY_ID...)");
  run->add_option("--function", run_command.function,
                  "Run every Task on this deployed Lambda function (name or "
                  "ARN) through the Lambda Invoke API, as Step Functions "
                  "does (endpoint from AWS_ENDPOINT_URL_LAMBDA); needs "
                  "--dynamodb");
  run->add_flag("--follow", run_command.follow,
                "Also run the workflows the published events start");
  run->add_flag("--verbose", run_command.verbose,
                "Include each execution's history");
  run->add_flag("--for-each-nova", run_command.for_each_nova,
                "Run WORKFLOW once per nova of the store, each with --input "
                "plus its nova_id, as a `for_each: nova` schedule does");

  CLI::App* seed = app.add_subcommand(
      "seed", "Load fixtures/novae/existing.json into the store");
  seed->add_option("--db", db, "SQLite database (created on first use)")
      ->capture_default_str();
  seed->add_option("--fixtures", fixtures,
                   "Fixture folder (default: as for run)");
  seed->add_option("--dynamodb", store.dynamodb,
                   "Use this DynamoDB table instead of --db");

  CLI::App* photometry = app.add_subcommand(
      "photometry", "Photometry files of the catalog's novae");
  photometry->require_subcommand(1);
  CLI::App* photometry_add = photometry->add_subcommand(
      "add",
      "Register a nova's photometry file (CSV or FITS light curve: time, "
      "magnitude, magnitude error, band) and put it under photometry/ in "
      "the catalog's store, then run ingest_photometry_dataset on it as the "
      "bucket's Object Created event does in AWS. Prints what novacat run "
      "prints; exit codes as novacat run's.");
  std::string photometry_nova, photometry_provider = "AAVSO", photometry_file;
  photometry_add->add_option("FILE", photometry_file, "The light curve")
      ->required();
  photometry_add->add_option("--nova", photometry_nova, "The nova (UUID)")
      ->required();
  photometry_add
      ->add_option("--provider", photometry_provider,
                   "Where the light curve comes from")
      ->capture_default_str();
  photometry_add
      ->add_option("--db", db, "SQLite database (created on first use)")
      ->capture_default_str();
  photometry_add->add_option("--fixtures", fixtures,
                             "Fixture folder (default: as for run)");
  photometry_add->add_option("--dynamodb", store.dynamodb,
                             "Use this DynamoDB table instead of --db");
  photometry_add
      ->add_option("--sources", sources_option,
                   "recorded or live (default: as for run)")
      ->check(CLI::IsMember({"recorded", "live"}));

  CLI::App* sources = app.add_subcommand(
      "sources",
      "The public archives the workflows ask (SIMBAD, VSX, TNS, "
      "ESO, MAST, ADS)");
  sources->require_subcommand(1);
  CLI::App* sources_check = sources->add_subcommand(
      "check",
      "Ask each archive one known question (V1500 Cyg) and print, per "
      "service, whether it answered, its latency and what it found: what an "
      "operator runs after a deploy or when a provider starts failing. TNS "
      "and ADS are asked when their secrets are configured "
      "(NOVACAT_TNS_API_KEY / NOVACAT_TNS_SECRET, NOVACAT_ADS_TOKEN / "
      "NOVACAT_ADS_SECRET). Exit 0 when every service asked answered, 1 when "
      "one failed.");
  std::string check_sources = "live", check_format = "table";
  int64_t check_timeout_ms = 30000;
  sources_check
      ->add_option("--sources", check_sources,
                   "live (the real services; NOVACAT_*_URL replace their "
                   "addresses) or recorded (the recorded answers)")
      ->check(CLI::IsMember({"recorded", "live"}))
      ->capture_default_str();
  sources_check->add_option("--format", check_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  sources_check
      ->add_option("--timeout-ms", check_timeout_ms,
                   "The most each question may take")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sources_check->add_option("--fixtures", fixtures,
                            "Fixture folder, for --sources recorded "
                            "(default: as for run)");
  CLI::App* sources_replay = sources->add_subcommand(
      "replay",
      "Serve the archives' recorded answers (<fixtures>/archives) on "
      "127.0.0.1 until interrupted. Prints NOVACAT_<SERVICE>_URL=<base URL> "
      "for each service first: the environment that points the clients "
      "(novacat run --sources live, a Lambda function) at it.");
  int replay_port = 0;
  sources_replay
      ->add_option("--port", replay_port, "The port (default: a free one)")
      ->check(CLI::Range(0, 65535));
  sources_replay->add_option("--fixtures", fixtures,
                             "Fixture folder (default: as for run)");

  CLI::App* jobs = app.add_subcommand(
      "jobs",
      "Show what the store recorded of the runs (AP-OPS-1..3): a nova's "
      "JobRuns (workflow, status, outcome or error classification, start, "
      "end, duration), with --attempts or --run each run's Attempts (state, "
      "Map item, attempt, status, duration in ms, error and its "
      "classification), as an aligned table or JSON. Reads only. Exit 0 "
      "when found, 2 on a usage error or when nothing was found.");
  novacat::workflows::JobsQuery jobs_query;
  std::string jobs_format = "table";
  jobs->add_option("--nova", jobs_query.nova_id,
                   "The nova (UUID) whose JobRuns to list (AP-OPS-1)");
  jobs->add_option("--run", jobs_query.job_run_id,
                   "Show this JobRun (UUID) and its Attempts; with --nova in "
                   "that nova's partition, alone under its own id "
                   "(AP-OPS-3: runs started without a nova_id, like "
                   "initialize_nova's)");
  jobs->add_flag("--attempts", jobs_query.attempts,
                 "Also list each JobRun's Attempts (AP-OPS-2)");
  jobs->add_option("--format", jobs_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  jobs->add_option("--db", db, "SQLite database (must exist)")
      ->capture_default_str();
  jobs->add_option("--dynamodb", store.dynamodb,
                   "Use this DynamoDB table instead of --db");

  CLI::App* datasets = app.add_subcommand(
      "datasets", "A nova's datasets, and the requeue of a failed one");
  datasets->require_subcommand(1);
  std::string datasets_nova, datasets_id, datasets_format = "table";
  CLI::App* datasets_list = datasets->add_subcommand(
      "list",
      "Show the nova's datasets (spectra and photometry): processing and "
      "validation status, quarantine reason, runs in a row that failed, "
      "download eligibility, last update; as an aligned table or JSON. "
      "Reads only. Exit 0 (\"none\" when the nova has no dataset), 2 for an "
      "id that is not a UUID or a missing database.");
  datasets_list->add_option("--nova", datasets_nova, "The nova (UUID)")
      ->required();
  datasets_list->add_option("--format", datasets_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  CLI::App* datasets_requeue = datasets->add_subcommand(
      "requeue",
      "After review, make a spectra dataset that runs left QUARANTINED, "
      "FAILED_TERMINAL or FAILED_RETRYABLE (e.g. RETRIES_EXHAUSTED) READY and "
      "download-eligible again: the nova's next download_and_validate_spectra "
      "run takes it; so is one whose lease expired (a run that died). Exit 0 "
      "when requeued, 2 when refused (why on stderr).");
  datasets_requeue->add_option("--nova", datasets_nova, "The nova (UUID)")
      ->required();
  datasets_requeue->add_option("--dataset", datasets_id, "The dataset (UUID)")
      ->required();
  for (CLI::App* command : {datasets_list, datasets_requeue}) {
    command->add_option("--db", db, "SQLite database (must exist)")
        ->capture_default_str();
    command->add_option("--dynamodb", store.dynamodb,
                        "Use this DynamoDB table instead of --db");
  }

  CLI11_PARSE(app, argc, argv);
  try {
    store.db = db;
    if (fixtures.empty()) fixtures = FindFixtures(argv[0]).string();
    if (run->parsed() || photometry_add->parsed()) {
      std::optional<novacat::sources::SourcesMode> mode = ChosenSources(
          sources_option, novacat::sources::SourcesMode::kRecorded,
          run->parsed() ? "run" : "photometry add");
      if (!mode) return kExitInvalid;
      if (run->parsed()) {
        run_command.store = store;
        run_command.fixtures = fixtures;
        run_command.sources = *mode;
        return Run(run_command);
      }
      return AddPhotometry(photometry_nova, photometry_provider,
                           photometry_file, store, fixtures, *mode);
    }
    if (sources_check->parsed())
      return CheckSources(*novacat::sources::ParseSourcesMode(check_sources),
                          fixtures, check_format, check_timeout_ms);
    if (sources_replay->parsed()) return Replay(fixtures, replay_port);
    if (seed->parsed()) return Seed(store, fixtures);
    if (jobs->parsed()) return Jobs(jobs_query, store, jobs_format);
    if (datasets_list->parsed())
      return ListDatasets(datasets_nova, store, datasets_format);
    if (datasets_requeue->parsed())
      return RequeueDataset(datasets_nova, datasets_id, store);
  } catch (const std::exception& e) {
    // A broken database or fixture: say what, never crash.
    std::fprintf(stderr, "novacat %s: %s\n",
                 run->parsed()                ? "run"
                 : seed->parsed()             ? "seed"
                 : photometry_add->parsed()   ? "photometry add"
                 : datasets_list->parsed()    ? "datasets list"
                 : datasets_requeue->parsed() ? "datasets requeue"
                 : sources_check->parsed()    ? "sources check"
                 : sources_replay->parsed()   ? "sources replay"
                                              : "jobs",
                 e.what());
    return kExitInvalid;
  }
  if (express) simulation.options.execution_timeout_seconds = 300;
  return Simulate(std::move(simulation));
}
