#include "novacat/runtime/ids.h"

#include <openssl/evp.h>

#include <array>
#include <chrono>
#include <cstdio>

#include "novacat/runtime/json_reader.h"

namespace novacat::runtime {

namespace {

bool IsHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}
bool IsDecimalDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlnum(char c) {
  return IsDecimalDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

// Floor division (C++ truncates toward zero).
int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// A UUID at `text[at]` not glued to other alphanumerics.
bool UuidAt(std::string_view text, size_t at) {
  if (at + 36 > text.size() || !IsUuid(text.substr(at, 36))) return false;
  if (at > 0 && IsAlnum(text[at - 1])) return false;
  return at + 36 == text.size() || !IsAlnum(text[at + 36]);
}

// Replaces the variable parts of one alphanumeric token.
void NormalizeToken(std::string_view token, std::string& out) {
  bool all_hex = true, has_digit = false;
  for (char c : token) {
    all_hex = all_hex && IsHexDigit(c);
    has_digit = has_digit || IsDecimalDigit(c);
  }
  bool hex_prefixed = token.size() > 2 && token[0] == '0' &&
                      (token[1] == 'x' || token[1] == 'X');
  if (hex_prefixed) {
    bool rest_hex = true;
    for (char c : token.substr(2)) rest_hex = rest_hex && IsHexDigit(c);
    if (rest_hex) {
      out += "<hex>";
      return;
    }
  }
  if (all_hex && has_digit && token.size() >= 8) {
    bool all_decimal = true;
    for (char c : token) all_decimal = all_decimal && IsDecimalDigit(c);
    out += all_decimal ? "<n>" : "<hex>";
    return;
  }
  for (size_t i = 0; i < token.size();) {
    if (IsDecimalDigit(token[i])) {
      while (i < token.size() && IsDecimalDigit(token[i])) ++i;
      out += "<n>";
    } else {
      out += token[i++];
    }
  }
}

}  // namespace

uint64_t SeededRandom::Next64() {
  std::lock_guard<std::mutex> lock(mutex_);
  return engine_();
}

SystemRandom::SystemRandom() {
  std::random_device device;
  std::array<std::seed_seq::result_type, 8> words;
  for (auto& w : words) w = device();
  std::seed_seq seq(words.begin(), words.end());
  engine_.seed(seq);
}

uint64_t SystemRandom::Next64() {
  std::lock_guard<std::mutex> lock(mutex_);
  return engine_();
}

std::string NewUuidV4(Random& random) {
  std::array<unsigned char, 16> bytes;
  uint64_t high = random.Next64(), low = random.Next64();
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<unsigned char>(high >> (56 - 8 * i));
    bytes[8 + i] = static_cast<unsigned char>(low >> (56 - 8 * i));
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] =
      static_cast<unsigned char>((bytes[8] & 0x3F) | 0x80);  // variant 10
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 0x0F];
  }
  return out;
}

bool IsUuidV4(std::string_view text) {
  if (!IsUuid(text) || text[14] != '4') return false;
  char variant = text[19];
  return variant == '8' || variant == '9' || variant == 'a' || variant == 'b' ||
         variant == 'A' || variant == 'B';
}

std::string FormatTimestamp(int64_t epoch_seconds) {
  using namespace std::chrono;
  int64_t days = FloorDiv(epoch_seconds, 86400);
  int64_t second_of_day = epoch_seconds - days * 86400;
  year_month_day date{sys_days{std::chrono::days{days}}};
  char buffer[40];
  std::snprintf(
      buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02dZ",
      static_cast<int>(date.year()), static_cast<unsigned>(date.month()),
      static_cast<unsigned>(date.day()), static_cast<int>(second_of_day / 3600),
      static_cast<int>(second_of_day / 60 % 60),
      static_cast<int>(second_of_day % 60));
  return buffer;
}

std::string FormatTimestampMs(int64_t epoch_ms) {
  const int64_t seconds = FloorDiv(epoch_ms, 1000);
  std::string text = FormatTimestamp(seconds);
  char fraction[8];
  std::snprintf(fraction, sizeof fraction, ".%03dZ",
                static_cast<int>(epoch_ms - seconds * 1000));
  text.replace(text.size() - 1, 1, fraction);
  return text;
}

std::string TimeBucket(int64_t epoch_seconds, int64_t bucket_seconds) {
  if (bucket_seconds <= 0)
    throw TerminalError("time bucket size must be positive, got " +
                        std::to_string(bucket_seconds) + " seconds");
  return FormatTimestamp(FloorDiv(epoch_seconds, bucket_seconds) *
                         bucket_seconds);
}

std::string EnsureCorrelationId(nlohmann::json& input, Random& random) {
  if (!input.is_object())
    throw TerminalError("$: the workflow input must be an object");
  auto it = input.find("correlation_id");
  if (it == input.end()) {
    std::string id = NewUuidV4(random);
    input["correlation_id"] = id;
    return id;
  }
  if (!it->is_string() || !IsUuid(it->get_ref<const std::string&>()))
    throw TerminalError("$.correlation_id: must be a UUID");
  return it->get<std::string>();
}

std::string NormalizeCause(std::string_view cause) {
  std::string out;
  out.reserve(cause.size());
  size_t i = 0;
  while (i < cause.size()) {
    char c = cause[i];
    if (IsSpace(c)) {
      while (i < cause.size() && IsSpace(cause[i])) ++i;
      if (!out.empty() && i < cause.size()) out += ' ';
    } else if (UuidAt(cause, i)) {
      out += "<uuid>";
      i += 36;
    } else if (IsAlnum(c)) {
      size_t start = i;
      while (i < cause.size() && IsAlnum(cause[i])) ++i;
      NormalizeToken(cause.substr(start, i - start), out);
      // A decimal fraction belongs to the number before it: 2.5 -> <n>.
      while (out.ends_with("<n>") && i + 1 < cause.size() && cause[i] == '.' &&
             IsDecimalDigit(cause[i + 1])) {
        ++i;
        while (i < cause.size() && IsDecimalDigit(cause[i])) ++i;
      }
    } else {
      out += c;
      ++i;
    }
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0F];
  }
  return out;
}

std::string ErrorFingerprint(std::string_view classification,
                             std::string_view state_name,
                             std::string_view cause) {
  std::string material;
  material += classification;
  material += '\n';
  material += state_name;
  material += '\n';
  material += NormalizeCause(cause);
  return Sha256Hex(material).substr(0, 16);
}

std::string ErrorFingerprint(const StepError& error,
                             std::string_view state_name) {
  return ErrorFingerprint(error.classification(), state_name, error.what());
}

}  // namespace novacat::runtime
