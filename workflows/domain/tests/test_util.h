// Assertions on the domain's typed failures: the exact case and the whole
// message.
//
//   EXPECT_TRUE(Fails(NameFailure::kEmpty, [&] { NormalizeCandidateName(""); },
//                     "invalid candidate_name: empty or only whitespace"));
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <type_traits>

#include "novacat/domain/failure.h"

namespace novacat::domain::testing {

// Runs `f` and checks that it throws Failure<Case> with case `expected` and
// message `message`.
template <typename Case, typename F>
::testing::AssertionResult Fails(Case expected, F&& f,
                                 const std::string& message) {
  static_assert(std::is_enum_v<Case>);
  try {
    f();
  } catch (const Failure<Case>& e) {
    if (e.failure() != expected) {
      return ::testing::AssertionFailure()
             << "failure case " << static_cast<int>(e.failure())
             << ", expected " << static_cast<int>(expected) << " (" << e.what()
             << ")";
    }
    if (e.what() != message) {
      return ::testing::AssertionFailure()
             << "message\n  actual:   " << e.what()
             << "\n  expected: " << message;
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace novacat::domain::testing
