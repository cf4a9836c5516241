// EventBridgeBus against the scripted HTTP server: the exact PutEvents
// request, and how every kind of failure is classified and worded. (The
// JSON client's DynamoDB side is tested by store.DynamoDb*; moto is
// aws.moto.eventbridge_to_sqs.)
#include "novacat/aws/eventbridge_bus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <utility>

#include "fake_http_server.h"
#include "novacat/runtime/errors.h"

namespace novacat::aws {
namespace eventbridge_bus_test {
namespace {

using nlohmann::json;
using novacat::testing::FakeServer;
using runtime::ErrorClass;
using runtime::StepError;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// An answered request never meets its timeout, however slow the machine;
// only the tests of a server that never answers pass a short one.
EventBridgeOptions FakeOptions(const std::string& endpoint,
                               long request_timeout_ms = 30000) {
  EventBridgeOptions options;
  static_cast<ClientOptions&>(options) = {
      .endpoint = endpoint,
      .region = "eu-west-1",
      .access_key_id = "AKIDEXAMPLE",
      .secret_access_key = "secret",
      .session_token = "",
      .request_timeout_ms = request_timeout_ms};
  options.bus_name = "novacat-events";
  options.source = "initialize_nova";
  return options;
}

// FakeServer answers (named fields: -Wmissing-field-initializers).
FakeServer::Answer Reply(int status, std::string body) {
  FakeServer::Answer answer;
  answer.status = status;
  answer.body = std::move(body);
  return answer;
}
FakeServer::Answer Fail(FakeServer::Mode mode) {
  FakeServer::Answer answer;
  answer.mode = mode;
  return answer;
}

const json kEvent = json::parse(R"js({"nova_id":
  "4a9f6e3c-0c38-4d8e-9f51-2b0c8f3d1e77", "primary_name": "V1500 Cyg",
  "correlation_id": "c-1", "ra_deg": 315.0, "flags": [true, null]})js");

// The exception Publish throws: its class and message.
struct Failure {
  ErrorClass error_class;
  std::string message;
};

Failure FailureOf(const std::function<void()>& publish) {
  try {
    publish();
  } catch (const StepError& e) {
    return {e.error_class(), e.what()};
  }
  ADD_FAILURE() << "nothing was thrown";
  return {ErrorClass::kQuarantine, ""};
}

Failure PublishFailure(EventBridgeBus& bus) {
  return FailureOf([&] { bus.Publish("ingest_new_nova", kEvent); });
}

TEST(EventBridgeBusTest, PublishSendsOneSignedPutEventsEntry) {
  FakeServer server({Reply(200, R"js({"FailedEntryCount": 0,
      "Entries": [{"EventId": "11111111-2222-3333-4444-555555555555"}]})js")});
  EventBridgeOptions options = FakeOptions(server.endpoint());
  options.session_token = "token-1";
  EventBridgeBus bus(options);
  bus.Publish("ingest_new_nova", kEvent);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& [head, body] = requests[0];
  EXPECT_THAT(head, StartsWith("POST / HTTP/1.1\r\n"));
  EXPECT_THAT(head, HasSubstr("\r\nX-Amz-Target: AWSEvents.PutEvents\r\n"));
  EXPECT_THAT(head,
              HasSubstr("\r\nContent-Type: application/x-amz-json-1.1\r\n"));
  EXPECT_THAT(head, HasSubstr("\r\nX-Amz-Security-Token: token-1\r\n"));
  EXPECT_THAT(head,
              MatchesRegex("(.|\r|\n)*\r\nAuthorization: AWS4-HMAC-SHA256 "
                           "Credential=AKIDEXAMPLE/[0-9]{8}/eu-west-1/events/"
                           "aws4_request, SignedHeaders=[a-z0-9;-]*"
                           "x-amz-target[a-z0-9;-]*, "
                           "Signature=[0-9a-f]{64}\r\n(.|\r|\n)*"));
  // Detail is the event's JSON text, byte for byte.
  const json expected = {
      {"Entries",
       {{{"Source", "initialize_nova"},
         {"DetailType", "ingest_new_nova"},
         {"Detail", R"js({"correlation_id":"c-1","flags":[true,null],)js"
                    R"js("nova_id":"4a9f6e3c-0c38-4d8e-9f51-2b0c8f3d1e77",)js"
                    R"js("primary_name":"V1500 Cyg","ra_deg":315.0})js"},
         {"EventBusName", "novacat-events"}}}}};
  EXPECT_EQ(json::parse(body), expected);
}

TEST(EventBridgeBusTest, AFailedEntryIsRetryable) {
  FakeServer server({Reply(200, R"js({"FailedEntryCount": 1, "Entries": [
      {"ErrorCode": "InternalFailure",
       "ErrorMessage": "Failed to put the event"}]})js")});
  EventBridgeBus bus(FakeOptions(server.endpoint()));
  Failure failure = PublishFailure(bus);
  EXPECT_EQ(failure.error_class, ErrorClass::kRetryable);
  EXPECT_EQ(failure.message,
            "PutEvents ingest_new_nova to novacat-events: EventBridge failed "
            "the entry: InternalFailure: Failed to put the event");
}

struct AnswerCase {
  int status;
  std::string body;
  ErrorClass error_class;
  std::string message;
};

TEST(EventBridgeBusTest, AnswersAreClassified) {
  const std::string prefix = "PutEvents ingest_new_nova to novacat-events: ";
  const std::vector<AnswerCase> cases = {
      {400, R"js({"__type":"ThrottlingException","message":"Rate exceeded"})js",
       ErrorClass::kRetryable,
       prefix + "EventBridge ThrottlingException: Rate exceeded"},
      {500, R"js({"__type":"InternalException","message":"oops"})js",
       ErrorClass::kRetryable, prefix + "EventBridge InternalException: oops"},
      {500, "", ErrorClass::kRetryable, prefix + "EventBridge HTTP 500"},
      {503, "Service Unavailable", ErrorClass::kRetryable,
       prefix + "EventBridge HTTP 503: Service Unavailable"},
      {400,
       R"js({"__type":"ResourceNotFoundException","message":"Event bus novacat-events does not exist."})js",
       ErrorClass::kTerminal,
       prefix +
           "EventBridge ResourceNotFoundException: Event bus novacat-events "
           "does not exist."},
      {400,
       R"js({"__type":"AccessDeniedException","Message":"not authorized"})js",
       ErrorClass::kTerminal,
       prefix + "EventBridge AccessDeniedException: not authorized"},
      {404, "", ErrorClass::kTerminal, prefix + "EventBridge HTTP 404"},
      {200, "not json", ErrorClass::kTerminal,
       prefix + "EventBridge answered with malformed JSON"},
  };
  std::vector<FakeServer::Answer> answers;
  for (const AnswerCase& c : cases) answers.push_back(Reply(c.status, c.body));
  FakeServer server(answers);
  EventBridgeBus bus(FakeOptions(server.endpoint()));
  for (const AnswerCase& c : cases) {
    SCOPED_TRACE(c.message);
    Failure failure = PublishFailure(bus);
    EXPECT_EQ(failure.error_class, c.error_class);
    EXPECT_EQ(failure.message, c.message);
  }
}

// --- PublishAll: PutEvents calls of up to 10 entries, under 256 KiB ---

// Events {"n": 0}, {"n": 1}, ...
std::vector<json> Numbered(int count) {
  std::vector<json> events;
  for (int n = 0; n < count; ++n) events.push_back({{"n", n}});
  return events;
}

// A PutEvents answer for `count` entries, those at `failed` failed with
// `code`.
FakeServer::Answer Entries(int count, std::vector<int> failed = {},
                           const std::string& code = "ThrottlingException") {
  json entries = json::array();
  for (int i = 0; i < count; ++i) {
    if (std::find(failed.begin(), failed.end(), i) != failed.end())
      entries.push_back({{"ErrorCode", code},
                         {"ErrorMessage", "entry " + std::to_string(i)}});
    else
      entries.push_back({{"EventId", "id-" + std::to_string(i)}});
  }
  return Reply(
      200,
      json{{"FailedEntryCount", failed.size()}, {"Entries", entries}}.dump());
}

FakeServer::Answer Throttled() {
  return Reply(
      400, R"js({"__type":"ThrottlingException","message":"Rate exceeded"})js");
}

// Each request's entries' Details, parsed back; every entry checked for
// its Source, DetailType and bus.
std::vector<std::vector<json>> SentDetails(FakeServer& server) {
  std::vector<std::vector<json>> calls;
  for (const auto& [head, body] : server.requests()) {
    EXPECT_THAT(head, HasSubstr("\r\nX-Amz-Target: AWSEvents.PutEvents\r\n"));
    auto& call = calls.emplace_back();
    const json request = json::parse(body);
    for (const json& entry : request.at("Entries")) {
      EXPECT_EQ(entry.at("Source"), "initialize_nova");
      EXPECT_EQ(entry.at("DetailType"), "refresh_references");
      EXPECT_EQ(entry.at("EventBusName"), "novacat-events");
      EXPECT_EQ(entry.size(), 4u);
      call.push_back(json::parse(entry.at("Detail").get<std::string>()));
    }
  }
  return calls;
}

// The events numbered `from` to `to`, inclusive.
std::vector<json> Range(int from, int to) {
  std::vector<json> out;
  for (int n = from; n <= to; ++n) out.push_back({{"n", n}});
  return out;
}

// A bus whose waits between resends are recorded instead of slept.
struct RecordingBus {
  explicit RecordingBus(const std::string& endpoint)
      : bus([&] {
          EventBridgeOptions options = FakeOptions(endpoint);
          options.sleep = [this](std::chrono::milliseconds wait) {
            waits.push_back(wait.count());
          };
          return options;
        }()) {}
  std::vector<long> waits;
  EventBridgeBus bus;
};

TEST(EventBridgeBusTest, PublishAllSendsTenEntriesACallInOrder) {
  FakeServer server({Entries(10), Entries(10), Entries(3)});
  RecordingBus b(server.endpoint());
  b.bus.PublishAll("refresh_references", Numbered(23));
  EXPECT_EQ(SentDetails(server),
            (std::vector<std::vector<json>>{Range(0, 9), Range(10, 19),
                                            Range(20, 22)}));
  EXPECT_TRUE(b.waits.empty());
}

TEST(EventBridgeBusTest, PublishAllOfNothingSendsNothing) {
  FakeServer server({});
  RecordingBus b(server.endpoint());
  b.bus.PublishAll("refresh_references", {});
  EXPECT_TRUE(server.requests().empty());
}

// An entry's size is Source + DetailType + Detail in bytes: here
// 15 + 18 + (8 + length of the text); a call's sum must stay under
// 262,144.
json Padded(size_t text_length) {
  return {{"p", std::string(text_length, 'x')}};
}
constexpr size_t kEntryOverhead = 15 + 18 + 8;  // {"p":"..."} is 8 more

TEST(EventBridgeBusTest, PublishAllKeepsEachCallUnder256KiB) {
  // Two entries of 131,072 bytes: 262,144 in all, one too many.
  const size_t half = 262144 / 2 - kEntryOverhead;
  // 131,072 + 131,071 = 262,143: together.
  FakeServer server({Entries(1), Entries(2), Entries(1)});
  RecordingBus b(server.endpoint());
  b.bus.PublishAll("refresh_references",
                   {Padded(half), Padded(half), Padded(half - 1), Padded(1)});
  auto calls = SentDetails(server);
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], (std::vector<json>{Padded(half)}));
  EXPECT_EQ(calls[1], (std::vector<json>{Padded(half), Padded(half - 1)}));
  EXPECT_EQ(calls[2], (std::vector<json>{Padded(1)}));
}

TEST(EventBridgeBusTest, PublishAllSendsTheFailedEntriesAgainAfterTheRest) {
  // Entries 3 and 7 of the first call are throttled; the second call takes
  // 10 and 11, the third the two that failed, after 100 ms.
  FakeServer server({Entries(10, {3, 7}), Entries(2), Entries(2)});
  RecordingBus b(server.endpoint());
  b.bus.PublishAll("refresh_references", Numbered(12));
  EXPECT_EQ(SentDetails(server),
            (std::vector<std::vector<json>>{
                Range(0, 9), Range(10, 11), {json{{"n", 3}}, json{{"n", 7}}}}));
  EXPECT_EQ(b.waits, (std::vector<long>{100}));
}

TEST(EventBridgeBusTest, PublishAllGivesUpOnAnEntryAfterThreeSends) {
  FakeServer server(
      {Entries(3, {1}), Entries(1, {0}), Entries(1, {0}, "InternalFailure")});
  RecordingBus b(server.endpoint());
  Failure failure =
      FailureOf([&] { b.bus.PublishAll("refresh_references", Numbered(3)); });
  EXPECT_EQ(failure.error_class, ErrorClass::kRetryable);
  EXPECT_EQ(failure.message,
            "PutEvents refresh_references to novacat-events: EventBridge "
            "failed 1 of 3 entries, each sent 3 times: InternalFailure: "
            "entry 0");
  EXPECT_EQ(SentDetails(server),
            (std::vector<std::vector<json>>{
                Range(0, 2), {json{{"n", 1}}}, {json{{"n", 1}}}}));
  EXPECT_EQ(b.waits, (std::vector<long>{100, 200}));
}

TEST(EventBridgeBusTest, PublishAllSendsAFailedCallsEntriesAgain) {
  // The whole second call throttled: its entries go again, after 100 ms.
  FakeServer server({Entries(10), Throttled(), Entries(2)});
  RecordingBus b(server.endpoint());
  b.bus.PublishAll("refresh_references", Numbered(12));
  EXPECT_EQ(SentDetails(server),
            (std::vector<std::vector<json>>{Range(0, 9), Range(10, 11),
                                            Range(10, 11)}));
  EXPECT_EQ(b.waits, (std::vector<long>{100}));

  // Throttled three times: the call's own words.
  FakeServer throttled({Throttled(), Throttled(), Throttled()});
  RecordingBus t(throttled.endpoint());
  Failure failure =
      FailureOf([&] { t.bus.PublishAll("refresh_references", Numbered(1)); });
  EXPECT_EQ(failure.error_class, ErrorClass::kRetryable);
  EXPECT_EQ(failure.message,
            "PutEvents refresh_references to novacat-events: EventBridge "
            "failed 1 of 1 entries, each sent 3 times: EventBridge "
            "ThrottlingException: Rate exceeded");
  EXPECT_EQ(throttled.requests().size(), 3u);
}

TEST(EventBridgeBusTest, PublishAllStopsAtATerminalAnswer) {
  FakeServer server({Entries(10), Reply(400, R"js({"__type":
      "ResourceNotFoundException","message":"Event bus novacat-events does not exist."})js")});
  RecordingBus b(server.endpoint());
  Failure failure =
      FailureOf([&] { b.bus.PublishAll("refresh_references", Numbered(25)); });
  EXPECT_EQ(failure.error_class, ErrorClass::kTerminal);
  EXPECT_EQ(failure.message,
            "PutEvents refresh_references to novacat-events: EventBridge "
            "ResourceNotFoundException: Event bus novacat-events does not "
            "exist.");
  EXPECT_EQ(server.requests().size(), 2u);  // the third call is not made
  EXPECT_TRUE(b.waits.empty());
}

// curl's detail (in parentheses) names ports and milliseconds, so these
// compare up to it.
TEST(EventBridgeBusTest, NetworkFailuresAreRetryable) {
  const std::string prefix =
      "PutEvents ingest_new_nova to novacat-events: curl: ";
  {
    FakeServer server({Fail(FakeServer::Mode::kHang)});
    EventBridgeBus bus(FakeOptions(server.endpoint(), 300));
    Failure failure = PublishFailure(bus);
    EXPECT_EQ(failure.error_class, ErrorClass::kRetryable);
    EXPECT_THAT(failure.message, StartsWith(prefix + "Timeout was reached ("));
  }
  {
    FakeServer server({Fail(FakeServer::Mode::kReset)});
    EventBridgeBus bus(FakeOptions(server.endpoint()));
    Failure failure = PublishFailure(bus);
    EXPECT_EQ(failure.error_class, ErrorClass::kRetryable);
    // A reset before any answer: "Failure when receiving data from the
    // peer" or "Server returned nothing", depending on timing.
    EXPECT_THAT(
        failure.message,
        MatchesRegex(prefix + "(Failure when receiving data from the peer|"
                              "Server returned nothing \\(no headers, no "
                              "data\\)).*"));
  }
  std::string closed;
  {
    FakeServer server({});
    closed = server.endpoint();
  }
  EventBridgeBus bus(FakeOptions(closed));
  Failure failure = PublishFailure(bus);
  EXPECT_EQ(failure.error_class, ErrorClass::kRetryable);
  EXPECT_THAT(failure.message, StartsWith(prefix + "Couldn't connect to"));
}

// --- Options from the environment ---

class EventBridgeOptionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name :
         {"AWS_ENDPOINT_URL_EVENTS", "AWS_ENDPOINT_URL", "AWS_REGION",
          "AWS_DEFAULT_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
          "AWS_SESSION_TOKEN", "NOVACAT_EVENT_BUS_NAME"})
      unsetenv(name);
  }
  static EventBridgeOptions Sourced() {
    EventBridgeOptions options;
    options.source = "initialize_nova";
    return options;
  }
};

