// Helpers shared by the store test files.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backends.h"
#include "novacat/runtime/errors.h"

namespace novacat::store::testing {

// Runs `f` and expects it to throw exactly `Error` with message `message`.
template <class Error, class F>
void ExpectError(F&& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.what(), message);
  }
}

inline Item MakeItem(std::string pk, std::string sk, Item attributes = {}) {
  Item item = attributes.is_object() ? attributes : Item::object();
  item["PK"] = std::move(pk);
  item["SK"] = std::move(sk);
  return item;
}

// Fixture of the suites parameterized over TestBackends(): a fresh table.
class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override { table_ = GetParam().make(); }
  Table& table() { return *table_; }
  std::unique_ptr<Table> table_;
};

}  // namespace novacat::store::testing
