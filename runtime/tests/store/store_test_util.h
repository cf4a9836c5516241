// Helpers shared by the store test files.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backends.h"
#include "novacat/runtime/errors.h"

namespace novacat::store::testing {

// The ids and times the repository and record store tests write
// (`using namespace testing::ids;`).
namespace ids {
inline constexpr const char* kNova = "59d47572-ecfc-4738-a94e-c2d2b9936849";
inline constexpr const char* kNova2 = "78833635-915b-41b4-930d-84f91bf14b09";
inline constexpr const char* kRunA = "2245bd5f-bb68-4f68-a2eb-92502318fa4e";
inline constexpr const char* kRunB = "91e180b3-64f4-4100-a29e-835c0e448010";
inline constexpr const char* kDs1 = "11111111-1111-4111-8111-111111111111";
inline constexpr const char* kT0 = "2026-11-25T13:45:00Z";
inline constexpr const char* kT1 = "2026-11-25T13:46:00Z";
inline constexpr const char* kSha =
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
}  // namespace ids

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
