// Unit tests of the discover_spectra_products step logic: the steps over a
// MemoryTable repository and the fixture clients (fixtures/, tests run from
// the repository root), called directly with hand-built items and states.
#include "discover_spectra_products/steps.hpp"

#include <gtest/gtest.h>

#include <string>
#include <typeinfo>
#include <vector>

#include "novacat/domain/fixtures.h"
#include "novacat/domain/novae_fixture.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/testing/throws.h"
#include "novacat/store/fault_injecting_table.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/repository.h"

namespace novacat::discover_spectra_products {
namespace steps_test {
namespace {

using nlohmann::json;

constexpr const char* kV1500Cyg = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr const char* kGkPer = "86cb14e8-2bf7-4bec-9837-df4287f58a01";
constexpr const char* kUnknownNova = "0b7d3c1e-2f4a-4b6c-9d8e-7f6a5b4c3d2e";
constexpr const char* kCorrelationId = "0e6f1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c";
constexpr int64_t kNow = 1795614300;  // 2026-11-25T13:45:00Z
// The execution the items run in, and a later discovery's.
constexpr const char* kExecution =
    "arn:aws:states:local:000000000000:execution:discover_spectra_products:"
    "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c";
constexpr const char* kLaterExecution =
    "arn:aws:states:local:000000000000:execution:discover_spectra_products:"
    "6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c9d";

// The identities of the fixture products (fixtures/README.md), spelled out:
// timestamps truncated to the second and converted to UTC, MJD converted.
const std::string kEsoUrlIdentity =
    "provider=ESO|product_timestamp=2016-05-31T08:12:33Z|url=https://"
    "dataportal.eso.org/dataPortal/file/ADP.2016-06-02T10:01:19.436";
const std::string kEsoSizeIdentity =
    "provider=ESO|product_timestamp=2016-05-31T06:45:10Z|size=2305000";
const std::string kMastUrlIdentity =
    "provider=MAST|product_timestamp=1978-05-03T13:03:31Z|url=https://"
    "mast.stsci.edu/api/v0.1/Download/file?uri=mast:IUE/url/pub/iue/data/swp/"
    "01000/swp01744.mxlo.gz";
const std::string kMastKeyIdentity =
    "provider=MAST|product_timestamp=1978-05-03T14:24:00Z|provider_key="
    "lwr01642";
// Their dataset_ids: UUID v5 in the dataset namespace, as Python's
// uuid.uuid5 computes them (independent of this code).
constexpr const char* kEsoUrlId = "475cb1a5-dbc4-5b30-b5e2-fabfd76e9d50";
constexpr const char* kEsoSizeId = "326baf4c-1981-5d3e-a9c2-55908a6c93b6";
constexpr const char* kMastUrlId = "972ca194-26e0-5628-91be-4579aac67555";
// GK PER's ESO product (by url).
constexpr const char* kEsoGkPerId = "8e56017e-4bfc-5c66-85bc-a9651d8fe6d3";
constexpr const char* kMastKeyId = "4c57e29f-5629-5537-8ca0-f5ef62b5c2c0";

using runtime::testing::Throws;

// A provider answering whatever the test sets.
class ScriptedProvider : public domain::ProviderClient {
 public:
  std::vector<json> Query(const domain::ProviderQuery&) override {
    if (error) throw *error;
    return records;
  }
  std::vector<json> records;
  std::optional<domain::ClientError> error;
};

class DiscoverSpectraProductsStepsTest : public ::testing::Test {
 protected:
  DiscoverSpectraProductsStepsTest() {
    context_.workflow_name = "discover_spectra_products";
    context_.execution_arn = kExecution;
    context_.now = kNow;
    // The database of fixtures/novae/existing.json.
    for (const domain::FixtureNova& f :
         domain::LoadFixtureNovae("fixtures/novae/existing.json")) {
      store::Nova nova;
      nova.nova_id = f.nova_id;
      nova.primary_name = f.primary_name;
      nova.normalized_name = f.primary_name;
      nova.ra_deg = f.ra_deg;
      nova.dec_deg = f.dec_deg;
      nova.epoch = f.epoch;
      nova.status = "ACTIVE";
      nova.created_at = "2026-01-01T00:00:00Z";
      if (f.discovery_date) nova.discovery_date = f.discovery_date->ToIsoDate();
      EXPECT_EQ(repository_.CreateNova(nova), store::CreateResult::kCreated);
    }
  }

