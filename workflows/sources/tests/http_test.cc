#include "novacat/sources/http.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace http_test {
namespace {

using domain::ClientError;
using domain::ClientFailure;
using novacat::testing::FakeServer;
using Mode = FakeServer::Mode;
using std::chrono::milliseconds;
using testing_util::CountingClock;
using testing_util::ExpectClientError;

Service At(const FakeServer& server, std::string name = "SIMBAD") {
  return testing_util::ServiceAt(server, std::move(name), "/simbad/");
}

TEST(HttpClientTest, AGetCarriesItsQueryAndTheUserAgent) {
  FakeServer server({{200, "ok", Mode::kAnswer, "", "text/plain"}});
  CountingClock clock;
  HttpClient client(At(server), clock);
  HttpRequest request;
  request.path = "/sync";
  request.params = {{"QUERY", "SELECT 'a b'"}, {"FORMAT", "votable"}};
  HttpReply reply = client.Fetch(request);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "ok");
  EXPECT_EQ(reply.Header("content-type"), "text/plain");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].first,
              ::testing::StartsWith("GET "
                                    "/simbad/"
                                    "sync?QUERY=SELECT%20%27a%20b%27&FORMAT="
                                    "votable HTTP/1.1\r\n"));
  EXPECT_THAT(requests[0].first,
              ::testing::HasSubstr("\r\nUser-Agent: " + UserAgent()));
  EXPECT_THAT(UserAgent(), ::testing::StartsWith("novacat/"));
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(HttpClientTest, APostWithoutABodySendsItsParamsAsAForm) {
  FakeServer server({{200, "{}"}, {200, "{}"}});
  CountingClock clock;
  HttpClient client(At(server), clock);
  HttpRequest form;
  form.method = "POST";
  form.path = "/get/object";
  form.params = {{"api_key", "k"}, {"data", "{\"objname\":\"2021abc\"}"}};
  form.headers = {"User-Agent: tns_marker{\"tns_id\": 1}"};
  client.Fetch(form);
  HttpRequest json;
  json.method = "POST";
  json.path = "/invoke";
  json.body = "{\"a\":1}";
  json.content_type = "application/json";
  client.Fetch(json);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[0].first,
              ::testing::StartsWith("POST /simbad/get/object HTTP/1.1"));
  EXPECT_THAT(
      requests[0].first,
      ::testing::HasSubstr("\r\nUser-Agent: tns_marker{\"tns_id\": 1}"));
  EXPECT_THAT(requests[0].first,
              ::testing::Not(::testing::HasSubstr("novacat/")));
  EXPECT_EQ(requests[0].second,
            "api_key=k&data=%7B%22objname%22%3A%222021abc%22%7D");
  EXPECT_THAT(requests[1].first,
              ::testing::HasSubstr("\r\nContent-Type: application/json"));
  EXPECT_EQ(requests[1].second, "{\"a\":1}");
}

TEST(HttpClientTest, AShortRetryAfterIsWaitedAndAskedOnceMore) {
  FakeServer server({{429, "slow down", Mode::kAnswer, "Retry-After: 3\r\n"},
                     {200, "answer"}});
  CountingClock clock;
  HttpClient client(At(server), clock);
  HttpRequest request;
  request.path = "/sync";
  EXPECT_EQ(client.Fetch(request).body, "answer");
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{3000});
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(HttpClientTest, ThrottlingThatLastsIsRetryableWithItsRetryAfter) {
  FakeServer server({{503, "<html>\n  maintenance\n</html>", Mode::kAnswer,
                      "Retry-After: 120\r\n"},
                     {429, "", Mode::kAnswer, "Retry-After: 2\r\n"},
                     {429, "again", Mode::kAnswer, "Retry-After: 2\r\n"}});
  CountingClock clock;
  HttpClient client(At(server), clock);
  HttpRequest request;
  ExpectClientError(
      [&] { client.Fetch(request); }, ClientFailure::kUnavailable,
      "SIMBAD: HTTP 503 (Retry-After 120 s): <html>   maintenance "
      "</html>");
  EXPECT_TRUE(clock.sleeps.empty());  // 120 s is past the cap
  ExpectClientError([&] { client.Fetch(request); }, ClientFailure::kUnavailable,
                    "SIMBAD: HTTP 429 (Retry-After 2 s): again");
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{2000});
}

