// Finding bytes 8 at a time (the word tricks of "Bit Twiddling Hacks"), for
// the escaper that copies long runs of plain text (C++ string literals) and
// the loader's checks of mostly ASCII text. Each function returns the high
// bit of every flagged byte of a little-endian word; the lowest flag is exact
// (the tricks only err above a byte they flag), so FirstFlagged finds the
// first such byte.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace novacat::byte_scan {

static_assert(std::endian::native == std::endian::little,
              "the words are read little-endian");

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHigh = 0x8080808080808080ULL;

// The 8 bytes at `p`.
inline uint64_t Load(const char* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

// Bytes equal to `c`.
inline uint64_t Equal(uint64_t word, unsigned char c) {
  const uint64_t x = word ^ (kOnes * c);
  return (x - kOnes) & ~x & kHigh;
}

// Bytes below `n` (n at most 0x80; bytes of 0x80 and above are not).
inline uint64_t Below(uint64_t word, unsigned char n) {
  return (word - kOnes * n) & ~word & kHigh;
}

// Bytes of 0x80 and above.
inline uint64_t NonAscii(uint64_t word) { return word & kHigh; }

// The index (0 to 7) of the first flagged byte; `flags` is not 0.
inline size_t FirstFlagged(uint64_t flags) {
  return static_cast<size_t>(std::countr_zero(flags)) / 8;
}

// The first byte of `text` from `i` on that is not plain, or text.size().
// `flags(word)` flags the bytes of a word that are not plain (built from
// the functions above) and `plain(byte)` says the same of one byte: whole
// words go 8 bytes at a time, the last few bytes one by one.
template <typename Flags, typename Plain>
size_t SkipPlain(std::string_view text, size_t i, Flags flags, Plain plain) {
  for (; i + 8 <= text.size(); i += 8) {
    const uint64_t flagged = flags(Load(text.data() + i));
    if (flagged != 0) return i + FirstFlagged(flagged);
  }
  while (i < text.size() && plain(static_cast<unsigned char>(text[i]))) ++i;
  return i;
}

// The first byte of `text` from `i` on that is not ASCII, or text.size().
inline size_t SkipAscii(std::string_view text, size_t i) {
  return SkipPlain(text, i, NonAscii, [](unsigned char c) { return c < 0x80; });
}

}  // namespace novacat::byte_scan
