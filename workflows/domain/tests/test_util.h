// Assertions on the error taxonomy: the exact class and the whole message.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <typeinfo>

#include "novacat/runtime/errors.h"

namespace novacat::domain::testing {

// Runs `f` and checks that it throws exactly `Error` (a runtime::StepError
// subclass) with message `message`.
template <typename Error, typename F>
::testing::AssertionResult Throws(F&& f, const std::string& message) {
  try {
    f();
  } catch (const Error& e) {
    if (e.what() != message) {
      return ::testing::AssertionFailure()
             << "message\n  actual:   " << e.what()
             << "\n  expected: " << message;
    }
    return ::testing::AssertionSuccess();
  } catch (const runtime::StepError& e) {
    return ::testing::AssertionFailure()
           << "threw " << e.error_name() << " (" << e.what() << "), expected "
           << typeid(Error).name();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure()
           << "threw a non-taxonomy exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace novacat::domain::testing
