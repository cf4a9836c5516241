// Checks on an ASL definition that asl-validator does not make: Retrier
// fields (MaxDelaySeconds, JitterStrategy NONE, BackoffRate >= 1, integer
// IntervalSeconds) and the placement of States.ALL (alone in its
// ErrorEquals, in the last Retrier/Catcher). Written against the ASL
// specification, independent of the emitter, so it can catch emitter bugs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace novacat::testing {

// One line per problem: "<state path>: <problem>". Empty when clean.
std::vector<std::string> LintAsl(const nlohmann::json& definition);

}  // namespace novacat::testing
