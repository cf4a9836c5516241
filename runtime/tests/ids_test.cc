#include "novacat/runtime/ids.h"

#include <gtest/gtest.h>

#include <set>

namespace novacat::runtime {
namespace ids_test {
namespace {

using nlohmann::json;

TEST(SeededRandomTest, IsTheStandardMersenneTwister) {
  // [rand.predef]: the 10000th consecutive invocation of a default-
  // constructed mt19937_64 (seed 5489) produces 9981545732273789042, so
  // seeded identifiers are the same on every platform.
  SeededRandom random(5489);
  for (int i = 0; i < 9999; ++i) random.Next64();
  EXPECT_EQ(random.Next64(), 9981545732273789042ULL);
}

TEST(NewUuidV4Test, SeededIsExact) {
  SeededRandom random(1);
  EXPECT_EQ(NewUuidV4(random), "2245bd5f-bb68-4f68-a2eb-92502318fa4e");
  EXPECT_EQ(NewUuidV4(random), "7382d1e7-7ae6-459a-8561-d8057935c08e");
}

TEST(NewUuidV4Test, LaysOutTwoWordsBigEndianWithVersionAndVariant) {
  class Fixed : public Random {
   public:
    uint64_t Next64() override {
      return n_++ == 0 ? 0x0123456789abcdefULL : 0xfedcba9876543210ULL;
    }

   private:
    int n_ = 0;
  } fixed;
  // Byte 6 keeps its low nibble under version 4; byte 8 keeps its low 6
  // bits under variant 10.
  EXPECT_EQ(NewUuidV4(fixed), "01234567-89ab-4def-bedc-ba9876543210");
}

TEST(NewUuidV4Test, EveryOneIsAValidDistinctV4) {
  SeededRandom seeded(7);
  SystemRandom system;
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    for (Random* random :
         {static_cast<Random*>(&seeded), static_cast<Random*>(&system)}) {
      std::string id = NewUuidV4(*random);
      EXPECT_TRUE(IsUuidV4(id)) << id;
      EXPECT_TRUE(seen.insert(id).second) << id;
    }
  }
}

TEST(NewUuidV4Test, SystemRandomInstancesDiffer) {
  SystemRandom a, b;
  EXPECT_NE(NewUuidV4(a), NewUuidV4(b));
}

TEST(IsUuidV4Test, ChecksShapeVersionAndVariant) {
  EXPECT_TRUE(IsUuidV4("2245bd5f-bb68-4f68-a2eb-92502318fa4e"));
  EXPECT_TRUE(IsUuidV4("E5F0C7B6-A11C-4F38-B2B7-FBB1A3C5D1C8"));
  EXPECT_TRUE(IsUuidV4("00000000-0000-4000-8000-000000000000"));
  EXPECT_TRUE(IsUuidV4("00000000-0000-4000-9000-000000000000"));
  // Version 1 and variant 110 (Microsoft) are UUIDs but not v4.
  EXPECT_FALSE(IsUuidV4("e5f0c7b6-a11c-1f38-a2b7-fbb1a3c5d1c8"));
  EXPECT_FALSE(IsUuidV4("e5f0c7b6-a11c-4f38-c2b7-fbb1a3c5d1c8"));
  EXPECT_FALSE(IsUuidV4("e5f0c7b6-a11c-4f38-72b7-fbb1a3c5d1c8"));
  EXPECT_FALSE(IsUuidV4("e5f0c7b6a11c4f38a2b7fbb1a3c5d1c8"));
  EXPECT_FALSE(IsUuidV4("e5f0c7b6-a11c-4f38-a2b7-fbb1a3c5d1c"));
  EXPECT_FALSE(IsUuidV4("g5f0c7b6-a11c-4f38-a2b7-fbb1a3c5d1c8"));
  EXPECT_FALSE(IsUuidV4(""));
}

TEST(FormatTimestampTest, IsRfc3339UtcSeconds) {
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(FormatTimestamp(-1), "1969-12-31T23:59:59Z");
  EXPECT_EQ(FormatTimestamp(1709208000), "2024-02-29T12:00:00Z");
  EXPECT_EQ(FormatTimestamp(1795614300), "2026-11-25T13:45:00Z");
  EXPECT_EQ(FormatTimestamp(253402300799), "9999-12-31T23:59:59Z");
}

TEST(FormatTimestampMsTest, AlwaysThreeFractionDigits) {
  EXPECT_EQ(FormatTimestampMs(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTimestampMs(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatTimestampMs(1795614300007), "2026-11-25T13:45:00.007Z");
  EXPECT_EQ(FormatTimestampMs(1795614300120), "2026-11-25T13:45:00.120Z");
  // Text order is time order.
  EXPECT_LT(FormatTimestampMs(1795614300999), FormatTimestampMs(1795614301000));
}

TEST(TimeBucketTest, IsTheBucketStart) {
  const int64_t t = 1795614300;  // 2026-11-25T13:45:00Z
  EXPECT_EQ(TimeBucket(t, 86400), "2026-11-25T00:00:00Z");
  EXPECT_EQ(TimeBucket(t, 3600), "2026-11-25T13:00:00Z");
  EXPECT_EQ(TimeBucket(t, 900), "2026-11-25T13:45:00Z");
  EXPECT_EQ(TimeBucket(t, 7 * 86400), "2026-11-19T00:00:00Z");  // Thursdays
  // The bucket's first and last second.
  EXPECT_EQ(TimeBucket(1795564800, 86400), "2026-11-25T00:00:00Z");
  EXPECT_EQ(TimeBucket(1795564799, 86400), "2026-11-24T00:00:00Z");
  EXPECT_EQ(TimeBucket(-1, 86400), "1969-12-31T00:00:00Z");
}

TEST(TimeBucketTest, RejectsNonPositiveSizes) {
  for (int64_t size : {0, -86400}) {
    try {
      TimeBucket(1795614300, size);
      FAIL() << size;
    } catch (const TerminalError& e) {
      EXPECT_EQ(std::string(e.what()),
                "time bucket size must be positive, got " +
                    std::to_string(size) + " seconds");
    }
  }
}

TEST(EnsureCorrelationIdTest, CreatesOneWhenAbsent) {
  SeededRandom random(1);
  json input = {{"candidate_name", "V1324 Sco"}};
  EXPECT_EQ(EnsureCorrelationId(input, random),
            "2245bd5f-bb68-4f68-a2eb-92502318fa4e");
  EXPECT_EQ(input,
            json({{"candidate_name", "V1324 Sco"},
                  {"correlation_id", "2245bd5f-bb68-4f68-a2eb-92502318fa4e"}}));
}

TEST(EnsureCorrelationIdTest, KeepsAnyValidUuidWithoutDrawing) {
  SeededRandom random(1);
  // A version 1 UUID from an upstream system is kept as it is.
  json input = {{"correlation_id", "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}};
  json before = input;
  EXPECT_EQ(EnsureCorrelationId(input, random),
            "6ba7b810-9dad-11d1-80b4-00c04fd430c8");
  EXPECT_EQ(input, before);
  EXPECT_EQ(NewUuidV4(random), "2245bd5f-bb68-4f68-a2eb-92502318fa4e");
}

TEST(EnsureCorrelationIdTest, PresentButNotAUuidIsTerminal) {
  SeededRandom random(1);
  for (json bad : {json("abc"), json(nullptr), json(42), json::object(),
                   json("6ba7b810-9dad-11d1-80b4-00c04fd430c")}) {
    json input = {{"correlation_id", bad}};
    try {
      EnsureCorrelationId(input, random);
      FAIL() << bad.dump();
    } catch (const TerminalError& e) {
      EXPECT_EQ(std::string(e.what()), "$.correlation_id: must be a UUID");
      EXPECT_EQ(input["correlation_id"], bad);
    }
  }
  json not_object = json::array();
  EXPECT_THROW(
      {
        try {
          EnsureCorrelationId(not_object, random);
        } catch (const TerminalError& e) {
          EXPECT_EQ(std::string(e.what()),
                    "$: the workflow input must be an object");
          throw;
        }
      },
      TerminalError);
}

TEST(NormalizeCauseTest, ReplacesWhatVaries) {
  EXPECT_EQ(NormalizeCause("provider MAST returned HTTP 503 after 2.5s "
                           "(request 1f0e2d3c-4b5a-4978-8695-a4b3c2d1e0f9)"),
            "provider MAST returned HTTP <n> after <n>s (request <uuid>)");
  EXPECT_EQ(
      NormalizeCause("etag deadbeef42 at 0x7ffd5a3c, sha 9f86d081884c7d65"),
      "etag <hex> at <hex>, sha <hex>");
  EXPECT_EQ(NormalizeCause("  timed out\n\tafter   30 seconds  "),
            "timed out after <n> seconds");
  // Words stay, including short hex-looking ones and digits inside words.
  EXPECT_EQ(NormalizeCause("bad facade on S3 key v2/obs_000123.fits"),
            "bad facade on S<n> key v<n>/obs_<n>.fits");
  EXPECT_EQ(NormalizeCause("12345678 rows; version 1.2.3"),
            "<n> rows; version <n>");
  // A UUID glued to a word is not one.
  EXPECT_EQ(NormalizeCause("x1f0e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"),
            "x<n>f<n>e<n>d<n>c-<n>b<n>a-<n>-<n>-<hex>");
  EXPECT_EQ(NormalizeCause(""), "");
}

TEST(ErrorFingerprintTest, IsAStableSha256Prefix) {
  // Python: hashlib.sha256(b"RETRYABLE\nQueryProviderForProducts\n"
  //   b"provider MAST returned HTTP <n> after <n>s (request <uuid>)")
  EXPECT_EQ(ErrorFingerprint("RETRYABLE", "QueryProviderForProducts",
                             "provider MAST returned HTTP 503 after 2.5s "
                             "(request 1f0e2d3c-4b5a-4978-8695-a4b3c2d1e0f9)"),
            "1dab8f5822339415");
  EXPECT_EQ(ErrorFingerprint("TERMINAL", "",
                             "States.Timeout: Task timed out after 10 seconds"),
            "a63cea5b8a3b8769");
}

TEST(ErrorFingerprintTest, SameFailureSameFingerprint) {
  std::string a = ErrorFingerprint(
      "RETRYABLE", "QueryProviderForProducts",
      "HTTP 503 for 1f0e2d3c-4b5a-4978-8695-a4b3c2d1e0f9 after 3 tries");
  EXPECT_EQ(a, ErrorFingerprint(
                   "RETRYABLE", "QueryProviderForProducts",
                   "HTTP 502 for 00000000-0000-4000-8000-000000000000 after "
                   "12 tries"));
  EXPECT_NE(a, ErrorFingerprint("TERMINAL", "QueryProviderForProducts",
                                "HTTP 503 for x after 3 tries"));
  EXPECT_NE(a, ErrorFingerprint("RETRYABLE", "NormalizeProviderProducts",
                                "HTTP 503 for 1f0e2d3c-4b5a-4978-8695-"
                                "a4b3c2d1e0f9 after 3 tries"));
  EXPECT_NE(a, ErrorFingerprint("RETRYABLE", "QueryProviderForProducts",
                                "HTTP 503 for 1f0e2d3c-4b5a-4978-8695-"
                                "a4b3c2d1e0f9 after 3 retries"));
}

TEST(ErrorFingerprintTest, OfAStepErrorUsesItsClassAndCause) {
  QuarantineError error("ambiguous: 3 novae match 'V1324 Sco'");
  EXPECT_EQ(ErrorFingerprint(error, "CheckExistingNovaByName"),
            ErrorFingerprint("QUARANTINE", "CheckExistingNovaByName",
                             "ambiguous: 7 novae match 'V1324 Sco'"));
}

TEST(Sha256HexTest, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace ids_test
}  // namespace novacat::runtime
