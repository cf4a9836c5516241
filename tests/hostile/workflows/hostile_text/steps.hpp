// The step logic of workflow hostile_text, written by hand.
//
// novacat-gen created this file once, from hostile_text.yaml, and never touches
// it again. When a Task is added to the spec, the build fails until the
// method is declared here and written in steps.cpp; when one is removed, its
// `override` below stops compiling.
#pragma once

#include "hostile_text/hostile_text.hpp"

namespace novacat::hostile_text {

class Steps final : public HostileTextSteps {
 public:
  JudgeOutput Judge(const HostileTextState& state,
                    runtime::StepContext& context) override;
};

// Makes the steps. Give it what the steps need (a store, clients) as
// parameters when they need something.
std::unique_ptr<HostileTextSteps> MakeSteps();

}  // namespace novacat::hostile_text
