#include "novacat/runtime/testing/conformance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/asl/executor.h"
#include "novacat/runtime/asl/script.h"
#include "novacat/runtime/asl/task_handler.h"
#include "novacat/runtime/builtins.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/json_reader.h"
#include "novacat/runtime/log.h"
#include "novacat/runtime/store.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/table_record_store.h"

namespace novacat::runtime::testing {
namespace {

struct ConformanceCase {
  std::string name;
  nlohmann::ordered_json body;
};

// NOVACAT_CONFORMANCE_ASL overrides the definition (the mutation test runs
// the same cases against mutants).
std::unique_ptr<asl::StateMachine> LoadConformanceMachine(
    std::string asl_path) {
  if (const char* other = std::getenv("NOVACAT_CONFORMANCE_ASL"))
    asl_path = other;
  std::ifstream in(asl_path);
  EXPECT_TRUE(in) << "cannot read " << asl_path;
  if (!in) return nullptr;
  std::string error;
  auto machine =
      asl::StateMachine::Load(nlohmann::ordered_json::parse(in), &error);
  EXPECT_TRUE(machine) << error;
  return machine;
}

// The host-mode run of one case (see conformance.h).
class HostRun {
 public:
  using Json = nlohmann::json;

  HostRun(const BindingFactory& factory, const nlohmann::ordered_json& script)
      : script_(Json::parse(script.dump())),
        binding_(factory(
            [this](std::string_view state, const Json& document, StepContext&) {
              return Dispatch(state, document);
            })),
        services_{store_, log_, bus_, random_} {}

  struct Invocation {
    std::string state;
    int attempt = 1;
    std::optional<int64_t> item;
    bool ok = true;
    Json document;
  };

  asl::RunResult Run(const asl::StateMachine& machine,
                     const nlohmann::ordered_json& input) {
    asl::TaskHandler inner = MakeTaskHandler(binding_, services_);
    asl::TaskHandler handler = [&](const asl::TaskInvocation& call) {
      Invocation record;
      record.state = call.state_name;
      record.attempt = call.retry_count + 1;
      Json payload = Json::parse(
          call.input.value("Payload", nlohmann::ordered_json::object()).dump());
      record.document = payload.value("state", Json::object());
      if (record.document.is_object() &&
          record.document.contains("map_item_index") &&
          record.document["map_item_index"].is_number_integer())
        record.item = record.document["map_item_index"].get<int64_t>();
      try {
        asl::TaskOutcome out = inner(call);
        invocations_.push_back(std::move(record));
        return out;
      } catch (const asl::AslError&) {
        record.ok = false;
        invocations_.push_back(std::move(record));
        throw;
      }
    };
    asl::RunOptions options;
    options.history = asl::History::kNone;  // host cases read no event
    return machine.Run(input, handler, options);
  }

  int domain_calls() const { return domain_calls_; }
  const std::vector<Invocation>& invocations() const { return invocations_; }
  store::TableRecordStore& store() { return store_; }
  const store::MemoryTable& table() const { return table_; }
  CaptureSink& log() { return log_; }
  CaptureBus& bus() { return bus_; }
  const WorkflowBinding& binding() const { return binding_; }

 private:
  Json Dispatch(std::string_view state, const Json& document) {
    ++domain_calls_;
    std::string key(state);
    if (document.is_object() && document.contains("map_item_index")) {
      std::string item_key =
          key + "[" + document["map_item_index"].dump() + "]";
      if (script_.contains(item_key)) key = item_key;
    }
    Json result = document;
    if (!script_.contains(key) || script_[key].empty()) return result;
    const Json& entries = script_[key];
    int& used = used_[key];
    const Json& entry = entries[std::min<size_t>(used, entries.size() - 1)];
    ++used;
    if (entry.contains("throw")) {
      const std::string name = entry["throw"];
      const std::string cause = entry.value("cause", "");
      // The plan names the governance's errors; the binding knows them.
      const ErrorNames& names = binding_.facts.errors;
      if (name == names.retryable) throw RetryableError(cause);
      if (name == names.quarantine) throw QuarantineError(cause);
      throw TerminalError(cause);
    }
    for (auto it = entry["set"].begin(); it != entry["set"].end(); ++it)
      result[it.key()] = it.value();
    return result;
  }

