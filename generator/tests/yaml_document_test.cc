// yaml::Document (libyaml) must answer every question the spec loader asks
// exactly as yaml-cpp does: the loader's diagnostics (types, tags, marks,
// syntax error texts) were written against yaml-cpp. These tests compare
// the two parsers node by node on every YAML file of the repository and on
// the corner cases a spec author can write.
#include "load/yaml_document.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace novacat::yaml {
namespace yaml_document_test {
namespace {

const char* TypeName(NodeType type) {
  switch (type) {
    case NodeType::Undefined:
      return "undefined";
    case NodeType::Null:
      return "null";
    case NodeType::Scalar:
      return "scalar";
    case NodeType::Sequence:
      return "sequence";
    case NodeType::Map:
      return "map";
  }
  return "?";
}

NodeType TypeOf(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
      return NodeType::Undefined;
    case YAML::NodeType::Null:
      return NodeType::Null;
    case YAML::NodeType::Scalar:
      return NodeType::Scalar;
    case YAML::NodeType::Sequence:
      return NodeType::Sequence;
    case YAML::NodeType::Map:
      return NodeType::Map;
  }
  return NodeType::Undefined;
}

// One line per node, depth first: path, type, tag, mark, size and text; the
// two parsers agree when their dumps are equal.
void Dump(const YAML::Node& node, const std::string& path, std::ostream& out) {
  out << path << " " << TypeName(TypeOf(node)) << " tag=" << node.Tag()
      << " at=" << node.Mark().line << ":" << node.Mark().column
      << " size=" << node.size();
  if (node.IsScalar()) out << " '" << node.Scalar() << "'";
  out << "\n";
  if (node.IsSequence()) {
    int i = 0;
    for (const auto& item : node)
      Dump(item, path + "/" + std::to_string(i++), out);
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      Dump(it->first, path + "/key", out);
      Dump(it->second, path + "/" + it->first.Scalar(), out);
    }
  }
}

void Dump(const Node& node, const std::string& path, std::ostream& out) {
  out << path << " " << TypeName(node.Type()) << " tag=" << node.Tag()
      << " at=" << node.GetMark().line << ":" << node.GetMark().column
      << " size=" << node.size();
  if (node.IsScalar()) out << " '" << node.Scalar() << "'";
  out << "\n";
  if (node.IsSequence()) {
    int i = 0;
    for (const Node item : node)
      Dump(item, path + "/" + std::to_string(i++), out);
  } else if (node.IsMap()) {
    for (const auto& [key, value] : node.Entries()) {
      Dump(key, path + "/key", out);
      Dump(value, path + "/" + key.Scalar(), out);
    }
  }
}

// yaml-cpp's reading of `text`: the dump, or its syntax error.
std::string ReferenceReading(const std::string& text) {
  std::ostringstream out;
  try {
    Dump(YAML::Load(text), "", out);
  } catch (const YAML::Exception& e) {
    out << "error at=" << e.mark.line << ":" << e.mark.column << " " << e.msg
        << "\n";
  }
  return out.str();
}

std::string Reading(const std::string& text) {
  std::ostringstream out;
  Document document = Document::Parse(text);
  if (const SyntaxError* e = document.error()) {
    out << "error at=" << e->mark.line << ":" << e->mark.column << " "
        << e->message << "\n";
  } else {
    Dump(document.root(), "", out);
  }
  return out.str();
}

// The first line where the two readings differ, not the whole dumps.
void ExpectSameReading(const std::string& text, const std::string& what) {
  std::istringstream ours(Reading(text)), reference(ReferenceReading(text));
  std::string a, b;
  int line = 1;
  for (;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(ours, a));
    const bool more_b = static_cast<bool>(std::getline(reference, b));
    if (!more_a && !more_b) return;
    if (!more_a) a = "(end)";
    if (!more_b) b = "(end)";
    if (a != b) break;
  }
  ADD_FAILURE() << what << ": line " << line << " of the readings differs\n"
                << "  libyaml:  " << a << "\n  yaml-cpp: " << b;
}

