#include "novacat/domain/names.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

#include "novacat/domain/constellations.h"

namespace novacat::domain {
namespace {

[[noreturn]] void Invalid(NameFailure failure, std::string why) {
  throw NameError(failure, "invalid candidate_name", std::move(why));
}

std::string CodePointName(char32_t cp) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, "U+%04X", static_cast<unsigned>(cp));
  return buffer;
}

// Decodes one code point at `text[*i]` (strict UTF-8) and advances `*i`;
// nullopt when the bytes there are not a well-formed sequence.
std::optional<char32_t> DecodeOne(std::string_view text, size_t* i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b0 = byte(*i);
  if (b0 < 0x80) {
    ++*i;
    return b0;
  }
  size_t length;
  char32_t cp;
  char32_t min;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return std::nullopt;
  }
  if (*i + length > text.size()) return std::nullopt;
  for (size_t k = 1; k < length; ++k) {
    unsigned char b = byte(*i + k);
    if ((b & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    return std::nullopt;
  }
  *i += length;
  return cp;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool IsWhitespace(char32_t cp) {
  return cp == 0x09 || cp == 0x20 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

bool IsControl(char32_t cp) {
  return (cp < 0x20 && cp != 0x09) || (cp >= 0x7F && cp <= 0x9F) ||
         cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

bool IsInvisible(char32_t cp) {
  return cp == 0xAD || (cp >= 0x200B && cp <= 0x200D) || cp == 0x2060 ||
         cp == 0xFEFF;
}

bool IsHyphen(char32_t cp) {
  return (cp >= 0x2010 && cp <= 0x2015) || cp == 0x2212 || cp == 0xFE58 ||
         cp == 0xFE63;
}

// Steps 1-3: validation, compatibility folding, whitespace. Returns the
// folded text with single inner spaces and no spaces at the ends.
std::string FoldAndCollapse(std::string_view text) {
  std::string out;
  bool pending_space = false;
  auto emit = [&](std::string_view piece) {
    if (pending_space && !out.empty()) out += ' ';
    pending_space = false;
    out += piece;
  };
  size_t i = 0;
  while (i < text.size()) {
    size_t at = i;
    std::optional<char32_t> decoded = DecodeOne(text, &i);
    if (!decoded) {
      Invalid(NameFailure::kNotUtf8,
              "not valid UTF-8 at byte " + std::to_string(at));
    }
    char32_t cp = *decoded;
    if (IsControl(cp)) {
      Invalid(NameFailure::kControlCharacter,
              "control character " + CodePointName(cp) + " at byte " +
                  std::to_string(at));
    }
    if (cp == 0xFFFD) {
      Invalid(NameFailure::kReplacementCharacter,
              "replacement character U+FFFD at byte " + std::to_string(at) +
                  " (the text was decoded wrongly upstream)");
    }
    if (IsWhitespace(cp)) {
      pending_space = true;
      continue;
    }
    if (IsInvisible(cp)) continue;
    if (cp >= 0xFF01 && cp <= 0xFF5E) cp -= 0xFEE0;  // fullwidth -> ASCII
    if (IsHyphen(cp)) cp = '-';
    if (cp == 0xFE62) cp = '+';
    if (cp == 0x2116) {
      emit("No");
      continue;
    }
    std::string piece;
    AppendUtf8(cp, &piece);
    emit(piece);
  }
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }

std::string WithoutSpaces(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c != ' ') out += c;
  }
  return out;
}

std::string Upper(std::string_view abbreviation) {
  std::string out(abbreviation);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

// The constellation of `text` (abbreviation or genitive, an optional
// trailing "." and spaces around it allowed), upper case; nullopt if none.
std::optional<std::string> ConstellationPart(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  const Constellation* c = FindConstellation(text);
  if (c == nullptr) return std::nullopt;
  return Upper(c->abbreviation);
}

// `V1500 CYG`: "V", digits without a leading zero, constellation.
std::optional<std::string> VariableStarNumber(std::string_view name) {
  std::string compact = WithoutSpaces(name);
  if (compact.size() < 2 || compact[0] != 'V' || !IsDigit(compact[1]) ||
      compact[1] == '0') {
    return std::nullopt;
  }
  size_t end = 1;
  while (end < compact.size() && IsDigit(compact[end])) ++end;
  std::optional<std::string> con =
      ConstellationPart(std::string_view(compact).substr(end));
  if (!con) return std::nullopt;
  return compact.substr(0, end) + " " + *con;
}

bool IsArgelander(std::string_view letters) {
  if (letters.size() == 1) return letters[0] >= 'R' && letters[0] <= 'Z';
  if (letters.size() != 2) return false;
  char a = letters[0], b = letters[1];
  if (!IsUpper(a) || !IsUpper(b) || b < a) return false;
  if (a >= 'R') return true;                // RR..ZZ
  return a != 'J' && b != 'J' && a <= 'Q';  // AA..QZ without J
}

// `RS OPH`: Argelander letters, constellation; unique split only.
std::optional<std::string> VariableStarLetters(std::string_view name) {
  std::string compact = WithoutSpaces(name);
  std::optional<std::string> found;
  int splits = 0;
  for (size_t n = 1; n <= 2 && n < compact.size(); ++n) {
    std::string_view letters = std::string_view(compact).substr(0, n);
    if (!IsArgelander(letters)) continue;
    std::optional<std::string> con =
        ConstellationPart(std::string_view(compact).substr(n));
    if (!con) continue;
    ++splits;
    found = std::string(letters) + " " + *con;
  }
  return splits == 1 ? found : std::nullopt;
}

// `NOVA CYG 1975` and `NOVA SGR 2015 NO. 2`.
std::optional<std::string> NovaName(std::string_view name) {
  for (std::string_view prefix : {"NOVA", "N.", "N "}) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = name.substr(prefix.size());
    size_t digit = 0;
    while (digit < rest.size() && !IsDigit(rest[digit])) ++digit;
    if (digit == rest.size()) continue;
    std::optional<std::string> con = ConstellationPart(rest.substr(0, digit));
    if (!con) continue;
    std::string_view tail = rest.substr(digit);
    size_t year_end = 0;
    while (year_end < tail.size() && IsDigit(tail[year_end])) ++year_end;
    if (year_end != 4) continue;
    std::string canonical =
        "NOVA " + *con + " " + std::string(tail.substr(0, 4));
    tail.remove_prefix(4);
    if (!tail.empty() && tail.front() == ' ') tail.remove_prefix(1);
    if (tail.empty()) return canonical;
    // The number within the year: "NO.", "NO" or "#", then digits.
    bool marked = false;
    for (std::string_view mark : {"NO.", "NO", "#"}) {
      if (tail.substr(0, mark.size()) == mark) {
        tail.remove_prefix(mark.size());
        marked = true;
        break;
      }
    }
    if (!marked) continue;
    if (!tail.empty() && tail.front() == ' ') tail.remove_prefix(1);
    while (tail.size() > 1 && tail.front() == '0') tail.remove_prefix(1);
    if (tail.empty() || tail.front() == '0') continue;
    bool digits = true;
    for (char c : tail) digits = digits && IsDigit(c);
    if (!digits) continue;
    return canonical + " NO. " + std::string(tail);
  }
  return std::nullopt;
}

// `AT 2021ABC`: "AT" or "SN", four digits, 1-3 letters.
std::optional<std::string> TnsName(std::string_view name) {
  std::string compact = WithoutSpaces(name);
  if (compact.size() < 7 || compact.size() > 9) return std::nullopt;
  std::string_view prefix = std::string_view(compact).substr(0, 2);
  if (prefix != "AT" && prefix != "SN") return std::nullopt;
  // Only the spaces "AT2021ABC" and "AT 2021ABC" are spelling variants.
  if (name != compact && name != std::string(prefix) + " " + compact.substr(2))
    return std::nullopt;
  for (size_t k = 2; k < 6; ++k) {
    if (!IsDigit(compact[k])) return std::nullopt;
  }
  for (size_t k = 6; k < compact.size(); ++k) {
    if (!IsUpper(compact[k])) return std::nullopt;
  }
  return std::string(prefix) + " " + compact.substr(2);
}

}  // namespace

std::string NormalizeCandidateName(std::string_view candidate_name) {
  if (candidate_name.size() > kMaxCandidateNameBytes) {
    Invalid(NameFailure::kTooLong,
            "longer than " + std::to_string(kMaxCandidateNameBytes) +
                " bytes (" + std::to_string(candidate_name.size()) + ")");
  }
  std::string name = FoldAndCollapse(candidate_name);
  if (name.empty()) Invalid(NameFailure::kEmpty, "empty or only whitespace");
  for (char& c : name) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  if (auto nova = NovaName(name)) return *nova;
  if (auto v = VariableStarNumber(name)) return *v;
  if (auto tns = TnsName(name)) return *tns;
  if (auto letters = VariableStarLetters(name)) return *letters;
  return name;
}

std::string NameResolutionKey(std::string_view normalized_name) {
  return "NAME#" + std::string(normalized_name);
}

}  // namespace novacat::domain