  static DiscoverAcrossProvidersItem Item(const std::string& provider,
                                          const std::string& nova_id) {
    DiscoverAcrossProvidersItem item;
    item.provider = provider;
    item.nova_id = nova_id;
    item.correlation_id = kCorrelationId;
    return item;
  }

  // One Map item as DiscoverAcrossProviders runs it: the three Tasks through
  // the generated dispatcher (which merges each Task's outputs into the
  // item document), a QuarantineError ending the item as QuarantineProvider
  // does (the item with quarantined: true). Returns the item's result.
  json RunItem(const std::string& provider, const std::string& nova_id) {
    json document = {{"provider", provider},
                     {"nova_id", nova_id},
                     {"correlation_id", kCorrelationId},
                     {"job_run_id", "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"}};
    try {
      for (const char* state :
           {"QueryProviderForProducts", "NormalizeProviderProducts",
            "DeduplicateAndAssignDatasetIds"}) {
        document = Dispatch(steps_, state, document, context_);
      }
    } catch (const runtime::QuarantineError& e) {
      document["quarantine_reason"] = e.what();
      document["error_classification"] = "QUARANTINE";
      document["quarantined"] = true;
    }
    return document;
  }

  DiscoverAcrossProvidersItem Normalized(const std::string& provider,
                                         const std::string& nova_id) {
    DiscoverAcrossProvidersItem item = Item(provider, nova_id);
    item.products = steps_.QueryProviderForProducts(item, context_).products;
    item.normalized_products =
        steps_.NormalizeProviderProducts(item, context_).normalized_products;
    return item;
  }

  std::vector<std::string> StoredIds(const std::string& nova_id,
                                     const std::string& provider) {
    std::vector<std::string> ids;
    for (const store::Dataset& d :
         repository_.ListProviderDatasets(nova_id, provider)) {
      ids.push_back(d.dataset_id);
    }
    return ids;
  }

  store::MemoryTable table_;
  store::Repository repository_{table_};
  domain::FixtureResolver resolver_{"fixtures/resolver/names.json"};
  domain::FixtureProvider providers_{"fixtures/providers"};
  domain::FixtureReferenceSource references_{"fixtures/references"};
  runtime::SeededRandom random_{42};
  workflows::Environment env_{repository_, resolver_, providers_, references_,
                              random_};
  Steps steps_{env_};
  runtime::StepContext context_;
};

// --- QueryProviderForProducts ----------------------------------------------

TEST_F(DiscoverSpectraProductsStepsTest, QueryReturnsTheRawRecordsUnchanged) {
  QueryProviderForProductsOutput out =
      steps_.QueryProviderForProducts(Item("ESO", kV1500Cyg), context_);
  ASSERT_TRUE(out.products);
  ASSERT_EQ(out.products->size(), 2u);
  EXPECT_EQ((*out.products)[0]["TARGETNAME"], "V1500 Cyg");
  EXPECT_EQ((*out.products)[1]["access_url"], nullptr);
  EXPECT_EQ((*out.products)[1]["t_min"], 57539.28136574);
}

TEST_F(DiscoverSpectraProductsStepsTest,
       ThrottledProviderIsRetryableThenAnswers) {
  DiscoverAcrossProvidersItem item = Item("ESO", kGkPer);
  for (int call = 1; call <= 2; ++call) {
    EXPECT_TRUE(Throws<runtime::RetryableError>(
        [&] { steps_.QueryProviderForProducts(item, context_); },
        "ESO throttled the query for nova 86cb14e8-2bf7-4bec-9837-df4287f58a01 "
        "(HTTP 429; fixture throttles the first 2 calls, this is call " +
            std::to_string(call) + ")"));
  }
  QueryProviderForProductsOutput out =
      steps_.QueryProviderForProducts(item, context_);
  ASSERT_TRUE(out.products);
  ASSERT_EQ(out.products->size(), 1u);
  EXPECT_EQ((*out.products)[0]["dp_id"], "ADP.2019-01-10T12:00:00.001");
  EXPECT_EQ(providers_.calls("ESO", kGkPer), 3);
}

TEST_F(DiscoverSpectraProductsStepsTest, MalformedResponseQuarantinesProvider) {
  ScriptedProvider scripted;
  scripted.error =
      domain::ClientError(domain::ClientFailure::kMalformedResponse,
                          "ESO SSAP: query failed: Query execution failed");
  workflows::Environment env{repository_, resolver_, scripted, references_,
                             random_};
  Steps steps(env);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps.QueryProviderForProducts(Item("ESO", kGkPer), context_); },
      "malformed_provider_records: ESO SSAP: query failed: Query execution "
      "failed"));
}

