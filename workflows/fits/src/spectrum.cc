#include "novacat/fits/spectrum.h"

#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <new>
#include <stdexcept>
#include <vector>

#include "internal.h"

namespace novacat::fits {

using internal::FitsFile;
using internal::FormatDouble;
using internal::StatusText;
using internal::Trim;
using internal::Upper;

const char* ReasonCode(SpectrumProblem problem) {
  switch (problem) {
    case SpectrumProblem::kNotFits:
      return "NOT_FITS";
    case SpectrumProblem::kTruncated:
      return "TRUNCATED";
    case SpectrumProblem::kTooLarge:
      return "TOO_LARGE";
    case SpectrumProblem::kCorruptHeader:
      return "CORRUPT_HEADER";
    case SpectrumProblem::kChecksumMismatch:
      return "FITS_CHECKSUM_MISMATCH";
    case SpectrumProblem::kNoSpectrum:
      return "NO_SPECTRUM";
    case SpectrumProblem::kNonFiniteFlux:
      return "NON_FINITE_FLUX";
    case SpectrumProblem::kNonMonotonicWavelength:
      return "NON_MONOTONIC_WAVELENGTH";
    case SpectrumProblem::kImplausibleWavelength:
      return "IMPLAUSIBLE_WAVELENGTH";
    case SpectrumProblem::kTooFewPoints:
      return "TOO_FEW_POINTS";
  }
  return "UNKNOWN";
}

nlohmann::json ProfileSelection::ToJson() const {
  nlohmann::json out = {{"profile", profile},
                        {"hints", hints},
                        {"header_signature", header_signature}};
  if (compression) out["compression"] = *compression;
  return out;
}

nlohmann::json SpectrumCheck::ToJson() const {
  nlohmann::json out = nlohmann::json::object();
  if (problem) out["reason_code"] = ReasonCode(*problem);
  if (!detail.empty()) out["detail"] = detail;
  if (compression) out["compression"] = *compression;
  out["points"] = points;
  out["wavelength_min_angstrom"] = wavelength_min_angstrom;
  out["wavelength_max_angstrom"] = wavelength_max_angstrom;
  if (fits_checksum) out["fits_checksum"] = *fits_checksum;
  out["checksum_verified"] = checksum_verified;
  return out;
}

namespace {

// A problem found: CheckSpectrum catches it and returns it as the result,
// keeping what it had already learned (profile, checksums).
struct Found {
  SpectrumProblem problem;
  std::string detail;
};

std::string Hdu(int number) { return "HDU " + std::to_string(number); }

// The spectrum CheckSpectrum chose, with what reading it needs.
struct Candidate {
  int hdu = 0;
  bool image = false;
  int64_t points = 0;
  // IMAGE_1D_WCS: wavelength[i] = crval + (i + 1 - crpix) * cdelt.
  double crval = 0, cdelt = 0, crpix = 1;
  bool blank = false;  // integer pixels with a BLANK value
  // The tables' profiles: the columns and the row read (1-based).
  int wave_column = 0, flux_column = 0;
  LONGLONG row = 1;
  // IUE_MXLO: wavelength[i] = wave_start + i * wave_step.
  bool start_step = false;
  double wave_start = 0, wave_step = 0;
  std::string flux_tnull;  // "TNULLn" when integer flux has one
  // The wavelength unit: its keyword ("CUNIT1", "TUNIT2"), its text as
  // written (empty when absent: Angstrom) and Angstrom per unit (0 when it
  // is not a wavelength unit).
  std::string unit_keyword, unit_text;
  double angstrom_per_unit = 1;
};

// Angstrom per `unit` (case-insensitive; empty means Angstrom), 0 for a
// unit that is not a wavelength unit; `name` is its canonical name.
double AngstromPerUnit(const std::string& unit, std::string* name) {
  std::string u = Upper(Trim(unit));
  struct Unit {
    const char* text;
    const char* name;
    double angstrom;
  };
  static constexpr Unit kUnits[] = {
      {"", "Angstrom", 1},
      {"ANGSTROM", "Angstrom", 1},
      {"ANGSTROMS", "Angstrom", 1},
      {"A", "Angstrom", 1},
      {"AA", "Angstrom", 1},
      {"NM", "nm", 10},
      {"NANOMETER", "nm", 10},
      {"NANOMETERS", "nm", 10},
      {"UM", "um", 1e4},
      {"MICRON", "um", 1e4},
      {"MICRONS", "um", 1e4},
      {"M", "m", 1e10},
      {"METER", "m", 1e10},
      {"METRE", "m", 1e10},
      {"METERS", "m", 1e10},
      {"METRES", "m", 1e10},
  };
  for (const Unit& known : kUnits) {
    if (u == known.text) {
      *name = known.name;
      return known.angstrom;
    }
  }
  return 0;
}

// A keyword's value as text (a string's content without quotes and trailing
// blanks, any other value as written), or nullopt when absent.
std::optional<std::string> ReadText(fitsfile* file, int hdu,
                                    const char* keyword) {
  int status = 0;
  char value[FLEN_VALUE] = {};
  if (fits_read_keyword(file, keyword, value, nullptr, &status)) {
    fits_clear_errmsg();
    if (status == KEY_NO_EXIST) return std::nullopt;
    throw Found{
        SpectrumProblem::kCorruptHeader,
        Hdu(hdu) + ": " + keyword + " cannot be read: " + StatusText(status)};
  }
  std::string text = Trim(value);
  if (!text.empty() && text.front() == '\'') {
    char content[FLEN_VALUE] = {};
    if (fits_read_key(file, TSTRING, keyword, content, nullptr, &status)) {
      fits_clear_errmsg();
      throw Found{SpectrumProblem::kCorruptHeader,
                  Hdu(hdu) + ": " + keyword + " = " + text +
                      " cannot be read: " + StatusText(status)};
    }
    return Trim(content);
  }
  return text;
}

// A numeric keyword, nullopt when absent; CORRUPT_HEADER when it is not a
// number (cfitsio reads a quoted number, '4000', as the number).
std::optional<double> ReadNumber(fitsfile* file, int hdu, const char* keyword) {
  int status = 0;
  char text[FLEN_VALUE] = {};
  if (fits_read_keyword(file, keyword, text, nullptr, &status)) {
    fits_clear_errmsg();
    if (status == KEY_NO_EXIST) return std::nullopt;
    throw Found{
        SpectrumProblem::kCorruptHeader,
        Hdu(hdu) + ": " + keyword + " cannot be read: " + StatusText(status)};
  }
  double value = 0;
  if (fits_read_key(file, TDOUBLE, keyword, &value, nullptr, &status)) {
    fits_clear_errmsg();
    throw Found{
        SpectrumProblem::kCorruptHeader,
        Hdu(hdu) + ": " + keyword + " = " + Trim(text) + " is not a number"};
  }
  return value;
}

// SHA-256 of the current HDU's keywords (spectrum.h, header_signature).
std::string HeaderSignature(fitsfile* file, int hdu) {
  int status = 0, keys = 0, more = 0;
  if (fits_get_hdrspace(file, &keys, &more, &status)) {
    fits_clear_errmsg();
    throw Found{SpectrumProblem::kCorruptHeader,
                Hdu(hdu) + ": " + StatusText(status)};
  }
  std::string text;
  for (int i = 1; i <= keys; ++i) {
    char name[FLEN_KEYWORD] = {}, value[FLEN_VALUE] = {};
    if (fits_read_keyn(file, i, name, value, nullptr, &status)) {
      fits_clear_errmsg();
      throw Found{SpectrumProblem::kCorruptHeader,
                  Hdu(hdu) + ": keyword " + std::to_string(i) + ": " +
                      StatusText(status)};
    }
    std::string_view key = name;
    if (key.empty() || key == "CHECKSUM" || key == "DATASUM" ||
        key == "COMMENT" || key == "HISTORY" || key.starts_with("DATE")) {
      continue;
    }
    text += std::string(key) + "=" + Trim(value) + "\n";
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(text.data(), text.size(), digest.data(), &length, EVP_sha256(),
                 nullptr) != 1 ||
      length != 32) {
    throw std::runtime_error("CheckSpectrum: SHA-256 failed (OpenSSL)");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0F];
  }
  return out;
}

// The current HDU as IMAGE_1D_WCS, or nullopt with `why_not` set.
std::optional<Candidate> ImageCandidate(fitsfile* file, int hdu,
                                        nlohmann::json* hints,
                                        std::string* why_not) {
  int status = 0, naxis = 0, bitpix = 0;
  if (fits_get_img_dim(file, &naxis, &status) ||
      fits_get_img_type(file, &bitpix, &status)) {
    fits_clear_errmsg();
    throw Found{SpectrumProblem::kCorruptHeader,
                Hdu(hdu) + ": " + StatusText(status)};
  }
  if (naxis == 0) {
    *why_not = Hdu(hdu) + ": no data";
    return std::nullopt;
  }
  if (naxis != 1) {
    *why_not = Hdu(hdu) + ": an image with NAXIS = " + std::to_string(naxis);
    return std::nullopt;
  }
  LONGLONG length = 0;
  if (fits_get_img_sizell(file, 1, &length, &status)) {
    fits_clear_errmsg();
    throw Found{SpectrumProblem::kCorruptHeader,
                Hdu(hdu) + ": " + StatusText(status)};
  }
  if (length == 0) {
    *why_not = Hdu(hdu) + ": no data";
    return std::nullopt;
  }
  std::optional<std::string> ctype = ReadText(file, hdu, "CTYPE1");
  if (ctype) {
    std::string axis = Upper(*ctype);
    if (axis != "WAVE" && axis != "LAMBDA" && axis != "AWAV") {
      *why_not = Hdu(hdu) + ": CTYPE1 '" + *ctype +
                 "' is not a linear wavelength axis (WAVE, LAMBDA, AWAV)";
      return std::nullopt;
    }
  }
  std::optional<double> crval = ReadNumber(file, hdu, "CRVAL1");
  if (!crval) {
    *why_not = Hdu(hdu) + ": a 1-D image without CRVAL1";
    return std::nullopt;
  }
  const char* dispersion = "CDELT1";
  std::optional<double> cdelt = ReadNumber(file, hdu, "CDELT1");
  if (!cdelt) {
    dispersion = "CD1_1";
    cdelt = ReadNumber(file, hdu, "CD1_1");
  }
  if (!cdelt) {
    *why_not = Hdu(hdu) + ": a 1-D image without CDELT1 or CD1_1";
    return std::nullopt;
  }
  Candidate found;
  found.hdu = hdu;
  found.image = true;
  found.points = length;
  found.crval = *crval;
  found.cdelt = *cdelt;
  found.crpix = ReadNumber(file, hdu, "CRPIX1").value_or(1.0);
  found.blank = bitpix > 0 && ReadText(file, hdu, "BLANK").has_value();
  found.unit_keyword = "CUNIT1";
  std::optional<std::string> cunit = ReadText(file, hdu, "CUNIT1");
  found.unit_text = cunit.value_or("");
  std::string unit;
  found.angstrom_per_unit = AngstromPerUnit(found.unit_text, &unit);

  *hints = {{"hdu", hdu}, {"NAXIS", 1}, {"dispersion", dispersion}};
  if (ctype) (*hints)["CTYPE1"] = *ctype;
  if (cunit) (*hints)["CUNIT1"] = *cunit;
  if (!unit.empty()) (*hints)["unit"] = unit;
  return found;
}

bool IsNumeric(int typecode) {
  switch (std::abs(typecode)) {
    case TBYTE:
    case TSBYTE:
    case TSHORT:
    case TUSHORT:
    case TINT:
    case TUINT:
    case TLONG:
    case TULONG:
    case TLONGLONG:
    case TULONGLONG:
    case TFLOAT:
    case TDOUBLE:
      return true;
    default:
      return false;
  }
}

bool IsInteger(int typecode) {
  return IsNumeric(typecode) && std::abs(typecode) != TFLOAT &&
         std::abs(typecode) != TDOUBLE;
}

// The current HDU (a binary table) as BINTABLE_COLUMNS, or nullopt with
// `why_not` set.
std::optional<Candidate> TableCandidate(fitsfile* file, int hdu,
                                        nlohmann::json* hints,
                                        std::string* why_not) {
  int status = 0, columns = 0;
  LONGLONG rows = 0;
  if (fits_get_num_cols(file, &columns, &status) ||
      fits_get_num_rowsll(file, &rows, &status)) {
    fits_clear_errmsg();
    throw Found{SpectrumProblem::kCorruptHeader,
                Hdu(hdu) + ": " + StatusText(status)};
  }
  std::vector<std::string> names(columns + 1);
  for (int c = 1; c <= columns; ++c) {
    std::string keyword = "TTYPE" + std::to_string(c);
    names[c] = ReadText(file, hdu, keyword.c_str()).value_or("");
  }
  // The first column named by the first alias that names one.
  auto find = [&](std::initializer_list<const char*> aliases) {
    for (const char* alias : aliases) {
      for (int c = 1; c <= columns; ++c) {
        if (Upper(names[c]) == alias) return c;
      }
    }
    return 0;
  };
  int wave = find({"WAVE", "WAVELENGTH", "LAMBDA"});
  int flux = find({"FLUX", "FLUX_REDUCED"});
  if (wave == 0) {
    *why_not = Hdu(hdu) +
               ": a binary table without a wavelength column (WAVE, "
               "WAVELENGTH, LAMBDA)";
    return std::nullopt;
  }
  if (flux == 0) {
    *why_not = Hdu(hdu) +
               ": a binary table without a flux column (FLUX, FLUX_REDUCED)";
    return std::nullopt;
  }
  // Each column's values in row 1 (its repeat, or a variable-length
  // array's length there) and type.
  int types[2] = {};
  LONGLONG lengths[2] = {};
  for (int i = 0; i < 2; ++i) {
    int column = i == 0 ? wave : flux;
    LONGLONG repeat = 0, width = 0;
    if (fits_get_coltypell(file, column, &types[i], &repeat, &width, &status)) {
      fits_clear_errmsg();
      throw Found{
          SpectrumProblem::kCorruptHeader,
          Hdu(hdu) + ": column " + names[column] + ": " + StatusText(status)};
    }
    if (!IsNumeric(types[i])) {
      *why_not = Hdu(hdu) + ": column " + names[column] + " is not numeric";
      return std::nullopt;
    }
    lengths[i] = repeat;
    if (types[i] < 0 && rows == 1) {
      LONGLONG offset = 0;
      if (fits_read_descriptll(file, column, 1, &lengths[i], &offset,
                               &status)) {
        fits_clear_errmsg();
        throw Found{
            SpectrumProblem::kCorruptHeader,
            Hdu(hdu) + ": column " + names[column] + ": " + StatusText(status)};
      }
    }
  }
  Candidate found;
  const char* layout = nullptr;
  if (types[0] > 0 && types[1] > 0 && lengths[0] == 1 && lengths[1] == 1) {
    layout = "ROWS";
    found.points = rows;
  } else if (rows == 1 && lengths[0] == lengths[1]) {
    layout = "ARRAY_ROW";
    found.points = lengths[0];
  } else if (rows == 1) {
    *why_not = Hdu(hdu) + ": " + names[wave] + " holds " +
               std::to_string(lengths[0]) + " values and " + names[flux] + " " +
               std::to_string(lengths[1]);
    return std::nullopt;
  } else {
    *why_not = Hdu(hdu) + ": " + names[wave] + " and " + names[flux] +
               " hold arrays in " + std::to_string(rows) +
               " rows (expected one value per row, or one row)";
    return std::nullopt;
  }
  found.hdu = hdu;
  found.wave_column = wave;
  found.flux_column = flux;
  if (IsInteger(types[1])) {
    std::string tnull = "TNULL" + std::to_string(flux);
    if (ReadText(file, hdu, tnull.c_str())) found.flux_tnull = tnull;
  }
  found.unit_keyword = "TUNIT" + std::to_string(wave);
  found.unit_text =
      ReadText(file, hdu, found.unit_keyword.c_str()).value_or("");
  std::string unit;
  found.angstrom_per_unit = AngstromPerUnit(found.unit_text, &unit);

  *hints = {{"hdu", hdu},
            {"layout", layout},
            {"wavelength_column", names[wave]},
            {"flux_column", names[flux]}};
  if (!unit.empty()) (*hints)["unit"] = unit;
  return found;
}

// --- The mission profiles (spectrum.h, ProfileSelection) -------------------

enum class Mission { kNone, kEsoSdp, kHstX1d, kIueMxlo };

const char* MissionProfile(Mission mission) {
  switch (mission) {
    case Mission::kEsoSdp:
      return "ESO_SDP_1D";
    case Mission::kHstX1d:
      return "HST_X1D";
    case Mission::kIueMxlo:
      return "IUE_MXLO";
    case Mission::kNone:
      break;
  }
  return "";
}

// What named a mission profile, if anything did.
struct Claim {
  Mission mission = Mission::kNone;
  bool by_header = false;
  // The primary header's PRODCATG, ORIGIN, TELESCOP and INSTRUME that are
  // present, as written.
  nlohmann::json header = nlohmann::json::object();
  // For a detail: "the header (TELESCOP 'HST', INSTRUME 'STIS') names".
  std::string named_by;
};

// The claim of the primary header (the current HDU), else of the provider's
// hints.
Claim ReadClaim(fitsfile* file, const nlohmann::json& provider_hints) {
  Claim claim;
  for (const char* keyword : {"PRODCATG", "ORIGIN", "TELESCOP", "INSTRUME"}) {
    if (std::optional<std::string> value = ReadText(file, 1, keyword)) {
      claim.header[keyword] = *value;
    }
  }
  auto upper = [&](const char* keyword) {
    auto it = claim.header.find(keyword);
    return it == claim.header.end() ? std::string()
                                    : Upper(it->get<std::string>());
  };
  auto quoted = [&](const char* keyword) {
    return std::string(keyword) + " '" +
           claim.header[keyword].get<std::string>() + "'";
  };
  if (upper("PRODCATG") == "SCIENCE.SPECTRUM") {
    claim.mission = Mission::kEsoSdp;
    claim.named_by = quoted("PRODCATG");
  } else if (upper("TELESCOP") == "HST" &&
             (upper("INSTRUME") == "STIS" || upper("INSTRUME") == "COS")) {
    claim.mission = Mission::kHstX1d;
    claim.named_by = quoted("TELESCOP") + ", " + quoted("INSTRUME");
  } else if (upper("TELESCOP") == "IUE") {
    claim.mission = Mission::kIueMxlo;
    claim.named_by = quoted("TELESCOP");
  }
  if (claim.mission != Mission::kNone) {
    claim.by_header = true;
    claim.named_by = "the header (" + claim.named_by + ") names";
    return claim;
  }
  if (!provider_hints.is_object()) return claim;
  auto group = provider_hints.find("productSubGroupDescription");
  if (group == provider_hints.end() || !group->is_string()) return claim;
  std::string value = Upper(Trim(group->get<std::string>()));
  if (value == "X1D" || value == "SX1" || value.starts_with("X1DSUM")) {
    claim.mission = Mission::kHstX1d;
  } else if (value == "MXLO") {
    claim.mission = Mission::kIueMxlo;
  }
  claim.named_by = "the provider's hints (productSubGroupDescription '" +
                   group->get<std::string>() + "') name";
  return claim;
}

// A binary table (the current HDU) as the mission profiles read it; a cell
// that cannot be read is CORRUPT_HEADER (TRUNCATED at the end of the file).
class Table {
 public:
  Table(fitsfile* file, int hdu) : file_(file), hdu_(hdu) {
    int status = 0, columns = 0;
    if (fits_get_num_cols(file, &columns, &status) ||
        fits_get_num_rowsll(file, &rows_, &status)) {
      fits_clear_errmsg();
      throw Found{SpectrumProblem::kCorruptHeader,
                  Hdu(hdu) + ": " + StatusText(status)};
    }
    names_.resize(columns + 1);
    utypes_.resize(columns + 1);
    for (int c = 1; c <= columns; ++c) {
      std::string n = std::to_string(c);
      names_[c] = ReadText(file, hdu, ("TTYPE" + n).c_str()).value_or("");
      utypes_[c] = ReadText(file, hdu, ("TUTYP" + n).c_str()).value_or("");
    }
  }

