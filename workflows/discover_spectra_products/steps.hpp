// The step logic of workflow discover_spectra_products, written by hand.
//
// novacat-gen created this file once, from discover_spectra_products.yaml, and
// never touches it again. When a Task is added to the spec, the build fails
// until the method is declared here and written in steps.cpp; when one is
// removed, its `override` below stops compiling.
//
// One Map item per provider runs QueryProviderForProducts ->
// NormalizeProviderProducts -> DeduplicateAndAssignDatasetIds; the Map's
// item_failure catches QUARANTINE only, so a QuarantineError quarantines
// that provider (QuarantineProvider) and the others continue, while a
// TerminalError or an exhausted RetryableError fails the run. Hence the
// classes below: bad outside data is QUARANTINE, broken invariants of our
// own documents are TERMINAL, transient provider or store failures are
// RETRYABLE.
//
// Quarantine causes start with the spec's failure case
// ("malformed_provider_records: ", "unknown_schema_variant: ",
// "ambiguous_product_identity: ") followed by the domain library's message,
// so that the recorded quarantine_reason names both the case and the record.
#pragma once

#include "discover_spectra_products/discover_spectra_products.hpp"
#include "novacat/workflows/environment.h"

namespace novacat::discover_spectra_products {

class Steps final : public DiscoverSpectraProductsSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  // From state.provider_results (one document per provider item: the item
  // as its last state left it, or QuarantineProvider's output with
  // `quarantined: true`): every dataset_id (new then existing, per
  // provider, each once), the new / existing / quarantined counts and one
  // provider summary per item (domain::SummarizeDiscovery). No store
  // access. TERMINAL when provider_results is absent or malformed.
  SummarizeDiscoveryOutput SummarizeDiscovery(
      const DiscoverSpectraProductsState& state,
      runtime::StepContext& context) override;

  // Checks the provider is known (TERMINAL, the spec's
  // invalid_provider_list) and the nova exists (TERMINAL, invalid_nova_id:
  // nothing is written for a nova that is not in the store), then asks the
  // ProviderClient: `products` are its raw records, unchanged. RETRYABLE
  // when the provider throttles or fails transiently; QUARANTINE
  // (malformed_provider_records) when the answer is not a list of objects.
  QueryProviderForProductsOutput QueryProviderForProducts(
      const DiscoverAcrossProvidersItem& item,
      runtime::StepContext& context) override;

  // domain::NormalizeProviderRecords over `products`: normalized_products
  // in the internal shape, in record order (duplicates are kept here and
  // dropped by the next step). QUARANTINE malformed_provider_records or
  // unknown_schema_variant naming the record index and member.
  NormalizeProviderProductsOutput NormalizeProviderProducts(
      const DiscoverAcrossProvidersItem& item,
      runtime::StepContext& context) override;

  // AP-DISC-1..4 for every distinct normalized product: its identity and
  // stable dataset_id (domain::DatasetId, a UUID v5 of the identity, so a
  // rediscovery yields the id the dataset already has), then
  //   - listed by ListProviderDatasets (AP-DISC-1): existing; when the
  //     provider re-publishes different locators or hints, they are
  //     updated (AP-DISC-3); its eligibility is left alone (after creation
  //     it belongs to the download workflow);
  //   - otherwise CreateDataset (AP-DISC-2 + AP-DISC-3 + AP-DISC-4 in one
  //     conditional Put: the item is written with its locators and
  //     eligibility DOWNLOAD, so it is in GSI1 under ELIG#DOWNLOAD# from
  //     the moment it exists and no crash can leave it undiscoverable):
  //     kCreated -> new, kAlreadyExists (a concurrent or earlier writer of
  //     the same identity) -> existing, kConflict -> TERMINAL.
  // QUARANTINE ambiguous_product_identity when a product has none of url,
  // size, provider_key or two products share an identity but differ.
  // `dataset_identity` is one string per provider item
  // (ItemDatasetIdentity below).
  DeduplicateAndAssignDatasetIdsOutput DeduplicateAndAssignDatasetIds(
      const DiscoverAcrossProvidersItem& item,
      runtime::StepContext& context) override;

 private:
  workflows::Environment env_;
};

// The item's `dataset_identity` (the spec has one per provider item, and
// the host builds the Attempt's dedupe key
// DatasetIdentity:{dataset_identity}:{schema_version} from it), given the
// identities of the item's distinct products:
//   none:  "provider=<provider>|products=0"
//   one:   that product's identity (domain::DatasetIdentity), so the key
//          is exactly the seed's per-product dedupe key;
//   more:  "provider=<provider>|products=<n>|sha256=<hex>", the SHA-256 of
//          the identities sorted and joined with '\n': the same set of
//          products gives the same key whatever order the provider lists
//          them in, and the key stays short however many there are.
std::string ItemDatasetIdentity(std::string_view provider,
                                std::vector<std::string> identities);

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<DiscoverSpectraProductsSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::discover_spectra_products
