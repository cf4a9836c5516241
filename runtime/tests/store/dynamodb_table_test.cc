// What only DynamoDbTable has: the DynamoDB JSON mapping, the requests it
// sends, how it classifies what comes back (against a scripted fake HTTP
// server), and dynalite specifics.
#include "novacat/store/dynamodb_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>

#include "dynalite.h"
#include "fake_http_server.h"
#include "store_test_util.h"

namespace novacat::store::testing {
namespace dynamodb_table_test {
namespace {

using nlohmann::json;
using novacat::testing::FakeServer;
using runtime::RetryableError;
using runtime::StepError;
using runtime::TerminalError;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// --- Item <-> DynamoDB JSON ---

TEST(DynamoDbJsonTest, EveryTypeBothWays) {
  const Item item = {{"PK", "NOVA#1"},
                     {"s", "\xe4\xb8\xad"},
                     {"empty", ""},
                     {"i", -42},
                     {"big", std::numeric_limits<int64_t>::max()},
                     {"u", std::numeric_limits<uint64_t>::max()},
                     {"tenth", 0.1},
                     {"tiny", 1e-300},
                     {"huge", 1.7976931348623157e308},
                     {"two", 2.0},
                     {"b", true},
                     {"n", nullptr},
                     {"l", {1, "x", {{"k", false}}}},
                     {"m", {{"inner", Item::array()}}}};
  const json expected = json::parse(R"js({
    "PK": {"S": "NOVA#1"},
    "s": {"S": "中"},
    "empty": {"S": ""},
    "i": {"N": "-42"},
    "big": {"N": "9223372036854775807"},
    "u": {"N": "18446744073709551615"},
    "tenth": {"N": "0.1"},
    "tiny": {"N": "1e-300"},
    "huge": {"N": "1.7976931348623157e+308"},
    "two": {"N": "2"},
    "b": {"BOOL": true},
    "n": {"NULL": true},
    "l": {"L": [{"N": "1"}, {"S": "x"}, {"M": {"k": {"BOOL": false}}}]},
    "m": {"M": {"inner": {"L": []}}}
  })js");
  EXPECT_EQ(dynamodb_json::ToItem(item), expected);
  Item back = dynamodb_json::FromItem(expected);
  EXPECT_EQ(back, item);
  EXPECT_TRUE(back["i"].is_number_integer());
  EXPECT_TRUE(back["u"].is_number_unsigned());
  EXPECT_TRUE(back["tenth"].is_number_float());
  EXPECT_EQ(back["tiny"].get<double>(), 1e-300);
  EXPECT_EQ(back["huge"].get<double>(), 1.7976931348623157e308);
  // DynamoDB keeps no number kind: 2.0 comes back as the integer 2.
  EXPECT_TRUE(back["two"].is_number_integer());
}

TEST(DynamoDbJsonTest, NumbersAsDynamoDbWritesThem) {
  auto parse = [](const char* n) {
    return dynamodb_json::FromAttributeValue({{"N", n}});
  };
  EXPECT_EQ(parse("-9223372036854775808").get<int64_t>(),
            std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(parse("-9223372036854775809").is_number_float());
  EXPECT_TRUE(parse("100000000000000000000").is_number_float());
  EXPECT_EQ(parse("1E+2").get<double>(), 100.0);
  EXPECT_EQ(parse("-0.5").get<double>(), -0.5);
  EXPECT_EQ(parse("0.30000000000000004").get<double>(), 0.1 + 0.2);
  ExpectError<TerminalError>([&] { parse("12abc"); },
                             "DynamoDB returned a malformed number '12abc'");
  ExpectError<TerminalError>(
      [] {
        dynamodb_json::FromAttributeValue({{"SS", {"a"}}});
      },
      R"js(unsupported DynamoDB attribute value {"SS":["a"]})js");
  ExpectError<TerminalError>(
      [] {
        dynamodb_json::ToAttributeValue(
            std::numeric_limits<double>::quiet_NaN());
      },
      "DynamoDB cannot store the number nan");
}

TEST(DynamoDbJsonTest, RendersConditionsWithPlaceholders) {
  json names = json::object(), values = json::object();
  std::string expression = dynamodb_json::RenderCondition(
      Condition::Or(
          {Condition::NotExists("processing_status"),
           Condition::In("processing_status", {"READY", "FAILED_RETRYABLE"}),
           Condition::Lt("lease_expires_at", 1700), Condition::And({}),
           Condition::Not(Condition::Ne("owner", nullptr))}),
      names, values);
  EXPECT_EQ(expression,
            "(attribute_not_exists(#n0) OR #n0 IN (:v0, :v1) OR #n1 < :v2 OR "
            "(attribute_exists(#n2) OR attribute_not_exists(#n2)) OR (NOT "
            "#n3 <> :v3))");
  EXPECT_EQ(names, json::parse(R"js({"#n0": "processing_status",
      "#n1": "lease_expires_at", "#n2": "PK", "#n3": "owner"})js"));
  EXPECT_EQ(values, json::parse(R"js({":v0": {"S": "READY"},
      ":v1": {"S": "FAILED_RETRYABLE"}, ":v2": {"N": "1700"},
      ":v3": {"NULL": true}})js"));
}

// An answered request never meets its timeout, however slow the machine;
// only the tests of a server that never answers pass a short one.
DynamoDbOptions FakeOptions(const std::string& endpoint,
                            long request_timeout_ms = 30000) {
  DynamoDbOptions options;
  options.endpoint = endpoint;
  options.region = "eu-west-1";
  options.access_key_id = "AKIDEXAMPLE";
  options.secret_access_key = "secret";
  options.request_timeout_ms = request_timeout_ms;
  return options;
}

std::string ErrorBody(const std::string& type, const std::string& message) {
  return json{{"__type", "com.amazonaws.dynamodb.v20120810#" + type},
              {"message", message}}
      .dump();
}

TEST(DynamoDbRequestTest, UpdateItemSendsASignedRequest) {
  FakeServer server({{200, R"js({"Attributes": {"PK": {"S": "NOVA#1"},
      "SK": {"S": "DATASET#d1"}, "processing_status": {"S": "IN_PROGRESS"},
      "lease_expires_at": {"N": "2600"}}})js"}});
  DynamoDbOptions options = FakeOptions(server.endpoint());
  options.session_token = "token-1";
  DynamoDbTable table(options);
  Update update;
  update.set = {{"processing_status", "IN_PROGRESS"},
                {"lease_expires_at", 2600}};
  update.remove = {"lease_owner"};
  WriteResult result = table.UpdateItem(
      {"NOVA#1", "DATASET#d1"}, update,
      Condition::Or({Condition::NotExists("processing_status"),
                     Condition::Lt("lease_expires_at", 1700)}));
  EXPECT_EQ(result.status, WriteStatus::kApplied);
  EXPECT_EQ(result.item, MakeItem("NOVA#1", "DATASET#d1",
                                  {{"processing_status", "IN_PROGRESS"},
                                   {"lease_expires_at", 2600}}));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& [head, body] = requests[0];
  EXPECT_THAT(head, StartsWith("POST / HTTP/1.1\r\n"));
  EXPECT_THAT(head,
              HasSubstr("\r\nX-Amz-Target: DynamoDB_20120810.UpdateItem"));
  EXPECT_THAT(head,
              HasSubstr("\r\nContent-Type: application/x-amz-json-1.0\r\n"));
  EXPECT_THAT(head, HasSubstr("\r\nX-Amz-Security-Token: token-1"));
  EXPECT_THAT(head,
              MatchesRegex("(.|\r|\n)*\r\nAuthorization: AWS4-HMAC-SHA256 "
                           "Credential=AKIDEXAMPLE/[0-9]{8}/eu-west-1/dynamodb/"
                           "aws4_request, SignedHeaders=[a-z0-9;-]*, "
                           "Signature=[0-9a-f]{64}(.|\r|\n)*"));
  // nlohmann's objects iterate in name order: lease_expires_at first.
  const json expected1 = json::parse(R"js({
    "TableName": "NovaCat",
    "Key": {"PK": {"S": "NOVA#1"}, "SK": {"S": "DATASET#d1"}},
    "ReturnValues": "ALL_NEW",
    "UpdateExpression": "SET #n0 = :v0, #n1 = :v1 REMOVE #n2",
    "ConditionExpression": "(attribute_not_exists(#n1) OR #n0 < :v2)",
    "ExpressionAttributeNames": {"#n0": "lease_expires_at",
      "#n1": "processing_status", "#n2": "lease_owner"},
    "ExpressionAttributeValues": {":v0": {"N": "2600"},
      ":v1": {"S": "IN_PROGRESS"}, ":v2": {"N": "1700"}}
  })js");
  EXPECT_EQ(json::parse(body), expected1);
}

TEST(DynamoDbRequestTest, QueryAndGetRequests) {
  FakeServer server(
      {{200, R"js({"Items": [{"PK": {"S": "NOVA#1"}, "SK": {"S": "DATASET#d1"},
           "GSI1PK": {"S": "NOVA#1"}, "GSI1SK": {"S": "ELIG#DOWNLOAD#d1"}}],
         "LastEvaluatedKey": {"PK": {"S": "NOVA#1"}, "SK": {"S": "DATASET#d1"},
           "GSI1PK": {"S": "NOVA#1"}, "GSI1SK": {"S": "ELIG#DOWNLOAD#d1"}}})js"},
       {200, "{}"}});
  DynamoDbTable table(FakeOptions(server.endpoint()));
  QueryRequest request;
  request.index = Index::kGsi1;
  request.partition_key = "NOVA#1";
  request.sort_key_prefix = "ELIG#DOWNLOAD#";
  request.limit = 1;
  request.exclusive_start_key = MakeItem(
      "NOVA#1", "DATASET#d0",
      {{"GSI1PK", "NOVA#1"}, {"GSI1SK", "ELIG#DOWNLOAD#d0"}, {"other", 1}});
  QueryPage page = table.Query(request);
  const Item d1 =
      MakeItem("NOVA#1", "DATASET#d1",
               {{"GSI1PK", "NOVA#1"}, {"GSI1SK", "ELIG#DOWNLOAD#d1"}});
  EXPECT_EQ(page.items, std::vector<Item>{d1});
  EXPECT_EQ(page.last_evaluated_key, d1);
  EXPECT_EQ(table.GetItem({"NOVA#1", "META"}), std::nullopt);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  const json expected2 = json::parse(R"js({
    "TableName": "NovaCat",
    "IndexName": "DatasetEligibilityIndex",
    "KeyConditionExpression": "#pk = :pk AND begins_with(#sk, :sk)",
    "ExpressionAttributeNames": {"#pk": "GSI1PK", "#sk": "GSI1SK"},
    "ExpressionAttributeValues": {":pk": {"S": "NOVA#1"},
      ":sk": {"S": "ELIG#DOWNLOAD#"}},
    "ScanIndexForward": true,
    "Limit": 1,
    "ExclusiveStartKey": {"PK": {"S": "NOVA#1"}, "SK": {"S": "DATASET#d0"},
      "GSI1PK": {"S": "NOVA#1"}, "GSI1SK": {"S": "ELIG#DOWNLOAD#d0"}}
  })js");
  EXPECT_EQ(json::parse(requests[0].second), expected2);
  EXPECT_THAT(requests[1].first,
              HasSubstr("\r\nX-Amz-Target: DynamoDB_20120810.GetItem"));
  const json expected3 = json::parse(R"js({
    "TableName": "NovaCat",
    "Key": {"PK": {"S": "NOVA#1"}, "SK": {"S": "META"}},
    "ConsistentRead": true
  })js");
  EXPECT_EQ(json::parse(requests[1].second), expected3);
}

