// The recorded answers of fixtures/archives/ as a whole: every service's
// recordings load, every file beside them is a body some exchange serves,
// and the README describes every service.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "novacat/sources/replay.h"
#include "sources_test_util.h"

namespace novacat::sources {
namespace recordings_test {
namespace {

namespace fs = std::filesystem;

using testing_util::ReadFixture;

TEST(RecordingsTest, EveryServiceIsRecordedAndEveryBodyServed) {
  const fs::path root = "fixtures/archives";
  std::string readme = ReadFixture(root / "README.md");
  ASSERT_FALSE(readme.empty());
  for (const std::string& service : RecordedServices()) {
    SCOPED_TRACE(service);
    const fs::path folder = root / service;
    EXPECT_NE(readme.find("\n## " + service + "\n"), std::string::npos);
    nlohmann::json doc =
        nlohmann::json::parse(ReadFixture(folder / "recordings.json"));
    std::set<std::string> served;
    for (const nlohmann::json& exchange : doc["exchanges"]) {
      for (const nlohmann::json& response : exchange["responses"]) {
        if (response.contains("body_file"))
          served.insert(response["body_file"].get<std::string>());
      }
    }
    std::set<std::string> present;
    for (const auto& entry : fs::directory_iterator(folder)) {
      std::string name = entry.path().filename().string();
      if (name != "recordings.json") present.insert(name);
    }
    EXPECT_EQ(present, served);
    EXPECT_FALSE(doc["exchanges"].empty());
  }
  // Every recording loads as the replay server reads it.
  EXPECT_NO_THROW(ReplayServer server(root));
}

}  // namespace
}  // namespace recordings_test
}  // namespace novacat::sources
