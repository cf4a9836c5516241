#include "novacat/sources/tns.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace tns_test {
namespace {

using domain::ClassicalNovaStatus;
using domain::ClientFailure;
using nlohmann::json;
using novacat::testing::FakeServer;
using Mode = FakeServer::Mode;
using testing_util::CountingClock;

constexpr const char* kKey = "0123456789abcdef-secret";

std::string Recorded(const std::string& file) {
  return testing_util::ReadFixture("fixtures/archives/tns/" + file);
}

FakeServer::Answer Json(const std::string& body) {
  return FakeServer::Answer(200, body, Mode::kAnswer, "", "application/json");
}

Service At(const FakeServer& server) {
  return testing_util::ServiceAt(server, "TNS", "/tns/api");
}

Tns Client(const FakeServer& server, Clock& clock = SystemClock()) {
  return Tns(
      At(server),
      TnsCredentials{
          .api_key = kKey, .bot_id = "123456", .bot_name = "novacat_bot"},
      clock);
}

// The form Tns posts: the key, and `data` as compact JSON.
std::string Form(const json& data) {
  return FormEncode({{"api_key", kKey}, {"data", data.dump()}});
}

void ExpectPost(const std::pair<std::string, std::string>& request,
                const std::string& path, const json& data) {
  EXPECT_THAT(request.first,
              ::testing::StartsWith("POST /tns/api" + path + " HTTP/1.1\r\n"));
  EXPECT_THAT(request.first + "\r\n",
              ::testing::HasSubstr("\r\nUser-Agent: tns_marker{\"tns_id\": "
                                   "\"123456\", \"type\": \"bot\", \"name\": "
                                   "\"novacat_bot\"}\r\n"));
  EXPECT_THAT(request.first, ::testing::Not(::testing::HasSubstr("novacat/")));
  EXPECT_EQ(request.second, Form(data));
}

// A ClientError whose message never holds the key.
void ExpectError(const std::function<void()>& call, ClientFailure failure,
                 const std::string& message) {
  testing_util::ExpectClientError(call, failure, message, kKey);
}

std::string Envelope(const json& reply) {
  return json{{"id_code", 200},
              {"id_message", "OK"},
              {"data", {{"received_data", json::object()}, {"reply", reply}}}}
      .dump();
}

TEST(TnsTest, TnsObjnamesAreYearAndLowerCaseLetters) {
  EXPECT_EQ(TnsObjname("AT 2021ABC"), "2021abc");
  EXPECT_EQ(TnsObjname("SN 2023IXF"), "2023ixf");
  EXPECT_EQ(TnsObjname("AT2021ABC"), "2021abc");
  EXPECT_EQ(TnsObjname("AT 1975A"), "1975a");
  EXPECT_EQ(TnsObjname("AT 2024ABCD"), "2024abcd");
  EXPECT_EQ(TnsObjname("AT 2021"), std::nullopt);
  EXPECT_EQ(TnsObjname("AT 21ABC"), std::nullopt);
  EXPECT_EQ(TnsObjname("AT 2021ABCDE"), std::nullopt);
  EXPECT_EQ(TnsObjname("TCP J21113658+4809030"), std::nullopt);
  EXPECT_EQ(TnsObjname("V1500 CYG"), std::nullopt);
}

TEST(TnsTest, ASurveyNameIsSearchedThenItsObjectAsked) {
  FakeServer server({Json(Recorded("tcp_j21113658_4809030_search.json")),
                     Json(Recorded("tcp_j21113658_4809030_object.json"))});
  CountingClock clock;
  Tns tns = Client(server, clock);
  domain::SourceAnswer answer = tns.Identify("TCP J21113658+4809030", 25000);

  ASSERT_EQ(server.requests().size(), 2u);
  ExpectPost(server.requests()[0], "/get/search",
             {{"internal_name", "TCP J21113658+4809030"},
              {"internal_name_exact_match", 1}});
  ExpectPost(server.requests()[1], "/get/object",
             {{"objname", "2025xqa"}, {"photometry", "0"}, {"spectra", "0"}});
  EXPECT_EQ(answer.source, "TNS");
  ASSERT_EQ(answer.matches.size(), 1u);
  testing_util::ExpectSourceMatch(
      answer.matches[0], {.id = "AT 2025xqa",
                          .object_type = "Nova",
                          .is_nova = true,
                          .classical_nova_status = std::nullopt,
                          .ra_deg = 317.9024208,
                          .dec_deg = 48.15081947777777,
                          .epoch = "J2000",
                          .aliases = {"AT 2025xqa", "TCP J21113658+4809030"}});
}

TEST(TnsTest, ANameTnsDoesNotKnowHasNoMatch) {
  FakeServer server({Json(Recorded("v1500_cyg_search.json"))});
  Tns tns = Client(server);
  domain::SourceAnswer answer = tns.Identify("V1500 CYG", 25000);
  EXPECT_EQ(answer.source, "TNS");
  EXPECT_TRUE(answer.matches.empty());
  ASSERT_EQ(server.requests().size(), 1u);
  ExpectPost(
      server.requests()[0], "/get/search",
      {{"internal_name", "V1500 CYG"}, {"internal_name_exact_match", 1}});
}

TEST(TnsTest, ATnsNameIsAskedForDirectly) {
  json object = {{"objid", 95012},
                 {"objname", "2021abc"},
                 {"name_prefix", "SN"},
                 {"radeg", 150.25},
                 {"decdeg", "-2.5"},
                 {"object_type", {{"name", "SN Ia"}, {"id", 3}}},
                 {"internal_names", "ZTF21aaaaaaa, ATLAS21xyz"}};
  FakeServer server({Json(Envelope(object))});
  Tns tns = Client(server);
  domain::SourceAnswer answer = tns.Identify("SN 2021ABC", 25000);
  ASSERT_EQ(server.requests().size(), 1u);
  ExpectPost(server.requests()[0], "/get/object",
             {{"objname", "2021abc"}, {"photometry", "0"}, {"spectra", "0"}});
  ASSERT_EQ(answer.matches.size(), 1u);
  const domain::SourceMatch& m = answer.matches[0];
  EXPECT_EQ(m.id, "SN 2021abc");
  EXPECT_EQ(m.object_type, "SN Ia");
  EXPECT_FALSE(m.is_nova);
  EXPECT_EQ(m.classical_nova_status, ClassicalNovaStatus::kNo);
  EXPECT_EQ(m.ra_deg, 150.25);
  EXPECT_EQ(m.dec_deg, -2.5);
  EXPECT_EQ(m.aliases, (std::vector<std::string>{"SN 2021abc", "ZTF21aaaaaaa",
                                                 "ATLAS21xyz"}));
}

// An object not classified yet says nothing: as "not a nova" it would
// conflict with a catalog that knows it is one.
TEST(TnsTest, AnUnclassifiedTransientIsNoMatch) {
  json object = {{"objname", "2021abd"},
                 {"name_prefix", "AT"},
                 {"radeg", 10.0},
                 {"decdeg", 20.0},
                 {"object_type", {{"name", nullptr}, {"id", nullptr}}},
                 {"internal_names", ""}};
  FakeServer server({Json(Envelope(object))});
  Tns tns = Client(server);
  domain::SourceAnswer answer = tns.Identify("AT 2021ABD", 25000);
  EXPECT_EQ(answer.source, "TNS");
  EXPECT_TRUE(answer.matches.empty());
}

TEST(TnsTest, AnObjnameTnsDoesNotKnowHasNoMatch) {
  json reply = {
      {"name",
       {{"110", {{"message", "No results found."}, {"message_id", 110}}}}}};
  FakeServer server({Json(Envelope(reply))});
  Tns tns = Client(server);
  EXPECT_TRUE(tns.Identify("AT 1975A", 25000).matches.empty());
}

TEST(TnsTest, SeveralObjectsAreSeveralMatchesNotAskedFurther) {
  FakeServer server({Json(Envelope(json::array(
      {{{"objname", "2021abc"}, {"prefix", "AT"}, {"objid", 1}},
       {{"objname", "2021abd"}, {"prefix", "SN"}, {"objid", 2}}})))});
  Tns tns = Client(server);
  domain::SourceAnswer answer = tns.Identify("GAIA21XYZ", 25000);
  ASSERT_EQ(answer.matches.size(), 2u);
  EXPECT_EQ(answer.matches[0].id, "AT 2021abc");
  EXPECT_EQ(answer.matches[1].id, "SN 2021abd");
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(TnsTest, AnswersThatAreNotTnssAreMalformed) {
  FakeServer server({
      Json("not json"),
      Json("{\"id_message\": \"OK\", \"data\": {}}"),
      Json("{\"id_code\": 401, \"id_message\": \"Unauthorized\"}"),
      Json("{\"id_code\": 200, \"id_message\": \"OK\"}"),
      Json(Envelope(json::object())),
      Json(Envelope(json::array({{{"prefix", "AT"}}}))),
      Json(Envelope({{"objname", "2021abc"}, {"radeg", "12h"}})),
  });
  Tns tns = Client(server);
  ExpectError([&] { tns.Identify("X", 25000); },
              ClientFailure::kMalformedResponse,
              "TNS: the answer to /get/search is not a JSON object");
  ExpectError([&] { tns.Identify("X", 25000); },
              ClientFailure::kMalformedResponse,
              "TNS: the answer to /get/search has no id_code");
  ExpectError([&] { tns.Identify("X", 25000); },
              ClientFailure::kMalformedResponse,
              "TNS: the answer to /get/search has id_code 401: Unauthorized");
  ExpectError([&] { tns.Identify("X", 25000); },
              ClientFailure::kMalformedResponse,
              "TNS: the answer to /get/search has no data");
  ExpectError([&] { tns.Identify("X", 25000); },
              ClientFailure::kMalformedResponse,
              "TNS: the search reply is not a list");
  ExpectError([&] { tns.Identify("X", 25000); },
              ClientFailure::kMalformedResponse,
              "TNS: a search hit has no objname: {\"prefix\":\"AT\"}");
  ExpectError([&] { tns.Identify("AT 2021ABC", 25000); },
              ClientFailure::kMalformedResponse,
              "TNS: radeg is not a number: \"12h\"");
}

TEST(TnsTest, ThrottlingIsWaitedOutThroughTheClock) {
  FakeServer server(
      {FakeServer::Answer(429,
                          "{\"id_code\": 429, \"id_message\": \"Too "
                          "many requests\"}",
                          Mode::kAnswer, "Retry-After: 5\r\n",
                          "application/json"),
       Json(Recorded("v1500_cyg_search.json"))});
  CountingClock clock;
  Tns tns = Client(server, clock);
  EXPECT_TRUE(tns.Identify("V1500 CYG", 25000).matches.empty());
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{5000});
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(TnsTest, ServerErrorsAndStallsAreRetryable) {
  FakeServer server(
      {FakeServer::Answer(500, "Internal Server Error: Something is broken",
                          Mode::kAnswer, "", "text/plain"),
       FakeServer::Answer(200, Recorded("v1500_cyg_search.json"), Mode::kStall,
                          "", "application/json")});
  const TnsCredentials credentials{
      .api_key = kKey, .bot_id = "123456", .bot_name = "novacat_bot"};
  Tns tns(At(server), credentials);
  ExpectError([&] { tns.Identify("V1500 CYG", 25000); },
              ClientFailure::kUnavailable,
              "TNS: HTTP 500: Internal Server Error: Something is broken");
  // Only the stalled request has a short timeout: an answered one never
  // meets its timeout, however slow the machine.
  Service stalling = At(server);
  stalling.request_timeout_ms = 300;
  Tns stalled(stalling, credentials);
  ExpectError([&] { stalled.Identify("V1500 CYG", 25000); },
              ClientFailure::kUnavailable, "TNS: curl: Timeout was reached");
}

TEST(TnsTest, ARefusedKeyIsTerminalAndTheKeyIsNeverInTheMessage) {
  // A service that echoes the request back must not leak the key.
  FakeServer server({FakeServer::Answer(
      401,
      std::string("{\"id_code\": 401, \"id_message\": \"Unauthorized: "
                  "api_key ") +
          kKey + " is not valid\"}",
      Mode::kAnswer, "", "application/json")});
  Tns tns = Client(server);
  ExpectError([&] { tns.Identify("V1500 CYG", 25000); },
              ClientFailure::kInvalidRequest,
              "TNS: HTTP 401: {\"id_code\": 401, \"id_message\": "
              "\"Unauthorized: api_key <api key> is not valid\"}");
}

TEST(TnsTest, TheSecondRequestGetsWhatIsLeftOfTheBudget) {
  // The search's Retry-After (3 s) spends 3 of the 5 s; the object request
  // then has 2 s, less than its Retry-After of 4 s: not waited.
  FakeServer server({FakeServer::Answer(429, "slow", Mode::kAnswer,
                                        "Retry-After: 3\r\n", "text/plain"),
                     Json(Recorded("tcp_j21113658_4809030_search.json")),
                     FakeServer::Answer(429, "slow", Mode::kAnswer,
                                        "Retry-After: 4\r\n", "text/plain")});
  CountingClock clock;
  Tns tns = Client(server, clock);
  ExpectError([&] { tns.Identify("TCP J21113658+4809030", 5000); },
              ClientFailure::kUnavailable,
              "TNS: HTTP 429 (Retry-After 4 s): slow");
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{3000});
}

}  // namespace
}  // namespace tns_test
}  // namespace novacat::sources
