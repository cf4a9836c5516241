#include "novacat/sources/eso_ssap.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "novacat/sources/replay.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace eso_ssap_test {
namespace {

using domain::ClientFailure;
using domain::ProviderQuery;
using nlohmann::json;
using novacat::testing::FakeServer;
using Mode = FakeServer::Mode;
using testing_util::CountingClock;
using testing_util::ExpectClientError;

constexpr char kVotable[] = "application/x-votable+xml;content=ssap";
constexpr char kV1500Cyg[] = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";

Service At(std::string base_url, long request_timeout_ms = 10000) {
  return testing_util::ServiceAt("ESO SSAP", std::move(base_url),
                                 request_timeout_ms);
}

ProviderQuery At(double ra, double dec, std::string nova_id = kV1500Cyg) {
  return testing_util::ConeQuery("ESO", std::move(nova_id), ra, dec);
}

std::string Recorded(const std::string& name) {
  return testing_util::ReadFixture("fixtures/archives/eso/" + name);
}

// A VOTable with `fields` (FIELD elements) and `rows` (TR elements).
std::string Table(const std::string& fields, const std::string& rows,
                  const std::string& status = "OK") {
  return "<?xml version=\"1.0\"?>\n<VOTABLE version=\"1.3\" "
         "xmlns=\"http://www.ivoa.net/xml/VOTable/v1.3\">\n<RESOURCE "
         "type=\"results\">\n<INFO name=\"QUERY_STATUS\" value=\"" +
         status + "\"/>\n<TABLE>\n" + fields + "\n<DATA><TABLEDATA>" + rows +
         "</TABLEDATA></DATA>\n</TABLE>\n</RESOURCE>\n</VOTABLE>\n";
}

constexpr char kV1500Request[] =
    "GET /eso?REQUEST=queryData&POS=317.9024208%2C48.1505417&SIZE=0.0027778&"
    "MAXREC=1000 HTTP/1.1\r\n";

TEST(EsoSsapTest, AConeSearchAtTheNovaGivesEveryRowTypedByItsField) {
  FakeServer server(
      {{200, Recorded("v1500_cyg.xml"), Mode::kAnswer, "", kVotable}});
  CountingClock clock;
  EsoSsap eso(At(server.endpoint() + "/eso"), clock);
  std::vector<json> records = eso.Query(At(317.9024208, 48.1505417));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].first, ::testing::StartsWith(kV1500Request));
  EXPECT_EQ(requests[0].second, "");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0], json::parse(R"({
    "dp_id": "ADP.2016-06-02T10:01:19.436", "COLLECTION": "UVES",
    "TARGETNAME": "V1500 Cyg", "s_ra": 317.902395, "s_dec": 48.150556,
    "APERTURE": 0.000278, "em_min": 3.2805e-07, "em_max": 4.5594e-07,
    "SPECRP": 40970.0, "SNR": 18.3, "t_min": 57539.34205389,
    "t_max": 57539.355943,
    "CREATORDID": "ivo://eso.org/origfile?UV_SRED_1688736_2016-05-31T08:12:33.456_BLUE390d1_1x1_09.fits",
    "access_url": "https://dataportal.eso.org/dataPortal/file/ADP.2016-06-02T10:01:19.436",
    "access_format": "application/fits", "access_estsize": 2304})"));
  EXPECT_EQ(records[1], json::parse(R"({
    "dp_id": "ADP.2016-06-02T10:01:19.512", "COLLECTION": "UVES",
    "TARGETNAME": "V1500 Cyg", "s_ra": 317.902402, "s_dec": 48.150548,
    "APERTURE": 0.000278, "em_min": 4.727e-07, "em_max": 6.835e-07,
    "SPECRP": 42310.0, "SNR": 21.7, "t_min": 57539.28136574,
    "t_max": 57539.295255,
    "CREATORDID": "ivo://eso.org/origfile?UV_SRED_1688737_2016-05-31T06:45:10.000_RED580d1_1x1_09.fits",
    "access_url": null, "access_format": "application/fits",
    "access_estsize": 2305})"));
  // Types as the FIELDs declare them, not as the text happens to read.
  EXPECT_TRUE(records[0]["SPECRP"].is_number_float());
  EXPECT_TRUE(records[0]["access_estsize"].is_number_integer());
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(EsoSsapTest, CellsAreTypedByDatatypeAndNullsStayNull) {
  FakeServer server(
      {{200,
        Table("<FIELD name=\"n\" datatype=\"short\"/>"
              "<FIELD name=\"x\" datatype=\"float\"/>"
              "<FIELD name=\"flag\" datatype=\"boolean\"/>"
              "<FIELD ID=\"only_id\" datatype=\"char\" arraysize=\"*\"/>"
              "<FIELD name=\"pair\" datatype=\"double\" arraysize=\"2\"/>"
              "<FIELD name=\"u\" datatype=\"unicodeChar\" arraysize=\"*\"/>",
              "<TR><TD> -7 </TD><TD>NaN</TD><TD>T</TD><TD>a b </TD>"
              "<TD>1.5 2.5</TD><TD>V\xc3\xa9</TD></TR>"
              "<TR><TD/><TD>1e3</TD><TD>?</TD><TD></TD><TD/></TR>"
              "<TR><TD>0</TD><TD>-0.5</TD><TD>false</TD></TR>"),
        Mode::kAnswer, "", kVotable}});
  EsoSsap eso(At(server.endpoint()));
  EXPECT_EQ(
      eso.Query(At(10, -20)),
      (std::vector<json>{json::parse(R"({"n": -7, "x": null, "flag": true,
                  "only_id": "a b ", "pair": "1.5 2.5", "u": "Vé"})"),
                         json::parse(R"({"n": null, "x": 1000.0, "flag": null,
                  "only_id": null, "pair": null, "u": null})"),
                         json::parse(R"({"n": 0, "x": -0.5, "flag": false,
                  "only_id": null, "pair": null, "u": null})")}));
  EXPECT_THAT(server.requests()[0].first,
              ::testing::StartsWith("GET /?REQUEST=queryData&POS=10%2C-20&"
                                    "SIZE=0.0027778&MAXREC=1000 HTTP/1.1"));
}

