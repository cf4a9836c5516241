#include "novacat/domain/resolver.h"

#include <gtest/gtest.h>

#include "novacat/domain/coordinates.h"
#include "novacat/domain/names.h"
#include "novacat/domain/novae_fixture.h"
#include "test_util.h"

namespace novacat::domain {
namespace {

using nlohmann::json;
using testing::Throws;
using S = ClassicalNovaStatus;

constexpr char kFixture[] = "fixtures/resolver/names.json";
constexpr char kNovae[] = "fixtures/novae/existing.json";
constexpr char kV1500Id[] = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";

SourceMatch Nova(std::string id, S status, std::optional<double> ra,
                 std::optional<double> dec) {
  return SourceMatch{std::move(id), "No*", true, status, ra, dec, "J2000"};
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
                           {"SIMBAD"}}));
}

TEST(CombineSourceAnswersTest,
     PositionAndEpochComeFromTheFirstPositionedSource) {
  SourceMatch unpositioned = Nova("A", S::kYes, std::nullopt, std::nullopt);
  unpositioned.object_type = "N";
  SourceMatch positioned = Nova("B", S::kYes, 10, 20);
  positioned.epoch = "J2000.0";
  Resolution r = CombineSourceAnswers(
      "X", {{"VSX", {unpositioned}}, {"SIMBAD", {positioned}}});
  EXPECT_EQ(
      r,
      (Resolution{
          true, true, 10.0, 20.0, "J2000.0", "N", S::kYes, {"VSX", "SIMBAD"}}));
}

TEST(CombineSourceAnswersTest, SeveralMatchesInOneSourceIsAmbiguous) {
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
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
  SourceMatch star{"* x", "*", false, S::kNo, 10, 20, std::nullopt};
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] {
        CombineSourceAnswers(
            "X", {{"SIMBAD", {Nova("x", S::kYes, 10, 20)}}, {"VSX", {star}}});
      },
      "conflicting authoritative sources for \"X\": SIMBAD says is_nova "
      "true, VSX says is_nova false"));
}

TEST(CombineSourceAnswersTest, YesAgainstNoConflicts) {
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
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
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [] {
        CombineSourceAnswers(
            "X", {{"A", {Nova("x", S::kYes, 10, 20)}},
                  {"B", {Nova("x", S::kYes, 10, 20 + 2.5 / 3600)}}});
      },
      "conflicting authoritative sources for \"X\": A and B positions are "
      "2.500\" apart (more than 2\")"));
}

TEST(CombineSourceAnswersTest, ANovaWithoutCoordinatesIsTerminal) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        CombineSourceAnswers(
            "NOVA OPH 1848",
            {{"SIMBAD", {Nova("x", S::kYes, std::nullopt, std::nullopt)}},
             {"VSX", {Nova("x", S::kYes, std::nullopt, std::nullopt)}}});
      },
      "resolver returned no coordinates for nova \"NOVA OPH 1848\" "
      "(sources: SIMBAD, VSX)"));
  // A found non-nova needs none.
  SourceMatch galaxy{"M 31",       "G",          false,       S::kNo,
                     std::nullopt, std::nullopt, std::nullopt};
  Resolution r = CombineSourceAnswers("M 31", {{"SIMBAD", {galaxy}}});
  EXPECT_EQ(r, (Resolution{true,
                           false,
                           std::nullopt,
                           std::nullopt,
                           std::nullopt,
                           "G",
                           S::kNo,
                           {"SIMBAD"}}));
}

TEST(CombineSourceAnswersTest, BrokenCoordinatesAreTerminal) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        CombineSourceAnswers(
            "X", {{"SIMBAD", {Nova("V* X", S::kYes, 10, std::nullopt)}}});
      },
      "SIMBAD match \"V* X\" for \"X\" has ra_deg without dec_deg"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        CombineSourceAnswers("X",
                             {{"SIMBAD", {Nova("V* X", S::kYes, 400, 10)}}});
      },
      "invalid coordinates: ra_deg of SIMBAD match V* X = 400 is not in "
      "[0, 360) degrees"));
}

// --- FixtureResolver over fixtures/resolver/names.json -----------------------

TEST(FixtureResolverTest, KnownClassicalNova) {
  FixtureResolver resolver(kFixture);
  EXPECT_EQ(resolver.Resolve("V1500 CYG"), (Resolution{true,
                                                       true,
                                                       317.9024208,
                                                       48.1505417,
                                                       "J2000",
                                                       "No*",
                                                       S::kYes,
                                                       {"SIMBAD", "VSX"}}));
  EXPECT_EQ(resolver.Resolve("V1674 HER"), (Resolution{true,
                                                       true,
                                                       284.3790833,
                                                       16.8943333,
                                                       "J2000",
                                                       "No*",
                                                       S::kYes,
                                                       {"SIMBAD", "VSX"}}));
  EXPECT_EQ(resolver.Resolve("NOVA SGR 2015 NO. 2").classical_nova_status,
            S::kYes);
}