TEST_F(DiscoverSpectraProductsStepsTest, NonObjectRecordQuarantinesProvider) {
  // Left in products, a string would fail the next Task's parse with a
  // TerminalError the Map does not catch.
  ScriptedProvider scripted;
  scripted.records = {json{{"t_min", 57539.34205389}},
                      json("ADP.2016-06-02T10:01:19.436")};
  workflows::Environment env{repository_, resolver_, scripted, references_,
                             random_};
  Steps steps(env);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps.QueryProviderForProducts(Item("ESO", kV1500Cyg), context_); },
      "malformed_provider_records: malformed ESO response for nova "
      "d4bbdda3-6824-4e82-b1ce-1b781190fbec: products[1] must be an object, "
      "got string"));
}

TEST_F(DiscoverSpectraProductsStepsTest, UnknownProviderIsTerminal) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] {
        steps_.QueryProviderForProducts(Item("SDSS", kV1500Cyg), context_);
      },
      "invalid provider list: \"SDSS\" is not a known provider (known: ESO, "
      "MAST)"));
}

TEST_F(DiscoverSpectraProductsStepsTest, UnknownNovaIsTerminalBeforeAnyQuery) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] {
        steps_.QueryProviderForProducts(Item("ESO", kUnknownNova), context_);
      },
      "invalid nova_id: nova 0b7d3c1e-2f4a-4b6c-9d8e-7f6a5b4c3d2e does not "
      "exist"));
  EXPECT_EQ(providers_.calls("ESO", kUnknownNova), 0);
}

// --- NormalizeProviderProducts ----------------------------------------------

TEST_F(DiscoverSpectraProductsStepsTest,
       NormalizesEsoRecordsIntoTheInternalShape) {
  DiscoverAcrossProvidersItem item = Normalized("ESO", kV1500Cyg);
  ASSERT_TRUE(item.normalized_products);
  EXPECT_EQ(*item.normalized_products,
            (std::vector<json>{
                json{{"provider", "ESO"},
                     {"product_timestamp", "2016-05-31T08:12:33Z"},
                     {"url",
                      "https://dataportal.eso.org/dataPortal/file/"
                      "ADP.2016-06-02T10:01:19.436"},
                     {"size_bytes", 2304000},
                     {"provider_key", "ADP.2016-06-02T10:01:19.436"},
                     {"instrument", "UVES"},
                     {"sha256",
                      "4b7fe8265f3955c980b0e48b5af9b7a72bf5566c97072083a"
                      "5762f064a619fd3"}},
                json{{"provider", "ESO"},
                     {"product_timestamp", "2016-05-31T06:45:10Z"},
                     {"size_bytes", 2305000},
                     {"provider_key", "ADP.2016-06-02T10:01:19.512"},
                     {"instrument", "UVES"}}}));
}