TEST(EsoSsapTest, NoSpectraIsAnEmptyAnswer) {
  const std::string fields =
      "<FIELD name=\"dp_id\" datatype=\"char\" arraysize=\"*\"/>";
  FakeServer server({{200, Table(fields, ""), Mode::kAnswer, "", kVotable},
                     {200,
                      "<VOTABLE><RESOURCE type=\"results\"><INFO "
                      "name=\"QUERY_STATUS\" value=\"OK\"/><TABLE>" +
                          fields + "</TABLE></RESOURCE></VOTABLE>",
                      Mode::kAnswer, "", kVotable}});
  EsoSsap eso(At(server.endpoint()));
  EXPECT_EQ(eso.Query(At(52.79925, 43.9046667)), std::vector<json>{});
  EXPECT_EQ(eso.Query(At(52.79925, 43.9046667)), std::vector<json>{});
}

TEST(EsoSsapTest, AnAnswerCutAtMaxrecIsReturnedAsItIs) {
  FakeServer server(
      {{200,
        Table("<FIELD name=\"dp_id\" datatype=\"char\" arraysize=\"*\"/>",
              "<TR><TD>ADP.1</TD></TR>", "OVERFLOW"),
        Mode::kAnswer, "", kVotable}});
  EsoSsap eso(At(server.endpoint()));
  EXPECT_EQ(eso.Query(At(1, 2)),
            std::vector<json>{json::parse(R"({"dp_id": "ADP.1"})")});
}

TEST(EsoSsapTest, AQueryStatusErrorIsAMalformedResponse) {
  FakeServer server(
      {{200, Recorded("v1674_her.xml"), Mode::kAnswer, "", kVotable}});
  EsoSsap eso(At(server.endpoint()));
  ExpectClientError(
      [&] { eso.Query(At(284.3790833, 16.8943333)); },
      ClientFailure::kMalformedResponse,
      "ESO SSAP: query failed: Query execution failed: the spectra "
      "database did not answer in time (ssap.ObsCore)");
}

