#include "novacat/fits/fixtures.h"

#include <fitsio.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <string>

namespace novacat::fits {

namespace {

void Check(int status, const std::string& what) {
  if (status == 0) return;
  char text[FLEN_STATUS] = {};
  fits_get_errstatus(status, text);
  fits_clear_errmsg();
  throw std::runtime_error("fixtures: " + what + ": cfitsio status " +
                           std::to_string(status) + " (" + text + ")");
}

// An open cfitsio file, closed (and checked) by Close or, on an exception,
// by the destructor.
class Fits {
 public:
  static Fits Create(const std::filesystem::path& path) {
    std::filesystem::remove(path);
    Fits out(path);
    int status = 0;
    fits_create_diskfile(&out.file_, path.c_str(), &status);
    Check(status, "create " + path.string());
    return out;
  }
  static Fits Open(const std::filesystem::path& path) {
    Fits out(path);
    int status = 0;
    fits_open_diskfile(&out.file_, path.c_str(), READWRITE, &status);
    Check(status, "open " + path.string());
    return out;
  }
  Fits(Fits&& other) noexcept : path_(other.path_), file_(other.file_) {
    other.file_ = nullptr;
  }
  ~Fits() {
    if (file_) {
      int status = 0;
      fits_close_file(file_, &status);
    }
  }
  void Close() {
    int status = 0;
    fits_close_file(file_, &status);
    file_ = nullptr;
    Check(status, "close " + path_.string());
  }
  fitsfile* get() const { return file_; }