TEST_F(DiscoverSpectraProductsStepsTest, MalformedRecordQuarantinesProvider) {
  DiscoverAcrossProvidersItem item = Item("MAST", kV1500Cyg);
  item.products = steps_.QueryProviderForProducts(item, context_).products;
  (*item.products)[1]["t_min"] = "yesterday";
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.NormalizeProviderProducts(item, context_); },
      "malformed_provider_records: malformed MAST record products[1]: "
      "t_min must be an MJD number in (0, 100000), got \"yesterday\""));
}

TEST_F(DiscoverSpectraProductsStepsTest,
       UnknownSchemaVariantQuarantinesProvider) {
  DiscoverAcrossProvidersItem item = Item("ESO", kV1500Cyg);
  item.products = std::vector<json>{
      json{{"link", "https://example.org/a.fits"}, {"obsdate", "2016-05-31"}}};
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.NormalizeProviderProducts(item, context_); },
      "unknown_schema_variant: unknown schema variant in ESO record "
      "products[0]: none of t_min, access_url, access_estsize, dp_id, "
      "COLLECTION is present (members: link, obsdate)"));
}

// --- DeduplicateAndAssignDatasetIds -----------------------------------------

TEST_F(DiscoverSpectraProductsStepsTest,
       IdentityFallsBackFromUrlToSizeToProviderKey) {
  const json base = {{"provider", "MAST"},
                     {"product_timestamp", "1978-05-03T13:03:31Z"}};
  struct Case {
    json product;
    std::string identity;
  };
  std::vector<Case> cases = {
      {{{"url", "https://archive.stsci.edu/a.gz"},
        {"size_bytes", 27648},
        {"provider_key", "swp01744"}},
       "provider=MAST|product_timestamp=1978-05-03T13:03:31Z|url=https://"
       "archive.stsci.edu/a.gz"},
      {{{"size_bytes", 27648}, {"provider_key", "swp01744"}},
       "provider=MAST|product_timestamp=1978-05-03T13:03:31Z|size=27648"},
      {{{"provider_key", "swp01744"}},
       "provider=MAST|product_timestamp=1978-05-03T13:03:31Z|provider_key="
       "swp01744"},
  };
  for (const Case& c : cases) {
    json product = base;
    product.update(c.product);
    DiscoverAcrossProvidersItem item = Item("MAST", kV1500Cyg);
    item.normalized_products = std::vector<json>{product};
    DeduplicateAndAssignDatasetIdsOutput out =
        steps_.DeduplicateAndAssignDatasetIds(item, context_);
    // One product: the item's identity is the product's.
    EXPECT_EQ(out.dataset_identity, c.identity);
    EXPECT_EQ(out.new_dataset_ids,
              std::vector<std::string>{domain::DatasetId(c.identity)});
    std::optional<store::Dataset> stored =
        repository_.GetDataset({kV1500Cyg, store::DatasetType::kSpectra, "MAST",
                                domain::DatasetId(c.identity)});
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->provider_identity, c.identity);
  }

  DiscoverAcrossProvidersItem item = Item("MAST", kV1500Cyg);
  item.normalized_products = std::vector<json>{base};
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.DeduplicateAndAssignDatasetIds(item, context_); },
      "ambiguous_product_identity: ambiguous product identity: "
      "normalized_products[0] (MAST at 1978-05-03T13:03:31Z) has none of url, "
      "size, provider_key"));
}

