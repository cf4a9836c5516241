// A downloaded spectrum's FITS file, checked before it is catalogued: is it a
// FITS file, complete, with a readable header and matching checksums, does it
// hold a 1-D spectrum (and where: the profile), and is that spectrum usable
// (enough points, finite flux, wavelengths increasing and plausible). A
// gzip-compressed FITS file (MAST serves IUE's spectra as *.mxlo.gz) is
// recognised by its first bytes and checked decompressed.
//
// The step that validates a download calls CheckSpectrum once per file and
// persists what it returns: a valid spectrum's SpectrumCheck::ToJson as its
// validation details and ProfileSelection::ToJson as its profile_selection;
// an invalid one is quarantined with ReasonCode(problem) as its
// quarantine_reason_code and the detail for people. Bad file content is a
// result here, never an exception: only a file that cannot be opened at all
// throws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace novacat::fits {

// Why a file is not a usable 1-D spectrum, in the order CheckSpectrum looks
// for them (a file with several problems reports the first). ReasonCode
// gives the persisted quarantine_reason_code.
enum class SpectrumProblem {
  // "NOT_FITS": not a FITS file at all: empty, or its first bytes are not a
  // SIMPLE card ("SIMPLE  ="); for a gzip-compressed file, the same of its
  // decompressed content, or compressed data that is corrupt (a bad header,
  // invalid deflate data, a CRC-32 or length that does not match, bytes
  // after the last gzip member).
  kNotFits,
  // "TRUNCATED": ends before the data its headers declare (padding to the
  // 2880-byte block included, as the FITS standard requires), or inside a
  // header; for a gzip-compressed file, also compressed data that ends
  // before the end of its gzip stream.
  kTruncated,
  // "TOO_LARGE": a gzip-compressed file whose content decompresses to more
  // than kMaxDecompressedBytes (a gzip bomb, or a product far larger than a
  // 1-D spectrum): not checked. The code a download larger than the
  // downloader's limit is already quarantined with (product_unavailable's
  // "TOO_LARGE: ..."), so a dataset's quarantine_reason_code says the same
  // thing for both.
  kTooLarge,
  // "CORRUPT_HEADER": a header cfitsio cannot parse, a mandatory keyword
  // (BITPIX, NAXIS, NAXISn, XTENSION, TFIELDS, TFORMn, ...) missing or
  // invalid, or a WCS keyword of the chosen spectrum that is not a number.
  kCorruptHeader,
  // "FITS_CHECKSUM_MISMATCH": an HDU's DATASUM or CHECKSUM is present and
  // does not match its content (fits_verify_chksum).
  kChecksumMismatch,
  // "NO_SPECTRUM": no HDU is a 1-D image with a linear wavelength WCS or a
  // binary table with wavelength and flux columns, or the table of the
  // provider's format that the header (or the provider's hints) names does
  // not have that format's layout (ProfileSelection).
  kNoSpectrum,
  // "NON_FINITE_FLUX": a flux value is NaN, infinite or undefined (BLANK,
  // TNULLn).
  kNonFiniteFlux,
  // "NON_MONOTONIC_WAVELENGTH": the wavelengths are not strictly increasing.
  kNonMonotonicWavelength,
  // "IMPLAUSIBLE_WAVELENGTH": a wavelength is not finite or lies outside
  // [kMinWavelengthAngstrom, kMaxWavelengthAngstrom] after unit conversion
  // (Angstrom, nm, um, m), or the unit is none of those.
  kImplausibleWavelength,
  // "TOO_FEW_POINTS": fewer than kMinSpectrumPoints points.
  kTooFewPoints,
};

// The persisted quarantine_reason_code: "NOT_FITS", "TRUNCATED", "TOO_LARGE",
// "CORRUPT_HEADER", "FITS_CHECKSUM_MISMATCH", "NO_SPECTRUM",
// "NON_FINITE_FLUX", "NON_MONOTONIC_WAVELENGTH", "IMPLAUSIBLE_WAVELENGTH",
// "TOO_FEW_POINTS". Fixed forever: stored records name them.
const char* ReasonCode(SpectrumProblem problem);

