// The fixture files: they load, agree with each other and with the specs,
// and fixtures/README.md describes every one of them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "novacat/domain/novae_fixture.h"
#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "test_util.h"

namespace novacat::domain {
namespace {

using testing::Throws;

std::string ReadText(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FixtureNovaeTest, LoadsTheExistingNovae) {
  std::vector<FixtureNova> novae =
      LoadFixtureNovae("fixtures/novae/existing.json");
  ASSERT_EQ(novae.size(), 2u);
  EXPECT_EQ(novae[0].nova_id, "d4bbdda3-6824-4e82-b1ce-1b781190fbec");
  EXPECT_EQ(novae[0].primary_name, "V1500 CYG");
  EXPECT_EQ(novae[0].names, std::vector<std::string>{"V1500 CYG"});
  EXPECT_EQ(novae[0].ra_deg, 317.9024208);
  EXPECT_EQ(novae[0].dec_deg, 48.1505417);
  EXPECT_EQ(novae[0].epoch, "J2000");
  EXPECT_EQ(novae[0].discovery_date, std::nullopt);
  EXPECT_EQ(novae[1].nova_id, "86cb14e8-2bf7-4bec-9837-df4287f58a01");
  EXPECT_EQ(novae[1].names,
            (std::vector<std::string>{"GK PER", "NOVA PER 1901"}));
  EXPECT_EQ(novae[1].discovery_date, PartialDate::Parse("1901-02-22"));
  std::vector<NovaPosition> positions = PositionsOf(novae);
  ASSERT_EQ(positions.size(), 2u);
  EXPECT_EQ(positions[1].nova_id, novae[1].nova_id);
  EXPECT_EQ(positions[1].ra_deg, 52.79925);
}

TEST(FixtureNovaeTest, RejectsNonCanonicalNames) {
  std::filesystem::path file =
      std::filesystem::temp_directory_path() /
      ("novacat-novae-" +
       std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       ".json");
  {
    std::ofstream out(file);
    out << R"({"format": "novacat.fixture.novae/1", "novae": [
      {"nova_id": "d4bbdda3-6824-4e82-b1ce-1b781190fbec",
       "names": ["V1500 Cygni"], "ra_deg": 1, "dec_deg": 2}]})";
  }
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { LoadFixtureNovae(file); },
      file.generic_string() +
          ": $.novae[0].names[0]: must be the canonical name \"V1500 CYG\""));
  std::filesystem::remove(file);
}

TEST(FixturesTest, ExistingNovaeAreNotResolverPathsByName) {
  // A name in the database never reaches the resolver (ExistsInDB?), so the
  // resolver entries that exercise other paths must not be stored names.
  std::set<std::string> stored;
  for (const FixtureNova& n :
       LoadFixtureNovae("fixtures/novae/existing.json")) {
    stored.insert(n.names.begin(), n.names.end());
  }
  for (const char* name :
       {"NOVA CYG 1975", "TCP J21113658+4809030", "TCP J21113658+4809070",
        "V1674 HER", "BETELGEUSE", "RS OPH", "V1309 SCO", "NOVA SGR 2015",
        "V838 MON", "NOVA OPH 1848", "V1405 CAS", "V339 DEL"}) {
    EXPECT_EQ(stored.count(name), 0u) << name;
  }
}

TEST(FixturesTest, EveryProviderAndReferenceFileLoads) {
  FixtureProvider provider("fixtures/providers");
  FixtureReferenceSource references("fixtures/references");
  for (const FixtureNova& n :
       LoadFixtureNovae("fixtures/novae/existing.json")) {
    for (std::string_view p : kDefaultProviders) {
      ProviderQuery q;
      q.provider = std::string(p);
      q.nova_id = n.nova_id;
      // Throttling, quarantine and data are the fixture's business; a
      // TerminalError would mean a broken file.
      try {
        provider.Query(q);
      } catch (const runtime::TerminalError& e) {
        ADD_FAILURE() << e.what();
      } catch (const runtime::StepError&) {
      }
    }
    try {
      references.Fetch(n.nova_id);
    } catch (const runtime::TerminalError& e) {
      ADD_FAILURE() << e.what();
    } catch (const runtime::StepError&) {
    }
  }
  EXPECT_NO_THROW(FixtureResolver("fixtures/resolver/names.json"));
}

TEST(FixturesTest, TheReadmeDescribesEveryFile) {
  std::string readme = ReadText("fixtures/README.md");
  ASSERT_FALSE(readme.empty());
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator("fixtures")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    std::string relative = entry.path().generic_string();
    EXPECT_NE(readme.find(relative), std::string::npos) << relative;
  }
  EXPECT_EQ(files, 7);
}

// The constants here mirror the specs; a spec change must be seen here.
TEST(SpecAgreementTest, BandsRuleVersionAndIdentityMatchTheSpecs) {
  std::string init = ReadText("specs/initialize_nova.yaml");
  EXPECT_NE(init.find("{field: coordinate_match_min_sep_arcsec, lt: 2}"),
            std::string::npos);
  EXPECT_NE(init.find("{field: coordinate_match_min_sep_arcsec, le: 10}"),
            std::string::npos);
  EXPECT_NE(init.find("enum: [DUPLICATE, AMBIGUOUS, NONE]"), std::string::npos);
  EXPECT_NE(init.find("enum: [YES, NO, AMBIGUOUS]"), std::string::npos);

  std::string refs = ReadText("specs/refresh_references.yaml");
  EXPECT_NE(
      refs.find("rule_version: " + std::to_string(kDiscoveryDateRuleVersion)),
      std::string::npos);
  EXPECT_NE(
      refs.find("\"ReferenceUpsert:{source}:{source_key}:{schema_version}\""),
      std::string::npos);
  EXPECT_NE(refs.find("\"NovaReferenceLink:{nova_id}:{reference_id}\""),
            std::string::npos);
  EXPECT_NE(
      refs.find(
          "\"DiscoveryDate:{nova_id}:{earliest_reference_id}:{rule_version}\""),
      std::string::npos);

  std::string disc = ReadText("specs/discover_spectra_products.yaml");
  EXPECT_NE(disc.find("parts: [provider, product_timestamp]"),
            std::string::npos);
  EXPECT_NE(disc.find("first_of: [url, size, provider_key]"),
            std::string::npos);
  EXPECT_NE(
      disc.find("\"DatasetIdentity:{dataset_identity}:{schema_version}\""),
      std::string::npos);
  EXPECT_NE(disc.find("max_items: 16"), std::string::npos);
  EXPECT_LE(kDefaultProviders.size(), 16u);
}

}  // namespace
}  // namespace novacat::domain
