// CheckSpectrum on every SpectrumFixture (written into a temporary folder),
// on files cut or garbled by hand, and on the committed fixtures/spectra.
#include "novacat/fits/spectrum.h"

#include <fitsio.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "novacat/fits/fixtures.h"

namespace novacat::fits {
namespace spectrum_test {
namespace {

namespace fs = std::filesystem;

class SpectrumTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("novacat_fits_" + std::string(info->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path Write(SpectrumFixture kind, const std::string& name = "f.fits") {
    fs::path file = dir_ / name;
    WriteSpectrumFixture(file, kind);
    return file;
  }
  SpectrumCheck Check(SpectrumFixture kind) {
    return CheckSpectrum(Write(kind));
  }

  fs::path dir_;
};

void ExpectProblem(const SpectrumCheck& check, SpectrumProblem problem,
                   const std::string& detail) {
  ASSERT_TRUE(check.problem.has_value()) << "valid, expected " << detail;
  EXPECT_STREQ(ReasonCode(*check.problem), ReasonCode(problem));
  EXPECT_EQ(check.detail, detail);
  EXPECT_FALSE(check.valid());
}

bool IsLowerHex64(const std::string& text) {
  if (text.size() != 64) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

TEST(ReasonCodeTest, EveryProblemHasItsPersistedCode) {
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kNotFits), "NOT_FITS");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kTruncated), "TRUNCATED");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kTooLarge), "TOO_LARGE");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kCorruptHeader), "CORRUPT_HEADER");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kChecksumMismatch),
               "FITS_CHECKSUM_MISMATCH");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kNoSpectrum), "NO_SPECTRUM");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kNonFiniteFlux), "NON_FINITE_FLUX");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kNonMonotonicWavelength),
               "NON_MONOTONIC_WAVELENGTH");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kImplausibleWavelength),
               "IMPLAUSIBLE_WAVELENGTH");
  EXPECT_STREQ(ReasonCode(SpectrumProblem::kTooFewPoints), "TOO_FEW_POINTS");
}

TEST_F(SpectrumTest, ValidImageWcs) {
  SpectrumCheck check = Check(SpectrumFixture::kValidImageWcs);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.detail, "");
  EXPECT_EQ(check.points, 201);
  EXPECT_EQ(check.wavelength_min_angstrom, 3800);
  EXPECT_EQ(check.wavelength_max_angstrom, 7000);
  EXPECT_TRUE(check.checksum_verified);
  ASSERT_TRUE(check.fits_checksum.has_value());
  EXPECT_EQ(check.fits_checksum->size(), 16u);
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(check.profile->profile, "IMAGE_1D_WCS");
  EXPECT_EQ(check.profile->hints, nlohmann::json({{"hdu", 1},
                                                  {"NAXIS", 1},
                                                  {"CTYPE1", "WAVE"},
                                                  {"CUNIT1", "Angstrom"},
                                                  {"dispersion", "CDELT1"},
                                                  {"unit", "Angstrom"}}));
  EXPECT_TRUE(IsLowerHex64(check.profile->header_signature))
      << check.profile->header_signature;
  EXPECT_EQ(check.ToJson(),
            nlohmann::json({{"points", 201},
                            {"wavelength_min_angstrom", 3800.0},
                            {"wavelength_max_angstrom", 7000.0},
                            {"fits_checksum", *check.fits_checksum},
                            {"checksum_verified", true}}));
  EXPECT_EQ(
      check.profile->ToJson(),
      nlohmann::json({{"profile", "IMAGE_1D_WCS"},
                      {"hints", check.profile->hints},
                      {"header_signature", check.profile->header_signature}}));
}

TEST_F(SpectrumTest, ValidTableInTheEsoLayoutConvertsNanometres) {
  SpectrumCheck check = Check(SpectrumFixture::kValidTable);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 201);
  EXPECT_EQ(check.wavelength_min_angstrom, 3800);
  EXPECT_EQ(check.wavelength_max_angstrom, 7000);
  EXPECT_TRUE(check.checksum_verified);
  ASSERT_TRUE(check.fits_checksum.has_value());
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(check.profile->profile, "BINTABLE_COLUMNS");
  EXPECT_EQ(check.profile->hints, nlohmann::json({{"hdu", 2},
                                                  {"layout", "ARRAY_ROW"},
                                                  {"wavelength_column", "WAVE"},
                                                  {"flux_column", "FLUX"},
                                                  {"unit", "nm"}}));
  EXPECT_TRUE(IsLowerHex64(check.profile->header_signature));
}

TEST_F(SpectrumTest, ValidTableWithOnePointPerRowAndLowerCaseNames) {
  SpectrumCheck check = Check(SpectrumFixture::kValidTableRows);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 201);
  EXPECT_EQ(check.wavelength_min_angstrom, 3800);
  EXPECT_EQ(check.wavelength_max_angstrom, 7000);
  EXPECT_FALSE(check.checksum_verified);  // it has none
  EXPECT_FALSE(check.fits_checksum.has_value());
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(check.profile->hints,
            nlohmann::json({{"hdu", 2},
                            {"layout", "ROWS"},
                            {"wavelength_column", "wavelength"},
                            {"flux_column", "flux"},
                            {"unit", "Angstrom"}}));
  EXPECT_EQ(check.ToJson(), nlohmann::json({{"points", 201},
                                            {"wavelength_min_angstrom", 3800.0},
                                            {"wavelength_max_angstrom", 7000.0},
                                            {"checksum_verified", false}}));
}

TEST_F(SpectrumTest, HeaderSignatureIsStableAcrossWritesAndTellsHeadersApart) {
  SpectrumCheck first =
      CheckSpectrum(Write(SpectrumFixture::kValidImageWcs, "a.fits"));
  SpectrumCheck second =
      CheckSpectrum(Write(SpectrumFixture::kValidImageWcs, "b.fits"));
  SpectrumCheck nan = CheckSpectrum(Write(SpectrumFixture::kNanFlux, "c.fits"));
  SpectrumCheck fewer =
      CheckSpectrum(Write(SpectrumFixture::kTooFewPoints, "d.fits"));
  SpectrumCheck table =
      CheckSpectrum(Write(SpectrumFixture::kValidTable, "e.fits"));
  ASSERT_TRUE(first.profile && second.profile && nan.profile && fewer.profile &&
              table.profile);
  EXPECT_EQ(first.profile->header_signature, second.profile->header_signature);
  EXPECT_EQ(first.fits_checksum, second.fits_checksum);
  // Same keywords and values; only the data differ.
  EXPECT_EQ(first.profile->header_signature, nan.profile->header_signature);
  // NAXIS1 5 instead of 201; a table's header.
  EXPECT_NE(first.profile->header_signature, fewer.profile->header_signature);
  EXPECT_NE(first.profile->header_signature, table.profile->header_signature);
}

