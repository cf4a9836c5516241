// The step logic of workflow initialize_nova, written by hand.
//
// novacat-gen created this file once, from initialize_nova.yaml, and never
// touches it again. When a Task is added to the spec, the build fails until the
// method is declared here and written in steps.cpp; when one is removed, its
// `override` below stops compiling.
#pragma once

#include "initialize_nova/initialize_nova.hpp"
#include "novacat/workflows/environment.h"

namespace novacat::initialize_nova {

// The most of the resolved object's other names a run keeps
// (resolved_aliases) and stores: SIMBAD lists a few dozen for a bright nova,
// and an object with hundreds must not make the state document, or the
// Task writing two items a name, unbounded. The rest are counted in the
// log (aliases_dropped).
inline constexpr size_t kMaxResolvedAliases = 64;

class Steps final : public InitializeNovaSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  NormalizeCandidateNameOutput NormalizeCandidateName(
      const InitializeNovaState& state, runtime::StepContext& context) override;
  CheckExistingNovaByNameOutput CheckExistingNovaByName(
      const InitializeNovaState& state, runtime::StepContext& context) override;
  ResolveCandidateAgainstPublicArchivesOutput
  ResolveCandidateAgainstPublicArchives(const InitializeNovaState& state,
                                        runtime::StepContext& context) override;
  CheckExistingNovaByCoordinatesOutput CheckExistingNovaByCoordinates(
      const InitializeNovaState& state, runtime::StepContext& context) override;
  CreateNovaIdOutput CreateNovaId(const InitializeNovaState& state,
                                  runtime::StepContext& context) override;
  UpsertMinimalNovaMetadataOutput UpsertMinimalNovaMetadata(
      const InitializeNovaState& state, runtime::StepContext& context) override;
  UpsertAliasForExistingNovaOutput UpsertAliasForExistingNova(
      const InitializeNovaState& state, runtime::StepContext& context) override;

 private:
  workflows::Environment env_;
};

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<InitializeNovaSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::initialize_nova
