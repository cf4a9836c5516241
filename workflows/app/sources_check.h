// `novacat sources check`: each archive asked one known question (about
// V1500 Cyg, a classical nova every service knows), what an operator runs
// after a deploy or when a provider starts failing. Per service: whether it
// answered, how long it took, and what it found.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "novacat/sources/archives.h"

namespace novacat::workflows {

struct SourceCheck {
  std::string service;     // "SIMBAD", "VSX", "TNS", "ESO SSAP", "MAST", "ADS"
  std::string question;    // "identify V1500 CYG"
  std::string status;      // "answered", "failed" or "skipped"
  int64_t latency_ms = 0;  // the whole call; 0 when skipped
  std::string found;       // "1 match: V* V1500 Cyg (No*)", ...
  std::string error;       // the client's message when failed, the
                           // reason when skipped
  nlohmann::ordered_json ToJson() const;
};

// Asks every service in `config` (TNS and ADS only with their secrets),
// each call bounded by `budget_ms`.
std::vector<SourceCheck> CheckSources(const sources::SourcesConfig& config,
                                      int64_t budget_ms);

// An aligned table: SERVICE, STATUS, LATENCY, FOUND (or the error).
std::string FormatSourceChecks(const std::vector<SourceCheck>& checks);

}  // namespace novacat::workflows
