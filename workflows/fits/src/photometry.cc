#include "novacat/fits/photometry.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "internal.h"

namespace novacat::fits {

using internal::FitsFile;
using internal::FormatDouble;
using internal::StatusText;
using internal::Trim;
using internal::Upper;

const char* ReasonCode(PhotometryProblem problem) {
  switch (problem) {
    case PhotometryProblem::kUnreadable:
      return "UNREADABLE";
    case PhotometryProblem::kMissingColumns:
      return "MISSING_COLUMNS";
    case PhotometryProblem::kNoUsableRows:
      return "NO_USABLE_ROWS";
  }
  return "UNKNOWN";
}

nlohmann::json PhotometryCheck::ToJson() const {
  nlohmann::json out = nlohmann::json::object();
  if (problem) out["reason_code"] = ReasonCode(*problem);
  if (!detail.empty()) out["detail"] = detail;
  out["format"] = format;
  out["rows_total"] = rows_total;
  out["rows_usable"] = rows_usable;
  out["rows_bad"] = rows_bad;
  out["bands"] = bands;
  out["time_min_mjd"] = time_min_mjd;
  out["time_max_mjd"] = time_max_mjd;
  return out;
}

namespace {

// A problem found: CheckPhotometry catches it and returns it as the result.
struct PhotometryFound {
  PhotometryProblem problem;
  std::string detail;
};

inline constexpr double kJdMinusMjd = 2400000.5;
// Bad rows a detail names before "...".
inline constexpr size_t kBadRowsNamed = 5;

// Where each required column is (0-based; -1: absent) and whether the time
// is a Julian Date.
struct Columns {
  int time = -1, magnitude = -1, error = -1, band = -1;
  bool jd = false;
};

// Finds the required columns in `names` (photometry.h's aliases, in order);
// throws PhotometryFound kMissingColumns naming each absent one.
Columns FindColumns(const std::vector<std::string>& names) {
  auto find = [&](std::initializer_list<const char*> aliases, bool* jd) {
    for (const char* alias : aliases) {
      for (size_t i = 0; i < names.size(); ++i) {
        if (Upper(Trim(names[i])) == alias) {
          if (jd) *jd = std::string_view(alias) == "JD";
          return static_cast<int>(i);
        }
      }
    }
    return -1;
  };
  Columns found;
  found.time = find({"TIME", "MJD", "JD"}, &found.jd);
  found.magnitude = find({"MAGNITUDE", "MAG"}, nullptr);
  found.error =
      find({"MAGNITUDE_ERROR", "MAG_ERR", "ERR", "UNCERTAINTY"}, nullptr);
  found.band = find({"BAND", "FILTER"}, nullptr);
  std::string missing;
  auto note = [&](int column, const char* text) {
    if (column >= 0) return;
    missing += (missing.empty() ? "" : "; ") + std::string(text);
  };
  note(found.time, "no time column (TIME, MJD, JD)");
  note(found.magnitude, "no magnitude column (MAGNITUDE, MAG)");
  note(found.error,
       "no magnitude_error column (MAGNITUDE_ERROR, MAG_ERR, ERR, "
       "UNCERTAINTY)");
  note(found.band, "no band column (BAND, FILTER)");
  if (!missing.empty())
    throw PhotometryFound{PhotometryProblem::kMissingColumns, missing};
  return found;
}

// A numeric field: its value, or why it is none.
struct Number {
  double value = 0;
  std::string error;  // empty: parsed
};

Number Parse(const char* name, const std::string& text) {
  Number out;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out.value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    out.error = std::string(name) + " '" + text + "' is not a number";
  }
  return out;
}

// Collects the rows into `result`; `where` names a row for details ("line
// 7", "row 3").
class Rows {
 public:
  Rows(PhotometryCheck* result, bool jd) : result_(result), jd_(jd) {}

  void Add(const std::string& where, const Number& time,
           const Number& magnitude, const Number& error,
           const std::string& band) {
    ++result_->rows_total;
    PhotometryRow row{time.value - (jd_ ? kJdMinusMjd : 0), magnitude.value,
                      error.value, Trim(band)};
    std::string why;
    for (const Number* number : {&time, &magnitude, &error}) {
      if (why.empty()) why = number->error;
    }
    auto finite = [&](const char* name, double value) {
      if (why.empty() && !std::isfinite(value)) {
        why = std::string(name) + " " + FormatDouble(value) + " is not finite";
      }
    };
    finite("time", row.time_mjd);
    finite("magnitude", row.magnitude);
    finite("magnitude_error", row.magnitude_error);
    if (why.empty() && row.time_mjd <= 0) {
      why = "time " + FormatDouble(row.time_mjd) + " (MJD) is not positive";
    }
    if (why.empty() && row.magnitude_error <= 0) {
      why = "magnitude_error " + FormatDouble(row.magnitude_error) +
            " is not positive";
    }
    if (why.empty() && row.band.empty()) why = "band is empty";
    if (why.empty()) {
      result_->rows.push_back(std::move(row));
    } else {
      Bad(where + ": " + why);
    }
  }