struct ErrorCase {
  int status;
  std::string body;
  bool retryable;
  std::string message;
};

TEST(DynamoDbErrorTest, AnswersAreClassifiedByType) {
  const std::vector<ErrorCase> cases = {
      {400, ErrorBody("ThrottlingException", "Rate exceeded"), true,
       "GetItem P / S: DynamoDB ThrottlingException: Rate exceeded"},
      {400, ErrorBody("ProvisionedThroughputExceededException", "slow down"),
       true,
       "GetItem P / S: DynamoDB ProvisionedThroughputExceededException: slow "
       "down"},
      {400, ErrorBody("RequestLimitExceeded", "too many"), true,
       "GetItem P / S: DynamoDB RequestLimitExceeded: too many"},
      {500,
       R"js({"__type":"com.amazon.coral.service#InternalServerError","message":"oops"})js",
       true, "GetItem P / S: DynamoDB InternalServerError: oops"},
      {503, "Service Unavailable", true,
       "GetItem P / S: DynamoDB HTTP 503: Service Unavailable"},
      {502, "", true, "GetItem P / S: DynamoDB HTTP 502"},
      {400, ErrorBody("ValidationException", "One or more values invalid"),
       false,
       "GetItem P / S: DynamoDB ValidationException: One or more values "
       "invalid"},
      {400,
       ErrorBody("ResourceNotFoundException", "Requested resource not found"),
       false,
       "GetItem P / S: DynamoDB ResourceNotFoundException: Requested resource "
       "not found"},
      {400,
       R"js({"__type":"com.amazon.coral.service#AccessDeniedException","Message":"not authorized"})js",
       false, "GetItem P / S: DynamoDB AccessDeniedException: not authorized"},
      {404, "", false, "GetItem P / S: DynamoDB HTTP 404"},
      {200, "not json", false,
       "GetItem P / S: DynamoDB answered with malformed JSON"},
  };
  std::vector<FakeServer::Answer> answers;
  for (const ErrorCase& c : cases) answers.push_back({c.status, c.body});
  FakeServer server(answers);
  DynamoDbTable table(FakeOptions(server.endpoint()));
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.message);
    if (c.retryable) {
      ExpectError<RetryableError>(
          [&] {
            table.GetItem({"P", "S"});
          },
          c.message);
    } else {
      ExpectError<TerminalError>([&] { table.GetItem({"P", "S"}); }, c.message);
    }
  }
}

