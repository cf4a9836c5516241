// The C++ string literal escaper the bindings embed the definition with.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "emit/cpp_emitter.h"

namespace novacat {
namespace cpp_literal_test {
namespace {

// What each byte becomes, one at a time: the escaper's contract, against
// which its 8-bytes-at-a-time scan is checked.
std::string Reference(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = text[i];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '?':
        out += i > 0 && text[i - 1] == '?' ? "\\?" : "?";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          char octal[5];
          std::snprintf(octal, sizeof octal, "\\%03o", c);
          out += octal;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

TEST(CppLiteralTest, EscapesWhatCppNeedsAtEveryPositionOfAWord) {
  const std::string specials[] = {"\"",   "\\",      std::string(1, '\0'),
                                  "\x1f", " ",       "\x7f",
                                  "\x80", "\xff",    "?",
                                  "??",   "\n",      "\t",
                                  "\r",   "!",       "#",
                                  "@",    "\xc3\xa9"};
  for (const std::string& special : specials) {
    for (size_t at = 0; at <= 17; ++at) {
      std::string text(18, 'a');
      text.replace(at, 1, special);
      EXPECT_EQ(CppStringLiteral(text), Reference(text))
          << "special " << static_cast<int>(special[0]) << " at " << at;
    }
  }
  EXPECT_EQ(CppStringLiteral("a\?\?=b\?\?\?c"), "a?\\?=b?\\?\\?c");
  EXPECT_EQ(CppStringLiteral(""), "");
}

TEST(CppLiteralTest, RawLiteralHoldsTheTextAsItIs) {
  auto raw = [](std::string_view text) {
    std::string out = "x = ";
    AppendCppRawStringLiteral(out, text);
    return out;
  };
  EXPECT_EQ(raw(""), "x = R\"json()json\"");
  EXPECT_EQ(raw("{\n  \"a\": \"\\\\?\?=\"\n}\n"),
            "x = R\"json({\n  \"a\": \"\\\\?\?=\"\n}\n)json\"");
  // A text that holds a closing sequence gets the next delimiter.
  EXPECT_EQ(raw("\"(see)json\""), "x = R\"json1(\"(see)json\")json1\"");
  EXPECT_EQ(raw(")json\" )json1\""), "x = R\"json2()json\" )json1\")json2\"");
  // Only the whole closing sequence counts.
  EXPECT_EQ(raw(")json )json1"), "x = R\"json()json )json1)json\"");
}

}  // namespace
}  // namespace cpp_literal_test
}  // namespace novacat
