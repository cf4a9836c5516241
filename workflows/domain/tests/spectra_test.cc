#include "novacat/domain/spectra.h"

#include <gtest/gtest.h>

#include "fixture_data.h"
#include "novacat/domain/uuid.h"
#include "test_util.h"

namespace novacat::domain {
namespace spectra_test {
namespace {

using nlohmann::json;
using testing::Fails;
using testing::ProviderRecords;

using testing::kGkPer;
using testing::kV1500;
constexpr char kUnknownNova[] = "00000000-0000-4000-8000-000000000000";

// --- Providers ---------------------------------------------------------------

TEST(ProvidersTest, DefaultListAndResolution) {
  EXPECT_EQ(ResolveProviders(std::nullopt),
            (std::vector<std::string>{"ESO", "MAST"}));
  EXPECT_EQ(ResolveProviders(std::vector<std::string>{"MAST", "ESO"}),
            (std::vector<std::string>{"MAST", "ESO"}));
  for (std::string_view p : kDefaultProviders) EXPECT_TRUE(IsKnownProvider(p));
  EXPECT_FALSE(IsKnownProvider("eso"));
}

TEST(ProvidersTest, InvalidListsAreTerminal) {
  EXPECT_TRUE(Fails(
      ProviderFailure::kEmptyList,
      [] { ResolveProviders(std::vector<std::string>{}); },
      "invalid provider list: providers is empty (omit it to query every "
      "provider)"));
  EXPECT_TRUE(Fails(
      ProviderFailure::kUnknownProvider,
      [] {
        ResolveProviders(std::vector<std::string>{"ESO", "FOO"});
      },
      "invalid provider list: providers[1] \"FOO\" is not a known provider "
      "(known: ESO, MAST)"));
  EXPECT_TRUE(Fails(
      ProviderFailure::kUnknownProvider,
      [] { ResolveProviders(std::vector<std::string>{"eso"}); },
      "invalid provider list: providers[0] \"eso\" is not a known provider "
      "(known: ESO, MAST)"));
  EXPECT_TRUE(Fails(
      ProviderFailure::kDuplicateProvider,
      [] {
        ResolveProviders(std::vector<std::string>{"ESO", "MAST", "ESO"});
      },
      "invalid provider list: providers[2] \"ESO\" is listed twice"));
}

TEST(ProvidersTest, EveryProviderHasARecordSchemaAndAFixture) {
  for (std::string_view p : kDefaultProviders) {
    EXPECT_NO_THROW(NormalizeProviderRecords(p, {})) << p;
    EXPECT_NO_THROW(ProviderRecords(p, kUnknownNova)) << p;
  }
}

// --- Normalization -----------------------------------------------------------

NormalizedProduct Product(std::string provider, std::string timestamp,
                          std::optional<std::string> url,
                          std::optional<int64_t> size,
                          std::optional<std::string> key,
                          std::optional<std::string> instrument,
                          std::optional<std::string> sha256 = std::nullopt) {
  return {std::move(provider), std::move(timestamp),  std::move(url),   size,
          std::move(key),      std::move(instrument), std::move(sha256)};
}

TEST(NormalizeProviderRecordsTest, EsoFixtureRecords) {
  // t_min 57539.34205389 is 08:12:33.456; access_estsize is in kbyte.
  EXPECT_EQ(
      NormalizeProviderRecords("ESO", ProviderRecords("ESO", kV1500)),
      (std::vector<NormalizedProduct>{
          Product("ESO", "2016-05-31T08:12:33Z",
                  "https://dataportal.eso.org/dataPortal/file/"
                  "ADP.2016-06-02T10:01:19.436",
                  2304000, "ADP.2016-06-02T10:01:19.436", "UVES",
                  "4b7fe8265f3955c980b0e48b5af9b7a72bf5566c97072083a5762f064"
                  "a619fd3"),
          Product("ESO", "2016-05-31T06:45:10Z", std::nullopt, 2305000,
                  "ADP.2016-06-02T10:01:19.512", "UVES")}));
}

TEST(NormalizeProviderRecordsTest, MastFixtureRecordsFromMjd) {
  std::vector<NormalizedProduct> products =
      NormalizeProviderRecords("MAST", ProviderRecords("MAST", kV1500));
  NormalizedProduct swp =
      Product("MAST", "1978-05-03T13:03:31Z",
              "https://mast.stsci.edu/api/v0.1/Download/"
              "file?uri=mast:IUE/url/pub/iue/data/swp/01000/swp01744.mxlo.gz",
              27648, "swp01744", "SWP", std::string(64, '0'));
  EXPECT_EQ(products, (std::vector<NormalizedProduct>{
                          swp, swp,
                          Product("MAST", "1978-05-03T14:24:00Z", std::nullopt,
                                  std::nullopt, "lwr01642", "LWR")}));
}

std::string EsoTimestamp(const json& t_min) {
  return NormalizeProviderRecords("ESO", {json{{"t_min", t_min}}})
      .front()
      .product_timestamp;
}

TEST(NormalizeProviderRecordsTest, EsoTimestampsAreMjd) {
  EXPECT_EQ(EsoTimestamp(57539.34205389), "2016-05-31T08:12:33Z");
  // 57539.28136574 d is 06:45:09.99996 s: to the millisecond, 06:45:10.
  EXPECT_EQ(EsoTimestamp(57539.28136574), "2016-05-31T06:45:10Z");
  for (const json& bad : {json("2016-03-01T05:12:33"), json(-3.5)}) {
    EXPECT_TRUE(Fails(
        ProductFailure::kMalformedRecord, [&] { EsoTimestamp(bad); },
        "malformed ESO record products[0]: t_min must be an MJD number in "
        "(0, 100000), got " +
            bad.dump()))
        << bad.dump();
  }
}

std::string MastTimestamp(const json& t_min) {
  return NormalizeProviderRecords("MAST", {json{{"t_min", t_min}}})
      .front()
      .product_timestamp;
}

TEST(NormalizeProviderRecordsTest, MjdTimestamps) {
  EXPECT_EQ(MastTimestamp(40587), "1970-01-01T00:00:00Z");
  EXPECT_EQ(MastTimestamp(51544.5), "2000-01-01T12:00:00Z");
  // 43631.6 * 86400 is 263053440 s after rounding to the millisecond; a
  // plain truncation of the binary value would give ...39 s.
  EXPECT_EQ(MastTimestamp(43631.6), "1978-05-03T14:24:00Z");
  EXPECT_EQ(MastTimestamp(0.5), "1858-11-17T12:00:00Z");
  for (const json& bad :
       {json(0), json(-1), json(100000), json("57000"), json(true)}) {
    EXPECT_TRUE(Fails(
        ProductFailure::kMalformedRecord, [&] { MastTimestamp(bad); },
        "malformed MAST record products[0]: t_min must be an MJD number in "
        "(0, 100000), got " +
            bad.dump()))
        << bad.dump();
  }
}

TEST(NormalizeProviderRecordsTest, MalformedMembersNameRecordAndMember) {
  struct Case {
    json record;
    std::string message;
  };
  const json ok = 57539.34205389;
  for (const Case& c : std::vector<Case>{
           {json::array(), "products[0]: must be an object, got array"},
           {json("ADP.1"), "products[0]: must be an object, got string"},
           {{{"dp_id", "ADP.1"}}, "products[0]: t_min is missing"},
           {{{"dp_id", "ADP.1"}, {"t_min", nullptr}},
            "products[0]: t_min is missing"},
           {{{"t_min", ok}, {"access_url", "ftp:/x"}},
            "products[0]: access_url must be an http(s) or ftp URL without "
            "spaces, got \"ftp:/x\""},
           {{{"t_min", ok}, {"access_url", "https://exa mple.org/a"}},
            "products[0]: access_url must be an http(s) or ftp URL without "
            "spaces, got \"https://exa mple.org/a\""},
           {{{"t_min", ok}, {"access_url", "file:///etc/passwd"}},
            "products[0]: access_url must be an http(s) or ftp URL without "
            "spaces, got \"file:///etc/passwd\""},
           {{{"t_min", ok}, {"access_url", "https:///a"}},
            "products[0]: access_url must be an http(s) or ftp URL without "
            "spaces, got \"https:///a\""},
           {{{"t_min", ok}, {"access_url", 5}},
            "products[0]: access_url must be a non-empty string, got 5"},
           {{{"t_min", ok}, {"access_estsize", 0}},
            "products[0]: access_estsize must be a positive integer (kbyte), "
            "got 0"},
           {{{"t_min", ok}, {"access_estsize", 1.5}},
            "products[0]: access_estsize must be a positive integer (kbyte), "
            "got 1.5"},
           {{{"t_min", ok}, {"access_estsize", "12"}},
            "products[0]: access_estsize must be a positive integer (kbyte), "
            "got \"12\""},
           {{{"t_min", ok}, {"access_estsize", 9223372036854776}},
            "products[0]: access_estsize must be a positive integer (kbyte), "
            "got 9223372036854776"},
           {{{"t_min", ok}, {"dp_id", -1}},
            "products[0]: dp_id must be a non-empty string, got -1"},
           {{{"t_min", ok}, {"dp_id", ""}},
            "products[0]: dp_id must be a non-empty string, got \"\""},
           {{{"t_min", ok}, {"COLLECTION", 5}},
            "products[0]: COLLECTION must be a non-empty string, got 5"},
       }) {
    EXPECT_TRUE(Fails(
        ProductFailure::kMalformedRecord,
        [&] { NormalizeProviderRecords("ESO", {c.record}); },
        "malformed ESO record " + c.message))
        << c.message;
  }
  EXPECT_TRUE(Fails(
      ProductFailure::kMalformedRecord,
      [&] {
        NormalizeProviderRecords("MAST", {json{{"t_min", ok}, {"size", 0}}});
      },
      "malformed MAST record products[0]: size must be a positive integer "
      "(bytes), got 0"));
  // The index is the record's.
  EXPECT_TRUE(Fails(
      ProductFailure::kMalformedRecord,
      [&] {
        NormalizeProviderRecords(
            "ESO",
            {json{{"t_min", ok}}, json{{"t_min", ok}}, json{{"dp_id", "x"}}});
      },
      "malformed ESO record products[2]: t_min is missing"));
}

TEST(NormalizeProviderRecordsTest, AcceptedVariantsOfMembers) {
  json record = {
      {"t_min", 57448.21705},  {"access_url", "ftp://ftp.eso.org/x.fits"},
      {"dp_id", 42},           {"access_estsize", nullptr},
      {"COLLECTION", nullptr}, {"CREATORDID", "ivo://eso.org/origfile?x.fits"},
      {"unrelated", {1, 2}}};
  EXPECT_EQ(NormalizeProviderRecords("ESO", {record}),
            (std::vector<NormalizedProduct>{Product(
                "ESO", "2016-03-01T05:12:33Z", "ftp://ftp.eso.org/x.fits",
                std::nullopt, "42", std::nullopt)}));
}

TEST(NormalizeProviderRecordsTest, UnknownSchemaVariant) {
  EXPECT_TRUE(Fails(
      ProductFailure::kUnknownSchemaVariant,
      [] {
        NormalizeProviderRecords(
            "ESO", {json{{"obsdate", "2016-03-01"}, {"link", "https://x/y"}}});
      },
      "unknown schema variant in ESO record products[0]: none of t_min, "
      "access_url, access_estsize, dp_id, COLLECTION is present (members: "
      "link, obsdate)"));
  EXPECT_TRUE(Fails(
      ProductFailure::kUnknownSchemaVariant,
      [] { NormalizeProviderRecords("MAST", {json::object()}); },
      "unknown schema variant in MAST record products[0]: none of t_min, "
      "dataURL, size, obs_id, instrument_name is present (members: none)"));
}

TEST(NormalizeProviderRecordsTest, UnknownProviderIsTerminal) {
  EXPECT_TRUE(Fails(
      ProviderFailure::kNoRecordSchema,
      [] { NormalizeProviderRecords("FOO", {}); },
      "no record schema for provider \"FOO\" (known: ESO, MAST)"));
}

// --- The internal shape ------------------------------------------------------

TEST(NormalizedProductTest, ToJsonOmitsAbsentMembersAndRoundTrips) {
  NormalizedProduct full = Product("ESO", "2016-05-31T08:12:33Z", "https://x/a",
                                   2359296, "ADP.1", "UVES");
  EXPECT_EQ(full.ToJson(), (json{{"provider", "ESO"},
                                 {"product_timestamp", "2016-05-31T08:12:33Z"},
                                 {"url", "https://x/a"},
                                 {"size_bytes", 2359296},
                                 {"provider_key", "ADP.1"},
                                 {"instrument", "UVES"}}));
  NormalizedProduct bare = Product("MAST", "1979-05-08T12:00:00Z", std::nullopt,
                                   std::nullopt, std::nullopt, std::nullopt);
  EXPECT_EQ(bare.ToJson(),
            (json{{"provider", "MAST"},
                  {"product_timestamp", "1979-05-08T12:00:00Z"}}));
  EXPECT_EQ(NormalizedProduct::FromJson(full.ToJson(), "p"), full);
  EXPECT_EQ(NormalizedProduct::FromJson(bare.ToJson(), "p"), bare);
}

TEST(NormalizedProductTest, FromJsonRejectsWhatWeNeverWrite) {
  const std::string p = "normalized_products[0]";
  struct Case {
    json doc;
    std::string message;
  };
  json base = {{"provider", "ESO"},
               {"product_timestamp", "2016-05-31T08:12:33Z"}};
  auto with = [&](const char* key, json value) {
    json d = base;
    d[key] = std::move(value);
    return d;
  };
  json no_provider = base;
  no_provider.erase("provider");
  for (const Case& c : std::vector<Case>{
           {json::array(), ": must be an object, got array"},
           {with("size", 1), ".size: unknown member"},
           {no_provider, ".provider: is missing"},
           {with("product_timestamp", "2016-05-31"),
            ".product_timestamp: must be an RFC 3339 date-time, got "
            "\"2016-05-31\""},
           {with("size_bytes", 0),
            ".size_bytes: must be a positive integer, "
            "got 0"},
           {with("url", ""), ".url: must be a non-empty string, got \"\""},
       }) {
    EXPECT_TRUE(Fails(
        ProductFailure::kInvalidNormalizedProduct,
        [&] { NormalizedProduct::FromJson(c.doc, p); },
        "invalid normalized product " + p + c.message))
        << c.message;
  }
}

// --- Identity ----------------------------------------------------------------

TEST(DatasetIdentityTest, FallsBackFromUrlToSizeToProviderKey) {
  NormalizedProduct p = Product("MAST", "1978-05-03T13:03:31Z", "https://x/a|b",
                                27648, "swp01744", std::nullopt);
  EXPECT_EQ(DatasetIdentity(p),
            "provider=MAST|product_timestamp=1978-05-03T13:03:31Z|url=https://"
            "x/a|b");
  p.url.reset();
  EXPECT_EQ(DatasetIdentity(p),
            "provider=MAST|product_timestamp=1978-05-03T13:03:31Z|size=27648");
  p.size_bytes.reset();
  EXPECT_EQ(DatasetIdentity(p),
            "provider=MAST|product_timestamp=1978-05-03T13:03:31Z|provider_key="
            "swp01744");
  p.provider_key.reset();
  EXPECT_TRUE(Fails(
      ProductFailure::kAmbiguousIdentity,
      [&] { DatasetIdentity(p, "normalized_products[3]"); },
      "ambiguous product identity: normalized_products[3] (MAST at "
      "1978-05-03T13:03:31Z) has none of url, size, provider_key"));
}

TEST(DatasetIdentityTest, IdAndDedupeKey) {
  const std::string identity =
      "provider=ESO|product_timestamp=2016-05-31T08:12:33Z|url=https://"
      "dataportal.eso.org/dataportal_new/file/ADP.2016-06-02T10:01:19.436";
  // Python: uuid.uuid5(UUID(kDatasetIdNamespace), identity).
  EXPECT_EQ(DatasetId(identity), "4578f250-980c-595f-8853-fb9b6f646be2");
  EXPECT_TRUE(IsUuidV5(DatasetId(identity)));
  EXPECT_EQ(DatasetId(identity), DatasetId(std::string(identity)));
  EXPECT_NE(DatasetId(identity), DatasetId(identity + "x"));
  EXPECT_EQ(DatasetDedupeKey(identity, 1),
            "DatasetIdentity:" + identity + ":1");
}

TEST(AssignDatasetIdentitiesTest, OverTheFixturesIsStableAcrossRuns) {
  auto run = [] {
    std::vector<IdentifiedProduct> all;
    for (const char* p : {"ESO", "MAST"}) {
      auto ids = AssignDatasetIdentities(
          NormalizeProviderRecords(p, ProviderRecords(p, kV1500)), 1);
      all.insert(all.end(), ids.begin(), ids.end());
    }
    return all;
  };
  std::vector<IdentifiedProduct> first = run();
  ASSERT_EQ(first.size(), 4u);  // the duplicated MAST record is kept once
  std::vector<std::string> ids;
  for (const IdentifiedProduct& p : first) {
    ids.push_back(p.dataset_id);
    EXPECT_TRUE(IsUuidV5(p.dataset_id)) << p.dataset_id;
    EXPECT_EQ(p.dedupe_key, "DatasetIdentity:" + p.dataset_identity + ":1");
  }
  // Expected ids from Python's uuid5 over the identities.
  EXPECT_EQ(ids,
            (std::vector<std::string>{"475cb1a5-dbc4-5b30-b5e2-fabfd76e9d50",
                                      "326baf4c-1981-5d3e-a9c2-55908a6c93b6",
                                      "972ca194-26e0-5628-91be-4579aac67555",
                                      "4c57e29f-5629-5537-8ca0-f5ef62b5c2c0"}));
  EXPECT_EQ(first[1].dataset_identity,
            "provider=ESO|product_timestamp=2016-05-31T06:45:10Z|size=2305000");
  EXPECT_EQ(first[3].dataset_identity,
            "provider=MAST|product_timestamp=1978-05-03T14:24:00Z|"
            "provider_key=lwr01642");
  EXPECT_EQ(run(), first);
}

TEST(AssignDatasetIdentitiesTest, AmbiguousIdentitiesAreQuarantined) {
  std::vector<NormalizedProduct> gk =
      NormalizeProviderRecords("MAST", ProviderRecords("MAST", kGkPer));
  EXPECT_TRUE(Fails(
      ProductFailure::kAmbiguousIdentity,
      [&] { AssignDatasetIdentities(gk, 1); },
      "ambiguous product identity: normalized_products[1] (MAST at "
      "1979-05-08T12:00:00Z) has none of url, size, provider_key"));

  NormalizedProduct a = Product("ESO", "2016-05-31T08:12:33Z", "https://x/a",
                                1000, std::nullopt, std::nullopt);
  NormalizedProduct b = a;
  b.size_bytes = 2000;
  EXPECT_TRUE(Fails(
      ProductFailure::kAmbiguousIdentity,
      [&] {
        AssignDatasetIdentities({a, a, b}, 1);
      },
      "ambiguous product identity: normalized_products[0] and "
      "normalized_products[2] share dataset_identity "
      "\"provider=ESO|product_timestamp=2016-05-31T08:12:33Z|url=https://x/"
      "a\" but differ in size_bytes (1000 vs 2000)"));
  NormalizedProduct c = a;
  c.instrument = "UVES";
  EXPECT_TRUE(Fails(
      ProductFailure::kAmbiguousIdentity,
      [&] {
        AssignDatasetIdentities({a, c}, 1);
      },
      "ambiguous product identity: normalized_products[0] and "
      "normalized_products[1] share dataset_identity "
      "\"provider=ESO|product_timestamp=2016-05-31T08:12:33Z|url=https://x/"
      "a\" but differ in instrument (absent vs \"UVES\")"));
}

// --- Summary -----------------------------------------------------------------

TEST(SummarizeDiscoveryTest, CountsPerProviderAndOverall) {
  const std::string a = "4578f250-980c-595f-8853-fb9b6f646be2";
  const std::string b = "830096df-1ce3-56ed-b51d-030b8f268e0e";
  const std::string c = "8b1bef8f-c705-5c31-b9b7-7da92d50172e";
  std::vector<json> results = {
      {{"provider", "ESO"},
       {"new_dataset_ids", json::array({a, b})},
       {"existing_dataset_ids", json::array()},
       {"nova_id", kV1500}},
      {{"provider", "MAST"},
       {"new_dataset_ids", json::array({c})},
       {"existing_dataset_ids", json::array({a})}},
  };
  results[1]["quarantined"] = true;  // after recording its ids
  results[1]["error"] = {{"Error", "QuarantineError"}};
  results[1]["error_classification"] = "QUARANTINE";
  results[1]["quarantine_reason"] = "malformed_provider_records: no table";
  DiscoverySummary s = SummarizeDiscovery(results);
  EXPECT_EQ(s.dataset_ids, (std::vector<std::string>{a, b, c}));
  EXPECT_EQ(s.dataset_count_new, 3);
  EXPECT_EQ(s.dataset_count_existing, 1);
  EXPECT_EQ(s.quarantined_count, 1);
  EXPECT_EQ(s.provider_summaries,
            (std::vector<ProviderSummary>{{"ESO", 2, 0, false},
                                          {"MAST", 1, 1, true}}));
  EXPECT_EQ(s.provider_summaries[1].ToJson(),
            (json{{"provider", "MAST"},
                  {"dataset_count_new", 1},
                  {"dataset_count_existing", 1},
                  {"quarantined", true}}));
  ASSERT_EQ(
      s.provider_failures,
      (std::vector<QuarantinedProvider>{
          {"MAST", "QUARANTINE", "malformed_provider_records: no table"}}));
  EXPECT_EQ(
      s.provider_failures[0].ToJson(),
      (json{{"provider", "MAST"},
            {"error_classification", "QUARANTINE"},
            {"quarantine_reason", "malformed_provider_records: no table"}}));
  EXPECT_EQ(SummarizeDiscovery({}), DiscoverySummary{});
}

TEST(SummarizeDiscoveryTest, FailuresFollowProviderOrder) {
  auto quarantined = [](const std::string& provider,
                        const std::string& reason) {
    return json{{"provider", provider},
                {"quarantined", true},
                {"error_classification", "QUARANTINE"},
                {"quarantine_reason", reason}};
  };
  DiscoverySummary s =
      SummarizeDiscovery({quarantined("MAST", "m"), json{{"provider", "ESO"}},
                          json{{"provider", "IUE"}, {"quarantined", false}},
                          quarantined("ESO", "e")});
  EXPECT_EQ(s.provider_failures,
            (std::vector<QuarantinedProvider>{{"MAST", "QUARANTINE", "m"},
                                              {"ESO", "QUARANTINE", "e"}}));
  EXPECT_EQ(SummarizeDiscovery({json{{"provider", "ESO"}}}).provider_failures,
            std::vector<QuarantinedProvider>{});
}

TEST(SummarizeDiscoveryTest, BrokenResultsAreTerminal) {
  EXPECT_TRUE(Fails(
      ProductFailure::kInvalidProviderResult,
      [] {
        SummarizeDiscovery({json{{"provider", "ESO"}}, json("x")});
      },
      "invalid provider result provider_results[1]: must be an object, got "
      "string"));
  EXPECT_TRUE(Fails(
      ProductFailure::kInvalidProviderResult,
      [] {
        SummarizeDiscovery({json{{"new_dataset_ids", json::array()}}});
      },
      "invalid provider result provider_results[0].provider: must be a "
      "non-empty string"));
  EXPECT_TRUE(Fails(
      ProductFailure::kInvalidProviderResult,
      [] {
        SummarizeDiscovery({json{
            {"provider", "ESO"},
            {"new_dataset_ids",
             json::array({"4578f250-980c-595f-8853-fb9b6f646be2", "x"})}}});
      },
      "invalid provider result provider_results[0].new_dataset_ids[1]: must "
      "be a UUID, got \"x\""));
  EXPECT_TRUE(Fails(
      ProductFailure::kInvalidProviderResult,
      [] {
        SummarizeDiscovery({json{{"provider", "ESO"}, {"quarantined", "yes"}}});
      },
      "invalid provider result provider_results[0].quarantined: must be true "
      "or false, got \"yes\""));
  EXPECT_TRUE(Fails(
      ProductFailure::kInvalidProviderResult,
      [] {
        SummarizeDiscovery({json{{"provider", "ESO"},
                                 {"quarantined", true},
                                 {"error_classification", "QUARANTINE"}}});
      },
      "invalid provider result provider_results[0].quarantine_reason: must "
      "be a non-empty string (the provider is quarantined)"));
  EXPECT_TRUE(Fails(
      ProductFailure::kInvalidProviderResult,
      [] {
        SummarizeDiscovery({json{{"provider", "ESO"},
                                 {"quarantined", true},
                                 {"error_classification", ""},
                                 {"quarantine_reason", "r"}}});
      },
      "invalid provider result provider_results[0].error_classification: "
      "must be a non-empty string (the provider is quarantined)"));
}

}  // namespace
}  // namespace spectra_test
}  // namespace novacat::domain
