#include "novacat/sources/vsx.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace vsx_test {
namespace {

using domain::ClassicalNovaStatus;
using domain::ClientFailure;
using novacat::testing::FakeServer;
using Mode = FakeServer::Mode;
using testing_util::CountingClock;
using testing_util::ExpectClientError;

std::string Recorded(const std::string& file) {
  return testing_util::ReadFixture("fixtures/archives/vsx/" + file);
}

FakeServer::Answer Json(const std::string& body) {
  return FakeServer::Answer(200, body, Mode::kAnswer, "", "application/json");
}

Service At(const FakeServer& server) {
  return testing_util::ServiceAt(server, "VSX", "/vsx");
}

TEST(VsxTest, AClassicalNovaWithItsPosition) {
  FakeServer server({Json(Recorded("v1500_cyg.json"))});
  CountingClock clock;
  Vsx vsx(At(server), clock);
  domain::SourceAnswer answer = vsx.Identify("V1500 CYG", 25000);

  ASSERT_EQ(server.requests().size(), 1u);
  const std::string head = server.requests()[0].first;
  EXPECT_THAT(head, ::testing::StartsWith(
                        "GET /vsx/index.php?view=api.object&ident=V1500%20CYG"
                        "&format=json HTTP/1.1\r\n"));
  EXPECT_THAT(head + "\r\n",
              ::testing::HasSubstr("\r\nUser-Agent: " + UserAgent() + "\r\n"));
  EXPECT_EQ(server.requests()[0].second, "");
  EXPECT_EQ(answer.source, "VSX");
  ASSERT_EQ(answer.matches.size(), 1u);
  testing_util::ExpectSourceMatch(
      answer.matches[0], {.id = "V1500 Cyg",
                          .object_type = "NA+AM",
                          .is_nova = true,
                          .classical_nova_status = ClassicalNovaStatus::kYes,
                          .ra_deg = 317.90242,
                          .dec_deg = 48.15054,
                          .epoch = "J2000",
                          .aliases = {"V1500 Cyg"}});
}

TEST(VsxTest, ANameVsxDoesNotKnowHasNoMatch) {
  FakeServer server({Json(Recorded("nova_cyg_2026.json")), Json("{}"),
                     Json("{\"VSXObject\": null}")});
  Vsx vsx(At(server));
  for (int i = 0; i < 3; ++i) {
    domain::SourceAnswer answer = vsx.Identify("NOVA CYG 2026", 25000);
    EXPECT_EQ(answer.source, "VSX");
    EXPECT_TRUE(answer.matches.empty()) << i;
  }
  EXPECT_THAT(server.requests().at(0).first,
              ::testing::StartsWith("GET /vsx/index.php?view=api.object&ident="
                                    "NOVA%20CYG%202026&format=json "));
}

TEST(VsxTest, ARecurrentNovaIsANovaButNotClassical) {
  FakeServer server({Json(Recorded("rs_oph.json"))});
  Vsx vsx(At(server));
  domain::SourceAnswer answer = vsx.Identify("RS OPH", 25000);
  ASSERT_EQ(answer.matches.size(), 1u);
  EXPECT_EQ(answer.matches[0].id, "RS Oph");
  EXPECT_EQ(answer.matches[0].object_type, "NR");
  EXPECT_TRUE(answer.matches[0].is_nova);
  EXPECT_EQ(answer.matches[0].classical_nova_status, ClassicalNovaStatus::kNo);
  EXPECT_EQ(answer.matches[0].ra_deg, 267.55487);
  EXPECT_EQ(answer.matches[0].dec_deg, -6.70794);
}

TEST(VsxTest, VariabilityTypesDecideNovaness) {
  struct Case {
    const char* type;
    bool is_nova;
    std::optional<ClassicalNovaStatus> status;
  };
  for (const Case& c : {
           Case{"NA", true, ClassicalNovaStatus::kYes},
           Case{"NB", true, ClassicalNovaStatus::kYes},
           Case{"NC", true, ClassicalNovaStatus::kYes},
           Case{"NA+E", true, ClassicalNovaStatus::kYes},
           Case{"NB+AM", true, ClassicalNovaStatus::kYes},
           Case{"NA:", true, ClassicalNovaStatus::kAmbiguous},
           Case{"NB+E:", true, ClassicalNovaStatus::kYes},
           Case{"NA|NR", true, ClassicalNovaStatus::kAmbiguous},
           Case{"NR", true, ClassicalNovaStatus::kNo},
           Case{"NR+ZAND", true, ClassicalNovaStatus::kNo},
           Case{"NR:", true, ClassicalNovaStatus::kAmbiguous},
           Case{"N", true, std::nullopt},
           Case{"N:", true, ClassicalNovaStatus::kAmbiguous},
           Case{"NL", false, ClassicalNovaStatus::kNo},
           Case{"NL+VY", false, ClassicalNovaStatus::kNo},
           Case{"UGSU+E", false, ClassicalNovaStatus::kNo},
           Case{"SRC", false, ClassicalNovaStatus::kNo},
           Case{"", false, ClassicalNovaStatus::kNo},
       }) {
    VsxNovaClass got = ClassifyVsxType(c.type);
    EXPECT_EQ(got.is_nova, c.is_nova) << c.type;
    EXPECT_EQ(got.classical_nova_status, c.status) << c.type;
  }
}

TEST(VsxTest, ANovaOfNoSubclassLeavesTheStatusToOthers) {
  FakeServer server({Json(Recorded("v1309_sco.json"))});
  Vsx vsx(At(server));
  domain::SourceAnswer answer = vsx.Identify("V1309 SCO", 25000);
  ASSERT_EQ(answer.matches.size(), 1u);
  EXPECT_TRUE(answer.matches[0].is_nova);
  EXPECT_EQ(answer.matches[0].classical_nova_status, std::nullopt);
}

TEST(VsxTest, NumbersAreReadAsVsxWritesThemOrAsJsonNumbers) {
  FakeServer server(
      {Json("{\"VSXObject\": {\"Name\": \"X Sct\", \"RA2000\": "
            "280.5, \"Declination2000\": \"-10.25\", "
            "\"VariabilityType\": \"NA\"}}")});
  Vsx vsx(At(server));
  domain::SourceAnswer answer = vsx.Identify("X SCT", 25000);
  ASSERT_EQ(answer.matches.size(), 1u);
  EXPECT_EQ(answer.matches[0].ra_deg, 280.5);
  EXPECT_EQ(answer.matches[0].dec_deg, -10.25);
}

TEST(VsxTest, AnswersThatAreNotVsxsAreMalformed) {
  FakeServer server(
      {Json("<html>Maintenance</html>"), Json("{\"VSXObject\": \"x\"}"),
       Json("{\"VSXObject\": {\"RA2000\": \"1\"}}"),
       Json("{\"VSXObject\": {\"Name\": \"X Sct\", \"RA2000\": \"18 42 00\", "
            "\"Declination2000\": \"-10.25\"}}")});
  Vsx vsx(At(server));
  ExpectClientError([&] { vsx.Identify("X SCT", 25000); },
                    ClientFailure::kMalformedResponse,
                    "VSX: the answer is not a JSON object");
  ExpectClientError([&] { vsx.Identify("X SCT", 25000); },
                    ClientFailure::kMalformedResponse,
                    "VSX: VSXObject is not an object");
  ExpectClientError([&] { vsx.Identify("X SCT", 25000); },
                    ClientFailure::kMalformedResponse,
                    "VSX: VSXObject has no Name");
  ExpectClientError([&] { vsx.Identify("X SCT", 25000); },
                    ClientFailure::kMalformedResponse,
                    "VSX: RA2000 is not a number: \"18 42 00\"");
}

TEST(VsxTest, ThrottlingIsWaitedOutThroughTheClock) {
  FakeServer server({FakeServer::Answer(429, "Slow down", Mode::kAnswer,
                                        "Retry-After: 3\r\n", "text/plain"),
                     Json(Recorded("v1674_her.json"))});
  CountingClock clock;
  Vsx vsx(At(server), clock);
  domain::SourceAnswer answer = vsx.Identify("V1674 HER", 25000);
  ASSERT_EQ(answer.matches.size(), 1u);
  EXPECT_EQ(answer.matches[0].classical_nova_status, ClassicalNovaStatus::kYes);
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{3000});
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(VsxTest, ServerErrorsAndStallsAreRetryable) {
  FakeServer server({FakeServer::Answer(500, "Internal error", Mode::kAnswer,
                                        "", "text/plain"),
                     FakeServer::Answer(200, Recorded("v1500_cyg.json"),
                                        Mode::kStall, "", "application/json")});
  Vsx vsx(At(server));
  ExpectClientError([&] { vsx.Identify("V1500 CYG", 25000); },
                    ClientFailure::kUnavailable,
                    "VSX: HTTP 500: Internal error");
  // Only the stalled request has a short timeout: an answered one never
  // meets its timeout, however slow the machine.
  Service stalling = At(server);
  stalling.request_timeout_ms = 300;
  Vsx stalled(stalling);
  ExpectClientError([&] { stalled.Identify("V1500 CYG", 25000); },
                    ClientFailure::kUnavailable,
                    "VSX: curl: Timeout was reached");
}

TEST(VsxTest, ABadRequestCarriesTheServicesMessage) {
  FakeServer server({FakeServer::Answer(400, "Invalid ident parameter",
                                        Mode::kAnswer, "", "text/plain")});
  Vsx vsx(At(server));
  ExpectClientError([&] { vsx.Identify("?", 25000); },
                    ClientFailure::kInvalidRequest,
                    "VSX: HTTP 400: Invalid ident parameter");
}

}  // namespace
}  // namespace vsx_test
}  // namespace novacat::sources