  int hdu() const { return hdu_; }
  LONGLONG rows() const { return rows_; }
  const std::string& name(int column) const { return names_[column]; }

  // The first column named `name` (case-insensitive), 0 when none.
  int Find(std::string_view name) const { return FindIn(names_, name); }
  // The first column whose TUTYPn is `utype` (case-insensitive), 0 when
  // none.
  int FindUtype(std::string_view utype) const { return FindIn(utypes_, utype); }

  // The column's cfitsio type code (negative: variable-length arrays) and
  // its repeat count.
  int Type(int column, LONGLONG* repeat) const {
    int status = 0, type = 0;
    LONGLONG width = 0;
    if (fits_get_coltypell(file_, column, &type, repeat, &width, &status)) {
      Fail(column, status);
    }
    return type;
  }
  // How many values the column holds in `row`.
  LONGLONG Length(int column, LONGLONG row) const {
    LONGLONG repeat = 0;
    if (Type(column, &repeat) > 0) return repeat;
    int status = 0;
    LONGLONG length = 0, offset = 0;
    if (fits_read_descriptll(file_, column, row, &length, &offset, &status)) {
      Fail(column, status);
    }
    return length;
  }
  // The first `count` values of the column in `row` (NaN and Inf as they
  // are).
  std::vector<double> Numbers(int column, LONGLONG row, LONGLONG count) const {
    std::vector<double> values(count);
    int status = 0, any = 0;
    double no_check = 0;
    if (count > 0 && fits_read_col(file_, TDOUBLE, column, row, 1, count,
                                   &no_check, values.data(), &any, &status)) {
      Fail(column, status);
    }
    return values;
  }
  // A text cell, trailing blanks removed.
  std::string Text(int column, LONGLONG row) const {
    LONGLONG repeat = 0;
    Type(column, &repeat);
    std::string buffer(static_cast<size_t>(repeat) + 1, '\0');
    char* cells[] = {buffer.data()};
    int status = 0, any = 0;
    if (fits_read_col_str(file_, column, row, 1, 1, const_cast<char*>(""),
                          cells, &any, &status)) {
      Fail(column, status);
    }
    return Trim(buffer.c_str());
  }

