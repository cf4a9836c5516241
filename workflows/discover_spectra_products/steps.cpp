// The step logic of workflow discover_spectra_products, written by hand (see
// steps.hpp).
#include "discover_spectra_products/steps.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "novacat/domain/spectra.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/failure.h"

namespace novacat::discover_spectra_products {

namespace {

using nlohmann::json;

using runtime::ErrorClass;
using workflows::Fail;

// The spec's failure cases (specs/discover_spectra_products.yaml).
constexpr std::string_view kMalformedProviderRecords =
    "malformed_provider_records";
constexpr std::string_view kUnknownSchemaVariant = "unknown_schema_variant";
constexpr std::string_view kAmbiguousProductIdentity =
    "ambiguous_product_identity";

std::string Quote(std::string_view text) { return json(text).dump(); }

// The provider's answer: a transient failure is retried, a query that cannot
// be made is TERMINAL (both with the client's message), an answer that is
// not a list of records quarantines the provider.
[[noreturn]] void FailQuery(const domain::ClientError& error) {
  switch (error.failure()) {
    case domain::ClientFailure::kUnavailable:
      Fail(ErrorClass::kRetryable, "", error.what());
    case domain::ClientFailure::kInvalidRequest:
      Fail(ErrorClass::kTerminal, "", error.what());
    case domain::ClientFailure::kMalformedResponse:
      Fail(ErrorClass::kQuarantine, kMalformedProviderRecords, error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// Records and products: the provider's data at fault quarantines the
// provider with the spec's id; our own documents (a normalized product, a
// provider result) at fault are a broken invariant, TERMINAL.
[[noreturn]] void FailProducts(const domain::ProductError& error) {
  switch (error.failure()) {
    case domain::ProductFailure::kMalformedRecord:
      Fail(ErrorClass::kQuarantine, kMalformedProviderRecords, error.what());
    case domain::ProductFailure::kUnknownSchemaVariant:
      Fail(ErrorClass::kQuarantine, kUnknownSchemaVariant, error.what());
    case domain::ProductFailure::kAmbiguousIdentity:
      Fail(ErrorClass::kQuarantine, kAmbiguousProductIdentity, error.what());
    case domain::ProductFailure::kInvalidNormalizedProduct:
    case domain::ProductFailure::kInvalidProviderResult:
      Fail(ErrorClass::kTerminal, "", error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// The provider itself: the Map item names one the domain has no schema for.
// TERMINAL with the domain's message.
[[noreturn]] void FailProvider(const domain::ProviderError& error) {
  switch (error.failure()) {
    case domain::ProviderFailure::kEmptyList:
    case domain::ProviderFailure::kUnknownProvider:
    case domain::ProviderFailure::kDuplicateProvider:
    case domain::ProviderFailure::kNoRecordSchema:
      Fail(ErrorClass::kTerminal, "", error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// A member the Map always puts in the item (the item itself or a carried
// field): its absence is a broken invariant of our own documents.
const std::string& Required(const std::optional<std::string>& value,
                            std::string_view state, std::string_view member) {
  if (!value || value->empty()) {
    throw runtime::TerminalError(std::string(state) + ": the item has no " +
                                 std::string(member));
  }
  return *value;
}

// AP-DISC-3's payload: what locates the product at its provider (stored
// as the dataset's locators) and what helps processing it (hints).
json Locators(const domain::NormalizedProduct& product) {
  json locators = json::object();
  locators["product_timestamp"] = product.product_timestamp;
  if (product.url) locators["url"] = *product.url;
  if (product.size_bytes) locators["size_bytes"] = *product.size_bytes;
  if (product.provider_key) locators["provider_key"] = *product.provider_key;
  if (product.sha256) locators["sha256"] = *product.sha256;
  return locators;
}

std::optional<json> Hints(const domain::NormalizedProduct& product) {
  if (!product.instrument) return std::nullopt;
  return json{{"instrument", *product.instrument}};
}

}  // namespace

std::string ItemDatasetIdentity(std::string_view provider,
                                std::vector<std::string> identities) {
  if (identities.size() == 1) return identities.front();
  std::string prefix = "provider=" + std::string(provider) +
                       "|products=" + std::to_string(identities.size());
  if (identities.empty()) return prefix;
  std::sort(identities.begin(), identities.end());
  std::string joined;
  for (const std::string& identity : identities) {
    joined += (joined.empty() ? "" : "\n") + identity;
  }
  return prefix + "|sha256=" + runtime::Sha256Hex(joined);
}

std::unique_ptr<DiscoverSpectraProductsSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

SummarizeDiscoveryOutput Steps::SummarizeDiscovery(
    const DiscoverSpectraProductsState& state, runtime::StepContext& context) {
  if (!state.provider_results) {
    throw runtime::TerminalError(
        "SummarizeDiscovery: the state has no provider_results (the Map "
        "DiscoverAcrossProviders did not run)");
  }
  domain::DiscoverySummary summary;
  try {
    summary = domain::SummarizeDiscovery(*state.provider_results);
  } catch (const domain::ProductError& e) {
    FailProducts(e);
  }
  SummarizeDiscoveryOutput out;
  out.dataset_ids = summary.dataset_ids;
  out.dataset_count_new = summary.dataset_count_new;
  out.dataset_count_existing = summary.dataset_count_existing;
  out.quarantined_count = summary.quarantined_count;
  std::vector<json> provider_summaries;
  for (const domain::ProviderSummary& s : summary.provider_summaries) {
    provider_summaries.push_back(s.ToJson());
  }
  out.provider_summaries = std::move(provider_summaries);
  std::vector<json> provider_failures;
  for (const domain::QuarantinedProvider& f : summary.provider_failures) {
    provider_failures.push_back(f.ToJson());
  }
  out.provider_failures = std::move(provider_failures);
  context.Log("discovery summarized",
              {{"dataset_count_new", summary.dataset_count_new},
               {"dataset_count_existing", summary.dataset_count_existing},
               {"quarantined_count", summary.quarantined_count}});
  return out;
}

QueryProviderForProductsOutput Steps::QueryProviderForProducts(
    const DiscoverAcrossProvidersItem& item, runtime::StepContext& context) {
  constexpr std::string_view kState = "QueryProviderForProducts";
  const std::string& provider = Required(item.provider, kState, "provider");
  const std::string& nova_id = Required(item.nova_id, kState, "nova_id");
  // The input event's schema only says "strings"; the provider names are
  // checked here, before anything is asked or written.
  if (!domain::IsKnownProvider(provider)) {
    throw runtime::TerminalError(
        "invalid provider list: " + Quote(provider) +
        " is not a known provider (known: " + domain::KnownProviders() + ")");
  }
  std::optional<store::Nova> nova = env_.repository.GetNova(nova_id);
  if (!nova) {
    throw runtime::TerminalError("invalid nova_id: nova " + nova_id +
                                 " does not exist");
  }

  domain::ProviderQuery query;
  query.provider = provider;
  query.nova_id = nova_id;
  query.ra_deg = nova->ra_deg;
  query.dec_deg = nova->dec_deg;
  query.names = {nova->primary_name};
  query.budget_ms = domain::ClientBudgetMs(context.RemainingMs());
  std::vector<json> records;
  try {
    records = env_.providers.Query(query);
  } catch (const domain::ClientError& e) {
    FailQuery(e);
  }
  // Every later document types products as objects: a record that is not
  // one would fail the next Task's parse with a TerminalError, which the
  // Map does not catch, and end the whole run. It is this provider's
  // malformed answer, so it quarantines this provider only.
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i].is_object()) {
      Fail(ErrorClass::kQuarantine, kMalformedProviderRecords,
           "malformed " + provider + " response for nova " + nova_id +
               ": products[" + std::to_string(i) + "] must be an object, got " +
               records[i].type_name());
    }
  }
  context.Log("provider answered",
              {{"provider", provider}, {"product_count", records.size()}});
  QueryProviderForProductsOutput out;
  out.products = std::move(records);
  return out;
}

NormalizeProviderProductsOutput Steps::NormalizeProviderProducts(
    const DiscoverAcrossProvidersItem& item, runtime::StepContext& context) {
  constexpr std::string_view kState = "NormalizeProviderProducts";
  const std::string& provider = Required(item.provider, kState, "provider");
  if (!item.products) {
    throw runtime::TerminalError(std::string(kState) +
                                 ": the item has no products");
  }
  std::vector<domain::NormalizedProduct> products;
  try {
    products = domain::NormalizeProviderRecords(provider, *item.products);
  } catch (const domain::ProductError& e) {
    FailProducts(e);
  } catch (const domain::ProviderError& e) {
    FailProvider(e);
  }
  std::vector<json> normalized;
  normalized.reserve(products.size());
  for (const domain::NormalizedProduct& p : products) {
    normalized.push_back(p.ToJson());
  }
  context.Log("products normalized",
              {{"provider", provider}, {"product_count", normalized.size()}});
  NormalizeProviderProductsOutput out;
  out.normalized_products = std::move(normalized);
  return out;
}

DeduplicateAndAssignDatasetIdsOutput Steps::DeduplicateAndAssignDatasetIds(
    const DiscoverAcrossProvidersItem& item, runtime::StepContext& context) {
  constexpr std::string_view kState = "DeduplicateAndAssignDatasetIds";
  const std::string& provider = Required(item.provider, kState, "provider");
  const std::string& nova_id = Required(item.nova_id, kState, "nova_id");
  // What tells this run's own datasets from the ones already there: each
  // dataset records the execution that created it (created_by_execution_arn;
  // one JobRun per execution, and the Map item has no typed job_run_id). A
  // retry of this Task after its writes landed (the answer lost: a
  // timeout, a crash) finds the datasets it created stored; they are still
  // new, and counted as new, so that their DatasetDiscovered events,
  // published only after this Task answers, are published once. Another
  // run's datasets (an earlier discovery, a concurrent one) are existing.
  const std::string& run = context.execution_arn;
  if (run.empty()) {
    throw runtime::TerminalError(std::string(kState) +
                                 ": the invocation has no execution_arn");
  }
  if (!item.normalized_products) {
    throw runtime::TerminalError(std::string(kState) +
                                 ": the item has no normalized_products");
  }

  // Our own documents: a bad one is TERMINAL (NormalizedProduct::FromJson).
  std::vector<domain::NormalizedProduct> products;
  std::vector<domain::IdentifiedProduct> identified;
  try {
    for (size_t i = 0; i < item.normalized_products->size(); ++i) {
      std::string path = "normalized_products[" + std::to_string(i) + "]";
      products.push_back(domain::NormalizedProduct::FromJson(
          (*item.normalized_products)[i], path));
      if (products.back().provider != provider) {
        throw runtime::TerminalError(
            std::string(kState) + ": " + path + " is a product of " +
            products.back().provider + ", not of " + provider);
      }
    }
    identified = domain::AssignDatasetIdentities(products, kSchemaVersion);
  } catch (const domain::ProductError& e) {
    FailProducts(e);
  }

  // AP-DISC-1: what this provider already has for the nova.
  std::map<std::string, store::Dataset> existing;
  for (store::Dataset& d :
       env_.repository.ListProviderDatasets(nova_id, provider)) {
    std::string id = d.dataset_id;
    existing.emplace(std::move(id), std::move(d));
  }

  const std::string now = runtime::FormatTimestamp(context.now);
  std::vector<std::string> new_ids, existing_ids, identities;
  int64_t updated = 0;
  for (const domain::IdentifiedProduct& p : identified) {
    identities.push_back(p.dataset_identity);
    json locators = Locators(p.product);
    std::optional<json> hints = Hints(p.product);
    store::DatasetKey key{nova_id, store::DatasetType::kSpectra, provider,
                          p.dataset_id};

    if (auto it = existing.find(p.dataset_id); it != existing.end()) {
      const store::Dataset& stored = it->second;
      if (stored.provider_identity != p.dataset_identity) {
        throw runtime::TerminalError(
            std::string(kState) + ": dataset " + p.dataset_id +
            " is stored with identity " + Quote(stored.provider_identity) +
            ", not " + Quote(p.dataset_identity));
      }
      // AP-DISC-3: the provider re-published different metadata.
      if (stored.locators != locators || stored.hints != hints) {
        store::UpdateOutcome outcome =
            env_.repository.UpdateDatasetLocators(key, {locators, hints}, now);
        if (outcome != store::UpdateOutcome::kUpdated) {
          // Datasets are never deleted: listed a moment ago, gone now.
          throw runtime::TerminalError(
              std::string(kState) + ": UpdateDatasetLocators of dataset " +
              p.dataset_id + " answered " + store::UpdateOutcomeName(outcome));
        }
        ++updated;
      }
      (stored.created_by_execution_arn == run ? new_ids : existing_ids)
          .push_back(p.dataset_id);
      continue;
    }

    // AP-DISC-2, with AP-DISC-3's locators and AP-DISC-4's eligibility in
    // the same conditional Put.
    store::Dataset dataset;
    dataset.nova_id = nova_id;
    dataset.type = store::DatasetType::kSpectra;
    dataset.provider = provider;
    dataset.dataset_id = p.dataset_id;
    dataset.provider_identity = p.dataset_identity;
    dataset.locators = locators;
    dataset.hints = hints;
    dataset.created_at = now;
    dataset.updated_at = now;
    dataset.eligibility = store::kEligibilityDownload;
    dataset.created_by_execution_arn = run;
    switch (env_.repository.CreateDataset(dataset)) {
      case store::CreateResult::kCreated:
        new_ids.push_back(p.dataset_id);
        break;
      case store::CreateResult::kAlreadyExists: {
        // Written since AP-DISC-1 listed the datasets: by this run (its
        // own write, landed before a lost answer) or by another.
        const std::optional<store::Dataset> stored =
            env_.repository.GetDataset(key);
        (stored && stored->created_by_execution_arn == run ? new_ids
                                                           : existing_ids)
            .push_back(p.dataset_id);
        break;
      }
      case store::CreateResult::kConflict:
        throw runtime::TerminalError(
            std::string(kState) + ": dataset " + p.dataset_id +
            " exists with another identity than " + Quote(p.dataset_identity));
    }
  }

  DeduplicateAndAssignDatasetIdsOutput out;
  out.dataset_identity = ItemDatasetIdentity(provider, std::move(identities));
  context.Log("datasets assigned",
              {{"provider", provider},
               {"dataset_count_new", new_ids.size()},
               {"dataset_count_existing", existing_ids.size()},
               {"locators_updated", updated}});
  out.new_dataset_ids = std::move(new_ids);
  out.existing_dataset_ids = std::move(existing_ids);
  return out;
}

}  // namespace novacat::discover_spectra_products
