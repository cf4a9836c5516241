#include "novacat/domain/coordinates.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "test_util.h"

namespace novacat::domain {
namespace coordinates_test {
namespace {

using testing::Fails;

// Tolerance of "exact" expectations: 1e-9 arcsec (5e-15 rad).
constexpr double kExact = 1e-9;

// An independent reference: the haversine formula in long double.
double Haversine(long double ra1, long double dec1, long double ra2,
                 long double dec2) {
  const long double k = std::numbers::pi_v<long double> / 180;
  long double a = std::sin((dec2 - dec1) * k / 2);
  long double b = std::sin((ra2 - ra1) * k / 2);
  long double h = a * a + std::cos(dec1 * k) * std::cos(dec2 * k) * b * b;
  return static_cast<double>(2 * std::asin(std::sqrt(h)) / k * 3600);
}

TEST(AngularSeparationTest, IdenticalPointsAreExactlyZero) {
  EXPECT_EQ(AngularSeparationArcsec(0, 0, 0, 0), 0.0);
  EXPECT_EQ(AngularSeparationArcsec(123.456, -45.678, 123.456, -45.678), 0.0);
  EXPECT_EQ(
      AngularSeparationArcsec(317.9024208, 48.1505417, 317.9024208, 48.1505417),
      0.0);
  EXPECT_EQ(AngularSeparationArcsec(359.999, -90, 359.999, -90), 0.0);
  EXPECT_EQ(AngularSeparationArcsec(0, 90, 0, 90), 0.0);
}

TEST(AngularSeparationTest, OneArcsecondInDeclination) {
  EXPECT_NEAR(AngularSeparationArcsec(10, 0, 10, 1.0 / 3600), 1.0, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(10, 45, 10, 45 + 1.0 / 3600), 1.0,
              kExact);
  EXPECT_NEAR(AngularSeparationArcsec(200, -60, 200, -60 - 1.0 / 3600), 1.0,
              kExact);
  EXPECT_NEAR(AngularSeparationArcsec(317.9024208, 48.1505417, 317.9024208,
                                      48.1505417 + 1.0 / 3600),
              1.0, kExact);
}

TEST(AngularSeparationTest, OneArcsecondInRightAscensionAtTheEquator) {
  EXPECT_NEAR(AngularSeparationArcsec(0, 0, 1.0 / 3600, 0), 1.0, kExact);
  // At Dec 60 an RA step of 2" of time-angle is 1" on the sky.
  EXPECT_NEAR(AngularSeparationArcsec(100, 60, 100 + 2.0 / 3600, 60),
              Haversine(100, 60, 100 + 2.0L / 3600, 60), kExact);
  EXPECT_NEAR(AngularSeparationArcsec(100, 60, 100 + 2.0 / 3600, 60), 1.0,
              1e-7);  // 1" minus the small-circle/great-circle difference
}

TEST(AngularSeparationTest, AcrossRightAscensionZero) {
  // 0.0002 degrees = 0.72" apart, not 359.9998 degrees.
  EXPECT_NEAR(AngularSeparationArcsec(359.9999, 0, 0.0001, 0), 0.72, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(0.0001, 0, 359.9999, 0), 0.72, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(359.99999, 10, 0.00001, 10),
              Haversine(359.99999L, 10, 360.00001L, 10), kExact);
  EXPECT_NEAR(AngularSeparationArcsec(359.5, -30, 0.5, -30),
              Haversine(-0.5L, -30, 0.5L, -30), kExact);
}

TEST(AngularSeparationTest, NearThePoles) {
  // Opposite RA at 89.9999: the great circle runs over the pole.
  EXPECT_NEAR(AngularSeparationArcsec(0, 89.9999, 180, 89.9999), 0.72, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(0, -89.9999, 180, -89.9999), 0.72,
              kExact);
  // 90 degrees of RA apart at colatitude 0.0001 degrees:
  // 2 asin(sin(0.0001 deg) sin(45 deg)) = 0.509116882454...".
  EXPECT_NEAR(AngularSeparationArcsec(0, 89.9999, 90, 89.9999),
              Haversine(0, 89.9999L, 90, 89.9999L), kExact);
  EXPECT_NEAR(AngularSeparationArcsec(0, 89.9999, 90, 89.9999), 0.509116882454,
              1e-9);
  EXPECT_NEAR(AngularSeparationArcsec(45, -89.9999, 315, -89.9999),
              0.509116882454, 1e-9);
  // At the pole itself RA does not matter.
  EXPECT_NEAR(AngularSeparationArcsec(10, 90, 200, 90), 0.0, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(10, -90, 300, -90), 0.0, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(10, 90, 200, 90 - 1.0 / 3600), 1.0,
              kExact);
}

TEST(AngularSeparationTest, AntipodesAre648000Arcseconds) {
  EXPECT_NEAR(AngularSeparationArcsec(0, 0, 180, 0), 648000, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(10, 45, 190, -45), 648000, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(0, 90, 0, -90), 648000, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(359.5, -30, 179.5, 30), 648000, kExact);
}

TEST(AngularSeparationTest, QuarterCircles) {
  EXPECT_NEAR(AngularSeparationArcsec(0, 0, 90, 0), 324000, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(0, 0, 0, 90), 324000, kExact);
  EXPECT_NEAR(AngularSeparationArcsec(0, 0, 270, 0), 324000, kExact);
}

TEST(AngularSeparationTest, AgreesWithHaversineAndIsSymmetric) {
  const double points[][2] = {{0, 0},
                              {359.9, 89.5},
                              {180, -89.99},
                              {317.9024208, 48.1505417},
                              {267.55487, -6.70794},
                              {106.0200833, -3.8473611},
                              {0.000001, -0.000001}};
  for (const auto& a : points) {
    for (const auto& b : points) {
      double ab = AngularSeparationArcsec(a[0], a[1], b[0], b[1]);
      double ba = AngularSeparationArcsec(b[0], b[1], a[0], a[1]);
      EXPECT_NEAR(ab, ba, kExact);
      EXPECT_NEAR(ab, Haversine(a[0], a[1], b[0], b[1]), 1e-6)
          << a[0] << "," << a[1] << " " << b[0] << "," << b[1];
    }
  }
}

TEST(AngularSeparationTest, RejectsInvalidCoordinatesNamingTheArgument) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange,
      [] { AngularSeparationArcsec(360, 0, 0, 0); },
      "invalid coordinates: ra1_deg = 360 is not in [0, 360) degrees"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange,
      [] { AngularSeparationArcsec(0, 0, -0.1, 0); },
      "invalid coordinates: ra2_deg = -0.1 is not in [0, 360) degrees"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange,
      [] { AngularSeparationArcsec(0, 90.0001, 0, 0); },
      "invalid coordinates: dec1_deg = 90.0001 is not in [-90, 90] degrees"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange,
      [] { AngularSeparationArcsec(0, 0, 0, -91); },
      "invalid coordinates: dec2_deg = -91 is not in [-90, 90] degrees"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kNotFinite,
      [&] { AngularSeparationArcsec(nan, 0, 0, 0); },
      "invalid coordinates: ra1_deg = nan is not a finite number"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kNotFinite,
      [&] { AngularSeparationArcsec(0, 0, 0, inf); },
      "invalid coordinates: dec2_deg = inf is not a finite number"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kNotFinite,
      [&] { AngularSeparationArcsec(0, -inf, 0, 0); },
      "invalid coordinates: dec1_deg = -inf is not a finite number"));
  // The edges that are valid.
  EXPECT_NO_THROW(
      AngularSeparationArcsec(0, -90, std::nextafter(360.0, 0), 90));
}

