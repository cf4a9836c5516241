// Golden test of the diagnostics for the malformed-spec corpus.
//
// Every tests/malformed/<name>.yaml is loaded and checked as novacat-gen
// does (LoadAndCheck with the disk reader), and the rendered diagnostics
// (DiagnosticSink::FormatAll) must equal tests/malformed/<name>.expected byte
// for byte: file:line:col, message, rule id, quoted line and caret. There is
// one test per spec, MalformedCorpus/MalformedSpecTest.Diagnostics/<name>
// (non-alphanumeric characters of the file name become '_'), so ctest lists
// each file. valid-minimal.yaml is the valid baseline (empty .expected);
// every other spec breaks one thing of it and must produce an error.
//
// Run it from the repository root (ctest does): the diagnostics name files
// relative to it, as a developer in the repository sees them.
//
// Updating the goldens: run with NOVACAT_UPDATE_GOLDEN=1, e.g.
//   NOVACAT_UPDATE_GOLDEN=1 ctest --test-dir build -R MalformedCorpus
// rewrites (or creates) every .expected from the current output instead of
// comparing. Review the diff by hand before committing: the caret must be
// under the token a developer has to change and the message must be right.
//
// Known generator bugs: a <name>.known-bug file beside a spec describes a
// bug, and that spec's .expected holds the *correct* output, written by hand.
// The test is skipped (with the description) while the output still
// differs, and fails once the output matches, so that the marker is deleted
// when the bug is fixed. NOVACAT_UPDATE_GOLDEN never rewrites their
// .expected.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "compiler.h"
#include "load/spec_loader.h"

namespace malformed_corpus_test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCorpusDir = "tests/malformed";
constexpr const char* kValidSpec = "tests/malformed/valid-minimal.yaml";
constexpr size_t kMinimumSpecs = 36;

bool UpdateGolden() {
  const char* value = std::getenv("NOVACAT_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

// Files of the corpus with extension `ext`, sorted; empty when the folder
// is missing (not run from the repository root).
std::vector<std::string> ListCorpus(const std::string& ext) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kCorpusDir, ec)) {
    if (entry.is_regular_file(ec) && entry.path().extension() == ext)
      paths.push_back(entry.path().generic_string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<std::string> ListSpecs() { return ListCorpus(".yaml"); }

std::string WithExtension(const std::string& path, const char* ext) {
  return fs::path(path).replace_extension(ext).generic_string();
}

std::optional<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

std::string TestName(const testing::TestParamInfo<std::string>& info) {
  std::string name = fs::path(info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class MalformedSpecTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MalformedSpecTest, Diagnostics) {
  const std::string& spec = GetParam();
  const std::string expected_path = WithExtension(spec, ".expected");
  const std::string known_bug_path = WithExtension(spec, ".known-bug");

  novacat::DiagnosticSink sink;
  novacat::LoadAndCheck({spec}, novacat::DiskFileReader(), sink);
  const std::string actual = sink.FormatAll();

  if (spec != kValidSpec) {
    // Warning rules (retry-budget) are covered by specs that only warn.
    EXPECT_FALSE(sink.diagnostics().empty())
        << spec << " reports nothing; every malformed spec must";
  }

  const std::optional<std::string> known_bug = ReadFile(known_bug_path);
  if (UpdateGolden()) {
    if (known_bug) {
      GTEST_SKIP() << expected_path << " is hand-written (" << known_bug_path
                   << "); not rewritten";
    }
    ASSERT_TRUE(WriteFile(expected_path, actual))
        << "cannot write " << expected_path;
    return;
  }

  const std::optional<std::string> expected = ReadFile(expected_path);
  ASSERT_TRUE(expected.has_value())
      << "missing " << expected_path
      << "; create it with NOVACAT_UPDATE_GOLDEN=1 and review it";
  if (known_bug) {
    if (actual == *expected) {
      FAIL() << "the generator bug described in " << known_bug_path
             << " looks fixed (the output now matches " << expected_path
             << "); delete " << known_bug_path;
    }
    GTEST_SKIP() << "known generator bug (" << known_bug_path << "):\n"
                 << *known_bug << "expected:\n"
                 << *expected << "actual:\n"
                 << actual;
  }
  EXPECT_EQ(*expected, actual)
      << "diagnostics of " << spec << " differ from " << expected_path
      << " (NOVACAT_UPDATE_GOLDEN=1 rewrites it)";
}

INSTANTIATE_TEST_SUITE_P(MalformedCorpus, MalformedSpecTest,
                         ::testing::ValuesIn(ListSpecs()), TestName);

TEST(MalformedCorpus, HasEnoughSpecs) {
  const std::vector<std::string> specs = ListSpecs();
  ASSERT_FALSE(specs.empty())
      << "no spec in " << kCorpusDir << "; run from the repository root";
  EXPECT_GE(specs.size(), kMinimumSpecs);
  EXPECT_NE(std::find(specs.begin(), specs.end(), kValidSpec), specs.end())
      << kValidSpec << " is the baseline the corpus is derived from";
}

// Every .expected and .known-bug belongs to a spec, so a renamed spec does
// not leave a stale golden behind.
TEST(MalformedCorpus, NoOrphanFiles) {
  const std::vector<std::string> specs = ListSpecs();
  for (const char* ext : {".expected", ".known-bug"}) {
    for (const auto& path : ListCorpus(ext)) {
      EXPECT_NE(
          std::find(specs.begin(), specs.end(), WithExtension(path, ".yaml")),
          specs.end())
          << path << " has no spec beside it";
    }
  }
}

}  // namespace
}  // namespace malformed_corpus_test
