// Loads the fixture catalog (fixtures/novae/existing.json) into a store, the
// way initialize_nova would have left it: each nova with its position and
// its names as aliases. For `novacat seed` and the end-to-end tests; running
// it twice changes nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "novacat/domain/novae_fixture.h"
#include "novacat/store/repository.h"

namespace novacat::workflows {

// Returns the novae the file holds, in its order. Throws
// runtime::TerminalError for a fixture that does not parse, or a nova_id
// already used by another nova.
std::vector<domain::FixtureNova> SeedFixtureNovae(
    store::Repository& repository, const std::filesystem::path& file,
    int64_t now);

}  // namespace novacat::workflows
