#include "novacat/domain/resolver.h"

#include <gtest/gtest.h>

#include "novacat/domain/coordinates.h"
#include "novacat/domain/names.h"
#include "test_util.h"

namespace novacat::domain {
namespace resolver_test {
namespace {

using testing::Fails;
using S = ClassicalNovaStatus;

SourceMatch Nova(std::string id, S status, std::optional<double> ra,
                 std::optional<double> dec) {
  return SourceMatch{std::move(id), "No*", true, status, ra, dec, "J2000", {}};
}

TEST(ClassicalNovaStatusTest, RoundTripsTheSpecsEnum) {
  for (S s : {S::kYes, S::kNo, S::kAmbiguous}) {
    EXPECT_EQ(ParseClassicalNovaStatus(ToString(s)), s);
  }
  EXPECT_EQ(ToString(S::kYes), "YES");
  EXPECT_EQ(ToString(S::kNo), "NO");
  EXPECT_EQ(ToString(S::kAmbiguous), "AMBIGUOUS");
  EXPECT_EQ(ParseClassicalNovaStatus("yes"), std::nullopt);
}

// --- CombineSourceAnswers ----------------------------------------------------

TEST(CombineSourceAnswersTest, NoMatchIsNotFound) {
  EXPECT_EQ(CombineSourceAnswers("X", {}), Resolution{});
  EXPECT_EQ(CombineSourceAnswers("X", {{"SIMBAD", {}}, {"VSX", {}}}),
            Resolution{});
  EXPECT_FALSE(Resolution{}.found);
  EXPECT_FALSE(Resolution{}.is_nova);
  EXPECT_EQ(Resolution{}.classical_nova_status, S::kNo);
}

TEST(CombineSourceAnswersTest, OneSourceIsTakenAsIs) {
  Resolution r = CombineSourceAnswers(
      "V1500 CYG",
      {{"SIMBAD", {Nova("V* V1500 Cyg", S::kYes, 317.9024208, 48.1505417)}}});
  EXPECT_EQ(r, (Resolution{true,
                           true,
                           317.9024208,
                           48.1505417,
                           "J2000",
                           "No*",
                           S::kYes,
                           {"SIMBAD"},
                           {},
                           {}}));
}

TEST(CombineSourceAnswersTest,
     PositionAndEpochComeFromTheFirstPositionedSource) {
  SourceMatch unpositioned = Nova("A", S::kYes, std::nullopt, std::nullopt);
  unpositioned.object_type = "N";
  SourceMatch positioned = Nova("B", S::kYes, 10, 20);
  positioned.epoch = "J2000.0";
  Resolution r = CombineSourceAnswers(
      "X", {{"VSX", {unpositioned}}, {"SIMBAD", {positioned}}});
  EXPECT_EQ(r, (Resolution{true,
                           true,
                           10.0,
                           20.0,
                           "J2000.0",
                           "N",
                           S::kYes,
                           {"VSX", "SIMBAD"},
                           {},
                           {}}));
}

TEST(CombineSourceAnswersTest, SeveralMatchesInOneSourceIsAmbiguous) {
  EXPECT_TRUE(Fails(
      ResolverFailure::kAmbiguous,
      [] {
        CombineSourceAnswers(
            "NOVA SGR 2015",
            {{"SIMBAD",
              {Nova("V* V5667 Sgr", S::kYes, std::nullopt, std::nullopt),
               Nova("V* V5668 Sgr", S::kYes, 279.2, -28.9)}}});
      },
      "ambiguous resolver result for \"NOVA SGR 2015\": SIMBAD matched 2 "
      "objects (V* V5667 Sgr, V* V5668 Sgr)"));
}

TEST(CombineSourceAnswersTest, SourcesDisagreeingOnIsNovaConflict) {
  SourceMatch star{"* x", "*", false, S::kNo, 10, 20, std::nullopt, {}};
  EXPECT_TRUE(Fails(
      ResolverFailure::kConflictingAuthoritativeSources,
      [&] {
        CombineSourceAnswers(
            "X", {{"SIMBAD", {Nova("x", S::kYes, 10, 20)}}, {"VSX", {star}}});
      },
      "conflicting authoritative sources for \"X\": SIMBAD says is_nova "
      "true, VSX says is_nova false"));
}

TEST(CombineSourceAnswersTest, YesAgainstNoConflicts) {
  EXPECT_TRUE(Fails(
      ResolverFailure::kConflictingAuthoritativeSources,
      [] {
        CombineSourceAnswers("X", {{"A", {Nova("x", S::kAmbiguous, 10, 20)}},
                                   {"B", {Nova("x", S::kNo, 10, 20)}},
                                   {"C", {Nova("x", S::kYes, 10, 20)}}});
      },
      "conflicting authoritative sources for \"X\": B says "
      "classical_nova_status NO, C says YES"));
}

TEST(CombineSourceAnswersTest, AmbiguousBesideADecisionIsAmbiguous) {
  Resolution r =
      CombineSourceAnswers("X", {{"A", {Nova("x", S::kYes, 10, 20)}},
                                 {"B", {Nova("x", S::kAmbiguous, 10, 20)}}});
  EXPECT_EQ(r.classical_nova_status, S::kAmbiguous);
  r = CombineSourceAnswers("X", {{"A", {Nova("x", S::kAmbiguous, 10, 20)}}});
  EXPECT_EQ(r.classical_nova_status, S::kAmbiguous);
  r = CombineSourceAnswers("X", {{"A", {Nova("x", S::kNo, 10, 20)}},
                                 {"B", {Nova("x", S::kNo, 10, 20)}}});
  EXPECT_EQ(r.classical_nova_status, S::kNo);
}

TEST(CombineSourceAnswersTest, PositionsFurtherThanTwoArcsecondsConflict) {
  // 1.9" apart agree; 2.5" apart conflict.
  Resolution r = CombineSourceAnswers(
      "X", {{"A", {Nova("x", S::kYes, 10, 20)}},
            {"B", {Nova("x", S::kYes, 10, 20 + 1.9 / 3600)}}});
  EXPECT_EQ(r.ra_deg, 10.0);
  EXPECT_EQ(r.dec_deg, 20.0);
  EXPECT_TRUE(Fails(
      ResolverFailure::kConflictingAuthoritativeSources,
      [] {
        CombineSourceAnswers(
            "X", {{"A", {Nova("x", S::kYes, 10, 20)}},
                  {"B", {Nova("x", S::kYes, 10, 20 + 2.5 / 3600)}}});
      },
      "conflicting authoritative sources for \"X\": A and B positions are "
      "2.500\" apart (more than 2\")"));
}

TEST(CombineSourceAnswersTest, ANovaWithoutCoordinatesIsTerminal) {
  EXPECT_TRUE(Fails(
      ResolverFailure::kMissingCoordinates,
      [] {
        CombineSourceAnswers(
            "NOVA OPH 1848",
            {{"SIMBAD", {Nova("x", S::kYes, std::nullopt, std::nullopt)}},
             {"VSX", {Nova("x", S::kYes, std::nullopt, std::nullopt)}}});
      },
      "resolver returned no coordinates for nova \"NOVA OPH 1848\" "
      "(sources: SIMBAD, VSX)"));
  // A found non-nova needs none.
  SourceMatch galaxy{"M 31",       "G",          false,        S::kNo,
                     std::nullopt, std::nullopt, std::nullopt, {}};
  Resolution r = CombineSourceAnswers("M 31", {{"SIMBAD", {galaxy}}});
  EXPECT_EQ(r, (Resolution{true,
                           false,
                           std::nullopt,
                           std::nullopt,
                           std::nullopt,
                           "G",
                           S::kNo,
                           {"SIMBAD"},
                           {},
                           {}}));
}

TEST(CombineSourceAnswersTest, BrokenCoordinatesAreAMalformedAnswer) {
  EXPECT_TRUE(Fails(
      ResolverFailure::kMalformedAnswer,
      [] {
        CombineSourceAnswers(
            "X", {{"SIMBAD", {Nova("V* X", S::kYes, 10, std::nullopt)}}});
      },
      "SIMBAD match \"V* X\" for \"X\" has ra_deg without dec_deg"));
  EXPECT_TRUE(Fails(
      ResolverFailure::kMalformedAnswer,
      [] {
        CombineSourceAnswers("X",
                             {{"SIMBAD", {Nova("V* X", S::kYes, 400, 10)}}});
      },
      "invalid coordinates: ra_deg of SIMBAD match V* X = 400 is not in "
      "[0, 360) degrees"));
}

}  // namespace
}  // namespace resolver_test
}  // namespace novacat::domain