TEST_F(SpectrumTest, HeaderSignatureIgnoresChecksumsDatesCommentsAndHistory) {
  fs::path file = Write(SpectrumFixture::kValidTableRows);
  std::string before = CheckSpectrum(file).profile->header_signature;
  // What re-packaging adds to the table's header.
  int status = 0;
  fitsfile* raw = nullptr;
  fits_open_diskfile(&raw, file.c_str(), READWRITE, &status);
  fits_movabs_hdu(raw, 2, nullptr, &status);
  fits_write_date(raw, &status);
  fits_write_key_str(raw, "DATE-OBS", "1975-08-30", "observed", &status);
  fits_write_history(raw, "reprocessed", &status);
  fits_write_comment(raw, "a comment", &status);
  fits_write_chksum(raw, &status);
  fits_close_file(raw, &status);
  ASSERT_EQ(status, 0);
  SpectrumCheck after = CheckSpectrum(file);
  ASSERT_TRUE(after.valid()) << after.detail;
  EXPECT_TRUE(after.checksum_verified);
  EXPECT_EQ(after.profile->header_signature, before);

  // A keyword that is the product's own changes it.
  fits_open_diskfile(&raw, file.c_str(), READWRITE, &status);
  fits_movabs_hdu(raw, 2, nullptr, &status);
  fits_write_key_str(raw, "OBJECT", "V1500 Cyg", "target", &status);
  fits_close_file(raw, &status);
  ASSERT_EQ(status, 0);
  EXPECT_NE(CheckSpectrum(file).profile->header_signature, before);
}

TEST_F(SpectrumTest, Truncated) {
  ExpectProblem(Check(SpectrumFixture::kTruncated), SpectrumProblem::kTruncated,
                "the file has 2980 bytes but HDU 1's data ends at byte 5760");
}

TEST_F(SpectrumTest, TruncatedByHandAnywhere) {
  fs::path file = Write(SpectrumFixture::kValidImageWcs);
  ASSERT_EQ(fs::file_size(file), 5760u);
  fs::resize_file(file, 5759);  // one byte of padding missing
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kTruncated,
                "the file has 5759 bytes but HDU 1's data ends at byte 5760");
  fs::resize_file(file, 2880);  // the header alone
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kTruncated,
                "the file has 2880 bytes but HDU 1's data ends at byte 5760");
  fs::resize_file(file, 1000);  // inside the primary header
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kTruncated,
                "the file (1000 bytes) ends inside the header of HDU 1");

  fs::path table = Write(SpectrumFixture::kValidTable, "t.fits");
  ASSERT_EQ(fs::file_size(table), 3 * 2880u);
  fs::resize_file(table, 2880 + 1000);  // inside the extension's header
  ExpectProblem(CheckSpectrum(table), SpectrumProblem::kTruncated,
                "the file (3880 bytes) ends inside the header of HDU 2");
  WriteSpectrumFixture(table, SpectrumFixture::kValidTable);
  fs::resize_file(table, 2 * 2880 + 10);  // inside the table's data
  ExpectProblem(CheckSpectrum(table), SpectrumProblem::kTruncated,
                "the file has 5770 bytes but HDU 2's data ends at byte 8640");
}

TEST_F(SpectrumTest, CorruptHeader) {
  SpectrumCheck check = Check(SpectrumFixture::kCorruptHeader);
  ExpectProblem(check, SpectrumProblem::kCorruptHeader,
                "HDU 1: cfitsio status 213 (illegal NAXISn keyword value)");
  EXPECT_FALSE(check.profile.has_value());
}

TEST_F(SpectrumTest, NanFlux) {
  SpectrumCheck check = Check(SpectrumFixture::kNanFlux);
  ExpectProblem(check, SpectrumProblem::kNonFiniteFlux, "flux[17] is NaN");
  // The rest was learned before the flux was read.
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(check.profile->profile, "IMAGE_1D_WCS");
  EXPECT_EQ(check.points, 201);
  EXPECT_TRUE(check.checksum_verified);
  EXPECT_EQ(check.ToJson()["reason_code"], "NON_FINITE_FLUX");
  EXPECT_EQ(check.ToJson()["detail"], "flux[17] is NaN");
}

TEST_F(SpectrumTest, WrongDatasum) {
  SpectrumCheck check = Check(SpectrumFixture::kWrongDatasum);
  ExpectProblem(check, SpectrumProblem::kChecksumMismatch,
                "HDU 1: DATASUM does not match the data");
  EXPECT_FALSE(check.checksum_verified);
  // The header is readable, so the profile is there to replay.
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(check.profile->profile, "IMAGE_1D_WCS");
}

TEST_F(SpectrumTest, ADataByteChangedBreaksBothChecksums) {
  fs::path file = Write(SpectrumFixture::kValidImageWcs);
  {
    std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(2880 + 40);
    out.put('\x7f');
  }
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kChecksumMismatch,
                "HDU 1: DATASUM does not match the data");
}

TEST_F(SpectrumTest, AHeaderByteChangedBreaksTheChecksum) {
  fs::path file = Write(SpectrumFixture::kValidImageWcs);
  {
    std::fstream out(file, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(2880 - 1);  // the header's last padding blank
    out.put('x');
  }
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kChecksumMismatch,
                "HDU 1: CHECKSUM does not match the HDU");
}

TEST_F(SpectrumTest, DescendingWavelength) {
  ExpectProblem(Check(SpectrumFixture::kDescendingWavelength),
                SpectrumProblem::kNonMonotonicWavelength,
                "wavelength[1] = 6984 Angstrom is not greater than "
                "wavelength[0] = 7000 Angstrom");
}

TEST_F(SpectrumTest, NotFits) {
  ExpectProblem(Check(SpectrumFixture::kNotFits), SpectrumProblem::kNotFits,
                "the file does not start with a SIMPLE card");
  fs::path empty = dir_ / "empty.fits";
  std::ofstream(empty).close();
  ExpectProblem(CheckSpectrum(empty), SpectrumProblem::kNotFits,
                "the file is empty");
  fs::path text = dir_ / "text.fits";
  std::ofstream(text) << "<html>503 Service Unavailable</html>\n";
  SpectrumCheck check = CheckSpectrum(text);
  ExpectProblem(check, SpectrumProblem::kNotFits,
                "the file does not start with a SIMPLE card");
  EXPECT_FALSE(check.profile.has_value());
  EXPECT_EQ(
      check.ToJson(),
      nlohmann::json({{"reason_code", "NOT_FITS"},
                      {"detail", "the file does not start with a SIMPLE card"},
                      {"points", 0},
                      {"wavelength_min_angstrom", 0.0},
                      {"wavelength_max_angstrom", 0.0},
                      {"checksum_verified", false}}));
}

TEST_F(SpectrumTest, TooFewPoints) {
  SpectrumCheck check = Check(SpectrumFixture::kTooFewPoints);
  ExpectProblem(check, SpectrumProblem::kTooFewPoints,
                "5 points (at least 10 needed)");
  EXPECT_EQ(check.points, 5);
}

TEST_F(SpectrumTest, ImplausibleWavelength) {
  SpectrumCheck check = Check(SpectrumFixture::kImplausibleWavelength);
  ExpectProblem(check, SpectrumProblem::kImplausibleWavelength,
                "wavelengths 3.8e+13 to 7e+13 Angstrom are outside [100, "
                "1e+06] Angstrom");
  EXPECT_EQ(check.wavelength_min_angstrom, 3.8e13);
  EXPECT_EQ(check.wavelength_max_angstrom, 7e13);
  EXPECT_EQ(check.profile->hints["unit"], "m");
}