TEST(HttpClientTest, ARetryAfterLongerThanTheBudgetIsNotWaited) {
  FakeServer server({{429, "", Mode::kAnswer, "Retry-After: 5\r\n"}});
  CountingClock clock;
  HttpClient client(At(server), clock);
  HttpRequest request;
  request.budget_ms = 4000;
  ExpectClientError([&] { client.Fetch(request); }, ClientFailure::kUnavailable,
                    "SIMBAD: HTTP 429 (Retry-After 5 s)");
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(HttpClientTest, ServerErrorsAreRetryableOtherAnswersAreRefusals) {
  FakeServer server({{500, "Internal error"},
                     {400, "Incorrect ADQL query"},
                     {401, "{\"error\": \"Unauthorized\"}"},
                     {302, ""}});
  CountingClock clock;
  HttpClient client(At(server, "ADS"), clock);
  HttpRequest request;
  ExpectClientError([&] { client.Fetch(request); }, ClientFailure::kUnavailable,
                    "ADS: HTTP 500: Internal error");
  ExpectClientError([&] { client.Fetch(request); },
                    ClientFailure::kInvalidRequest,
                    "ADS: HTTP 400: Incorrect ADQL query");
  ExpectClientError([&] { client.Fetch(request); },
                    ClientFailure::kInvalidRequest,
                    "ADS: HTTP 401: {\"error\": \"Unauthorized\"}");
  ExpectClientError([&] { client.Fetch(request); },
                    ClientFailure::kInvalidRequest, "ADS: HTTP 302");
}

TEST(HttpClientTest, TransportFailuresAreRetryable) {
  FakeServer server({{200, "x", Mode::kReset},
                     {200, "a long enough body", Mode::kTruncate},
                     {200, "a long enough body", Mode::kStall}});
  CountingClock clock;
  HttpClient client(At(server), clock);
  HttpRequest request;
  // A reset before any answer is one of two curl errors, depending on
  // timing.
  try {
    client.Fetch(request);
    ADD_FAILURE() << "no ClientError";
  } catch (const ClientError& e) {
    EXPECT_EQ(e.failure(), ClientFailure::kUnavailable);
    EXPECT_THAT(e.what(),
                ::testing::MatchesRegex(
                    "SIMBAD: curl: (Failure when receiving data from the peer|"
                    "Server returned nothing \\(no headers, no data\\))"));
  }
  ExpectClientError([&] { client.Fetch(request); }, ClientFailure::kUnavailable,
                    "SIMBAD: curl: Transferred a partial file");
  // Only the stalled request has a short timeout (the stall's end; it never
  // answers): an answered one never meets its timeout, however slow the
  // machine.
  Service stalling = At(server);
  stalling.request_timeout_ms = 300;
  HttpClient stalled(stalling, clock);
  ExpectClientError([&] { stalled.Fetch(request); },
                    ClientFailure::kUnavailable,
                    "SIMBAD: curl: Timeout was reached");
}

TEST(HttpClientTest, TheBudgetBoundsTheRequest) {
  FakeServer server({{200, "never", Mode::kHang}});
  CountingClock clock;
  Service service = At(server);
  service.request_timeout_ms = 60000;
  HttpClient client(service, clock);
  HttpRequest request;
  request.budget_ms = 100;  // the hang ends when the budget does
  ExpectClientError([&] { client.Fetch(request); }, ClientFailure::kUnavailable,
                    "SIMBAD: curl: Timeout was reached");
  request.budget_ms = 0;
  ExpectClientError([&] { client.Fetch(request); }, ClientFailure::kUnavailable,
                    "SIMBAD: no time left to ask");
}

TEST(HttpClientTest, RequestsToOneServiceKeepItsPace) {
  FakeServer server({{200, "1"}, {200, "2"}});
  CountingClock clock;
  Service service = At(server);
  service.min_interval_ms = 200;
  HttpClient client(service, clock);
  HttpRequest request;
  client.Fetch(request);
  client.Fetch(request);
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{200});
}

TEST(HttpClientTest, ABadUrlIsTheRequestsFault) {
  CountingClock clock;
  Service service;
  service.name = "VSX";
  service.base_url = "gopher://example.invalid";
  HttpClient client(service, clock);
  ExpectClientError([&] { client.Fetch(HttpRequest{}); },
                    ClientFailure::kInvalidRequest,
                    "VSX: curl: Unsupported protocol");
}

TEST(UrlEncodeTest, KeepsUnreservedCharactersOnly) {
  EXPECT_EQ(UrlEncode("V1500 Cyg"), "V1500%20Cyg");
  EXPECT_EQ(UrlEncode("a-b.c_d~e"), "a-b.c_d~e");
  EXPECT_EQ(UrlEncode("'x'=1&y+é"), "%27x%27%3D1%26y%2B%C3%A9");
  EXPECT_EQ(FormEncode({{"a b", "c"}, {"d", ""}}), "a%20b=c&d=");
}

}  // namespace
}  // namespace http_test
}  // namespace novacat::sources