TEST(DynamoDbErrorTest, AFailedConditionIsAnAnswer) {
  const std::string failed = ErrorBody("ConditionalCheckFailedException",
                                       "The conditional request failed");
  FakeServer server({{400, failed}, {400, failed}, {400, failed}});
  DynamoDbTable table(FakeOptions(server.endpoint()));
  EXPECT_EQ(
      table.PutItem(MakeItem("P", "S"), Condition::NotExists("PK")).status,
      WriteStatus::kConditionFailed);
  WriteResult update =
      table.UpdateItem({"P", "S"}, Update{}, Condition::Exists("PK"));
  EXPECT_EQ(update.status, WriteStatus::kConditionFailed);
  EXPECT_EQ(update.item, std::nullopt);
  EXPECT_EQ(table.DeleteItem({"P", "S"}, Condition::Exists("PK")).status,
            WriteStatus::kConditionFailed);
}

// curl's detail (in parentheses) names ports and milliseconds, so these
// compare up to it.
TEST(DynamoDbErrorTest, NetworkFailuresAreRetryable) {
  auto retryable_with_prefix = [](Table& table, const std::string& prefix) {
    try {
      table.PutItem(MakeItem("P", "S"), std::nullopt);
      ADD_FAILURE() << "no exception";
    } catch (const RetryableError& e) {
      EXPECT_THAT(e.what(), StartsWith(prefix));
    }
  };
  {
    FakeServer server({{0, "", FakeServer::Mode::kHang}});
    DynamoDbTable table(FakeOptions(server.endpoint(), 300));
    retryable_with_prefix(table, "PutItem P / S: curl: Timeout was reached (");
  }
  {
    FakeServer server({{0, "", FakeServer::Mode::kReset}});
    DynamoDbTable table(FakeOptions(server.endpoint()));
    retryable_with_prefix(table, "PutItem P / S: curl: ");
  }
  std::string closed;
  {
    FakeServer server({});
    closed = server.endpoint();
  }
  DynamoDbTable table(FakeOptions(closed));
  retryable_with_prefix(table,
                        "PutItem P / S: curl: Couldn't connect to server (");
}

