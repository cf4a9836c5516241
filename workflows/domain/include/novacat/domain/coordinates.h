// Angular separation and the coordinate-match bands of initialize_nova
// (CheckExistingNovaByCoordinates, CoordinateMatchClassification?).
//
// Coordinates are equatorial, in degrees, in one frame (ICRS / J2000, what
// the archives return): no precession is applied. RA must lie in [0, 360)
// and Dec in [-90, 90], both finite; anything else is a CoordinateError
// (failure.h: kNotFinite, kOutOfRange) naming the argument: "invalid
// coordinates: ra1_deg = 360 is not in [0, 360) degrees".
//
// Bands of the minimum separation s, in arcseconds, as the spec's Choice
// state routes them (specs/initialize_nova.yaml: `lt: 2` first, then
// `le: 10`):
//
//   s <  2            DUPLICATE  (UpsertAliasForExistingNova)
//   2 <= s <= 10      AMBIGUOUS  (quarantine: coordinate_match_ambiguous)
//   s >  10           NONE       (continue: CandidateIsNova?)
//   no candidate      NONE, with min_sep null
//
// so exactly 2.0" and exactly 10.0" are AMBIGUOUS, 1.9999999" is
// DUPLICATE and 10.0000001" is NONE. The Choice routes on the number;
// the outcome string is for the log field coordinate_match_outcome and
// always agrees with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/failure.h"

namespace novacat::domain {

inline constexpr double kDuplicateBelowArcsec = 2.0;
inline constexpr double kAmbiguousUpToArcsec = 10.0;

// Throws CoordinateError (kNotFinite, kOutOfRange) unless ra_deg is finite
// and in [0, 360) and dec_deg finite and in [-90, 90]; the message names
// `ra_name` / `dec_name`.
void ValidateCoordinates(double ra_deg, double dec_deg,
                         std::string_view ra_name = "ra_deg",
                         std::string_view dec_name = "dec_deg");

// The great-circle distance between two positions, in arcseconds, by the
// Vincenty formula (atan2 of the cross and dot products of the two unit
// vectors): accurate to ~1e-10" for coincident points, across RA 0/360, at
// the poles and for antipodes (648000"). Identical inputs give exactly 0.
// Throws as ValidateCoordinates, naming ra1_deg, dec1_deg, ra2_deg or
// dec2_deg.
double AngularSeparationArcsec(double ra1_deg, double dec1_deg, double ra2_deg,
                               double dec2_deg);

// "DUPLICATE", "AMBIGUOUS" or "NONE" for a separation (see the bands).
// Throws CoordinateError kInvalidSeparation for a negative or non-finite
// separation.
std::string ClassifySeparation(double separation_arcsec);

struct CoordinateClassification {
  std::optional<double> min_sep_arcsec;  // null when there was no candidate
  std::string outcome;                   // DUPLICATE, AMBIGUOUS or NONE
  bool operator==(const CoordinateClassification&) const = default;
};

// The spec's coordinate_match_min_sep_arcsec and coordinate_match_outcome
// for a minimum separation (nullopt: no existing nova has coordinates).
CoordinateClassification ClassifyMinimumSeparation(
    std::optional<double> min_sep_arcsec);

// An existing nova's position, as stored.
struct NovaPosition {
  std::string nova_id;
  double ra_deg = 0;
  double dec_deg = 0;
};

struct CoordinateMatch {
  std::optional<double> min_sep_arcsec;  // null when `existing` is empty
  std::string outcome;                   // DUPLICATE, AMBIGUOUS or NONE
  // The nova at the minimum separation (ties: the smallest nova_id), set
  // whenever min_sep_arcsec is.
  std::optional<std::string> nearest_nova_id;
  // nearest_nova_id when the outcome is DUPLICATE: the nova_id
  // CheckExistingNovaByCoordinates produces. Unset otherwise, so that the
  // step never hands an ambiguous or distant nova downstream.
  std::optional<std::string> duplicate_nova_id;
  bool operator==(const CoordinateMatch&) const = default;
};

// Matches a resolved position against the existing novae. Throws
// CoordinateError kNotFinite / kOutOfRange for invalid coordinates (the
// resolved ones named resolved_ra / resolved_dec, an existing nova's named
// by its nova_id), and kAmbiguousMatch when two or more existing novae lie
// in the DUPLICATE band: the alias would belong to either, which needs
// review
// ("coordinate match is ambiguous: 2 existing novae within 2\" of (ra, dec):
// <id> at 0.500\", <id> at 1.200\"").
CoordinateMatch MatchCoordinates(double resolved_ra_deg,
                                 double resolved_dec_deg,
                                 const std::vector<NovaPosition>& existing);

}  // namespace novacat::domain