TEST(FixtureResolverTest, NamesNotInTheFixtureAreNotFound) {
  FixtureResolver resolver(kFixture);
  EXPECT_EQ(resolver.Resolve("NOT A KNOWN NAME"), Resolution{});
  EXPECT_EQ(resolver.calls("NOT A KNOWN NAME"), 1);
  EXPECT_EQ(resolver.calls("NEVER ASKED"), 0);
}

TEST(FixtureResolverTest, NotANovaNotClassicalAndAmbiguousStatus) {
  FixtureResolver resolver(kFixture);
  EXPECT_EQ(resolver.Resolve("BETELGEUSE"), (Resolution{true,
                                                        false,
                                                        88.792939,
                                                        7.407064,
                                                        "J2000",
                                                        "s*r",
                                                        S::kNo,
                                                        {"SIMBAD"}}));
  EXPECT_EQ(resolver.Resolve("RS OPH"), (Resolution{true,
                                                    true,
                                                    267.55487,
                                                    -6.70794,
                                                    "J2000",
                                                    "No*",
                                                    S::kNo,
                                                    {"SIMBAD", "VSX"}}));
  EXPECT_EQ(resolver.Resolve("V1309 SCO"), (Resolution{true,
                                                       true,
                                                       269.3872429,
                                                       -30.7194354,
                                                       "J2000",
                                                       "No*",
                                                       S::kAmbiguous,
                                                       {"SIMBAD"}}));
}

TEST(FixtureResolverTest, AnswersThatRaise) {
  FixtureResolver resolver(kFixture);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { resolver.Resolve("NOVA SGR 2015"); },
      "ambiguous resolver result for \"NOVA SGR 2015\": SIMBAD matched 2 "
      "objects (V* V5667 Sgr, V* V5668 Sgr)"));
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { resolver.Resolve("V838 MON"); },
      "conflicting authoritative sources for \"V838 MON\": SIMBAD says "
      "classical_nova_status YES, VSX says NO"));
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { resolver.Resolve("NOVA MON 2002"); },
      "conflicting authoritative sources for \"NOVA MON 2002\": SIMBAD and "
      "VSX positions are 30.000\" apart (more than 2\")"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { resolver.Resolve("NOVA OPH 1848"); },
      "resolver returned no coordinates for nova \"NOVA OPH 1848\" "
      "(sources: SIMBAD)"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { resolver.Resolve(""); },
      "FixtureResolver: the name to resolve is empty"));
}

// The spec's retry: 1 attempt + 3 retries of RETRYABLE errors.
struct Attempts {
  int made = 0;
  std::optional<Resolution> result;
  std::vector<std::string> errors;
};
Attempts ResolveWithRetries(ArchiveResolver& resolver, std::string_view name) {
  Attempts a;
  for (; a.made < 4 && !a.result;) {
    ++a.made;
    try {
      a.result = resolver.Resolve(name);
    } catch (const runtime::RetryableError& e) {
      a.errors.push_back(e.what());
    }
  }
  return a;
}

TEST(FixtureResolverTest, ThrottlingThenAnAnswerIsRetried) {
  FixtureResolver resolver(kFixture);
  Attempts a = ResolveWithRetries(resolver, "V1405 CAS");
  EXPECT_EQ(a.made, 3);
  EXPECT_EQ(a.errors,
            (std::vector<std::string>{
                "archive resolver throttled the request for \"V1405 CAS\" "
                "(HTTP 429; fixture throttles the first 2 calls, this is call "
                "1)",
                "archive resolver throttled the request for \"V1405 CAS\" "
                "(HTTP 429; fixture throttles the first 2 calls, this is call "
                "2)"}));
  ASSERT_TRUE(a.result.has_value());
  EXPECT_EQ(*a.result, (Resolution{true,
                                   true,
                                   351.198875,
                                   61.1874444,
                                   "J2000",
                                   "No*",
                                   S::kYes,
                                   {"SIMBAD"}}));
  EXPECT_EQ(resolver.calls("V1405 CAS"), 3);
  // Later calls on the same instance answer at once.
  EXPECT_NO_THROW(resolver.Resolve("V1405 CAS"));
  // Counting is per instance: a new resolver throttles again.
  FixtureResolver fresh(kFixture);
  EXPECT_THROW(fresh.Resolve("V1405 CAS"), runtime::RetryableError);
}

