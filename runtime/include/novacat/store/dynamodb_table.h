// DynamoDbTable: store::Table over DynamoDB's HTTP JSON API (protocol
// DynamoDB_20120810) through aws::JsonClient (libcurl signing every request
// itself, CURLOPT_AWS_SIGV4). Tested against dynalite on 127.0.0.1.
//
// Mapping: conditions become a ConditionExpression with placeholder names
// (#n0, #n1, ...) and values (:v0, ...); UpdateItem becomes SET / REMOVE
// with ReturnValues ALL_NEW; Query a KeyConditionExpression (begins_with for
// a prefix) on the table or an IndexName, ascending; GetItem and table
// Queries are strongly consistent (GSI queries cannot be). A failed
// condition (ConditionalCheckFailedException) is WriteStatus::kConditionFailed.
//
// Errors: throttling (ProvisionedThroughputExceededException,
// ThrottlingException, RequestLimitExceeded), InternalServerError,
// ServiceUnavailable, TransactionConflictException, any HTTP 5xx, and curl's
// timeouts, refused or reset connections are runtime::RetryableError;
// everything else (ValidationException, ResourceNotFoundException,
// AccessDenied, any other 4xx) is runtime::TerminalError. Messages name the
// operation, the key and DynamoDB's error type and message.
//
// Numbers: DynamoDB keeps no integer/double distinction. Integers that fit
// int64 (or uint64) come back as integers, anything else as a double; a
// double is sent with the shortest text that reads back to the same value,
// so non-integral doubles round-trip exactly, while an integral double
// (2.0) comes back as the integer 2.
//
// Threads: a DynamoDbTable owns one JsonClient (one curl handle and its
// kept-alive connection) and must not be used by two threads at once. It is
// a cheap client: each thread makes its own on the same options.
#pragma once

#include <memory>
#include <string>

#include "novacat/aws/json_client.h"
#include "novacat/store/table.h"

namespace novacat::store {

// Endpoint, region, credentials and timeouts as aws::ClientOptions (empty
// fields from AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL, AWS_REGION,
// AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN; https://dynamodb.<region>.amazonaws.com by default).
struct DynamoDbOptions : aws::ClientOptions {
  // The table; its indexes keep the names IndexName() gives.
  std::string table_name = kTableName;
  // EnsureCreated waits at most this long for the table and its indexes to
  // become ACTIVE (then TerminalError), polling every `poll_interval_ms`.
  long create_timeout_ms = 60000;
  long poll_interval_ms = 100;
};

class DynamoDbTable : public Table {
 public:
  // Fills the empty fields of `options` from the environment (see above).
  // Throws runtime::TerminalError when libcurl cannot be initialized or no
  // credentials are found.
  explicit DynamoDbTable(DynamoDbOptions options = {});
  ~DynamoDbTable() override;
  DynamoDbTable(const DynamoDbTable&) = delete;
  DynamoDbTable& operator=(const DynamoDbTable&) = delete;

  // The options in effect (environment defaults filled in): a second client
  // of the same table is DynamoDbTable(first.options()).
  const DynamoDbOptions& options() const;

  // CreateTable (PK/SK, GSI1..3 with projection ALL, PAY_PER_REQUEST);
  // ResourceInUseException means it exists. Then DescribeTable until the
  // table and its indexes are ACTIVE.
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
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Item <-> DynamoDB JSON ({"S": ...}, {"N": "..."}, BOOL, NULL, L, M).
// Exposed for tests.
namespace dynamodb_json {
// One attribute value. Throws runtime::TerminalError for values DynamoDB
// cannot hold (binary, non-finite numbers).
nlohmann::json ToAttributeValue(const nlohmann::json& value);
// Throws runtime::TerminalError for types items do not use (SS, NS, B, BS)
// and malformed values.
nlohmann::json FromAttributeValue(const nlohmann::json& value);
// A whole item (an object of attribute values) each way.
nlohmann::json ToItem(const Item& item);
Item FromItem(const nlohmann::json& item);
// A condition as a ConditionExpression, adding its placeholders to `names`
// (name -> "#nK", reused for a repeated name) and `values` (":vK" -> value).
std::string RenderCondition(const Condition& condition, nlohmann::json& names,
                            nlohmann::json& values);
}  // namespace dynamodb_json

}  // namespace novacat::store
