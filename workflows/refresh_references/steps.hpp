// The step logic of workflow refresh_references, written by hand.
//
// novacat-gen created this file once, from refresh_references.yaml, and never
// touches it again. When a Task is added to the spec, the build fails until the
// method is declared here and written in steps.cpp; when one is removed, its
// `override` below stops compiling.
#pragma once

#include "novacat/workflows/environment.h"
#include "refresh_references/refresh_references.hpp"

namespace novacat::refresh_references {

class Steps final : public RefreshReferencesSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  FetchReferenceCandidatesOutput FetchReferenceCandidates(
      const RefreshReferencesState& state,
      runtime::StepContext& context) override;
  ComputeDiscoveryDateOutput ComputeDiscoveryDate(
      const RefreshReferencesState& state,
      runtime::StepContext& context) override;
  UpsertDiscoveryDateMetadataOutput UpsertDiscoveryDateMetadata(
      const RefreshReferencesState& state,
      runtime::StepContext& context) override;
  NormalizeReferenceOutput NormalizeReference(
      const ReconcileReferencesItem& item,
      runtime::StepContext& context) override;
  UpsertReferenceEntityOutput UpsertReferenceEntity(
      const ReconcileReferencesItem& item,
      runtime::StepContext& context) override;
  LinkNovaReferenceOutput LinkNovaReference(
      const ReconcileReferencesItem& item,
      runtime::StepContext& context) override;

 private:
  workflows::Environment env_;
};

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<RefreshReferencesSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::refresh_references
