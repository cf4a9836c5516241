// The local executor's speed: the initialize_nova happy path with no-op
// scripted handlers (compared with aws-local-stepfunctions by
// scripts/bench.sh), and the cost per state transition as definitions grow
// (chains of 10, 100, 1,000 Pass states; chains of 2,000 and 20,000 Pass
// and Choice states, run and loaded; a Map over 10,000 items), which must
// stay flat. Peak RSS is reported as the "peak_rss_kib" counter.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "novacat/runtime/asl/executor.h"

#if NOVACAT_FAST_ALLOCATOR
#include <mimalloc.h>
#else
#define NOVACAT_FAST_ALLOCATOR 0
#endif

namespace {

using json = nlohmann::ordered_json;
using novacat::runtime::asl::History;
using novacat::runtime::asl::RunOptions;
using novacat::runtime::asl::RunResult;
using novacat::runtime::asl::StateMachine;
using novacat::runtime::asl::TaskInvocation;
using novacat::runtime::asl::TaskOutcome;

long PeakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

std::unique_ptr<StateMachine> Load(const json& definition) {
  std::string error;
  auto machine = StateMachine::Load(definition, &error);
  if (!machine) throw std::runtime_error(error);
  return machine;
}

// The happy path that ends EXISTS_AND_LAUNCHED, as
// bench/initialize_nova_happy_path.json describes it (the input, what every
// no-op Task returns, the states the run must enter), which
// tests/tools/bench_local_sfn.mjs runs on aws-local-stepfunctions. Every
// run must SUCCEED through exactly that path, or the benchmark stops with
// the reason: it never measures a failing run. `history` is what the run
// records: kNone is the interpreter alone; aws-local-stepfunctions keeps
// every event holding a reference to its documents (between kEvents and
// kFull, which copies every document).
void BM_InitializeNovaHappyPath(benchmark::State& state, History history) {
  std::ifstream scenario_file("bench/initialize_nova_happy_path.json");
  if (!scenario_file) {
    state.SkipWithError(
        "cannot read bench/initialize_nova_happy_path.json (run from the "
        "repository's root)");
    return;
  }
  const json scenario = json::parse(scenario_file);
  std::ifstream definition(scenario.at("definition").get<std::string>());
  auto machine = Load(json::parse(definition));
  const json& input = scenario.at("input");
  const json& task_result = scenario.at("task_result");
  const auto path = scenario.at("path").get<std::vector<std::string>>();
  auto handler = [&](const TaskInvocation&) {
    return TaskOutcome{task_result, 0};
  };
  RunOptions options;
  options.history = history;
  for (auto _ : state) {
    RunResult r = machine->Run(input, handler, options);
    if (r.status != "SUCCEEDED" || r.states != path) {
      std::string why = "not the happy path: " + r.status;
      if (r.error) why += " (" + *r.error + ": " + r.cause.value_or("") + ")";
      why += " through";
      for (const std::string& name : r.states) why += " " + name;
      state.SkipWithError(why.c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["states_per_run"] = static_cast<double>(path.size());
  state.counters["peak_rss_kib"] = static_cast<double>(PeakRssKib());
}
BENCHMARK_CAPTURE(BM_InitializeNovaHappyPath, no_history, History::kNone);
BENCHMARK_CAPTURE(BM_InitializeNovaHappyPath, events, History::kEvents);
BENCHMARK_CAPTURE(BM_InitializeNovaHappyPath, full_history, History::kFull);

// The chains and the Map measure the interpreter: no history recorded.
// The chains and Maps measured are larger than any execution Step Functions
// allows (asl::kMaxHistoryEvents): the quota is lifted here.
RunOptions Interpreter() {
  RunOptions options;
  options.history = History::kNone;
  options.max_history_events = std::numeric_limits<int64_t>::max();
  return options;
}

// "S<i>" (built with append: GCC 12 misreports `"S" + to_string(i)` under
// -O2 as -Wrestrict).
std::string StateName(int i) {
  std::string name = "S";
  name.append(std::to_string(i));
  return name;
}

void BM_PassChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  json states = json::object();
  for (int i = 0; i < n; ++i) {
    json s = {{"Type", "Pass"}, {"Result", i}, {"ResultPath", "$.last"}};
    if (i + 1 < n) {
      s["Next"] = StateName(i + 1);
    } else {
      s["End"] = true;
    }
    states[StateName(i)] = s;
  }
  auto machine = Load({{"StartAt", "S0"}, {"States", states}});
  auto handler = [](const TaskInvocation&) { return TaskOutcome{}; };
  for (auto _ : state) {
    RunResult r = machine->Run({{"k", 1}}, handler, Interpreter());
    if (r.status != "SUCCEEDED" || r.states.size() != static_cast<size_t>(n)) {
      state.SkipWithError(("the chain did not run to its end: " + r.status +
                           " " + r.error.value_or("") + " " +
                           r.cause.value_or(""))
                              .c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * n);  // transitions per second
}
BENCHMARK(BM_PassChain)->Arg(10)->Arg(100)->Arg(1000);

// A chain of n states alternating Pass and Choice (the Choice's one rule
// never matches; its Default goes on), as `novacat simulate` was measured
// on in issue 13: the cost per transition must not grow with n.
json PassChoiceChain(int n) {
  json states = json::object();
  for (int i = 0; i < n; ++i) {
    json s;
    const bool last = i + 1 == n;
    if (i % 2 == 0) {
      s = {{"Type", "Pass"}, {"Result", i}, {"ResultPath", "$.last"}};
      if (last) {
        s["End"] = true;
      } else {
        s["Next"] = StateName(i + 1);
      }
    } else if (last) {
      s = {{"Type", "Succeed"}};
    } else {
      s = {{"Type", "Choice"},
           {"Choices",
            {{{"Variable", "$.last"}, {"NumericEquals", -1}, {"Next", "S0"}}}},
           {"Default", StateName(i + 1)}};
    }
    states[StateName(i)] = s;
  }
  return {{"StartAt", "S0"}, {"States", states}};
}

void BM_PassChoiceChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  auto machine = Load(PassChoiceChain(n));
  auto handler = [](const TaskInvocation&) { return TaskOutcome{}; };
  for (auto _ : state) {
    RunResult r = machine->Run({{"k", 1}}, handler, Interpreter());
    if (r.status != "SUCCEEDED" || r.states.size() != static_cast<size_t>(n)) {
      state.SkipWithError(("the chain did not run to its end: " + r.status +
                           " " + r.error.value_or("") + " " +
                           r.cause.value_or(""))
                              .c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * n);  // transitions per second
  // The process's peak so far: alone in its process (as bench.sh runs
  // it for this figure), the chain's.
  state.counters["peak_rss_kib"] = static_cast<double>(PeakRssKib());
}
BENCHMARK(BM_PassChoiceChain)
    ->Arg(2000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

// Loading (validating and compiling) the same chains: linear in n.
void BM_LoadPassChoiceChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const json definition = PassChoiceChain(n);
  for (auto _ : state) benchmark::DoNotOptimize(Load(definition));
  state.SetItemsProcessed(state.iterations() * n);  // states per second
}
BENCHMARK(BM_LoadPassChoiceChain)
    ->Arg(2000)
    ->Arg(20000)
    ->Unit(benchmark::kMillisecond);

void BM_MapItems(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  json items = json::array();
  for (int i = 0; i < n; ++i) items.push_back(i);
  auto machine =
      Load({{"StartAt", "M"},
            {"States",
             {{"M",
               {{"Type", "Map"},
                {"ItemsPath", "$.items"},
                {"ItemSelector", {{"value.$", "$$.Map.Item.Value"}}},
                {"ItemProcessor",
                 {{"StartAt", "P"},
                  {"States", {{"P", {{"Type", "Pass"}, {"End", true}}}}}}},
                {"ResultPath", "$.results"},
                {"End", true}}}}}});
  auto handler = [](const TaskInvocation&) { return TaskOutcome{}; };
  for (auto _ : state) {
    RunResult r = machine->Run({{"items", items}}, handler, Interpreter());
    if (r.status != "SUCCEEDED" ||
        r.output.at("results").size() != static_cast<size_t>(n)) {
      state.SkipWithError(("the Map did not run to its end: " + r.status + " " +
                           r.error.value_or("") + " " + r.cause.value_or(""))
                              .c_str());
      break;
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * (n + 1));
}
BENCHMARK(BM_MapItems)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

}  // namespace

// `executor_bench --print-chain N` prints the chain BM_PassChoiceChain/N
// runs as a scenario of tests/tools/bench_local_sfn.mjs (the definition
// inline, the input, the states the run enters), so scripts/bench.sh runs
// aws-local-stepfunctions on the very same definition. Otherwise Google
// Benchmark's command line.
int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--print-chain") {
    const int n = std::stoi(argv[2]);
    json path = json::array();
    for (int i = 0; i < n; ++i) path.push_back(StateName(i));
    const json scenario = {{"definition", PassChoiceChain(n)},
                           {"input", {{"k", 1}}},
                           {"task_result", json::object()},
                           {"path", path}};
    std::printf("%s\n", scenario.dump().c_str());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
#if NOVACAT_FAST_ALLOCATOR
  // The figures are those of novacat's allocator only if it is the one in
  // use (a link order that put the C library first would leave glibc's).
  auto probe = std::make_unique<int>(1);
  if (!mi_is_in_heap_region(probe.get())) {
    std::fprintf(stderr,
                 "executor_bench: mimalloc is linked but not the process's "
                 "allocator\n");
    return 1;
  }
#endif
  benchmark::AddCustomContext("allocator",
                              NOVACAT_FAST_ALLOCATOR ? "mimalloc" : "glibc");
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
