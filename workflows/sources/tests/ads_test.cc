#include "novacat/sources/ads.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "novacat/domain/references.h"
#include "novacat/sources/replay.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace ads_test {
namespace {

namespace fs = std::filesystem;
using domain::ClientFailure;
using nlohmann::json;
using novacat::testing::FakeServer;
using Mode = FakeServer::Mode;
using testing_util::CountingClock;

constexpr char kToken[] = "Xq7-ads-secret-token-9Zr";
constexpr char kV1500[] = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr char kGkPer[] = "86cb14e8-2bf7-4bec-9837-df4287f58a01";
constexpr char kRecorded[] = "fixtures/archives/ads";
// What Ads sends for V1500 CYG's first page, after the path.
constexpr char kV1500Query[] =
    "?q=object%3A%22V1500%20CYG%22&fl=bibcode%2Ctitle%2Cpubdate%2Cdoctype%"
    "2Cdoi&sort=date%20asc&rows=200&start=0";
constexpr char kRateHeaders[] =
    "X-RateLimit-Limit: 5000\r\nX-RateLimit-Remaining: 4987\r\n"
    "X-RateLimit-Reset: 1767312000\r\n";

Service AdsAt(const std::string& base_url) {
  return testing_util::ServiceAt("ADS", base_url);
}

domain::ReferenceQuery Query(std::vector<std::string> names,
                             const char* nova_id = kV1500) {
  domain::ReferenceQuery q;
  q.nova_id = nova_id;
  q.names = std::move(names);
  return q;
}

FakeServer::Answer Json(std::string body, int status = 200,
                        std::string headers = kRateHeaders) {
  return FakeServer::Answer(status, std::move(body), Mode::kAnswer,
                            std::move(headers), "application/json");
}

// An ADS answer with `docs`, saying numFound of them in all.
std::string Answer(const json& docs, int64_t num_found, int64_t start = 0) {
  return json{
      {"responseHeader",
       {{"status", 0}, {"QTime", 3}, {"params", {{"wt", "json"}}}}},
      {"response", {{"numFound", num_found}, {"start", start}, {"docs", docs}}}}
      .dump();
}

// `count` records numbered from `first`: 2000ApJ...500....0A, ...
json Docs(int first, int count) {
  json docs = json::array();
  for (int i = first; i < first + count; ++i) {
    std::string page = std::to_string(i);
    std::string bibcode =
        "2000ApJ...500." + std::string(4 - page.size(), '.') + page + "A";
    docs.push_back({{"bibcode", bibcode}, {"doctype", "article"}});
  }
  return docs;
}

// A ClientError whose message never holds the token.
void ExpectError(const std::function<void()>& call, ClientFailure failure,
                 const std::string& message) {
  testing_util::ExpectClientError(call, failure, message, kToken);
}

// The five candidates of the recorded V1500 CYG answer.
std::vector<json> V1500Candidates() {
  return {
      {{"source", "ADS"},
       {"bibcode", "1975IBVS.1050....1W"},
       {"title", "Photometry of Nova Cygni 1975"},
       {"publication_date", "1975-00-00"},
       {"role", "ANALYSIS"},
       {"doctype", "article"}},
      {{"source", "ADS"},
       {"bibcode", "1975IAUC.2826....1H"},
       {"title", "Nova Cygni 1975"},
       {"publication_date", "1975-08-30"},
       {"role", "DISCOVERY"},
       {"doctype", "circular"}},
      {{"source", "ADS"},
       {"bibcode", "1977ApJ...215..873F"},
       {"doi", "10.1086/155424"},
       {"title",
        "The interstellar reddening and distance of Nova Cygni 1975 /V1500 "
        "Cygni/"},
       {"publication_date", "1977-07-00"},
       {"role", "ANALYSIS"},
       {"doctype", "article"}},
      {{"source", "ADS"},
       {"bibcode", "1985GCVS4.C......0K"},
       {"title", "General Catalogue of Variable Stars, 4th ed."},
       {"publication_date", "1985-00-00"},
       {"role", "CATALOG"},
       {"doctype", "catalog"}},
      {{"source", "ADS"},
       {"bibcode", "1988ApJ...332..282S"},
       {"doi", "10.1086/166652"},
       {"title", "V1500 Cygni - Discovery of a magnetic nova"},
       {"publication_date", "1988-09-00"},
       {"role", "ANALYSIS"},
       {"doctype", "article"}},
  };
}

TEST(AdsObjectQueryTest, OnePhraseOrSeveralJoinedByOr) {
  EXPECT_EQ(AdsObjectQuery({"V1500 CYG"}), "object:\"V1500 CYG\"");
  EXPECT_EQ(AdsObjectQuery({"GK PER", "NOVA PER 1901"}),
            "object:(\"GK PER\" OR \"NOVA PER 1901\")");
  // Case-insensitive duplicates and blank names are left out.
  EXPECT_EQ(
      AdsObjectQuery({"V1500 CYG", "", "v1500 Cyg", " ", "Nova Cyg 1975"}),
      "object:(\"V1500 CYG\" OR \"Nova Cyg 1975\")");
  EXPECT_EQ(AdsObjectQuery({"A \"B\" C\\D"}), "object:\"A \\\"B\\\" C\\\\D\"");
  EXPECT_EQ(AdsObjectQuery({}), "");
  EXPECT_EQ(AdsObjectQuery({" \t"}), "");
}

TEST(AdsTest, AsksForTheObjectsBibliographyWithTheToken) {
  FakeServer server({Json(
      testing_util::ReadFixture(fs::path(kRecorded) / "v1500_cyg.json"))});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint() + "/ads/"), kToken, clock);
  domain::ReferenceAnswer answer = ads.Fetch(Query({"V1500 CYG"}));
  EXPECT_EQ(answer.source, "ADS");
  EXPECT_EQ(answer.candidates, V1500Candidates());
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const std::string& head = requests[0].first;
  EXPECT_THAT(head, ::testing::StartsWith(std::string("GET /ads/search/query") +
                                          kV1500Query + " HTTP/1.1\r\n"));
  EXPECT_THAT(head, ::testing::HasSubstr(std::string("\r\nAuthorization: "
                                                     "Bearer ") +
                                         kToken + "\r\n"));
  EXPECT_THAT(head, ::testing::HasSubstr("\r\nUser-Agent: " + UserAgent()));
  EXPECT_THAT(head, ::testing::HasSubstr("\r\nAccept: application/json"));
  EXPECT_EQ(requests[0].second, "");
  EXPECT_EQ(answer.quota,
            (domain::SourceQuota{
                .limit = 5000, .remaining = 4987, .reset = 1767312000}));
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(AdsTest, EveryNameOfTheNovaIsAsked) {
  FakeServer server({Json(Answer(json::array(), 0))});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  EXPECT_EQ(ads.Fetch(Query({"GK PER", "NOVA PER 1901"}, kGkPer)).candidates,
            std::vector<json>{});
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].first,
              ::testing::StartsWith(
                  "GET /search/query?q=object%3A%28%22GK%20PER%22%20OR%20%"
                  "22NOVA%20PER%201901%22%29&fl="));
}

