// A nova's photometry (a light curve) as a table of magnitudes, read from a
// FITS binary table or a CSV file and checked: the required columns are
// there, and which rows are usable. Bad rows are counted and skipped, not
// fatal; a file is rejected only when it cannot be read, lacks a required
// column or has no usable row.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace novacat::fits {

enum class PhotometryProblem {
  // "UNREADABLE": an empty file, a FITS file cfitsio cannot read or without
  // a binary table, a CSV file that is not text (a NUL byte).
  kUnreadable,
  // "MISSING_COLUMNS": a required column (time, magnitude, error, band) is
  // absent.
  kMissingColumns,
  // "NO_USABLE_ROWS": every row is bad, or there is none.
  kNoUsableRows,
};

// The persisted reason code: "UNREADABLE", "MISSING_COLUMNS",
// "NO_USABLE_ROWS". Fixed forever.
const char* ReasonCode(PhotometryProblem problem);

struct PhotometryRow {
  double time_mjd;
  double magnitude;
  double magnitude_error;
  std::string band;
  bool operator==(const PhotometryRow&) const = default;
};

struct PhotometryCheck {
  std::optional<PhotometryProblem> problem;
  // For people: the problem, or for a usable file with bad rows, the first
  // few of them ("2 bad rows: line 7: magnitude_error 0 is not positive;
  // ..."); empty otherwise.
  std::string detail;
  // "FITS_BINTABLE" or "CSV".
  std::string format;
  // Data rows read (CSV: lines after the header that are neither blank nor
  // comments), those kept and those skipped as bad.
  int64_t rows_total = 0, rows_usable = 0, rows_bad = 0;
  // Of the usable rows: their bands, sorted and unique, and their time
  // range (0 when there is none).
  std::vector<std::string> bands;
  double time_min_mjd = 0, time_max_mjd = 0;
  // The usable rows, in file order.
  std::vector<PhotometryRow> rows;

  bool valid() const { return !problem.has_value(); }
  // Everything but rows: {"reason_code"?, "detail"?, "format", "rows_total",
  // "rows_usable", "rows_bad", "bands", "time_min_mjd", "time_max_mjd"}
  // (? only when set; keys in nlohmann::json's sorted order).
  nlohmann::json ToJson() const;
};

// Reads `file`: a FITS file (starting with "SIMPLE  =") from its first binary
// table (cfitsio, no extended file name syntax), anything else as CSV.
//
// Columns are found by name, case-insensitively, the first alias present
// winning: time: TIME, MJD, JD (JD is converted: MJD = JD - 2400000.5; TIME
// is taken as MJD); magnitude: MAGNITUDE, MAG; error: MAGNITUDE_ERROR,
// MAG_ERR, ERR, UNCERTAINTY (AAVSO's name); band: BAND, FILTER. Other
// columns are ignored.
//
// A row is bad (counted in rows_bad and skipped) when a number does not
// parse (the whole field, after trimming blanks) or is not finite, when time
// <= 0 or error <= 0, or when the band is empty after trimming.
//
// CSV: the first line that is neither blank nor a comment is the header;
// fields are comma-separated and trimmed, and a field wholly in double
// quotes loses them (no quoted commas); blank lines and lines starting with
// '#' are ignored; CRLF line ends are accepted. A line with too few fields
// is a bad row.
//
// Never throws for bad content; throws std::runtime_error only when the file
// cannot be opened at all (absent, unreadable, a directory), as
// CheckSpectrum does.
PhotometryCheck CheckPhotometry(const std::filesystem::path& file);

}  // namespace novacat::fits
