// DynamoDbTable: JSON requests to DynamoDB's API through aws::JsonClient.
#include "novacat/store/dynamodb_table.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <thread>
#include <utility>

#include "novacat/runtime/errors.h"
#include "novacat/store/memory_table.h"

namespace novacat::store {

using runtime::TerminalError;

namespace dynamodb_json {

namespace {

std::string NumberText(const nlohmann::json& value) {
  if (value.is_number_unsigned()) return std::to_string(value.get<uint64_t>());
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  double x = value.get<double>();
  if (!std::isfinite(x))
    throw TerminalError("DynamoDB cannot store the number " +
                        std::string(std::isnan(x) ? "nan" : "inf"));
  // The shortest text that reads back as exactly `x`.
  char text[32];
  auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

nlohmann::json ParseNumber(const std::string& text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  bool integral = !text.empty() &&
                  text.find_first_not_of("-0123456789") == std::string::npos;
  if (integral) {
    int64_t i = 0;
    auto r = std::from_chars(begin, end, i);
    if (r.ec == std::errc() && r.ptr == end) return i;
    uint64_t u = 0;
    r = std::from_chars(begin, end, u);
    if (r.ec == std::errc() && r.ptr == end) return u;
  }
  double d = 0;
  auto r = std::from_chars(begin, end, d);
  if (r.ec != std::errc() || r.ptr != end)
    throw TerminalError("DynamoDB returned a malformed number '" + text + "'");
  return d;
}

}  // namespace

nlohmann::json ToAttributeValue(const nlohmann::json& value) {
  using T = nlohmann::json::value_t;
  switch (value.type()) {
    case T::string:
      return {{"S", value}};
    case T::number_integer:
    case T::number_unsigned:
    case T::number_float:
      return {{"N", NumberText(value)}};
    case T::boolean:
      return {{"BOOL", value}};
    case T::null:
      return {{"NULL", true}};
    case T::array: {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& element : value)
        list.push_back(ToAttributeValue(element));
      return {{"L", std::move(list)}};
    }
    case T::object: {
      nlohmann::json map = nlohmann::json::object();
      for (const auto& [name, member] : value.items())
        map[name] = ToAttributeValue(member);
      return {{"M", std::move(map)}};
    }
    default:
      throw TerminalError("DynamoDB items cannot hold " +
                          std::string(value.type_name()) + " values");
  }
}

nlohmann::json FromAttributeValue(const nlohmann::json& value) {
  if (!value.is_object() || value.size() != 1)
    throw TerminalError("malformed DynamoDB attribute value " + value.dump());
  auto only = value.begin();  // (items() proxies would dangle here)
  const std::string& type = only.key();
  const nlohmann::json& content = only.value();
  if (type == "S" && content.is_string()) return content;
  if (type == "N" && content.is_string())
    return ParseNumber(content.get<std::string>());
  if (type == "BOOL" && content.is_boolean()) return content;
  if (type == "NULL") return nullptr;
  if (type == "L" && content.is_array()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& element : content)
      list.push_back(FromAttributeValue(element));
    return list;
  }
  if (type == "M" && content.is_object()) return FromItem(content);
  throw TerminalError("unsupported DynamoDB attribute value " + value.dump());
}

nlohmann::json ToItem(const Item& item) {
  nlohmann::json result = nlohmann::json::object();
  for (const auto& [name, value] : item.items())
    result[name] = ToAttributeValue(value);
  return result;
}

Item FromItem(const nlohmann::json& item) {
  if (!item.is_object())
    throw TerminalError("malformed DynamoDB item " + item.dump());
  Item result = Item::object();
  for (const auto& [name, value] : item.items())
    result[name] = FromAttributeValue(value);
  return result;
}

namespace {

class Renderer {
 public:
  Renderer(nlohmann::json& names, nlohmann::json& values)
      : names_(names), values_(values) {}