inline constexpr int64_t kMinSpectrumPoints = 10;
// The plausible wavelength range, in Angstrom: far UV to far IR.
inline constexpr double kMinWavelengthAngstrom = 100;
inline constexpr double kMaxWavelengthAngstrom = 1e6;
// The most bytes a gzip-compressed file may decompress to (128 MiB). The
// content is held in memory while it is checked (the functions have 512 MB),
// and a 1-D spectrum is far smaller: an IUE MXLO file is some 30 kB, an HST
// x1d or an ESO SDP spectrum a few MB.
inline constexpr int64_t kMaxDecompressedBytes = int64_t{128} << 20;

// How the spectrum was found, so the choice can be replayed (persisted as
// profile_selection).
//
// The profiles. A header that names a provider's product format binds the
// file to that format's profile (the "mission" profiles below): its first
// binary table must then have that format's layout, or the file is
// NO_SPECTRUM, saying what is missing. A mislabelled or unexpected product
// is quarantined for review rather than read by a generic profile that
// might pick the wrong columns (an IUE table's WAVELENGTH is a start
// value, not an array). Only a header that names none is read by the
// generic profiles.
//
//   ESO_SDP_1D: the ESO Science Data Products standard's 1-D spectrum
//     (ESO-044286; Phase 3 products served by ESO's archive), chosen by the
//     primary header's PRODCATG = 'SCIENCE.SPECTRUM' (whatever ORIGIN says:
//     external Phase 3 products carry their institution's). The standard
//     requires an empty primary HDU and one binary table extension with a
//     single row (NAXIS2 = 1) whose cells are arrays of NELEM points: the
//     spectral axis is the column whose TUTYPn is
//     'spec:Data.SpectralAxis.Value' (SPECTRUM v2.0) or
//     'Spectrum.Data.SpectralAxis.Value' (v1.0), the default flux the one
//     whose TUTYPn is 'spec:Data.FluxAxis.Value' or
//     'Spectrum.Data.FluxAxis.Value' (other flux columns carry 'eso:'
//     utypes: FLUX_REDUCED, FLUX_NORM...); without utypes, the columns named
//     WAVE and FLUX. NELEM (the extension's keyword), when present, is the
//     number of points read; it may not exceed the arrays.
//   HST_X1D: HST's extracted 1-D spectra (STIS and COS _x1d, _sx1,
//     _x1dsum), chosen by TELESCOP = 'HST' and INSTRUME 'STIS' or 'COS' in
//     the primary header. The first binary table (extension SCI) has one
//     row per spectral order (STIS SPORDER) or detector segment / stripe
//     (COS SEGMENT), each with WAVELENGTH and FLUX arrays, NELEM (the points
//     of the row, default the array length) and DQ. One row is read: the
//     one with the most good points (DQ & SDQFLAGS == 0, SDQFLAGS from the
//     table's header, every DQ bit when absent, and finite flux), the first
//     of equals. Merging is not done here: echelle orders and COS segments
//     overlap or leave gaps, so a merged spectrum needs resampling and
//     weighting choices that belong to science processing, not to the
//     check of a download; the row with the most usable points is the best
//     evidence that the product holds a usable spectrum, and is recorded
//     so that the choice replays.
//   IUE_MXLO: IUE's NEWSIPS low-dispersion merged extracted spectra (MXLO,
//     as MAST serves them), chosen by TELESCOP = 'IUE'. The binary table has
//     one row per aperture (LARGE first, then SMALL when both were
//     exposed) with APERTURE, NPOINTS, WAVELENGTH (the first wavelength, a
//     scalar), DELTAW (the step: the wavelengths are linear, in vacuum),
//     and arrays NET, BACKGROUND, SIGMA, QUALITY (the nu flags: 0 good) and
//     FLUX: wavelength[i] = WAVELENGTH + i * DELTAW for i < NPOINTS. The row
//     is chosen as for HST_X1D (QUALITY == 0 and finite flux). IUE's
//     high-dispersion MXHI files (TELESCOP 'IUE' too) have no FLUX column
//     and are NO_SPECTRUM.
//   IMAGE_1D_WCS, BINTABLE_COLUMNS: the generic profiles (CheckSpectrum,
//     step 3).
//
// When the header names no mission, the provider's hints may: a MAST
// productSubGroupDescription X1D, SX1 or X1DSUM names HST_X1D, MXLO names
// IUE_MXLO ("selected_by": "provider_hints"). When both name one, the
// header wins: it travels with the bytes, a hint only with the catalogue
// record.
struct ProfileSelection {
  // "ESO_SDP_1D", "HST_X1D", "IUE_MXLO", "IMAGE_1D_WCS" or
  // "BINTABLE_COLUMNS".
  std::string profile;
  // What chose it. IMAGE_1D_WCS: {"hdu": 1, "NAXIS": 1, "CTYPE1": "WAVE",
  // "CUNIT1": "Angstrom", "dispersion": "CDELT1" | "CD1_1", "unit":
  // "Angstrom"} (CTYPE1 and CUNIT1 only when the header has them, as
  // written). BINTABLE_COLUMNS: {"hdu": 2, "layout": "ROWS" | "ARRAY_ROW",
  // "wavelength_column": "WAVE", "flux_column": "FLUX", "unit": "nm"}
  // (column names as written; ROWS: one point per row; ARRAY_ROW: a single
  // row holding both arrays, the ESO SDP layout). hdu is cfitsio's 1-based
  // number (1: the primary HDU); unit is the wavelength unit understood:
  // "Angstrom", "nm", "um" or "m" (absent when it is none of them).
  //
  // The mission profiles add "selected_by": "header" | "provider_hints" and
  // "header": the primary header's PRODCATG, ORIGIN, TELESCOP and INSTRUME
  // that are present, as written. ESO_SDP_1D: {"hdu", "layout":
  // "ARRAY_ROW", "wavelength_column", "flux_column", "columns_by": "TUTYP"
  // | "TTYPE", "NELEM"? (the keyword, when present), "unit"?, ...}.
  // HST_X1D: {"hdu", "layout": "ROW_PER_ORDER", "rows" (the table's),
  // "row" (1-based, the one read), "row_rule": "MOST_GOOD_POINTS",
  // "good_points" (the row's), "order_column"? ("SPORDER" or "SEGMENT")
  // and "order"? (its value in the row), "wavelength_column", "flux_column",
  // "quality_column"? ("DQ"), "SDQFLAGS"?, "NELEM" (the row's points),
  // "unit"?, ...}. IUE_MXLO: {"hdu", "layout": "START_STEP", "rows", "row",
  // "row_rule", "good_points", "APERTURE"? (the row's), "wavelength_column":
  // "WAVELENGTH", "step_column": "DELTAW", "flux_column": "FLUX",
  // "quality_column"? ("QUALITY"), "NPOINTS", "unit"?, ...}.
  //
  // Every profile: "provider_hints", the caller's hints exactly as given,
  // when CheckSpectrum was given some.
  nlohmann::json hints;
  // 64 lower-case hex digits: SHA-256 of the chosen HDU's header, each
  // keyword as "NAME=value\n" in header order (the value as written in the
  // card, trailing blanks removed), without CHECKSUM, DATASUM, DATE*,
  // COMMENT, HISTORY and blank-named cards, which change when a product is
  // re-packaged or re-downloaded while its content does not.
  std::string header_signature;
  // "gzip" when the file was gzip-compressed (the profile, hdu numbers and
  // header signature are then those of its decompressed content, the same
  // as for the uncompressed file); absent for a plain FITS file.
  std::optional<std::string> compression;

