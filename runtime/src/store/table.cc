// Conditions, query ordering and the in-memory reference table.
#include <algorithm>
#include <charconv>
#include <cmath>
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

// RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF.
bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) {
      ++i;
      continue;
    } else if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF)) return false;
    }
    i += n + 1;
  }
  return true;
}

// What DynamoDB refuses in an attribute value, as the end of a message
// ("holds a string that is not valid UTF-8"), or empty when it is fine.
std::string ValueProblem(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::string:
      if (!IsValidUtf8(value.get_ref<const std::string&>()))
        return "holds a string that is not valid UTF-8";
      return "";
    case nlohmann::json::value_t::number_float: {
      double x = value.get<double>();
      if (!std::isfinite(x) ||
          (x != 0 && (std::fabs(x) < 1e-130 || std::fabs(x) >= 1e126))) {
        char text[32];
        auto end = std::to_chars(text, text + sizeof text, x).ptr;
        return "holds a number DynamoDB cannot store (" +
               std::string(text, end) + ")";
      }
      return "";
    }
    case nlohmann::json::value_t::array:
      for (const auto& element : value) {
        std::string problem = ValueProblem(element);
        if (!problem.empty()) return problem;
      }
      return "";
    case nlohmann::json::value_t::object:
      for (const auto& [name, member] : value.items()) {
        if (!IsValidUtf8(name))
          return "holds a map key that is not valid UTF-8";
        std::string problem = ValueProblem(member);
        if (!problem.empty()) return problem;
      }
      return "";
    case nlohmann::json::value_t::binary:
      return "holds binary data, which items do not support";
    default:
      return "";
  }
}

bool IsIndexKeyAttribute(std::string_view name) {
  for (Index index : {Index::kGsi1, Index::kGsi2, Index::kGsi3}) {
    if (name == PartitionKeyAttribute(index) || name == SortKeyAttribute(index))
      return true;
  }
  return false;
}

// The problem with attribute `name` = `value`, or empty.
std::string AttributeProblem(const std::string& name,
                             const nlohmann::json& value) {
  if (!IsValidUtf8(name)) return "an attribute name is not valid UTF-8";
  if (IsIndexKeyAttribute(name) &&
      (!value.is_string() || value.get_ref<const std::string&>().empty()))
    return "index key attribute " + name + " must be a non-empty string";
  std::string problem = ValueProblem(value);
  if (!problem.empty()) return "attribute '" + name + "' " + problem;
  return "";
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
  for (const char* k : {"PK", "SK"}) {
    if (!IsValidUtf8(item[k].get_ref<const std::string&>()))
      throw TerminalError(op + ": the item's " + k + " is not valid UTF-8");
  }
  for (const auto& [name, value] : item.items()) {
    if (name.empty() || name[0] == ':' || name[0] == '#')
      throw TerminalError(op + " " + item["PK"].get<std::string>() + " / " +
                          item["SK"].get<std::string>() +
                          ": invalid attribute name '" + name + "'");
    std::string problem = AttributeProblem(name, value);
    if (!problem.empty())
      throw TerminalError(op + " " + item["PK"].get<std::string>() + " / " +
                          item["SK"].get<std::string>() + ": " + problem);
  }
}

void ValidateKey(const Key& key, std::string_view operation) {
  std::string op(operation);
  for (const auto* part : {&key.pk, &key.sk}) {
    const char* name = part == &key.pk ? "PK" : "SK";
    if (part->empty())
      throw TerminalError(op + ": the key has an empty " + name);
    if (!IsValidUtf8(*part))
      throw TerminalError(op + ": the key's " + name + " is not valid UTF-8");
  }
}

void ValidateQuery(const QueryRequest& request, std::string_view operation) {
  std::string where = std::string(operation) + " " + IndexName(request.index);
  if (request.partition_key.empty())
    throw TerminalError(where + ": the partition key is empty");
  if (!IsValidUtf8(request.partition_key))
    throw TerminalError(where + ": the partition key is not valid UTF-8");
  where += " " + request.partition_key;
  if (request.sort_key_prefix && request.sort_key_equals)
    throw TerminalError(where +
                        ": sort_key_prefix and sort_key_equals are both set");
  if (request.sort_key_equals && request.sort_key_equals->empty())
    throw TerminalError(where + ": sort_key_equals is empty");
  for (const auto* s : {&request.sort_key_prefix, &request.sort_key_equals}) {
    if (*s && !IsValidUtf8(**s))
      throw TerminalError(where +
                          ": the sort key condition is not valid UTF-8");
  }
  if (request.limit < 0)
    throw TerminalError(where + ": negative limit " +
                        std::to_string(request.limit));
  if (request.exclusive_start_key) {
    const Item& start = *request.exclusive_start_key;
    std::vector<const char*> names{PartitionKeyAttribute(request.index),
                                   SortKeyAttribute(request.index)};
    if (request.index != Index::kTable) {
      names.push_back("PK");
      names.push_back("SK");
    }
    for (const char* name : names) {
      auto it = start.is_object() ? start.find(name) : start.end();
      if (!start.is_object() || it == start.end() || !it->is_string() ||
          !IsValidUtf8(it->get_ref<const std::string&>()))
        throw TerminalError(where + ": exclusive_start_key has no string " +
                            name);
    }
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
  for (const auto& [name, value] : update.set.items()) {
    std::string problem = AttributeProblem(name, value);
    if (!problem.empty()) throw TerminalError(op + ": " + problem);
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
  ValidateKey(key, "GetItem");
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
  ValidateKey(key, "UpdateItem");
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
  ValidateKey(key, "DeleteItem");
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
  ValidateQuery(request, "Query");
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
