// AppendPrettyJson writes exactly what nlohmann's dump writes: over every
// JSON file of the repository's generated/ and the corner cases of its
// fast path (escapes, control characters, multi-byte text, numbers, empty
// and nested containers), at several indents.
#include "emit/json_text.h"
#include "emit/json_build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

namespace novacat {
namespace json_text_test {
namespace {

using Json = nlohmann::ordered_json;

// nlohmann's text of `value` at `step`, `indent` spaces further in after
// the first line.
std::string Reference(const Json& value, int step, int indent) {
  std::string out;
  nlohmann::detail::serializer<Json> serializer(
      nlohmann::detail::output_adapter<char, std::string>(out), ' ',
      nlohmann::detail::error_handler_t::strict);
  serializer.dump(value, true, false, static_cast<unsigned>(step),
                  static_cast<unsigned>(indent));
  return out;
}

// Whether the text of `value` has an escape or a float: what
// PrettyJsonLength does not read.
bool HasEscapeOrFloat(const Json& value) {
  auto escapes = [](const std::string& text) {
    return std::any_of(text.begin(), text.end(), [](char c) {
      return static_cast<unsigned char>(c) < 0x20 || c == '"' || c == '\\';
    });
  };
  switch (value.type()) {
    case Json::value_t::object:
      for (const auto& [key, member] : value.items())
        if (escapes(key) || HasEscapeOrFloat(member)) return true;
      return false;
    case Json::value_t::array:
      return std::any_of(value.begin(), value.end(), HasEscapeOrFloat);
    case Json::value_t::string:
      return escapes(value.get_ref<const std::string&>());
    default:
      return value.is_number_float();
  }
}

void ExpectSameText(const Json& value, const std::string& what) {
  // The room PrettyJson reserves: never more than the text, all of it when
  // the text has no escape and no float.
  for (int step : {0, 1, 2, 4}) {
    const size_t length = PrettyJsonLength(value, step);
    const size_t actual = value.dump(step).size();
    EXPECT_LE(length, actual) << what << " at indent " << step;
    if (!HasEscapeOrFloat(value)) {
      EXPECT_EQ(length, actual) << what << " at indent " << step;
    }
  }
  for (int step : {0, 1, 2, 4}) {
    for (int indent : {0, 3}) {
      std::string ours = "prefix";
      AppendPrettyJson(ours, value, step, indent);
      ASSERT_EQ(ours, "prefix" + Reference(value, step, indent))
          << what << " at indent " << step << "+" << indent;
    }
  }
  EXPECT_EQ(PrettyJson(value, 2), value.dump(2)) << what;
}

// Writes `value` through `w` call by call: containers opened and closed,
// strings, integers and booleans by their own calls; below `whole_below`
// levels, each value whole (JsonWriter::Value).
void WriteWalking(JsonWriter& w, const Json& value, int whole_below,
                  int depth = 0) {
  if (depth >= whole_below) {
    w.Value(value);
    return;
  }
  switch (value.type()) {
    case Json::value_t::object:
      w.BeginObject();
      for (const auto& [key, member] : value.items()) {
        w.Key(key);
        WriteWalking(w, member, whole_below, depth + 1);
      }
      w.End();
      return;
    case Json::value_t::array:
      w.BeginArray();
      for (const auto& item : value)
        WriteWalking(w, item, whole_below, depth + 1);
      w.End();
      return;
    case Json::value_t::string:
      w.String(value.get_ref<const std::string&>());
      return;
    case Json::value_t::number_integer:
      w.Int(value.get<int64_t>());
      return;
    case Json::value_t::boolean:
      w.Bool(value.get<bool>());
      return;
    default:
      w.Value(value);
  }
}

void ExpectWriterWritesIt(const Json& value, const std::string& what) {
  for (int step : {0, 1, 2, 4}) {
    for (int indent : {0, 3}) {
      for (int whole_below : {0, 1, 2, 100}) {
        std::string ours = "prefix";
        JsonWriter w(ours, step, indent);
        WriteWalking(w, value, whole_below);
        ASSERT_EQ(ours, "prefix" + Reference(value, step, indent))
            << what << " at indent " << step << "+" << indent
            << ", whole below " << whole_below;
      }
    }
  }
}

TEST(JsonTextTest, WritesEveryGeneratedJsonFileAsDumpDoes) {
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator("generated")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const Json value = Json::parse(text.str());
    ExpectSameText(value, entry.path().string());
    ExpectWriterWritesIt(value, entry.path().string());
    ++files;
  }
  EXPECT_GT(files, 20);  // run from the repository's root
}

TEST(JsonTextTest, WritesTheCornerCasesAsDumpDoes) {
  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls += static_cast<char>(c);
  const Json cases[] = {
      Json::object(),
      Json::array(),
      nullptr,
      true,
      false,
      0,
      -42,
      std::numeric_limits<int64_t>::min(),
      std::numeric_limits<uint64_t>::max(),
      2.0,
      0.1,
      -0.0,
      1e300,
      5e-324,
      std::numeric_limits<double>::quiet_NaN(),
      "",
      "plain ASCII with spaces ~ and \x7f",
      "quote \" backslash \\ slash /",
      controls,
      "tab\tnewline\nreturn\r",
      "Nova Cat \xc3\xa9t\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x94\xad and \"more\"",
      Json::parse(R"({"a": {}, "b": [], "c": [[], {}, [1, [2, {"d": null}]]],
                      "key \"quoted\"\n": "v", "\u00e9": 1.5})"),
      Json::array({Json::object(), Json::array({Json::array()})}),
  };
  int i = 0;
  for (const Json& value : cases) {
    ExpectSameText(value, std::to_string(i));
    ExpectWriterWritesIt(value, std::to_string(i++));
  }
}

// Plain text is scanned 8 bytes at a time: what needs escaping (or is
// not ASCII) must be found at every position of a word, and the bytes
// around the class boundaries (0x1f/0x20, 0x7f/0x80) must not be taken for
// one another.
TEST(JsonTextTest, FindsWhatNeedsEscapingAtEveryPositionOfAWord) {
  const std::string specials[] = {
      "\"", "\\",      std::string(1, '\0'), "\x1f", " ", "\x7f", "!", "[",
      "]",  "\xc3\xa9"};
  int i = 0;
  for (const std::string& special : specials) {
    for (size_t at = 0; at <= 17; ++at) {
      std::string text(18, 'a');
      text.replace(at, 1, special);
      ExpectSameText(Json(text), "special " + std::to_string(i++));
    }
  }
}

// JsonObjectWithRoom builds what brace initialization builds, with room
// for `room` members more: adding them does not move the members (growing
// would copy each, deep).
TEST(JsonBuildTest, ObjectWithRoomTakesItsMembersWithoutGrowing) {
  Json object = JsonObjectWithRoom(2, "a", 1, "b", Json::array({1, 2}));
  EXPECT_EQ(object, (Json{{"a", 1}, {"b", Json::array({1, 2})}}));
  const auto* first = &object.get_ref<Json::object_t&>().front();
  object["c"] = "x";
  AppendMember(object.get_ref<Json::object_t&>(), "d", nullptr);
  EXPECT_EQ(&object.get_ref<Json::object_t&>().front(), first);
  EXPECT_EQ(object.dump(), R"({"a":1,"b":[1,2],"c":"x","d":null})");
  EXPECT_EQ(JsonObject("k", "v"), (Json{{"k", "v"}}));
  EXPECT_EQ(JsonObjectWithRoom(3), Json::object());
}

TEST(JsonTextTest, RefusesInvalidUtf8AsDumpDoes) {
  const Json bad = Json::array({"ok", std::string("bad \xff byte")});
  std::string message;
  try {
    (void)bad.dump(2);
  } catch (const Json::type_error& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty());
  std::string out;
  try {
    AppendPrettyJson(out, bad, 2);
    FAIL() << "no exception";
  } catch (const Json::type_error& e) {
    EXPECT_EQ(std::string(e.what()), message);
  }
}

}  // namespace
}  // namespace json_text_test
}  // namespace novacat
