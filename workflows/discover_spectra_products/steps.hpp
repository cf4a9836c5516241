// The step logic of workflow discover_spectra_products, written by hand.
//
// novacat-gen created this file once, from discover_spectra_products.yaml, and
// never touches it again. When a Task is added to the spec, the build fails
// until the method is declared here and written in steps.cpp; when one is
// removed, its `override` below stops compiling.
#pragma once

#include "discover_spectra_products/discover_spectra_products.hpp"
#include "novacat/workflows/environment.h"

namespace novacat::discover_spectra_products {

class Steps final : public DiscoverSpectraProductsSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  SummarizeDiscoveryOutput SummarizeDiscovery(
      const DiscoverSpectraProductsState& state,
      runtime::StepContext& context) override;
  QueryProviderForProductsOutput QueryProviderForProducts(
      const DiscoverAcrossProvidersItem& item,
      runtime::StepContext& context) override;
  NormalizeProviderProductsOutput NormalizeProviderProducts(
      const DiscoverAcrossProvidersItem& item,
      runtime::StepContext& context) override;
  DeduplicateAndAssignDatasetIdsOutput DeduplicateAndAssignDatasetIds(
      const DiscoverAcrossProvidersItem& item,
      runtime::StepContext& context) override;

 private:
  workflows::Environment env_;
};

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<DiscoverSpectraProductsSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::discover_spectra_products
