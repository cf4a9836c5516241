// The data of the fixture files (fixtures/README.md), read directly: the
// domain's tests run the pure functions on it without the fixture clients
// (those are novacat_domain_fixtures, tested in fixtures/tests/). Paths are
// relative to the repository root, the tests' working directory.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace novacat::domain::testing {

// The fixture catalog's ids of V1500 Cyg and GK Per.
inline constexpr char kV1500[] = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
inline constexpr char kGkPer[] = "86cb14e8-2bf7-4bec-9837-df4287f58a01";

inline nlohmann::json ReadFixture(const std::string& file) {
  std::ifstream in(file);
  if (!in) {
    ADD_FAILURE() << file << ": cannot be read";
    return nullptr;
  }
  return nlohmann::json::parse(in);
}

// fixtures/providers/<provider>.json's records for the nova (none when the
// nova is not in the file).
inline std::vector<nlohmann::json> ProviderRecords(std::string_view provider,
                                                   const std::string& nova_id) {
  nlohmann::json file =
      ReadFixture("fixtures/providers/" + std::string(provider) + ".json");
  if (!file.is_object() || !file["novae"].contains(nova_id)) return {};
  return file["novae"][nova_id]["records"].get<std::vector<nlohmann::json>>();
}

// fixtures/references/<nova_id>.json's candidates.
inline std::vector<nlohmann::json> ReferenceCandidates(
    const std::string& nova_id) {
  nlohmann::json file = ReadFixture("fixtures/references/" + nova_id + ".json");
  if (!file.is_object()) return {};
  return file["candidates"].get<std::vector<nlohmann::json>>();
}

}  // namespace novacat::domain::testing
