#include "novacat/domain/coordinates.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "internal.h"

namespace novacat::domain {
namespace {

using internal::FormatDouble;
using internal::FormatFixed;

constexpr double kDegToRad = std::numbers::pi / 180.0;
constexpr double kRadToArcsec = 180.0 / std::numbers::pi * 3600.0;

[[noreturn]] void InvalidCoordinate(CoordinateFailure failure,
                                    std::string_view name, double value,
                                    std::string_view why) {
  throw CoordinateError(failure, "invalid coordinates: " + std::string(name) +
                                     " = " + FormatDouble(value) + " " +
                                     std::string(why));
}

}  // namespace

void ValidateCoordinates(double ra_deg, double dec_deg,
                         std::string_view ra_name, std::string_view dec_name) {
  if (!std::isfinite(ra_deg)) {
    InvalidCoordinate(CoordinateFailure::kNotFinite, ra_name, ra_deg,
                      "is not a finite number");
  }
  if (ra_deg < 0 || ra_deg >= 360) {
    InvalidCoordinate(CoordinateFailure::kOutOfRange, ra_name, ra_deg,
                      "is not in [0, 360) degrees");
  }
  if (!std::isfinite(dec_deg)) {
    InvalidCoordinate(CoordinateFailure::kNotFinite, dec_name, dec_deg,
                      "is not a finite number");
  }
  if (dec_deg < -90 || dec_deg > 90) {
    InvalidCoordinate(CoordinateFailure::kOutOfRange, dec_name, dec_deg,
                      "is not in [-90, 90] degrees");
  }
}

double AngularSeparationArcsec(double ra1_deg, double dec1_deg, double ra2_deg,
                               double dec2_deg) {
  ValidateCoordinates(ra1_deg, dec1_deg, "ra1_deg", "dec1_deg");
  ValidateCoordinates(ra2_deg, dec2_deg, "ra2_deg", "dec2_deg");
  // The RA difference is reduced to [-180, 180] in degrees first:
  // std::remainder is exact, so 0.0001 - 359.9999 becomes 0.0002 without
  // the rounding of a radian reduction.
  const double dra = std::remainder(ra2_deg - ra1_deg, 360.0) * kDegToRad;
  const double d1 = dec1_deg * kDegToRad;
  const double d2 = dec2_deg * kDegToRad;
  const double sin_d1 = std::sin(d1), cos_d1 = std::cos(d1);
  const double sin_d2 = std::sin(d2), cos_d2 = std::cos(d2);
  const double sin_dra = std::sin(dra), cos_dra = std::cos(dra);
  // Vincenty: atan2(|a x b|, a . b) for the unit vectors a and b.
  const double x = cos_d2 * sin_dra;
  const double y = cos_d1 * sin_d2 - sin_d1 * cos_d2 * cos_dra;
  const double z = sin_d1 * sin_d2 + cos_d1 * cos_d2 * cos_dra;
  return std::atan2(std::hypot(x, y), z) * kRadToArcsec;
}

std::string ClassifySeparation(double separation_arcsec) {
  if (!std::isfinite(separation_arcsec) || separation_arcsec < 0) {
    throw CoordinateError(
        CoordinateFailure::kInvalidSeparation,
        "invalid separation: " + FormatDouble(separation_arcsec) +
            " arcsec is not a finite non-negative number");
  }
  if (separation_arcsec < kDuplicateBelowArcsec) return "DUPLICATE";
  if (separation_arcsec <= kAmbiguousUpToArcsec) return "AMBIGUOUS";
  return "NONE";
}

CoordinateClassification ClassifyMinimumSeparation(
    std::optional<double> min_sep_arcsec) {
  if (!min_sep_arcsec) return {std::nullopt, "NONE"};
  return {min_sep_arcsec, ClassifySeparation(*min_sep_arcsec)};
}

CoordinateMatch MatchCoordinates(double resolved_ra_deg,
                                 double resolved_dec_deg,
                                 const std::vector<NovaPosition>& existing) {
  ValidateCoordinates(resolved_ra_deg, resolved_dec_deg, "resolved_ra",
                      "resolved_dec");
  struct Candidate {
    double separation;
    const std::string* nova_id;
  };
  std::vector<Candidate> candidates;
  candidates.reserve(existing.size());
  for (const NovaPosition& nova : existing) {
    ValidateCoordinates(nova.ra_deg, nova.dec_deg,
                        "ra_deg of nova " + nova.nova_id,
                        "dec_deg of nova " + nova.nova_id);
    candidates.push_back(
        {AngularSeparationArcsec(resolved_ra_deg, resolved_dec_deg, nova.ra_deg,
                                 nova.dec_deg),
         &nova.nova_id});
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) {
              if (a.separation != b.separation) {
                return a.separation < b.separation;
              }
              return *a.nova_id < *b.nova_id;
            });
  CoordinateMatch match;
  if (candidates.empty()) {
    match.outcome = "NONE";
    return match;
  }
  size_t duplicates = 0;
  while (duplicates < candidates.size() &&
         candidates[duplicates].separation < kDuplicateBelowArcsec) {
    ++duplicates;
  }
  if (duplicates > 1) {
    std::string list;
    for (size_t i = 0; i < duplicates; ++i) {
      list += (i == 0 ? "" : ", ") + *candidates[i].nova_id + " at " +
              FormatFixed(candidates[i].separation, 3) + "\"";
    }
    throw CoordinateError(
        CoordinateFailure::kAmbiguousMatch,
        "coordinate match is ambiguous: " + std::to_string(duplicates) +
            " existing novae within 2\" of (" + FormatDouble(resolved_ra_deg) +
            ", " + FormatDouble(resolved_dec_deg) + "): " + list);
  }
  match.min_sep_arcsec = candidates.front().separation;
  match.outcome = ClassifySeparation(candidates.front().separation);
  match.nearest_nova_id = *candidates.front().nova_id;
  if (match.outcome == "DUPLICATE")
    match.duplicate_nova_id = match.nearest_nova_id;
  return match;
}

}  // namespace novacat::domain