  Json script_;
  WorkflowBinding binding_;
  // The store that ships (TableRecordStore) over the reference table: the
  // cases certify its lock and JobRun rules.
  store::MemoryTable table_;
  store::TableRecordStore store_{table_};
  CaptureSink log_;
  CaptureBus bus_;
  SeededRandom random_{7};
  HostServices services_;
  std::map<std::string, int> used_;
  std::vector<Invocation> invocations_;
  int domain_calls_ = 0;
};

// "*_id" fields hold a UUID, "*_ids" fields UUIDs only.
void ExpectUuidIdentifiers(const nlohmann::json& event,
                           const std::string& name) {
  for (auto it = event.begin(); it != event.end(); ++it) {
    const std::string& key = it.key();
    if (key.ends_with("_id")) {
      EXPECT_TRUE(it->is_string() && IsUuid(it->get<std::string>()))
          << name << "." << key << " is not a UUID: " << it->dump();
    } else if (key.ends_with("_ids")) {
      EXPECT_TRUE(it->is_array()) << name << "." << key;
      if (it->is_array()) {
        for (const auto& v : *it) {
          EXPECT_TRUE(v.is_string() && IsUuid(v.get<std::string>()))
              << name << "." << key << " holds a non-UUID: " << v.dump();
        }
      }
    }
  }
}

std::string AttemptLabel(const std::string& state, std::optional<int64_t> item,
                         int attempt, const std::string& status,
                         const std::optional<std::string>& cls) {
  std::string label = state;
  if (item) label += "[" + std::to_string(*item) + "]";
  label += "#" + std::to_string(attempt) + ":" + status;
  if (cls && status == "FAILED") label += ":" + *cls;
  return label;
}

void RunHostCase(const asl::StateMachine& machine,
                 const BindingFactory& factory, const ConformanceCase& c) {
  using Json = nlohmann::json;
  const auto& host = c.body["host"];
  const Json expect = Json::parse(host["expect"].dump());
  const Json input = Json::parse(host["input"].dump());
  HostRun run(factory, host["domain"]);
  asl::RunResult r = run.Run(machine, host["input"]);
  SCOPED_TRACE("host mode");
  if (r.status != c.body["expect"]["status"].get<std::string>()) {
    // Say why: the failed invocations' log lines hold the errors.
    std::string why;
    for (const std::string& line : run.log().lines())
      if (line.find("\"error_summary\"") != std::string::npos ||
          line.find("\"level\":\"ERROR\"") != std::string::npos)
        why += "\n  " + line;
    ADD_FAILURE() << "status " << r.status << ", expected "
                  << c.body["expect"]["status"] << " (" << r.error.value_or("")
                  << ": " << r.cause.value_or("") << ")" << why;
  }

  // One JobRun, final as expected.
  std::vector<JobRun> runs;
  std::set<std::string> seen;
  for (const store::Item& item : run.table().Scan()) {
    if (item.value("entity", "") != "JobRun") continue;
    Parsed<JobRun> parsed = JobRunFromItem(item);
    ASSERT_TRUE(parsed.ok()) << item.dump();
    if (seen.insert(parsed.value->job_run_id).second)
      runs.push_back(*parsed.value);
  }
  ASSERT_EQ(runs.size(), 1u) << "JobRuns of one run";
  const JobRun& job = runs[0];
  const Json& want = expect["jobrun"];
  EXPECT_EQ(JobRunStatusName(job.status), want["status"].get<std::string>());
  if (want.contains("outcome")) {
    EXPECT_EQ(job.outcome.value_or(""), want["outcome"].get<std::string>());
  }
  if (want.contains("error_classification")) {
    EXPECT_EQ(job.error_classification.value_or(""),
              want["error_classification"].get<std::string>());
  }

  // The correlation id: the input's, or a generated UUID v4.
  const std::string cid = job.correlation_id;
  if (input.contains("correlation_id")) {
    EXPECT_EQ(cid, input["correlation_id"].get<std::string>());
  } else {
    EXPECT_TRUE(IsUuidV4(cid)) << cid;
  }

  // One Attempt per invocation, with its status; the same correlation id.
  std::vector<std::string> invoked, recorded, item_attempts;
  std::map<std::string, int> per_state;
  for (const auto& inv : run.invocations()) {
    // An invocation that failed before the run had a job_run_id (BeginJobRun
    // rejecting the input) has no run to record its Attempt under.
    if (!inv.ok &&
        !(inv.document.is_object() && inv.document.contains("job_run_id")))
      continue;
    invoked.push_back(AttemptLabel(inv.state, inv.item, inv.attempt,
                                   inv.ok ? "SUCCEEDED" : "FAILED",
                                   std::nullopt));
  }
  const std::vector<Attempt> attempts =
      run.store().ListAttempts(job.job_run_id, job.nova_id);
  for (const Attempt& a : attempts) {
    recorded.push_back(AttemptLabel(a.state_name, a.map_item_index,
                                    a.attempt_number,
                                    AttemptStatusName(a.status), std::nullopt));
    if (a.map_item_index)
      item_attempts.push_back(
          AttemptLabel(a.state_name, a.map_item_index, a.attempt_number,
                       AttemptStatusName(a.status), a.error_classification));
    ++per_state[a.state_name];
    EXPECT_EQ(a.correlation_id, cid) << "Attempt " << a.state_name;
  }
  std::sort(invoked.begin(), invoked.end());
  std::sort(recorded.begin(), recorded.end());
  std::sort(item_attempts.begin(), item_attempts.end());
  EXPECT_EQ(Json(recorded), Json(invoked)) << "Attempts vs invocations";
  if (expect.contains("attempts")) {
    for (auto it = expect["attempts"].begin(); it != expect["attempts"].end();
         ++it) {
      EXPECT_EQ(per_state[it.key()], it.value().get<int>())
          << "Attempts of " << it.key();
    }
  }
  if (expect.contains("item_attempts")) {
    EXPECT_EQ(Json(item_attempts), expect["item_attempts"]);
  }

  // A scenario's path: the spec states entered (the ASL's own marks, such
  // as RecordOutcome_* Pass states, filtered out), and Tasks never run.
  if (expect.contains("path")) {
    std::set<std::string> known;
    for (const auto& name : expect["path_filter"]) known.insert(name);
    Json path = Json::array();
    for (const auto& name : r.states)
      if (known.count(name)) path.push_back(name);
    EXPECT_EQ(path, expect["path"]) << "states entered";
  }
  if (expect.contains("not_invoked")) {
    for (const auto& name : expect["not_invoked"]) {
      for (const auto& inv : run.invocations()) {
        EXPECT_NE(inv.state, name.get<std::string>())
            << name << " must not run";
      }
    }
  }

  // Events: the expected ones, valid, with UUID identifiers only.
  Json names = Json::array();
  for (const auto& e : run.bus().published()) {
    names.push_back(e.event_name);
    auto errors = run.binding().facts.validate_event(e.event_name, e.event);
    ASSERT_TRUE(errors.has_value()) << "unknown event " << e.event_name;
    EXPECT_TRUE(errors->empty())
        << e.event_name << ": " << FormatErrors(*errors);
    EXPECT_EQ(e.event.value("correlation_id", ""), cid) << e.event_name;
    ExpectUuidIdentifiers(e.event, e.event_name);
  }
  if (expect.contains("events")) {
    EXPECT_EQ(names, expect["events"]);
  }

  // Log lines: required fields, the when-known fields their invocation
  // knew, the correlation id and the idempotency key.
  const LogSpec& spec = run.binding().facts.log_spec;
  int keyed = 0;
  for (const std::string& text : run.log().lines()) {
    Json line = Json::parse(text);
    // The failure handlers of a run whose input lacked a required field
    // log it as null and name it in missing_required_fields (log.h).
    std::set<std::string> missing;
    for (const auto& f : line.value("missing_required_fields", Json::array()))
      missing.insert(f.get<std::string>());
    for (const auto& f : spec.required) {
      EXPECT_TRUE(line.contains(f) && (!line[f].is_null() || missing.count(f)))
          << f << " missing in " << text;
    }
    EXPECT_EQ(line.value("correlation_id", ""), cid) << text;
    // The invocation the line is about: state, attempt and Map item (the
    // host's task lines carry map_item_index; other lines of an item have
    // no way to say which, so they match the last such invocation).
    const HostRun::Invocation* source = nullptr;
    for (const auto& inv : run.invocations()) {
      if (inv.state == line.value("state_name", "") &&
          Json(inv.attempt) == line.value("attempt_number", Json()) &&
          (!line.contains("map_item_index") ||
           (inv.item && Json(*inv.item) == line["map_item_index"])))
        source = &inv;
    }
    // A domain Task's closing line says what its Attempt record says.
    const std::string message = line.value("message", "");
    if (message == "task succeeded" || message == "task failed") {
      std::optional<int64_t> item;
      if (line.contains("map_item_index"))
        item = line["map_item_index"].get<int64_t>();
      const Attempt* attempt = nullptr;
      for (const Attempt& a : attempts)
        if (a.state_name == line.value("state_name", "") &&
            Json(a.attempt_number) == line.value("attempt_number", Json()) &&
            a.map_item_index == item)
          attempt = &a;
      EXPECT_TRUE(attempt) << "no Attempt for " << text;
      if (attempt) {
        EXPECT_EQ(line.value("step_dedupe_key", Json()),
                  attempt->dedupe_key ? Json(*attempt->dedupe_key) : Json())
            << text;
        EXPECT_EQ(line.value("error_fingerprint", Json()),
                  attempt->error_fingerprint ? Json(*attempt->error_fingerprint)
                                             : Json())
            << text;
        EXPECT_EQ(line.value("error_classification", Json()),
                  attempt->error_classification
                      ? Json(*attempt->error_classification)
                      : Json())
            << text;
      }
    }
    if (source && source->document.is_object()) {
      for (const auto& f : spec.when_known) {
        if (source->document.contains(f)) {
          EXPECT_TRUE(line.contains(f))
              << f << " known but missing in " << text;
        }
      }
    }
    if (expect.contains("idempotency_key") &&
        line.contains("workflow_idempotency_key")) {
      ++keyed;
      EXPECT_EQ(line["workflow_idempotency_key"], expect["idempotency_key"]);
    }
  }
  if (expect.contains("idempotency_key")) {
    EXPECT_GT(keyed, 0) << "no log line carries the idempotency key";
  }

  // The same input again: the duplicate outcome, no domain Task, no event.
  if (expect.contains("rerun_outcome")) {
    const int calls = run.domain_calls();
    const size_t events = run.bus().published().size();
    asl::RunResult again = run.Run(machine, host["input"]);
    EXPECT_EQ(again.status, "SUCCEEDED")
        << again.error.value_or("") << ": " << again.cause.value_or("");
    EXPECT_EQ(again.output.value("outcome", nlohmann::ordered_json()),
              expect["rerun_outcome"]);
    EXPECT_EQ(run.domain_calls() - calls, expect.value("rerun_domain_calls", 0))
        << "a second run ran domain Tasks past the idempotency lock";
    EXPECT_EQ(run.bus().published().size(), events)
        << "a second run published again";
  }
}

void RunConformanceCase(std::string asl_path, const ConformanceCase& c,
                        const BindingFactory& factory = nullptr) {
  using Json = nlohmann::ordered_json;
  auto machine = LoadConformanceMachine(std::move(asl_path));
  ASSERT_TRUE(machine);
  // NOVACAT_CONFORMANCE_PLAN_ONLY: plan mode alone (the mutation test shows
  // what the plan-mode cases catch by themselves).
  const bool plan_only = std::getenv("NOVACAT_CONFORMANCE_PLAN_ONLY");
  if (factory && c.body.contains("host") && !plan_only) {
    RunHostCase(*machine, factory, c);
    if (::testing::Test::HasFatalFailure()) return;
  }
  if (c.body.value("host_only", false)) return;
  asl::ScriptedHandler handler(c.body["script"]);
  const Json& expect = c.body["expect"];
  // A definition that loops (a mutant, a bad edit) fails at the history
  // quota (asl::kMaxHistoryEvents), as it would on Step Functions.
  asl::RunOptions options;
  // Only a Map's item starts are read from the history, never a document.
  options.history = expect.contains("map_starts") ? asl::History::kEvents
                                                  : asl::History::kNone;
  asl::RunResult r = machine->Run(c.body["input"], std::ref(handler), options);
  SCOPED_TRACE(c.body.value("note", ""));
  EXPECT_EQ(r.status, expect["status"].get<std::string>())
      << r.error.value_or("") << ": " << r.cause.value_or("");
  if (expect.contains("error")) {
    EXPECT_EQ(r.error, expect["error"].get<std::string>());
  }
  if (expect.contains("outcome")) {
    EXPECT_EQ(r.output.value("outcome", Json()), expect["outcome"]);
  }
  if (expect.contains("quarantine_reason")) {
    EXPECT_EQ(r.output.value("quarantine_reason", Json()),
              expect["quarantine_reason"]);
  }
  if (expect.contains("states")) {
    EXPECT_EQ(Json(r.states), expect["states"]);
  }
  if (expect.contains("last_state")) {
    ASSERT_FALSE(r.states.empty());
    EXPECT_EQ(r.states.back(), expect["last_state"].get<std::string>());
  }
  if (expect.contains("waits")) {
    EXPECT_EQ(Json(r.waits), expect["waits"]);
  }
  if (expect.contains("invocations")) {
    for (auto it = expect["invocations"].begin();
         it != expect["invocations"].end(); ++it)
      EXPECT_EQ(handler.invocations(it.key()), it.value().get<int>())
          << "invocations of " << it.key();
  }
  if (expect.contains("map_starts")) {
    for (auto it = expect["map_starts"].begin();
         it != expect["map_starts"].end(); ++it) {
      double started = -1;
      Json starts = Json::array();
      for (const auto& e : r.history) {
        if (e.state != it.key()) continue;
        if (e.type == "MapStarted") started = e.timestamp;
        if (e.type == "MapIterationStarted")
          starts.push_back(e.timestamp - started);
      }
      EXPECT_EQ(starts, it.value()) << "item starts of Map " << it.key();
    }
  }
}

// A case with a "base" runs as its base case does, but for what it states
// itself (conformance.h).
ConformanceCase WithBase(const ConformanceCase& c,
                         const ConformanceCase& base) {
  ConformanceCase out{c.name, c.body};
  auto& body = out.body;
  body.erase("base");
  auto input = base.body["input"];
  const auto own_input = c.body.value("input", input.object());
  for (const auto& [field, value] : own_input.items()) input[field] = value;
  body["input"] = std::move(input);
  auto script = base.body["script"];
  for (const auto& [task, entries] : c.body["script"].items())
    script[task] = entries;
  body["script"] = std::move(script);
  if (body["expect"].value("states", nlohmann::ordered_json()) == "base")
    body["expect"]["states"] = base.body["expect"]["states"];
  if (c.body.contains("host")) {
    const auto& base_host = base.body["host"];
    auto& host = body["host"];
    auto host_input = base_host["input"];
    const auto own_host_input =
        c.body["host"].value("input", host_input.object());
    for (const auto& [field, value] : own_host_input.items())
      host_input[field] = value;
    host["input"] = std::move(host_input);
    auto domain = base_host["domain"];
    for (const auto& [task, entries] : c.body["host"]["domain"].items())
      domain[task] = entries;
    host["domain"] = std::move(domain);
  }
  return out;
}

// One case of a plan, as GoogleTest runs it; `base` is its base case or
// null.
class ConformanceTest : public ::testing::Test {
 public:
  ConformanceTest(const std::string* asl_path, const ConformanceCase* c,
                  const ConformanceCase* base, const BindingFactory* factory)
      : asl_path_(asl_path), case_(c), base_(base), factory_(factory) {}
  void TestBody() override {
    if (base_)
      RunConformanceCase(*asl_path_, WithBase(*case_, *base_), *factory_);
    else
      RunConformanceCase(*asl_path_, *case_, *factory_);
  }

