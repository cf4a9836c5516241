#include "novacat/sources/mast.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_http_server.h"
#include "novacat/domain/failure.h"
#include "novacat/sources/replay.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace mast_test {
namespace {

using domain::ClientFailure;
using domain::ProviderQuery;
using nlohmann::json;
using novacat::testing::FakeServer;
using Mode = FakeServer::Mode;
using testing_util::CountingClock;
using testing_util::ExpectClientError;

constexpr char kJson[] = "application/json; charset=utf-8";
constexpr char kNova[] = "5b0f8a52-7c1e-4d3a-9f6b-2e8c1a7d4b90";

Service At(std::string base_url, long request_timeout_ms = 10000) {
  return testing_util::ServiceAt("MAST", std::move(base_url),
                                 request_timeout_ms);
}

ProviderQuery At(double ra, double dec) {
  return testing_util::ConeQuery("MAST", kNova, ra, dec);
}

std::string Recorded(const std::string& name) {
  return testing_util::ReadFixture("fixtures/archives/mast/" + name);
}

FakeServer::Answer Json(std::string body) {
  return {200, std::move(body), Mode::kAnswer, "", kJson};
}

// The request line of a request, and its form's `request` as JSON.
std::pair<std::string, json> Sent(
    const std::pair<std::string, std::string>& request) {
  std::string line = request.first.substr(0, request.first.find("\r\n"));
  const std::string& body = request.second;
  EXPECT_EQ(body.rfind("request=", 0), 0u) << body;
  std::string decoded;
  for (size_t i = 8; i < body.size(); ++i) {
    if (body[i] == '%' && i + 2 < body.size()) {
      decoded +=
          static_cast<char>(std::stoi(body.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      decoded += body[i] == '+' ? ' ' : body[i];
    }
  }
  return {line, json::parse(decoded)};
}

json Cone(double ra, double dec, int page = 1) {
  return {{"service", "Mast.Caom.Cone"},
          {"params", {{"ra", ra}, {"dec", dec}, {"radius", 5.0 / 3600.0}}},
          {"format", "json"},
          {"pagesize", 500},
          {"page", page}};
}

json Products(const std::string& obsids, int page = 1) {
  return {{"service", "Mast.Caom.Products"},
          {"params", {{"obsid", obsids}}},
          {"format", "json"},
          {"pagesize", 500},
          {"page", page}};
}

// A COMPLETE answer of `rows` as page `page` of `pages`.
std::string Page(const json& rows, int page = 1, int pages = 1) {
  return json{{"status", "COMPLETE"},
              {"msg", ""},
              {"data", rows},
              {"fields", json::array()},
              {"paging",
               {{"page", page},
                {"pageSize", 500},
                {"pagesFiltered", pages},
                {"rows", rows.size()},
                {"rowsFiltered", rows.size()},
                {"rowsTotal", rows.size()}}}}
      .dump();
}

TEST(MastTest, TheSpectraOfAConeSearchAndTheirScienceProducts) {
  FakeServer server({Json(Recorded("v5668_sgr_cone.json")),
                     Json(Recorded("v5668_sgr_products.json"))});
  CountingClock clock;
  Mast mast(At(server.endpoint() + "/mast"), clock);
  std::vector<json> records = mast.Query(At(279.2368333, -28.9277222));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(Sent(requests[0]),
            std::make_pair(std::string("POST /mast/invoke HTTP/1.1"),
                           Cone(279.2368333, -28.9277222)));
  EXPECT_THAT(requests[0].first,
              ::testing::HasSubstr(
                  "\r\nContent-Type: application/x-www-form-urlencoded"));
  EXPECT_EQ(Sent(requests[1]),
            std::make_pair(std::string("POST /mast/invoke HTTP/1.1"),
                           Products("24866752")));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0], json::parse(R"({
    "intentType": "science", "obs_collection": "HST",
    "provenance_name": "CALSTIS", "instrument_name": "STIS/MAMA",
    "project": "CALSTIS", "filters": "E140M", "wavelength_region": "UV",
    "target_name": "V5668-SGR", "target_classification": "STAR;NOVA",
    "obs_id": "odcv01010", "s_ra": 279.236812, "s_dec": -28.927739,
    "dataproduct_type": "spectrum", "proposal_pi": "Mason, Elena",
    "calib_level": 3, "t_min": 57268.24097, "t_max": 57268.27431,
    "t_exptime": 2880.0, "em_min": 114.0, "em_max": 170.9,
    "obs_title": "Nova Sgr 2015b: the beryllium of a fading nova",
    "t_obs_release": 57268.7, "proposal_id": "14210",
    "proposal_type": "GO/DD", "sequence_number": null,
    "s_region": "POLYGON 279.23 -28.928 279.24 -28.928 279.24 -28.927 279.23 -28.927",
    "jpegURL": "mast:HST/product/odcv01010_x1d.png",
    "dataURL": "https://mast.stsci.edu/api/v0.1/Download/file?uri=mast:HST/product/odcv01010_x1d.fits",
    "dataRights": "PUBLIC", "mtFlag": false, "srcDen": 5885.0,
    "obsid": "24866752", "objID": "84119853", "distance": 0.31,
    "_selected_": null, "obsID": "24866752",
    "description": "DADS X1D file - Calibrated 1-D spectrum STIS",
    "type": "S", "dataURI": "mast:HST/product/odcv01010_x1d.fits",
    "productType": "SCIENCE",
    "productGroupDescription": "Minimum Recommended Products",
    "productSubGroupDescription": "X1D", "productDocumentationURL": "",
    "prvversion": "3.4.2", "productFilename": "odcv01010_x1d.fits",
    "size": 1451520, "parent_obsid": "24866752"})"));
  EXPECT_TRUE(clock.sleeps.empty());
}

TEST(MastTest, OnlySpectraAreAskedForAndOnlyScienceSpectraKept) {
  FakeServer server({Json(Recorded("v1500_cyg_cone.json")),
                     Json(Recorded("v1500_cyg_products.json"))});
  Mast mast(At(server.endpoint()));
  std::vector<json> records = mast.Query(At(317.9024208, 48.1505417));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  // The GALEX image's obsid (1000052411) is not asked for.
  EXPECT_EQ(Sent(requests[1]).second, Products("3000001744,3000101642"));
  ASSERT_EQ(records.size(), 2u);
  auto summary = [](const json& r) {
    return json{{"obs_id", r["obs_id"]},
                {"instrument_name", r["instrument_name"]},
                {"t_min", r["t_min"]},
                {"dataURL", r["dataURL"]},
                {"size", r["size"]},
                {"productSubGroupDescription", r["productSubGroupDescription"]},
                {"target_name", r["target_name"]}};
  };
  EXPECT_EQ(summary(records[0]), json::parse(R"({
    "obs_id": "swp01744", "instrument_name": "SWP", "t_min": 43631.54412,
    "dataURL": "https://mast.stsci.edu/api/v0.1/Download/file?uri=mast:IUE/url/pub/iue/data/swp/01000/swp01744.mxlo.gz",
    "size": 27648, "productSubGroupDescription": "MXLO",
    "target_name": "V1500CYG"})"));
  EXPECT_EQ(summary(records[1]), json::parse(R"({
    "obs_id": "lwr01642", "instrument_name": "LWR", "t_min": 43631.6,
    "dataURL": "https://mast.stsci.edu/api/v0.1/Download/file?uri=mast:IUE/url/pub/iue/data/lwr/01000/lwr01642.mxlo.gz",
    "size": 25920, "productSubGroupDescription": "MXLO",
    "target_name": "V1500CYG"})"));
}

TEST(MastTest, NoSpectraAsksNoProducts) {
  FakeServer server({Json(Recorded("v1674_her_cone.json"))});
  Mast mast(At(server.endpoint()));
  EXPECT_EQ(mast.Query(At(284.3790833, 16.8943333)), std::vector<json>{});
  EXPECT_EQ(server.requests().size(), 1u);
  FakeServer empty({Json(Page(json::array()))});
  Mast mast_empty(At(empty.endpoint()));
  EXPECT_EQ(mast_empty.Query(At(1, 2)), std::vector<json>{});
}

TEST(MastTest, PagesAreFollowedAndProductsKeptOnceAndUriEncoded) {
  json spectrum = {{"dataproduct_type", "spectrum"},
                   {"obsid", 7},
                   {"obs_id", "o7"},
                   {"t_min", 50000.5},
                   {"instrument_name", "STIS/CCD"}};
  json second = spectrum;
  second["obsid"] = "8";
  second["obs_id"] = "o8";
  json product = {{"obsID", 7},
                  {"obs_id", "o7_member"},
                  {"productType", "SCIENCE"},
                  {"productSubGroupDescription", "SX1"},
                  {"t_min", 1.0},
                  {"dataURI", "mast:HST/product/o7 x&y_sx1.fits"},
                  {"size", 100}};
  json again = product;
  again["parent_obsid"] = "8";
  FakeServer server({Json(Page(json::array({spectrum}), 1, 2)),
                     Json(Page(json::array({second}), 2, 2)),
                     Json(Page(json::array({product, again}), 1, 1))});
  Mast mast(At(server.endpoint()));
  std::vector<json> records = mast.Query(At(1, 2));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(Sent(requests[0]).second, Cone(1, 2, 1));
  EXPECT_EQ(Sent(requests[1]).second, Cone(1, 2, 2));
  EXPECT_EQ(Sent(requests[2]).second, Products("7,8"));
  // The observation's t_min and instrument stay, the product's obs_id
  // wins, and the product listed twice is kept once.
  const json expected = json::parse(R"({
    "dataproduct_type": "spectrum", "obsid": 7, "obsID": 7,
    "obs_id": "o7_member", "t_min": 50000.5, "instrument_name": "STIS/CCD",
    "productType": "SCIENCE", "productSubGroupDescription": "SX1",
    "dataURI": "mast:HST/product/o7 x&y_sx1.fits", "size": 100,
    "dataURL": "https://mast.stsci.edu/api/v0.1/Download/file?uri=mast:HST/product/o7%20x%26y_sx1.fits"})");
  EXPECT_EQ(records, std::vector<json>{expected});
}

