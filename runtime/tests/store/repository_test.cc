// The access-pattern repository on every test backend: one test (at least)
// per access pattern with the exact items and keys, then 16-thread races on
// every create-once write and on the lease.
#include "novacat/store/repository.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "backends.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/json_reader.h"
#include "novacat/runtime/testing/throws.h"
#include "novacat/store/table_record_store.h"
#include "race.h"
#include "store_test_util.h"

namespace novacat::store {
namespace repository_test {
namespace {

using runtime::TerminalError;
using testing::Backend;
using S = LeaseResult::Status;

// The tests' own great-circle separation (haversine), an oracle for
// NovaeNear independent of the step logic's (domain::AngularSeparationArcsec,
// Vincenty): the store returns candidates, the workflows measure them.
double HaversineArcsec(double ra1_deg, double dec1_deg, double ra2_deg,
                       double dec2_deg) {
  constexpr double kRad = 3.14159265358979323846 / 180;
  double s_dec = std::sin((dec2_deg - dec1_deg) * kRad / 2);
  double s_ra = std::sin((ra2_deg - ra1_deg) * kRad / 2);
  double h = s_dec * s_dec + std::cos(dec1_deg * kRad) *
                                 std::cos(dec2_deg * kRad) * s_ra * s_ra;
  return 2 * std::asin(std::sqrt(std::clamp(h, 0.0, 1.0))) / kRad * 3600;
}

using namespace testing::ids;

constexpr const char* kNova3 = "0b4c5a38-5d0a-4d4f-9e43-2f6f0e3b8a11";
constexpr const char* kDs2 = "22222222-2222-4222-8222-222222222222";
constexpr const char* kDs3 = "33333333-3333-4333-8333-333333333333";

Nova MakeNova(const char* id, std::string name = "V1500 Cyg", double ra = 315.5,
              double dec = 47.75) {
  Nova nova;
  nova.nova_id = id;
  nova.primary_name = name;
  nova.normalized_name = "v1500 cyg";
  nova.ra_deg = ra;
  nova.dec_deg = dec;
  nova.epoch = "J2000";
  nova.status = "ACTIVE";
  nova.created_at = kT0;
  return nova;
}

Alias MakeAlias(const char* nova_id, std::string normalized = "nova cyg 1975",
                std::string name = "Nova Cyg 1975") {
  return {std::move(normalized), nova_id, std::move(name), kT0};
}

Dataset MakeDataset(const char* nova_id, const char* dataset_id,
                    std::string provider = "ESO",
                    DatasetType type = DatasetType::kSpectra) {
  Dataset d;
  d.nova_id = nova_id;
  d.type = type;
  d.provider = std::move(provider);
  d.dataset_id = dataset_id;
  d.provider_identity = d.provider + "|2026-01-01T00:00:00Z|" + dataset_id;
  d.locators = {{"url", std::string("https://archive.example/") + dataset_id}};
  d.created_at = kT0;
  d.updated_at = kT0;
  return d;
}

std::string NovaPk(const char* id) { return std::string("NOVA#") + id; }
std::string DatasetSk(const char* id, const char* provider = "ESO") {
  return std::string("DATASET#SPECTRA#") + provider + "#" + id;
}

class RepositoryTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    table_ = GetParam().make();
    repo_ = std::make_unique<Repository>(*table_);
  }
  Table& table() { return *table_; }
  Repository& repo() { return *repo_; }
  std::optional<Item> Get(const std::string& pk, const std::string& sk) {
    return table_->GetItem({pk, sk});
  }
  std::vector<Item> Partition(const std::string& pk,
                              Index index = Index::kTable) {
    QueryRequest request;
    request.index = index;
    request.partition_key = pk;
    return table_->QueryAll(request);
  }

  std::unique_ptr<Table> table_;
  std::unique_ptr<Repository> repo_;
};

// --- AP-INIT-2 / AP-INGEST-1 ------------------------------------------------

TEST_P(RepositoryTest, CreateNovaWritesTheNovaAndItsPosition) {
  Nova nova = MakeNova(kNova);
  EXPECT_EQ(repo().CreateNova(nova), CreateResult::kCreated);
  EXPECT_EQ(Get(NovaPk(kNova), "META"), (Item{{"PK", NovaPk(kNova)},
                                              {"SK", "META"},
                                              {"entity", "Nova"},
                                              {"nova_id", kNova},
                                              {"primary_name", "V1500 Cyg"},
                                              {"normalized_name", "v1500 cyg"},
                                              {"ra_deg", 315.5},
                                              {"dec_deg", 47.75},
                                              {"epoch", "J2000"},
                                              {"status", "ACTIVE"},
                                              {"created_at", kT0}}));
  EXPECT_EQ(Get("SKY#+47", NovaPk(kNova)), (Item{{"PK", "SKY#+47"},
                                                 {"SK", NovaPk(kNova)},
                                                 {"entity", "NovaPosition"},
                                                 {"nova_id", kNova},
                                                 {"ra_deg", 315.5},
                                                 {"dec_deg", 47.75}}));
  EXPECT_EQ(repo().GetNova(kNova), nova);
  EXPECT_EQ(repo().GetNova(kNova2), std::nullopt);
}

TEST_P(RepositoryTest, CreateNovaIsCreateOnce) {
  ASSERT_EQ(repo().CreateNova(MakeNova(kNova)), CreateResult::kCreated);
  // A retry (same identity, later clock): kAlreadyExists, first created_at
  // kept.
  Nova retry = MakeNova(kNova);
  retry.created_at = kT1;
  EXPECT_EQ(repo().CreateNova(retry), CreateResult::kAlreadyExists);
  // Another nova under the same id: kConflict, nothing written.
  EXPECT_EQ(repo().CreateNova(MakeNova(kNova, "Other")),
            CreateResult::kConflict);
  EXPECT_EQ(repo().CreateNova(MakeNova(kNova, "V1500 Cyg", 315.5, 12.0)),
            CreateResult::kConflict);
  EXPECT_EQ(repo().GetNova(kNova), MakeNova(kNova));
  EXPECT_EQ(Partition("SKY#+12"), std::vector<Item>{});
  EXPECT_EQ(Partition("SKY#+47").size(), 1u);
}

TEST_P(RepositoryTest, CreateNovaRetryCompletesAMissingPosition) {
  // A crash between the two writes left the nova without its position.
  table().PutItem(MakeNova(kNova).ToItem(), std::nullopt);
  EXPECT_EQ(repo().NovaeNear(315.5, 47.75, 1), std::vector<NovaPosition>{});
  EXPECT_EQ(repo().CreateNova(MakeNova(kNova)), CreateResult::kAlreadyExists);
  EXPECT_EQ(repo().NovaeNear(315.5, 47.75, 1),
            (std::vector<NovaPosition>{{kNova, 315.5, 47.75}}));
}

// AP-SWEEP-1: every nova once, sorted by nova_id, from the south pole's
// band to the north pole's; a nova without its position item is not listed.
TEST_P(RepositoryTest, ListNovaeListsEveryNovaOnce) {
  EXPECT_EQ(repo().ListNovae(), std::vector<std::string>{});
  constexpr const char* kNova4 = "ffb2a7e0-5c4d-4e3f-8a1b-2c3d4e5f6a7b";
  ASSERT_EQ(repo().CreateNova(MakeNova(kNova, "a", 315.5, 90)),
            CreateResult::kCreated);
  ASSERT_EQ(repo().CreateNova(MakeNova(kNova2, "b", 0, -90)),
            CreateResult::kCreated);
  ASSERT_EQ(repo().CreateNova(MakeNova(kNova3, "c", 359.9, -0.5)),
            CreateResult::kCreated);
  table().PutItem(MakeNova(kNova4, "d").ToItem(), std::nullopt);
  EXPECT_EQ(repo().ListNovae(),
            (std::vector<std::string>{kNova3, kNova, kNova2}));
}

TEST_P(RepositoryTest, CreateNovaRefusesInvalidArguments) {
  EXPECT_THROW(repo().CreateNova(MakeNova(kNova, "n", 360, 0)), TerminalError);
  EXPECT_THROW(repo().CreateNova(MakeNova(kNova, "n", -1, 0)), TerminalError);
  EXPECT_THROW(repo().CreateNova(MakeNova(kNova, "n", 0, 90.5)), TerminalError);
  EXPECT_THROW(repo().CreateNova(MakeNova("a#b")), TerminalError);
  Nova unnamed = MakeNova(kNova);
  unnamed.normalized_name.clear();
  EXPECT_THROW(repo().CreateNova(unnamed), TerminalError);
  EXPECT_EQ(Partition(NovaPk(kNova)), std::vector<Item>{});
}

TEST_P(RepositoryTest, StoredItemErrorsNameTheKeyAndAttribute) {
  Item bad = MakeNova(kNova).ToItem();
  bad["ra_deg"] = "east";
  bad.erase("status");
  table().PutItem(bad, std::nullopt);
  try {
    repo().GetNova(kNova);
    FAIL() << "no TerminalError";
  } catch (const TerminalError& e) {
    EXPECT_EQ(std::string(e.what()),
              "stored Nova item NOVA#" + std::string(kNova) +
                  " / META is invalid:\n$.ra_deg: must be a number\n"
                  "$.status: is required\n")
        << e.what();
  }
  runtime::Parsed<Dataset> parsed = Dataset::FromItem(Item{{"entity", "Nova"}});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.errors.front().ToString(), "$.entity: must be Dataset");
}

// --- AP-INIT-1 / AP-INIT-3 --------------------------------------------------

// The NameClaim item of "nova cyg 1975" for `nova_id`.
Item ClaimItem(const std::string& nova_id) {
  return {{"PK", "NAME#nova cyg 1975"},
          {"SK", "CLAIM"},
          {"entity", "NameClaim"},
          {"normalized_name", "nova cyg 1975"},
          {"nova_id", nova_id}};
}

