// What the transfer tests share: a temporary folder per test and the
// failures a call threw, caught whole.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "novacat/runtime/errors.h"
#include "novacat/transfer/download.h"

namespace novacat::transfer::testing {

// A 44-byte spectrum and its SHA-256 and MD5 (from Python's hashlib).
inline const std::string kSpectrum =
    "SIMPLE  =                    T / a spectrum\n";
inline const std::string kSpectrumSha256 =
    "1dcac580ccef07f68cedcd93f182e04a9f6b8f9a375a408d82a513b7868c45a5";
inline const std::string kSpectrumMd5 = "316c9012dde30a4e10183f1fd0bca605";

// A new folder under the system's temporary folder, removed with all it
// holds.
class TempDir {
 public:
  TempDir() {
    std::string name =
        (std::filesystem::temp_directory_path() / "novacat-transfer-XXXXXX")
            .string();
    path_ = mkdtemp(name.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }
  // The names of what the folder holds, sorted.
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(path_))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::string ReadAll(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline void WriteAll(const std::filesystem::path& file,
                     const std::string& bytes) {
  std::ofstream out(file, std::ios::binary);
  out << bytes;
}

// What a call threw: its kind and whole message.
struct Thrown {
  std::string kind;  // "retryable", "terminal", "fetch", "none", "other"
  std::string message;
  FetchFailure failure = FetchFailure::kBadLocator;  // when kind == "fetch"
};

inline Thrown Catch(const std::function<void()>& call) {
  try {
    call();
  } catch (const runtime::RetryableError& e) {
    return {"retryable", e.what()};
  } catch (const runtime::TerminalError& e) {
    return {"terminal", e.what()};
  } catch (const FetchError& e) {
    return {"fetch", e.what(), e.failure()};
  } catch (const std::exception& e) {
    return {"other", e.what()};
  }
  return {"none", ""};
}

}  // namespace novacat::transfer::testing