TEST_F(SpectrumTest, NoSpectrumSaysWhyEachHduWasPassedOver) {
  SpectrumCheck check = Check(SpectrumFixture::kNoSpectrum);
  ExpectProblem(check, SpectrumProblem::kNoSpectrum,
                "no 1-D image with a wavelength WCS and no binary table with "
                "wavelength and flux columns: HDU 1: an image with NAXIS = 2; "
                "HDU 2: a binary table without a flux column (FLUX, "
                "FLUX_REDUCED)");
  EXPECT_FALSE(check.profile.has_value());
}

TEST_F(SpectrumTest, AFileThatCannotBeOpenedThrows) {
  EXPECT_THROW(CheckSpectrum(dir_ / "absent.fits"), std::runtime_error);
  EXPECT_THROW(CheckSpectrum(dir_), std::runtime_error);
}

TEST_F(SpectrumTest, BracketsInAFileNameAreLiteral) {
  // cfitsio's extended syntax would read "x.fits[1]" as HDU 1 of x.fits.
  SpectrumCheck check =
      CheckSpectrum(Write(SpectrumFixture::kValidImageWcs, "x.fits[1]"));
  EXPECT_TRUE(check.valid()) << check.detail;
}

// Files for the rarer paths, written here with cfitsio directly.
class HandWrittenTest : public SpectrumTest {
 protected:
  fitsfile* Create(const std::string& name) {
    file_ = dir_ / name;
    fs::remove(file_);
    fitsfile* raw = nullptr;
    fits_create_diskfile(&raw, file_.c_str(), &status_);
    return raw;
  }
  // A 1-D image of `n` pixels of `bitpix`, flux 1..n, with `keys` (name,
  // value) as strings or numbers.
  fitsfile* Image(int bitpix, long n, const nlohmann::json& keys) {
    fitsfile* raw = Create("image.fits");
    fits_create_img(raw, bitpix, 1, &n, &status_);
    for (const auto& [name, value] : keys.items()) {
      if (value.is_string()) {
        fits_write_key_str(raw, name.c_str(), value.get<std::string>().c_str(),
                           nullptr, &status_);
      } else {
        double number = value.get<double>();
        fits_write_key_dbl(raw, name.c_str(), number, -15, nullptr, &status_);
      }
    }
    std::vector<double> flux(n);
    for (long i = 0; i < n; ++i) flux[i] = 1.0 + i;
    fits_write_img(raw, TDOUBLE, 1, n, flux.data(), &status_);
    return raw;
  }
  SpectrumCheck Close(fitsfile* raw) {
    fits_close_file(raw, &status_);
    EXPECT_EQ(status_, 0);
    return CheckSpectrum(file_);
  }

  fs::path file_;
  int status_ = 0;
};

TEST_F(HandWrittenTest, CdMatrixAndDefaultReferencePixelAndUnit) {
  // No CTYPE1, CUNIT1 or CRPIX1: Angstrom, pixel 1 at CRVAL1.
  SpectrumCheck check =
      Close(Image(FLOAT_IMG, 11, {{"CRVAL1", 4000.0}, {"CD1_1", 2.5}}));
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 11);
  EXPECT_EQ(check.wavelength_min_angstrom, 4000);
  EXPECT_EQ(check.wavelength_max_angstrom, 4025);
  EXPECT_EQ(check.profile->hints, nlohmann::json({{"hdu", 1},
                                                  {"NAXIS", 1},
                                                  {"dispersion", "CD1_1"},
                                                  {"unit", "Angstrom"}}));
  // CRPIX1 5.5 moves the axis by 4.5 pixels; micrometres are converted.
  check = Close(Image(FLOAT_IMG, 11,
                      {{"CTYPE1", "AWAV"},
                       {"CUNIT1", "um"},
                       {"CRVAL1", 0.5},
                       {"CDELT1", 0.0625},
                       {"CRPIX1", 5.5}}));
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.wavelength_min_angstrom, (0.5 - 4.5 * 0.0625) * 1e4);
  EXPECT_EQ(check.wavelength_max_angstrom, (0.5 + 5.5 * 0.0625) * 1e4);
}

TEST_F(HandWrittenTest, BlankPixelsAreUndefinedFlux) {
  fitsfile* raw = Image(SHORT_IMG, 12, {{"CRVAL1", 4000.0}, {"CDELT1", 1.0}});
  long long blank = -32768;
  fits_write_key(raw, TLONGLONG, "BLANK", &blank, nullptr, &status_);
  short value = -32768;
  fits_write_img(raw, TSHORT, 4, 1, &value, &status_);
  ExpectProblem(Close(raw), SpectrumProblem::kNonFiniteFlux,
                "flux[3] is undefined (BLANK)");
}

TEST_F(HandWrittenTest, InfiniteFlux) {
  fitsfile* raw = Image(DOUBLE_IMG, 12, {{"CRVAL1", 4000.0}, {"CDELT1", 1.0}});
  double inf = std::numeric_limits<double>::infinity();
  fits_write_img(raw, TDOUBLE, 12, 1, &inf, &status_);
  ExpectProblem(Close(raw), SpectrumProblem::kNonFiniteFlux,
                "flux[11] is infinite");
}

TEST_F(HandWrittenTest, AnAxisThatIsNotAWavelengthIsPassedOver) {
  ExpectProblem(
      Close(Image(FLOAT_IMG, 12,
                  {{"CTYPE1", "FREQ"}, {"CRVAL1", 4000.0}, {"CDELT1", 1.0}})),
      SpectrumProblem::kNoSpectrum,
      "no 1-D image with a wavelength WCS and no binary table with "
      "wavelength and flux columns: HDU 1: CTYPE1 'FREQ' is not a "
      "linear wavelength axis (WAVE, LAMBDA, AWAV)");
  ExpectProblem(Close(Image(FLOAT_IMG, 12, {{"CDELT1", 1.0}})),
                SpectrumProblem::kNoSpectrum,
                "no 1-D image with a wavelength WCS and no binary table with "
                "wavelength and flux columns: HDU 1: a 1-D image without "
                "CRVAL1");
  SpectrumCheck check = Close(Image(
      FLOAT_IMG, 12, {{"CUNIT1", "Hz"}, {"CRVAL1", 4000.0}, {"CDELT1", 1.0}}));
  ExpectProblem(check, SpectrumProblem::kImplausibleWavelength,
                "CUNIT1 'Hz' is not a wavelength unit (Angstrom, nm, um, m)");
  EXPECT_FALSE(check.profile->hints.contains("unit"));
}

TEST_F(HandWrittenTest, AWcsKeywordThatIsNotANumberIsACorruptHeader) {
  SpectrumCheck check =
      Close(Image(FLOAT_IMG, 12, {{"CRVAL1", "abc"}, {"CDELT1", 1.0}}));
  ExpectProblem(check, SpectrumProblem::kCorruptHeader,
                "HDU 1: CRVAL1 = 'abc     ' is not a number");  // as written
  // cfitsio reads a quoted number as the number, and so does CheckSpectrum.
  check = Close(Image(FLOAT_IMG, 12, {{"CRVAL1", "4000"}, {"CDELT1", 1.0}}));
  EXPECT_TRUE(check.valid()) << check.detail;
}

