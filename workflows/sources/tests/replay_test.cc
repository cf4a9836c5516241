#include "novacat/sources/replay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "novacat/domain/failure.h"
#include "novacat/runtime/errors.h"
#include "novacat/sources/http.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace replay_test {
namespace {

namespace fs = std::filesystem;

class ReplayServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "simbad");
    fs::create_directories(root_ / "mast");
  }
  void Write(const fs::path& file, const std::string& text) {
    std::ofstream(root_ / file, std::ios::binary) << text;
  }
  HttpReply Ask(const ReplayServer& server, std::string service,
                HttpRequest request) {
    Service s;
    s.name = service;
    s.base_url = server.BaseUrl(service);
    HttpClient client(s);
    return client.Send(request);
  }
  testing_util::TempFolder folder_;
  const fs::path root_ = folder_.path();
};

TEST_F(ReplayServerTest, AnswersTheRecordedExchangeInOrder) {
  Write("simbad/v1500.xml", "<VOTABLE/>");
  Write("simbad/recordings.json", R"({
    "format": "novacat.recordings/1", "service": "simbad",
    "exchanges": [
      {"request": {"method": "POST", "path": "/sync",
                   "params": {"QUERY": "SELECT 1", "FORMAT": "votable"}},
       "responses": [
         {"status": 503, "headers": {"Retry-After": "120"}, "body": "busy"},
         {"status": 200, "headers": {"Content-Type": "application/x-votable+xml"},
          "body_file": "v1500.xml"}]}]})");
  Write("mast/recordings.json", R"({
    "format": "novacat.recordings/1", "service": "mast",
    "exchanges": [
      {"request": {"method": "POST", "path": "/invoke",
                   "params": {"request": {"service": "Mast.Caom.Cone", "params": {"ra": 1}}}},
       "responses": [{"status": 200, "body": "cone"}]},
      {"request": {"method": "POST", "path": "/json", "json": {"a": [1, 2]}},
       "responses": [{"status": 200, "body": "json"}]}]})");
  ReplayServer server(root_);
  HttpRequest sync;
  sync.method = "POST";
  sync.path = "/sync";
  sync.params = {{"FORMAT", "votable"}, {"QUERY", "SELECT 1"}};
  HttpReply first = Ask(server, "simbad", sync);
  EXPECT_EQ(first.status, 503);
  EXPECT_EQ(first.Header("retry-after"), "120");
  EXPECT_EQ(first.body, "busy");
  for (int i = 0; i < 2; ++i) {  // the last response repeats
    HttpReply next = Ask(server, "simbad", sync);
    EXPECT_EQ(next.status, 200);
    EXPECT_EQ(next.Header("content-type"), "application/x-votable+xml");
    EXPECT_EQ(next.body, "<VOTABLE/>");
  }
  HttpRequest cone;
  cone.method = "POST";
  cone.path = "/invoke";
  cone.params = {
      {"request", R"({"params":{"ra":1.0},"service":"Mast.Caom.Cone"})"}};
  EXPECT_EQ(Ask(server, "mast", cone).body, "cone");
  HttpRequest json;
  json.method = "POST";
  json.path = "/json";
  json.body = R"({"a":[1,2]})";
  json.content_type = "application/json";
  EXPECT_EQ(Ask(server, "mast", json).body, "json");
  EXPECT_TRUE(server.unmatched().empty());
}

TEST_F(ReplayServerTest, AnUnmatchedRequestIs404NamingIt) {
  Write("simbad/recordings.json", R"({"format": "novacat.recordings/1",
    "service": "simbad", "exchanges": [
      {"request": {"path": "/sync", "params": {"QUERY": "SELECT 1"}},
       "responses": [{"status": 200, "body": "x"}]}]})");
  ReplayServer server(root_);
  HttpRequest other;
  other.path = "/sync";
  other.params = {{"QUERY", "SELECT 2"}};
  HttpReply reply = Ask(server, "simbad", other);
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.body, "no recording for GET /simbad/sync QUERY=SELECT 2");
  HttpRequest extra = other;
  extra.params = {{"QUERY", "SELECT 1"}, {"MAXREC", "10"}};
  EXPECT_EQ(Ask(server, "simbad", extra).status, 404);
  EXPECT_EQ(Ask(server, "vsx", HttpRequest{}).status, 404);
  EXPECT_EQ(server.unmatched(),
            (std::vector<std::string>{
                "no recording for GET /simbad/sync QUERY=SELECT 2",
                "no recording for GET /simbad/sync MAXREC=10 QUERY=SELECT 1",
                "no recording for GET /vsx"}));
}

TEST_F(ReplayServerTest, ABrokenRecordingNamesItsFileAndMember) {
  Write("simbad/recordings.json", R"({"format": "novacat.recordings/1",
    "service": "simbad", "exchanges": [{"request": {}, "responses": []}]})");
  EXPECT_THAT([&] { ReplayServer server(root_); },
              ::testing::ThrowsMessage<runtime::TerminalError>(::testing::StrEq(
                  (root_ / "simbad/recordings.json").generic_string() +
                  ": exchanges[0].responses must be a non-empty array")));
  Write("simbad/recordings.json", R"({"format": "novacat.recordings/2"})");
  EXPECT_THAT([&] { ReplayServer server(root_); },
              ::testing::ThrowsMessage<runtime::TerminalError>(::testing::StrEq(
                  (root_ / "simbad/recordings.json").generic_string() +
                  ": format must be \"novacat.recordings/1\"")));
  EXPECT_THAT([&] { ReplayServer server(root_ / "none"); },
              ::testing::ThrowsMessage<runtime::TerminalError>(::testing::StrEq(
                  "the recordings folder " + (root_ / "none").generic_string() +
                  " does not exist")));
}

}  // namespace
}  // namespace replay_test
}  // namespace novacat::sources