TEST(ValidateCoordinatesTest, NamesTheCallersFields) {
  EXPECT_NO_THROW(ValidateCoordinates(0, 0));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange,
      [] { ValidateCoordinates(400, 0, "resolved_ra", "resolved_dec"); },
      "invalid coordinates: resolved_ra = 400 is not in [0, 360) degrees"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange, [] { ValidateCoordinates(1, 100); },
      "invalid coordinates: dec_deg = 100 is not in [-90, 90] degrees"));
}

// --- Bands -------------------------------------------------------------------

TEST(ClassifyMinimumSeparationTest, BandsFollowTheSpecsChoiceState) {
  EXPECT_EQ(kDuplicateBelowArcsec, 2.0);
  EXPECT_EQ(kAmbiguousUpToArcsec, 10.0);
  using C = CoordinateClassification;
  EXPECT_EQ(ClassifyMinimumSeparation(std::nullopt), (C{std::nullopt, "NONE"}));
  EXPECT_EQ(ClassifyMinimumSeparation(0.0), (C{0.0, "DUPLICATE"}));
  EXPECT_EQ(ClassifyMinimumSeparation(1.0), (C{1.0, "DUPLICATE"}));
  EXPECT_EQ(ClassifyMinimumSeparation(1.9999999), (C{1.9999999, "DUPLICATE"}));
  const double below_two = std::nextafter(2.0, 0.0);
  EXPECT_EQ(ClassifyMinimumSeparation(below_two), (C{below_two, "DUPLICATE"}));
  // lt: 2 -> exactly 2.0" is not a duplicate.
  EXPECT_EQ(ClassifyMinimumSeparation(2.0), (C{2.0, "AMBIGUOUS"}));
  EXPECT_EQ(ClassifyMinimumSeparation(5.0), (C{5.0, "AMBIGUOUS"}));
  // le: 10 -> exactly 10.0" is still ambiguous.
  EXPECT_EQ(ClassifyMinimumSeparation(10.0), (C{10.0, "AMBIGUOUS"}));
  EXPECT_EQ(ClassifyMinimumSeparation(10.0000001), (C{10.0000001, "NONE"}));
  const double above_ten = std::nextafter(10.0, 11.0);
  EXPECT_EQ(ClassifyMinimumSeparation(above_ten), (C{above_ten, "NONE"}));
  EXPECT_EQ(ClassifyMinimumSeparation(648000.0), (C{648000.0, "NONE"}));
}

