// The step logic of workflow initialize_nova, written by hand.
//
// novacat-gen created this file once, from initialize_nova.yaml, and never touches
// it again. When a Task is added to the spec, the build fails until the
// method is declared here and written in steps.cpp; when one is removed, its
// `override` below stops compiling.
#pragma once

#include "initialize_nova/initialize_nova.hpp"

namespace novacat::initialize_nova {

class Steps final : public InitializeNovaSteps {
 public:
  NormalizeCandidateNameOutput NormalizeCandidateName(const InitializeNovaState& state,
      runtime::StepContext& context) override;
  CheckExistingNovaByNameOutput CheckExistingNovaByName(const InitializeNovaState& state,
      runtime::StepContext& context) override;
  ResolveCandidateAgainstPublicArchivesOutput ResolveCandidateAgainstPublicArchives(const InitializeNovaState& state,
      runtime::StepContext& context) override;
  CheckExistingNovaByCoordinatesOutput CheckExistingNovaByCoordinates(const InitializeNovaState& state,
      runtime::StepContext& context) override;
  CreateNovaIdOutput CreateNovaId(const InitializeNovaState& state,
      runtime::StepContext& context) override;
  UpsertMinimalNovaMetadataOutput UpsertMinimalNovaMetadata(const InitializeNovaState& state,
      runtime::StepContext& context) override;
  UpsertAliasForExistingNovaOutput UpsertAliasForExistingNova(const InitializeNovaState& state,
      runtime::StepContext& context) override;
};

}  // namespace novacat::initialize_nova