  // A row that is bad before its fields are read.
  void Bad(const std::string& why) {
    if (bad_.size() < kBadRowsNamed) bad_.push_back(why);
    ++result_->rows_bad;
  }

  void CountBadRow() { ++result_->rows_total; }

  // Fills the summary; throws PhotometryFound kNoUsableRows when no row is
  // usable.
  void Finish() {
    PhotometryCheck& r = *result_;
    r.rows_usable = static_cast<int64_t>(r.rows.size());
    std::string named;
    for (const std::string& why : bad_)
      named += (named.empty() ? "" : "; ") + why;
    if (r.rows_bad > static_cast<int64_t>(bad_.size())) named += "; ...";
    if (r.rows.empty()) {
      throw PhotometryFound{PhotometryProblem::kNoUsableRows,
                            r.rows_total == 0
                                ? std::string("no data rows")
                                : "none of " + std::to_string(r.rows_total) +
                                      " rows is usable: " + named};
    }
    if (r.rows_bad > 0) {
      r.detail = std::to_string(r.rows_bad) +
                 (r.rows_bad == 1 ? " bad row: " : " bad rows: ") + named;
    }
    auto [low, high] = std::minmax_element(
        r.rows.begin(), r.rows.end(),
        [](const auto& a, const auto& b) { return a.time_mjd < b.time_mjd; });
    r.time_min_mjd = low->time_mjd;
    r.time_max_mjd = high->time_mjd;
    for (const PhotometryRow& row : r.rows) r.bands.push_back(row.band);
    std::sort(r.bands.begin(), r.bands.end());
    r.bands.erase(std::unique(r.bands.begin(), r.bands.end()), r.bands.end());
  }

