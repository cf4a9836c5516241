// Unit tests of the refresh_references step logic.
#include <gtest/gtest.h>

#include "refresh_references/steps.hpp"
