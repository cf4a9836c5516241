#include "novacat/domain/uuid.h"

#include <openssl/evp.h>

#include <array>
#include <cstdint>

namespace novacat::domain {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool IsUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? text[i] != '-' : HexValue(text[i]) < 0) return false;
  }
  return true;
}

std::string UuidV5(std::string_view namespace_uuid, std::string_view name) {
  if (!IsUuid(namespace_uuid)) {
    throw UuidError(UuidFailure::kInvalidNamespace,
                    "UuidV5: namespace \"" + std::string(namespace_uuid) +
                        "\" is not a UUID");
  }
  std::string data;
  for (size_t i = 0; i < namespace_uuid.size(); i += 2) {
    if (namespace_uuid[i] == '-') ++i;
    data += static_cast<char>(HexValue(namespace_uuid[i]) * 16 +
                              HexValue(namespace_uuid[i + 1]));
  }
  data += name;
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha1(),
                 nullptr) != 1 ||
      length != 20) {
    throw UuidError(UuidFailure::kDigestFailed,
                    "UuidV5: SHA-1 failed (OpenSSL)");
  }
  digest[6] = static_cast<unsigned char>((digest[6] & 0x0F) | 0x50);
  digest[8] = static_cast<unsigned char>((digest[8] & 0x3F) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0F];
  }
  return out;
}

bool IsUuidV5(std::string_view text) {
  if (!IsUuid(text)) return false;
  int variant = HexValue(text[19]);
  return text[14] == '5' && variant >= 8 && variant <= 11;
}

}  // namespace novacat::domain