TEST(EsoSsapTest, WhatIsNotAVoTableIsAMalformedResponse) {
  std::string cut = Recorded("v1500_cyg.xml");
  cut.resize(cut.find("</TABLEDATA>"));
  FakeServer server(
      {{200, cut, Mode::kAnswer, "", kVotable},
       {200, "<html><body>Maintenance</body></html>", Mode::kAnswer, "",
        "text/html"},
       {200,
        Table("<FIELD name=\"access_estsize\" datatype=\"long\"/>",
              "<TR><TD>2.3k</TD></TR>"),
        Mode::kAnswer, "", kVotable},
       {200,
        Table("<FIELD name=\"t_min\" datatype=\"double\"/>",
              "<TR><TD>yesterday</TD></TR>"),
        Mode::kAnswer, "", kVotable},
       {200,
        Table("<FIELD name=\"ok\" datatype=\"boolean\"/>",
              "<TR><TD>maybe</TD></TR>"),
        Mode::kAnswer, "", kVotable}});
  EsoSsap eso(At(server.endpoint()));
  const ProviderQuery q = At(1, 2);
  ExpectClientError(
      [&] { eso.Query(q); }, ClientFailure::kMalformedResponse,
      "ESO SSAP: malformed VOTable: Start-end tags mismatch at byte " +
          std::to_string(cut.size() - 1));
  ExpectClientError([&] { eso.Query(q); }, ClientFailure::kMalformedResponse,
                    "ESO SSAP: malformed VOTable: no VOTABLE element");
  ExpectClientError([&] { eso.Query(q); }, ClientFailure::kMalformedResponse,
                    "ESO SSAP: access_estsize is not an integer: \"2.3k\"");
  ExpectClientError([&] { eso.Query(q); }, ClientFailure::kMalformedResponse,
                    "ESO SSAP: t_min is not a number: \"yesterday\"");
  ExpectClientError([&] { eso.Query(q); }, ClientFailure::kMalformedResponse,
                    "ESO SSAP: ok is not a boolean: \"maybe\"");
}