TEST(AdsTest, NoDocsIsNoCandidate) {
  FakeServer server({Json(Answer(json::array(), 0))});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  EXPECT_EQ(ads.Fetch(Query({"V1500 CYG"})).candidates, std::vector<json>{});
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(AdsTest, MembersAdsLeavesOutAreLeftOut) {
  json docs = json::array({
      // No doctype: the role from the bibcode's journal.
      {{"bibcode", "1975IAUC.2827....1S"}, {"title", json::array()}},
      {{"bibcode", "1976ApJ...203L..97X"},
       {"doi", json::array()},
       {"pubdate", 1976},
       {"doctype", "erratum"}},
      {{"bibcode", "1976A&A....47..123Y"},
       {"doi", json::array({"10.1000/first", "10.1000/second"})},
       {"title", json::array({"First", "Second"})},
       {"doctype", "proposal"}},
  });
  FakeServer server({Json(Answer(docs, 3))});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  EXPECT_EQ(ads.Fetch(Query({"V1500 CYG"})).candidates,
            (std::vector<json>{
                {{"source", "ADS"},
                 {"bibcode", "1975IAUC.2827....1S"},
                 {"role", "DISCOVERY"}},
                {{"source", "ADS"},
                 {"bibcode", "1976ApJ...203L..97X"},
                 {"role", "ERRATUM"},
                 {"doctype", "erratum"}},
                {{"source", "ADS"},
                 {"bibcode", "1976A&A....47..123Y"},
                 {"doi", "10.1000/first"},
                 {"title", "First"},
                 {"role", "OTHER"},
                 {"doctype", "proposal"}},
            }));
}

// The quota is the last page's: each page is a request against it.
TEST(AdsTest, ManyRecordsComeInPages) {
  FakeServer server({Json(Answer(Docs(0, 200), 201)),
                     Json(Answer(Docs(200, 1), 201, 200), 200,
                          "X-RateLimit-Limit: 5000\r\n"
                          "X-RateLimit-Remaining: 4986\r\n"
                          "X-RateLimit-Reset: 1767312000\r\n")});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  domain::ReferenceAnswer answer = ads.Fetch(Query({"V1500 CYG"}));
  EXPECT_EQ(answer.quota,
            (domain::SourceQuota{
                .limit = 5000, .remaining = 4986, .reset = 1767312000}));
  const std::vector<json>& candidates = answer.candidates;
  ASSERT_EQ(candidates.size(), 201u);
  EXPECT_EQ(candidates[0]["bibcode"], "2000ApJ...500....0A");
  EXPECT_EQ(candidates[200]["bibcode"], "2000ApJ...500..200A");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[0].first,
              ::testing::StartsWith(std::string("GET /search/query") +
                                    kV1500Query + " HTTP/1.1\r\n"));
  std::string second = kV1500Query;
  second.replace(second.size() - 1, 1, "200");
  EXPECT_THAT(
      requests[1].first,
      ::testing::StartsWith("GET /search/query" + second + " HTTP/1.1\r\n"));
  EXPECT_THAT(requests[1].first,
              ::testing::HasSubstr(std::string("\r\nAuthorization: Bearer ") +
                                   kToken + "\r\n"));
}