 private:
  explicit Fits(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
  fitsfile* file_ = nullptr;
};

// Recomputes the current HDU's CHECKSUM for its content as it now is (as
// fits_write_chksum does, but keeping the comments).
void Reseal(fitsfile* file) {
  int status = 0;
  fits_modify_key_str(file, "CHECKSUM", "0000000000000000", "&", &status);
  unsigned long datasum = 0, hdusum = 0;
  fits_get_chksum(file, &datasum, &hdusum, &status);
  char ascii[17] = {};
  fits_encode_chksum(hdusum, 1, ascii);
  fits_modify_key_str(file, "CHECKSUM", ascii, "&", &status);
  Check(status, "CHECKSUM");
}

// DATASUM and CHECKSUM on the current HDU, with comments that carry no
// time (fits_write_chksum's say when they were written).
void WriteChecksums(fitsfile* file) {
  int status = 0;
  fits_write_chksum(file, &status);
  fits_modify_comment(file, "DATASUM", "data unit checksum", &status);
  fits_modify_comment(file, "CHECKSUM", "HDU checksum", &status);
  Check(status, "checksums");
  Reseal(file);
}

void Key(fitsfile* file, const char* name, const char* value,
         const char* comment) {
  int status = 0;
  fits_write_key_str(file, name, value, comment, &status);
  Check(status, name);
}

void Key(fitsfile* file, const char* name, double value, const char* comment) {
  int status = 0;
  fits_write_key_dbl(file, name, value, -15, comment, &status);
  Check(status, name);
}

void IntKey(fitsfile* file, const char* name, long value, const char* comment) {
  int status = 0;
  fits_write_key_lng(file, name, value, comment, &status);
  Check(status, name);
}

// A binary table's column: name, TFORM, TUNIT (empty: none).
struct ColumnSpec {
  const char* name;
  std::string form;
  const char* unit;
};

void CreateTable(fitsfile* file, LONGLONG rows,
                 const std::vector<ColumnSpec>& columns, const char* extname) {
  std::vector<char*> names, forms, units;
  for (const ColumnSpec& column : columns) {
    names.push_back(const_cast<char*>(column.name));
    forms.push_back(const_cast<char*>(column.form.c_str()));
    units.push_back(const_cast<char*>(column.unit));
  }
  int status = 0;
  fits_create_tbl(file, BINARY_TBL, rows, static_cast<int>(columns.size()),
                  names.data(), forms.data(), units.data(), extname, &status);
  Check(status, "table");
}

template <typename T>
void WriteCells(fitsfile* file, int datatype, int column, LONGLONG row,
                std::vector<T> values) {
  int status = 0;
  fits_write_col(file, datatype, column, row, 1,
                 static_cast<LONGLONG>(values.size()), values.data(), &status);
  Check(status, "column " + std::to_string(column));
}

// A smooth continuum with an H-alpha emission line, in erg/cm2/s/Angstrom.
float Flux(double angstrom) {
  double continuum = 1e-13 * (1.5 - 0.5 * (angstrom - 3800) / 3200);
  double line = 4e-13 * std::exp(-0.5 * std::pow((angstrom - 6563) / 20, 2));
  return static_cast<float>(continuum + line);
}

struct Image {
  long points = 201;
  const char* cunit = "Angstrom";
  int nan_at = -1;
};

// A 1-D primary image, CRVAL1 3800, CDELT1 16, with checksums.
void WriteImage(const std::filesystem::path& path, const Image& spec) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  int status = 0;
  long naxes[1] = {spec.points};
  fits_create_img(file, FLOAT_IMG, 1, naxes, &status);
  Check(status, "image");
  Key(file, "OBJECT", "V1500 Cyg", "target");
  Key(file, "BUNIT", "erg/cm2/s/Angstrom", "flux unit");
  Key(file, "CTYPE1", "WAVE", "wavelength axis");
  Key(file, "CUNIT1", spec.cunit, "wavelength unit");
  Key(file, "CRVAL1", 3800.0, "wavelength at CRPIX1");
  Key(file, "CDELT1", 16.0, "wavelength step");
  Key(file, "CRPIX1", 1.0, "reference pixel");
  std::vector<float> flux(spec.points);
  for (long i = 0; i < spec.points; ++i) flux[i] = Flux(3800 + 16.0 * i);
  if (spec.nan_at >= 0)
    flux[spec.nan_at] = std::numeric_limits<float>::quiet_NaN();
  fits_write_img(file, TFLOAT, 1, spec.points, flux.data(), &status);
  Check(status, "pixels");
  WriteChecksums(file);
  fits.Close();
}

// An empty primary HDU (with checksums when `checksums`).
void WriteEmptyPrimary(fitsfile* file, bool checksums) {
  int status = 0;
  fits_create_img(file, BYTE_IMG, 0, nullptr, &status);
  Check(status, "primary");
  Key(file, "OBJECT", "V1500 Cyg", "target");
  if (checksums) WriteChecksums(file);
}

void WriteArrayRowTable(const std::filesystem::path& path) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  WriteEmptyPrimary(file, true);
  const long n = 201;
  char* names[] = {const_cast<char*>("WAVE"), const_cast<char*>("FLUX")};
  char* forms[] = {const_cast<char*>("201D"), const_cast<char*>("201E")};
  char* units[] = {const_cast<char*>("nm"),
                   const_cast<char*>("erg/cm2/s/Angstrom")};
  int status = 0;
  fits_create_tbl(file, BINARY_TBL, 1, 2, names, forms, units, "SPECTRUM",
                  &status);
  Check(status, "table");
  std::vector<double> wave(n);
  std::vector<float> flux(n);
  for (long i = 0; i < n; ++i) {
    wave[i] = (3800 + 16.0 * i) / 10;
    flux[i] = Flux(3800 + 16.0 * i);
  }
  fits_write_col(file, TDOUBLE, 1, 1, 1, n, wave.data(), &status);
  fits_write_col(file, TFLOAT, 2, 1, 1, n, flux.data(), &status);
  Check(status, "columns");
  WriteChecksums(file);
  fits.Close();
}

// One point per row, wavelengths ascending (or descending), no checksums.
void WriteRowsTable(const std::filesystem::path& path, bool descending) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  WriteEmptyPrimary(file, false);
  const long n = 201;
  char* names[] = {const_cast<char*>("wavelength"), const_cast<char*>("flux")};
  char* forms[] = {const_cast<char*>("1D"), const_cast<char*>("1E")};
  char* units[] = {const_cast<char*>("Angstrom"),
                   const_cast<char*>("erg/cm2/s/Angstrom")};
  int status = 0;
  fits_create_tbl(file, BINARY_TBL, n, 2, names, forms, units, "SPECTRUM",
                  &status);
  Check(status, "table");
  std::vector<double> wave(n);
  std::vector<float> flux(n);
  for (long i = 0; i < n; ++i) {
    wave[i] = descending ? 7000 - 16.0 * i : 3800 + 16.0 * i;
    flux[i] = Flux(wave[i]);
  }
  fits_write_col(file, TDOUBLE, 1, 1, 1, n, wave.data(), &status);
  fits_write_col(file, TFLOAT, 2, 1, 1, n, flux.data(), &status);
  Check(status, "columns");
  fits.Close();
}