TEST(EsoSsapTest, AShortRetryAfterIsWaitedThroughTheClock) {
  FakeServer server(
      {{429, "Too many requests", Mode::kAnswer, "Retry-After: 2\r\n",
        "text/plain"},
       {200, Recorded("gk_per.xml"), Mode::kAnswer, "", kVotable}});
  CountingClock clock;
  EsoSsap eso(At(server.endpoint()), clock);
  std::vector<json> records = eso.Query(At(52.79925, 43.9046667));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0]["dp_id"], "ADP.2019-01-10T12:00:00.001");
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{2000});
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(EsoSsapTest, ThrottlingAndServerErrorsAreRetryable) {
  FakeServer server({{429, "Too many requests", Mode::kAnswer,
                      "Retry-After: 120\r\n", "text/plain"},
                     {500, "<html><body>Internal Server Error</body></html>",
                      Mode::kAnswer, "", "text/html"}});
  CountingClock clock;
  EsoSsap eso(At(server.endpoint()), clock);
  ExpectClientError(
      [&] { eso.Query(At(1, 2)); }, ClientFailure::kUnavailable,
      "ESO SSAP: HTTP 429 (Retry-After 120 s): Too many requests");
  ExpectClientError([&] { eso.Query(At(1, 2)); }, ClientFailure::kUnavailable,
                    "ESO SSAP: HTTP 500: <html><body>Internal Server "
                    "Error</body></html>");
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(EsoSsapTest, AStalledAnswerTimesOutRetryably) {
  FakeServer server({{200, Recorded("v1500_cyg.xml"), Mode::kStall}});
  EsoSsap eso(At(server.endpoint(), 300));
  ExpectClientError([&] { eso.Query(At(1, 2)); }, ClientFailure::kUnavailable,
                    "ESO SSAP: curl: Timeout was reached");
}

TEST(EsoSsapTest, ARefusedRequestIsTerminalWithTheServicesMessage) {
  FakeServer server({{400,
                      "Error in POS parameter: the position is not in the "
                      "form ra,dec\n",
                      Mode::kAnswer, "", "text/plain"}});
  EsoSsap eso(At(server.endpoint()));
  ExpectClientError(
      [&] { eso.Query(At(1, 2)); }, ClientFailure::kInvalidRequest,
      "ESO SSAP: HTTP 400: Error in POS parameter: the position is "
      "not in the form ra,dec");
}

TEST(EsoSsapTest, ANovaWithoutAPositionCannotBeAsked) {
  FakeServer server({});
  EsoSsap eso(At(server.endpoint()));
  ProviderQuery q = At(1, 2);
  q.dec_deg.reset();
  ExpectClientError(
      [&] { eso.Query(q); }, ClientFailure::kInvalidRequest,
      "ESO SSAP: nova d4bbdda3-6824-4e82-b1ce-1b781190fbec has no "
      "position (a cone search needs ra_deg and dec_deg)");
  ExpectClientError([&] { eso.Query(At(360, 2)); },
                    ClientFailure::kInvalidRequest,
                    "ESO SSAP: nova d4bbdda3-6824-4e82-b1ce-1b781190fbec has "
                    "position (360, 2), outside [0, 360) x [-90, 90]");
  ExpectClientError([&] { eso.Query(At(1, -90.5)); },
                    ClientFailure::kInvalidRequest,
                    "ESO SSAP: nova d4bbdda3-6824-4e82-b1ce-1b781190fbec has "
                    "position (1, -90.5), outside [0, 360) x [-90, 90]");
  EXPECT_TRUE(server.requests().empty());
}

// The recordings (fixtures/archives/eso) answer the client's own requests
// for the fixture novae through the replay server.
class EsoSsapRecordingsTest : public ::testing::Test {
 protected:
  testing_util::RecordingsCopy recordings_{{"eso"}};
};

TEST_F(EsoSsapRecordingsTest, AnswerTheFixtureNovae) {
  ReplayServer replay(recordings_.root());
  CountingClock clock;
  EsoSsap eso(At(replay.BaseUrl("eso")), clock);
  std::vector<json> v1500 = eso.Query(At(317.9024208, 48.1505417));
  ASSERT_EQ(v1500.size(), 2u);
  EXPECT_EQ(v1500[0]["dp_id"], "ADP.2016-06-02T10:01:19.436");
  EXPECT_EQ(v1500[1]["access_url"], nullptr);
  ExpectClientError(
      [&] { eso.Query(At(52.79925, 43.9046667)); }, ClientFailure::kUnavailable,
      "ESO SSAP: HTTP 503 (Retry-After 120 s): <html><head><title>503 "
      "Service Unavailable</title></head><body><h1>Service "
      "Unavailable</h1><p>The ESO archive is busy; please try again "
      "later.</p></body></html>");
  std::vector<json> gk_per = eso.Query(At(52.79925, 43.9046667));
  ASSERT_EQ(gk_per.size(), 1u);
  EXPECT_EQ(gk_per[0]["COLLECTION"], "XSHOOTER");
  ExpectClientError(
      [&] { eso.Query(At(284.3790833, 16.8943333)); },
      ClientFailure::kMalformedResponse,
      "ESO SSAP: query failed: Query execution failed: the spectra "
      "database did not answer in time (ssap.ObsCore)");
  std::vector<json> v5668 = eso.Query(At(279.2368333, -28.9277222));
  ASSERT_EQ(v5668.size(), 2u);
  EXPECT_EQ(v5668[1]["access_url"],
            "https://dataportal.eso.org/dataPortal/file/"
            "ADP.2015-04-08T13:27:51.304");
  EXPECT_EQ(replay.unmatched(), std::vector<std::string>{});
  EXPECT_TRUE(clock.sleeps.empty());
}

}  // namespace
}  // namespace eso_ssap_test
}  // namespace novacat::sources