TEST(MastTest, ObsidsAreAskedForAHundredAtATime) {
  json observations = json::array();
  std::string first, second;
  for (int i = 1; i <= 101; ++i) {
    observations.push_back(
        {{"dataproduct_type", "spectrum"}, {"obsid", std::to_string(i)}});
    std::string& list = i <= 100 ? first : second;
    list += (list.empty() ? "" : ",") + std::to_string(i);
  }
  FakeServer server({Json(Page(observations)), Json(Page(json::array())),
                     Json(Page(json::array()))});
  Mast mast(At(server.endpoint()));
  EXPECT_EQ(mast.Query(At(1, 2)), std::vector<json>{});
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(Sent(requests[1]).second, Products(first));
  EXPECT_EQ(Sent(requests[2]).second, Products(second));
}

TEST(MastTest, ExecutingIsAskedAgainThroughTheClockThenGivenUp) {
  const std::string executing =
      R"({"status": "EXECUTING", "msg": "", "data": []})";
  FakeServer server({Json(executing), Json(Page(json::array())),
                     Json(executing), Json(executing), Json(executing),
                     Json(executing), Json(executing)});
  CountingClock clock;
  Mast mast(At(server.endpoint()), clock);
  EXPECT_EQ(mast.Query(At(1, 2)), std::vector<json>{});
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{1000});
  ExpectClientError([&] { mast.Query(At(1, 2)); }, ClientFailure::kUnavailable,
                    "MAST: Mast.Caom.Cone: still EXECUTING after 5 requests");
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>(5, 1000));
  EXPECT_EQ(server.requests().size(), 7u);
}

