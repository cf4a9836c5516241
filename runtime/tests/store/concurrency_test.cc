// Writers racing on one item under a condition only one can meet: exactly
// one wins, the others get kConditionFailed, and the item is the winner's
// whole write. Each case runs with separate clients (SQLite: separate
// connections to one file, the multi-process case; DynamoDB: one
// DynamoDbTable per thread) and, where a Table may be shared across
// threads, with one shared Table.
#include <gtest/gtest.h>

#include <latch>
#include <thread>

#include "store_test_util.h"

namespace novacat::store::testing {
namespace concurrency_test {
namespace {

constexpr int kThreads = 16;
constexpr int64_t kNow = 1'764'078'300;  // the clock every racer reads

enum class Clients { kSeparate, kShared };

struct RaceParam {
  Backend backend;
  Clients clients;
};

void PrintTo(const RaceParam& param, std::ostream* os) {
  *os << param.backend.name
      << (param.clients == Clients::kSeparate ? " separate" : " shared");
}

class RaceTest : public ::testing::TestWithParam<RaceParam> {
 protected:
  void SetUp() override { table_ = GetParam().backend.make(); }

  // Runs `attempt(table, i)` on kThreads threads released together and
  // returns each thread's result.
  std::vector<WriteResult> Race(
      const std::function<WriteResult(Table&, int)>& attempt) {
    const Backend& backend = GetParam().backend;
    std::vector<std::unique_ptr<Table>> clients;
    if (GetParam().clients == Clients::kSeparate) {
      for (int i = 0; i < kThreads; ++i)
        clients.push_back(backend.connect(*table_));
    }
    std::vector<WriteResult> results(kThreads);
    std::vector<std::string> errors(kThreads);
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([&, i] {
        Table& table = clients.empty() ? *table_ : *clients[i];
        start.arrive_and_wait();
        try {
          results[i] = attempt(table, i);
        } catch (const std::exception& e) {
          errors[i] = e.what();
        }
      });
    }
    for (std::thread& t : threads) t.join();
    for (int i = 0; i < kThreads; ++i)
      EXPECT_EQ(errors[i], "") << "thread " << i;
    return results;
  }

  static int Winner(const std::vector<WriteResult>& results) {
    int winner = -1, wins = 0, failures = 0;
    for (int i = 0; i < static_cast<int>(results.size()); ++i) {
      if (results[i].status == WriteStatus::kApplied) {
        winner = i;
        ++wins;
      } else {
        ++failures;
      }
    }
    EXPECT_EQ(wins, 1);
    EXPECT_EQ(failures, kThreads - 1);
    return winner;
  }

  static Condition LeaseCondition() {
    return Condition::Or(
        {Condition::NotExists("processing_status"),
         Condition::In("processing_status", {"READY", "FAILED_RETRYABLE"}),
         Condition::Lt("lease_expires_at", kNow)});
  }

  static Update TakeLease(int thread) {
    Update update;
    update.set = {{"processing_status", "IN_PROGRESS"},
                  {"lease_owner", "run-" + std::to_string(thread)},
                  {"lease_expires_at", kNow + 900}};
    return update;
  }