TEST(FixtureResolverTest, ThrottlingBeyondTheRetriesExhaustsThem) {
  FixtureResolver resolver(kFixture);
  Attempts a = ResolveWithRetries(resolver, "V339 DEL");
  EXPECT_EQ(a.made, 4);
  EXPECT_FALSE(a.result.has_value());
  ASSERT_EQ(a.errors.size(), 4u);
  EXPECT_EQ(a.errors[3],
            "archive resolver throttled the request for \"V339 DEL\" (HTTP "
            "429; fixture throttles the first 4 calls, this is call 4)");
  EXPECT_EQ(resolver.Resolve("V339 DEL").ra_deg, 305.8780417);
}

TEST(FixtureResolverTest, CoordinateBandsAgainstTheExistingNovae) {
  FixtureResolver resolver(kFixture);
  std::vector<NovaPosition> existing = PositionsOf(LoadFixtureNovae(kNovae));
  auto match = [&](std::string_view name) {
    Resolution r = resolver.Resolve(name);
    return MatchCoordinates(*r.ra_deg, *r.dec_deg, existing);
  };
  CoordinateMatch alias = match("NOVA CYG 1975");
  EXPECT_EQ(alias.min_sep_arcsec, 0.0);
  EXPECT_EQ(alias.outcome, "DUPLICATE");
  EXPECT_EQ(alias.duplicate_nova_id, kV1500Id);

  CoordinateMatch one = match("TCP J21113658+4809030");
  EXPECT_NEAR(*one.min_sep_arcsec, 1.0, 1e-9);
  EXPECT_EQ(one.outcome, "DUPLICATE");
  EXPECT_EQ(one.duplicate_nova_id, kV1500Id);

  CoordinateMatch five = match("TCP J21113658+4809070");
  EXPECT_NEAR(*five.min_sep_arcsec, 5.0, 1e-9);
  EXPECT_EQ(five.outcome, "AMBIGUOUS");
  EXPECT_EQ(five.nearest_nova_id, kV1500Id);
  EXPECT_EQ(five.duplicate_nova_id, std::nullopt);

  for (const char* name : {"V1674 HER", "BETELGEUSE", "RS OPH", "V1309 SCO",
                           "NOVA SGR 2015 NO. 2"}) {
    CoordinateMatch m = match(name);
    EXPECT_EQ(m.outcome, "NONE") << name;
    EXPECT_GT(*m.min_sep_arcsec, 3600.0) << name;
  }
}

TEST(FixtureResolverTest, CandidateNamesReachTheFixtureThroughNormalization) {
  FixtureResolver resolver(kFixture);
  EXPECT_TRUE(resolver.Resolve(NormalizeCandidateName("V1500 Cygni")).is_nova);
  EXPECT_TRUE(
      resolver.Resolve(NormalizeCandidateName("Nova Cygni 1975")).is_nova);
  EXPECT_TRUE(
      resolver.Resolve(NormalizeCandidateName("ｒｓ　Ｏｐｈｉｕｃｈｉ")).found);
  EXPECT_TRUE(resolver.Resolve(NormalizeCandidateName("N Sgr 2015 #2")).found);
}

// --- Fixture loading ---------------------------------------------------------

json Fixture(json names) {
  return json{{"format", "novacat.fixture.resolver/1"}, {"names", names}};
}

TEST(FixtureResolverLoadTest, RejectsBrokenFixturesNamingThePath) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] { FixtureResolver r("fixtures/resolver/missing.json"); },
      "fixtures/resolver/missing.json: cannot be read (missing file?)"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        FixtureResolver r(
            json{{"format", "other/1"}, {"names", json::object()}}, "inline");
      },
      "inline: $.format: must be \"novacat.fixture.resolver/1\""));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        FixtureResolver r(
            Fixture({{"V1500 Cyg", {{"answers", json::array()}}}}), "inline");
      },
      "inline: $.names[\"V1500 Cyg\"]: key must be the canonical name "
      "\"V1500 CYG\""));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        FixtureResolver r(Fixture({{"X", {{"answer", json::array()}}}}),
                          "inline");
      },
      "inline: $.names.X.answer: unknown member (known: note, "
      "throttle_first, answers)"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        FixtureResolver r(
            Fixture({{"X",
                      {{"answers",
                        {{{"source", "S"},
                          {"matches",
                           {{{"id", "x"},
                             {"object_type", "No*"},
                             {"is_nova", true},
                             {"classical_nova_status", "MAYBE"}}}}}}}}}}),
            "inline");
      },
      "inline: $.names.X.answers[0].matches[0].classical_nova_status: must "
      "be YES, NO or AMBIGUOUS, got \"MAYBE\""));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [] {
        FixtureResolver r(
            Fixture(
                {{"X", {{"throttle_first", -1}, {"answers", json::array()}}}}),
            "inline");
      },
      "inline: $.names.X.throttle_first: must be a non-negative integer, got "
      "-1"));
}

}  // namespace
}  // namespace novacat::domain