void WriteNoSpectrum(const std::filesystem::path& path) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  int status = 0;
  long naxes[2] = {20, 10};
  fits_create_img(file, FLOAT_IMG, 2, naxes, &status);
  std::vector<float> pixels(200, 1.0f);
  fits_write_img(file, TFLOAT, 1, 200, pixels.data(), &status);
  Check(status, "image");
  char* names[] = {const_cast<char*>("WAVE"), const_cast<char*>("SIGMA")};
  char* forms[] = {const_cast<char*>("1D"), const_cast<char*>("1E")};
  fits_create_tbl(file, BINARY_TBL, 10, 2, names, forms, nullptr, "ERRORS",
                  &status);
  std::vector<double> wave(10);
  std::vector<float> sigma(10, 0.1f);
  for (int i = 0; i < 10; ++i) wave[i] = 4000 + 100.0 * i;
  fits_write_col(file, TDOUBLE, 1, 1, 1, 10, wave.data(), &status);
  fits_write_col(file, TFLOAT, 2, 1, 1, 10, sigma.data(), &status);
  Check(status, "table");
  fits.Close();
}

// A continuum with an emission line at `line` Angstrom, in
// erg/cm2/s/Angstrom.
float LineFlux(double angstrom, double line) {
  double continuum = 2e-13 * (1.2 - 0.2 * (angstrom - line) / 200);
  double peak = 6e-13 * std::exp(-0.5 * std::pow((angstrom - line) / 8, 2));
  return static_cast<float>(continuum + peak);
}

void WriteEsoSdp(const std::filesystem::path& path) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  int status = 0;
  fits_create_img(file, BYTE_IMG, 0, nullptr, &status);
  Check(status, "primary");
  Key(file, "ORIGIN", "ESO", "European Southern Observatory");
  Key(file, "TELESCOP", "ESO-VLT-U2", "ESO Telescope designation");
  Key(file, "INSTRUME", "UVES", "Instrument name");
  Key(file, "OBJECT", "V1500 Cyg", "Target designation");
  Key(file, "RA", 317.9024208, "[deg] Spectroscopic target position");
  Key(file, "DEC", 48.1505417, "[deg] Spectroscopic target position");
  Key(file, "EQUINOX", 2000.0, "Standard FK5");
  Key(file, "RADESYS", "FK5", "Coordinate reference frame");
  Key(file, "PROG_ID", "60.A-9022(C)", "ESO programme identification");
  Key(file, "PRODCATG", "SCIENCE.SPECTRUM", "Data product category");
  Key(file, "SPECSYS", "BARYCENT", "Reference frame for spectral coordinates");
  Key(file, "DISPELEM", "DIC1", "Dispersive element name");
  Key(file, "FLUXCAL", "ABSOLUTE", "Type of flux calibration");
  Key(file, "WAVELMIN", 480.0, "[nm] Minimum wavelength");
  Key(file, "WAVELMAX", 499.5, "[nm] Maximum wavelength");
  Key(file, "SPEC_BIN", 0.5, "[nm] Wavelength bin size");
  Key(file, "SPEC_RES", 42310.0, "Spectral resolving power");
  Key(file, "SNR", 35.2, "Median signal to noise ratio per bin");
  WriteChecksums(file);

  const long n = 40;
  const std::string form = std::to_string(n);
  const char* flux_unit = "erg cm**(-2) s**(-1) angstrom**(-1)";
  CreateTable(file, 1,
              {{"WAVE", form + "D", "angstrom"},
               {"FLUX_REDUCED", form + "E", "adu"},
               {"ERR_REDUCED", form + "E", "adu"},
               {"FLUX", form + "E", flux_unit},
               {"ERR", form + "E", flux_unit}},
              "SPECTRUM");
  Key(file, "VOCLASS", "SPECTRUM V2.0", "VO Data Model");
  Key(file, "VOPUB", "ESO/SAF", "VO Publishing Authority");
  Key(file, "TITLE", "V1500 Cyg UVES DIC1", "Dataset title");
  IntKey(file, "NELEM", n, "Length of the data arrays");
  const char* utypes[] = {
      "spec:Data.SpectralAxis.Value", "eso:Data.FluxAxis.Value",
      "eso:Data.FluxAxis.Accuracy.StatError", "spec:Data.FluxAxis.Value",
      "spec:Data.FluxAxis.Accuracy.StatError"};
  const char* ucds[] = {"em.wl", "phot.flux.density;em.wl",
                        "stat.error;phot.flux.density;em.wl",
                        "phot.flux.density;em.wl;meta.main",
                        "stat.error;phot.flux.density;em.wl;meta.main"};
  for (int c = 0; c < 5; ++c) {
    std::string n_text = std::to_string(c + 1);
    Key(file, ("TUTYP" + n_text).c_str(), utypes[c], nullptr);
    Key(file, ("TUCD" + n_text).c_str(), ucds[c], nullptr);
  }
  Key(file, "TDMIN1", 4800.0, "Start in spectral coordinate");
  Key(file, "TDMAX1", 4995.0, "Stop in spectral coordinate");
  std::vector<double> wave(n);
  std::vector<float> flux(n), err(n), reduced(n), reduced_err(n);
  for (long i = 0; i < n; ++i) {
    wave[i] = 4800 + 5.0 * i;
    flux[i] = LineFlux(wave[i], 4861);
    err[i] = flux[i] / 30;
    reduced[i] = flux[i] * 1e16f;
    reduced_err[i] = reduced[i] / 30;
  }
  WriteCells(file, TDOUBLE, 1, 1, wave);
  WriteCells(file, TFLOAT, 2, 1, reduced);
  WriteCells(file, TFLOAT, 3, 1, reduced_err);
  WriteCells(file, TFLOAT, 4, 1, flux);
  WriteCells(file, TFLOAT, 5, 1, err);
  WriteChecksums(file);
  fits.Close();
}