 private:
  static int FindIn(const std::vector<std::string>& values,
                    std::string_view wanted) {
    std::string upper = Upper(wanted);
    for (size_t c = 1; c < values.size(); ++c) {
      if (Upper(values[c]) == upper) return static_cast<int>(c);
    }
    return 0;
  }
  [[noreturn]] void Fail(int column, int status) const {
    fits_clear_errmsg();
    throw Found{
        status == END_OF_FILE ? SpectrumProblem::kTruncated
                              : SpectrumProblem::kCorruptHeader,
        Hdu(hdu_) + ": column " + names_[column] + ": " + StatusText(status)};
  }

  fitsfile* file_;
  int hdu_;
  LONGLONG rows_ = 0;
  std::vector<std::string> names_, utypes_;  // [1..columns], as written
};

// The wavelength unit of `table`'s column `wave` and the TNULLn of an
// integer flux column, into `found` and `hints` (as the generic table
// profile records them).
void ReadUnitAndNull(fitsfile* file, const Table& table, int wave, int flux,
                     Candidate* found, nlohmann::json* hints) {
  LONGLONG repeat = 0;
  if (IsInteger(table.Type(flux, &repeat))) {
    std::string tnull = "TNULL" + std::to_string(flux);
    if (ReadText(file, table.hdu(), tnull.c_str())) found->flux_tnull = tnull;
  }
  found->unit_keyword = "TUNIT" + std::to_string(wave);
  found->unit_text =
      ReadText(file, table.hdu(), found->unit_keyword.c_str()).value_or("");
  std::string unit;
  found->angstrom_per_unit = AngstromPerUnit(found->unit_text, &unit);
  if (!unit.empty()) (*hints)["unit"] = unit;
}

// Whether `table` has a numeric column `column`; `why_not` says what is
// wrong otherwise (`what` names it when the column is absent).
bool NumericColumn(const Table& table, int column, const std::string& what,
                   std::string* why_not) {
  if (column == 0) {
    *why_not = Hdu(table.hdu()) + ": a binary table without " + what;
    return false;
  }
  LONGLONG repeat = 0;
  if (!IsNumeric(table.Type(column, &repeat))) {
    *why_not =
        Hdu(table.hdu()) + ": column " + table.name(column) + " is not numeric";
    return false;
  }
  return true;
}

// ESO_SDP_1D on `table`.
std::optional<Candidate> EsoSdpCandidate(fitsfile* file, const Table& table,
                                         nlohmann::json* hints,
                                         std::string* why_not) {
  const std::string at = Hdu(table.hdu()) + ": ";
  int wave = table.FindUtype("spec:Data.SpectralAxis.Value");
  if (wave == 0) wave = table.FindUtype("Spectrum.Data.SpectralAxis.Value");
  int flux = table.FindUtype("spec:Data.FluxAxis.Value");
  if (flux == 0) flux = table.FindUtype("Spectrum.Data.FluxAxis.Value");
  const char* by = "TUTYP";
  if (wave == 0 || flux == 0) {
    by = "TTYPE";
    wave = table.Find("WAVE");
    flux = table.Find("FLUX");
  }
  if (!NumericColumn(table, wave,
                     "a spectral axis column (TUTYPn "
                     "'spec:Data.SpectralAxis.Value', or WAVE)",
                     why_not) ||
      !NumericColumn(table, flux,
                     "a flux column (TUTYPn 'spec:Data.FluxAxis.Value', or "
                     "FLUX)",
                     why_not)) {
    return std::nullopt;
  }
  if (table.rows() != 1) {
    *why_not = at + std::to_string(table.rows()) +
               " rows (the SDP spectrum is a single row of arrays)";
    return std::nullopt;
  }
  LONGLONG wave_length = table.Length(wave, 1);
  LONGLONG flux_length = table.Length(flux, 1);
  std::optional<double> nelem = ReadNumber(file, table.hdu(), "NELEM");
  if (nelem && (*nelem < 0 || *nelem != std::floor(*nelem))) {
    throw Found{SpectrumProblem::kCorruptHeader,
                at + "NELEM = " + FormatDouble(*nelem) + " is not a count"};
  }
  LONGLONG points = nelem ? static_cast<LONGLONG>(*nelem) : wave_length;
  if (points > wave_length || points > flux_length ||
      (!nelem && wave_length != flux_length)) {
    *why_not = at + table.name(wave) + " holds " + std::to_string(wave_length) +
               " values and " + table.name(flux) + " " +
               std::to_string(flux_length) +
               (nelem ? ", fewer than NELEM = " + std::to_string(points) : "");
    return std::nullopt;
  }
  Candidate found;
  found.hdu = table.hdu();
  found.points = points;
  found.wave_column = wave;
  found.flux_column = flux;
  *hints = {{"hdu", table.hdu()},
            {"layout", "ARRAY_ROW"},
            {"wavelength_column", table.name(wave)},
            {"flux_column", table.name(flux)},
            {"columns_by", by}};
  if (nelem) (*hints)["NELEM"] = points;
  ReadUnitAndNull(file, table, wave, flux, &found, hints);
  return found;
}

// HST_X1D and IUE_MXLO on `table`: one row per order, segment or aperture,
// the one with the most good points read.
std::optional<Candidate> RowPerOrderCandidate(fitsfile* file,
                                              const Table& table, bool iue,
                                              nlohmann::json* hints,
                                              std::string* why_not) {
  const std::string at = Hdu(table.hdu()) + ": ";
  int wave = table.Find("WAVELENGTH");
  int flux = table.Find("FLUX");
  int step = iue ? table.Find("DELTAW") : 0;
  if (!NumericColumn(table, wave, "a WAVELENGTH column", why_not) ||
      !NumericColumn(table, flux, "a FLUX column", why_not) ||
      (iue && !NumericColumn(table, step, "a DELTAW column", why_not))) {
    return std::nullopt;
  }
  LONGLONG repeat = 0;
  if (iue && (table.Type(wave, &repeat) < 0 || repeat != 1)) {
    *why_not = at + table.name(wave) +
               " holds arrays (an MXLO row holds the first wavelength, and "
               "DELTAW the step)";
    return std::nullopt;
  }
  if (table.rows() == 0) {
    *why_not = at + "a binary table without rows";
    return std::nullopt;
  }
  const char* count_name = iue ? "NPOINTS" : "NELEM";
  int count = table.Find(count_name);
  int quality = table.Find(iue ? "QUALITY" : "DQ");
  if (count != 0 && !NumericColumn(table, count, "", why_not)) {
    return std::nullopt;
  }
  if (quality != 0 && !NumericColumn(table, quality, "", why_not)) {
    return std::nullopt;
  }
  // HST: the DQ bits that make a point bad (SDQFLAGS), every bit without.
  std::optional<double> sdqflags;
  if (!iue) sdqflags = ReadNumber(file, table.hdu(), "SDQFLAGS");
  const int64_t serious = sdqflags ? static_cast<int64_t>(*sdqflags) : ~0LL;

  LONGLONG best_row = 0, best_points = 0, best_good = -1;
  for (LONGLONG row = 1; row <= table.rows(); ++row) {
    LONGLONG length = table.Length(flux, row);
    if (!iue) length = std::min(length, table.Length(wave, row));
    LONGLONG points = length;
    if (count != 0) {
      double value = table.Numbers(count, row, 1)[0];
      if (!(value >= 0 && value <= static_cast<double>(length))) {
        *why_not = at + "row " + std::to_string(row) + ": " +
                   table.name(count) + " = " + FormatDouble(value) +
                   " but its arrays hold " + std::to_string(length) + " values";
        return std::nullopt;
      }
      points = static_cast<LONGLONG>(value);
    }
    std::vector<double> values = table.Numbers(flux, row, points);
    std::vector<double> flags;
    if (quality != 0) {
      flags = table.Numbers(quality, row,
                            std::min(points, table.Length(quality, row)));
    }
    LONGLONG good = 0;
    for (LONGLONG i = 0; i < points; ++i) {
      bool flagged =
          i < static_cast<LONGLONG>(flags.size()) &&
          (iue ? flags[i] != 0 : (static_cast<int64_t>(flags[i]) & serious));
      if (std::isfinite(values[i]) && !flagged) ++good;
    }
    if (good > best_good) {
      best_row = row;
      best_points = points;
      best_good = good;
    }
  }

  Candidate found;
  found.hdu = table.hdu();
  found.points = best_points;
  found.wave_column = wave;
  found.flux_column = flux;
  found.row = best_row;
  *hints = {{"hdu", table.hdu()},
            {"layout", iue ? "START_STEP" : "ROW_PER_ORDER"},
            {"rows", table.rows()},
            {"row", best_row},
            {"row_rule", "MOST_GOOD_POINTS"},
            {"good_points", best_good},
            {"wavelength_column", table.name(wave)},
            {"flux_column", table.name(flux)},
            {count_name, best_points}};
  if (quality != 0) (*hints)["quality_column"] = table.name(quality);
  if (iue) {
    found.start_step = true;
    found.wave_start = table.Numbers(wave, best_row, 1)[0];
    found.wave_step = table.Numbers(step, best_row, 1)[0];
    (*hints)["step_column"] = table.name(step);
    if (int aperture = table.Find("APERTURE")) {
      (*hints)["APERTURE"] = table.Text(aperture, best_row);
    }
  } else {
    if (sdqflags) (*hints)["SDQFLAGS"] = serious;
    if (int order = table.Find("SPORDER")) {
      (*hints)["order_column"] = table.name(order);
      (*hints)["order"] =
          static_cast<int64_t>(table.Numbers(order, best_row, 1)[0]);
    } else if (int segment = table.Find("SEGMENT")) {
      (*hints)["order_column"] = table.name(segment);
      (*hints)["order"] = table.Text(segment, best_row);
    }
  }
  ReadUnitAndNull(file, table, wave, flux, &found, hints);
  return found;
}

// The claimed mission's profile on the binary table `hdu` (current).
std::optional<Candidate> MissionCandidate(fitsfile* file, int hdu,
                                          Mission mission,
                                          nlohmann::json* hints,
                                          std::string* why_not) {
  Table table(file, hdu);
  if (mission == Mission::kEsoSdp) {
    return EsoSdpCandidate(file, table, hints, why_not);
  }
  return RowPerOrderCandidate(file, table, mission == Mission::kIueMxlo, hints,
                              why_not);
}

// Reads `count` doubles of the candidate's flux (`wavelength` false) or
// wavelength column, or its image; `undefined` gets cfitsio's null flags
// when `flags` (BLANK or TNULLn applies).
void ReadValues(fitsfile* file, const Candidate& spectrum, bool wavelength,
                bool flags, std::vector<double>* values,
                std::vector<char>* undefined) {
  int status = 0, any = 0;
  double no_check = 0;  // 0: cfitsio passes NaN and Inf through unchanged
  LONGLONG count = spectrum.points;
  values->assign(count, 0);
  undefined->assign(count, 0);
  int column = wavelength ? spectrum.wave_column : spectrum.flux_column;
  if (spectrum.image) {
    fits_read_img(file, TDOUBLE, 1, count, &no_check, values->data(), &any,
                  &status);
  } else {
    fits_read_col(file, TDOUBLE, column, spectrum.row, 1, count, &no_check,
                  values->data(), &any, &status);
  }
  if (!status && flags) {
    std::vector<double> ignored(count);
    if (spectrum.image) {
      fits_read_imgnull(file, TDOUBLE, 1, count, ignored.data(),
                        undefined->data(), &any, &status);
    } else {
      fits_read_colnull(file, TDOUBLE, column, spectrum.row, 1, count,
                        ignored.data(), undefined->data(), &any, &status);
    }
  }
  if (status) {
    fits_clear_errmsg();
    throw Found{status == END_OF_FILE ? SpectrumProblem::kTruncated
                                      : SpectrumProblem::kCorruptHeader,
                Hdu(spectrum.hdu) + ": reading the " +
                    (wavelength ? "wavelengths" : "flux") +
                    " failed: " + StatusText(status)};
  }
}

std::string NonFinite(double value) {
  return std::isnan(value) ? "NaN" : "infinite";
}

// Steps 6 of CheckSpectrum on the chosen spectrum.
void CheckPoints(fitsfile* file, const Candidate& spectrum,
                 SpectrumCheck* result) {
  int status = 0;
  if (fits_movabs_hdu(file, spectrum.hdu, nullptr, &status)) {
    fits_clear_errmsg();
    throw Found{SpectrumProblem::kCorruptHeader,
                Hdu(spectrum.hdu) + ": " + StatusText(status)};
  }
  if (spectrum.points < kMinSpectrumPoints) {
    throw Found{SpectrumProblem::kTooFewPoints,
                std::to_string(spectrum.points) + " points (at least " +
                    std::to_string(kMinSpectrumPoints) + " needed)"};
  }
  std::vector<double> flux, wave;
  std::vector<char> undefined;
  bool flags = spectrum.image ? spectrum.blank : !spectrum.flux_tnull.empty();
  ReadValues(file, spectrum, false, flags, &flux, &undefined);
  for (size_t i = 0; i < flux.size(); ++i) {
    std::string at = "flux[" + std::to_string(i) + "] is ";
    if (undefined[i]) {
      throw Found{
          SpectrumProblem::kNonFiniteFlux,
          at + "undefined (" +
              (spectrum.image ? std::string("BLANK") : spectrum.flux_tnull) +
              ")"};
    }
    if (!std::isfinite(flux[i])) {
      throw Found{SpectrumProblem::kNonFiniteFlux, at + NonFinite(flux[i])};
    }
  }

  if (spectrum.angstrom_per_unit == 0) {
    throw Found{SpectrumProblem::kImplausibleWavelength,
                spectrum.unit_keyword + " '" + spectrum.unit_text +
                    "' is not a wavelength unit (Angstrom, nm, um, m)"};
  }
  if (spectrum.image) {
    wave.resize(spectrum.points);
    for (size_t i = 0; i < wave.size(); ++i) {
      wave[i] = spectrum.crval +
                (static_cast<double>(i) + 1 - spectrum.crpix) * spectrum.cdelt;
    }
  } else if (spectrum.start_step) {
    wave.resize(spectrum.points);
    for (size_t i = 0; i < wave.size(); ++i) {
      wave[i] =
          spectrum.wave_start + static_cast<double>(i) * spectrum.wave_step;
    }
  } else {
    ReadValues(file, spectrum, true, false, &wave, &undefined);
  }
  for (double& value : wave) value *= spectrum.angstrom_per_unit;
  for (size_t i = 0; i < wave.size(); ++i) {
    if (!std::isfinite(wave[i])) {
      throw Found{
          SpectrumProblem::kImplausibleWavelength,
          "wavelength[" + std::to_string(i) + "] is " + NonFinite(wave[i])};
    }
  }
  auto [low, high] = std::minmax_element(wave.begin(), wave.end());
  result->wavelength_min_angstrom = *low;
  result->wavelength_max_angstrom = *high;
  for (size_t i = 1; i < wave.size(); ++i) {
    if (!(wave[i] > wave[i - 1])) {
      throw Found{SpectrumProblem::kNonMonotonicWavelength,
                  "wavelength[" + std::to_string(i) +
                      "] = " + FormatDouble(wave[i]) +
                      " Angstrom is not greater than wavelength[" +
                      std::to_string(i - 1) +
                      "] = " + FormatDouble(wave[i - 1]) + " Angstrom"};
    }
  }
  if (*low < kMinWavelengthAngstrom || *high > kMaxWavelengthAngstrom) {
    throw Found{SpectrumProblem::kImplausibleWavelength,
                "wavelengths " + FormatDouble(*low) + " to " +
                    FormatDouble(*high) + " Angstrom are outside [" +
                    FormatDouble(kMinWavelengthAngstrom) + ", " +
                    FormatDouble(kMaxWavelengthAngstrom) + "] Angstrom"};
  }
}

// cfitsio's status for a file that ends early: a partial block reads as
// READ_ERROR, a missing one as END_OF_FILE.
bool EndsEarly(int status) {
  return status == END_OF_FILE || status == READ_ERROR;
}

// The FITS bytes CheckFits reads: the file itself, or the decompressed
// content of a gzip-compressed one, held in memory.
struct Content {
  std::filesystem::path path;           // the file, when memory is null
  const std::string* memory = nullptr;  // the decompressed bytes
  LONGLONG size = 0;
  // How details name it: "the file" or "the decompressed file".
  std::string noun = "the file";

