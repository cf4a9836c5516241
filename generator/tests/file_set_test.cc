#include "support/file_set.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace novacat {
namespace file_set_test {
namespace {

namespace fs = std::filesystem;

class FileSetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("novacat_file_set_" +
         std::string(
             ::testing::UnitTest::GetInstance()->current_test_info()->name()) +
         "_" + std::to_string(::getpid()));  // two test runs at once apart
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Read(const std::string& rel) {
    std::ifstream in(dir_ / rel);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void Put(const std::string& rel, const std::string& text) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel) << text;
  }

  fs::path dir_;
};

TEST_F(FileSetTest, WritesFilesAndManifestThenReportsUnchanged) {
  FileSet files;
  files.Add("w/a.json", "{}\n", "w");
  SyncReport first = WriteFiles(files, dir_.string());
  EXPECT_TRUE(first.errors.empty());
  EXPECT_EQ(first.written, std::vector<std::string>{"w/a.json"});
  EXPECT_EQ(Read("w/a.json"), "{}\n");
  EXPECT_EQ(Read("MANIFEST"),
            "# Files written by novacat-gen; it replaces or deletes only "
            "these (frozen: kept, never rewritten).\nw/a.json\tw\n");
  SyncReport second = WriteFiles(files, dir_.string());
  EXPECT_TRUE(second.written.empty());
  EXPECT_EQ(second.unchanged, std::vector<std::string>{"w/a.json"});
  EXPECT_EQ(CheckFiles(files, dir_.string()).stale, 0);
}

TEST_F(FileSetTest, RemovesOrphansListedInTheManifestOnly) {
  FileSet old_files;
  old_files.Add("gone/a.json", "1\n", "gone");
  old_files.Add("kept/b.json", "2\n", "kept");
  WriteFiles(old_files, dir_.string());
  Put("kept/notes.md", "written by a person\n");
  FileSet files;
  files.Add("kept/b.json", "2\n", "kept");
  CheckReport check = CheckFiles(files, dir_.string());
  EXPECT_EQ(check.stale, 2);  // the orphan and the manifest
  EXPECT_EQ(check.diff,
            "--- a/MANIFEST\n+++ b/MANIFEST\n"
            "@@ -1,3 +1,2 @@\n"
            " # Files written by novacat-gen; it replaces or deletes only "
            "these (frozen: kept, never rewritten).\n"
            "-gone/a.json\tgone\n"
            " kept/b.json\tkept\n"
            "--- a/gone/a.json\n+++ /dev/null\n"
            "@@ -1,1 +0,0 @@\n"
            "-1\n");
  // Without prune, another workflow's files are left alone.
  EXPECT_TRUE(WriteFiles(files, dir_.string()).removed.empty());
  EXPECT_EQ(Read("gone/a.json"), "1\n");
  SyncReport report = WriteFiles(files, dir_.string(), /*prune=*/true);
  EXPECT_EQ(report.removed, std::vector<std::string>{"gone/a.json"});
  EXPECT_FALSE(fs::exists(dir_ / "gone"));
  EXPECT_EQ(Read("kept/notes.md"), "written by a person\n");
}

TEST_F(FileSetTest, RefusesToOverwriteAFileNotInTheManifest) {
  Put("w/a.json", "hand written\n");
  FileSet files;
  files.Add("w/a.json", "{}\n", "w");
  files.Add("w/b.json", "{}\n", "w");
  SyncReport report = WriteFiles(files, dir_.string());
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0],
            (dir_ / "w/a.json").generic_string() +
                " exists and was not written by novacat-gen (it is not in " +
                (dir_ / "MANIFEST").generic_string() +
                "); move it away or delete it");
  EXPECT_EQ(Read("w/a.json"), "hand written\n");
  EXPECT_FALSE(fs::exists(dir_ / "w/b.json"));
  EXPECT_FALSE(fs::exists(dir_ / "MANIFEST"));
}

TEST_F(FileSetTest, CheckPrintsUnifiedDiffOfChangedAndMissingFiles) {
  FileSet files;
  files.Add("w/a.json", "{\n  \"x\": 1\n}\n", "w");
  WriteFiles(files, dir_.string());
  FileSet changed;
  changed.Add("w/a.json", "{\n  \"x\": 2\n}\n", "w");
  changed.Add("w/new.json", "{}\n", "w");
  CheckReport check = CheckFiles(changed, dir_.string());
  EXPECT_EQ(check.stale, 3);
  EXPECT_EQ(check.diff,
            "--- a/MANIFEST\n+++ b/MANIFEST\n"
            "@@ -1,2 +1,3 @@\n"
            " # Files written by novacat-gen; it replaces or deletes only "
            "these (frozen: kept, never rewritten).\n"
            " w/a.json\tw\n"
            "+w/new.json\tw\n"
            "--- a/w/a.json\n+++ b/w/a.json\n"
            "@@ -1,3 +1,3 @@\n"
            " {\n"
            "-  \"x\": 1\n"
            "+  \"x\": 2\n"
            " }\n"
            "--- /dev/null\n+++ b/w/new.json\n"
            "@@ -0,0 +1,1 @@\n"
            "+{}\n");
  // --check wrote nothing.
  EXPECT_EQ(Read("w/a.json"), "{\n  \"x\": 1\n}\n");
  EXPECT_FALSE(fs::exists(dir_ / "w/new.json"));
}

