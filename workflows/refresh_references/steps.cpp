// The step logic of workflow refresh_references, written by hand (see
// steps.hpp).
#include "refresh_references/steps.hpp"

#include "novacat/runtime/errors.h"

namespace novacat::refresh_references {

std::unique_ptr<RefreshReferencesSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

FetchReferenceCandidatesOutput Steps::FetchReferenceCandidates(
    const RefreshReferencesState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "FetchReferenceCandidates is not implemented yet");
}

ComputeDiscoveryDateOutput Steps::ComputeDiscoveryDate(
    const RefreshReferencesState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("ComputeDiscoveryDate is not implemented yet");
}

UpsertDiscoveryDateMetadataOutput Steps::UpsertDiscoveryDateMetadata(
    const RefreshReferencesState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "UpsertDiscoveryDateMetadata is not implemented yet");
}

NormalizeReferenceOutput Steps::NormalizeReference(
    const ReconcileReferencesItem& /*item*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("NormalizeReference is not implemented yet");
}

UpsertReferenceEntityOutput Steps::UpsertReferenceEntity(
    const ReconcileReferencesItem& /*item*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("UpsertReferenceEntity is not implemented yet");
}

LinkNovaReferenceOutput Steps::LinkNovaReference(
    const ReconcileReferencesItem& /*item*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("LinkNovaReference is not implemented yet");
}

}  // namespace novacat::refresh_references