  std::unique_ptr<Table> table_;
};

TEST_P(RaceTest, ExactlyOneCreatesAnItem) {
  const Condition once =
      Condition::And({Condition::NotExists("PK"), Condition::NotExists("SK")});
  std::vector<WriteResult> results = Race([&](Table& table, int i) {
    return table.PutItem(MakeItem("NOVA#1", "META",
                                  {{"writer", i},
                                   {"payload", std::string(200, 'a' + i)},
                                   {"GSI2PK", "NAME#n" + std::to_string(i)},
                                   {"GSI2SK", "NOVA#1"}}),
                         once);
  });
  int winner = Winner(results);
  ASSERT_GE(winner, 0);
  EXPECT_EQ(table_->GetItem({"NOVA#1", "META"}),
            MakeItem("NOVA#1", "META",
                     {{"writer", winner},
                      {"payload", std::string(200, 'a' + winner)},
                      {"GSI2PK", "NAME#n" + std::to_string(winner)},
                      {"GSI2SK", "NOVA#1"}}));
}

TEST_P(RaceTest, ExactlyOneTakesAFreeLease) {
  const Item dataset = MakeItem("NOVA#1", "DATASET#d1",
                                {{"processing_status", "READY"}, {"size", 3}});
  ASSERT_TRUE(table_->PutItem(dataset, std::nullopt).applied());
  std::vector<WriteResult> results = Race([&](Table& table, int i) {
    return table.UpdateItem({"NOVA#1", "DATASET#d1"}, TakeLease(i),
                            LeaseCondition());
  });
  int winner = Winner(results);
  ASSERT_GE(winner, 0);
  const Item expected =
      MakeItem("NOVA#1", "DATASET#d1",
               {{"processing_status", "IN_PROGRESS"},
                {"size", 3},
                {"lease_owner", "run-" + std::to_string(winner)},
                {"lease_expires_at", kNow + 900}});
  EXPECT_EQ(results[winner].item, expected);
  EXPECT_EQ(table_->GetItem({"NOVA#1", "DATASET#d1"}), expected);
}

TEST_P(RaceTest, ExactlyOneReclaimsAnExpiredLease) {
  ASSERT_TRUE(table_
                  ->PutItem(MakeItem("NOVA#1", "DATASET#d1",
                                     {{"processing_status", "IN_PROGRESS"},
                                      {"lease_owner", "run-crashed"},
                                      {"lease_expires_at", kNow - 1}}),
                            std::nullopt)
                  .applied());
  std::vector<WriteResult> results = Race([&](Table& table, int i) {
    return table.UpdateItem({"NOVA#1", "DATASET#d1"}, TakeLease(i),
                            LeaseCondition());
  });
  int winner = Winner(results);
  ASSERT_GE(winner, 0);
  EXPECT_EQ(table_->GetItem({"NOVA#1", "DATASET#d1"}),
            MakeItem("NOVA#1", "DATASET#d1",
                     {{"processing_status", "IN_PROGRESS"},
                      {"lease_owner", "run-" + std::to_string(winner)},
                      {"lease_expires_at", kNow + 900}}));
}

TEST_P(RaceTest, AnUnexpiredLeaseIsTakenByNobody) {
  const Item held = MakeItem("NOVA#1", "DATASET#d1",
                             {{"processing_status", "IN_PROGRESS"},
                              {"lease_owner", "run-alive"},
                              {"lease_expires_at", kNow}});
  ASSERT_TRUE(table_->PutItem(held, std::nullopt).applied());
  std::vector<WriteResult> results = Race([&](Table& table, int i) {
    return table.UpdateItem({"NOVA#1", "DATASET#d1"}, TakeLease(i),
                            LeaseCondition());
  });
  for (const WriteResult& r : results)
    EXPECT_EQ(r.status, WriteStatus::kConditionFailed);
  EXPECT_EQ(table_->GetItem({"NOVA#1", "DATASET#d1"}), held);
}

std::vector<RaceParam> RaceParams() {
  std::vector<RaceParam> params;
  for (const Backend& backend : TestBackends()) {
    if (backend.connect) params.push_back({backend, Clients::kSeparate});
    if (backend.shared_across_threads)
      params.push_back({backend, Clients::kShared});
  }
  return params;
}

INSTANTIATE_TEST_SUITE_P(Backends, RaceTest, ::testing::ValuesIn(RaceParams()),
                         [](const ::testing::TestParamInfo<RaceParam>& info) {
                           return info.param.backend.name +
                                  (info.param.clients == Clients::kSeparate
                                       ? "_separate_clients"
                                       : "_shared_table");
                         });

}  // namespace
}  // namespace concurrency_test
}  // namespace novacat::store::testing