TEST_F(HandWrittenTest, VariableLengthArraysAndTheOtherColumnNames) {
  fitsfile* raw = Create("table.fits");
  fits_create_img(raw, BYTE_IMG, 0, nullptr, &status_);
  char* names[] = {const_cast<char*>("FLUX"), const_cast<char*>("Lambda"),
                   const_cast<char*>("FLUX_REDUCED")};
  char* forms[] = {const_cast<char*>("1PA"), const_cast<char*>("1PD"),
                   const_cast<char*>("1PE")};
  fits_create_tbl(raw, BINARY_TBL, 1, 3, names, forms, nullptr, nullptr,
                  &status_);
  std::vector<double> wave(12), flux(12, 2.0);
  for (int i = 0; i < 12; ++i) wave[i] = 5000 + i;
  char* text[] = {const_cast<char*>("not flux")};
  fits_write_col_str(raw, 1, 1, 1, 1, text, &status_);
  fits_write_col(raw, TDOUBLE, 2, 1, 1, 12, wave.data(), &status_);
  fits_write_col(raw, TDOUBLE, 3, 1, 1, 12, flux.data(), &status_);
  // FLUX comes first by alias but is text: the table is passed over.
  ExpectProblem(Close(raw), SpectrumProblem::kNoSpectrum,
                "no 1-D image with a wavelength WCS and no binary table with "
                "wavelength and flux columns: HDU 1: no data; HDU 2: column "
                "FLUX is not numeric");

  raw = Create("table2.fits");
  fits_create_img(raw, BYTE_IMG, 0, nullptr, &status_);
  fits_create_tbl(raw, BINARY_TBL, 1, 2, names + 1, forms + 1, nullptr, nullptr,
                  &status_);
  fits_write_col(raw, TDOUBLE, 1, 1, 1, 12, wave.data(), &status_);
  fits_write_col(raw, TDOUBLE, 2, 1, 1, 12, flux.data(), &status_);
  SpectrumCheck check = Close(raw);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 12);
  EXPECT_EQ(check.wavelength_max_angstrom, 5011);
  EXPECT_EQ(check.profile->hints,
            nlohmann::json({{"hdu", 2},
                            {"layout", "ARRAY_ROW"},
                            {"wavelength_column", "Lambda"},
                            {"flux_column", "FLUX_REDUCED"},
                            {"unit", "Angstrom"}}));
}

TEST_F(HandWrittenTest, TableNullsAndNanWavelengths) {
  fitsfile* raw = Create("table.fits");
  fits_create_img(raw, BYTE_IMG, 0, nullptr, &status_);
  char* names[] = {const_cast<char*>("WAVE"), const_cast<char*>("FLUX")};
  char* forms[] = {const_cast<char*>("1D"), const_cast<char*>("1J")};
  fits_create_tbl(raw, BINARY_TBL, 12, 2, names, forms, nullptr, nullptr,
                  &status_);
  long long tnull = -1;
  fits_write_key(raw, TLONGLONG, "TNULL2", &tnull, nullptr, &status_);
  std::vector<double> wave(12);
  std::vector<int> flux(12, 5);
  for (int i = 0; i < 12; ++i) wave[i] = 5000 + i;
  wave[2] = std::nan("");
  fits_write_col(raw, TDOUBLE, 1, 1, 1, 12, wave.data(), &status_);
  fits_write_col(raw, TINT, 2, 1, 1, 12, flux.data(), &status_);
  ExpectProblem(Close(raw), SpectrumProblem::kImplausibleWavelength,
                "wavelength[2] is NaN");

  fits_open_diskfile(&raw, file_.c_str(), READWRITE, &status_);
  fits_movabs_hdu(raw, 2, nullptr, &status_);
  int null = -1;
  fits_write_col(raw, TINT, 2, 7, 1, 1, &null, &status_);
  ExpectProblem(Close(raw), SpectrumProblem::kNonFiniteFlux,
                "flux[6] is undefined (TNULL2)");
}

// --- The real providers' products (spectrum.h, ProfileSelection) ---------

TEST_F(SpectrumTest, EsoSdpUvesIsReadByItsUtypes) {
  SpectrumCheck check = Check(SpectrumFixture::kEsoSdpUves);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 40);
  EXPECT_EQ(check.wavelength_min_angstrom, 4800);
  EXPECT_EQ(check.wavelength_max_angstrom, 4995);
  EXPECT_TRUE(check.checksum_verified);
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(
      check.profile->ToJson(),
      nlohmann::json({{"profile", "ESO_SDP_1D"},
                      {"hints",
                       {{"hdu", 2},
                        {"layout", "ARRAY_ROW"},
                        {"wavelength_column", "WAVE"},
                        {"flux_column", "FLUX"},
                        {"columns_by", "TUTYP"},
                        {"NELEM", 40},
                        {"unit", "Angstrom"},
                        {"selected_by", "header"},
                        {"header",
                         {{"PRODCATG", "SCIENCE.SPECTRUM"},
                          {"ORIGIN", "ESO"},
                          {"TELESCOP", "ESO-VLT-U2"},
                          {"INSTRUME", "UVES"}}}}},
                      {"header_signature", check.profile->header_signature}}));
  EXPECT_TRUE(IsLowerHex64(check.profile->header_signature));
}

TEST_F(SpectrumTest, HstStisX1dReadsTheOrderWithTheMostGoodPoints) {
  SpectrumCheck check = Check(SpectrumFixture::kHstStisX1d);
  ASSERT_TRUE(check.valid()) << check.detail;
  // Row 2, SPORDER 86: 2310 to 2341 Angstrom.
  EXPECT_EQ(check.points, 32);
  EXPECT_EQ(check.wavelength_min_angstrom, 2310);
  EXPECT_EQ(check.wavelength_max_angstrom, 2341);
  EXPECT_TRUE(check.checksum_verified);
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(
      check.profile->ToJson(),
      nlohmann::json({{"profile", "HST_X1D"},
                      {"hints",
                       {{"hdu", 2},
                        {"layout", "ROW_PER_ORDER"},
                        {"rows", 3},
                        {"row", 2},
                        {"row_rule", "MOST_GOOD_POINTS"},
                        {"good_points", 31},
                        {"order_column", "SPORDER"},
                        {"order", 86},
                        {"wavelength_column", "WAVELENGTH"},
                        {"flux_column", "FLUX"},
                        {"quality_column", "DQ"},
                        {"SDQFLAGS", 31743},
                        {"NELEM", 32},
                        {"unit", "Angstrom"},
                        {"selected_by", "header"},
                        {"header",
                         {{"ORIGIN", "HSTIO/CFITSIO March 2010"},
                          {"TELESCOP", "HST"},
                          {"INSTRUME", "STIS"}}}}},
                      {"header_signature", check.profile->header_signature}}));
}

