// CheckPhotometry on CSV text written here, on FITS tables written with
// WritePhotometryFits, and on the committed fixtures/photometry files.
#include "novacat/fits/photometry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "novacat/fits/fixtures.h"

namespace novacat::fits {
namespace photometry_test {
namespace {

namespace fs = std::filesystem;

class PhotometryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("novacat_photometry_" + std::string(info->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  PhotometryCheck Csv(const std::string& text) {
    fs::path file = dir_ / "p.csv";
    std::ofstream(file, std::ios::binary) << text;
    return CheckPhotometry(file);
  }

  fs::path dir_;
};

// The fixture's usable rows: all but the 6th (error 0) and 10th (no band).
std::vector<PhotometryRow> UsableRows() {
  std::vector<PhotometryRow> rows = V1500CygPhotometryRows();
  rows.erase(rows.begin() + 9);
  rows.erase(rows.begin() + 5);
  return rows;
}

TEST(PhotometryReasonCodeTest, EveryProblemHasItsPersistedCode) {
  EXPECT_STREQ(ReasonCode(PhotometryProblem::kUnreadable), "UNREADABLE");
  EXPECT_STREQ(ReasonCode(PhotometryProblem::kMissingColumns),
               "MISSING_COLUMNS");
  EXPECT_STREQ(ReasonCode(PhotometryProblem::kNoUsableRows), "NO_USABLE_ROWS");
}

TEST(CommittedPhotometryTest, TheCsvGivesItsRowsCountsAndBadRows) {
  PhotometryCheck check =
      CheckPhotometry("fixtures/photometry/v1500cyg_aavso.csv");
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.format, "CSV");
  EXPECT_EQ(check.rows_total, 12);
  EXPECT_EQ(check.rows_usable, 10);
  EXPECT_EQ(check.rows_bad, 2);
  EXPECT_EQ(check.bands, (std::vector<std::string>{"B", "V"}));
  EXPECT_EQ(check.time_min_mjd, 42654.25);  // JD 2442654.75
  EXPECT_EQ(check.time_max_mjd, 42660.0);
  EXPECT_EQ(check.detail,
            "2 bad rows: line 10: magnitude_error 0 is not positive; line 15: "
            "band is empty");
  EXPECT_EQ(check.rows, UsableRows());
  EXPECT_EQ(check.ToJson(), nlohmann::json({{"detail", check.detail},
                                            {"format", "CSV"},
                                            {"rows_total", 12},
                                            {"rows_usable", 10},
                                            {"rows_bad", 2},
                                            {"bands", {"B", "V"}},
                                            {"time_min_mjd", 42654.25},
                                            {"time_max_mjd", 42660.0}}));
}

TEST(CommittedPhotometryTest, TheFitsTableGivesTheSameRowsAsTheCsv) {
  PhotometryCheck csv =
      CheckPhotometry("fixtures/photometry/v1500cyg_aavso.csv");
  PhotometryCheck fits =
      CheckPhotometry("fixtures/photometry/v1500cyg_aavso.fits");
  ASSERT_TRUE(fits.valid()) << fits.detail;
  EXPECT_EQ(fits.format, "FITS_BINTABLE");
  EXPECT_EQ(fits.rows, csv.rows);
  EXPECT_EQ(fits.rows_total, 12);
  EXPECT_EQ(fits.rows_bad, 2);
  EXPECT_EQ(fits.bands, csv.bands);
  EXPECT_EQ(fits.time_min_mjd, csv.time_min_mjd);
  EXPECT_EQ(fits.time_max_mjd, csv.time_max_mjd);
  EXPECT_EQ(fits.detail,
            "2 bad rows: row 6: magnitude_error 0 is not positive; row 10: "
            "band is empty");
}

TEST_F(PhotometryTest, TheCommittedFitsIsWhatTheWriterWritesToday) {
  fs::path file = dir_ / "v1500cyg_aavso.fits";
  WritePhotometryFits(file, V1500CygPhotometryRows());
  auto read = [](const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(file), read("fixtures/photometry/v1500cyg_aavso.fits"))
      << "rerun novacat_write_fits_fixtures fixtures";
}

TEST_F(PhotometryTest, FitsWrittenNowReadsBack) {
  fs::path file = dir_ / "p.fits";
  WritePhotometryFits(file, UsableRows());
  PhotometryCheck check = CheckPhotometry(file);
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.rows, UsableRows());
  EXPECT_EQ(check.rows_bad, 0);
  EXPECT_EQ(check.detail, "");
}

TEST_F(PhotometryTest, AliasesAreCaseInsensitiveAndJdIsConverted) {
  PhotometryCheck check =
      Csv("Filter, JD ,Mag,mag_err,observer\n"
          "V,2442655.5,2.1,0.04,ABC\n"
          "B,2400001.0,3.5,0.05,ABC\n");
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.rows, (std::vector<PhotometryRow>{{42655.0, 2.1, 0.04, "V"},
                                                    {0.5, 3.5, 0.05, "B"}}));
  PhotometryCheck mjd = Csv("time,magnitude,err,band\n42655.0,2.1,0.04,V\n");
  ASSERT_TRUE(mjd.valid()) << mjd.detail;
  EXPECT_EQ(mjd.rows, (std::vector<PhotometryRow>{{42655.0, 2.1, 0.04, "V"}}));
}

TEST_F(PhotometryTest, QuotesBlankLinesCommentsAndCrlf) {
  PhotometryCheck check =
      Csv("# AAVSO export\r\n"
          "\"JD\",\"Magnitude\",\"Uncertainty\",\"Band\"\r\n"
          "\r\n"
          "\"2442655.5\",\"2.1\",\"0.04\",\"V\"\r\n"
          "  # a comment\r\n"
          "2442656.5,2.3,0.04,B\r\n");
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.rows_total, 2);
  EXPECT_EQ(check.rows,
            (std::vector<PhotometryRow>{{42655.0, 2.1, 0.04, "V"},
                                        {42656.0, 2.3, 0.04, "B"}}));
}

