// The runner of generated conformance tests (test code only: it includes
// GoogleTest). A generated <workflow>_conformance_test.cpp holds a plan: a
// JSON list of cases, each {"name", "input", "script", "expect"}, derived by
// novacat-gen from the spec (every outcome's path, every Task's retry
// schedule and failure classes...). Each case runs the generated ASL on the
// local executor with its script and checks the expectations exactly:
//   status, error, outcome (output.outcome), quarantine_reason,
//   states (the exact list entered), last_state, waits (the retry waits),
//   invocations ({state: count}).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "novacat/runtime/asl/executor.h"
#include "novacat/runtime/asl/script.h"

namespace novacat::runtime::testing {

struct ConformanceCase {
  std::string name;
  nlohmann::ordered_json body;
  // GoogleTest prints a case by name.
  friend void PrintTo(const ConformanceCase& c, std::ostream* os) {
    *os << c.name;
  }
};

inline std::vector<ConformanceCase> ConformanceCases(const char* plan) {
  std::vector<ConformanceCase> out;
  for (const auto& c : nlohmann::ordered_json::parse(plan))
    out.push_back({c["name"].get<std::string>(), c});
  return out;
}

// NOVACAT_CONFORMANCE_ASL overrides the definition (the mutation test runs
// the same cases against mutants).
inline void RunConformanceCase(std::string asl_path, const ConformanceCase& c) {
  using Json = nlohmann::ordered_json;
  if (const char* other = std::getenv("NOVACAT_CONFORMANCE_ASL"))
    asl_path = other;
  std::ifstream in(asl_path);
  ASSERT_TRUE(in) << "cannot read " << asl_path;
  std::string error;
  auto machine = asl::StateMachine::Load(Json::parse(in), &error);
  ASSERT_TRUE(machine) << error;
  asl::ScriptedHandler handler(c.body["script"]);
  // A definition that loops (a mutant, a bad edit) fails fast instead of
  // running a million transitions.
  asl::RunOptions options;
  options.max_transitions = 2000;
  asl::RunResult r = machine->Run(c.body["input"], std::ref(handler), options);
  const Json& expect = c.body["expect"];
  SCOPED_TRACE(c.body.value("note", ""));
  EXPECT_EQ(r.status, expect["status"].get<std::string>())
      << r.error << ": " << r.cause;
  if (expect.contains("error")) {
    EXPECT_EQ(r.error, expect["error"].get<std::string>());
  }
  if (expect.contains("outcome")) {
    EXPECT_EQ(r.output.value("outcome", Json()), expect["outcome"]);
  }
  if (expect.contains("quarantine_reason")) {
    EXPECT_EQ(r.output.value("quarantine_reason", Json()),
              expect["quarantine_reason"]);
  }
  if (expect.contains("states")) {
    EXPECT_EQ(Json(r.states), expect["states"]);
  }
  if (expect.contains("last_state")) {
    ASSERT_FALSE(r.states.empty());
    EXPECT_EQ(r.states.back(), expect["last_state"].get<std::string>());
  }
  if (expect.contains("waits")) {
    EXPECT_EQ(Json(r.waits), expect["waits"]);
  }
  if (expect.contains("invocations")) {
    for (auto it = expect["invocations"].begin();
         it != expect["invocations"].end(); ++it)
      EXPECT_EQ(handler.invocations(it.key()), it.value().get<int>())
          << "invocations of " << it.key();
  }
}

}  // namespace novacat::runtime::testing

// Defines the parameterized conformance suite `conformance_<workflow>`.
#define NOVACAT_CONFORMANCE_SUITE(workflow, plan, asl_path)                \
  class conformance_##workflow                                             \
      : public ::testing::TestWithParam<                                   \
            ::novacat::runtime::testing::ConformanceCase> {};              \
  TEST_P(conformance_##workflow, Case) {                                   \
    ::novacat::runtime::testing::RunConformanceCase(asl_path, GetParam()); \
  }                                                                        \
  INSTANTIATE_TEST_SUITE_P(                                                \
      Plan, conformance_##workflow,                                        \
      ::testing::ValuesIn(                                                 \
          ::novacat::runtime::testing::ConformanceCases(plan)),            \
      [](const auto& info) { return info.param.name; })
