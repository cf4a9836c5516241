// The step logic of workflow initialize_nova, written by hand (see steps.hpp).
#include "initialize_nova/steps.hpp"

#include "novacat/runtime/errors.h"

namespace novacat::initialize_nova {

std::unique_ptr<InitializeNovaSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

NormalizeCandidateNameOutput Steps::NormalizeCandidateName(
    const InitializeNovaState& /*state*/, runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("NormalizeCandidateName is not implemented yet");
}

CheckExistingNovaByNameOutput Steps::CheckExistingNovaByName(
    const InitializeNovaState& /*state*/, runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "CheckExistingNovaByName is not implemented yet");
}

ResolveCandidateAgainstPublicArchivesOutput
Steps::ResolveCandidateAgainstPublicArchives(
    const InitializeNovaState& /*state*/, runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "ResolveCandidateAgainstPublicArchives is not implemented yet");
}

CheckExistingNovaByCoordinatesOutput Steps::CheckExistingNovaByCoordinates(
    const InitializeNovaState& /*state*/, runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "CheckExistingNovaByCoordinates is not implemented yet");
}

CreateNovaIdOutput Steps::CreateNovaId(const InitializeNovaState& /*state*/,
                                       runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("CreateNovaId is not implemented yet");
}

UpsertMinimalNovaMetadataOutput Steps::UpsertMinimalNovaMetadata(
    const InitializeNovaState& /*state*/, runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "UpsertMinimalNovaMetadata is not implemented yet");
}

UpsertAliasForExistingNovaOutput Steps::UpsertAliasForExistingNova(
    const InitializeNovaState& /*state*/, runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "UpsertAliasForExistingNova is not implemented yet");
}

}  // namespace novacat::initialize_nova
