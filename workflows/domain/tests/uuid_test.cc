#include "novacat/domain/uuid.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace novacat::domain {
namespace uuid_test {
namespace {

using testing::Fails;

constexpr std::string_view kDns = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";
constexpr std::string_view kUrl = "6ba7b811-9dad-11d1-80b4-00c04fd430c8";

// Expected values from Python's uuid.uuid5, an independent implementation.
TEST(UuidV5Test, MatchesPythonsUuid5) {
  EXPECT_EQ(UuidV5(kDns, "python.org"), "886313e1-3b8a-5372-9b90-0c9aee199e5d");
  EXPECT_EQ(UuidV5(kUrl, "https://doi.org/10.1086/155424"),
            "f25a61f0-4c49-56bd-a0ee-1ed5f3fe0f68");
  EXPECT_EQ(UuidV5(kDns, ""), "4ebd0208-8328-5d69-8c44-ec50939c0967");
  // The name's bytes are hashed as given (UTF-8 here).
  EXPECT_EQ(UuidV5(kDns, "V1500 CYG \u2606"),
            "86686ad1-69ec-507e-baf8-591940e891ea");
  EXPECT_EQ(UuidV5(kDatasetIdNamespace,
                   "provider=ESO|product_timestamp=2016-03-01T05:12:33Z|"
                   "url=https://example.org/a"),
            "08675360-c358-5832-9f8d-8debcd149d40");
  EXPECT_EQ(UuidV5(kReferenceIdNamespace, "bibcode:1977ApJ...215..873F"),
            "801a217d-cc11-52a6-b055-6f200069b794");
}

TEST(UuidV5Test, NamespaceCaseDoesNotMatter) {
  EXPECT_EQ(UuidV5("6BA7B810-9DAD-11D1-80B4-00C04FD430C8", "python.org"),
            "886313e1-3b8a-5372-9b90-0c9aee199e5d");
}

TEST(UuidV5Test, IsStableDistinctAndValid) {
  std::string a = UuidV5(kDatasetIdNamespace, "x");
  EXPECT_EQ(UuidV5(kDatasetIdNamespace, "x"), a);
  EXPECT_NE(UuidV5(kDatasetIdNamespace, "y"), a);
  EXPECT_NE(UuidV5(kReferenceIdNamespace, "x"), a);
  EXPECT_TRUE(IsUuidV5(a));
  EXPECT_TRUE(IsUuid(a));
  EXPECT_EQ(a[14], '5');  // not version 4
}

TEST(IsUuidTest, EightFourFourFourTwelveHexDigits) {
  EXPECT_TRUE(IsUuid("d4bbdda3-6824-4e82-b1ce-1b781190fbec"));
  EXPECT_TRUE(IsUuid("D4BBDDA3-6824-4E82-B1CE-1B781190FBEC"));
  EXPECT_FALSE(IsUuid(""));
  EXPECT_FALSE(IsUuid("d4bbdda3-6824-4e82-b1ce-1b781190fbe"));    // short
  EXPECT_FALSE(IsUuid("d4bbdda3-6824-4e82-b1ce-1b781190fbecc"));  // long
  EXPECT_FALSE(IsUuid("d4bbdda36-824-4e82-b1ce-1b781190fbec"));   // dash
  EXPECT_FALSE(IsUuid("g4bbdda3-6824-4e82-b1ce-1b781190fbec"));   // not hex
  EXPECT_FALSE(IsUuid("../../etc/passwd"));
}

TEST(UuidV5Test, TheNamespacesAreUuids) {
  EXPECT_TRUE(IsUuid(kDatasetIdNamespace));
  EXPECT_TRUE(IsUuid(kReferenceIdNamespace));
  EXPECT_NE(kDatasetIdNamespace, kReferenceIdNamespace);
}

TEST(UuidV5Test, RejectsANamespaceThatIsNotAUuid) {
  EXPECT_TRUE(Fails(
      UuidFailure::kInvalidNamespace, [] { UuidV5("not-a-uuid", "x"); },
      "UuidV5: namespace \"not-a-uuid\" is not a UUID"));
}

TEST(IsUuidV5Test, ChecksVersionAndVariant) {
  EXPECT_TRUE(IsUuidV5("886313e1-3b8a-5372-9b90-0c9aee199e5d"));
  EXPECT_TRUE(IsUuidV5("886313E1-3B8A-5372-BB90-0C9AEE199E5D"));
  EXPECT_FALSE(IsUuidV5("886313e1-3b8a-4372-9b90-0c9aee199e5d"));  // v4
  EXPECT_FALSE(IsUuidV5("886313e1-3b8a-5372-cb90-0c9aee199e5d"));  // variant
  EXPECT_FALSE(IsUuidV5("886313e1-3b8a-5372-7b90-0c9aee199e5d"));  // variant
  EXPECT_FALSE(IsUuidV5("886313e13b8a53729b900c9aee199e5d"));
  EXPECT_FALSE(IsUuidV5(""));
}

}  // namespace
}  // namespace uuid_test
}  // namespace novacat::domain
