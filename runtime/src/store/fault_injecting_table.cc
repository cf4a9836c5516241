// FaultInjectingTable: counts calls, forwards them, and fails the scheduled
// ones with the RetryableError a real backend would raise.
#include "novacat/store/fault_injecting_table.h"

#include <utility>

#include "novacat/runtime/errors.h"

namespace novacat::store {

using runtime::RetryableError;

const char* OperationName(Operation operation) {
  switch (operation) {
    case Operation::kEnsureCreated:
      return "EnsureCreated";
    case Operation::kGetItem:
      return "GetItem";
    case Operation::kPutItem:
      return "PutItem";
    case Operation::kUpdateItem:
      return "UpdateItem";
    case Operation::kDeleteItem:
      return "DeleteItem";
    case Operation::kQuery:
      return "Query";
  }
  return "?";
}

const char* FaultName(Fault fault) {
  switch (fault) {
    case Fault::kThrottle:
      return "throttle";
    case Fault::kTimeout:
      return "timeout";
    case Fault::kServerError:
      return "server error";
    case Fault::kConnectionReset:
      return "connection reset";
    case Fault::kAppliedThenLost:
      return "applied then lost";
  }
  return "?";
}

namespace {

// The message a real backend would give, after "<operation> <key>: ".
const char* Symptom(Fault fault) {
  switch (fault) {
    case Fault::kThrottle:
      return "DynamoDB ThrottlingException: Rate of requests exceeds the "
             "allowed throughput (injected)";
    case Fault::kTimeout:
      return "curl: Timeout was reached (injected)";
    case Fault::kServerError:
      return "DynamoDB InternalServerError: Internal server error (injected)";
    case Fault::kConnectionReset:
      return "curl: Failure when receiving data from the peer: Connection "
             "reset by peer (injected)";
    case Fault::kAppliedThenLost:
      return "curl: Timeout was reached after the request was sent "
             "(injected; the operation was applied)";
  }
  return "";
}

std::string Describe(Operation operation, const Key& key) {
  std::string text = OperationName(operation);
  if (!key.pk.empty()) text += " " + key.pk;
  if (!key.sk.empty()) text += " / " + key.sk;
  return text;
}

}  // namespace

FaultInjectingTable::FaultInjectingTable(Table& inner) : inner_(inner) {}

void FaultInjectingTable::InjectOn(int call, Fault fault) {
  std::lock_guard lock(mutex_);
  rules_.push_back({std::nullopt, call, fault});
}

void FaultInjectingTable::InjectOn(Operation operation, int call, Fault fault) {
  std::lock_guard lock(mutex_);
  rules_.push_back({operation, call, fault});
}

std::vector<FaultInjectingTable::Call> FaultInjectingTable::calls() const {
  std::lock_guard lock(mutex_);
  return calls_;
}

std::optional<Fault> FaultInjectingTable::Begin(Operation operation, Key key) {
  std::lock_guard lock(mutex_);
  int total = ++total_;
  int of_kind = ++per_operation_[static_cast<int>(operation)];
  std::optional<Fault> fault;
  for (const Rule& rule : rules_) {
    bool hit = rule.operation
                   ? (*rule.operation == operation && rule.call == of_kind)
                   : rule.call == total;
    if (hit) {
      fault = rule.fault;
      break;
    }
  }
  calls_.push_back({operation, std::move(key), fault});
  return fault;
}

template <class Result, class Perform>
Result FaultInjectingTable::Run(Operation operation, Key key, Perform perform) {
  std::string what = Describe(operation, key);
  std::optional<Fault> fault = Begin(operation, std::move(key));
  if (!fault) return perform();
  if (*fault == Fault::kAppliedThenLost) perform();
  throw RetryableError(what + ": " + Symptom(*fault));
}

void FaultInjectingTable::EnsureCreated() {
  Run<int>(Operation::kEnsureCreated, {}, [&] {
    inner_.EnsureCreated();
    return 0;
  });
}

std::optional<Item> FaultInjectingTable::GetItem(const Key& key) {
  return Run<std::optional<Item>>(Operation::kGetItem, key,
                                  [&] { return inner_.GetItem(key); });
}

WriteResult FaultInjectingTable::PutItem(
    const Item& item, const std::optional<Condition>& condition) {
  Key key;
  for (auto [name, part] : {std::pair{"PK", &key.pk}, {"SK", &key.sk}}) {
    auto it = item.is_object() ? item.find(name) : item.end();
    if (item.is_object() && it != item.end() && it->is_string())
      *part = it->get<std::string>();
  }
  return Run<WriteResult>(Operation::kPutItem, std::move(key),
                          [&] { return inner_.PutItem(item, condition); });
}

WriteResult FaultInjectingTable::UpdateItem(
    const Key& key, const Update& update,
    const std::optional<Condition>& condition) {
  return Run<WriteResult>(Operation::kUpdateItem, key, [&] {
    return inner_.UpdateItem(key, update, condition);
  });
}

WriteResult FaultInjectingTable::DeleteItem(
    const Key& key, const std::optional<Condition>& condition) {
  return Run<WriteResult>(Operation::kDeleteItem, key,
                          [&] { return inner_.DeleteItem(key, condition); });
}

QueryPage FaultInjectingTable::Query(const QueryRequest& request) {
  return Run<QueryPage>(Operation::kQuery, {request.partition_key, ""},
                        [&] { return inner_.Query(request); });
}

}  // namespace novacat::store
