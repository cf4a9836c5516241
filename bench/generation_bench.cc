// Generation time (load + check + emit) for synthetic specs of growing size,
// and for the seed specs phase by phase (BM_Seed*, run from the root).
// Growth must be linear: compare the per-state time (the
// "items_per_second" counter) across 100, 1,000 and 10,000 states. Times are
// wall-clock (UseRealTime): the emitters run on several threads.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "compiler.h"
#include "emit/asl_emitter.h"
#include "emit/conformance_emitter.h"
#include "emit/cpp_emitter.h"
#include "emit/docs_emitter.h"
#include "emit/generator.h"
#include "emit/stack_emitter.h"

namespace {

// A workflow of `tasks` domain Tasks in a chain between the builtins, with a
// Choice every 10 Tasks and a Map (one item Task with retries) every 50, the
// shape of the seed specs at a larger scale.
std::string SyntheticSpec(int tasks) {
  std::string s =
      "workflow: synthetic\n"
      "governance: shared/governance.yaml\n"
      "input: start\n"
      "events:\n  start:\n    fields:\n"
      "      nova_id: {type: uuid, required: true}\n"
      "      correlation_id: {type: uuid}\n"
      "data:\n  flag: {type: boolean}\n"
      "  entries: {type: array, items: {type: string}}\n"
      "  entry_results: {type: array, items: {type: object}}\n"
      "outcomes:\n  DONE: done\n  SHORT: short\n"
      "idempotency:\n  key: \"Synthetic:{nova_id}:{schema_version}\"\n"
      "catch:\n  quarantine: QuarantineHandler\n  failure: "
      "TerminalFailHandler\n"
      "states:\n"
      "  BeginJobRun: {type: Task, builtin: BeginJobRun, timeout: 10s, next: "
      "AcquireIdempotencyLock}\n"
      "  AcquireIdempotencyLock: {type: Task, builtin: AcquireIdempotencyLock, "
      "timeout: 10s, next: Step0}\n";
  for (int i = 0; i < tasks; ++i) {
    std::string next = i + 1 < tasks ? fmt::format("Step{}", i + 1)
                                     : std::string("FinalizeJobRunSuccess");
    std::string outcome = i + 1 < tasks ? "" : ", outcome: DONE";
    if (i % 50 == 24 && i + 1 < tasks) {
      s += fmt::format(
          "  Step{0}: {{type: Task, timeout: 20s, produces: [entries], next: "
          "Map{0}}}\n"
          "  Map{0}:\n    type: Map\n    items: entries\n"
          "    item: {{name: entry, type: string}}\n"
          "    carry: [nova_id]\n"
          "    concurrency: reference_reconciliation\n"
          "    max_items: 4\n    result: entry_results\n"
          "    states:\n"
          "      Item{0}: {{type: Task, timeout: 20s, retry: {{max_attempts: "
          "2}}, end: true}}\n"
          "    next: {1}\n",
          i, next);
    } else if (i % 10 == 9 && i + 1 < tasks) {
      s += fmt::format(
          "  Step{}: {{type: Task, timeout: 20s, produces: [flag], next: "
          "Check{}}}\n"
          "  Check{}:\n    type: Choice\n    rules:\n"
          "      - when: {{field: flag, equals: true}}\n"
          "        next: FinalizeJobRunSuccess\n        outcome: SHORT\n"
          "    default: {}\n",
          i, i, i, next);
    } else {
      s += fmt::format(
          "  Step{}: {{type: Task, timeout: 20s, retry: "
          "{{max_attempts: 2}}, next: {}{}}}\n",
          i, next, outcome);
    }
  }
  s += "  FinalizeJobRunSuccess: {type: Task, builtin: FinalizeJobRunSuccess, "
       "timeout: 10s, end: true}\n"
       "  QuarantineHandler: {type: Task, builtin: QuarantineHandler, timeout: "
       "10s, next: FinalizeJobRunQuarantined}\n"
       "  FinalizeJobRunQuarantined: {type: Task, builtin: "
       "FinalizeJobRunQuarantined, timeout: 10s, end: true}\n"
       "  TerminalFailHandler: {type: Task, builtin: TerminalFailHandler, "
       "timeout: 10s, next: FinalizeJobRunFailed}\n"
       "  FinalizeJobRunFailed: {type: Task, builtin: FinalizeJobRunFailed, "
       "timeout: 10s, next: Failed}\n"
       "  Failed: {type: Fail, error: TerminalError}\n";
  return s;
}

void BM_Generate(benchmark::State& state) {
  const int tasks = static_cast<int>(state.range(0));
  const std::string spec = SyntheticSpec(tasks);
  const std::string governance =
      novacat::DiskFileReader()("specs/shared/governance.yaml").value_or("");
  novacat::FileReader read =
      [&](const std::string& path) -> std::optional<std::string> {
    if (path == "specs/synthetic.yaml") return spec;
    if (path == "specs/shared/governance.yaml") return governance;
    return std::nullopt;
  };
  size_t bytes = 0, plan_bytes = 0;
  for (auto _ : state) {
    // Load, check and emit, as Compile does, without the deploy quotas it
    // checks last: from some 700 Tasks on, a definition is over Step
    // Functions' 1 MiB (definition-size), and the large sizes measure how
    // generation scales, not what deploys.
    novacat::DiagnosticSink sink;
    const auto specs =
        novacat::LoadAndCheck({"specs/synthetic.yaml"}, read, sink);
    if (sink.has_errors()) {
      state.SkipWithError(sink.FormatAll().c_str());
      return;
    }
    const novacat::FileSet files = novacat::Emit(specs);
    bytes = files.files().at("synthetic/statemachine.asl.json").content.size();
    plan_bytes = files.files().at("synthetic/conformance.json").content.size();
    benchmark::DoNotOptimize(files);
  }
  state.SetItemsProcessed(state.iterations() * tasks);
  state.counters["asl_bytes"] = static_cast<double>(bytes);
  // The conformance plan must grow linearly too (issue 13).
  state.counters["plan_bytes"] = static_cast<double>(plan_bytes);
}
BENCHMARK(BM_Generate)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

// The seed specs (specs/*.yaml, run from the repository root), phase by
// phase: what `novacat-gen --check specs/*.yaml` spends its time in.
std::vector<std::string> SeedSpecPaths() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator("specs"))
    if (entry.path().extension() == ".yaml")
      paths.push_back(entry.path().generic_string());
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<std::unique_ptr<novacat::WorkflowSpec>> LoadSeedSpecs() {
  novacat::DiagnosticSink sink;
  return novacat::LoadAndCheck(SeedSpecPaths(), novacat::DiskFileReader(),
                               sink);
}