TEST_F(SpectrumTest, IueSwpMxloComputesItsWavelengthsFromStartAndStep) {
  SpectrumCheck check = Check(SpectrumFixture::kIueSwpMxlo);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 64);
  EXPECT_EQ(check.wavelength_min_angstrom, 1130);
  EXPECT_EQ(check.wavelength_max_angstrom, 1130 + 63 * 14);
  EXPECT_FALSE(check.checksum_verified);  // NEWSIPS wrote none
  EXPECT_FALSE(check.fits_checksum.has_value());
  ASSERT_TRUE(check.profile.has_value());
  EXPECT_EQ(
      check.profile->ToJson(),
      nlohmann::json({{"profile", "IUE_MXLO"},
                      {"hints",
                       {{"hdu", 2},
                        {"layout", "START_STEP"},
                        {"rows", 1},
                        {"row", 1},
                        {"row_rule", "MOST_GOOD_POINTS"},
                        {"good_points", 59},
                        {"APERTURE", "LARGE"},
                        {"wavelength_column", "WAVELENGTH"},
                        {"step_column", "DELTAW"},
                        {"flux_column", "FLUX"},
                        {"quality_column", "QUALITY"},
                        {"NPOINTS", 64},
                        {"unit", "Angstrom"},
                        {"selected_by", "header"},
                        {"header", {{"ORIGIN", "GSFC"}, {"TELESCOP", "IUE"}}}}},
                      {"header_signature", check.profile->header_signature}}));
}

TEST_F(SpectrumTest, TheProvidersHintsAreRecordedAsGiven) {
  const nlohmann::json eso = {
      {"provider", "ESO"}, {"collection", "UVES"}, {"instrument", "UVES"}};
  SpectrumCheck check = CheckSpectrum(Write(SpectrumFixture::kEsoSdpUves), eso);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.profile->profile, "ESO_SDP_1D");
  EXPECT_EQ(check.profile->hints["provider_hints"], eso);
  EXPECT_EQ(check.profile->hints["selected_by"], "header");

  // A generic profile records them too; without hints there is no member.
  const nlohmann::json mast = {{"provider", "MAST"},
                               {"productSubGroupDescription", "SPEC"}};
  check = CheckSpectrum(Write(SpectrumFixture::kValidImageWcs), mast);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.profile->hints, nlohmann::json({{"hdu", 1},
                                                  {"NAXIS", 1},
                                                  {"CTYPE1", "WAVE"},
                                                  {"CUNIT1", "Angstrom"},
                                                  {"dispersion", "CDELT1"},
                                                  {"unit", "Angstrom"},
                                                  {"provider_hints", mast}}));
  EXPECT_FALSE(CheckSpectrum(Write(SpectrumFixture::kValidImageWcs))
                   .profile->hints.contains("provider_hints"));
  // Whatever JSON they are.
  check = CheckSpectrum(Write(SpectrumFixture::kValidTable), "MAST");
  EXPECT_EQ(check.profile->hints["provider_hints"], "MAST");
  EXPECT_EQ(check.profile->profile, "BINTABLE_COLUMNS");
}

TEST_F(SpectrumTest, TheHeaderWinsOverTheHints) {
  SpectrumCheck check = CheckSpectrum(
      Write(SpectrumFixture::kHstStisX1d),
      {{"provider", "MAST"}, {"productSubGroupDescription", "MXLO"}});
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.profile->profile, "HST_X1D");
  EXPECT_EQ(check.profile->hints["selected_by"], "header");
}

TEST_F(SpectrumTest, AMislabelledHeaderIsNoSpectrumSayingWhatIsMissing) {
  // A table of WAVE and FLUX (which BINTABLE_COLUMNS reads) that claims to
  // be an HST x1d.
  SpectrumCheck check = Check(SpectrumFixture::kMislabelledHst);
  ExpectProblem(check, SpectrumProblem::kNoSpectrum,
                "the header (TELESCOP 'HST', INSTRUME 'STIS') names the "
                "profile HST_X1D, but HDU 2: a binary table without a "
                "WAVELENGTH column");
  EXPECT_FALSE(check.profile.has_value());
  EXPECT_TRUE(check.checksum_verified);
  // Its checksums are the primary HDU's (no profile was chosen).
  EXPECT_TRUE(check.fits_checksum.has_value());
}

// Files in the providers' layouts with one thing changed, written here.
class ProviderLayoutTest : public SpectrumTest {
 protected:
  // Opens `file` for changes at HDU `hdu`.
  fitsfile* Open(const fs::path& file, int hdu) {
    fitsfile* raw = nullptr;
    fits_open_diskfile(&raw, file.c_str(), READWRITE, &status_);
    fits_movabs_hdu(raw, hdu, nullptr, &status_);
    return raw;
  }
  // Closes `raw` with the checksums of its current HDU made right for the
  // change, which is then all that the file has wrong.
  void Close(fitsfile* raw) {
    fits_write_chksum(raw, &status_);
    fits_close_file(raw, &status_);
    ASSERT_EQ(status_, 0);
  }
  int status_ = 0;
};

TEST_F(ProviderLayoutTest, AnIueHeaderOnATableOfArraysOrWithoutDeltaw) {
  fs::path file = Write(SpectrumFixture::kValidTable);
  fitsfile* raw = Open(file, 1);
  fits_write_key_str(raw, "TELESCOP", "IUE", nullptr, &status_);
  Close(raw);
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kNoSpectrum,
                "the header (TELESCOP 'IUE') names the profile IUE_MXLO, but "
                "HDU 2: a binary table without a WAVELENGTH column");

  file = Write(SpectrumFixture::kIueSwpMxlo, "mxlo.fits");
  raw = Open(file, 2);
  fits_delete_col(raw, 4, &status_);  // DELTAW
  Close(raw);
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kNoSpectrum,
                "the header (TELESCOP 'IUE') names the profile IUE_MXLO, but "
                "HDU 2: a binary table without a DELTAW column");
}

TEST_F(ProviderLayoutTest, AnEsoProductOfSeveralRowsOrWithTooSmallArrays) {
  fs::path file = Write(SpectrumFixture::kEsoSdpUves);
  fitsfile* raw = Open(file, 2);
  fits_insert_rows(raw, 1, 1, &status_);
  Close(raw);
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kNoSpectrum,
                "the header (PRODCATG 'SCIENCE.SPECTRUM') names the profile "
                "ESO_SDP_1D, but HDU 2: 2 rows (the SDP spectrum is a single "
                "row of arrays)");

  file = Write(SpectrumFixture::kEsoSdpUves, "nelem.fits");
  raw = Open(file, 2);
  fits_update_key_lng(raw, "NELEM", 41, nullptr, &status_);
  Close(raw);
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kNoSpectrum,
                "the header (PRODCATG 'SCIENCE.SPECTRUM') names the profile "
                "ESO_SDP_1D, but HDU 2: WAVE holds 40 values and FLUX 40, "
                "fewer than NELEM = 41");

  // NELEM below the arrays: the first NELEM points.
  file = Write(SpectrumFixture::kEsoSdpUves, "short.fits");
  raw = Open(file, 2);
  fits_update_key_lng(raw, "NELEM", 20, nullptr, &status_);
  Close(raw);
  SpectrumCheck check = CheckSpectrum(file);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 20);
  EXPECT_EQ(check.wavelength_max_angstrom, 4895);
  EXPECT_EQ(check.profile->hints["NELEM"], 20);
}