TEST_P(RepositoryTest, PutAliasWritesClaimThenAlias) {
  AliasResult r = repo().PutAlias(MakeAlias(kNova));
  EXPECT_EQ(r.status, AliasResult::Status::kCreated);
  EXPECT_EQ(r.other_nova_id, "");
  EXPECT_EQ(Partition("NAME#nova cyg 1975"),
            (std::vector<Item>{ClaimItem(kNova),
                               {{"PK", "NAME#nova cyg 1975"},
                                {"SK", NovaPk(kNova)},
                                {"GSI2PK", "NAME#nova cyg 1975"},
                                {"GSI2SK", NovaPk(kNova)},
                                {"entity", "Alias"},
                                {"normalized_name", "nova cyg 1975"},
                                {"nova_id", kNova},
                                {"name", "Nova Cyg 1975"},
                                {"created_at", kT0}}}));
  // Confirming it again is kAlreadyMapped and writes nothing new.
  Alias again = MakeAlias(kNova);
  again.created_at = kT1;
  EXPECT_EQ(repo().PutAlias(again).status, AliasResult::Status::kAlreadyMapped);
  EXPECT_EQ(Get("NAME#nova cyg 1975", NovaPk(kNova))->at("created_at"), kT0);
  // The claim is not in GSI2: only the alias is.
  EXPECT_EQ(Partition("NAME#nova cyg 1975", Index::kGsi2).size(), 1u);
  EXPECT_EQ(repo().ResolveName("nova cyg 1975"),
            std::vector<std::string>{kNova});
}

TEST_P(RepositoryTest, ResolveNameReturnsEveryCandidate) {
  EXPECT_EQ(repo().ResolveName("nova sco 1437"), std::vector<std::string>{});
  // The same historical name explicitly allowed for two novae: two
  // candidates (the determinism rule: ambiguous, never "the first").
  ASSERT_EQ(repo().PutAlias(MakeAlias(kNova2, "nova sco 1437")).status,
            AliasResult::Status::kCreated);
  ASSERT_EQ(
      repo()
          .PutAlias(MakeAlias(kNova, "nova sco 1437"), AliasPolicy::kAllowMany)
          .status,
      AliasResult::Status::kCreated);
  EXPECT_EQ(repo().ResolveName("nova sco 1437"),
            (std::vector<std::string>{kNova, kNova2}));
  EXPECT_EQ(repo().ResolveName("nova sco 143"), std::vector<std::string>{});
  EXPECT_THROW(repo().ResolveName(""), TerminalError);
}

TEST_P(RepositoryTest, ClaimNameWritesTheClaimAlone) {
  AliasResult r = repo().ClaimName("nova cyg 1975", kNova);
  EXPECT_EQ(r.status, AliasResult::Status::kCreated);
  EXPECT_EQ(r.other_nova_id, "");
  EXPECT_EQ(Partition("NAME#nova cyg 1975"),
            (std::vector<Item>{ClaimItem(kNova)}));
  // Not a mapping yet: ResolveName sees aliases only.
  EXPECT_EQ(repo().ResolveName("nova cyg 1975"), std::vector<std::string>{});
  // Again for the same nova (a retry): the claim holds, nothing new.
  EXPECT_EQ(repo().ClaimName("nova cyg 1975", kNova).status,
            AliasResult::Status::kCreated);
  // For another nova: refused, with the holder; nothing written.
  r = repo().ClaimName("nova cyg 1975", kNova2);
  EXPECT_EQ(r.status, AliasResult::Status::kMappedToOtherNova);
  EXPECT_EQ(r.other_nova_id, kNova);
  EXPECT_EQ(Partition("NAME#nova cyg 1975"),
            (std::vector<Item>{ClaimItem(kNova)}));
}

TEST_P(RepositoryTest, AliasToASecondNovaIsRefusedUnlessAllowed) {
  ASSERT_EQ(repo().PutAlias(MakeAlias(kNova)).status,
            AliasResult::Status::kCreated);
  AliasResult r = repo().PutAlias(MakeAlias(kNova2));
  EXPECT_EQ(r.status, AliasResult::Status::kMappedToOtherNova);
  EXPECT_EQ(r.other_nova_id, kNova);
  EXPECT_EQ(Get("NAME#nova cyg 1975", NovaPk(kNova2)), std::nullopt);
  EXPECT_EQ(repo().ResolveName("nova cyg 1975"),
            std::vector<std::string>{kNova});

  // Explicitly allowed: mapped, and resolution now sees two candidates.
  EXPECT_EQ(repo().PutAlias(MakeAlias(kNova2), AliasPolicy::kAllowMany).status,
            AliasResult::Status::kCreated);
  EXPECT_EQ(repo().ResolveName("nova cyg 1975"),
            (std::vector<std::string>{kNova, kNova2}));
  // The claim stays the first nova's: an exclusive writer for a third nova
  // is still refused, the claimant still confirmed.
  EXPECT_EQ(Get("NAME#nova cyg 1975", "CLAIM")->at("nova_id"), kNova);
  r = repo().PutAlias(MakeAlias(kNova3));
  EXPECT_EQ(r.status, AliasResult::Status::kMappedToOtherNova);
  EXPECT_EQ(r.other_nova_id, kNova);
  EXPECT_EQ(repo().PutAlias(MakeAlias(kNova)).status,
            AliasResult::Status::kAlreadyMapped);
  // Many names to one nova are fine.
  EXPECT_EQ(repo().PutAlias(MakeAlias(kNova, "v1500 cyg", "V1500 Cyg")).status,
            AliasResult::Status::kCreated);
}

TEST_P(RepositoryTest, AClaimWithoutItsAliasIsCompletedByTheRetry) {
  // A crash between the claim and the alias.
  table().PutItem(Item{{"PK", "NAME#nova cyg 1975"},
                       {"SK", "CLAIM"},
                       {"entity", "NameClaim"},
                       {"normalized_name", "nova cyg 1975"},
                       {"nova_id", kNova}},
                  std::nullopt);
  EXPECT_EQ(repo().ResolveName("nova cyg 1975"), std::vector<std::string>{});
  EXPECT_EQ(repo().PutAlias(MakeAlias(kNova2)).status,
            AliasResult::Status::kMappedToOtherNova);
  EXPECT_EQ(repo().PutAlias(MakeAlias(kNova)).status,
            AliasResult::Status::kCreated);
  EXPECT_EQ(repo().ResolveName("nova cyg 1975"),
            std::vector<std::string>{kNova});
}

// --- AP-INIT-4 (ours)
// ---------------------------------------------------------

TEST(SkyBandTest, BandsAndPartitions) {
  EXPECT_EQ(SkyBand(-0.5), -1);
  EXPECT_EQ(SkyBand(0), 0);
  EXPECT_EQ(SkyBand(47.999999), 47);
  EXPECT_EQ(SkyBand(48), 48);
  EXPECT_EQ(SkyBand(90), 89);
  EXPECT_EQ(SkyBand(89.5), 89);
  EXPECT_EQ(SkyBand(-90), -90);
  EXPECT_EQ(SkyBandPartition(-1), "SKY#-01");
  EXPECT_EQ(SkyBandPartition(5), "SKY#+05");
  EXPECT_EQ(SkyBandPartition(0), "SKY#+00");
  EXPECT_EQ(SkyBandPartition(-90), "SKY#-90");
  EXPECT_EQ(SkyBandPartition(89), "SKY#+89");
  EXPECT_EQ(NovaPositionKey(-0.25, "x"), (Key{"SKY#-01", "NOVA#x"}));
}

TEST(SkyBandTest, TheTestsSeparationOracle) {
  EXPECT_NEAR(HaversineArcsec(0, 0, 0, 1), 3600, 1e-6);
  EXPECT_NEAR(HaversineArcsec(10, 0, 350, 0), 72000, 1e-6);
  EXPECT_NEAR(HaversineArcsec(0, 90, 180, 89), 3600, 1e-6);
  EXPECT_NEAR(HaversineArcsec(0, -90, 123, -90), 0, 1e-6);
  EXPECT_NEAR(HaversineArcsec(0, 60, 1, 60), 1800, 0.1);
  EXPECT_NEAR(HaversineArcsec(315.5, 47.75, 315.5, 47.75), 0, 0);
}

