// FaultInjectingTable: a store::Table that forwards to another and, on the
// calls a schedule names, fails the way DynamoDB and the network do: what
// code above the store must survive (leveldb's fault-injecting Env, for the
// table). Every injected fault is a runtime::RetryableError.
//
//   MemoryTable inner;
//   FaultInjectingTable table(inner);
//   table.InjectOn(3, Fault::kThrottle);                    // 3rd call
//   table.InjectOn(Operation::kPutItem, 1, Fault::kAppliedThenLost);
//
// Thread-safe when the inner table is: the counters and the record of calls
// are guarded by a mutex, not held while the inner table works.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "novacat/store/table.h"

namespace novacat::store {

enum class Operation {
  kEnsureCreated,
  kGetItem,
  kPutItem,
  kUpdateItem,
  kDeleteItem,
  kQuery,
};
// "EnsureCreated", "GetItem", ...
const char* OperationName(Operation operation);

enum class Fault {
  // ThrottlingException: nothing happened.
  kThrottle,
  // The request timed out before reaching the table: nothing happened.
  kTimeout,
  // HTTP 500 InternalServerError: nothing happened.
  kServerError,
  // The connection was reset before the request was sent: nothing happened.
  kConnectionReset,
  // The operation was performed on the inner table, then the answer was
  // lost (a timeout on the way back): the caller sees a RetryableError, and
  // a retry meets its own earlier write (a conditional create then fails).
  kAppliedThenLost,
};
// "throttle", "timeout", "server error", "connection reset",
// "applied then lost".
const char* FaultName(Fault fault);

class FaultInjectingTable : public Table {
 public:
  // Forwards to `inner`, which must outlive this object.
  explicit FaultInjectingTable(Table& inner);

  // Fails the `call`-th call (1-based) counting every operation.
  void InjectOn(int call, Fault fault);
  // Fails the `call`-th call (1-based) of `operation`.
  void InjectOn(Operation operation, int call, Fault fault);

  // A call as this table saw it: the operation, the key (a query's
  // partition key as pk, sk empty; EnsureCreated: both empty) and the
  // fault injected, if any.
  struct Call {
    Operation operation;
    Key key;
    std::optional<Fault> fault;
    bool operator==(const Call&) const = default;
  };
  std::vector<Call> calls() const;

  void EnsureCreated() override;
  std::optional<Item> GetItem(const Key& key) override;
  WriteResult PutItem(const Item& item,
                      const std::optional<Condition>& condition) override;
  WriteResult UpdateItem(const Key& key, const Update& update,
                         const std::optional<Condition>& condition) override;
  WriteResult DeleteItem(const Key& key,
                         const std::optional<Condition>& condition) override;
  QueryPage Query(const QueryRequest& request) override;

 private:
  struct Rule {
    std::optional<Operation> operation;  // nullopt: counts every call
    int call;
    Fault fault;
  };
  // Records the call and returns the fault to inject, if any.
  std::optional<Fault> Begin(Operation operation, Key key);
  // Runs `perform` on the inner table unless `fault` prevents it.
  template <class Result, class Perform>
  Result Run(Operation operation, Key key, Perform perform);

  Table& inner_;
  mutable std::mutex mutex_;
  std::vector<Rule> rules_;
  int total_ = 0;
  int per_operation_[6] = {};
  std::vector<Call> calls_;
};

}  // namespace novacat::store