TEST_F(DiscoverSpectraProductsStepsTest,
       DatasetIsCreatedOnceAndRediscoveredAsExisting) {
  DiscoverAcrossProvidersItem item = Normalized("ESO", kV1500Cyg);
  DeduplicateAndAssignDatasetIdsOutput first =
      steps_.DeduplicateAndAssignDatasetIds(item, context_);
  EXPECT_EQ(first.new_dataset_ids,
            (std::vector<std::string>{kEsoUrlId, kEsoSizeId}));
  EXPECT_EQ(first.existing_dataset_ids, std::vector<std::string>{});
  EXPECT_EQ(first.dataset_identity,
            "provider=ESO|products=2|sha256="
            "9417df3555840d612cecd85e0c8cf684aa62c7df5170a4ea0c08160e21c63cd3");
  EXPECT_EQ(domain::DatasetId(kEsoUrlIdentity), kEsoUrlId);
  EXPECT_EQ(domain::DatasetId(kEsoSizeIdentity), kEsoSizeId);

  std::optional<store::Dataset> stored = repository_.GetDataset(
      {kV1500Cyg, store::DatasetType::kSpectra, "ESO", kEsoSizeId});
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->provider_identity, kEsoSizeIdentity);
  EXPECT_EQ(stored->locators,
            (json{{"product_timestamp", "2016-05-31T06:45:10Z"},
                  {"size_bytes", 2305000},
                  {"provider_key", "ADP.2016-06-02T10:01:19.512"}}));
  EXPECT_EQ(stored->hints, (json{{"instrument", "UVES"}}));
  EXPECT_EQ(stored->created_at, "2026-11-25T13:45:00Z");
  EXPECT_EQ(stored->eligibility, "DOWNLOAD");

  // A later rediscovery (a new run, a new query) creates nothing.
  const std::vector<store::Item> before = table_.Scan();
  context_.execution_arn = kLaterExecution;
  context_.now = kNow + 86400;
  DeduplicateAndAssignDatasetIdsOutput second =
      steps_.DeduplicateAndAssignDatasetIds(Normalized("ESO", kV1500Cyg),
                                            context_);
  EXPECT_EQ(second.new_dataset_ids, std::vector<std::string>{});
  EXPECT_EQ(second.existing_dataset_ids,
            (std::vector<std::string>{kEsoUrlId, kEsoSizeId}));
  EXPECT_EQ(second.dataset_identity, first.dataset_identity);
  EXPECT_EQ(table_.Scan(), before);  // same metadata: not even an update
  EXPECT_EQ(StoredIds(kV1500Cyg, "ESO"),
            (std::vector<std::string>{kEsoSizeId, kEsoUrlId}));
}

TEST_F(DiscoverSpectraProductsStepsTest,
       RetryAfterLandedWritesStillCountsItsDatasetsAsNew) {
  // The Task's writes land, then its answer is lost (the PutItem of the
  // k-th dataset fails RETRYABLE after it was applied), and Step Functions
  // retries it in the same execution. Every dataset it created is new in
  // the retry's answer, so PublishDatasetDiscoveredEvents (which runs only
  // on an answer) publishes each one's event exactly once; a later run
  // sees them as existing.
  for (int lost = 1; lost <= 2; ++lost) {
    SCOPED_TRACE("CreateDataset " + std::to_string(lost) +
                 " applied then lost");
    store::MemoryTable inner;
    store::FaultInjectingTable faulty(inner);
    store::Repository repository(faulty);
    workflows::Environment env{repository, resolver_, providers_, references_,
                               random_};
    Steps steps{env};
    const DiscoverAcrossProvidersItem item = Normalized("ESO", kV1500Cyg);
    faulty.InjectOn(store::Operation::kPutItem, lost,
                    store::Fault::kAppliedThenLost);
    EXPECT_THROW(steps.DeduplicateAndAssignDatasetIds(item, context_),
                 runtime::RetryableError);

    context_.attempt_number = 2;
    const DeduplicateAndAssignDatasetIdsOutput retry =
        steps.DeduplicateAndAssignDatasetIds(item, context_);
    EXPECT_EQ(retry.new_dataset_ids,
              (std::vector<std::string>{kEsoUrlId, kEsoSizeId}));
    EXPECT_EQ(retry.existing_dataset_ids, std::vector<std::string>{});
    EXPECT_EQ(repository.ListProviderDatasets(kV1500Cyg, "ESO").size(), 2u);

    // Another run's discovery: nothing new.
    runtime::StepContext later = context_;
    later.execution_arn = kLaterExecution;
    const DeduplicateAndAssignDatasetIdsOutput again =
        steps.DeduplicateAndAssignDatasetIds(item, later);
    EXPECT_EQ(again.new_dataset_ids, std::vector<std::string>{});
    EXPECT_EQ(again.existing_dataset_ids,
              (std::vector<std::string>{kEsoUrlId, kEsoSizeId}));
    context_.attempt_number = 1;
  }
}