TEST_P(RepositoryTest, NovaeNearCrossesBandEdgesRaWrapAndPoles) {
  struct Placed {
    const char* id;
    double ra, dec;
  };
  const Placed placed[] = {
      {"a-below-edge", 10, 47.9999},  // band 47
      {"b-on-edge", 10, 48.0},        // band 48
      {"c-ra-359", 359.9999, 10.0},   // RA wrap
      {"d-north", 0, 89.9999},        // band 89
      {"e-south-pole", 0, -90},       // band -90
      {"f-far", 200, 10.5},           // band 10, far in RA
      {"g-other-band", 10, 46.0},     // band 46
  };
  for (const Placed& p : placed) {
    Nova nova = MakeNova(p.id, p.id, p.ra, p.dec);
    ASSERT_EQ(repo().CreateNova(nova), CreateResult::kCreated) << p.id;
  }
  auto ids = [&](double ra, double dec, double radius) {
    std::vector<std::string> out;
    for (const NovaPosition& p : repo().NovaeNear(ra, dec, radius))
      out.push_back(p.nova_id);
    return out;
  };
  // Across the 48 degree edge, both ways.
  EXPECT_EQ(ids(10, 48.0001, 1),
            (std::vector<std::string>{"a-below-edge", "b-on-edge"}));
  EXPECT_EQ(ids(10, 47.9999995, 0.01),
            (std::vector<std::string>{"a-below-edge", "b-on-edge"}));
  EXPECT_EQ(ids(10, 47.5, 1), std::vector<std::string>{"a-below-edge"});
  // RA wrap: candidates are whole bands, so the other side of 0h is there.
  EXPECT_EQ(ids(0.0001, 10.0, 1),
            (std::vector<std::string>{"c-ra-359", "f-far"}));
  EXPECT_LT(HaversineArcsec(0.0001, 10, 359.9999, 10), 1);
  // The poles: every RA is close there.
  EXPECT_EQ(ids(180, 89.9999, 1), std::vector<std::string>{"d-north"});
  EXPECT_EQ(ids(0, 90, 0.5), std::vector<std::string>{"d-north"});
  EXPECT_EQ(ids(123, -89.99995, 1), std::vector<std::string>{"e-south-pole"});
  // A radius spanning bands: 46, 47, 48.
  EXPECT_EQ(
      ids(10, 47, 3600),
      (std::vector<std::string>{"a-below-edge", "b-on-edge", "g-other-band"}));
  EXPECT_EQ(repo().NovaeNear(10, 48.0001, 1),
            (std::vector<NovaPosition>{{"a-below-edge", 10, 47.9999},
                                       {"b-on-edge", 10, 48.0}}));
  EXPECT_THROW(repo().NovaeNear(10, 91, 1), TerminalError);
  EXPECT_THROW(repo().NovaeNear(10, 0, -1), TerminalError);
}

// No nova within the radius is ever missed: random novae crowded around band
// edges and the poles, random queries, every true neighbour a candidate.
TEST_P(RepositoryTest, NovaeNearMissesNothingWithinTheRadius) {
  std::mt19937_64 random(20261125);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(random);
  };
  const double decs[] = {-90, -89.9995, -1e-7, 0, 12.9999999, 13, 89.9996, 90};
  std::vector<NovaPosition> novae;
  for (int i = 0; i < 48; ++i) {
    char id[16];
    std::snprintf(id, sizeof id, "n%02d", i);
    double dec =
        std::clamp(decs[i % 8] + uniform(-0.0003, 0.0003), -90.0, 90.0);
    // A third near RA 0h (either side), the others anywhere.
    double ra = i % 3 == 0 ? std::fmod(uniform(359.999, 360.001), 360)
                           : uniform(0, 360);
    novae.push_back({id, ra, dec});
    ASSERT_EQ(
        repo().CreateNova(MakeNova(novae.back().nova_id.c_str(), id, ra, dec)),
        CreateResult::kCreated);
  }
  int neighbours = 0;
  for (int q = 0; q < 40; ++q) {
    const NovaPosition& near = novae[q % novae.size()];
    double dec =
        std::clamp(near.dec_deg + uniform(-0.0004, 0.0004), -90.0, 90.0);
    double ra = std::fmod(near.ra_deg + uniform(-0.001, 0.001) + 360, 360);
    double radius = uniform(0.1, 3);
    std::vector<NovaPosition> found = repo().NovaeNear(ra, dec, radius);
    for (const NovaPosition& n : novae) {
      if (HaversineArcsec(ra, dec, n.ra_deg, n.dec_deg) > radius) continue;
      ++neighbours;
      EXPECT_NE(std::find_if(found.begin(), found.end(),
                             [&](const NovaPosition& f) {
                               return f.nova_id == n.nova_id;
                             }),
                found.end())
          << n.nova_id << " missed near " << ra << " " << dec;
    }
  }
  EXPECT_GT(neighbours, 40);  // the test did look at neighbours
}

// --- AP-INGEST-3 ------------------------------------------------------------

TEST_P(RepositoryTest, UpdateNovaCoordinatorStateOnlyOnAnExistingNova) {
  NovaCoordinatorState state;
  state.ingest_status = "INGESTING";
  state.last_ingest_at = kT1;
  state.last_ingest_job_run_id = kRunA;
  EXPECT_EQ(repo().UpdateNovaCoordinatorState(kNova, state),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(Partition(NovaPk(kNova)), std::vector<Item>{});

  repo().CreateNova(MakeNova(kNova));
  EXPECT_EQ(repo().UpdateNovaCoordinatorState(kNova, state),
            UpdateOutcome::kUpdated);
  Nova expected = MakeNova(kNova);
  expected.ingest_status = "INGESTING";
  expected.last_ingest_at = kT1;
  expected.last_ingest_job_run_id = kRunA;
  EXPECT_EQ(repo().GetNova(kNova), expected);
  EXPECT_EQ(Get(NovaPk(kNova), "META"), expected.ToItem());

  NovaCoordinatorState status_only;
  status_only.status = "RETIRED";
  EXPECT_EQ(repo().UpdateNovaCoordinatorState(kNova, status_only),
            UpdateOutcome::kUpdated);
  expected.status = "RETIRED";
  EXPECT_EQ(repo().GetNova(kNova), expected);
  EXPECT_THROW(repo().UpdateNovaCoordinatorState(kNova, {}), TerminalError);
}

// --- AP-REF-1..3 ------------------------------------------------------------

TEST_P(RepositoryTest, ReferencesAndLinks) {
  Reference ref{
      kNova,        "ref-2", "ADS", "1975IAUC.2826....1W", "Nova Cygni 1975",
      "1975-08-29", kT0};
  repo().UpsertReference(ref);
  EXPECT_EQ(Get(NovaPk(kNova), "REF#ref-2"),
            (Item{{"PK", NovaPk(kNova)},
                  {"SK", "REF#ref-2"},
                  {"entity", "Reference"},
                  {"nova_id", kNova},
                  {"reference_id", "ref-2"},
                  {"source", "ADS"},
                  {"source_key", "1975IAUC.2826....1W"},
                  {"title", "Nova Cygni 1975"},
                  {"publication_date", "1975-08-29"},
                  {"publication_date_precision", "DAY"},
                  {"updated_at", kT0}}));
  // An upsert replaces.
  ref.title.reset();
  ref.updated_at = kT1;
  repo().UpsertReference(ref);
  Reference other{kNova,        "ref-1",      "ADS", "1975A&A....1",
                  std::nullopt, std::nullopt, kT0};
  repo().UpsertReference(other);
  EXPECT_EQ(repo().ListReferences(kNova), (std::vector<Reference>{other, ref}));

  NovaReference link{kNova, "ref-2", kT0};
  EXPECT_EQ(repo().LinkNovaReference(link), CreateResult::kCreated);
  EXPECT_EQ(Get(NovaPk(kNova), "NOVAREF#ref-2"),
            (Item{{"PK", NovaPk(kNova)},
                  {"SK", "NOVAREF#ref-2"},
                  {"entity", "NovaReference"},
                  {"nova_id", kNova},
                  {"reference_id", "ref-2"},
                  {"linked_at", kT0}}));
  NovaReference again{kNova, "ref-2", kT1};
  EXPECT_EQ(repo().LinkNovaReference(again), CreateResult::kAlreadyExists);
  EXPECT_EQ(repo().LinkNovaReference({kNova, "ref-1", kT1}),
            CreateResult::kCreated);
  EXPECT_EQ(repo().ListNovaReferences(kNova),
            (std::vector<NovaReference>{{kNova, "ref-1", kT1}, link}));
  // REF# and NOVAREF# never mix.
  EXPECT_EQ(repo().ListReferences(kNova).size(), 2u);
  EXPECT_EQ(repo().ListNovaReferences(kNova2), std::vector<NovaReference>{});
  EXPECT_THROW(repo().UpsertReference(
                   {kNova, "r#1", "ADS", "k", std::nullopt, std::nullopt, kT0}),
               TerminalError);
}

TEST_P(RepositoryTest, DiscoveryDateOnlyMovesEarlier) {
  using D = DiscoveryDateResult::Status;
  DiscoveryDateResult r =
      repo().UpdateDiscoveryDate(kNova, "1975-08-29", "ref-2");
  EXPECT_EQ(r.status, D::kNotFound);
  EXPECT_EQ(r.discovery_date, std::nullopt);
  EXPECT_EQ(Partition(NovaPk(kNova)), std::vector<Item>{});

  repo().CreateNova(MakeNova(kNova));
  r = repo().UpdateDiscoveryDate(kNova, "1975-08-29", "ref-2");
  EXPECT_EQ(r.status, D::kUpdated);
  EXPECT_EQ(r.discovery_date, "1975-08-29");
  r = repo().UpdateDiscoveryDate(kNova, "1975-08-30", "ref-3");
  EXPECT_EQ(r.status, D::kUnchanged);
  EXPECT_EQ(r.discovery_date, "1975-08-29");
  r = repo().UpdateDiscoveryDate(kNova, "1975-08-29", "ref-4");  // equal
  EXPECT_EQ(r.status, D::kUnchanged);
  r = repo().UpdateDiscoveryDate(kNova, "1975-08-28", "ref-1");
  EXPECT_EQ(r.status, D::kUpdated);
  Nova expected = MakeNova(kNova);
  expected.discovery_date = "1975-08-28";
  expected.discovery_reference_id = "ref-1";
  EXPECT_EQ(Get(NovaPk(kNova), "META"), expected.ToItem());
  EXPECT_THROW(repo().UpdateDiscoveryDate(kNova, "1975-8-1", "ref-1"),
               TerminalError);
}

TEST_P(RepositoryTest, PublicationDateKeepsItsPrecisionAndIsNeverCoarsened) {
  using P = DatePrecision;
  Reference ref{kNova,        "ref-1",      "bibcode", "1975IBVS.1050....1W",
                "Photometry", "1975-01-01", kT0};
  ref.publication_date_precision = P::kYear;
  repo().UpsertReference(ref);
  EXPECT_EQ(Get(NovaPk(kNova), "REF#ref-1"),
            (Item{{"PK", NovaPk(kNova)},
                  {"SK", "REF#ref-1"},
                  {"entity", "Reference"},
                  {"nova_id", kNova},
                  {"reference_id", "ref-1"},
                  {"source", "bibcode"},
                  {"source_key", "1975IBVS.1050....1W"},
                  {"title", "Photometry"},
                  {"publication_date", "1975-01-01"},
                  {"publication_date_precision", "YEAR"},
                  {"updated_at", kT0}}));
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{ref});
  EXPECT_EQ(PartialDateText("1975-01-01", P::kYear), "1975");

  // A day within 1975 refines it.
  Reference day = ref;
  day.publication_date = "1975-08-30";
  day.publication_date_precision = P::kDay;
  day.updated_at = kT1;
  repo().UpsertReference(day);
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{day});

  // "1975" and "1975-08" again do not coarsen it; the rest is written.
  Reference coarse = ref;
  coarse.title.reset();
  coarse.updated_at = "2026-11-25T14:00:00Z";
  repo().UpsertReference(coarse);
  Reference kept = day;
  kept.title.reset();
  kept.updated_at = coarse.updated_at;
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{kept});
  coarse.publication_date = "1975-08-01";
  coarse.publication_date_precision = P::kMonth;
  repo().UpsertReference(coarse);
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{kept});
  // Undated does not erase it either.
  coarse.publication_date.reset();
  repo().UpsertReference(coarse);
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{kept});

  // A disjoint date replaces it, as any upsert does (the latest wins).
  Reference disjoint = ref;
  disjoint.publication_date = "1976-03-01";
  disjoint.publication_date_precision = P::kMonth;
  repo().UpsertReference(disjoint);
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{disjoint});

  // A date that is not its precision's first day is refused.
  Reference bad = ref;
  bad.publication_date = "1975-08-30";
  EXPECT_TRUE(runtime::testing::Throws<TerminalError>(
      [&] { repo().UpsertReference(bad); },
      "UpsertReference: publication_date must be YYYY-MM-DD, the first day "
      "of its YEAR (got '1975-08-30')"));
}

