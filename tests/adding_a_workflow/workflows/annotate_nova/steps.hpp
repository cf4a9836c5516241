// The step logic of workflow annotate_nova, written by hand.
//
// novacat-gen created this file once, from annotate_nova.yaml, and never
// touches it again. When a Task is added to the spec, the build fails until the
// method is declared here and written in steps.cpp; when one is removed, its
// `override` below stops compiling.
#pragma once

#include "annotate_nova/annotate_nova.hpp"

namespace novacat::annotate_nova {

class Steps final : public AnnotateNovaSteps {
 public:
  LoadNovaOutput LoadNova(const AnnotateNovaState& state,
                          runtime::StepContext& context) override;
  StoreAnnotationOutput StoreAnnotation(const AnnotateNovaState& state,
                                        runtime::StepContext& context) override;
};

// Makes the steps. Give it what the steps need (a store, clients) as
// parameters when they need something.
std::unique_ptr<AnnotateNovaSteps> MakeSteps();

}  // namespace novacat::annotate_nova