void WriteHstX1d(const std::filesystem::path& path) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  int status = 0;
  fits_create_img(file, BYTE_IMG, 0, nullptr, &status);
  Check(status, "primary");
  Key(file, "ORIGIN", "HSTIO/CFITSIO March 2010", "FITS file originator");
  Key(file, "FILENAME", "oxyz01010_x1d.fits", "name of file");
  Key(file, "FILETYPE", "SCI", "type of data found in data file");
  Key(file, "TELESCOP", "HST", "telescope used to acquire data");
  Key(file, "INSTRUME", "STIS", "identifier for instrument used");
  Key(file, "ROOTNAME", "oxyz01010", "rootname of the observation set");
  Key(file, "TARGNAME", "V1500-CYG", "proposer's target name");
  Key(file, "RA_TARG", 317.9024208, "right ascension of the target (deg)");
  Key(file, "DEC_TARG", 48.1505417, "declination of the target (deg)");
  Key(file, "DETECTOR", "NUV-MAMA", "detector in use");
  Key(file, "OBSTYPE", "SPECTROSCOPIC", "observation type");
  Key(file, "OPT_ELEM", "E230M", "optical element in use");
  IntKey(file, "CENWAVE", 2269, "central wavelength of spectrum");
  WriteChecksums(file);

  const long n = 32;
  const std::string form = std::to_string(n);
  CreateTable(file, 3,
              {{"SPORDER", "1I", ""},
               {"NELEM", "1I", ""},
               {"WAVELENGTH", form + "D", "Angstroms"},
               {"GROSS", form + "E", "Counts/s"},
               {"BACKGROUND", form + "E", "Counts/s"},
               {"NET", form + "E", "Counts/s"},
               {"FLUX", form + "E", "erg/s/cm**2/Angstrom"},
               {"ERROR", form + "E", "erg/s/cm**2/Angstrom"},
               {"NET_ERROR", form + "E", "Counts/s"},
               {"DQ", form + "I", ""}},
              "SCI");
  IntKey(file, "EXTVER", 1, "extension version number");
  IntKey(file, "SDQFLAGS", 31743, "serious data quality flags");
  const short orders[] = {87, 86, 85};
  const double starts[] = {2283, 2310, 2337};
  // Row by row: the points with a serious flag (16), and with 1024.
  const std::vector<int> serious[] = {{4, 5, 30}, {17}, {0, 31}};
  for (int r = 0; r < 3; ++r) {
    LONGLONG row = r + 1;
    std::vector<double> wave(n);
    std::vector<float> gross(n), background(n), net(n), flux(n), error(n),
        net_error(n);
    std::vector<short> dq(n, 0);
    for (long i = 0; i < n; ++i) {
      wave[i] = starts[r] + 1.0 * i;
      flux[i] = LineFlux(wave[i], 2326);
      net[i] = flux[i] * 5e13f;
      background[i] = 0.25f;
      gross[i] = net[i] + background[i];
      error[i] = flux[i] / 20;
      net_error[i] = net[i] / 20;
    }
    for (int i : serious[r]) dq[i] = 16;
    if (r == 1) {
      for (long i = 2; i < 14; ++i) dq[i] = 1024;
    }
    WriteCells(file, TSHORT, 1, row, std::vector<short>{orders[r]});
    WriteCells(file, TSHORT, 2, row, std::vector<short>{static_cast<short>(n)});
    WriteCells(file, TDOUBLE, 3, row, wave);
    WriteCells(file, TFLOAT, 4, row, gross);
    WriteCells(file, TFLOAT, 5, row, background);
    WriteCells(file, TFLOAT, 6, row, net);
    WriteCells(file, TFLOAT, 7, row, flux);
    WriteCells(file, TFLOAT, 8, row, error);
    WriteCells(file, TFLOAT, 9, row, net_error);
    WriteCells(file, TSHORT, 10, row, dq);
  }
  WriteChecksums(file);
  fits.Close();
}