TEST_P(RepositoryTest, ItemsWithoutAPrecisionReadAsADay) {
  // Written before the precision attributes existed.
  Item ref{{"PK", NovaPk(kNova)},
           {"SK", "REF#ref-1"},
           {"entity", "Reference"},
           {"nova_id", kNova},
           {"reference_id", "ref-1"},
           {"source", "bibcode"},
           {"source_key", "1975IAUC.2826....1H"},
           {"publication_date", "1975-01-01"},
           {"updated_at", kT0}};
  table().PutItem(ref, std::nullopt);
  Reference expected{
      kNova,        "ref-1",      "bibcode", "1975IAUC.2826....1H",
      std::nullopt, "1975-01-01", kT0};
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{expected});
  EXPECT_EQ(expected.publication_date_precision, DatePrecision::kDay);
  // As a day, "1975" does not coarsen it.
  Reference year = expected;
  year.publication_date_precision = DatePrecision::kYear;
  year.updated_at = kT1;
  repo().UpsertReference(year);
  expected.updated_at = kT1;
  EXPECT_EQ(repo().ListReferences(kNova), std::vector<Reference>{expected});

  Item nova = MakeNova(kNova).ToItem();
  nova["discovery_date"] = "1975-01-01";
  table().PutItem(nova, std::nullopt);
  Nova read = *repo().GetNova(kNova);
  EXPECT_EQ(read.discovery_date, "1975-01-01");
  EXPECT_EQ(read.discovery_date_precision, DatePrecision::kDay);
  // A day: 1975-08-30 is later, "1975" (ends 1975-12-31) too.
  DiscoveryDateResult r = repo().UpdateDiscoveryDate(
      kNova, "1975-08-30", "ref-2", DatePrecision::kDay);
  EXPECT_EQ(r.status, DiscoveryDateResult::Status::kUnchanged);
  r = repo().UpdateDiscoveryDate(kNova, "1975-01-01", "ref-2",
                                 DatePrecision::kYear);
  EXPECT_EQ(r.status, DiscoveryDateResult::Status::kUnchanged);
  EXPECT_EQ(r.discovery_date, "1975-01-01");
  EXPECT_EQ(r.discovery_date_precision, DatePrecision::kDay);
}

TEST_P(RepositoryTest, DiscoveryDateIsRefinedInPartialDateOrder) {
  using D = DiscoveryDateResult::Status;
  using P = DatePrecision;
  repo().CreateNova(MakeNova(kNova));
  DiscoveryDateResult r =
      repo().UpdateDiscoveryDate(kNova, "1975-01-01", "ref-1", P::kYear);
  EXPECT_EQ(r.status, D::kUpdated);
  Nova expected = MakeNova(kNova);
  expected.discovery_date = "1975-01-01";
  expected.discovery_date_precision = P::kYear;
  expected.discovery_reference_id = "ref-1";
  EXPECT_EQ(repo().GetNova(kNova), expected);
  EXPECT_EQ(Get(NovaPk(kNova), "META")->at("discovery_date_precision"), "YEAR");
  // "1975" again, or a later year: unchanged.
  EXPECT_EQ(
      repo().UpdateDiscoveryDate(kNova, "1975-01-01", "ref-9", P::kYear).status,
      D::kUnchanged);
  EXPECT_EQ(
      repo().UpdateDiscoveryDate(kNova, "1976-01-01", "ref-9", P::kDay).status,
      D::kUnchanged);
  // "1975-12" ends on the same day and is more precise: it refines; then
  // "1975-08-30" (ends earlier) and "1975-08-29".
  EXPECT_EQ(repo()
                .UpdateDiscoveryDate(kNova, "1975-12-01", "ref-2", P::kMonth)
                .status,
            D::kUpdated);
  r = repo().UpdateDiscoveryDate(kNova, "1975-08-30", "ref-3", P::kDay);
  EXPECT_EQ(r.status, D::kUpdated);
  EXPECT_EQ(r.discovery_date, "1975-08-30");
  EXPECT_EQ(r.discovery_date_precision, P::kDay);
  // Never coarsened back: "1975" and "1975-08" end later.
  r = repo().UpdateDiscoveryDate(kNova, "1975-01-01", "ref-1", P::kYear);
  EXPECT_EQ(r.status, D::kUnchanged);
  EXPECT_EQ(r.discovery_date, "1975-08-30");
  EXPECT_EQ(r.discovery_date_precision, P::kDay);
  EXPECT_EQ(repo()
                .UpdateDiscoveryDate(kNova, "1975-08-01", "ref-1", P::kMonth)
                .status,
            D::kUnchanged);
  expected.discovery_date = "1975-08-30";
  expected.discovery_date_precision = P::kDay;
  expected.discovery_reference_id = "ref-3";
  EXPECT_EQ(repo().GetNova(kNova), expected);

  // A stored month: a day on its last day refines it, the month itself
  // does not, an earlier month moves it.
  repo().CreateNova(MakeNova(kNova2));
  EXPECT_EQ(repo()
                .UpdateDiscoveryDate(kNova2, "1975-02-01", "ref-1", P::kMonth)
                .status,
            D::kUpdated);
  EXPECT_EQ(repo()
                .UpdateDiscoveryDate(kNova2, "1975-02-01", "ref-1", P::kMonth)
                .status,
            D::kUnchanged);
  EXPECT_EQ(
      repo().UpdateDiscoveryDate(kNova2, "1975-03-01", "ref-1", P::kDay).status,
      D::kUnchanged);
  EXPECT_EQ(
      repo().UpdateDiscoveryDate(kNova2, "1975-02-28", "ref-2", P::kDay).status,
      D::kUpdated);
  EXPECT_EQ(repo()
                .UpdateDiscoveryDate(kNova2, "1975-01-01", "ref-3", P::kMonth)
                .status,
            D::kUpdated);
  EXPECT_TRUE(runtime::testing::Throws<TerminalError>(
      [&] {
        repo().UpdateDiscoveryDate(kNova2, "1975-08-30", "ref-1", P::kMonth);
      },
      "UpdateDiscoveryDate: date must be YYYY-MM-DD, the first day of its "
      "MONTH (got '1975-08-30')"));
}

// --- AP-DISC-1..4 -----------------------------------------------------------

TEST_P(RepositoryTest, CreateDatasetWritesTheSeedsItemOnce) {
  Dataset d = MakeDataset(kNova, kDs1);
  d.hints = Item{{"resolution", 2000}};
  d.created_by_execution_arn = "arn:aws:states:local:0:execution:d:1";
  EXPECT_EQ(repo().CreateDataset(d), CreateResult::kCreated);
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)),
            (Item{{"PK", NovaPk(kNova)},
                  {"SK", DatasetSk(kDs1)},
                  {"entity", "Dataset"},
                  {"nova_id", kNova},
                  {"dataset_type", "SPECTRA"},
                  {"provider", "ESO"},
                  {"dataset_id", kDs1},
                  {"provider_identity",
                   std::string("ESO|2026-01-01T00:00:00Z|") + kDs1},
                  {"locators",
                   {{"url", std::string("https://archive.example/") + kDs1}}},
                  {"hints", {{"resolution", 2000}}},
                  {"created_at", kT0},
                  {"updated_at", kT0},
                  {"created_by_execution_arn",
                   "arn:aws:states:local:0:execution:d:1"}}));
  EXPECT_EQ(repo().GetDataset(d.key()), d);

  Dataset retry = d;
  retry.created_at = retry.updated_at = kT1;
  EXPECT_EQ(repo().CreateDataset(retry), CreateResult::kAlreadyExists);
  Dataset other = d;
  other.provider_identity = "ESO|something else";
  EXPECT_EQ(repo().CreateDataset(other), CreateResult::kConflict);
  EXPECT_EQ(repo().GetDataset(d.key()), d);
}