TEST(ClassifyMinimumSeparationTest, RejectsImpossibleSeparations) {
  EXPECT_TRUE(Fails(
      CoordinateFailure::kInvalidSeparation,
      [] { ClassifyMinimumSeparation(-0.1); },
      "invalid separation: -0.1 arcsec is not a finite non-negative number"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kInvalidSeparation,
      [] { ClassifySeparation(std::numeric_limits<double>::quiet_NaN()); },
      "invalid separation: nan arcsec is not a finite non-negative number"));
}

// --- MatchCoordinates --------------------------------------------------------

constexpr double kRa = 317.9024208;  // V1500 Cyg
constexpr double kDec = 48.1505417;

TEST(MatchCoordinatesTest, NoExistingNovaIsNoneWithNullSeparation) {
  EXPECT_EQ(
      MatchCoordinates(kRa, kDec, {}),
      (CoordinateMatch{std::nullopt, "NONE", std::nullopt, std::nullopt}));
}

TEST(MatchCoordinatesTest, DuplicateNamesTheExistingNova) {
  CoordinateMatch m =
      MatchCoordinates(kRa, kDec + 1.0 / 3600,
                       {{"nova-far", 10, 10}, {"nova-v1500", kRa, kDec}});
  ASSERT_TRUE(m.min_sep_arcsec.has_value());
  EXPECT_NEAR(*m.min_sep_arcsec, 1.0, kExact);
  EXPECT_EQ(m.outcome, "DUPLICATE");
  EXPECT_EQ(m.nearest_nova_id, "nova-v1500");
  EXPECT_EQ(m.duplicate_nova_id, "nova-v1500");
}

TEST(MatchCoordinatesTest, AmbiguousAndNoneDoNotHandOnANovaId) {
  CoordinateMatch five =
      MatchCoordinates(kRa, kDec + 5.0 / 3600, {{"nova-v1500", kRa, kDec}});
  EXPECT_NEAR(*five.min_sep_arcsec, 5.0, kExact);
  EXPECT_EQ(five.outcome, "AMBIGUOUS");
  EXPECT_EQ(five.nearest_nova_id, "nova-v1500");
  EXPECT_EQ(five.duplicate_nova_id, std::nullopt);

  CoordinateMatch far =
      MatchCoordinates(kRa, kDec + 20.0 / 3600, {{"nova-v1500", kRa, kDec}});
  EXPECT_NEAR(*far.min_sep_arcsec, 20.0, kExact);
  EXPECT_EQ(far.outcome, "NONE");
  EXPECT_EQ(far.nearest_nova_id, "nova-v1500");
  EXPECT_EQ(far.duplicate_nova_id, std::nullopt);
}

TEST(MatchCoordinatesTest, TheMinimumWinsAndTiesGoToTheSmallestId) {
  CoordinateMatch m = MatchCoordinates(
      0, 0,
      {{"c", 0, 3.0 / 3600}, {"b", 0, -3.0 / 3600}, {"a", 0, 30.0 / 3600}});
  EXPECT_NEAR(*m.min_sep_arcsec, 3.0, kExact);
  EXPECT_EQ(m.outcome, "AMBIGUOUS");
  EXPECT_EQ(m.nearest_nova_id, "b");
}

TEST(MatchCoordinatesTest, TwoNovaeInTheDuplicateBandIsAQuarantine) {
  EXPECT_TRUE(Fails(
      CoordinateFailure::kAmbiguousMatch,
      [] {
        MatchCoordinates(kRa, kDec,
                         {{"nova-b", kRa, kDec + 1.0 / 3600},
                          {"nova-a", kRa, kDec},
                          {"nova-c", kRa, kDec + 3.0 / 3600}});
      },
      "coordinate match is ambiguous: 2 existing novae within 2\" of "
      "(317.9024208, 48.1505417): nova-a at 0.000\", nova-b at 1.000\""));
}

TEST(MatchCoordinatesTest, InvalidCoordinatesAreTerminal) {
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange, [] { MatchCoordinates(360, 0, {}); },
      "invalid coordinates: resolved_ra = 360 is not in [0, 360) degrees"));
  EXPECT_TRUE(Fails(
      CoordinateFailure::kOutOfRange,
      [] {
        MatchCoordinates(0, 0, {{"nova-x", 0, -95}});
      },
      "invalid coordinates: dec_deg of nova nova-x = -95 is not in [-90, 90] "
      "degrees"));
}

}  // namespace
}  // namespace coordinates_test
}  // namespace novacat::domain