  std::string Render(const Condition& c) {
    using Kind = Condition::Kind;
    switch (c.kind) {
      case Kind::kAttributeExists:
        return "attribute_exists(" + Name(c.name) + ")";
      case Kind::kAttributeNotExists:
        return "attribute_not_exists(" + Name(c.name) + ")";
      case Kind::kEquals:
        return Name(c.name) + " = " + Value(c.value);
      case Kind::kNotEquals:
        return Name(c.name) + " <> " + Value(c.value);
      case Kind::kLessThan:
        return Name(c.name) + " < " + Value(c.value);
      case Kind::kLessOrEqual:
        return Name(c.name) + " <= " + Value(c.value);
      case Kind::kGreaterThan:
        return Name(c.name) + " > " + Value(c.value);
      case Kind::kGreaterOrEqual:
        return Name(c.name) + " >= " + Value(c.value);
      case Kind::kIn: {
        if (c.values.empty()) return False();
        std::string list;
        for (const auto& v : c.values)
          list += (list.empty() ? "" : ", ") + Value(v);
        return Name(c.name) + " IN (" + list + ")";
      }
      case Kind::kAnd:
      case Kind::kOr: {
        bool all = c.kind == Kind::kAnd;
        if (c.children.empty()) return all ? True() : False();
        std::string joined;
        for (const Condition& child : c.children)
          joined +=
              (joined.empty() ? "" : (all ? " AND " : " OR ")) + Render(child);
        return "(" + joined + ")";
      }
      case Kind::kNot:
        if (c.children.empty()) return False();
        return "(NOT " + Render(c.children.front()) + ")";
    }
    return False();
  }

 private:
  // Expressions have no literals true and false; these are always true and
  // always false, for empty And / Or / In / Not, as EvaluateCondition.
  std::string True() {
    std::string pk = Name("PK");
    return "(attribute_exists(" + pk + ") OR attribute_not_exists(" + pk + "))";
  }
  std::string False() {
    std::string pk = Name("PK");
    return "(attribute_exists(" + pk + ") AND attribute_not_exists(" + pk +
           "))";
  }
  std::string Name(const std::string& name) {
    for (const auto& [placeholder, n] : names_.items())
      if (n == name) return placeholder;
    std::string placeholder = "#n" + std::to_string(names_.size());
    names_[placeholder] = name;
    return placeholder;
  }
  std::string Value(const nlohmann::json& value) {
    std::string placeholder = ":v" + std::to_string(values_.size());
    values_[placeholder] = ToAttributeValue(value);
    return placeholder;
  }

  nlohmann::json& names_;
  nlohmann::json& values_;
};

}  // namespace

std::string RenderCondition(const Condition& condition, nlohmann::json& names,
                            nlohmann::json& values) {
  return Renderer(names, values).Render(condition);
}

}  // namespace dynamodb_json

namespace {

using dynamodb_json::FromItem;
using dynamodb_json::ToAttributeValue;
using dynamodb_json::ToItem;

// DynamoDB's protocol; its throttles and transient failures are retryable.
aws::JsonService DynamoDbService() {
  return {"DynamoDB",
          "dynamodb",
          "AWS_ENDPOINT_URL_DYNAMODB",
          "DynamoDB_20120810",
          "1.0",
          {"ProvisionedThroughputExceededException", "ThrottlingException",
           "RequestLimitExceeded", "InternalServerError", "ServiceUnavailable",
           "ServiceUnavailableException", "InternalFailure",
           "TransactionConflictException", "LimitExceededException"}};
}

nlohmann::json KeyOf(const std::string& pk, const std::string& sk) {
  return {{"PK", {{"S", pk}}}, {"SK", {{"S", sk}}}};
}

std::string Describe(std::string_view operation, const std::string& pk,
                     const std::string& sk) {
  return std::string(operation) + " " + pk + " / " + sk;
}

// Adds a condition's ConditionExpression and placeholders to `request`.
void AddCondition(nlohmann::json& request,
                  const std::optional<Condition>& condition,
                  nlohmann::json& names, nlohmann::json& values) {
  if (condition)
    request["ConditionExpression"] =
        dynamodb_json::RenderCondition(*condition, names, values);
}

void AddPlaceholders(nlohmann::json& request, nlohmann::json& names,
                     nlohmann::json& values) {
  // DynamoDB refuses empty placeholder maps.
  if (!names.empty()) request["ExpressionAttributeNames"] = std::move(names);
  if (!values.empty()) request["ExpressionAttributeValues"] = std::move(values);
}

}  // namespace

struct DynamoDbTable::Impl {
  DynamoDbOptions options;
  std::unique_ptr<aws::JsonClient> client;
};

DynamoDbTable::DynamoDbTable(DynamoDbOptions options)
    : impl_(std::make_unique<Impl>()) {
  impl_->client = std::make_unique<aws::JsonClient>(DynamoDbService(), options);
  impl_->options = std::move(options);
  // The client's options, environment defaults filled in.
  static_cast<aws::ClientOptions&>(impl_->options) = impl_->client->options();
}