TEST(MastTest, AnswersThatAreNotMastsAreMalformed) {
  FakeServer server(
      {Json("<html>Maintenance</html>"), Json("[1, 2]"),
       Json(R"({"status": "ERROR", "msg": "Request Object is Malformed",
                "data": null})"),
       Json(R"({"status": "PENDING", "data": []})"),
       Json(R"({"status": "COMPLETE", "msg": ""})"),
       Json(R"({"status": "COMPLETE", "data": [1]})"),
       Json(Page(json::array({{{"dataproduct_type", "spectrum"}}})))});
  Mast mast(At(server.endpoint()));
  const ProviderQuery q = At(1, 2);
  for (const char* message :
       {"MAST: Mast.Caom.Cone: the answer is not JSON",
        "MAST: Mast.Caom.Cone: the answer is not an object with a status",
        "MAST: Mast.Caom.Cone: status ERROR: Request Object is Malformed",
        "MAST: Mast.Caom.Cone: status \"PENDING\" (expected COMPLETE)",
        "MAST: Mast.Caom.Cone: the answer has no data array",
        "MAST: Mast.Caom.Cone: data[0] is not an object",
        "MAST: Mast.Caom.Cone: data[0] (a spectrum) has no obsid"}) {
    ExpectClientError([&] { mast.Query(q); }, ClientFailure::kMalformedResponse,
                      message);
  }
}

