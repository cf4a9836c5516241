// Aligned text tables for the operator commands (`novacat jobs`, `novacat
// datasets list`).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace novacat::workflows {

// A cell of an optional text: the text, or "-" when absent.
inline std::string OrDash(const std::optional<std::string>& value) {
  return value ? *value : "-";
}

// Rows of cells as aligned text: two spaces between columns, the columns
// in `right` right-aligned, no trailing spaces, "\n" after every row.
inline std::string AlignedRows(
    const std::vector<std::vector<std::string>>& rows,
    const std::vector<bool>& right) {
  std::vector<size_t> width(right.size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string pad(width[c] - row[c].size(), ' ');
      if (c > 0) line += "  ";
      line += right[c] ? pad + row[c] : row[c] + pad;
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

}  // namespace novacat::workflows