DynamoDbTable::~DynamoDbTable() = default;

const DynamoDbOptions& DynamoDbTable::options() const { return impl_->options; }

void DynamoDbTable::EnsureCreated() {
  const std::string& name = impl_->options.table_name;
  nlohmann::json definitions = nlohmann::json::array();
  auto key_schema = [](Index index) {
    return nlohmann::json::array(
        {{{"AttributeName", PartitionKeyAttribute(index)}, {"KeyType", "HASH"}},
         {{"AttributeName", SortKeyAttribute(index)}, {"KeyType", "RANGE"}}});
  };
  nlohmann::json indexes = nlohmann::json::array();
  for (Index index :
       {Index::kTable, Index::kGsi1, Index::kGsi2, Index::kGsi3}) {
    for (const char* a :
         {PartitionKeyAttribute(index), SortKeyAttribute(index)})
      definitions.push_back({{"AttributeName", a}, {"AttributeType", "S"}});
    if (index != Index::kTable)
      indexes.push_back({{"IndexName", IndexName(index)},
                         {"KeySchema", key_schema(index)},
                         {"Projection", {{"ProjectionType", "ALL"}}}});
  }
  nlohmann::json request = {{"TableName", name},
                            {"AttributeDefinitions", definitions},
                            {"KeySchema", key_schema(Index::kTable)},
                            {"GlobalSecondaryIndexes", indexes},
                            {"BillingMode", "PAY_PER_REQUEST"}};
  impl_->client->Call("CreateTable", request, "CreateTable " + name,
                      {"ResourceInUseException"});

  const std::string what = "DescribeTable " + name;
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(impl_->options.create_timeout_ms);
  for (;;) {
    nlohmann::json table =
        impl_->client->Call("DescribeTable", {{"TableName", name}}, what)
            .body.value("Table", nlohmann::json::object());
    bool active = table.value("TableStatus", "") == "ACTIVE";
    int found = 0;
    for (const auto& gsi :
         table.value("GlobalSecondaryIndexes", nlohmann::json::array())) {
      active = active && gsi.value("IndexStatus", "") == "ACTIVE";
      for (Index index : {Index::kGsi1, Index::kGsi2, Index::kGsi3})
        found += gsi.value("IndexName", "") == IndexName(index);
    }
    if (active && found != 3)
      throw TerminalError(what +
                          ": the table exists without the indexes "
                          "DatasetEligibilityIndex, NameResolutionIndex and "
                          "S3ObjectIndex");
    if (active) return;
    if (std::chrono::steady_clock::now() >= deadline)
      throw TerminalError(what + ": not ACTIVE after " +
                          std::to_string(impl_->options.create_timeout_ms) +
                          " ms");
    std::this_thread::sleep_for(
        std::chrono::milliseconds(impl_->options.poll_interval_ms));
  }
}

std::optional<Item> DynamoDbTable::GetItem(const Key& key) {
  ValidateKey(key, "GetItem");
  nlohmann::json request = {{"TableName", impl_->options.table_name},
                            {"Key", KeyOf(key.pk, key.sk)},
                            {"ConsistentRead", true}};
  const std::string what = Describe("GetItem", key.pk, key.sk);
  nlohmann::json answer = impl_->client->Call("GetItem", request, what).body;
  auto it = answer.find("Item");
  if (it == answer.end()) return std::nullopt;
  return FromItem(*it);
}

WriteResult DynamoDbTable::PutItem(const Item& item,
                                   const std::optional<Condition>& condition) {
  ValidateItem(item, "PutItem");
  const std::string what = Describe("PutItem", item["PK"], item["SK"]);
  nlohmann::json request = {{"TableName", impl_->options.table_name},
                            {"Item", ToItem(item)}};
  nlohmann::json names = nlohmann::json::object();
  nlohmann::json values = nlohmann::json::object();
  AddCondition(request, condition, names, values);
  AddPlaceholders(request, names, values);
  if (!impl_->client
           ->Call("PutItem", request, what, {"ConditionalCheckFailedException"})
           .ok)
    return {WriteStatus::kConditionFailed, std::nullopt};
  return {};
}

