// Unit tests of the initialize_nova step logic.
#include <gtest/gtest.h>

#include "initialize_nova/steps.hpp"
