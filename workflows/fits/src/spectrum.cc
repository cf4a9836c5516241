#include "novacat/fits/spectrum.h"

#include <openssl/evp.h>

#include <array>
#include <cmath>
#include <fstream>
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
  return {{"profile", profile},
          {"hints", hints},
          {"header_signature", header_signature}};
}

nlohmann::json SpectrumCheck::ToJson() const {
  nlohmann::json out = nlohmann::json::object();
  if (problem) out["reason_code"] = ReasonCode(*problem);
  if (!detail.empty()) out["detail"] = detail;
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
  // BINTABLE_COLUMNS
  int wave_column = 0, flux_column = 0;
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
    fits_read_col(file, TDOUBLE, column, 1, 1, count, &no_check, values->data(),
                  &any, &status);
  }
  if (!status && flags) {
    std::vector<double> ignored(count);
    if (spectrum.image) {
      fits_read_imgnull(file, TDOUBLE, 1, count, ignored.data(),
                        undefined->data(), &any, &status);
    } else {
      fits_read_colnull(file, TDOUBLE, column, 1, 1, count, ignored.data(),
                        undefined->data(), &any, &status);
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

// The TRUNCATED finding for a file of `size` bytes that ends early in the HDU
// `hdu` starting at byte `start`: inside its header when no END card
// follows `start`, else inside its data.
Found Truncated(const std::filesystem::path& path, LONGLONG start,
                LONGLONG size, int hdu) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(start);
  std::string card(80, ' ');
  const std::string end_card = "END" + std::string(77, ' ');
  const char* where = "header";
  while (in.read(card.data(), 80)) {
    if (card == end_card) {
      where = "data";
      break;
    }
  }
  return Found{SpectrumProblem::kTruncated,
               "the file (" + std::to_string(size) +
                   " bytes) ends inside the " + where + " of " + Hdu(hdu)};
}

// Steps 2 to 6 of CheckSpectrum on a file that starts with a SIMPLE card.
void CheckFits(const std::filesystem::path& path, LONGLONG size,
               SpectrumCheck* result) {
  int status = 0;
  fitsfile* raw = nullptr;
  if (fits_open_diskfile(&raw, path.c_str(), READONLY, &status)) {
    fits_clear_errmsg();
    if (raw) internal::FitsCloser()(raw);
    if (EndsEarly(status)) throw Truncated(path, 0, size, 1);
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
      std::ifstream in(path, std::ios::binary);
      in.seekg(last_end);
      char next[8] = {};
      in.read(next, sizeof next);
      if (std::string_view(next, in.gcount()) == "XTENSION") {
        throw Truncated(path, last_end, size, hdu);
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
                  "the file has " + std::to_string(size) + " bytes but " +
                      Hdu(hdu) + "'s data ends at byte " + std::to_string(end)};
    }
    types.push_back(type);
    last_end = end;
  }

  // 3. The profile, and 4. the checksums of every HDU.
  std::optional<Candidate> spectrum;
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
    if (spectrum) continue;
    nlohmann::json hints;
    std::string why_not;
    int type = types[hdu - 1];
    if (type == IMAGE_HDU) {
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
    result->profile =
        ProfileSelection{spectrum->image ? "IMAGE_1D_WCS" : "BINTABLE_COLUMNS",
                         hints, HeaderSignature(file.get(), hdu)};
    result->points = spectrum->points;
  }
  result->fits_checksum = checksums[spectrum ? spectrum->hdu - 1 : 0];
  result->checksum_verified = any_checksum && !mismatch;
  if (mismatch) throw Found{SpectrumProblem::kChecksumMismatch, *mismatch};

  // 5. and 6.
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

}  // namespace

SpectrumCheck CheckSpectrum(const std::filesystem::path& file) {
  std::ifstream in = internal::OpenRegularFile(file, "CheckSpectrum");
  char head[9] = {};
  in.read(head, sizeof head);
  std::string_view start(head, in.gcount());
  in.close();
  std::error_code error;
  uintmax_t size = std::filesystem::file_size(file, error);
  if (error) {
    throw std::runtime_error("CheckSpectrum: cannot read the size of " +
                             file.string() + ": " + error.message());
  }

  SpectrumCheck result;
  try {
    if (size == 0) {
      throw Found{SpectrumProblem::kNotFits, "the file is empty"};
    }
    if (start != "SIMPLE  =") {
      throw Found{SpectrumProblem::kNotFits,
                  "the file does not start with a SIMPLE card"};
    }
    CheckFits(file, static_cast<LONGLONG>(size), &result);
  } catch (const Found& found) {
    result.problem = found.problem;
    result.detail = found.detail;
  }
  return result;
}

}  // namespace novacat::fits
