// FITS files for the tests of novacat_fits, written with cfitsio: one per
// SpectrumProblem worth exercising, and photometry tables. Deterministic:
// the same kind gives the same bytes on every run (no DATE keyword; the
// checksum keywords' comments carry no time, unlike fits_write_chksum's).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
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
  // The real providers' layouts (spectrum.h, ProfileSelection), small:
  // ESO_SDP_1D, an ESO Phase 3 UVES spectrum: an empty primary HDU with
  // ORIGIN 'ESO', TELESCOP 'ESO-VLT-U2', INSTRUME 'UVES', PRODCATG
  // 'SCIENCE.SPECTRUM', WAVELMIN/WAVELMAX (nm) and the SDP keywords; an
  // extension SPECTRUM (VOCLASS 'SPECTRUM V2.0', NELEM 40) with one row of
  // WAVE (40D, 'angstrom', 4800 to 4995 by 5), FLUX_REDUCED and
  // ERR_REDUCED ('adu', eso: utypes), FLUX and ERR (erg cm**(-2) s**(-1)
  // angstrom**(-1), spec: utypes), an H-beta emission line; DATASUM and
  // CHECKSUM on both HDUs.
  kEsoSdpUves,
  // HST_X1D, a STIS E230M echelle x1d: an empty primary HDU with TELESCOP
  // 'HST', INSTRUME 'STIS', DETECTOR 'NUV-MAMA', OPT_ELEM 'E230M'; an
  // extension SCI (SDQFLAGS 31743) with 3 rows, SPORDER 87, 86, 85, each
  // NELEM 32 of WAVELENGTH (32D, 'Angstroms', 2283, 2310 and 2337 onwards
  // by 1), GROSS, BACKGROUND, NET, FLUX, ERROR, NET_ERROR (32E) and DQ
  // (32I). Serious DQ flags (16): 3 in row 1, 1 in row 2, 2 in row 3; row 2
  // also has 12 points flagged 1024, which SDQFLAGS does not count: row 2
  // (SPORDER 86) has the most good points, 31. Checksums on both HDUs.
  kHstStisX1d,
  // IUE_MXLO, a NEWSIPS SWP low-dispersion MXLO: an empty primary HDU with
  // TELESCOP 'IUE', ORIGIN 'GSFC', CAMERA 'SWP', DISPERSN 'LOW'; a binary
  // table of one row, APERTURE 'LARGE', NPOINTS 64, WAVELENGTH 1130 and
  // DELTAW 14 (1130 to 2012 Angstrom), NET, BACKGROUND, SIGMA (64E),
  // QUALITY (64I) and FLUX (64E); outside the calibrated 1150-1980 FLUX is
  // 0, SIGMA -1 and QUALITY -2, as NEWSIPS writes them (59 good points). No
  // checksums (NEWSIPS wrote none).
  kIueSwpMxlo,
  // kValidTable with TELESCOP 'HST' and INSTRUME 'STIS' added to its
  // primary header (checksums resealed): a table of WAVE and FLUX that
  // claims to be an HST x1d.
  kMislabelledHst,
  // kIueSwpMxlo gzip-compressed (Gzip), as MAST serves IUE's *.mxlo.gz.
  kIueSwpMxloGzip,
  // kIueSwpMxloGzip cut to its first 1000 bytes: the compressed data ends
  // before the end of its gzip stream.
  kTruncatedGzip,
};

// Writes `kind` to `file`, replacing it. Throws std::runtime_error when
// cfitsio fails.
void WriteSpectrumFixture(const std::filesystem::path& file,
                          SpectrumFixture kind);

// `bytes` followed by `zeros` zero bytes, as one gzip member (zlib, level 9,
// compressed as a stream: the zeros are never held in memory), written
// deterministically, as `gzip -9n` does: no file name, modification time 0,
// OS 3 (Unix).
std::string Gzip(std::string_view bytes, int64_t zeros = 0);

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