TEST_F(ProviderLayoutTest, EsoWithoutUtypesIsReadByTheColumnNames) {
  fs::path file = Write(SpectrumFixture::kEsoSdpUves);
  fitsfile* raw = Open(file, 2);
  for (const char* key : {"TUTYP1", "TUTYP2", "TUTYP3", "TUTYP4", "TUTYP5"}) {
    fits_delete_key(raw, key, &status_);
  }
  Close(raw);
  SpectrumCheck check = CheckSpectrum(file);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.profile->hints["columns_by"], "TTYPE");
  EXPECT_EQ(check.profile->hints["flux_column"], "FLUX");
}

TEST_F(ProviderLayoutTest, WithoutSdqflagsEveryDqBitIsBad) {
  fs::path file = Write(SpectrumFixture::kHstStisX1d);
  fitsfile* raw = Open(file, 2);
  fits_delete_key(raw, "SDQFLAGS", &status_);
  Close(raw);
  SpectrumCheck check = CheckSpectrum(file);
  ASSERT_TRUE(check.valid()) << check.detail;
  // Row 2 now has 13 bad points; row 3 (SPORDER 85) has 30 good ones.
  EXPECT_EQ(check.profile->hints["row"], 3);
  EXPECT_EQ(check.profile->hints["order"], 85);
  EXPECT_EQ(check.profile->hints["good_points"], 30);
  EXPECT_FALSE(check.profile->hints.contains("SDQFLAGS"));
  EXPECT_EQ(check.wavelength_min_angstrom, 2337);
}

TEST_F(ProviderLayoutTest, AnNelemBeyondTheArraysIsNoSpectrum) {
  fs::path file = Write(SpectrumFixture::kHstStisX1d);
  fitsfile* raw = Open(file, 2);
  short nelem = 33;
  fits_write_col(raw, TSHORT, 2, 3, 1, 1, &nelem, &status_);
  Close(raw);
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kNoSpectrum,
                "the header (TELESCOP 'HST', INSTRUME 'STIS') names the "
                "profile HST_X1D, but HDU 2: row 3: NELEM = 33 but its arrays "
                "hold 32 values");
}

TEST_F(ProviderLayoutTest, ACosX1dNamesItsSegment) {
  // COS: SEGMENT instead of SPORDER; the FUVA row has more good points.
  fitsfile* raw = nullptr;
  fs::path file = dir_ / "cos.fits";
  fits_create_diskfile(&raw, file.c_str(), &status_);
  fits_create_img(raw, BYTE_IMG, 0, nullptr, &status_);
  fits_write_key_str(raw, "TELESCOP", "HST", nullptr, &status_);
  fits_write_key_str(raw, "INSTRUME", "COS", nullptr, &status_);
  char* names[] = {const_cast<char*>("SEGMENT"), const_cast<char*>("NELEM"),
                   const_cast<char*>("WAVELENGTH"), const_cast<char*>("FLUX"),
                   const_cast<char*>("DQ")};
  char* forms[] = {const_cast<char*>("4A"), const_cast<char*>("1J"),
                   const_cast<char*>("16D"), const_cast<char*>("16E"),
                   const_cast<char*>("16I")};
  fits_create_tbl(raw, BINARY_TBL, 2, 5, names, forms, nullptr, "SCI",
                  &status_);
  char* segments[] = {const_cast<char*>("FUVA"), const_cast<char*>("FUVB")};
  fits_write_col_str(raw, 1, 1, 1, 2, segments, &status_);
  for (LONGLONG row = 1; row <= 2; ++row) {
    int nelem = 16;
    std::vector<double> wave(16);
    std::vector<float> flux(16, 1e-14f);
    std::vector<short> dq(16, row == 1 ? 0 : 8);
    for (int i = 0; i < 16; ++i) wave[i] = (row == 1 ? 1300 : 1150) + 10.0 * i;
    fits_write_col(raw, TINT, 2, row, 1, 1, &nelem, &status_);
    fits_write_col(raw, TDOUBLE, 3, row, 1, 16, wave.data(), &status_);
    fits_write_col(raw, TFLOAT, 4, row, 1, 16, flux.data(), &status_);
    fits_write_col(raw, TSHORT, 5, row, 1, 16, dq.data(), &status_);
  }
  Close(raw);
  SpectrumCheck check = CheckSpectrum(file);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.profile->profile, "HST_X1D");
  EXPECT_EQ(check.profile->hints["order_column"], "SEGMENT");
  EXPECT_EQ(check.profile->hints["order"], "FUVA");
  EXPECT_EQ(check.profile->hints["good_points"], 16);
  EXPECT_EQ(check.profile->hints["header"],
            nlohmann::json({{"TELESCOP", "HST"}, {"INSTRUME", "COS"}}));
  EXPECT_EQ(check.wavelength_min_angstrom, 1300);
}

TEST_F(ProviderLayoutTest, HintsNameTheProfileOfAHeaderThatNamesNone) {
  // An MXLO whose primary header lost TELESCOP.
  fs::path file = Write(SpectrumFixture::kIueSwpMxlo);
  fitsfile* raw = Open(file, 1);
  fits_delete_key(raw, "TELESCOP", &status_);
  Close(raw);
  // Alone, its table is passed over: WAVELENGTH holds one value a row.
  ExpectProblem(CheckSpectrum(file), SpectrumProblem::kNoSpectrum,
                "no 1-D image with a wavelength WCS and no binary table with "
                "wavelength and flux columns: HDU 1: no data; HDU 2: "
                "WAVELENGTH holds 1 values and FLUX 64");
  const nlohmann::json hints = {{"provider", "MAST"},
                                {"productSubGroupDescription", "MXLO"}};
  SpectrumCheck check = CheckSpectrum(file, hints);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.profile->profile, "IUE_MXLO");
  EXPECT_EQ(check.profile->hints["selected_by"], "provider_hints");
  EXPECT_EQ(check.profile->hints["header"],
            nlohmann::json({{"ORIGIN", "GSFC"}}));
  EXPECT_EQ(check.profile->hints["provider_hints"], hints);

  // And the hints' profile binds as the header's would.
  ExpectProblem(
      CheckSpectrum(Write(SpectrumFixture::kValidTable, "t.fits"),
                    {{"productSubGroupDescription", "x1d"}}),
      SpectrumProblem::kNoSpectrum,
      "the provider's hints (productSubGroupDescription 'x1d') name the "
      "profile HST_X1D, but HDU 2: a binary table without a WAVELENGTH "
      "column");
}

// --- gzip-compressed files (CheckSpectrum, step 0) --------------------------

class GzipTest : public SpectrumTest {
 protected:
  static std::string Read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  fs::path WriteBytes(const std::string& bytes,
                      const std::string& name = "g.fits") {
    fs::path file = dir_ / name;
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return file;
  }
  // A gzip-compressed copy of `file`.
  fs::path Gzipped(const fs::path& file) {
    return WriteBytes(Gzip(Read(file)), file.filename().string() + ".gz");
  }
};