  // {"profile": .., "hints": .., "header_signature": .., "compression"?:
  // "gzip"} (compression only when set).
  nlohmann::json ToJson() const;
};

struct SpectrumCheck {
  // Absent: a valid spectrum.
  std::optional<SpectrumProblem> problem;
  // For people, e.g. "flux[17] is NaN"; empty for a valid spectrum.
  std::string detail;
  // Whenever the headers could be read and a profile chosen (also when the
  // spectrum then fails a check, checksums included).
  std::optional<ProfileSelection> profile;
  // The CHECKSUM keyword's value (as written, without quotes) of the chosen
  // HDU, or of the primary HDU when none was chosen; absent when that HDU
  // has none.
  std::optional<std::string> fits_checksum;
  // Some HDU has DATASUM and/or CHECKSUM and every one present verified.
  bool checksum_verified = false;
  // The spectrum's point count once a profile is chosen, and its wavelength
  // range in Angstrom once the wavelengths are read (0 before).
  int64_t points = 0;
  double wavelength_min_angstrom = 0;
  double wavelength_max_angstrom = 0;
  // "gzip" when the file starts with gzip's magic bytes (1f 8b), whatever
  // became of it (also when its compressed data is corrupt); absent for
  // any other file.
  std::optional<std::string> compression;