TEST(MastTest, ThrottlingServerErrorsAndStallsAreRetryable) {
  FakeServer server(
      {{429, "Too Many Requests", Mode::kAnswer, "Retry-After: 1\r\n",
        "text/plain"},
       Json(Page(json::array())),
       {503, "MAST is down for maintenance", Mode::kAnswer,
        "Retry-After: 120\r\n", "text/plain"},
       {500, "{\"status\": \"ERROR\", \"msg\": \"Internal error\"}",
        Mode::kAnswer, "", kJson},
       {200, Page(json::array()), Mode::kStall, "", kJson}});
  CountingClock clock;
  Mast mast(At(server.endpoint(), 300), clock);
  EXPECT_EQ(mast.Query(At(1, 2)), std::vector<json>{});
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{1000});
  ExpectClientError([&] { mast.Query(At(1, 2)); }, ClientFailure::kUnavailable,
                    "MAST: HTTP 503 (Retry-After 120 s): MAST is down for "
                    "maintenance");
  ExpectClientError(
      [&] { mast.Query(At(1, 2)); }, ClientFailure::kUnavailable,
      "MAST: HTTP 500: {\"status\": \"ERROR\", \"msg\": \"Internal error\"}");
  ExpectClientError([&] { mast.Query(At(1, 2)); }, ClientFailure::kUnavailable,
                    "MAST: curl: Timeout was reached");
  EXPECT_EQ(clock.sleeps, std::vector<int64_t>{1000});
}

TEST(MastTest, ARefusedRequestIsTerminalWithTheServicesMessage) {
  FakeServer server({{400, "Bad Request: the request parameter is missing",
                      Mode::kAnswer, "", "text/plain"}});
  Mast mast(At(server.endpoint()));
  ExpectClientError(
      [&] { mast.Query(At(1, 2)); }, ClientFailure::kInvalidRequest,
      "MAST: HTTP 400: Bad Request: the request parameter is missing");
}

TEST(MastTest, ANovaWithoutAPositionCannotBeAsked) {
  FakeServer server({});
  Mast mast(At(server.endpoint()));
  ProviderQuery q = At(1, 2);
  q.ra_deg.reset();
  ExpectClientError([&] { mast.Query(q); }, ClientFailure::kInvalidRequest,
                    "MAST: nova 5b0f8a52-7c1e-4d3a-9f6b-2e8c1a7d4b90 has no "
                    "position (a cone search needs ra_deg and dec_deg)");
  ExpectClientError(
      [&] { mast.Query(At(-1, 2)); }, ClientFailure::kInvalidRequest,
      "MAST: nova 5b0f8a52-7c1e-4d3a-9f6b-2e8c1a7d4b90 has position "
      "(-1.0, 2.0), outside [0, 360) x [-90, 90]");
  EXPECT_TRUE(server.requests().empty());
}

// The recordings (fixtures/archives/mast) answer the client's own requests
// for the fixture novae through the replay server.
class MastRecordingsTest : public ::testing::Test {
 protected:
  testing_util::RecordingsCopy recordings_{{"mast"}};
};

TEST_F(MastRecordingsTest, AnswerTheFixtureNovae) {
  ReplayServer replay(recordings_.root());
  CountingClock clock;
  Mast mast(At(replay.BaseUrl("mast")), clock);
  auto urls = [](const std::vector<json>& records) {
    std::vector<std::string> out;
    for (const json& r : records) out.push_back(r["dataURL"]);
    return out;
  };
  const std::string download = kMastDownloadUrl;
  EXPECT_EQ(
      urls(mast.Query(At(317.9024208, 48.1505417))),
      (std::vector<std::string>{
          download + "mast:IUE/url/pub/iue/data/swp/01000/swp01744.mxlo.gz",
          download + "mast:IUE/url/pub/iue/data/lwr/01000/lwr01642.mxlo.gz"}));
  ExpectClientError([&] { mast.Query(At(52.79925, 43.9046667)); },
                    ClientFailure::kUnavailable,
                    "MAST: HTTP 503 (Retry-After 120 s): <html><body><h1>503 "
                    "Service Unavailable</h1><p>MAST is temporarily "
                    "unavailable.</p></body></html>");
  EXPECT_EQ(
      urls(mast.Query(At(52.79925, 43.9046667))),
      std::vector<std::string>{
          download + "mast:IUE/url/pub/iue/data/swp/05000/swp05555.mxlo.gz"});
  EXPECT_EQ(mast.Query(At(284.3790833, 16.8943333)), std::vector<json>{});
  EXPECT_EQ(urls(mast.Query(At(279.2368333, -28.9277222))),
            std::vector<std::string>{download +
                                     "mast:HST/product/odcv01010_x1d.fits"});
  EXPECT_EQ(replay.unmatched(), std::vector<std::string>{});
  EXPECT_TRUE(clock.sleeps.empty());
}

}  // namespace
}  // namespace mast_test
}  // namespace novacat::sources