TEST(YamlDocumentTest, ReadsEveryYamlFileOfTheRepositoryAsYamlCppDoes) {
  // The tests run from the source root.
  int files = 0;
  for (const char* dir : {"specs", "tests", "docs"}) {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(dir)) {
      const std::string path = entry.path().generic_string();
      if (path.find("node_modules") != std::string::npos) continue;
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".yaml" && ext != ".yml"))
        continue;
      std::ifstream in(path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      ExpectSameReading(text.str(), path);
      ++files;
    }
  }
  // specs/, the malformed corpus and the other fixtures: more than 100.
  EXPECT_GT(files, 100);
}

bool IsUtf8(const std::string& text) {
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t length = c < 0x80         ? 1
                          : (c >> 5) == 6  ? 2
                          : (c >> 4) == 14 ? 3
                          : (c >> 3) == 30 ? 4
                                           : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80)
        return false;
    i += length;
  }
  return true;
}

// Texts no one wrote on purpose: the specs, each edited a few times at
// random (a fixed seed, so a failure repeats) with the characters YAML
// gives meaning to. Both parsers must read each the same, or fail with the
// same error. (Run with 100,000 edits, the only texts read differently were
// the two kinds YamlDocumentTest.FollowsTheYamlSpecWhereYamlCppDoesNot
// shows.)
TEST(YamlDocumentTest, ReadsEditedSpecsAsYamlCppDoes) {
  std::vector<std::string> texts;
  for (const auto& entry : std::filesystem::directory_iterator("specs")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  ASSERT_FALSE(texts.empty());
  const std::vector<std::string> snippets = {
      ":",     ": ",    "- ", "-",  "{",   "}",   "[",      "]",
      ",",     "\"",    "'",  "#",  "&a ", "*a",  "!!str ", "!t ",
      "? ",    "\t",    "\n", "  ", "|\n", ">\n", "~",      "null",
      "---\n", "...\n", "\\", "%",  "@",   "`",   "\n- ",   "\n  "};
  std::mt19937 random(20261127);
  auto below = [&](size_t n) {
    return std::uniform_int_distribution<size_t>(0, n - 1)(random);
  };
  int differing = 0;
  for (int i = 0; i < 1500 && differing < 5; ++i) {
    std::string text = texts[below(texts.size())];
    const size_t edits = 1 + below(3);
    for (size_t e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = below(text.size());
      switch (below(3)) {
        case 0:
          text.erase(at, 1 + below(8));
          break;
        case 1:
          text.insert(at, snippets[below(snippets.size())]);
          break;
        default:
          text[at] = snippets[below(snippets.size())][0];
      }
    }
    // The loader refuses a text that is not UTF-8 before parsing it.
    if (!IsUtf8(text)) continue;
    const std::string ours = Reading(text), reference = ReferenceReading(text);
    if (ours != reference) {
      ++differing;
      ExpectSameReading(text, "edit " + std::to_string(i));
    }
  }
  EXPECT_EQ(differing, 0);
}

// Where yaml-cpp departs from the YAML spec, the loader now reads what the
// spec says: yaml-cpp writes the escapes \_ and \N as single bytes (not
// UTF-8) and rejects a tagged plain scalar that continues on lines starting
// with "- ".
TEST(YamlDocumentTest, FollowsTheYamlSpecWhereYamlCppDoesNot) {
  EXPECT_EQ(Reading("a: \"x\\_y\\Nz\"\n"),
            " map tag=? at=0:0 size=1\n"
            "/key scalar tag=? at=0:0 size=0 'a'\n"
            "/a scalar tag=! at=0:3 size=0 'x\xc2\xa0y\xc2\x85z'\n");
  EXPECT_EQ(ReferenceReading("a: \"x\\_y\\Nz\"\n"),
            " map tag=? at=0:0 size=1\n"
            "/key scalar tag=? at=0:0 size=0 'a'\n"
            "/a scalar tag=! at=0:3 size=0 'x\xa0y\x85z'\n");
  const std::string tagged = "p:\n  ! a\n  - b\n";
  EXPECT_EQ(Reading(tagged),
            " map tag=? at=0:0 size=1\n"
            "/key scalar tag=? at=0:0 size=0 'p'\n"
            "/p scalar tag=! at=1:2 size=0 'a - b'\n");
  EXPECT_EQ(ReferenceReading(tagged), "error at=2:2 end of map not found\n");
}

class YamlCornerCase : public ::testing::TestWithParam<const char*> {};

TEST_P(YamlCornerCase, ReadsAsYamlCppDoes) {
  ExpectSameReading(GetParam(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Texts, YamlCornerCase,
    ::testing::Values(
        // Empty documents.
        "", "# only a comment\n", "---\n", "---\n...\n", "~\n",
        // Nulls: plain ones only; a quoted "null" is a string.
        "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: 'null'\ng: \"~\"\nh: nil\n",
        "a:\n", "a:\nb: 1\n", "a:\n  b:\n", "a:\n  b:\nc: 1\n", "- \n- x\n-\n",
        "a:\n  - \n  -\n", "[a, , b]\n", "{a: , b: }\n", "{a, b: 1}\n", "? a\n",
        "? a\n: b\n", "a:\n? b\n: c\n", "a:\n&x b: c\n", "a:\n!t b: c\n",
        "a:\n  b:\n  ? c\n", "a: [b, {c: }]\nd:\n",
        // '?' in flow collections, and anchor names yaml-cpp reads longer.
        "{?a: b}\n", "[?a, b]\n", "[a?b]\n", "{a: b?}\n", "{? a: b}\n",
        "a: &x: 1\n", "a: &x:y 1\nb: *x:y\n", "a: [&x 1, *x]\n",
        "a: \"caf\xc3\xa9\"\nb: &x 1\nc: *x\n",
        // The same after multi-byte characters (libyaml's marks count
        // characters; the text is read in bytes).
        "a: \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nb: {c: d, ?e: "
        "f}\n",
        "a: \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\nb: &x:y 1\nc: "
        "*x:y\n",
        // After the first document.
        "a: 1\n...\nb\n", "a: 1\n...\n", "a\n: b\n",
        "a:\n  b: 1\n...\n  c: 2\n", "a:\n  b: 1\n...\nc: 2\n",
        "a: 1\n---\nb: [\n", "a: 1\n--- x\n",
        "a:\n  b: >-\n    x\n...\n    y\n  c: 1\n",
        // Scalars: styles and the tags they carry.
        "a: 'single'\nb: \"double\\tescaped\"\nc: plain text\nd: 10s\ne: "
        "1.5\nf: true\n",
        "a: |\n  literal\n  text\nb: >\n  folded\n  text\nc: |-\n  kept\n",
        "a: !!str 10\nb: !custom x\nc: ! y\nd: !!int '3'\n",
        "a: \"multi\n  line\"\nb: plain\n  continued\n",
        // Collections, flow and block, tagged and anchored.
        "a: [1, [2, 3], {b: c}]\nd: {e: [f]}\n",
        "a:\n- 1\n- 2\nb:\n  - x: 1\n    y: 2\n  - z\n",
        "a: &anchor\n  b: 1\nc: *anchor\nd: &s text\ne: *s\n",
        "a: !!map {b: 1}\nc: !!seq [d]\n",
        // Duplicate and non-scalar keys, kept in order.
        "a: 1\na: 2\nb: 3\n", "[x]: 1\n{y: z}: 2\n",
        // Documents after the first are not read.
        "a: 1\n---\nb: 2\n", "--- a\n--- b\n",
        // Unicode and BOM.
        "\xef\xbb\xbf"
        "a: caf\xc3\xa9\n",
        "a: \"\\u00e9\\U0001F600\"\n",
        // Syntax errors: yaml-cpp's messages and marks.
        "a: b: c\n", "a:\n\tb: 1\n", "a: [1, 2\n", "a: {b: 1\n", "a: 'open\n",
        "a: \"bad \\q escape\"\n", "- a\nb: c\n", "a: *missing\n",
        "a: 1\n b: 2\n", "key: value\n  - item\n"));

}  // namespace
}  // namespace yaml_document_test
}  // namespace novacat::yaml
