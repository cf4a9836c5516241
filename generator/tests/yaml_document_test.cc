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
#include <sstream>
#include <string>
#include <vector>

namespace novacat::yaml {
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

class YamlCornerCase : public testing::TestWithParam<const char*> {};

TEST_P(YamlCornerCase, ReadsAsYamlCppDoes) {
  ExpectSameReading(GetParam(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Texts, YamlCornerCase,
    testing::Values(
        // Empty documents.
        "", "# only a comment\n", "---\n", "---\n...\n", "~\n",
        // Nulls: plain ones only; a quoted "null" is a string.
        "a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: 'null'\ng: \"~\"\nh: nil\n",
        "a:\n", "a:\nb: 1\n", "a:\n  b:\n", "a:\n  b:\nc: 1\n", "- \n- x\n-\n",
        "a:\n  - \n  -\n", "[a, , b]\n", "{a: , b: }\n", "{a, b: 1}\n", "? a\n",
        "? a\n: b\n", "a:\n? b\n: c\n", "a:\n&x b: c\n", "a:\n!t b: c\n",
        "a:\n  b:\n  ? c\n", "a: [b, {c: }]\nd:\n",
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
}  // namespace novacat::yaml
