// FITS files for the tests of novacat_fits, written with cfitsio: one per
// SpectrumProblem worth exercising, and photometry tables. Deterministic:
// the same kind gives the same bytes on every run (no DATE keyword; the
// checksum keywords' comments carry no time, unlike fits_write_chksum's).
#pragma once

#include <filesystem>
#include <vector>

#include "novacat/fits/photometry.h"

namespace novacat::fits {

enum class SpectrumFixture {
  // IMAGE_1D_WCS: a primary image of 201 float pixels, CRVAL1 3800,
  // CDELT1 16, CRPIX1 1, CTYPE1 'WAVE', CUNIT1 'Angstrom' (3800 to 7000
  // Angstrom), a smooth continuum with an H-alpha emission line, OBJECT
  // 'V1500 Cyg'; DATASUM and CHECKSUM.
  kValidImageWcs,
  // BINTABLE_COLUMNS, ESO SDP layout: an empty primary HDU and a binary
  // table SPECTRUM with one row holding WAVE (201 doubles, TUNIT 'nm', 380
  // to 700) and FLUX (201 floats); DATASUM and CHECKSUM on both HDUs.
  kValidTable,
  // kValidImageWcs cut to 2980 bytes (its header and 100 bytes of data).
  kTruncated,
  // kValidImageWcs with its NAXIS1 card's value replaced by 'abc'.
  kCorruptHeader,
  // kValidImageWcs with flux[17] NaN (checksums valid).
  kNanFlux,
  // kValidImageWcs with DATASUM '1234567890' and the CHECKSUM that makes
  // the HDU itself consistent: only the data sum is wrong.
  kWrongDatasum,
  // kValidTableRows with the wavelengths in decreasing order.
  kDescendingWavelength,
  // A CSV text file.
  kNotFits,
  // Additions beyond the first set:
  // BINTABLE_COLUMNS, one point per row: an empty primary HDU and a binary
  // table with columns "wavelength" (Angstrom, 3800 to 7000 in steps of 16)
  // and "flux", no checksums.
  kValidTableRows,
  // kValidImageWcs with 5 pixels.
  kTooFewPoints,
  // kValidImageWcs with CUNIT1 'm' (3.8e13 to 7e13 Angstrom).
  kImplausibleWavelength,
  // A 2-D primary image (20 x 10) and a binary table with WAVE and SIGMA
  // columns but no flux column.
  kNoSpectrum,
};

// Writes `kind` to `file`, replacing it. Throws std::runtime_error when
// cfitsio fails.
void WriteSpectrumFixture(const std::filesystem::path& file,
                          SpectrumFixture kind);

// Writes `rows` as a binary table PHOTOMETRY after an empty primary HDU:
// columns MJD (D), MAG (D), MAG_ERR (D), BAND (8A); DATASUM and CHECKSUM.
// Replaces `file`. Throws std::runtime_error when cfitsio fails.
void WritePhotometryFits(const std::filesystem::path& file,
                         const std::vector<PhotometryRow>& rows);

// The rows of fixtures/photometry/v1500cyg_aavso.csv, in its order, time
// as MJD (the CSV has JD): 12 rows of V1500 Cyg in 1975, bands V and B,
// the 6th row with magnitude_error 0 and the 10th with an empty band (both
// bad).
std::vector<PhotometryRow> V1500CygPhotometryRows();

}  // namespace novacat::fits
