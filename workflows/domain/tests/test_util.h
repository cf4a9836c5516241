// Assertions on the error taxonomy: the exact class and the whole message.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <typeinfo>

#include "novacat/runtime/errors.h"
#include "novacat/runtime/testing/throws.h"

namespace novacat::domain::testing {

using runtime::testing::Throws;

}  // namespace novacat::domain::testing
