// yaml::Document is yaml-cpp's tree copied: every question the spec loader
// asks (types, tags, marks, entries with duplicates, syntax errors) has
// yaml-cpp's answer. These tests compare the copy with yaml-cpp's own nodes
// on every YAML file of the repository and on the corner cases a spec
// author can write, and state the answers the loader relies on.
#include "load/yaml_document.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
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
                << "  the copy: " << a << "\n  yaml-cpp: " << b;
}

TEST(YamlDocumentTest, CopiesYamlCppsReadingOfEveryYamlFile) {
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
      // A document over the node limit (the alias bomb) is refused, not
      // copied: yaml-cpp's reading of it, expanded, never ends.
      const Document document = Document::Parse(text.str());
      if (document.error() && document.error()->too_large) continue;
      ExpectSameReading(text.str(), path);
      ++files;
    }
  }
  // specs/, the malformed corpus and the other fixtures: more than 100.
  EXPECT_GT(files, 100);
}

// What the loader relies on, whole: a plain empty value is a null marked at
// the token after it; a quoted "null" is a string (tag "!"); duplicate keys
// are kept in order; only the first document is read; a syntax error is
// yaml-cpp's message at its mark.
TEST(YamlDocumentTest, TheAnswersTheLoaderReliesOn) {
  EXPECT_EQ(Reading("a:\nb: 'null'\na: [x, ~]\n---\nc: 1\n"),
            " map tag=? at=0:0 size=3\n"
            "/key scalar tag=? at=0:0 size=0 'a'\n"
            "/a null tag= at=1:0 size=0\n"
            "/key scalar tag=? at=1:0 size=0 'b'\n"
            "/b scalar tag=! at=1:3 size=0 'null'\n"
            "/key scalar tag=? at=2:0 size=0 'a'\n"
            "/a sequence tag=? at=2:3 size=2\n"
            "/a/0 scalar tag=? at=2:4 size=0 'x'\n"
            "/a/1 null tag= at=2:7 size=0\n");
  EXPECT_EQ(Reading("a: b: c\n"), "error at=0:4 illegal map value\n");
}

class YamlCornerCase : public ::testing::TestWithParam<const char*> {};

TEST_P(YamlCornerCase, CopiesYamlCppsReading) {
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
        // The same after multi-byte characters.
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

// A document of more nodes than the limit, aliases expanded, is refused at
// the root's entry whose value passed it, and keeps no node; one at the
// limit is read whole.
TEST(YamlDocumentTest, RefusesMoreNodesThanTheLimit) {
  // The root, a, 1, b, the sequence: 5 nodes; its two items make 7.
  const std::string text = "a: 1\nb: &s [x, y]\nc: *s\n";
  const Document refused = Document::Parse(text, 6);
  ASSERT_NE(refused.error(), nullptr);
  EXPECT_TRUE(refused.error()->too_large);
  EXPECT_EQ(refused.error()->message, "more than 6 nodes");
  EXPECT_EQ(refused.error()->mark.line, 1);
  EXPECT_EQ(refused.error()->mark.column, 0);
  EXPECT_FALSE(refused.root().IsDefined());
  // c and its alias, a copy of the sequence: 4 more nodes, 11 in all.
  const Document aliased = Document::Parse(text, 10);
  ASSERT_NE(aliased.error(), nullptr);
  EXPECT_EQ(aliased.error()->mark.line, 2);
  const Document whole = Document::Parse(text, 11);
  EXPECT_EQ(whole.error(), nullptr);
  EXPECT_EQ(whole.root()["c"].size(), 2u);
}

}  // namespace
}  // namespace yaml_document_test
}  // namespace novacat::yaml