TEST_P(RepositoryTest, ListProviderDatasetsIsExactlyOneProvider) {
  repo().CreateDataset(MakeDataset(kNova, kDs2));
  repo().CreateDataset(MakeDataset(kNova, kDs1));
  repo().CreateDataset(MakeDataset(kNova, kDs3, "ESOX"));  // prefix trap
  repo().CreateDataset(
      MakeDataset(kNova, kDs3, "ESO", DatasetType::kPhotometry));
  repo().CreateDataset(MakeDataset(kNova2, kDs3));
  repo().PutFileObject({kNova, DatasetType::kSpectra, "ESO", kDs1, "raw", "b",
                        "k", std::nullopt, std::nullopt, std::nullopt, kT0,
                        std::nullopt});
  EXPECT_EQ(repo().ListProviderDatasets(kNova, "ESO"),
            (std::vector<Dataset>{MakeDataset(kNova, kDs1),
                                  MakeDataset(kNova, kDs2)}));
  EXPECT_EQ(repo().ListProviderDatasets(kNova, "ESOX"),
            std::vector<Dataset>{MakeDataset(kNova, kDs3, "ESOX")});
  EXPECT_EQ(repo().ListProviderDatasets(kNova, "ESO", DatasetType::kPhotometry),
            std::vector<Dataset>{
                MakeDataset(kNova, kDs3, "ESO", DatasetType::kPhotometry)});
  EXPECT_EQ(repo().ListProviderDatasets(kNova, "ES"), std::vector<Dataset>{});
  EXPECT_THROW(repo().ListProviderDatasets(kNova, "ESO#"), TerminalError);
}

TEST_P(RepositoryTest, UpdateDatasetLocators) {
  Dataset d = MakeDataset(kNova, kDs1);
  d.hints = Item{{"a", 1}};
  EXPECT_EQ(repo().UpdateDatasetLocators(d.key(), {Item{{"id", "x"}}, {}}, kT1),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(Partition(NovaPk(kNova)), std::vector<Item>{});
  repo().CreateDataset(d);
  EXPECT_EQ(repo().UpdateDatasetLocators(
                d.key(), {Item{{"id", "x"}}, std::nullopt}, kT1),
            UpdateOutcome::kUpdated);
  d.locators = Item{{"id", "x"}};
  d.hints.reset();
  d.updated_at = kT1;
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), d.ToItem());
}

TEST_P(RepositoryTest, EligibilityIsQueriedThroughGsi1) {
  for (const char* id : {kDs3, kDs1, kDs2})
    repo().CreateDataset(MakeDataset(kNova, id));
  repo().CreateDataset(MakeDataset(kNova2, kDs1));
  Dataset d1 = MakeDataset(kNova, kDs1);
  EXPECT_EQ(repo().SetDownloadEligibility(d1.key(), "DOWNLOAD", kT1),
            UpdateOutcome::kUpdated);
  EXPECT_EQ(repo().SetDownloadEligibility(MakeDataset(kNova, kDs2).key(),
                                          "DEFERRED", kT1),
            UpdateOutcome::kUpdated);
  EXPECT_EQ(repo().SetDownloadEligibility(MakeDataset(kNova2, kDs1).key(),
                                          "DOWNLOAD", kT1),
            UpdateOutcome::kUpdated);
  d1.eligibility = "DOWNLOAD";
  d1.updated_at = kT1;
  Item item = d1.ToItem();
  EXPECT_EQ(item["GSI1PK"], NovaPk(kNova));
  EXPECT_EQ(item["GSI1SK"], std::string("ELIG#DOWNLOAD#") + kDs1);
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), item);
  // Only DOWNLOAD, only this nova.
  EXPECT_EQ(repo().QueryEligibleDatasets(kNova), std::vector<Dataset>{d1});
  EXPECT_EQ(Partition(NovaPk(kNova), Index::kGsi1).size(), 2u);

  Dataset d3 = MakeDataset(kNova, kDs3);
  repo().SetDownloadEligibility(d3.key(), "DOWNLOAD", kT1);
  d3.eligibility = "DOWNLOAD";
  d3.updated_at = kT1;
  EXPECT_EQ(repo().QueryEligibleDatasets(kNova),
            (std::vector<Dataset>{d1, d3}));
  // Removing eligibility removes the index attributes.
  EXPECT_EQ(repo().SetDownloadEligibility(d1.key(), std::nullopt, kT1),
            UpdateOutcome::kUpdated);
  EXPECT_EQ(repo().QueryEligibleDatasets(kNova), std::vector<Dataset>{d3});
  Dataset plain = MakeDataset(kNova, kDs1);
  plain.updated_at = kT1;
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), plain.ToItem());
  EXPECT_EQ(repo().SetDownloadEligibility(MakeDataset(kNova3, kDs1).key(),
                                          "DOWNLOAD", kT1),
            UpdateOutcome::kNotFound);
  EXPECT_EQ(Partition(NovaPk(kNova3)), std::vector<Item>{});
  EXPECT_THROW(repo().SetDownloadEligibility(d1.key(), "DOWN#LOAD", kT1),
               TerminalError);
}

// --- AP-DL-2 / AP-PHOT-2 ----------------------------------------------------

TEST_P(RepositoryTest, LeaseFromAbsentReadyOrFailedRetryable) {
  Dataset d = MakeDataset(kNova, kDs1);
  LeaseResult r = repo().AcquireDatasetLease(d.key(), kRunA, 1000, 600);
  EXPECT_EQ(r.status, S::kNotFound);
  EXPECT_EQ(Partition(NovaPk(kNova)), std::vector<Item>{});

  repo().CreateDataset(d);  // processing_status absent: NULL
  r = repo().AcquireDatasetLease(d.key(), kRunA, 1000, 600);
  EXPECT_EQ(r.status, S::kAcquired);
  EXPECT_EQ(r.owner, kRunA);
  EXPECT_EQ(r.expires_at, 1600);
  Dataset held = d;
  held.processing_status = ProcessingStatus::kInProgress;
  held.lease_owner = kRunA;
  held.lease_expires_at = 1600;
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), held.ToItem());
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1))->at("processing_status"),
            "IN_PROGRESS");

  for (ProcessingStatus from :
       {ProcessingStatus::kReady, ProcessingStatus::kFailedRetryable}) {
    EXPECT_EQ(repo().ReleaseDatasetLease(d.key(), kRunA, from, kT1),
              ReleaseResult::kReleased);
    r = repo().AcquireDatasetLease(d.key(), kRunB, 2000, 60);
    EXPECT_EQ(r.status, S::kAcquired) << ProcessingStatusName(from);
    EXPECT_EQ(repo().ReleaseDatasetLease(d.key(), kRunB, from, kT1),
              ReleaseResult::kReleased);
    r = repo().AcquireDatasetLease(d.key(), kRunA, 2000, 60);
    EXPECT_EQ(r.status, S::kAcquired);
  }
}

TEST_P(RepositoryTest, LeaseIsRefusedWhileHeldAndReclaimedWhenExpired) {
  Dataset d = MakeDataset(kNova, kDs1);
  repo().CreateDataset(d);
  ASSERT_EQ(repo().AcquireDatasetLease(d.key(), kRunA, 1000, 600).status,
            S::kAcquired);
  LeaseResult r = repo().AcquireDatasetLease(d.key(), kRunB, 1599, 600);
  EXPECT_EQ(r.status, S::kHeldByOther);
  EXPECT_EQ(r.owner, kRunA);
  EXPECT_EQ(r.expires_at, 1600);
  EXPECT_EQ(r.processing_status, ProcessingStatus::kInProgress);
  // lease_expires_at < now: still held at 1600 exactly.
  EXPECT_EQ(repo().AcquireDatasetLease(d.key(), kRunB, 1600, 600).status,
            S::kHeldByOther);
  // The owner's retry renews.
  r = repo().AcquireDatasetLease(d.key(), kRunA, 1500, 600);
  EXPECT_EQ(r.status, S::kAcquired);
  EXPECT_EQ(r.expires_at, 2100);
  // Expired: reclaimed by another run; the old owner has lost it.
  r = repo().AcquireDatasetLease(d.key(), kRunB, 2101, 600);
  EXPECT_EQ(r.status, S::kAcquired);
  EXPECT_EQ(repo().GetDataset(d.key())->lease_owner, kRunB);
  EXPECT_EQ(repo().ReleaseDatasetLease(d.key(), kRunA,
                                       ProcessingStatus::kCompleted, kT1),
            ReleaseResult::kNotHeld);
  EXPECT_EQ(repo().PutFingerprints(d.key(), {1, "e", kSha, {}, "h"}, kT1,
                                   std::string(kRunA)),
            UpdateOutcome::kNotLeaseHolder);
  // Completed by the new owner: final, never leased again.
  EXPECT_EQ(repo().ReleaseDatasetLease(d.key(), kRunB,
                                       ProcessingStatus::kCompleted, kT1),
            ReleaseResult::kReleased);
  Dataset done = d;
  done.processing_status = ProcessingStatus::kCompleted;
  done.updated_at = kT1;
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), done.ToItem());
  // A retried release answers kReleased again.
  EXPECT_EQ(repo().ReleaseDatasetLease(d.key(), kRunB,
                                       ProcessingStatus::kCompleted, kT1),
            ReleaseResult::kReleased);
  r = repo().AcquireDatasetLease(d.key(), kRunA, 99999, 600);
  EXPECT_EQ(r.status, S::kNotAcquirable);
  EXPECT_EQ(r.processing_status, ProcessingStatus::kCompleted);
  EXPECT_EQ(repo().ReleaseDatasetLease(MakeDataset(kNova, kDs2).key(), kRunA,
                                       ProcessingStatus::kReady, kT1),
            ReleaseResult::kNotFound);
  EXPECT_THROW(repo().ReleaseDatasetLease(d.key(), kRunB,
                                          ProcessingStatus::kInProgress, kT1),
               TerminalError);
  EXPECT_THROW(repo().AcquireDatasetLease(d.key(), kRunB, 1, 0), TerminalError);
}

