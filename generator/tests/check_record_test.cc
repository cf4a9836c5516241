#include "support/check_record.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace novacat {
namespace check_record_test {
namespace {

namespace fs = std::filesystem;

class CheckRecordTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("novacat_check_record_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "out");
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string At(const std::string& rel) const { return (dir_ / rel).string(); }
  void Put(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ / rel, std::ios::binary) << text;
  }

  // A record of a check that read `spec` and compared out/a.json.
  CheckRecord SavedRecord(const std::string& build_ids = "ab01") {
    Put("spec.yaml", "workflow: w\n");
    Put("out/a.json", "{}\n");
    RecordingReader reads(DiskFileReader());
    EXPECT_EQ(reads.reader()(At("spec.yaml")), "workflow: w\n");
    EXPECT_EQ(reads.reader()(At("shared.yaml")), std::nullopt);
    CheckRecord record = *CheckRecord::For(At("cache"), build_ids, "1.0",
                                           At("out"), {At("spec.yaml")});
    record.Save(reads.reads(), {{"a.json", "{}\n"}});
    return record;
  }

  fs::path dir_;
};

TEST_F(CheckRecordTest, AFileIsFingerprintedAsItsBytes) {
  std::string big(200 * 1024, 'x');  // more than one 64 KiB chunk
  big[150 * 1024] = 'y';
  Put("big", big);
  const std::string fingerprint = FingerprintOf(big);
  EXPECT_EQ(fingerprint.size(), 32u);
  EXPECT_EQ(fingerprint.find_first_not_of("0123456789abcdef"),
            std::string::npos);
  EXPECT_EQ(FingerprintOfFile(At("big")), fingerprint);
  big[150 * 1024] = 'x';
  EXPECT_NE(FingerprintOf(big), fingerprint);
  EXPECT_EQ(FingerprintOfFile(At("missing")), std::nullopt);
  EXPECT_EQ(FingerprintOfFile(At("out")), std::nullopt);  // a folder
}

TEST_F(CheckRecordTest, TheReaderRecordsWhatItReadAndWhatWasAbsent) {
  Put("a", "one");
  RecordingReader reads(DiskFileReader());
  EXPECT_EQ(reads.reader()(At("a")), "one");
  EXPECT_EQ(reads.reader()(At("b")), std::nullopt);
  EXPECT_EQ(reads.reader()(At("a")), "one");
  EXPECT_EQ(reads.reads(), (InputFingerprints{{At("a"), FingerprintOf("one")},
                                              {At("b"), std::nullopt}}));
  EXPECT_TRUE(reads.consistent());
  Put("a", "two");  // read again, changed meanwhile
  EXPECT_EQ(reads.reader()(At("a")), "two");
  EXPECT_FALSE(reads.consistent());
}

TEST_F(CheckRecordTest, NoRecordWithoutACacheFolderOrBuildIds) {
  EXPECT_FALSE(CheckRecord::For("", "ab01", "1.0", "out", {"a.yaml"}));
  // What ProgramBuildIds says of a program with an object without one.
  EXPECT_FALSE(CheckRecord::For(At("cache"), "", "1.0", "out", {"a.yaml"}));
  EXPECT_TRUE(CheckRecord::For(At("cache"), "ab01", "1.0", "out", {"a.yaml"}));
}

TEST_F(CheckRecordTest, HoldsWhileNothingItNamesChanged) {
  const CheckRecord record = SavedRecord();
  EXPECT_EQ(fs::path(record.path()).parent_path(), dir_ / "cache");
  std::optional<CheckRecord::Held> held = record.Holds();
  ASSERT_TRUE(held);
  EXPECT_EQ(held->compared, 1u);
  EXPECT_EQ(held->inputs, (InputFingerprints{
                              {At("spec.yaml"), FingerprintOf("workflow: w\n")},
                              {At("shared.yaml"), std::nullopt}}));
  Put("spec.yaml", "workflow: v\n");
  EXPECT_FALSE(record.Holds());
  Put("spec.yaml", "workflow: w\n");
  EXPECT_TRUE(record.Holds());
  Put("shared.yaml", "");  // was absent
  EXPECT_FALSE(record.Holds());
  fs::remove(dir_ / "shared.yaml");
  Put("out/a.json", "{ }\n");
  EXPECT_FALSE(record.Holds());
  fs::remove(dir_ / "out/a.json");
  EXPECT_FALSE(record.Holds());
}

TEST_F(CheckRecordTest, HoldsOnlyForTheSameGeneratorFolderAndSpecs) {
  SavedRecord("ab01");
  auto holds = [&](const std::string& build_ids, const std::string& version,
                   const std::vector<std::string>& specs) {
    return CheckRecord::For(At("cache"), build_ids, version, At("out"), specs)
        ->Holds()
        .has_value();
  };
  EXPECT_TRUE(holds("ab01", "1.0", {At("spec.yaml")}));
  EXPECT_FALSE(holds("ab02", "1.0", {At("spec.yaml")}));
  EXPECT_FALSE(holds("ab01", "1.1", {At("spec.yaml")}));
  EXPECT_FALSE(holds("ab01", "1.0", {At("spec.yaml"), At("spec.yaml")}));
}

TEST_F(CheckRecordTest, AFolderWhereAnAbsentInputWasIsAChange) {
  const CheckRecord record = SavedRecord();
  fs::create_directories(dir_ / "shared.yaml");
  EXPECT_FALSE(record.Holds());
}

TEST_F(CheckRecordTest, ABrokenRecordIsNoRecord) {
  const CheckRecord record = SavedRecord();
  for (const char* text : {"", "{", "[]", "{\"format\": 1}", "null"}) {
    std::ofstream(record.path(), std::ios::trunc) << text;
    EXPECT_FALSE(record.Holds()) << text;
  }
}

TEST_F(CheckRecordTest, TheProgramHasABuildIdentity) {
  const std::string ids = ProgramBuildIds();
  ASSERT_FALSE(ids.empty());
  EXPECT_EQ(ids.find_first_not_of("0123456789abcdef,"), std::string::npos);
  EXPECT_EQ(ProgramBuildIds(), ids);
}

}  // namespace
}  // namespace check_record_test
}  // namespace novacat
