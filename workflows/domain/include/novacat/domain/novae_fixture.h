// The novae a test database starts with (fixtures/novae/existing.json):
// what an end-to-end test seeds the store with, so that the resolver,
// provider and reference fixtures meet a known database (V1500 CYG exists,
// so its aliases and positions 1" and 5" away exercise the coordinate
// bands; every other resolver fixture name is new).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "novacat/domain/coordinates.h"
#include "novacat/domain/references.h"

namespace novacat::domain {

struct FixtureNova {
  std::string nova_id;             // UUID
  std::string primary_name;        // canonical
  std::vector<std::string> names;  // canonical, primary_name first
  double ra_deg = 0;               // ICRS degrees
  double dec_deg = 0;
  std::optional<std::string> epoch;
  std::optional<PartialDate> discovery_date;  // stored value, if any
};

// Reads and checks the file (format in fixtures/README.md). Throws
// runtime::TerminalError naming the file and the JSON path of a problem:
// nova_id not a UUID, a name that is not canonical, invalid coordinates,
// an unparsable discovery_date, a duplicate nova_id or name.
std::vector<FixtureNova> LoadFixtureNovae(const std::filesystem::path& file);

// Their positions, for MatchCoordinates.
std::vector<NovaPosition> PositionsOf(const std::vector<FixtureNova>& novae);

}  // namespace novacat::domain
