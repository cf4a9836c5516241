// The Table backends every store test runs on. Suites instantiate their
// parameterized tests with TestBackends(), so each case runs on MemoryTable
// (the reference), SqliteTable (in memory and on a file) and DynamoDbTable
// (against dynalite).
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "novacat/store/table.h"

namespace novacat::store::testing {

struct Backend {
  std::string name;  // a gtest parameter name: letters, digits, '_'
  // A new, empty, created table, independent of every other one made.
  std::function<std::unique_ptr<Table>()> make;
  // Whether several threads may share one Table object (false: each thread
  // makes its own client on the same underlying table through `connect`).
  bool shared_across_threads = true;
  // A second client of the table `table` was made from (same data), for
  // concurrency tests; nullptr when the backend has no such notion.
  std::function<std::unique_ptr<Table>(Table& table)> connect;
};

std::vector<Backend> TestBackends();

// Prints a backend as its name (gtest would dump its bytes into test names).
inline void PrintTo(const Backend& backend, std::ostream* os) {
  *os << backend.name;
}

// For INSTANTIATE_TEST_SUITE_P's name generator.
struct BackendName {
  template <class ParamInfo>
  std::string operator()(const ParamInfo& info) const {
    return info.param.name;
  }
};

}  // namespace novacat::store::testing
