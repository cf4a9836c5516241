// Unit tests of the discover_spectra_products step logic.
#include <gtest/gtest.h>

#include "discover_spectra_products/steps.hpp"