TEST_F(DiscoverSpectraProductsStepsTest, NewDatasetsAreDownloadEligible) {
  steps_.DeduplicateAndAssignDatasetIds(Normalized("ESO", kV1500Cyg), context_);
  steps_.DeduplicateAndAssignDatasetIds(Normalized("MAST", kV1500Cyg),
                                        context_);
  std::vector<std::string> eligible;
  for (const store::Dataset& d : repository_.QueryEligibleDatasets(kV1500Cyg)) {
    EXPECT_EQ(d.eligibility, "DOWNLOAD");
    eligible.push_back(d.provider + " " + d.dataset_id);
  }
  // By dataset_id (GSI1SK ELIG#DOWNLOAD#<dataset_id>).
  EXPECT_EQ(eligible,
            (std::vector<std::string>{std::string("ESO ") + kEsoSizeId,
                                      std::string("ESO ") + kEsoUrlId,
                                      std::string("MAST ") + kMastKeyId,
                                      std::string("MAST ") + kMastUrlId}));
  EXPECT_TRUE(repository_.QueryEligibleDatasets(kGkPer).empty());
}

TEST_F(DiscoverSpectraProductsStepsTest,
       DuplicateRecordIsKeptOnceAndKeyIdentifies) {
  DiscoverAcrossProvidersItem item = Normalized("MAST", kV1500Cyg);
  ASSERT_EQ(item.normalized_products->size(), 3u);  // as listed
  DeduplicateAndAssignDatasetIdsOutput out =
      steps_.DeduplicateAndAssignDatasetIds(item, context_);
  EXPECT_EQ(out.new_dataset_ids,
            (std::vector<std::string>{kMastUrlId, kMastKeyId}));
  EXPECT_EQ(domain::DatasetId(kMastUrlIdentity), kMastUrlId);
  EXPECT_EQ(domain::DatasetId(kMastKeyIdentity), kMastKeyId);
  EXPECT_EQ(out.dataset_identity,
            "provider=MAST|products=2|sha256="
            "b9b4faf4f70db5a54d11601ffd43bf2d08399c79eae97afbf6b6f445690d6231");
  EXPECT_EQ(StoredIds(kV1500Cyg, "MAST"),
            (std::vector<std::string>{kMastKeyId, kMastUrlId}));
}

TEST_F(DiscoverSpectraProductsStepsTest, RepublishedMetadataUpdatesLocators) {
  json product = {{"provider", "ESO"},
                  {"product_timestamp", "2016-05-31T08:12:33Z"},
                  {"url", "https://example.org/p.fits"},
                  {"size_bytes", 1000}};
  DiscoverAcrossProvidersItem item = Item("ESO", kV1500Cyg);
  item.normalized_products = std::vector<json>{product};
  DeduplicateAndAssignDatasetIdsOutput first =
      steps_.DeduplicateAndAssignDatasetIds(item, context_);
  ASSERT_EQ(first.new_dataset_ids->size(), 1u);
  const std::string id = first.new_dataset_ids->front();

  // Same identity (url), new size and an instrument.
  product["size_bytes"] = 2000;
  product["instrument"] = "UVES";
  item.normalized_products = std::vector<json>{product};
  context_.execution_arn = kLaterExecution;  // a later discovery
  context_.now = kNow + 60;
  DeduplicateAndAssignDatasetIdsOutput second =
      steps_.DeduplicateAndAssignDatasetIds(item, context_);
  EXPECT_EQ(second.new_dataset_ids, std::vector<std::string>{});
  EXPECT_EQ(second.existing_dataset_ids, std::vector<std::string>{id});
  std::optional<store::Dataset> stored = repository_.GetDataset(
      {kV1500Cyg, store::DatasetType::kSpectra, "ESO", id});
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->locators,
            (json{{"product_timestamp", "2016-05-31T08:12:33Z"},
                  {"url", "https://example.org/p.fits"},
                  {"size_bytes", 2000}}));
  EXPECT_EQ(stored->hints, (json{{"instrument", "UVES"}}));
  EXPECT_EQ(stored->created_at, "2026-11-25T13:45:00Z");
  EXPECT_EQ(stored->updated_at, "2026-11-25T13:46:00Z");
  EXPECT_EQ(stored->eligibility, "DOWNLOAD");
}