TEST_P(RepositoryTest, ReleaseSetsOrRemovesTheFailedRunCount) {
  Dataset d = MakeDataset(kNova, kDs1);
  repo().CreateDataset(d);
  ASSERT_EQ(repo().AcquireDatasetLease(d.key(), kRunA, 1000, 600).status,
            S::kAcquired);
  EXPECT_EQ(repo().ReleaseDatasetLease(
                d.key(), kRunA, ProcessingStatus::kFailedRetryable, kT1, 3),
            ReleaseResult::kReleased);
  Dataset failed = d;
  failed.processing_status = ProcessingStatus::kFailedRetryable;
  failed.failed_runs = 3;
  failed.updated_at = kT1;
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), failed.ToItem());
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1))->at("failed_runs"), 3);
  EXPECT_EQ(repo().GetDataset(d.key()), failed);
  // A retried release (its first write landed) changes nothing more.
  EXPECT_EQ(repo().ReleaseDatasetLease(
                d.key(), kRunA, ProcessingStatus::kFailedRetryable, kT1, 4),
            ReleaseResult::kReleased);
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), failed.ToItem());
  // The next run's release without a count (here a terminal one) removes
  // it.
  ASSERT_EQ(repo().AcquireDatasetLease(d.key(), kRunB, 2000, 600).status,
            S::kAcquired);
  EXPECT_EQ(repo().ReleaseDatasetLease(d.key(), kRunB,
                                       ProcessingStatus::kFailedTerminal, kT1),
            ReleaseResult::kReleased);
  failed.processing_status = ProcessingStatus::kFailedTerminal;
  failed.failed_runs = std::nullopt;
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), failed.ToItem());
  EXPECT_THROW(repo().ReleaseDatasetLease(
                   d.key(), kRunB, ProcessingStatus::kFailedRetryable, kT1, -1),
               TerminalError);
}

TEST_P(RepositoryTest, ListNovaDatasetsTakesBothTypesOfOneNova) {
  repo().CreateDataset(MakeDataset(kNova, kDs2));
  repo().CreateDataset(MakeDataset(kNova, kDs1, "MAST"));
  repo().CreateDataset(
      MakeDataset(kNova, kDs3, "AAVSO", DatasetType::kPhotometry));
  repo().CreateDataset(MakeDataset(kNova2, kDs3));
  ASSERT_EQ(repo().CreateNova(MakeNova(kNova)), CreateResult::kCreated);
  EXPECT_EQ(repo().ListNovaDatasets(kNova),
            (std::vector<Dataset>{
                MakeDataset(kNova, kDs3, "AAVSO", DatasetType::kPhotometry),
                MakeDataset(kNova, kDs2), MakeDataset(kNova, kDs1, "MAST")}));
  EXPECT_EQ(repo().ListNovaDatasets(kNova3), std::vector<Dataset>{});
}

TEST_P(RepositoryTest, RequeueMakesAFailedDatasetEligibleAgain) {
  using R = RequeueResult::Status;
  Dataset d = MakeDataset(kNova, kDs1);
  EXPECT_EQ(repo().RequeueDataset(d.key(), 1000, kT1).status, R::kNotFound);
  repo().CreateDataset(d);
  // Never leased (NULL), then under a live lease: nothing to requeue.
  RequeueResult r = repo().RequeueDataset(d.key(), 1000, kT1);
  EXPECT_EQ(r.status, R::kNotRequeueable);
  EXPECT_EQ(r.processing_status, std::nullopt);
  ASSERT_EQ(repo().AcquireDatasetLease(d.key(), kRunA, 1000, 600).status,
            S::kAcquired);
  r = repo().RequeueDataset(d.key(), 1600, kT1);  // expires at 1600: live
  EXPECT_EQ(r.status, R::kNotRequeueable);
  EXPECT_EQ(r.processing_status, ProcessingStatus::kInProgress);
  ValidationOutcome quarantined;
  quarantined.status = ValidationStatus::kQuarantined;
  quarantined.quarantine_reason_code = "RETRIES_EXHAUSTED";
  ASSERT_EQ(repo().PutValidationResult(d.key(), quarantined, kT0),
            UpdateOutcome::kUpdated);
  ASSERT_EQ(repo().ReleaseDatasetLease(d.key(), kRunA,
                                       ProcessingStatus::kQuarantined, kT0, 16),
            ReleaseResult::kReleased);
  EXPECT_EQ(repo().QueryEligibleDatasets(kNova), std::vector<Dataset>{});

  r = repo().RequeueDataset(d.key(), 2000, kT1);
  EXPECT_EQ(r.status, R::kRequeued);
  EXPECT_EQ(r.processing_status, ProcessingStatus::kReady);
  Dataset requeued = *repo().GetDataset(d.key());
  EXPECT_EQ(requeued.processing_status, ProcessingStatus::kReady);
  EXPECT_EQ(requeued.eligibility, kEligibilityDownload);
  EXPECT_EQ(requeued.failed_runs, std::nullopt);
  EXPECT_EQ(requeued.updated_at, kT1);
  // The last verdict stays until a run writes its own.
  EXPECT_EQ(requeued.validation_status, ValidationStatus::kQuarantined);
  EXPECT_EQ(requeued.quarantine_reason_code, "RETRIES_EXHAUSTED");
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1))->at("GSI1SK"),
            std::string("ELIG#DOWNLOAD#") + kDs1);
  EXPECT_EQ(repo().QueryEligibleDatasets(kNova),
            std::vector<Dataset>{requeued});
  // The same requeue again (a retry whose first write landed) answers
  // kRequeued; a later one finds it READY and refuses; the next run leases
  // it.
  EXPECT_EQ(repo().RequeueDataset(d.key(), 2000, kT1).status, R::kRequeued);
  r = repo().RequeueDataset(d.key(), 2060, kT0);
  EXPECT_EQ(r.status, R::kNotRequeueable);
  EXPECT_EQ(r.processing_status, ProcessingStatus::kReady);
  EXPECT_EQ(repo().AcquireDatasetLease(d.key(), kRunB, 2000, 600).status,
            S::kAcquired);
  // A dead run's expired lease (it expires at 2600) is requeued too.
  EXPECT_EQ(repo().RequeueDataset(d.key(), 2600, kT1).status,
            R::kNotRequeueable);
  EXPECT_EQ(repo().RequeueDataset(d.key(), 2601, kT1).status, R::kRequeued);
  requeued = *repo().GetDataset(d.key());
  EXPECT_EQ(requeued.processing_status, ProcessingStatus::kReady);
  EXPECT_EQ(requeued.lease_owner, std::nullopt);
  EXPECT_EQ(requeued.lease_expires_at, std::nullopt);
  // FAILED_TERMINAL and FAILED_RETRYABLE are requeued too; COMPLETED not.
  for (ProcessingStatus end :
       {ProcessingStatus::kFailedTerminal, ProcessingStatus::kFailedRetryable,
        ProcessingStatus::kCompleted}) {
    repo().AcquireDatasetLease(d.key(), kRunB, 2000, 600);
    ASSERT_EQ(repo().ReleaseDatasetLease(d.key(), kRunB, end, kT0),
              ReleaseResult::kReleased);
    r = repo().RequeueDataset(d.key(), 2000, kT0);
    EXPECT_EQ(r.status, end == ProcessingStatus::kCompleted ? R::kNotRequeueable
                                                            : R::kRequeued)
        << ProcessingStatusName(end);
  }
  EXPECT_EQ(repo().GetDataset(d.key())->processing_status,
            ProcessingStatus::kCompleted);
  EXPECT_THROW(
      repo().RequeueDataset(
          MakeDataset(kNova, kDs2, "AAVSO", DatasetType::kPhotometry).key(),
          2000, kT1),
      TerminalError);
}

// --- AP-DL-4 / AP-DL-5 ------------------------------------------------------

TEST_P(RepositoryTest, Fingerprints) {
  Dataset d = MakeDataset(kNova, kDs1);
  Fingerprints fp{123456, "\"etag-1\"", kSha, "ZZZZ", "hdr-1"};
  EXPECT_EQ(repo().PutFingerprints(d.key(), fp, kT1), UpdateOutcome::kNotFound);
  repo().CreateDataset(d);
  repo().AcquireDatasetLease(d.key(), kRunA, 1000, 600);
  EXPECT_EQ(repo().PutFingerprints(d.key(), fp, kT1, std::string(kRunA)),
            UpdateOutcome::kUpdated);
  Dataset expected = *repo().GetDataset(d.key());
  EXPECT_EQ(expected.byte_length, 123456);
  EXPECT_EQ(expected.etag, "\"etag-1\"");
  EXPECT_EQ(expected.sha256, kSha);
  EXPECT_EQ(expected.fits_checksum, "ZZZZ");
  EXPECT_EQ(expected.header_signature, "hdr-1");
  EXPECT_EQ(expected.updated_at, kT1);
  // Without a FITS checksum or an ETag the attributes go away.
  fp.fits_checksum.reset();
  fp.etag.reset();
  EXPECT_EQ(repo().PutFingerprints(d.key(), fp, kT1), UpdateOutcome::kUpdated);
  expected.fits_checksum.reset();
  expected.etag.reset();
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), expected.ToItem());
  fp.etag = "";
  EXPECT_THROW(repo().PutFingerprints(d.key(), fp, kT1), TerminalError);
  fp.etag.reset();
  EXPECT_EQ(repo().PutFingerprints(d.key(), fp, kT1, std::string(kRunB)),
            UpdateOutcome::kNotLeaseHolder);
  fp.sha256 = "ABC";
  EXPECT_THROW(repo().PutFingerprints(d.key(), fp, kT1), TerminalError);
}