// Region and credentials resolve as for every JsonClient (tested through
// DynamoDbTable in store.DynamoDbOptionsTest); here what is EventBridge's.
TEST_F(EventBridgeOptionsTest, FromTheEnvironment) {
  setenv("AWS_DEFAULT_REGION", "eu-central-1", 1);
  setenv("AWS_ACCESS_KEY_ID", "key", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
  {
    EventBridgeBus bus(Sourced());
    EXPECT_EQ(bus.options().bus_name, "default");
    EXPECT_EQ(bus.options().source, "initialize_nova");
    EXPECT_EQ(bus.options().endpoint,
              "https://events.eu-central-1.amazonaws.com");
    EXPECT_EQ(bus.options().access_key_id, "key");
  }
  setenv("NOVACAT_EVENT_BUS_NAME", "novacat-bus", 1);
  setenv("AWS_ENDPOINT_URL", "http://localhost:4566", 1);
  // DynamoDB's endpoint variable is not EventBridge's.
  setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://localhost:8000", 1);
  EXPECT_EQ(EventBridgeBus(Sourced()).options().bus_name, "novacat-bus");
  EXPECT_EQ(EventBridgeBus(Sourced()).options().endpoint,
            "http://localhost:4566");
  unsetenv("AWS_ENDPOINT_URL_DYNAMODB");
  setenv("AWS_ENDPOINT_URL_EVENTS", "http://localhost:5000", 1);
  EXPECT_EQ(EventBridgeBus(Sourced()).options().endpoint,
            "http://localhost:5000");
  EventBridgeOptions mine = Sourced();
  mine.bus_name = "mine";
  EXPECT_EQ(EventBridgeBus(mine).options().bus_name, "mine");
}

TEST_F(EventBridgeOptionsTest, NoSourceOrCredentialsIsTerminal) {
  auto terminal = [](const std::function<void()>& make) {
    try {
      make();
    } catch (const StepError& e) {
      EXPECT_EQ(e.error_class(), ErrorClass::kTerminal);
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_EQ(terminal([] { EventBridgeBus bus(Sourced()); }),
            "EventBridge: no credentials (set AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY, or the options)");
  setenv("AWS_ACCESS_KEY_ID", "key", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
  EXPECT_EQ(terminal([] { EventBridgeBus bus(EventBridgeOptions{}); }),
            "EventBridge: no source (the publishing workflow's name)");
}

}  // namespace
}  // namespace eventbridge_bus_test
}  // namespace novacat::aws