void WriteIueMxlo(const std::filesystem::path& path) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  int status = 0;
  fits_create_img(file, BYTE_IMG, 0, nullptr, &status);
  Check(status, "primary");
  Key(file, "TELESCOP", "IUE", "International Ultraviolet Explorer");
  Key(file, "ORIGIN", "GSFC", "Institution generating the file");
  Key(file, "FILENAME", "SWP05555.MXLO", "Name of the file");
  Key(file, "OBJECT", "V1500 CYG", "Homogeneous object ID");
  Key(file, "CAMERA", "SWP", "Camera");
  IntKey(file, "IMAGE", 5555, "Sequential image number");
  Key(file, "DISPERSN", "LOW", "Spectrograph dispersion mode");
  Key(file, "APERTURE", "LARGE", "Aperture");

  const long n = 64;
  const std::string form = std::to_string(n);
  CreateTable(file, 1,
              {{"APERTURE", "5A", ""},
               {"NPOINTS", "1I", ""},
               {"WAVELENGTH", "1E", "ANGSTROM"},
               {"DELTAW", "1E", "ANGSTROM"},
               {"NET", form + "E", "FN"},
               {"BACKGROUND", form + "E", "FN"},
               {"SIGMA", form + "E", "ERG/CM2/S/A"},
               {"QUALITY", form + "I", ""},
               {"FLUX", form + "E", "ERG/CM2/S/A"}},
              nullptr);
  Key(file, "FILENAME", "SWP05555.MXLO", "Name of the file");
  std::vector<float> net(n), background(n), sigma(n), flux(n);
  std::vector<short> quality(n, 0);
  for (long i = 0; i < n; ++i) {
    double wave = 1130 + 14.0 * i;
    net[i] = LineFlux(wave, 1550) * 1e15f;
    background[i] = 20;
    if (wave < 1150 || wave > 1980) {  // outside the absolute calibration
      flux[i] = 0;
      sigma[i] = -1;
      quality[i] = -2;
    } else {
      flux[i] = LineFlux(wave, 1550);
      sigma[i] = flux[i] / 15;
    }
  }
  char* aperture[] = {const_cast<char*>("LARGE")};
  fits_write_col_str(file, 1, 1, 1, 1, aperture, &status);
  Check(status, "APERTURE");
  WriteCells(file, TSHORT, 2, 1, std::vector<short>{static_cast<short>(n)});
  WriteCells(file, TFLOAT, 3, 1, std::vector<float>{1130});
  WriteCells(file, TFLOAT, 4, 1, std::vector<float>{14});
  WriteCells(file, TFLOAT, 5, 1, net);
  WriteCells(file, TFLOAT, 6, 1, background);
  WriteCells(file, TFLOAT, 7, 1, sigma);
  WriteCells(file, TSHORT, 8, 1, quality);
  WriteCells(file, TFLOAT, 9, 1, flux);
  fits.Close();
}

