// The store::Table backends side by side: GetItem, a conditional PutItem, a
// conditional UpdateItem and a 10-item Query page on MemoryTable (the
// baseline), SQLite in memory and on a file, and DynamoDbTable on dynalite
// (started by this binary on 127.0.0.1, or the one NOVACAT_DYNALITE_STATE
// names); then lease acquisition under contention (take a lease with
// attribute_not_exists, release it with a condition on the owner) with 2, 8
// and 32 threads, each with its own client.
//
//   build/release/store_table_bench [--benchmark_filter=Lease]
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

#include "backends.h"

namespace {

using novacat::store::Condition;
using novacat::store::Item;
using novacat::store::Key;
using novacat::store::QueryRequest;
using novacat::store::Table;
using novacat::store::Update;
using novacat::store::testing::Backend;
using novacat::store::testing::TestBackends;

const Item kPayload = {
    {"dataset_id", "d-0001"},
    {"processing_status", "READY"},
    {"byte_length", 4'194'304},
    {"sha256",
     "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c1"
     "5b0f00a08"},
    {"provider", {{"name", "ESO"}, {"ids", {"a", "b"}}}}};

Item Dataset(const std::string& pk, const std::string& sk) {
  Item item = kPayload;
  item["PK"] = pk;
  item["SK"] = sk;
  return item;
}

void GetItem(benchmark::State& state, Table* table) {
  table->PutItem(Dataset("NOVA#get", "DATASET#1"), std::nullopt);
  for (auto _ : state)
    benchmark::DoNotOptimize(table->GetItem({"NOVA#get", "DATASET#1"}));
}

void ConditionalPut(benchmark::State& state, Table* table) {
  static int run = 0;
  const std::string pk = "NOVA#put" + std::to_string(++run);
  int64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        table->PutItem(Dataset(pk, "DATASET#" + std::to_string(++i)),
                       Condition::And({Condition::NotExists("PK"),
                                       Condition::NotExists("SK")})));
  }
}

void ConditionalUpdate(benchmark::State& state, Table* table) {
  table->PutItem(Dataset("NOVA#update", "DATASET#1"), std::nullopt);
  int64_t i = 0;
  for (auto _ : state) {
    Update update;
    update.set = {{"attempts", ++i}, {"processing_status", "IN_PROGRESS"}};
    benchmark::DoNotOptimize(table->UpdateItem(
        {"NOVA#update", "DATASET#1"}, update, Condition::Exists("PK")));
  }
}

void QueryPage(benchmark::State& state, Table* table) {
  for (int i = 0; i < 100; ++i) {
    char sk[32];
    std::snprintf(sk, sizeof sk, "DATASET#%03d", i);
    table->PutItem(Dataset("NOVA#query", sk), std::nullopt);
  }
  QueryRequest request;
  request.partition_key = "NOVA#query";
  request.sort_key_prefix = "DATASET#";
  request.limit = 10;
  for (auto _ : state) benchmark::DoNotOptimize(table->Query(request));
}

// Every thread loops: take the lease if free (attribute_not_exists on the
// owner), and when it got it, give it back (only if still the owner).
void LeaseContention(benchmark::State& state, const Backend* backend,
                     Table* table) {
  std::unique_ptr<Table> client;
  if (backend->connect) client = backend->connect(*table);
  Table& mine = client ? *client : *table;
  const std::string me = "run-" + std::to_string(state.thread_index());
  const Key key{"NOVA#lease", "DATASET#1"};
  int64_t taken = 0;
  for (auto _ : state) {
    Update take;
    take.set = {{"lease_owner", me}};
    if (mine.UpdateItem(key, take, Condition::NotExists("lease_owner"))
            .applied()) {
      ++taken;
      Update release;
      release.remove = {"lease_owner"};
      mine.UpdateItem(key, release, Condition::Eq("lease_owner", me));
    }
  }
  state.counters["taken"] = benchmark::Counter(static_cast<double>(taken),
                                               benchmark::Counter::kIsRate);
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  std::vector<Backend> backends = TestBackends();
  // Tables live until the end; one per benchmark so none sees another's
  // items.
  std::vector<std::unique_ptr<Table>> tables;
  auto table_of = [&](const Backend& b) {
    tables.push_back(b.make());
    return tables.back().get();
  };
  const std::map<std::string, void (*)(benchmark::State&, Table*)> single = {
      {"GetItem", GetItem},
      {"ConditionalPutItem", ConditionalPut},
      {"ConditionalUpdateItem", ConditionalUpdate},
      {"QueryPage10", QueryPage}};
  for (const auto& [name, function] : single) {
    for (const Backend& b : backends) {
      benchmark::RegisterBenchmark((name + "/" + b.name).c_str(), function,
                                   table_of(b))
          ->UseRealTime();
    }
  }
  for (const Backend& b : backends) {
    if (b.name == "sqlite_memory") continue;  // one connection: no contention
    Table* table = table_of(b);
    benchmark::RegisterBenchmark(("LeaseContention/" + b.name).c_str(),
                                 LeaseContention, &b, table)
        ->Threads(2)
        ->Threads(8)
        ->Threads(32)
        ->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