// CheckFiles compares each file in chunks as it reads it: every byte
// counts, past the first chunk too, and so does the length.
TEST_F(FileSetTest, CheckComparesEveryByteAndTheLength) {
  const std::string big(200 * 1024, 'x');  // a few chunks
  FileSet files;
  files.Add("w/same.txt", big, "w");
  files.Add("w/last_byte.txt", big + "a", "w");
  files.Add("w/shorter.txt", big + "tail", "w");
  files.Add("w/longer.txt", big, "w");
  files.Add("w/empty.txt", "", "w");
  WriteFiles(files, dir_.string());
  Put("w/last_byte.txt", big + "b");
  Put("w/shorter.txt", big + "tai");
  Put("w/longer.txt", big + "\n");
  EXPECT_EQ(CheckFiles(files, dir_.string()).findings,
            (std::vector<std::pair<std::string, std::string>>{
                {"w/last_byte.txt", "out of date"},
                {"w/longer.txt", "out of date"},
                {"w/shorter.txt", "out of date"}}));
  fs::remove(dir_ / "w/empty.txt");
  fs::create_directories(dir_ / "w/empty.txt");  // a folder is no file
  EXPECT_EQ(CheckFiles(files, dir_.string()).findings.size(), 4u);
}

TEST_F(FileSetTest, RemovesAWorkflowsOwnOrphansAndKeepsFrozenVersions) {
  FileSet v1;
  v1.Add("w/a.json", "a\n", "w");
  v1.Add("schemas/e/v1.json", "1\n", "w");
  v1.Add("w/old.json", "old\n", "w");
  WriteFiles(v1, dir_.string());
  FileSet v2;
  v2.Add("w/a.json", "a\n", "w");
  v2.Add("schemas/e/v2.json", "2\n", "w");
  v2.Keep("schemas/e/v1.json", "w");
  SyncReport report = WriteFiles(v2, dir_.string());
  EXPECT_EQ(report.removed, std::vector<std::string>{"w/old.json"});
  EXPECT_EQ(Read("schemas/e/v1.json"), "1\n");
  EXPECT_EQ(Read("MANIFEST"),
            "# Files written by novacat-gen; it replaces or deletes only "
            "these (frozen: kept, never rewritten).\n"
            "schemas/e/v1.json\tw\tfrozen\n"
            "schemas/e/v2.json\tw\n"
            "w/a.json\tw\n");
  EXPECT_EQ(CheckFiles(v2, dir_.string()).stale, 0);
  // A second add at the same path must agree.
  EXPECT_TRUE(v2.Add("w/a.json", "a\n", "w"));
  EXPECT_FALSE(v2.Add("w/a.json", "b\n", "x"));
}

// A run that stops after writing some files (here: the second file's
// folder is a file, so its write fails) leaves a manifest that claims
// every file it meant to write: the next run, the obstacle gone, completes
// the folder instead of refusing the first file as a person's.
TEST_F(FileSetTest, ARunInterruptedMidwayIsCompletedByTheNext) {
  FileSet files;
  files.Add("w/a.json", "1\n", "w");
  files.Add("w2/b.json", "2\n", "w");
  Put("w2", "in the way");
  const SyncReport interrupted = WriteFiles(files, dir_.string());
  EXPECT_EQ(interrupted.written, std::vector<std::string>{"w/a.json"});
  ASSERT_EQ(interrupted.errors.size(), 1u);
  EXPECT_EQ(Read("MANIFEST"),
            "# Files written by novacat-gen; it replaces or deletes only "
            "these (frozen: kept, never rewritten).\nw/a.json\tw\n"
            "w2/b.json\tw\n");
  fs::remove(dir_ / "w2");
  const SyncReport completed = WriteFiles(files, dir_.string());
  EXPECT_EQ(completed.errors, std::vector<std::string>{});
  EXPECT_EQ(completed.written, std::vector<std::string>{"w2/b.json"});
  EXPECT_EQ(completed.unchanged, std::vector<std::string>{"w/a.json"});
  EXPECT_EQ(CheckFiles(files, dir_.string()).stale, 0);
}

// A temporary file a killed run left ("<file>.tmp.<pid>") is stale for
// --check, and the next run removes it.
TEST_F(FileSetTest, TemporaryFilesOfAKilledRunAreReportedThenRemoved) {
  FileSet files;
  files.Add("w/a.json", "1\n", "w");
  ASSERT_TRUE(WriteFiles(files, dir_.string()).errors.empty());
  Put("w/a.json.tmp.4242", "half");
  Put("w/a.json.tmp.notapid", "a person's");
  const CheckReport check = CheckFiles(files, dir_.string());
  EXPECT_EQ(check.stale, 1);
  EXPECT_EQ(
      check.findings,
      (std::vector<std::pair<std::string, std::string>>{
          {"w/a.json.tmp.4242", "a temporary file of an interrupted run"}}));
  EXPECT_EQ(check.diff, "Only in " + dir_.string() +
                            ": w/a.json.tmp.4242 (a temporary file of an "
                            "interrupted run; novacat-gen removes it)\n");
  const SyncReport cleaned = WriteFiles(files, dir_.string());
  EXPECT_EQ(cleaned.removed, std::vector<std::string>{"w/a.json.tmp.4242"});
  EXPECT_FALSE(fs::exists(dir_ / "w/a.json.tmp.4242"));
  EXPECT_TRUE(fs::exists(dir_ / "w/a.json.tmp.notapid"));
  EXPECT_EQ(CheckFiles(files, dir_.string()).stale, 0);
}

}  // namespace
}  // namespace file_set_test
}  // namespace novacat
