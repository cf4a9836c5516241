// The step logic of workflow discover_spectra_products, written by hand (see
// steps.hpp).
#include "discover_spectra_products/steps.hpp"

#include "novacat/runtime/errors.h"

namespace novacat::discover_spectra_products {

std::unique_ptr<DiscoverSpectraProductsSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

SummarizeDiscoveryOutput Steps::SummarizeDiscovery(
    const DiscoverSpectraProductsState& /*state*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError("SummarizeDiscovery is not implemented yet");
}

QueryProviderForProductsOutput Steps::QueryProviderForProducts(
    const DiscoverAcrossProvidersItem& /*item*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "QueryProviderForProducts is not implemented yet");
}

NormalizeProviderProductsOutput Steps::NormalizeProviderProducts(
    const DiscoverAcrossProvidersItem& /*item*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "NormalizeProviderProducts is not implemented yet");
}

DeduplicateAndAssignDatasetIdsOutput Steps::DeduplicateAndAssignDatasetIds(
    const DiscoverAcrossProvidersItem& /*item*/,
    runtime::StepContext& /*context*/) {
  throw runtime::TerminalError(
      "DeduplicateAndAssignDatasetIds is not implemented yet");
}

}  // namespace novacat::discover_spectra_products