TEST_P(RepositoryTest, ValidationResults) {
  Dataset d = MakeDataset(kNova, kDs1);
  repo().CreateDataset(d);
  ValidationOutcome quarantined{
      ValidationStatus::kQuarantined, "CHECKSUM_MISMATCH",
      Item{{"expected", "a"}, {"actual", "b"}}, Item{{"profile", "uves-1d"}}};
  EXPECT_EQ(repo().PutValidationResult(d.key(), quarantined, kT1),
            UpdateOutcome::kUpdated);
  Dataset expected = d;
  expected.validation_status = ValidationStatus::kQuarantined;
  expected.quarantine_reason_code = "CHECKSUM_MISMATCH";
  expected.validation_details = Item{{"expected", "a"}, {"actual", "b"}};
  expected.profile_selection = Item{{"profile", "uves-1d"}};
  expected.updated_at = kT1;
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1)), expected.ToItem());
  EXPECT_EQ(Get(NovaPk(kNova), DatasetSk(kDs1))->at("validation_status"),
            "QUARANTINED");
  for (ValidationStatus s :
       {ValidationStatus::kValid, ValidationStatus::kTerminalInvalid,
        ValidationStatus::kRetryableError}) {
    EXPECT_EQ(repo().PutValidationResult(d.key(), {s, {}, {}, {}}, kT1),
              UpdateOutcome::kUpdated);
    Dataset now = d;
    now.validation_status = s;
    now.updated_at = kT1;
    EXPECT_EQ(repo().GetDataset(d.key()), now) << ValidationStatusName(s);
  }
  EXPECT_THROW(repo().PutValidationResult(
                   d.key(), {ValidationStatus::kQuarantined, {}, {}, {}}, kT1),
               TerminalError);
  EXPECT_THROW(repo().PutValidationResult(
                   d.key(), {ValidationStatus::kValid, "X", {}, {}}, kT1),
               TerminalError);
  EXPECT_EQ(
      repo().PutValidationResult(MakeDataset(kNova, kDs2).key(),
                                 {ValidationStatus::kValid, {}, {}, {}}, kT1),
      UpdateOutcome::kNotFound);
}

// --- AP-DL-6 / AP-PHOT-1..3 -------------------------------------------------

TEST_P(RepositoryTest, FileObjectsAreFoundByS3ObjectThroughGsi3) {
  FileObject raw{
      kNova,         DatasetType::kSpectra, "ESO", kDs1, "raw",
      "novacat-raw", "spectra/ESO/a.fits",  2880,  kSha, "application/fits",
      kT0,           std::nullopt};
  repo().PutFileObject(raw);
  EXPECT_EQ(Get(NovaPk(kNova), std::string("FILE#") + kDs1 + "#raw"),
            (Item{{"PK", NovaPk(kNova)},
                  {"SK", std::string("FILE#") + kDs1 + "#raw"},
                  {"GSI3PK", "S3#novacat-raw"},
                  {"GSI3SK", "spectra/ESO/a.fits"},
                  {"entity", "FileObject"},
                  {"nova_id", kNova},
                  {"dataset_type", "SPECTRA"},
                  {"provider", "ESO"},
                  {"dataset_id", kDs1},
                  {"file_id", "raw"},
                  {"bucket", "novacat-raw"},
                  {"key", "spectra/ESO/a.fits"},
                  {"byte_length", 2880},
                  {"sha256", kSha},
                  {"content_type", "application/fits"},
                  {"created_at", kT0}}));
  FileObject gz = raw;
  gz.file_id = "gz";
  gz.key = "spectra/ESO/a.fits.gz";  // a longer key: equality, not prefix
  gz.byte_length.reset();
  gz.sha256.reset();
  gz.content_type.reset();
  repo().PutFileObject(gz);
  FileObject elsewhere = raw;
  elsewhere.nova_id = kNova2;
  elsewhere.bucket = "novacat-derived";
  repo().PutFileObject(elsewhere);

  EXPECT_EQ(repo().FindByS3Object("novacat-raw", "spectra/ESO/a.fits"),
            std::vector<FileObject>{raw});
  EXPECT_EQ(repo().FindByS3Object("novacat-raw", "spectra/ESO/a.fits.gz"),
            std::vector<FileObject>{gz});
  EXPECT_EQ(repo().FindByS3Object("novacat-raw", "spectra/ESO/a"),
            std::vector<FileObject>{});
  EXPECT_EQ(repo().FindByS3Object("novacat-derived", "spectra/ESO/a.fits"),
            std::vector<FileObject>{elsewhere});
  EXPECT_EQ(repo().ListFileObjects(kNova, kDs1),
            (std::vector<FileObject>{gz, raw}));
  // Re-putting the same file rewrites it (an upsert).
  repo().PutFileObject(raw);
  EXPECT_EQ(repo().ListFileObjects(kNova, kDs1).size(), 2u);
  EXPECT_EQ(raw.dataset_key(), MakeDataset(kNova, kDs1).key());
}

// The fenced put: only the lease's holder writes, and a holder that lost
// its lease cannot overwrite what the next holder wrote, however late.
TEST_P(RepositoryTest, FileObjectUnderTheLease) {
  Dataset d = MakeDataset(kNova, kDs1);
  FileObject raw{
      kNova,         DatasetType::kSpectra, "ESO", kDs1, "raw",
      "novacat-raw", "spectra/a.fits",      2880,  kSha, "application/fits",
      kT0,           std::nullopt};
  EXPECT_EQ(repo().PutFileObject(raw, kRunA), UpdateOutcome::kNotFound);
  repo().CreateDataset(d);
  EXPECT_EQ(repo().PutFileObject(raw, kRunA), UpdateOutcome::kNotLeaseHolder);
  EXPECT_EQ(repo().ListFileObjects(kNova, kDs1), std::vector<FileObject>{});

  ASSERT_EQ(repo().AcquireDatasetLease(d.key(), kRunA, 1000, 600).status,
            LeaseResult::Status::kAcquired);
  EXPECT_EQ(repo().PutFileObject(raw, kRunA), UpdateOutcome::kUpdated);
  FileObject written = raw;
  written.lease_fence = 1600;
  EXPECT_EQ(repo().ListFileObjects(kNova, kDs1),
            std::vector<FileObject>{written});
  EXPECT_EQ(repo().PutFileObject(raw, kRunB), UpdateOutcome::kNotLeaseHolder);

  // A's lease expires, B takes it and writes its file.
  ASSERT_EQ(repo().AcquireDatasetLease(d.key(), kRunB, 2000, 600).status,
            LeaseResult::Status::kAcquired);
  FileObject by_b = raw;
  by_b.key = "spectra/b.fits";
  EXPECT_EQ(repo().PutFileObject(by_b, kRunA), UpdateOutcome::kNotLeaseHolder);
  EXPECT_EQ(repo().PutFileObject(by_b, kRunB), UpdateOutcome::kUpdated);
  by_b.lease_fence = 2600;
  // A's write checked while A still held the lease, landing after B's:
  // the dataset as A read it, then A's put; its older fence loses.
  Update stale;
  stale.set["lease_owner"] = kRunA;
  stale.set["lease_expires_at"] = 1600;
  ASSERT_TRUE(
      table().UpdateItem(d.key().ToKey(), stale, std::nullopt).applied());
  EXPECT_EQ(repo().PutFileObject(raw, kRunA), UpdateOutcome::kNotLeaseHolder);
  EXPECT_EQ(repo().ListFileObjects(kNova, kDs1), std::vector<FileObject>{by_b});
}

TEST_P(RepositoryTest, PhotometryIngestionFromAnS3Object) {
  Dataset d = MakeDataset(kNova, kDs1, "AAVSO", DatasetType::kPhotometry);
  repo().CreateDataset(d);
  repo().PutFileObject({kNova, DatasetType::kPhotometry, "AAVSO", kDs1, "raw",
                        "novacat-raw", "phot/aavso.csv", std::nullopt,
                        std::nullopt, std::nullopt, kT0, std::nullopt});
  // AP-PHOT-1 -> the owning dataset; AP-PHOT-2 read + lease; AP-PHOT-3.
  std::vector<FileObject> owners =
      repo().FindByS3Object("novacat-raw", "phot/aavso.csv");
  ASSERT_EQ(owners.size(), 1u);
  DatasetKey key = owners[0].dataset_key();
  EXPECT_EQ(
      key.ToKey(),
      (Key{NovaPk(kNova), std::string("DATASET#PHOTOMETRY#AAVSO#") + kDs1}));
  EXPECT_EQ(repo().GetDataset(key), d);
  ASSERT_EQ(repo().AcquireDatasetLease(key, kRunA, 1000, 600).status,
            S::kAcquired);
  EXPECT_EQ(repo().UpdateIngestionStatus(
                key, {"INGESTED", Item{{"lightcurve", "s3://x/y.parquet"}}},
                kT1, std::string(kRunA)),
            UpdateOutcome::kUpdated);
  EXPECT_EQ(repo().UpdateIngestionStatus(key, {"INGESTED", std::nullopt}, kT1,
                                         std::string(kRunB)),
            UpdateOutcome::kNotLeaseHolder);
  Dataset expected = d;
  expected.processing_status = ProcessingStatus::kInProgress;
  expected.lease_owner = kRunA;
  expected.lease_expires_at = 1600;
  expected.ingestion_status = "INGESTED";
  expected.artifacts = Item{{"lightcurve", "s3://x/y.parquet"}};
  expected.updated_at = kT1;
  EXPECT_EQ(Get(NovaPk(kNova), key.ToKey().sk), expected.ToItem());
}