 private:
  PhotometryCheck* result_;
  bool jd_;
  std::vector<std::string> bad_;
};

std::vector<std::string> SplitFields(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  while (true) {
    size_t comma = line.find(',', start);
    std::string field = Trim(line.substr(
        start, comma == std::string::npos ? std::string::npos : comma - start));
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"') {
      field = Trim(field.substr(1, field.size() - 2));
    }
    fields.push_back(field);
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

void ReadCsv(const std::string& text, PhotometryCheck* result) {
  result->format = "CSV";
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    throw PhotometryFound{
        PhotometryProblem::kUnreadable,
        "not a text file (a NUL byte at offset " + std::to_string(nul) + ")"};
  }
  std::istringstream in(text);
  std::string line;
  std::optional<Columns> columns;
  std::optional<Rows> rows;
  int needed = 0;
  for (int number = 1; std::getline(in, line); ++number) {
    std::string trimmed = Trim(line);  // also drops a CRLF's '\r'
    if (trimmed.empty() || trimmed.front() == '#') continue;
    std::vector<std::string> fields = SplitFields(trimmed);
    if (!columns) {
      columns = FindColumns(fields);
      rows.emplace(result, columns->jd);
      needed = 1 + std::max({columns->time, columns->magnitude, columns->error,
                             columns->band});
      continue;
    }
    std::string where = "line " + std::to_string(number);
    if (static_cast<int>(fields.size()) < needed) {
      rows->CountBadRow();
      rows->Bad(where + ": " + std::to_string(fields.size()) +
                " fields, expected at least " + std::to_string(needed));
      continue;
    }
    rows->Add(where, Parse("time", fields[columns->time]),
              Parse("magnitude", fields[columns->magnitude]),
              Parse("magnitude_error", fields[columns->error]),
              fields[columns->band]);
  }
  if (!columns) {
    throw PhotometryFound{PhotometryProblem::kMissingColumns, "no header row"};
  }
  rows->Finish();
}

void Fail(int status, const std::string& what) {
  fits_clear_errmsg();
  throw PhotometryFound{PhotometryProblem::kUnreadable,
                        what + ": " + StatusText(status)};
}

void ReadFits(const std::filesystem::path& path, PhotometryCheck* result) {
  result->format = "FITS_BINTABLE";
  int status = 0;
  fitsfile* raw = nullptr;
  if (fits_open_diskfile(&raw, path.c_str(), READONLY, &status)) {
    if (raw) internal::FitsCloser()(raw);
    Fail(status, "cannot open");
  }
  FitsFile file(raw);
  int hdu = 2;
  for (;; ++hdu) {
    int type = 0;
    if (fits_movabs_hdu(file.get(), hdu, &type, &status)) {
      if (status == END_OF_FILE) {
        fits_clear_errmsg();
        throw PhotometryFound{PhotometryProblem::kUnreadable,
                              "no binary table"};
      }
      Fail(status, "HDU " + std::to_string(hdu));
    }
    if (type == BINARY_TBL) break;
  }
  std::string at = "HDU " + std::to_string(hdu);
  int count = 0;
  LONGLONG nrows = 0;
  if (fits_get_num_cols(file.get(), &count, &status) ||
      fits_get_num_rowsll(file.get(), &nrows, &status)) {
    Fail(status, at);
  }
  std::vector<std::string> names;
  for (int c = 1; c <= count; ++c) {
    char name[FLEN_VALUE] = {};
    std::string keyword = "TTYPE" + std::to_string(c);
    if (fits_read_key(file.get(), TSTRING, keyword.c_str(), name, nullptr,
                      &status)) {
      if (status != KEY_NO_EXIST) Fail(status, at + " " + keyword);
      status = 0;
      fits_clear_errmsg();
    }
    names.push_back(name);
  }
  Columns columns = FindColumns(names);

  // A cell as text (any column type, as cfitsio displays it) and, for a
  // numeric column, as a double read exactly.
  auto text = [&](int column, LONGLONG row) {
    int width = 0;
    if (fits_get_col_display_width(file.get(), column + 1, &width, &status)) {
      Fail(status, at + " column " + names[column]);
    }
    std::string buffer(static_cast<size_t>(width) + 1, '\0');
    char* cells[] = {buffer.data()};
    int any = 0;
    if (fits_read_col_str(file.get(), column + 1, row, 1, 1, nullptr, cells,
                          &any, &status)) {
      Fail(status, at + " column " + names[column]);
    }
    return Trim(buffer.c_str());
  };
  auto number = [&](const char* name, int column, LONGLONG row) {
    int type = 0;
    LONGLONG repeat = 0, width = 0;
    if (fits_get_coltypell(file.get(), column + 1, &type, &repeat, &width,
                           &status)) {
      Fail(status, at + " column " + names[column]);
    }
    if (type == TSTRING) return Parse(name, text(column, row));
    Number out;
    double no_check = 0;  // 0: NaN and Inf come through unchanged
    int any = 0;
    if (fits_read_col(file.get(), TDOUBLE, column + 1, row, 1, 1, &no_check,
                      &out.value, &any, &status)) {
      Fail(status, at + " column " + names[column]);
    }
    return out;
  };
  Rows rows(result, columns.jd);
  for (LONGLONG row = 1; row <= nrows; ++row) {
    rows.Add("row " + std::to_string(row), number("time", columns.time, row),
             number("magnitude", columns.magnitude, row),
             number("magnitude_error", columns.error, row),
             text(columns.band, row));
  }
  rows.Finish();
}

}  // namespace

PhotometryCheck CheckPhotometry(const std::filesystem::path& file) {
  std::ifstream in = internal::OpenRegularFile(file, "CheckPhotometry");
  // A FITS file is cfitsio's to read; only a CSV file is read whole.
  char head[9] = {};
  in.read(head, sizeof head);
  std::string content(head, in.gcount());
  bool fits = content == "SIMPLE  =";
  if (!fits) {
    content.append(std::istreambuf_iterator<char>(in),
                   std::istreambuf_iterator<char>());
  }
  in.close();
  PhotometryCheck result;
  result.format = fits ? "FITS_BINTABLE" : "CSV";
  try {
    if (content.empty()) {
      throw PhotometryFound{PhotometryProblem::kUnreadable,
                            "the file is empty"};
    }
    if (fits) {
      ReadFits(file, &result);
    } else {
      ReadCsv(content, &result);
    }
  } catch (const PhotometryFound& found) {
    result.problem = found.problem;
    result.detail = found.detail;
    result.rows.clear();
    result.bands.clear();
    result.rows_usable = 0;
  }
  return result;
}

}  // namespace novacat::fits