WriteResult DynamoDbTable::UpdateItem(
    const Key& key, const Update& update,
    const std::optional<Condition>& condition) {
  ValidateKey(key, "UpdateItem");
  ValidateUpdate(update, "UpdateItem");
  const std::string what = Describe("UpdateItem", key.pk, key.sk);
  nlohmann::json request = {{"TableName", impl_->options.table_name},
                            {"Key", KeyOf(key.pk, key.sk)},
                            {"ReturnValues", "ALL_NEW"}};
  nlohmann::json names = nlohmann::json::object();
  nlohmann::json values = nlohmann::json::object();
  // SET before REMOVE, placeholders in the order of the actions.
  std::string set, remove;
  for (const auto& [name, value] : update.set.items()) {
    std::string n = "#n" + std::to_string(names.size());
    std::string v = ":v" + std::to_string(values.size());
    names[n] = name;
    values[v] = ToAttributeValue(value);
    set += (set.empty() ? "SET " : ", ") + n + " = " + v;
  }
  for (const std::string& name : update.remove) {
    std::string n = "#n" + std::to_string(names.size());
    names[n] = name;
    remove += (remove.empty() ? "REMOVE " : ", ") + n;
  }
  std::string expression =
      set + (set.empty() || remove.empty() ? "" : " ") + remove;
  if (!expression.empty()) request["UpdateExpression"] = expression;
  AddCondition(request, condition, names, values);
  AddPlaceholders(request, names, values);
  aws::JsonClient::Answer answer = impl_->client->Call(
      "UpdateItem", request, what, {"ConditionalCheckFailedException"});
  if (!answer.ok) return {WriteStatus::kConditionFailed, std::nullopt};
  auto it = answer.body.find("Attributes");
  // An update that leaves only the key returns no attributes.
  Item updated = it == answer.body.end() ? Item{{"PK", key.pk}, {"SK", key.sk}}
                                         : FromItem(*it);
  return {WriteStatus::kApplied, std::move(updated)};
}

WriteResult DynamoDbTable::DeleteItem(
    const Key& key, const std::optional<Condition>& condition) {
  ValidateKey(key, "DeleteItem");
  const std::string what = Describe("DeleteItem", key.pk, key.sk);
  nlohmann::json request = {{"TableName", impl_->options.table_name},
                            {"Key", KeyOf(key.pk, key.sk)}};
  nlohmann::json names = nlohmann::json::object();
  nlohmann::json values = nlohmann::json::object();
  AddCondition(request, condition, names, values);
  AddPlaceholders(request, names, values);
  if (!impl_->client
           ->Call("DeleteItem", request, what,
                  {"ConditionalCheckFailedException"})
           .ok)
    return {WriteStatus::kConditionFailed, std::nullopt};
  return {};
}

QueryPage DynamoDbTable::Query(const QueryRequest& request) {
  ValidateQuery(request, "Query");
  const std::string what = std::string("Query ") + IndexName(request.index) +
                           " " + request.partition_key;
  nlohmann::json names = {{"#pk", PartitionKeyAttribute(request.index)}};
  nlohmann::json values = {{":pk", {{"S", request.partition_key}}}};
  std::string expression = "#pk = :pk";
  if (request.sort_key_equals) {
    names["#sk"] = SortKeyAttribute(request.index);
    values[":sk"] = {{"S", *request.sort_key_equals}};
    expression += " AND #sk = :sk";
  } else if (request.sort_key_prefix && !request.sort_key_prefix->empty()) {
    names["#sk"] = SortKeyAttribute(request.index);
    values[":sk"] = {{"S", *request.sort_key_prefix}};
    expression += " AND begins_with(#sk, :sk)";
  }
  nlohmann::json body = {{"TableName", impl_->options.table_name},
                         {"KeyConditionExpression", expression},
                         {"ExpressionAttributeNames", names},
                         {"ExpressionAttributeValues", values},
                         {"ScanIndexForward", true}};
  if (request.index == Index::kTable) {
    body["ConsistentRead"] = true;
  } else {
    body["IndexName"] = IndexName(request.index);
  }
  if (request.limit > 0) body["Limit"] = request.limit;
  if (request.exclusive_start_key) {
    // Only the key attributes: DynamoDB refuses anything else.
    body["ExclusiveStartKey"] =
        ToItem(LastEvaluatedKeyOf(*request.exclusive_start_key, request.index));
  }
  nlohmann::json answer = impl_->client->Call("Query", body, what).body;
  QueryPage page;
  for (const auto& item : answer.value("Items", nlohmann::json::array()))
    page.items.push_back(FromItem(item));
  auto last = answer.find("LastEvaluatedKey");
  if (last != answer.end()) page.last_evaluated_key = FromItem(*last);
  return page;
}

}  // namespace novacat::store