// Replaces the value of `keyword`'s card in the primary header (columns 11
// to 30) by `value`, right-justified, bypassing cfitsio's checks.
void PatchPrimaryCard(const std::filesystem::path& path, const char* keyword,
                      const std::string& value) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string header(2880, '\0');
  file.read(header.data(), 2880);
  std::string prefix = std::string(keyword);
  prefix.resize(8, ' ');
  prefix += "= ";
  for (size_t card = 0; card < 2880; card += 80) {
    if (header.compare(card, 10, prefix) != 0) continue;
    std::string field(20 - value.size(), ' ');
    field += value;
    file.seekp(static_cast<std::streamoff>(card + 10));
    file.write(field.data(), 20);
    if (!file) throw std::runtime_error("fixtures: patch " + path.string());
    return;
  }
  throw std::runtime_error("fixtures: no " + std::string(keyword) + " card");
}

std::string ReadBytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("fixtures: read " + file.string());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteBytes(const std::filesystem::path& file, std::string_view bytes) {
  std::filesystem::remove(file);
  std::ofstream out(file, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("fixtures: write " + file.string());
}

// kIueSwpMxlo gzip-compressed.
std::string IueMxloGzip(const std::filesystem::path& file) {
  WriteIueMxlo(file);
  return Gzip(ReadBytes(file));
}

}  // namespace