// --- AP-INGEST-2, AP-DL-3, AP-OPS-1..3 --------------------------------------

TEST_P(RepositoryTest, JobRunsAndAttemptsPerNovaAndPerRun) {
  repo().CreateNova(MakeNova(kNova));
  repo().CreateDataset(MakeDataset(kNova, kDs1));
  TableRecordStore records(table());
  runtime::JobRun run;
  run.job_run_id = kRunB;
  run.workflow = "download_and_validate_spectra";
  run.nova_id = kNova;
  run.correlation_id = "7382d1e7-7ae6-459a-8561-d8057935c08e";
  run.execution_arn = "arn:e";
  run.started_at = kT0;
  records.PutJobRun(run);
  runtime::JobRun first = run;
  first.job_run_id = kRunA;
  records.PutJobRun(first);
  runtime::JobRun no_nova = run;
  no_nova.nova_id.reset();
  no_nova.job_run_id = "0e4b3a0c-5f7e-4c8e-9a3b-6f1d2c3b4a59";
  records.PutJobRun(no_nova);
  runtime::Attempt attempt;
  attempt.job_run_id = kRunB;
  attempt.nova_id = kNova;
  attempt.state_name = "DownloadSpectrum";
  attempt.correlation_id = run.correlation_id;
  attempt.started_at = attempt.ended_at = kT0;
  records.PutAttempt(attempt);
  runtime::Attempt second = attempt;
  second.attempt_number = 2;
  records.PutAttempt(second);

  EXPECT_EQ(records.ListJobRuns(kNova),
            (std::vector<runtime::JobRun>{first, run}));
  EXPECT_EQ(records.ListAttempts(kRunB, std::string(kNova)),
            (std::vector<runtime::Attempt>{attempt, second}));
  EXPECT_EQ(records.ListAttempts(kRunA, std::string(kNova)),
            std::vector<runtime::Attempt>{});
  EXPECT_EQ(records.GetJobRun(no_nova.job_run_id, std::nullopt), no_nova);
  // The nova partition holds all of them, and each query sees its own.
  EXPECT_EQ(Partition(NovaPk(kNova)).size(), 6u);
  EXPECT_EQ(repo().ListProviderDatasets(kNova, "ESO").size(), 1u);
  EXPECT_EQ(repo().GetNova(kNova), MakeNova(kNova));
}

// --- Races: 16 threads, exactly one winner
// ------------------------------------

constexpr int kThreads = 16;

template <class T>
int CountOf(const std::vector<T>& results, const T& value) {
  return static_cast<int>(std::count(results.begin(), results.end(), value));
}

TEST_P(RepositoryTest, RaceToCreateOneNova) {
  // Different novae under one id: one kCreated, the others kConflict.
  std::vector<CreateResult> results(kThreads);
  testing::Race(GetParam(), table(), kThreads, [&](int i, Table& client) {
    results[i] = Repository(client).CreateNova(
        MakeNova(kNova, "Nova " + std::to_string(i)));
  });
  ASSERT_EQ(CountOf(results, CreateResult::kCreated), 1);
  EXPECT_EQ(CountOf(results, CreateResult::kConflict), kThreads - 1);
  int winner = static_cast<int>(
      std::find(results.begin(), results.end(), CreateResult::kCreated) -
      results.begin());
  EXPECT_EQ(repo().GetNova(kNova),
            MakeNova(kNova, "Nova " + std::to_string(winner)));
  EXPECT_EQ(Partition("SKY#+47").size(), 1u);

  // The same nova from every thread (retries of one creation): one
  // kCreated, the others kAlreadyExists, one item.
  std::vector<CreateResult> same(kThreads);
  testing::Race(GetParam(), table(), kThreads, [&](int i, Table& client) {
    Nova nova = MakeNova(kNova2);
    nova.created_at = "2026-11-25T13:45:" + std::to_string(10 + i) + "Z";
    same[i] = Repository(client).CreateNova(nova);
  });
  ASSERT_EQ(CountOf(same, CreateResult::kCreated), 1);
  EXPECT_EQ(CountOf(same, CreateResult::kAlreadyExists), kThreads - 1);
  int first = static_cast<int>(
      std::find(same.begin(), same.end(), CreateResult::kCreated) -
      same.begin());
  EXPECT_EQ(repo().GetNova(kNova2)->created_at,
            "2026-11-25T13:45:" + std::to_string(10 + first) + "Z");
  EXPECT_EQ(Partition("SKY#+47").size(), 2u);
}

TEST_P(RepositoryTest, RaceToMapOneAliasToManyNovae) {
  std::vector<std::string> novae;
  for (int i = 0; i < kThreads; ++i)
    novae.push_back("nova-" + std::to_string(100 + i));
  std::vector<AliasResult> results(kThreads);
  testing::Race(GetParam(), table(), kThreads, [&](int i, Table& client) {
    results[i] = Repository(client).PutAlias(MakeAlias(novae[i].c_str()));
  });
  int winner = -1, created = 0;
  for (int i = 0; i < kThreads; ++i)
    if (results[i].status == AliasResult::Status::kCreated)
      winner = i, ++created;
  ASSERT_EQ(created, 1);
  for (int i = 0; i < kThreads; ++i) {
    if (i == winner) continue;
    EXPECT_EQ(results[i].status, AliasResult::Status::kMappedToOtherNova);
    EXPECT_EQ(results[i].other_nova_id, novae[winner]);
  }
  EXPECT_EQ(repo().ResolveName("nova cyg 1975"),
            std::vector<std::string>{novae[winner]});
  EXPECT_EQ(Partition("NAME#nova cyg 1975").size(), 2u);  // claim + alias

  // The same mapping from every thread: one kCreated, the rest confirm.
  std::vector<AliasResult> same(kThreads);
  testing::Race(GetParam(), table(), kThreads, [&](int i, Table& client) {
    same[i] = Repository(client).PutAlias(MakeAlias(kNova, "v1500 cyg"));
  });
  int made = 0, mapped = 0;
  for (const AliasResult& r : same) {
    made += r.status == AliasResult::Status::kCreated;
    mapped += r.status == AliasResult::Status::kAlreadyMapped;
  }
  EXPECT_EQ(made, 1);
  EXPECT_EQ(mapped, kThreads - 1);
}

TEST_P(RepositoryTest, RaceToCreateOneDataset) {
  std::vector<CreateResult> results(kThreads);
  testing::Race(GetParam(), table(), kThreads, [&](int i, Table& client) {
    Dataset d = MakeDataset(kNova, kDs1);
    d.provider_identity = "ESO|identity-" + std::to_string(i);
    results[i] = Repository(client).CreateDataset(d);
  });
  ASSERT_EQ(CountOf(results, CreateResult::kCreated), 1);
  EXPECT_EQ(CountOf(results, CreateResult::kConflict), kThreads - 1);
  EXPECT_EQ(repo().ListProviderDatasets(kNova, "ESO").size(), 1u);

  // One product discovered by 16 runs at once: its id, derived from its
  // identity, makes them meet on one key.
  std::vector<CreateResult> same(kThreads);
  const std::string id = "6f1d2c3b-4a59-5e68-9d7c-8b9a0f1e2d3c";
  testing::Race(GetParam(), table(), kThreads, [&](int i, Table& client) {
    Dataset d = MakeDataset(kNova, id.c_str(), "SAAO");
    d.provider_identity = "SAAO|p-1";
    same[i] = Repository(client).CreateDataset(d);
  });
  EXPECT_EQ(CountOf(same, CreateResult::kCreated), 1);
  EXPECT_EQ(CountOf(same, CreateResult::kAlreadyExists), kThreads - 1);
  EXPECT_EQ(repo().ListProviderDatasets(kNova, "SAAO").size(), 1u);
}

TEST_P(RepositoryTest, RaceForOneLeaseThenForItsExpiredReclaim) {
  Dataset d = MakeDataset(kNova, kDs1);
  d.processing_status = ProcessingStatus::kReady;
  repo().CreateDataset(d);
  for (int64_t now : {1000, 5000}) {  // READY, then expired (1000 + 600)
    std::vector<LeaseResult> results(kThreads);
    testing::Race(GetParam(), table(), kThreads, [&](int i, Table& client) {
      results[i] = Repository(client).AcquireDatasetLease(
          d.key(), "run-" + std::to_string(i), now, 600);
    });
    int winner = -1, acquired = 0;
    for (int i = 0; i < kThreads; ++i)
      if (results[i].status == S::kAcquired) winner = i, ++acquired;
    ASSERT_EQ(acquired, 1) << "now=" << now;
    for (int i = 0; i < kThreads; ++i) {
      if (i == winner) continue;
      EXPECT_EQ(results[i].status, S::kHeldByOther);
      EXPECT_EQ(results[i].owner, "run-" + std::to_string(winner));
      EXPECT_EQ(results[i].expires_at, now + 600);
    }
    Dataset held = *repo().GetDataset(d.key());
    EXPECT_EQ(held.lease_owner, "run-" + std::to_string(winner));
    EXPECT_EQ(held.lease_expires_at, now + 600);
    EXPECT_EQ(held.processing_status, ProcessingStatus::kInProgress);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, RepositoryTest,
                         ::testing::ValuesIn(testing::TestBackends()),
                         testing::BackendName());

}  // namespace
}  // namespace repository_test
}  // namespace novacat::store