void BM_SeedLoadAndCheck(benchmark::State& state) {
  const std::vector<std::string> paths = SeedSpecPaths();
  for (auto _ : state) {
    novacat::DiagnosticSink sink;
    auto specs = novacat::LoadAndCheck(paths, novacat::DiskFileReader(), sink);
    benchmark::DoNotOptimize(specs);
  }
}
BENCHMARK(BM_SeedLoadAndCheck)->Unit(benchmark::kMillisecond)->UseRealTime();

// One emitter over every seed spec; `emit` maps a spec to its text.
template <typename Emit>
void SeedEmit(benchmark::State& state, Emit emit) {
  const auto specs = LoadSeedSpecs();
  for (auto _ : state) {
    for (const auto& spec : specs) benchmark::DoNotOptimize(emit(*spec));
  }
}
void BM_SeedEmitAsl(benchmark::State& state) {
  SeedEmit(state, novacat::EmitAsl);
}
void BM_SeedEmitCpp(benchmark::State& state) {
  SeedEmit(state, [](const novacat::WorkflowSpec& spec) {
    return novacat::EmitCpp(spec);
  });
}
void BM_SeedEmitConformance(benchmark::State& state) {
  SeedEmit(state, novacat::EmitConformancePlan);
}
void BM_SeedEmitDocs(benchmark::State& state) {
  SeedEmit(state, [](const novacat::WorkflowSpec& spec) {
    return novacat::EmitWorkflowDocs(spec) + novacat::EmitWorkflowDot(spec);
  });
}
BENCHMARK(BM_SeedEmitAsl)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SeedEmitCpp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SeedEmitConformance)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SeedEmitDocs)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SeedEmitStack(benchmark::State& state) {
  const auto specs = LoadSeedSpecs();
  for (auto _ : state) benchmark::DoNotOptimize(novacat::EmitStack(specs));
}
BENCHMARK(BM_SeedEmitStack)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_SeedEmit(benchmark::State& state) {
  const auto specs = LoadSeedSpecs();
  for (auto _ : state) benchmark::DoNotOptimize(novacat::Emit(specs));
}
BENCHMARK(BM_SeedEmit)->Unit(benchmark::kMillisecond)->UseRealTime();

// The comparison with generated/ that --check ends with (in sync: no diff).
void BM_SeedCheckFiles(benchmark::State& state) {
  const auto specs = LoadSeedSpecs();
  const novacat::FileSet files = novacat::Emit(specs);
  for (auto _ : state)
    benchmark::DoNotOptimize(novacat::CheckFiles(files, "generated"));
}
BENCHMARK(BM_SeedCheckFiles)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