  // Up to `count` bytes from `offset` (fewer at the end).
  std::string Read(LONGLONG offset, size_t count) const {
    if (offset >= size) return "";
    count = static_cast<size_t>(
        std::min<LONGLONG>(static_cast<LONGLONG>(count), size - offset));
    if (memory) return memory->substr(static_cast<size_t>(offset), count);
    std::ifstream in(path, std::ios::binary);
    in.seekg(offset);
    std::string out(count, '\0');
    in.read(out.data(), static_cast<std::streamsize>(count));
    out.resize(static_cast<size_t>(in.gcount()));
    return out;
  }
};

// The TRUNCATED finding for content that ends early in the HDU `hdu`
// starting at byte `start`: inside its header when no END card follows
// `start`, else inside its data.
Found Truncated(const Content& content, LONGLONG start, int hdu) {
  const std::string end_card = "END" + std::string(77, ' ');
  const char* where = "header";
  for (LONGLONG at = start; at + 80 <= content.size; at += 80) {
    if (content.Read(at, 80) == end_card) {
      where = "data";
      break;
    }
  }
  return Found{SpectrumProblem::kTruncated,
               content.noun + " (" + std::to_string(content.size) +
                   " bytes) ends inside the " + where + " of " + Hdu(hdu)};
}

// Steps 2 to 6 of CheckSpectrum on content that starts with a SIMPLE card.
void CheckFits(const Content& content, const nlohmann::json& provider_hints,
               SpectrumCheck* result) {
  const LONGLONG size = content.size;
  int status = 0;
  fitsfile* raw = nullptr;
  // cfitsio keeps the address of these two for as long as the file is open:
  // they outlive `file` below. READONLY: it never reallocates the buffer.
  void* memory =
      content.memory ? const_cast<char*>(content.memory->data()) : nullptr;
  size_t memory_size = content.memory ? content.memory->size() : 0;
  if (content.memory
          ? fits_open_memfile(&raw, "decompressed", READONLY, &memory,
                              &memory_size, 0, nullptr, &status)
          : fits_open_diskfile(&raw, content.path.c_str(), READONLY, &status)) {
    fits_clear_errmsg();
    if (raw) internal::FitsCloser()(raw);
    if (EndsEarly(status)) throw Truncated(content, 0, 1);
    throw Found{SpectrumProblem::kCorruptHeader,
                Hdu(1) + ": " + StatusText(status)};
  }
  FitsFile file(raw);

  // 2. The HDUs' structure, each complete. cfitsio reports an HDU cut short
  // like the end of the file, so bytes after the last complete HDU that
  // start another header make the file TRUNCATED; other trailing bytes are
  // tolerated, as cfitsio does.
  std::vector<int> types;
  LONGLONG last_end = 0;
  for (int hdu = 1;; ++hdu) {
    int type = 0;
    if (hdu == 1 ? fits_get_hdu_type(file.get(), &type, &status)
                 : fits_movabs_hdu(file.get(), hdu, &type, &status)) {
      fits_clear_errmsg();
      if (!EndsEarly(status)) {
        throw Found{SpectrumProblem::kCorruptHeader,
                    Hdu(hdu) + ": " + StatusText(status)};
      }
      status = 0;
      if (content.Read(last_end, 8) == "XTENSION") {
        throw Truncated(content, last_end, hdu);
      }
      break;
    }
    LONGLONG header = 0, data = 0, end = 0;
    if (fits_get_hduaddrll(file.get(), &header, &data, &end, &status)) {
      fits_clear_errmsg();
      throw Found{SpectrumProblem::kCorruptHeader,
                  Hdu(hdu) + ": " + StatusText(status)};
    }
    if (end > size) {
      throw Found{SpectrumProblem::kTruncated,
                  content.noun + " has " + std::to_string(size) +
                      " bytes but " + Hdu(hdu) + "'s data ends at byte " +
                      std::to_string(end)};
    }
    types.push_back(type);
    last_end = end;
  }

  // 3. The profile, and 4. the checksums of every HDU.
  Claim claim;
  std::optional<Candidate> spectrum;
  // Why the claimed mission's table does not have its layout.
  std::optional<std::string> not_the_claim;
  std::vector<std::string> passed_over;
  std::optional<std::string> mismatch;
  std::vector<std::optional<std::string>> checksums;
  bool any_checksum = false;
  for (int hdu = 1; hdu <= static_cast<int>(types.size()); ++hdu) {
    if (fits_movabs_hdu(file.get(), hdu, nullptr, &status)) {
      fits_clear_errmsg();
      throw Found{SpectrumProblem::kCorruptHeader,
                  Hdu(hdu) + ": " + StatusText(status)};
    }
    checksums.push_back(ReadText(file.get(), hdu, "CHECKSUM"));
    int data_ok = 0, hdu_ok = 0;
    if (fits_verify_chksum(file.get(), &data_ok, &hdu_ok, &status)) {
      fits_clear_errmsg();
      status = 0;
      if (!mismatch) {
        mismatch = Hdu(hdu) + ": the checksums cannot be verified";
      }
    }
    if (data_ok != 0 || hdu_ok != 0) any_checksum = true;
    if (!mismatch && data_ok < 0) {
      mismatch = Hdu(hdu) + ": DATASUM does not match the data";
    } else if (!mismatch && hdu_ok < 0) {
      mismatch = Hdu(hdu) + ": CHECKSUM does not match the HDU";
    }
    if (hdu == 1) claim = ReadClaim(file.get(), provider_hints);
    if (spectrum || not_the_claim) continue;
    nlohmann::json hints;
    std::string why_not;
    int type = types[hdu - 1];
    if (claim.mission != Mission::kNone) {
      // The claimed format's table is its first binary table.
      if (type != BINARY_TBL) continue;
      spectrum =
          MissionCandidate(file.get(), hdu, claim.mission, &hints, &why_not);
      if (!spectrum) not_the_claim = why_not;
    } else if (type == IMAGE_HDU) {
      spectrum = ImageCandidate(file.get(), hdu, &hints, &why_not);
    } else if (type == BINARY_TBL) {
      spectrum = TableCandidate(file.get(), hdu, &hints, &why_not);
    } else {
      why_not = Hdu(hdu) + ": an ASCII table";
    }
    if (!spectrum) {
      passed_over.push_back(why_not);
      continue;
    }
    const char* profile = spectrum->image ? "IMAGE_1D_WCS" : "BINTABLE_COLUMNS";
    if (claim.mission != Mission::kNone) {
      profile = MissionProfile(claim.mission);
      hints["selected_by"] = claim.by_header ? "header" : "provider_hints";
      hints["header"] = claim.header;
    }
    if (!provider_hints.is_null()) hints["provider_hints"] = provider_hints;
    result->profile = ProfileSelection{
        profile, hints, HeaderSignature(file.get(), hdu), std::nullopt};
    result->points = spectrum->points;
  }
  result->fits_checksum = checksums[spectrum ? spectrum->hdu - 1 : 0];
  result->checksum_verified = any_checksum && !mismatch;
  if (mismatch) throw Found{SpectrumProblem::kChecksumMismatch, *mismatch};

  // 5. and 6.
  if (claim.mission != Mission::kNone && !spectrum) {
    throw Found{SpectrumProblem::kNoSpectrum,
                claim.named_by + " the profile " +
                    MissionProfile(claim.mission) + ", but " +
                    not_the_claim.value_or("the file has no binary table")};
  }
  if (!spectrum) {
    std::string detail =
        "no 1-D image with a wavelength WCS and no binary table with "
        "wavelength and flux columns";
    for (size_t i = 0; i < passed_over.size(); ++i) {
      detail += (i == 0 ? ": " : "; ") + passed_over[i];
    }
    throw Found{SpectrumProblem::kNoSpectrum, detail};
  }
  CheckPoints(file.get(), *spectrum, result);
}

// --- gzip-compressed files (CheckSpectrum, step 0) --------------------------

bool IsGzip(std::string_view start) {
  return start.size() >= 2 && static_cast<unsigned char>(start[0]) == 0x1f &&
         static_cast<unsigned char>(start[1]) == 0x8b;
}

// Ends a zlib inflate stream.
struct InflateEnder {
  void operator()(z_stream* stream) const { inflateEnd(stream); }
};

// The decompressed content of the gzip-compressed `in` (`size` bytes): every
// gzip member in turn, as gunzip reads them. Found NOT_FITS for corrupt
// data, TRUNCATED for data that ends early, TOO_LARGE past
// kMaxDecompressedBytes.
std::string Gunzip(std::ifstream& in, uintmax_t size) {
  constexpr size_t kChunk = 64 * 1024;
  constexpr size_t kLimit = static_cast<size_t>(kMaxDecompressedBytes);
  auto corrupt = [](const z_stream& stream, int code) {
    return Found{SpectrumProblem::kNotFits,
                 std::string("the gzip-compressed data is corrupt (zlib: ") +
                     (stream.msg ? stream.msg : zError(code)) + ")"};
  };
  auto too_large = [] {
    return Found{SpectrumProblem::kTooLarge,
                 "the gzip-compressed file decompresses to more than " +
                     std::to_string(kMaxDecompressedBytes) + " bytes"};
  };

  // The output starts at the size the last member's trailer states (ISIZE,
  // the size modulo 2^32: a hint, never trusted, so also at most what
  // deflate's best ratio, 1032:1, can make of the file), plus one byte so
  // that a stream that fills it exactly still ends inside it.
  size_t initial = kChunk;
  if (size >= 18) {
    unsigned char trailer[4] = {};
    in.seekg(static_cast<std::streamoff>(size - 4));
    in.read(reinterpret_cast<char*>(trailer), sizeof trailer);
    uint32_t isize = trailer[0] | (uint32_t{trailer[1]} << 8) |
                     (uint32_t{trailer[2]} << 16) |
                     (uint32_t{trailer[3]} << 24);
    uintmax_t most = std::min<uintmax_t>(size, kLimit) * 1032;
    initial = static_cast<size_t>(std::clamp<uintmax_t>(
        std::min<uintmax_t>(uintmax_t{isize}, most) + 1, kChunk, kLimit + 1));
    in.clear();
  }
  in.seekg(0);

  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw std::bad_alloc();
  std::unique_ptr<z_stream, InflateEnder> ender(&stream);
  std::string out(initial, '\0');
  size_t produced = 0;
  std::vector<char> input(kChunk);
  bool member_ended = false;
  for (;;) {
    if (stream.avail_in == 0) {
      in.read(input.data(), static_cast<std::streamsize>(input.size()));
      if (in.gcount() == 0) break;
      stream.next_in = reinterpret_cast<Bytef*>(input.data());
      stream.avail_in = static_cast<uInt>(in.gcount());
    }
    if (member_ended) {
      // Bytes after a member: another member, or not gzip at all.
      if (*stream.next_in != 0x1f) {
        throw Found{SpectrumProblem::kNotFits,
                    "the gzip-compressed data is corrupt (bytes after the "
                    "end of its last member)"};
      }
      if (inflateReset(&stream) != Z_OK) throw corrupt(stream, Z_STREAM_ERROR);
      member_ended = false;
    }
    if (produced == out.size()) {
      out.resize(std::min(std::max(out.size() * 2, kChunk), kLimit + 1));
    }
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    stream.avail_out = static_cast<uInt>(
        std::min<size_t>(out.size() - produced, size_t{1} << 30));
    int code = inflate(&stream, Z_NO_FLUSH);
    produced = static_cast<size_t>(reinterpret_cast<char*>(stream.next_out) -
                                   out.data());
    if (produced > kLimit) throw too_large();
    switch (code) {
      case Z_STREAM_END:
        member_ended = true;
        break;
      case Z_OK:
      case Z_BUF_ERROR:  // more input or room needed: the loop gives it
        break;
      case Z_MEM_ERROR:
        throw std::bad_alloc();
      default:  // Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR
        throw corrupt(stream, code);
    }
  }
  if (!member_ended) {
    throw Found{SpectrumProblem::kTruncated,
                "the gzip-compressed file (" + std::to_string(size) +
                    " bytes) ends before the end of its compressed data"};
  }
  out.resize(produced);
  return out;
}

}  // namespace