std::string Gzip(std::string_view bytes, int64_t zeros) {
  z_stream stream{};
  if (deflateInit2(&stream, 9, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("fixtures: deflateInit2 failed");
  gz_header header{};
  header.os = 3;  // Unix, as gzip writes on Linux; time 0, no name
  deflateSetHeader(&stream, &header);
  std::string out;
  const std::string zero_chunk(1 << 20, '\0');
  char buffer[1 << 16];
  // Feeds `input` (all of it, or with Z_FINISH the end of the stream).
  auto feed = [&](std::string_view input, int flush) {
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    stream.avail_in = static_cast<uInt>(input.size());
    int code = Z_OK;
    do {
      stream.next_out = reinterpret_cast<Bytef*>(buffer);
      stream.avail_out = sizeof buffer;
      code = deflate(&stream, flush);
      if (code == Z_STREAM_ERROR) {
        deflateEnd(&stream);
        throw std::runtime_error("fixtures: deflate failed");
      }
      out.append(buffer, sizeof buffer - stream.avail_out);
    } while (stream.avail_out == 0 ||
             (flush == Z_FINISH && code != Z_STREAM_END));
  };
  feed(bytes, Z_NO_FLUSH);
  while (zeros > 0) {
    size_t count =
        static_cast<size_t>(std::min<int64_t>(zeros, zero_chunk.size()));
    feed(std::string_view(zero_chunk).substr(0, count), Z_NO_FLUSH);
    zeros -= static_cast<int64_t>(count);
  }
  feed({}, Z_FINISH);
  deflateEnd(&stream);
  return out;
}

void WriteSpectrumFixture(const std::filesystem::path& file,
                          SpectrumFixture kind) {
  switch (kind) {
    case SpectrumFixture::kValidImageWcs:
      return WriteImage(file, Image{});
    case SpectrumFixture::kValidTable:
      return WriteArrayRowTable(file);
    case SpectrumFixture::kTruncated:
      WriteImage(file, Image{});
      std::filesystem::resize_file(file, 2980);
      return;
    case SpectrumFixture::kCorruptHeader:
      WriteImage(file, Image{});
      return PatchPrimaryCard(file, "NAXIS1", "abc");
    case SpectrumFixture::kNanFlux:
      return WriteImage(file, Image{.nan_at = 17});
    case SpectrumFixture::kWrongDatasum: {
      WriteImage(file, Image{});
      Fits fits = Fits::Open(file);
      int status = 0;
      fits_modify_key_str(fits.get(), "DATASUM", "1234567890", "&", &status);
      Check(status, "DATASUM");
      Reseal(fits.get());
      fits.Close();
      return;
    }
    case SpectrumFixture::kDescendingWavelength:
      return WriteRowsTable(file, true);
    case SpectrumFixture::kNotFits: {
      std::filesystem::remove(file);
      std::ofstream out(file, std::ios::binary);
      out << "wavelength,flux\n3800,1.5e-13\n3816,1.49e-13\n";
      if (!out) throw std::runtime_error("fixtures: write " + file.string());
      return;
    }
    case SpectrumFixture::kValidTableRows:
      return WriteRowsTable(file, false);
    case SpectrumFixture::kTooFewPoints:
      return WriteImage(file, Image{.points = 5});
    case SpectrumFixture::kImplausibleWavelength:
      return WriteImage(file, Image{.cunit = "m"});
    case SpectrumFixture::kNoSpectrum:
      return WriteNoSpectrum(file);
    case SpectrumFixture::kEsoSdpUves:
      return WriteEsoSdp(file);
    case SpectrumFixture::kHstStisX1d:
      return WriteHstX1d(file);
    case SpectrumFixture::kIueSwpMxlo:
      return WriteIueMxlo(file);
    case SpectrumFixture::kMislabelledHst: {
      WriteArrayRowTable(file);
      Fits fits = Fits::Open(file);
      Key(fits.get(), "TELESCOP", "HST", "telescope used to acquire data");
      Key(fits.get(), "INSTRUME", "STIS", "identifier for instrument used");
      WriteChecksums(fits.get());
      fits.Close();
      return;
    }
    case SpectrumFixture::kIueSwpMxloGzip:
      return WriteBytes(file, IueMxloGzip(file));
    case SpectrumFixture::kTruncatedGzip:
      return WriteBytes(file, IueMxloGzip(file).substr(0, 1000));
  }
  throw std::runtime_error("fixtures: unknown SpectrumFixture");
}

void WritePhotometryFits(const std::filesystem::path& path,
                         const std::vector<PhotometryRow>& rows) {
  Fits fits = Fits::Create(path);
  fitsfile* file = fits.get();
  WriteEmptyPrimary(file, true);
  char* names[] = {const_cast<char*>("MJD"), const_cast<char*>("MAG"),
                   const_cast<char*>("MAG_ERR"), const_cast<char*>("BAND")};
  char* forms[] = {const_cast<char*>("1D"), const_cast<char*>("1D"),
                   const_cast<char*>("1D"), const_cast<char*>("8A")};
  char* units[] = {const_cast<char*>("d"), const_cast<char*>("mag"),
                   const_cast<char*>("mag"), const_cast<char*>("")};
  int status = 0;
  LONGLONG n = static_cast<LONGLONG>(rows.size());
  fits_create_tbl(file, BINARY_TBL, n, 4, names, forms, units, "PHOTOMETRY",
                  &status);
  Check(status, "table");
  for (LONGLONG r = 0; r < n; ++r) {
    const PhotometryRow& row = rows[r];
    double values[] = {row.time_mjd, row.magnitude, row.magnitude_error};
    for (int c = 0; c < 3; ++c) {
      fits_write_col(file, TDOUBLE, c + 1, r + 1, 1, 1, &values[c], &status);
    }
    char* band[] = {const_cast<char*>(row.band.c_str())};
    fits_write_col_str(file, 4, r + 1, 1, 1, band, &status);
  }
  Check(status, "rows");
  WriteChecksums(file);
  fits.Close();
}

std::vector<PhotometryRow> V1500CygPhotometryRows() {
  return {
      {42654.25, 3.20, 0.05, "V"}, {42654.25, 3.55, 0.05, "B"},
      {42655.0, 2.10, 0.04, "V"},  {42655.0, 2.40, 0.04, "B"},
      {42655.75, 1.85, 0.03, "V"}, {42655.75, 2.15, 0.0, "B"},
      {42656.5, 2.05, 0.03, "V"},  {42656.5, 2.35, 0.03, "B"},
      {42658.25, 2.60, 0.04, "V"}, {42658.25, 2.95, 0.04, ""},
      {42660.0, 3.10, 0.05, "V"},  {42660.0, 3.50, 0.05, "B"},
  };
}

}  // namespace novacat::fits