TEST_F(GzipTest, AnIueMxloAsMastServesItIsValidAndSaysItWasCompressed) {
  SpectrumCheck check = Check(SpectrumFixture::kIueSwpMxloGzip);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.compression, "gzip");
  EXPECT_EQ(check.points, 64);
  EXPECT_EQ(check.wavelength_min_angstrom, 1130);
  EXPECT_EQ(check.wavelength_max_angstrom, 1130 + 63 * 14);
  ASSERT_TRUE(check.profile.has_value());
  // The decompressed file's header: the same signature as the plain one.
  SpectrumCheck plain = CheckSpectrum(Write(SpectrumFixture::kIueSwpMxlo, "p"));
  ASSERT_TRUE(plain.valid()) << plain.detail;
  EXPECT_EQ(plain.compression, std::nullopt);
  EXPECT_FALSE(plain.profile->ToJson().contains("compression"));
  EXPECT_EQ(check.profile->header_signature, plain.profile->header_signature);
  EXPECT_EQ(
      check.profile->ToJson(),
      nlohmann::json({{"profile", "IUE_MXLO"},
                      {"hints",
                       {{"hdu", 2},
                        {"layout", "START_STEP"},
                        {"rows", 1},
                        {"row", 1},
                        {"row_rule", "MOST_GOOD_POINTS"},
                        {"good_points", 59},
                        {"APERTURE", "LARGE"},
                        {"wavelength_column", "WAVELENGTH"},
                        {"step_column", "DELTAW"},
                        {"flux_column", "FLUX"},
                        {"quality_column", "QUALITY"},
                        {"NPOINTS", 64},
                        {"unit", "Angstrom"},
                        {"selected_by", "header"},
                        {"header", {{"ORIGIN", "GSFC"}, {"TELESCOP", "IUE"}}}}},
                      {"header_signature", plain.profile->header_signature},
                      {"compression", "gzip"}}));
  EXPECT_EQ(check.ToJson(), nlohmann::json({{"compression", "gzip"},
                                            {"points", 64},
                                            {"wavelength_min_angstrom", 1130.0},
                                            {"wavelength_max_angstrom", 2012.0},
                                            {"checksum_verified", false}}));
}

TEST_F(GzipTest, TheBytesDecideNeverTheName) {
  // A gzip file named .fits is decompressed, a plain FITS named .gz is not.
  SpectrumCheck check =
      CheckSpectrum(Write(SpectrumFixture::kIueSwpMxloGzip, "swp.fits"));
  EXPECT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.compression, "gzip");
  check = CheckSpectrum(Write(SpectrumFixture::kIueSwpMxlo, "swp.mxlo.gz"));
  EXPECT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.compression, std::nullopt);
  EXPECT_FALSE(check.ToJson().contains("compression"));
}

TEST_F(GzipTest, CompressedDataCutShortIsTruncated) {
  SpectrumCheck check = Check(SpectrumFixture::kTruncatedGzip);
  ExpectProblem(check, SpectrumProblem::kTruncated,
                "the gzip-compressed file (1000 bytes) ends before the end of "
                "its compressed data");
  EXPECT_FALSE(check.profile.has_value());
  EXPECT_EQ(check.ToJson(), nlohmann::json({{"reason_code", "TRUNCATED"},
                                            {"detail", check.detail},
                                            {"compression", "gzip"},
                                            {"points", 0},
                                            {"wavelength_min_angstrom", 0.0},
                                            {"wavelength_max_angstrom", 0.0},
                                            {"checksum_verified", false}}));
  // Anywhere: the header alone, the trailer missing, one byte of it.
  std::string gzip = Read(Write(SpectrumFixture::kIueSwpMxloGzip));
  for (size_t size :
       {size_t{2}, size_t{10}, gzip.size() - 8, gzip.size() - 1}) {
    ExpectProblem(CheckSpectrum(WriteBytes(gzip.substr(0, size))),
                  SpectrumProblem::kTruncated,
                  "the gzip-compressed file (" + std::to_string(size) +
                      " bytes) ends before the end of its compressed data");
  }
}

TEST_F(GzipTest, CorruptCompressedDataIsNotFitsSayingWhy) {
  const std::string gzip = Read(Write(SpectrumFixture::kIueSwpMxloGzip));
  auto check = [&](std::string bytes, const std::string& detail) {
    SpectrumCheck result = CheckSpectrum(WriteBytes(bytes));
    ExpectProblem(result, SpectrumProblem::kNotFits, detail);
    EXPECT_EQ(result.compression, "gzip");
    EXPECT_FALSE(result.profile.has_value());
  };
  std::string bytes = gzip;
  bytes[bytes.size() - 8] ^= 1;  // the CRC-32
  check(bytes,
        "the gzip-compressed data is corrupt (zlib: incorrect data "
        "check)");
  bytes = gzip;
  bytes[bytes.size() - 4] ^= 1;  // ISIZE, the length
  check(bytes,
        "the gzip-compressed data is corrupt (zlib: incorrect length "
        "check)");
  bytes = gzip;
  bytes[2] = 7;  // CM: not deflate
  check(bytes,
        "the gzip-compressed data is corrupt (zlib: unknown "
        "compression method)");
  bytes = gzip;
  bytes[10] = static_cast<char>(0xff);  // the first block's type: reserved
  check(bytes,
        "the gzip-compressed data is corrupt (zlib: invalid block "
        "type)");
  check(gzip + "garbage",
        "the gzip-compressed data is corrupt (bytes after "
        "the end of its last member)");
  // Trailing bytes that start like another member are read as one: here a
  // member that ends inside its header.
  bytes = gzip + "\x1f\x8b";
  ExpectProblem(CheckSpectrum(WriteBytes(bytes)), SpectrumProblem::kTruncated,
                "the gzip-compressed file (" + std::to_string(bytes.size()) +
                    " bytes) ends before the end of its compressed data");
  check(gzip + "\x1f\x7f",
        "the gzip-compressed data is corrupt (zlib: "
        "incorrect header check)");
}

TEST_F(GzipTest, MembersAreReadInTurnAsGunzipDoes) {
  std::string fits = Read(Write(SpectrumFixture::kIueSwpMxlo));
  SpectrumCheck check = CheckSpectrum(WriteBytes(
      Gzip(fits.substr(0, 1000)) + Gzip(fits.substr(1000)) + Gzip("")));
  EXPECT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.points, 64);
}

TEST_F(GzipTest, TheDecompressedBytesAreCheckedAsAFileIs) {
  ExpectProblem(CheckSpectrum(Gzipped(Write(SpectrumFixture::kNotFits))),
                SpectrumProblem::kNotFits,
                "the decompressed file does not start with a SIMPLE card");
  SpectrumCheck check = CheckSpectrum(WriteBytes(Gzip("")));
  ExpectProblem(check, SpectrumProblem::kNotFits,
                "the decompressed file is empty");
  EXPECT_EQ(check.compression, "gzip");
  // gzip bytes compressed again: the decompressed file is gzip, not FITS.
  ExpectProblem(CheckSpectrum(WriteBytes(
                    Gzip(Read(Write(SpectrumFixture::kIueSwpMxloGzip))))),
                SpectrumProblem::kNotFits,
                "the decompressed file does not start with a SIMPLE card");
}

