// Conditions, query ordering and the in-memory reference table.
#include <algorithm>
#include <utility>

#include "novacat/runtime/errors.h"
#include "novacat/store/memory_table.h"

namespace novacat::store {

using runtime::TerminalError;

const char* IndexName(Index index) {
  switch (index) {
    case Index::kTable:
      return kTableName;
    case Index::kGsi1:
      return "DatasetEligibilityIndex";
    case Index::kGsi2:
      return "NameResolutionIndex";
    case Index::kGsi3:
      return "S3ObjectIndex";
  }
  return kTableName;
}

const char* PartitionKeyAttribute(Index index) {
  switch (index) {
    case Index::kTable:
      return "PK";
    case Index::kGsi1:
      return "GSI1PK";
    case Index::kGsi2:
      return "GSI2PK";
    case Index::kGsi3:
      return "GSI3PK";
  }
  return "PK";
}

const char* SortKeyAttribute(Index index) {
  switch (index) {
    case Index::kTable:
      return "SK";
    case Index::kGsi1:
      return "GSI1SK";
    case Index::kGsi2:
      return "GSI2SK";
    case Index::kGsi3:
      return "GSI3SK";
  }
  return "SK";
}

namespace {

Condition Leaf(Condition::Kind kind, std::string name, nlohmann::json value) {
  Condition c;
  c.kind = kind;
  c.name = std::move(name);
  c.value = std::move(value);
  return c;
}

Condition Node(Condition::Kind kind, std::vector<Condition> children) {
  Condition c;
  c.kind = kind;
  c.children = std::move(children);
  return c;
}

// DynamoDB's ordering: numbers numerically, strings by bytes, nothing else
// is ordered. nullopt when the two are not comparable.
std::optional<int> Compare(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_integer() && b.is_number_integer()) {
      auto x = a.get<int64_t>(), y = b.get<int64_t>();
      return x < y ? -1 : (x > y ? 1 : 0);
    }
    double x = a.get<double>(), y = b.get<double>();
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  if (a.is_string() && b.is_string()) {
    const auto& x = a.get_ref<const std::string&>();
    const auto& y = b.get_ref<const std::string&>();
    int c = x.compare(y);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return std::nullopt;
}

bool Equal(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return Compare(a, b) == 0;
  return a == b;
}

const nlohmann::json* Attribute(const std::optional<Item>& item,
                                const std::string& name) {
  if (!item) return nullptr;
  auto it = item->find(name);
  return it == item->end() ? nullptr : &*it;
}

}  // namespace

Condition Condition::Exists(std::string name) {
  return Leaf(Kind::kAttributeExists, std::move(name), nullptr);
}
Condition Condition::NotExists(std::string name) {
  return Leaf(Kind::kAttributeNotExists, std::move(name), nullptr);
}
Condition Condition::Eq(std::string name, nlohmann::json value) {
  return Leaf(Kind::kEquals, std::move(name), std::move(value));
}
Condition Condition::Ne(std::string name, nlohmann::json value) {
  return Leaf(Kind::kNotEquals, std::move(name), std::move(value));
}
Condition Condition::Lt(std::string name, nlohmann::json value) {
  return Leaf(Kind::kLessThan, std::move(name), std::move(value));
}
Condition Condition::Le(std::string name, nlohmann::json value) {
  return Leaf(Kind::kLessOrEqual, std::move(name), std::move(value));
}
Condition Condition::Gt(std::string name, nlohmann::json value) {
  return Leaf(Kind::kGreaterThan, std::move(name), std::move(value));
}
Condition Condition::Ge(std::string name, nlohmann::json value) {
  return Leaf(Kind::kGreaterOrEqual, std::move(name), std::move(value));
}
Condition Condition::In(std::string name, std::vector<nlohmann::json> values) {
  Condition c = Leaf(Kind::kIn, std::move(name), nullptr);
  c.values = std::move(values);
  return c;
}
Condition Condition::And(std::vector<Condition> children) {
  return Node(Kind::kAnd, std::move(children));
}
Condition Condition::Or(std::vector<Condition> children) {
  return Node(Kind::kOr, std::move(children));
}
Condition Condition::Not(Condition child) {
  return Node(Kind::kNot, {std::move(child)});
}

bool EvaluateCondition(const Condition& condition,
                       const std::optional<Item>& item) {
  using Kind = Condition::Kind;
  const nlohmann::json* attribute = nullptr;
  switch (condition.kind) {
    case Kind::kAnd:
      return std::all_of(
          condition.children.begin(), condition.children.end(),
          [&](const Condition& c) { return EvaluateCondition(c, item); });
    case Kind::kOr:
      return std::any_of(
          condition.children.begin(), condition.children.end(),
          [&](const Condition& c) { return EvaluateCondition(c, item); });
    case Kind::kNot:
      return !condition.children.empty() &&
             !EvaluateCondition(condition.children.front(), item);
    default:
      attribute = Attribute(item, condition.name);
  }
  switch (condition.kind) {
    case Kind::kAttributeExists:
      return attribute != nullptr;
    case Kind::kAttributeNotExists:
      return attribute == nullptr;
    case Kind::kEquals:
      return attribute && Equal(*attribute, condition.value);
    case Kind::kNotEquals:
      return !attribute || !Equal(*attribute, condition.value);
    case Kind::kIn:
      return attribute &&
             std::any_of(
                 condition.values.begin(), condition.values.end(),
                 [&](const nlohmann::json& v) { return Equal(*attribute, v); });
    default:
      break;
  }
  if (!attribute) return false;
  std::optional<int> order = Compare(*attribute, condition.value);
  if (!order) return false;
  switch (condition.kind) {
    case Kind::kLessThan:
      return *order < 0;
    case Kind::kLessOrEqual:
      return *order <= 0;
    case Kind::kGreaterThan:
      return *order > 0;
    case Kind::kGreaterOrEqual:
      return *order >= 0;
    default:
      return false;
  }
}

std::vector<Item> Table::QueryAll(QueryRequest request) {
  std::vector<Item> all;
  for (;;) {
    QueryPage page = Query(request);
    for (Item& item : page.items) all.push_back(std::move(item));
    if (!page.last_evaluated_key) return all;
    request.exclusive_start_key = std::move(page.last_evaluated_key);
  }
}

void ValidateItem(const Item& item, std::string_view operation) {
  std::string op(operation);
  if (!item.is_object())
    throw TerminalError(op + ": the item is not an object");
  for (const char* k : {"PK", "SK"}) {
    auto it = item.find(k);
    if (it == item.end() || !it->is_string() ||
        it->get_ref<const std::string&>().empty())
      throw TerminalError(op + ": the item has no string " + k);
  }
  for (const auto& [name, value] : item.items()) {
    if (name.empty() || name[0] == ':' || name[0] == '#')
      throw TerminalError(op + " " + item["PK"].get<std::string>() + " / " +
                          item["SK"].get<std::string>() +
                          ": invalid attribute name '" + name + "'");
  }
}

void ValidateUpdate(const Update& update, std::string_view operation) {
  std::string op(operation);
  if (!update.set.is_object())
    throw TerminalError(op + ": the SET actions are not an object");
  for (const auto& [name, value] : update.set.items()) {
    if (name == "PK" || name == "SK")
      throw TerminalError(op + ": cannot SET the key attribute " + name);
    if (name.empty() || name[0] == ':' || name[0] == '#')
      throw TerminalError(op + ": invalid attribute name '" + name + "'");
  }
  for (const std::string& name : update.remove) {
    if (name == "PK" || name == "SK")
      throw TerminalError(op + ": cannot REMOVE the key attribute " + name);
    if (update.set.contains(name))
      throw TerminalError(op + ": attribute " + name +
                          " is both SET and REMOVEd");
  }
}

Item ApplyUpdate(const Key& key, const std::optional<Item>& item,
                 const Update& update) {
  Item result = item ? *item : Item{{"PK", key.pk}, {"SK", key.sk}};
  for (const auto& [name, value] : update.set.items()) result[name] = value;
  for (const std::string& name : update.remove) result.erase(name);
  return result;
}

std::optional<IndexKey> IndexKeyOf(const Item& item, Index index) {
  auto pk = item.find(PartitionKeyAttribute(index));
  auto sk = item.find(SortKeyAttribute(index));
  if (pk == item.end() || sk == item.end() || !pk->is_string() ||
      !sk->is_string())
    return std::nullopt;
  return IndexKey{pk->get<std::string>(), sk->get<std::string>(),
                  item.value("PK", ""), item.value("SK", "")};
}

bool MatchesQuery(const Item& item, const QueryRequest& request) {
  std::optional<IndexKey> key = IndexKeyOf(item, request.index);
  if (!key || key->pk != request.partition_key) return false;
  if (request.sort_key_prefix && !key->sk.starts_with(*request.sort_key_prefix))
    return false;
  if (request.sort_key_equals && key->sk != *request.sort_key_equals)
    return false;
  return true;
}

Item LastEvaluatedKeyOf(const Item& item, Index index) {
  Item key{{"PK", item.at("PK")}, {"SK", item.at("SK")}};
  if (index != Index::kTable) {
    key[PartitionKeyAttribute(index)] = item.at(PartitionKeyAttribute(index));
    key[SortKeyAttribute(index)] = item.at(SortKeyAttribute(index));
  }
  return key;
}

// MemoryTable.

std::optional<Item> MemoryTable::GetItem(const Key& key) {
  std::lock_guard lock(mutex_);
  auto it = items_.find({key.pk, key.sk});
  if (it == items_.end()) return std::nullopt;
  return it->second;
}

WriteResult MemoryTable::PutItem(const Item& item,
                                 const std::optional<Condition>& condition) {
  ValidateItem(item, "PutItem");
  std::pair<std::string, std::string> key{item["PK"], item["SK"]};
  std::lock_guard lock(mutex_);
  auto it = items_.find(key);
  std::optional<Item> current;
  if (it != items_.end()) current = it->second;
  if (condition && !EvaluateCondition(*condition, current))
    return {WriteStatus::kConditionFailed, std::nullopt};
  items_[key] = item;
  return {};
}

WriteResult MemoryTable::UpdateItem(const Key& key, const Update& update,
                                    const std::optional<Condition>& condition) {
  ValidateUpdate(update, "UpdateItem");
  std::lock_guard lock(mutex_);
  auto it = items_.find({key.pk, key.sk});
  std::optional<Item> current;
  if (it != items_.end()) current = it->second;
  if (condition && !EvaluateCondition(*condition, current))
    return {WriteStatus::kConditionFailed, std::nullopt};
  Item updated = ApplyUpdate(key, current, update);
  items_[{key.pk, key.sk}] = updated;
  return {WriteStatus::kApplied, std::move(updated)};
}

WriteResult MemoryTable::DeleteItem(const Key& key,
                                    const std::optional<Condition>& condition) {
  std::lock_guard lock(mutex_);
  auto it = items_.find({key.pk, key.sk});
  std::optional<Item> current;
  if (it != items_.end()) current = it->second;
  if (condition && !EvaluateCondition(*condition, current))
    return {WriteStatus::kConditionFailed, std::nullopt};
  if (it != items_.end()) items_.erase(it);
  return {};
}

QueryPage MemoryTable::Query(const QueryRequest& request) {
  std::vector<std::pair<IndexKey, const Item*>> matches;
  std::lock_guard lock(mutex_);
  for (const auto& [key, item] : items_) {
    if (MatchesQuery(item, request))
      matches.emplace_back(*IndexKeyOf(item, request.index), &item);
  }
  std::sort(matches.begin(), matches.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::optional<IndexKey> start;
  if (request.exclusive_start_key)
    start = IndexKeyOf(*request.exclusive_start_key, request.index);
  QueryPage page;
  for (const auto& [index_key, item] : matches) {
    if (start && !(*start < index_key)) continue;
    page.items.push_back(*item);
    // As DynamoDB: a page that reached the limit carries its last key even
    // when nothing follows; the next (empty) page ends the query.
    if (request.limit > 0 &&
        page.items.size() == static_cast<size_t>(request.limit)) {
      page.last_evaluated_key = LastEvaluatedKeyOf(*item, request.index);
      break;
    }
  }
  return page;
}

std::vector<Item> MemoryTable::Scan() const {
  std::lock_guard lock(mutex_);
  std::vector<Item> all;
  for (const auto& [key, item] : items_) all.push_back(item);
  return all;
}

}  // namespace novacat::store