TEST(AdsTest, PagingStopsAtTheCap) {
  std::vector<FakeServer::Answer> answers;
  for (int page = 0; page < 5; ++page)
    answers.push_back(Json(Answer(Docs(page * 200, 200), 4321, page * 200)));
  FakeServer server(answers);
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  EXPECT_EQ(ads.Fetch(Query({"V1500 CYG"})).candidates.size(),
            static_cast<size_t>(kAdsMaxRecords));
  EXPECT_EQ(server.requests().size(), 5u);
}

TEST(AdsTest, AnEmptyPageEndsThePaging) {
  FakeServer server(
      {Json(Answer(Docs(0, 200), 900)), Json(Answer(json::array(), 900, 200))});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  EXPECT_EQ(ads.Fetch(Query({"V1500 CYG"})).candidates.size(), 200u);
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(AdsTest, ANovaWithoutANameOrAClientWithoutATokenAsksNothing) {
  FakeServer server({});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  ExpectError([&] { ads.Fetch(Query({})); }, ClientFailure::kInvalidRequest,
              std::string("ADS: no name to search for (nova ") + kV1500 + ")");
  ExpectError(
      [&] {
        ads.Fetch(Query({"", "  "}));
      },
      ClientFailure::kInvalidRequest,
      std::string("ADS: no name to search for (nova ") + kV1500 + ")");
  Ads tokenless(AdsAt(server.endpoint()), "", clock);
  ExpectError([&] { tokenless.Fetch(Query({"V1500 CYG"})); },
              ClientFailure::kInvalidRequest, "ADS: no API token configured");
  EXPECT_TRUE(server.requests().empty());
}

TEST(AdsTest, AnswersThatAreNotAdssAreMalformed) {
  struct Case {
    std::string body;
    std::string message;
  };
  for (
      const Case& c : std::vector<Case>{
          {"<html>Bad gateway</html>", "ADS: malformed answer: not JSON"},
          {R"({"responseHeader": {"status": 0}})",
           "ADS: malformed answer: no response object"},
          {R"([1, 2])", "ADS: malformed answer: no response object"},
          {R"({"response": {"numFound": 0, "start": 0}})",
           "ADS: malformed answer: response.docs is not a list"},
          {R"({"response": {"numFound": 0, "docs": {}}})",
           "ADS: malformed answer: response.docs is not a list"},
          {R"({"response": {"docs": []}})",
           "ADS: malformed answer: response.numFound is not a count"},
          {R"({"response": {"numFound": "1", "docs": []}})",
           "ADS: malformed answer: response.numFound is not a count"},
          {R"({"response": {"numFound": 2, "docs": [{"bibcode": "1975IAUC.2826....1H"}, "1975IAUC.2827....1S"]}})",
           "ADS: malformed answer: response.docs[1] is not an object"},
          {R"({"response": {"numFound": 1, "docs": [{"title": ["No bibcode"]}]}})",
           "ADS: malformed answer: response.docs[0] has no bibcode"},
          {R"({"response": {"numFound": 1, "docs": [{"bibcode": ""}]}})",
           "ADS: malformed answer: response.docs[0] has no bibcode"},
      }) {
    FakeServer server({Json(c.body)});
    CountingClock clock;
    Ads ads(AdsAt(server.endpoint()), kToken, clock);
    ExpectError([&] { ads.Fetch(Query({"V1500 CYG"})); },
                ClientFailure::kMalformedResponse, c.message);
  }
}

TEST(AdsTest, ARefusedTokenIsAnInvalidRequestWithAdssMessage) {
  FakeServer server({Json("{\n  \"error\": \"Unauthorized\"\n}\n", 401, "")});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  ExpectError([&] { ads.Fetch(Query({"V1500 CYG"})); },
              ClientFailure::kInvalidRequest,
              "ADS: HTTP 401: {   \"error\": \"Unauthorized\" }");
}

TEST(AdsTest, TheTokenIsNeverInAMessage) {
  // A service that quotes the request's header back.
  FakeServer server({Json(std::string("{\"error\": \"token Bearer ") + kToken +
                              " is not authorized (" + kToken + ")\"}",
                          403, "")});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  ExpectError([&] { ads.Fetch(Query({"V1500 CYG"})); },
              ClientFailure::kInvalidRequest,
              "ADS: HTTP 403: {\"error\": \"token Bearer <token> is not "
              "authorized (<token>)\"}");
}

TEST(AdsTest, TheDailyQuotaSpentIsRetryable) {
  FakeServer server({Json("{\"error\": \"Rate limit was exceeded\"}", 429,
                          "Retry-After: 3600\r\nX-RateLimit-Limit: 5000\r\n"
                          "X-RateLimit-Remaining: 0\r\n"
                          "X-RateLimit-Reset: 1767312000\r\n")});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  ExpectError([&] { ads.Fetch(Query({"V1500 CYG"})); },
              ClientFailure::kUnavailable,
              "ADS: HTTP 429 (Retry-After 3600 s): {\"error\": \"Rate limit "
              "was exceeded\"}");
  EXPECT_TRUE(clock.sleeps.empty());  // an hour is not waited
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST(AdsTest, AShortRetryAfterIsWaitedThenTheAnswerCounts) {
  FakeServer server(
      {Json("{\"error\": \"Too many requests\"}", 429,
            "Retry-After: 2\r\nX-RateLimit-Limit: 5000\r\n"
            "X-RateLimit-Remaining: 12\r\nX-RateLimit-Reset: 1767312000\r\n"),
       Json(testing_util::ReadFixture(fs::path(kRecorded) / "v1500_cyg.json"),
            200,
            "X-RateLimit-Limit: 5000\r\nX-RateLimit-Remaining: 11\r\n"
            "X-RateLimit-Reset: 1767312000\r\n")});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  domain::ReferenceAnswer answer = ads.Fetch(Query({"V1500 CYG"}));
  EXPECT_EQ(answer.candidates, V1500Candidates());
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{2000});
  EXPECT_EQ(answer.quota,
            (domain::SourceQuota{
                .limit = 5000, .remaining = 11, .reset = 1767312000}));
}

TEST(AdsTest, RateLimitHeadersMissingOrNotNumbersAreNoRateLimit) {
  FakeServer server(
      {Json(Answer(json::array(), 0)),
       Json(Answer(json::array(), 0), 200,
            "X-RateLimit-Limit: 5000\r\nX-RateLimit-Remaining: 4987\r\n"),
       Json(Answer(json::array(), 0), 200,
            "X-RateLimit-Limit: 5000\r\nX-RateLimit-Remaining: many\r\n"
            "X-RateLimit-Reset: 1767312000\r\n")});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  EXPECT_EQ(ads.Fetch(Query({"V1500 CYG"})).quota,
            (domain::SourceQuota{
                .limit = 5000, .remaining = 4987, .reset = 1767312000}));
  EXPECT_EQ(ads.Fetch(Query({"V1500 CYG"})).quota, std::nullopt);
  EXPECT_EQ(ads.Fetch(Query({"V1500 CYG"})).quota, std::nullopt);
}

TEST(AdsTest, ServerErrorsAndStallsAreRetryable) {
  {
    FakeServer server({Json("Internal Server Error", 500, "")});
    CountingClock clock;
    Ads ads(AdsAt(server.endpoint()), kToken, clock);
    ExpectError([&] { ads.Fetch(Query({"V1500 CYG"})); },
                ClientFailure::kUnavailable,
                "ADS: HTTP 500: Internal Server Error");
  }
  {
    FakeServer server(
        {FakeServer::Answer(200, Answer(json::array(), 0), Mode::kStall,
                            kRateHeaders, "application/json")});
    CountingClock clock;
    Service service = AdsAt(server.endpoint());
    service.connect_timeout_ms = 200;
    service.request_timeout_ms = 200;
    Ads ads(service, kToken, clock);
    ExpectError([&] { ads.Fetch(Query({"V1500 CYG"})); },
                ClientFailure::kUnavailable, "ADS: curl: Timeout was reached");
  }
}

TEST(AdsTest, ASpentBudgetAsksNothing) {
  FakeServer server({});
  CountingClock clock;
  Ads ads(AdsAt(server.endpoint()), kToken, clock);
  domain::ReferenceQuery query = Query({"V1500 CYG"});
  query.budget_ms = 0;
  ExpectError([&] { ads.Fetch(query); }, ClientFailure::kUnavailable,
              "ADS: no time left to ask");
  EXPECT_TRUE(server.requests().empty());
}

// The recordings of fixtures/archives/ads through the replay server, as
// `novacat run --sources recorded` serves them: the discovery-date
// outcomes fixtures/README.md describes.
class AdsRecordingsTest : public ::testing::Test {
 protected:
  Ads Client() { return Ads(AdsAt(server_.BaseUrl("ads")), kToken, clock_); }

  // The discovery-date rule over `candidates` from `current`.
  static domain::DiscoveryDateDecision Decide(
      const std::vector<json>& candidates,
      std::optional<domain::PartialDate> current) {
    std::vector<domain::DiscoveryEvidence> evidence;
    for (const json& c : candidates) {
      domain::NormalizedReference r = domain::NormalizeReferenceCandidate(c);
      evidence.push_back({.reference_id = r.reference_id,
                          .date = r.publication_date,
                          .role = r.role});
    }
    return domain::DecideDiscoveryDate(current, evidence);
  }

  // The ADS recordings alone: another service's folder is not this
  // test's concern.
  testing_util::RecordingsCopy recordings_{{"ads"}};
  CountingClock clock_;
  ReplayServer server_{recordings_.root()};
};

TEST_F(AdsRecordingsTest, V1500CygIsDatedByItsDiscoveryCircular) {
  Ads ads = Client();
  domain::ReferenceAnswer answer = ads.Fetch(Query({"V1500 CYG"}));
  const std::vector<json>& candidates = answer.candidates;
  EXPECT_EQ(candidates, V1500Candidates());
  domain::DiscoveryDateDecision decision = Decide(candidates, std::nullopt);
  ASSERT_TRUE(decision.new_date);
  EXPECT_EQ(decision.new_date->ToIsoDate(), "1975-08-30");
  EXPECT_EQ(decision.earliest_reference_id,
            domain::ReferenceId("bibcode", "1975IAUC.2826....1H"));
  EXPECT_EQ(decision.change, domain::DiscoveryDateChange::kSet);
  EXPECT_EQ(answer.quota,
            (domain::SourceQuota{
                .limit = 5000, .remaining = 4987, .reset = 1767312000}));
  EXPECT_TRUE(server_.unmatched().empty());
}

TEST_F(AdsRecordingsTest, GkPerIsThrottledTwiceAndKeepsItsDate) {
  Ads ads = Client();
  const std::string busy =
      "ADS: HTTP 503 (Retry-After 120 s): <html>  <head><title>503 Service "
      "Temporarily Unavailable</title></head>  <body>  <center><h1>503 "
      "Service Temporarily Unavailable</h1></center>  </body>  </html>";
  for (int attempt = 0; attempt < 2; ++attempt)
    ExpectError([&] { ads.Fetch(Query({"GK PER"}, kGkPer)); },
                ClientFailure::kUnavailable, busy);
  std::vector<json> candidates =
      ads.Fetch(Query({"GK PER"}, kGkPer)).candidates;
  ASSERT_EQ(candidates.size(), 2u);
  EXPECT_EQ(candidates[0]["bibcode"], "1901MNRAS..61..318A");
  EXPECT_EQ(candidates[1]["bibcode"], "1902ApJ....15..313P");
  EXPECT_TRUE(clock_.sleeps.empty());  // 120 s is longer than ADS waits
  domain::DiscoveryDateDecision decision =
      Decide(candidates, domain::PartialDate::Parse("1901-02-22"));
  EXPECT_FALSE(decision.changed());
  EXPECT_EQ(decision.new_date, domain::PartialDate::Parse("1901-02-22"));
}

TEST_F(AdsRecordingsTest, TheNovaeInitializeNovaCreatesAreRecorded) {
  Ads ads = Client();
  std::vector<json> her = ads.Fetch(Query({"V1674 Her"})).candidates;
  ASSERT_EQ(her.size(), 3u);
  EXPECT_EQ(her[0]["role"], "DISCOVERY");
  EXPECT_EQ(her[1]["role"], "DISCOVERY");
  EXPECT_EQ(Decide(her, std::nullopt).new_date,
            domain::PartialDate::Parse("2021-06"));
  std::vector<json> sgr = ads.Fetch(Query({"Nova Sgr 2015 No. 2"})).candidates;
  ASSERT_EQ(sgr.size(), 2u);
  EXPECT_EQ(Decide(sgr, std::nullopt).new_date,
            domain::PartialDate::Parse("2015-03"));
  EXPECT_TRUE(server_.unmatched().empty());
}

}  // namespace
}  // namespace ads_test
}  // namespace novacat::sources