TEST_F(DiscoverSpectraProductsStepsTest,
       AmbiguousIdentityQuarantinesAndWritesNothing) {
  DiscoverAcrossProvidersItem item = Normalized("MAST", kGkPer);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.DeduplicateAndAssignDatasetIds(item, context_); },
      "ambiguous_product_identity: ambiguous product identity: "
      "normalized_products[1] (MAST at 1979-05-08T12:00:00Z) has none of url, "
      "size, provider_key"));
  EXPECT_TRUE(StoredIds(kGkPer, "MAST").empty());
}

TEST_F(DiscoverSpectraProductsStepsTest,
       SharedIdentityWithOtherMembersQuarantines) {
  json a = {{"provider", "ESO"},
            {"product_timestamp", "2016-05-31T08:12:33Z"},
            {"url", "https://example.org/p.fits"},
            {"size_bytes", 1000}};
  json b = a;
  b["size_bytes"] = 2000;
  DiscoverAcrossProvidersItem item = Item("ESO", kV1500Cyg);
  item.normalized_products = std::vector<json>{a, b};
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.DeduplicateAndAssignDatasetIds(item, context_); },
      "ambiguous_product_identity: ambiguous product identity: "
      "normalized_products[0] and normalized_products[1] share "
      "dataset_identity \"provider=ESO|product_timestamp=2016-05-31T08:12:33Z|"
      "url=https://example.org/p.fits\" but differ in size_bytes (1000 vs "
      "2000)"));
}

TEST_F(DiscoverSpectraProductsStepsTest,
       StoredDatasetWithAnotherIdentityIsTerminal) {
  store::Dataset other;
  other.nova_id = kV1500Cyg;
  other.provider = "ESO";
  other.dataset_id = kEsoUrlId;
  other.provider_identity = "provider=ESO|something else";
  other.locators = json::object();
  other.created_at = other.updated_at = "2026-01-01T00:00:00Z";
  ASSERT_EQ(repository_.CreateDataset(other), store::CreateResult::kCreated);
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] {
        steps_.DeduplicateAndAssignDatasetIds(Normalized("ESO", kV1500Cyg),
                                              context_);
      },
      "DeduplicateAndAssignDatasetIds: dataset "
      "475cb1a5-dbc4-5b30-b5e2-fabfd76e9d50 is stored with identity "
      "\"provider=ESO|something else\", not \"" +
          kEsoUrlIdentity + "\""));
}

TEST_F(DiscoverSpectraProductsStepsTest, ProductOfAnotherProviderIsTerminal) {
  DiscoverAcrossProvidersItem item = Item("MAST", kV1500Cyg);
  item.normalized_products =
      std::vector<json>{json{{"provider", "ESO"},
                             {"product_timestamp", "2016-05-31T08:12:33Z"},
                             {"provider_key", "x"}}};
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.DeduplicateAndAssignDatasetIds(item, context_); },
      "DeduplicateAndAssignDatasetIds: normalized_products[0] is a product "
      "of ESO, not of MAST"));
}

TEST_F(DiscoverSpectraProductsStepsTest,
       ItemIdentityOfNoProductsNamesTheProvider) {
  DiscoverAcrossProvidersItem item = Item("MAST", kGkPer);
  item.normalized_products = std::vector<json>{};
  DeduplicateAndAssignDatasetIdsOutput out =
      steps_.DeduplicateAndAssignDatasetIds(item, context_);
  EXPECT_EQ(out.dataset_identity, "provider=MAST|products=0");
  EXPECT_EQ(out.new_dataset_ids, std::vector<std::string>{});
  EXPECT_EQ(out.existing_dataset_ids, std::vector<std::string>{});
  // Order-independent for several products.
  EXPECT_EQ(ItemDatasetIdentity("ESO", {kEsoSizeIdentity, kEsoUrlIdentity}),
            ItemDatasetIdentity("ESO", {kEsoUrlIdentity, kEsoSizeIdentity}));
}

