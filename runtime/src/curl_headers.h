// libcurl's CURLOPT_HEADERFUNCTION for clients that read response headers:
// appends each "Name: value" line to a vector of (lower-case name, value).
// Internal to the runtime's libcurl clients (aws/, lambda/).
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace novacat::curl_headers {

using Headers = std::vector<std::pair<std::string, std::string>>;

// `out` is a Headers*.
inline size_t Collect(char* data, size_t size, size_t count, void* out) {
  std::string_view line(data, size * count);
  if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    for (char& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' ||
                              value.back() == ' '))
      value.remove_suffix(1);
    static_cast<Headers*>(out)->emplace_back(std::move(name),
                                             std::string(value));
  }
  return size * count;
}

// The value of header `name` (lower case), "" when absent.
inline std::string Find(const Headers& headers, std::string_view name) {
  for (const auto& [n, v] : headers)
    if (n == name) return v;
  return "";
}

}  // namespace novacat::curl_headers
