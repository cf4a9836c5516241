// A GoogleTest predicate for the error taxonomy (test code only): that a
// call throws exactly one StepError subclass with exactly one message.
//
//   EXPECT_TRUE(Throws<runtime::QuarantineError>([&] { step(); },
//                                                "ambiguous_...: ..."));
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <typeinfo>

#include "novacat/runtime/errors.h"

namespace novacat::runtime::testing {

// Runs `f` and checks that it throws exactly `Error` (a runtime::StepError
// subclass) with message `message`.
template <typename Error, typename F>
::testing::AssertionResult Throws(F&& f, const std::string& message) {
  try {
    f();
  } catch (const Error& e) {
    if (typeid(e) != typeid(Error)) {  // a subclass of Error
      return ::testing::AssertionFailure()
             << "threw " << typeid(e).name() << ", expected "
             << typeid(Error).name();
    }
    if (e.what() != message) {
      return ::testing::AssertionFailure()
             << "message\n  actual:   " << e.what()
             << "\n  expected: " << message;
    }
    return ::testing::AssertionSuccess();
  } catch (const StepError& e) {
    return ::testing::AssertionFailure()
           << "threw " << e.classification() << " (" << e.what()
           << "), expected " << typeid(Error).name();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << "threw a non-taxonomy exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace novacat::runtime::testing