// --- SummarizeDiscovery -----------------------------------------------------

TEST_F(DiscoverSpectraProductsStepsTest,
       SummaryCountsWithOneQuarantinedProvider) {
  DiscoverSpectraProductsState state;
  state.nova_id = kGkPer;
  // The default provider list, as when the input names none.
  state.providers = domain::ResolveProviders(std::nullopt);
  // The fixture ESO throttles GK PER's first two queries.
  for (int call = 1; call <= 2; ++call) {
    EXPECT_THROW(steps_.QueryProviderForProducts(Item("ESO", kGkPer), context_),
                 runtime::RetryableError);
  }
  std::vector<json> results;
  for (const std::string& provider : *state.providers) {
    results.push_back(RunItem(provider, kGkPer));
  }
  EXPECT_EQ(results[1]["quarantine_reason"],
            "ambiguous_product_identity: ambiguous product identity: "
            "normalized_products[1] (MAST at 1979-05-08T12:00:00Z) has none "
            "of url, size, provider_key");
  state.provider_results = results;

  SummarizeDiscoveryOutput out = steps_.SummarizeDiscovery(state, context_);
  EXPECT_EQ(out.dataset_ids, (std::vector<std::string>{kEsoGkPerId}));
  EXPECT_EQ(out.dataset_count_new, 1);
  EXPECT_EQ(out.dataset_count_existing, 0);
  EXPECT_EQ(out.quarantined_count, 1);
  EXPECT_EQ(out.provider_summaries,
            (std::vector<json>{{{"provider", "ESO"},
                                {"dataset_count_new", 1},
                                {"dataset_count_existing", 0},
                                {"quarantined", false}},
                               {{"provider", "MAST"},
                                {"dataset_count_new", 0},
                                {"dataset_count_existing", 0},
                                {"quarantined", true}}}));
  EXPECT_EQ(out.provider_failures,
            (std::vector<json>{
                {{"provider", "MAST"},
                 {"error_classification", "QUARANTINE"},
                 {"quarantine_reason",
                  "ambiguous_product_identity: ambiguous product identity: "
                  "normalized_products[1] (MAST at 1979-05-08T12:00:00Z) has "
                  "none of url, size, provider_key"}}}));
  // What SpectraProductsDiscovered publishes from it is a valid event.
  json event = {{"nova_id", kV1500Cyg},
                {"correlation_id", kCorrelationId},
                {"dataset_ids", *out.dataset_ids},
                {"provider_summaries", *out.provider_summaries}};
  std::optional<runtime::ValidationErrors> errors =
      ValidateEvent("SpectraProductsDiscovered", event);
  ASSERT_TRUE(errors);
  EXPECT_TRUE(errors->empty());

  // The rediscovery (a later run): the same datasets, all existing.
  context_.execution_arn = kLaterExecution;
  results.clear();
  for (const std::string& provider : *state.providers) {
    results.push_back(RunItem(provider, kGkPer));
  }
  state.provider_results = results;
  out = steps_.SummarizeDiscovery(state, context_);
  EXPECT_EQ(out.dataset_ids, (std::vector<std::string>{kEsoGkPerId}));
  EXPECT_EQ(out.dataset_count_new, 0);
  EXPECT_EQ(out.dataset_count_existing, 1);
  EXPECT_EQ(out.quarantined_count, 1);
}

TEST_F(DiscoverSpectraProductsStepsTest,
       SummaryWithoutProviderResultsIsTerminal) {
  DiscoverSpectraProductsState state;
  state.nova_id = kV1500Cyg;
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.SummarizeDiscovery(state, context_); },
      "SummarizeDiscovery: the state has no provider_results (the Map "
      "DiscoverAcrossProviders did not run)"));
}

}  // namespace
}  // namespace steps_test
}  // namespace novacat::discover_spectra_products