 private:
  const std::string* asl_path_;
  const ConformanceCase* case_;
  const ConformanceCase* base_;
  const BindingFactory* factory_;
};

// A plan that cannot be run: one failing test says why.
class UnreadablePlan : public ::testing::Test {
 public:
  explicit UnreadablePlan(std::string why) : why_(std::move(why)) {}
  void TestBody() override { ADD_FAILURE() << why_; }

 private:
  std::string why_;
};

}  // namespace

int RegisterConformanceSuite(const std::string& workflow,
                             const std::string& plan_path,
                             const std::string& asl_path,
                             BindingFactory binding_factory) {
  const std::string suite = "Plan/conformance_" + workflow;
  auto fail = [&](std::string why) {
    ::testing::RegisterTest(
        suite.c_str(), "Case/plan", nullptr, nullptr, __FILE__, __LINE__,
        [why]() -> ::testing::Test* { return new UnreadablePlan(why); });
    return 0;
  };
  std::ifstream in(plan_path);
  if (!in) return fail("cannot read the conformance plan " + plan_path);
  nlohmann::ordered_json plan =
      nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (plan.is_discarded() || !plan.is_object() || !plan.contains("cases") ||
      !plan["cases"].is_array())
    return fail(plan_path + " is not a conformance plan");
  if (plan.value("workflow", "") != workflow)
    return fail(plan_path + " is the plan of workflow '" +
                plan.value("workflow", "") + "', not '" + workflow + "'");
  // Registered tests outlive this call: what they share is kept for the
  // process's lifetime.
  static std::vector<std::unique_ptr<ConformanceCase>> cases;
  static std::vector<std::unique_ptr<std::string>> paths;
  static std::vector<std::unique_ptr<BindingFactory>> factories;
  paths.push_back(std::make_unique<std::string>(asl_path));
  factories.push_back(
      std::make_unique<BindingFactory>(std::move(binding_factory)));
  const std::string* path = paths.back().get();
  const BindingFactory* factory = factories.back().get();
  std::map<std::string, const ConformanceCase*> by_name;
  int count = 0;
  for (auto& c : plan["cases"]) {
    cases.push_back(std::make_unique<ConformanceCase>(
        ConformanceCase{c["name"].get<std::string>(), std::move(c)}));
    const ConformanceCase* one = cases.back().get();
    const std::string name = "Case/" + one->name;
    const ConformanceCase* base = nullptr;
    if (one->body.contains("base")) {
      const std::string base_name = one->body["base"].get<std::string>();
      auto it = by_name.find(base_name);
      if (it == by_name.end()) {
        const std::string why = plan_path + ": case '" + one->name +
                                "' names base '" + base_name +
                                "', which no earlier case is";
        ::testing::RegisterTest(
            suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
            [why]() -> ::testing::Test* { return new UnreadablePlan(why); });
        continue;
      }
      base = it->second;
    }
    by_name[one->name] = one;
    ::testing::RegisterTest(
        suite.c_str(), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
        [path, one, base, factory]() -> ::testing::Test* {
          return new ConformanceTest(path, one, base, factory);
        });
    ++count;
  }
  return count;
}

}  // namespace novacat::runtime::testing