SpectrumCheck CheckSpectrum(const std::filesystem::path& file,
                            const nlohmann::json& provider_hints) {
  std::ifstream in = internal::OpenRegularFile(file, "CheckSpectrum");
  char head[9] = {};
  in.read(head, sizeof head);
  std::string start(head, static_cast<size_t>(in.gcount()));
  in.clear();
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(file, error);
  if (error) {
    throw std::runtime_error("CheckSpectrum: cannot read the size of " +
                             file.string() + ": " + error.message());
  }

  SpectrumCheck result;
  Content content{file, nullptr, static_cast<LONGLONG>(size), "the file"};
  std::string decompressed;
  try {
    if (IsGzip(start)) {
      result.compression = "gzip";
      decompressed = Gunzip(in, size);
      content = Content{file, &decompressed,
                        static_cast<LONGLONG>(decompressed.size()),
                        "the decompressed file"};
      start = decompressed.substr(0, 9);
    }
    in.close();
    if (content.size == 0) {
      throw Found{SpectrumProblem::kNotFits, content.noun + " is empty"};
    }
    if (start != "SIMPLE  =") {
      throw Found{SpectrumProblem::kNotFits,
                  content.noun + " does not start with a SIMPLE card"};
    }
    CheckFits(content, provider_hints, &result);
  } catch (const Found& found) {
    result.problem = found.problem;
    result.detail = found.detail;
  }
  if (result.profile) result.profile->compression = result.compression;
  return result;
}

}  // namespace novacat::fits