TEST(DynamoDbErrorTest, AMalformedEndpointIsTerminal) {
  DynamoDbTable table(FakeOptions("nota://endpoint"));
  try {
    table.GetItem({"P", "S"});
    ADD_FAILURE() << "no exception";
  } catch (const TerminalError& e) {
    EXPECT_THAT(e.what(),
                StartsWith("GetItem P / S: curl: Unsupported protocol"));
  }
}

// --- Options from the environment ---

class DynamoDbOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name :
         {"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL", "AWS_REGION",
          "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
          "AWS_SESSION_TOKEN"})
      unsetenv(name);
  }
};

TEST_F(DynamoDbOptionsTest, FromTheEnvironment) {
  setenv("AWS_DEFAULT_REGION", "eu-central-1", 1);
  setenv("AWS_ACCESS_KEY_ID", "key", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
  setenv("AWS_SESSION_TOKEN", "token", 1);
  {
    DynamoDbTable table;
    EXPECT_EQ(table.options().region, "eu-central-1");
    EXPECT_EQ(table.options().endpoint,
              "https://dynamodb.eu-central-1.amazonaws.com");
    EXPECT_EQ(table.options().access_key_id, "key");
    EXPECT_EQ(table.options().secret_access_key, "secret");
    EXPECT_EQ(table.options().session_token, "token");
    EXPECT_EQ(table.options().table_name, "NovaCat");
  }
  setenv("AWS_REGION", "us-west-2", 1);
  setenv("AWS_ENDPOINT_URL", "http://localhost:4566", 1);
  EXPECT_EQ(DynamoDbTable().options().endpoint, "http://localhost:4566");
  EXPECT_EQ(DynamoDbTable().options().region, "us-west-2");
  setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://localhost:8000", 1);
  EXPECT_EQ(DynamoDbTable().options().endpoint, "http://localhost:8000");
  DynamoDbOptions explicit_options;
  explicit_options.endpoint = "http://127.0.0.1:9";
  explicit_options.access_key_id = "a";
  explicit_options.secret_access_key = "b";
  DynamoDbTable table(explicit_options);
  EXPECT_EQ(table.options().endpoint, "http://127.0.0.1:9");
  EXPECT_EQ(table.options().access_key_id, "a");
  // A session token belongs to its keys: explicit keys take none from the
  // environment.
  EXPECT_EQ(table.options().session_token, "");
}

TEST_F(DynamoDbOptionsTest, NoCredentialsIsTerminal) {
  ExpectError<TerminalError>(
      [] { DynamoDbTable table; },
      "DynamoDB: no credentials (set AWS_ACCESS_KEY_ID and "
      "AWS_SECRET_ACCESS_KEY, or the options)");
}

// --- dynalite ---

TEST(DynaliteTest, BeforeEnsureCreatedThereIsNoTable) {
  DynamoDbTable table(DynaliteOptions(UniqueTableName()));
  ExpectError<TerminalError>(
      [&] {
        table.GetItem({"P", "S"});
      },
      "GetItem P / S: DynamoDB ResourceNotFoundException: Requested resource "
      "not found");
}

TEST(DynaliteTest, ClientsShareTheTable) {
  DynamoDbTable first(DynaliteOptions(UniqueTableName()));
  first.EnsureCreated();
  DynamoDbTable second(first.options());
  ASSERT_TRUE(
      first.PutItem(MakeItem("P", "S", {{"v", 1}}), std::nullopt).applied());
  EXPECT_EQ(second.GetItem({"P", "S"}), MakeItem("P", "S", {{"v", 1}}));
  second.EnsureCreated();  // already there: fine
}

}  // namespace
}  // namespace dynamodb_table_test
}  // namespace novacat::store::testing
