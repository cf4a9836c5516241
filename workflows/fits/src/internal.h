// What spectrum.cc and photometry.cc share: an owned cfitsio handle, status
// text for details, and the small text helpers.
#pragma once

#include <fitsio.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace novacat::fits::internal {

// Closes the file (its status ignored: a close after a failure fails too)
// and clears cfitsio's message stack, which is process-wide and would
// otherwise grow with every bad file.
struct FitsCloser {
  void operator()(fitsfile* file) const {
    int status = 0;
    fits_close_file(file, &status);
    fits_clear_errmsg();
  }
};
using FitsFile = std::unique_ptr<fitsfile, FitsCloser>;

// "cfitsio status 107 (tried to move past end of file)": the code and
// cfitsio's short text, never the message stack (which names the path).
inline std::string StatusText(int status) {
  char text[FLEN_STATUS] = {};
  fits_get_errstatus(status, text);
  return "cfitsio status " + std::to_string(status) + " (" + text + ")";
}

// The file opened for reading, or std::runtime_error "<operation>: cannot
// open <file>[: not a regular file]" (CheckSpectrum's and CheckPhotometry's
// contract for a file that cannot be read at all).
inline std::ifstream OpenRegularFile(const std::filesystem::path& file,
                                     const char* operation) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error))
    throw std::runtime_error(std::string(operation) + ": cannot open " +
                             file.string() + ": not a regular file");
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::runtime_error(std::string(operation) + ": cannot open " +
                             file.string());
  return in;
}

inline std::string Trim(std::string_view text) {
  size_t begin = 0, end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin])))
    ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1])))
    --end;
  return std::string(text.substr(begin, end - begin));
}

inline std::string Upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
    return static_cast<char>(std::toupper(c));
  });
  return out;
}

// The shortest text that reads back as `value` ("3800", "16.5", "nan").
inline std::string FormatDouble(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace novacat::fits::internal