  bool valid() const { return !problem.has_value(); }
  // The validation details: {"reason_code"?, "detail"?, "compression"?,
  // "points", "wavelength_min_angstrom", "wavelength_max_angstrom",
  // "fits_checksum"?, "checksum_verified"} (members marked ? only when set;
  // keys in
  // nlohmann::json's sorted order, so the text is stable). The profile is
  // not repeated here: ProfileSelection::ToJson is persisted beside it.
  nlohmann::json ToJson() const;
};

// Reads `file` with cfitsio (no extended file name syntax: brackets in a
// name are literal) and checks it, in this order:
//   0. A file that starts with gzip's magic bytes 1f 8b (never judged by its
//      name) is gzip-compressed (compression "gzip"): it is decompressed
//      with zlib into memory, every gzip member in turn, and steps 1 to 6
//      check the decompressed content (their details then say "the
//      decompressed file" where they say "the file"). Corrupt compressed
//      data is NOT_FITS, e.g. "the gzip-compressed data is corrupt (zlib:
//      incorrect data check)"; data that ends early is TRUNCATED, "the
//      gzip-compressed file (N bytes) ends before the end of its compressed
//      data"; more than kMaxDecompressedBytes is TOO_LARGE, "the
//      gzip-compressed file decompresses to more than 134217728 bytes".
//   1. NOT_FITS: empty, or not starting with "SIMPLE  =".
//   2. Every HDU in turn: TRUNCATED when the file ends before the HDU's
//      padded data end or inside its header; CORRUPT_HEADER when cfitsio
//      cannot open or move to it.
//   3. The profile. A mission profile when the primary header (or, when it
//      names none, the provider's hints) names one (ProfileSelection): the
//      first binary table extension read with that profile's layout, or
//      NO_SPECTRUM at step 5 saying why not. Otherwise the first HDU, in
//      file order, that is (a) an image with
//      NAXIS = 1, NAXIS1 > 0 and a linear wavelength WCS (CRVAL1; CDELT1,
//      else CD1_1; CRPIX1, default 1; CUNIT1, default Angstrom; CTYPE1
//      WAVE, LAMBDA, AWAV or absent) or (b) a binary table with a
//      wavelength column (WAVE, WAVELENGTH, LAMBDA; case-insensitive, first
//      alias found) and a flux column (FLUX, FLUX_REDUCED), numeric, either
//      one value per row or a single row holding arrays of equal length;
//      the table's wavelength unit is the column's TUNITn, default
//      Angstrom.
//   4. FITS_CHECKSUM_MISMATCH: fits_verify_chksum on every HDU that has
//      DATASUM or CHECKSUM.
//   5. NO_SPECTRUM when step 3 found nothing; the detail says why each HDU
//      was passed over, or, for a mission profile, what names it and what
//      its table lacks ("the header (TELESCOP 'HST', INSTRUME 'STIS') names
//      the profile HST_X1D, but HDU 2: a binary table without a WAVELENGTH
//      column").
//   6. TOO_FEW_POINTS, NON_FINITE_FLUX (the first bad index),
//      IMPLAUSIBLE_WAVELENGTH for a unit that is not a wavelength unit or
//      a non-finite wavelength,
//      NON_MONOTONIC_WAVELENGTH (the first index not above its
//      predecessor), IMPLAUSIBLE_WAVELENGTH for the range.
// Never throws for bad file content (that is the result's problem); throws
// std::runtime_error only when the file cannot be opened at all (absent,
// unreadable, a directory).
//
// `provider_hints`: what the provider said of the product, e.g. {"provider":
// "MAST", "productSubGroupDescription": "MXLO"} or {"provider": "ESO",
// "collection": "UVES"}; null (the default) when the caller has none. When
// not null it is recorded as given in the profile's hints
// ("provider_hints"); its "productSubGroupDescription" member, a string,
// names a mission profile when the header names none (ProfileSelection).
SpectrumCheck CheckSpectrum(const std::filesystem::path& file,
                            const nlohmann::json& provider_hints = nullptr);

}  // namespace novacat::fits
