// The step logic of workflow touch_nova, written by hand.
//
// novacat-gen created this file once, from example.yaml, and never touches
// it again. When a Task is added to the spec, the build fails until the
// method is declared here and written in steps.cpp; when one is removed, its
// `override` below stops compiling.
#pragma once

#include "touch_nova/touch_nova.hpp"

namespace novacat::touch_nova {

class Steps final : public TouchNovaSteps {
 public:
  MarkNovaTouchedOutput MarkNovaTouched(const TouchNovaState& state,
                                        runtime::StepContext& context) override;
};

// Makes the steps. Give it what the steps need (a store, clients) as
// parameters when they need something.
std::unique_ptr<TouchNovaSteps> MakeSteps();

}  // namespace novacat::touch_nova