TEST_F(PhotometryTest, EachKindOfBadRowIsCountedAndNamed) {
  PhotometryCheck check =
      Csv("mjd,mag,mag_err,band\n"
          "42655.0,2.1,0.04,V\n"    // line 2: good
          "42655.5,abc,0.04,V\n"    // 3
          "42655.5,nan,0.04,V\n"    // 4
          "0,2.1,0.04,V\n"          // 5
          "42655.5,2.1,-0.1,V\n"    // 6
          "42655.5,2.1,0.04,  \n"   // 7
          "42655.5,2.1\n"           // 8
          "42655.5,inf,0.04,B\n");  // 9
  ASSERT_TRUE(check.valid()) << check.detail;
  EXPECT_EQ(check.rows_total, 8);
  EXPECT_EQ(check.rows_usable, 1);
  EXPECT_EQ(check.rows_bad, 7);
  EXPECT_EQ(check.bands, std::vector<std::string>{"V"});
  EXPECT_EQ(check.detail,
            "7 bad rows: line 3: magnitude 'abc' is not a number; line 4: "
            "magnitude nan is not finite; line 5: time 0 (MJD) is not "
            "positive; line 6: magnitude_error -0.1 is not positive; line 7: "
            "band is empty; ...");
}

TEST_F(PhotometryTest, MissingColumns) {
  PhotometryCheck check = Csv("jd,mag,band\n2442655.5,2.1,V\n");
  EXPECT_EQ(check.problem, PhotometryProblem::kMissingColumns);
  EXPECT_EQ(check.detail,
            "no magnitude_error column (MAGNITUDE_ERROR, MAG_ERR, ERR, "
            "UNCERTAINTY)");
  EXPECT_EQ(check.ToJson()["reason_code"], "MISSING_COLUMNS");
  PhotometryCheck none = Csv("# only a comment\n\n");
  EXPECT_EQ(none.problem, PhotometryProblem::kMissingColumns);
  EXPECT_EQ(none.detail, "no header row");
}

TEST_F(PhotometryTest, NoUsableRows) {
  PhotometryCheck check =
      Csv("mjd,mag,err,band\n42655.0,2.1,0,V\n-1,2.1,0.1,V\n");
  EXPECT_EQ(check.problem, PhotometryProblem::kNoUsableRows);
  EXPECT_EQ(check.detail,
            "none of 2 rows is usable: line 2: magnitude_error 0 is not "
            "positive; line 3: time -1 (MJD) is not positive");
  EXPECT_EQ(check.rows_total, 2);
  EXPECT_EQ(check.rows_bad, 2);
  EXPECT_TRUE(check.rows.empty());
  PhotometryCheck header_only = Csv("mjd,mag,err,band\n");
  EXPECT_EQ(header_only.problem, PhotometryProblem::kNoUsableRows);
  EXPECT_EQ(header_only.detail, "no data rows");

  fs::path fits = dir_ / "bad.fits";
  WritePhotometryFits(fits, {{42655.0, 2.1, 0.04, ""}});
  PhotometryCheck table = CheckPhotometry(fits);
  EXPECT_EQ(table.problem, PhotometryProblem::kNoUsableRows);
  EXPECT_EQ(table.detail, "none of 1 rows is usable: row 1: band is empty");
}

TEST_F(PhotometryTest, Unreadable) {
  PhotometryCheck empty = Csv("");
  EXPECT_EQ(empty.problem, PhotometryProblem::kUnreadable);
  EXPECT_EQ(empty.detail, "the file is empty");
  PhotometryCheck binary = Csv(std::string("mjd,mag\0err", 11));
  EXPECT_EQ(binary.problem, PhotometryProblem::kUnreadable);
  EXPECT_EQ(binary.detail, "not a text file (a NUL byte at offset 7)");

  // A FITS spectrum image: no binary table.
  fs::path image = dir_ / "image.fits";
  WriteSpectrumFixture(image, SpectrumFixture::kValidImageWcs);
  PhotometryCheck no_table = CheckPhotometry(image);
  EXPECT_EQ(no_table.problem, PhotometryProblem::kUnreadable);
  EXPECT_EQ(no_table.format, "FITS_BINTABLE");
  EXPECT_EQ(no_table.detail, "no binary table");
  // A spectrum table lacks the photometry columns.
  fs::path table = dir_ / "table.fits";
  WriteSpectrumFixture(table, SpectrumFixture::kValidTable);
  EXPECT_EQ(CheckPhotometry(table).problem, PhotometryProblem::kMissingColumns);

  // A header cfitsio cannot parse.
  fs::path corrupt = dir_ / "corrupt.fits";
  WriteSpectrumFixture(corrupt, SpectrumFixture::kCorruptHeader);
  PhotometryCheck unparsed = CheckPhotometry(corrupt);
  EXPECT_EQ(unparsed.problem, PhotometryProblem::kUnreadable);
  EXPECT_EQ(unparsed.detail,
            "cannot open: cfitsio status 213 (illegal NAXISn keyword value)");
  EXPECT_EQ(unparsed.ToJson()["reason_code"], "UNREADABLE");

  EXPECT_THROW(CheckPhotometry(dir_ / "absent.csv"), std::runtime_error);
  EXPECT_THROW(CheckPhotometry(dir_), std::runtime_error);
}

}  // namespace
}  // namespace photometry_test
}  // namespace novacat::fits