// Every fixture, and the cuts of TruncatedByHandAnywhere, compressed: the
// same result as the plain file, compression recorded and "the file" of a
// detail "the decompressed file".
TEST_F(GzipTest, EveryFixtureCompressedGivesThePlainFilesResult) {
  std::vector<fs::path> files;
  for (SpectrumFixture kind :
       {SpectrumFixture::kValidImageWcs, SpectrumFixture::kValidTable,
        SpectrumFixture::kTruncated, SpectrumFixture::kCorruptHeader,
        SpectrumFixture::kNanFlux, SpectrumFixture::kWrongDatasum,
        SpectrumFixture::kDescendingWavelength,
        SpectrumFixture::kValidTableRows, SpectrumFixture::kTooFewPoints,
        SpectrumFixture::kImplausibleWavelength, SpectrumFixture::kNoSpectrum,
        SpectrumFixture::kEsoSdpUves, SpectrumFixture::kHstStisX1d,
        SpectrumFixture::kIueSwpMxlo, SpectrumFixture::kMislabelledHst}) {
    files.push_back(
        Write(kind, "f" + std::to_string(static_cast<int>(kind)) + ".fits"));
  }
  for (uintmax_t size : {5759u, 2880u, 1000u}) {
    fs::path cut = Write(SpectrumFixture::kValidImageWcs,
                         "image" + std::to_string(size) + ".fits");
    fs::resize_file(cut, size);
    files.push_back(cut);
  }
  for (uintmax_t size : {3880u, 5770u}) {
    fs::path cut = Write(SpectrumFixture::kValidTable,
                         "table" + std::to_string(size) + ".fits");
    fs::resize_file(cut, size);
    files.push_back(cut);
  }
  const nlohmann::json hints = {{"provider", "MAST"}};
  for (const fs::path& file : files) {
    SpectrumCheck plain = CheckSpectrum(file, hints);
    SpectrumCheck gzip = CheckSpectrum(Gzipped(file), hints);
    nlohmann::json expected = plain.ToJson();
    if (plain.detail.starts_with("the file ")) {
      expected["detail"] = "the decompressed " + plain.detail.substr(4);
    }
    expected["compression"] = "gzip";
    EXPECT_EQ(gzip.ToJson(), expected) << file;
    ASSERT_EQ(gzip.profile.has_value(), plain.profile.has_value()) << file;
    if (plain.profile) {
      expected = plain.profile->ToJson();
      expected["compression"] = "gzip";
      EXPECT_EQ(gzip.profile->ToJson(), expected) << file;
    }
  }
}

TEST_F(GzipTest, AGzipBombIsTooLargeAndNotHeldPastTheLimit) {
  // 128 MiB and one byte of zeros: 130 kB compressed.
  fs::path bomb = WriteBytes(Gzip("", kMaxDecompressedBytes + 1));
  EXPECT_LT(fs::file_size(bomb), 200'000u);
  SpectrumCheck check = CheckSpectrum(bomb);
  ExpectProblem(check, SpectrumProblem::kTooLarge,
                "the gzip-compressed file decompresses to more than 134217728 "
                "bytes");
  EXPECT_EQ(check.compression, "gzip");
  EXPECT_FALSE(check.profile.has_value());
  EXPECT_EQ(check.ToJson()["reason_code"], "TOO_LARGE");
  // The limit itself is allowed (zeros: not FITS); made of 128 members of
  // 1 MiB, which count together.
  const std::string mebibyte = Gzip("", int64_t{1} << 20);
  std::string limit;
  for (int i = 0; i < 128; ++i) limit += mebibyte;
  ASSERT_EQ(int64_t{128} << 20, kMaxDecompressedBytes);
  ExpectProblem(CheckSpectrum(WriteBytes(limit)), SpectrumProblem::kNotFits,
                "the decompressed file does not start with a SIMPLE card");
}

// The committed files (novacat_write_fits_fixtures fixtures) are what the
// writer writes today.
TEST(CommittedSpectraTest, EachGivesItsResult) {
  EXPECT_TRUE(CheckSpectrum("fixtures/spectra/valid_image_wcs.fits").valid());
  EXPECT_TRUE(CheckSpectrum("fixtures/spectra/valid_table.fits").valid());
  EXPECT_EQ(CheckSpectrum("fixtures/spectra/nan_flux.fits").problem,
            SpectrumProblem::kNonFiniteFlux);
  EXPECT_EQ(CheckSpectrum("fixtures/spectra/wrong_datasum.fits").problem,
            SpectrumProblem::kChecksumMismatch);
  EXPECT_EQ(
      CheckSpectrum("fixtures/spectra/eso_sdp_uves.fits").profile->profile,
      "ESO_SDP_1D");
  EXPECT_EQ(
      CheckSpectrum("fixtures/spectra/hst_stis_x1d.fits").profile->profile,
      "HST_X1D");
  EXPECT_EQ(
      CheckSpectrum("fixtures/spectra/iue_swp_mxlo.fits").profile->profile,
      "IUE_MXLO");
  for (const char* name : {"eso_sdp_uves.fits", "hst_stis_x1d.fits",
                           "iue_swp_mxlo.fits", "iue_swp_mxlo.fits.gz"}) {
    EXPECT_TRUE(CheckSpectrum(fs::path("fixtures/spectra") / name).valid())
        << name;
  }
  SpectrumCheck gzip = CheckSpectrum("fixtures/spectra/iue_swp_mxlo.fits.gz");
  EXPECT_EQ(gzip.profile->profile, "IUE_MXLO");
  EXPECT_EQ(gzip.profile->compression, "gzip");
  EXPECT_EQ(gzip.compression, "gzip");
}

TEST(CommittedSpectraTest, TheWriterIsDeterministic) {
  const std::pair<const char*, SpectrumFixture> files[] = {
      {"valid_image_wcs.fits", SpectrumFixture::kValidImageWcs},
      {"valid_table.fits", SpectrumFixture::kValidTable},
      {"nan_flux.fits", SpectrumFixture::kNanFlux},
      {"wrong_datasum.fits", SpectrumFixture::kWrongDatasum},
      {"eso_sdp_uves.fits", SpectrumFixture::kEsoSdpUves},
      {"hst_stis_x1d.fits", SpectrumFixture::kHstStisX1d},
      {"iue_swp_mxlo.fits", SpectrumFixture::kIueSwpMxlo},
      {"iue_swp_mxlo.fits.gz", SpectrumFixture::kIueSwpMxloGzip},
  };
  fs::path dir = fs::temp_directory_path() /
                 ("novacat_fits_writer_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto read = [](const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (const auto& [name, kind] : files) {
    WriteSpectrumFixture(dir / name, kind);
    EXPECT_EQ(read(dir / name), read(fs::path("fixtures/spectra") / name))
        << name << ": rerun novacat_write_fits_fixtures fixtures";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace spectrum_test
}  // namespace novacat::fits
