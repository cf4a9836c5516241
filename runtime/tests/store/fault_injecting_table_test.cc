#include "novacat/store/fault_injecting_table.h"

#include <gtest/gtest.h>

#include "novacat/store/memory_table.h"
#include "store_test_util.h"

namespace novacat::store::testing {
namespace fault_injecting_table_test {
namespace {

using runtime::RetryableError;

TEST(FaultInjectingTableTest, EachFaultIsRetryableAndWritesNothing) {
  const std::vector<std::pair<Fault, std::string>> faults = {
      {Fault::kThrottle,
       "PutItem P / S: DynamoDB ThrottlingException: Rate of requests exceeds "
       "the allowed throughput (injected)"},
      {Fault::kTimeout, "PutItem P / S: curl: Timeout was reached (injected)"},
      {Fault::kServerError,
       "PutItem P / S: DynamoDB InternalServerError: Internal server error "
       "(injected)"},
      {Fault::kConnectionReset,
       "PutItem P / S: curl: Failure when receiving data from the peer: "
       "Connection reset by peer (injected)"},
  };
  for (const auto& [fault, message] : faults) {
    SCOPED_TRACE(FaultName(fault));
    MemoryTable inner;
    FaultInjectingTable table(inner);
    table.InjectOn(1, fault);
    ExpectError<RetryableError>(
        [&] { table.PutItem(MakeItem("P", "S"), std::nullopt); }, message);
    EXPECT_EQ(inner.Scan(), std::vector<Item>{});
    // The retry goes through.
    EXPECT_TRUE(table.PutItem(MakeItem("P", "S"), std::nullopt).applied());
    EXPECT_EQ(inner.Scan(), std::vector<Item>{MakeItem("P", "S")});
  }
}

// The lost acknowledgement: the create happened, the caller saw a
// RetryableError, and its retry meets its own write.
TEST(FaultInjectingTableTest, AppliedThenLostMakesTheRetryMeetItsOwnWrite) {
  MemoryTable inner;
  FaultInjectingTable table(inner);
  table.InjectOn(Operation::kPutItem, 1, Fault::kAppliedThenLost);
  const Item item = MakeItem("NOVA#1", "META", {{"writer", "run-1"}});
  ExpectError<RetryableError>(
      [&] { table.PutItem(item, Condition::NotExists("PK")); },
      "PutItem NOVA#1 / META: curl: Timeout was reached after the request was "
      "sent (injected; the operation was applied)");
  EXPECT_EQ(inner.GetItem({"NOVA#1", "META"}), item);
  WriteResult retry = table.PutItem(item, Condition::NotExists("PK"));
  EXPECT_EQ(retry.status, WriteStatus::kConditionFailed);
  EXPECT_EQ(table.GetItem({"NOVA#1", "META"}), item);
}

TEST(FaultInjectingTableTest, CountsAllCallsOrOneOperation) {
  MemoryTable inner;
  FaultInjectingTable table(inner);
  table.InjectOn(3, Fault::kTimeout);                           // overall
  table.InjectOn(Operation::kGetItem, 2, Fault::kServerError);  // 2nd Get
  table.InjectOn(Operation::kQuery, 1, Fault::kThrottle);       // 1st Query
  table.InjectOn(Operation::kUpdateItem, 1, Fault::kAppliedThenLost);
  table.EnsureCreated();                               // 1
  EXPECT_EQ(table.GetItem({"P", "S"}), std::nullopt);  // 2
  ExpectError<RetryableError>(                         // 3
      [&] {
        table.DeleteItem({"P", "S"}, std::nullopt);
      },
      "DeleteItem P / S: curl: Timeout was reached (injected)");
  ExpectError<RetryableError>(  // 4
      [&] {
        table.GetItem({"P", "T"});
      },
      "GetItem P / T: DynamoDB InternalServerError: Internal server error "
      "(injected)");
  QueryRequest query;
  query.partition_key = "P";
  ExpectError<RetryableError>(  // 5
      [&] { table.Query(query); },
      "Query P: DynamoDB ThrottlingException: Rate of requests exceeds the "
      "allowed throughput (injected)");
  Update update;
  update.set = {{"v", 1}};
  ExpectError<RetryableError>(  // 6
      [&] {
        table.UpdateItem({"P", "S"}, update, std::nullopt);
      },
      "UpdateItem P / S: curl: Timeout was reached after the request was sent "
      "(injected; the operation was applied)");
  EXPECT_EQ(table.QueryAll(query),  // 7
            std::vector<Item>{MakeItem("P", "S", {{"v", 1}})});
  EXPECT_EQ(table.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 1}}));  // 8

  using C = FaultInjectingTable::Call;
  EXPECT_EQ(table.calls(),
            (std::vector<C>{
                {Operation::kEnsureCreated, {"", ""}, std::nullopt},
                {Operation::kGetItem, {"P", "S"}, std::nullopt},
                {Operation::kDeleteItem, {"P", "S"}, Fault::kTimeout},
                {Operation::kGetItem, {"P", "T"}, Fault::kServerError},
                {Operation::kQuery, {"P", ""}, Fault::kThrottle},
                {Operation::kUpdateItem, {"P", "S"}, Fault::kAppliedThenLost},
                {Operation::kQuery, {"P", ""}, std::nullopt},
                {Operation::kGetItem, {"P", "S"}, std::nullopt},
            }));
}

TEST(FaultInjectingTableTest, WrapsEveryBackend) {
  for (const Backend& backend : TestBackends()) {
    if (backend.name == "dynamodb") continue;  // DynaliteFaultTest below
    SCOPED_TRACE(backend.name);
    std::unique_ptr<Table> inner = backend.make();
    FaultInjectingTable table(*inner);
    table.InjectOn(Operation::kUpdateItem, 1, Fault::kAppliedThenLost);
    Update lease;
    lease.set = {{"lease_owner", "run-1"}};
    EXPECT_THROW(table.UpdateItem({"P", "S"}, lease,
                                  Condition::NotExists("lease_owner")),
                 RetryableError);
    EXPECT_FALSE(
        table.UpdateItem({"P", "S"}, lease, Condition::NotExists("lease_owner"))
            .applied());
    EXPECT_EQ(inner->GetItem({"P", "S"}),
              MakeItem("P", "S", {{"lease_owner", "run-1"}}));
  }
}

TEST(DynaliteFaultTest, AppliedThenLostOnDynamoDb) {
  for (const Backend& backend : TestBackends()) {
    if (backend.name != "dynamodb") continue;
    std::unique_ptr<Table> inner = backend.make();
    FaultInjectingTable table(*inner);
    table.InjectOn(1, Fault::kAppliedThenLost);
    EXPECT_THROW(table.PutItem(MakeItem("P", "S"), Condition::NotExists("PK")),
                 RetryableError);
    EXPECT_FALSE(table.PutItem(MakeItem("P", "S"), Condition::NotExists("PK"))
                     .applied());
  }
}

}  // namespace
}  // namespace fault_injecting_table_test
}  // namespace novacat::store::testing
