#include "novacat/domain/constellations.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

namespace novacat::domain {
namespace constellations_test {
namespace {

TEST(ConstellationsTest, AllEightyEightWithDistinctAbbreviationsAndGenitives) {
  ASSERT_EQ(Constellations().size(), 88u);
  std::set<std::string> abbreviations, genitives, folded;
  for (const Constellation& c : Constellations()) {
    EXPECT_EQ(c.abbreviation.size(), 3u) << c.abbreviation;
    abbreviations.insert(std::string(c.abbreviation));
    genitives.insert(std::string(c.genitive));
    std::string upper(c.abbreviation);
    for (char& ch : upper) ch = static_cast<char>(std::toupper(ch));
    folded.insert(upper);
  }
  EXPECT_EQ(abbreviations.size(), 88u);
  EXPECT_EQ(genitives.size(), 88u);
  EXPECT_EQ(folded.size(), 88u);  // distinct ignoring case too
}

TEST(ConstellationsTest, EveryEntryIsFoundByItsAbbreviationAndGenitive) {
  for (const Constellation& c : Constellations()) {
    EXPECT_EQ(FindConstellation(c.abbreviation), &c) << c.abbreviation;
    EXPECT_EQ(FindConstellation(c.genitive), &c) << c.genitive;
  }
}

TEST(ConstellationsTest, SpotChecks) {
  const Constellation* crb = FindConstellation("CRB");
  ASSERT_NE(crb, nullptr);
  EXPECT_EQ(crb->abbreviation, "CrB");
  EXPECT_EQ(crb->name, "Corona Borealis");
  EXPECT_EQ(crb->genitive, "Coronae Borealis");
  EXPECT_EQ(FindConstellation("cyg")->genitive, "Cygni");
  EXPECT_EQ(FindConstellation("Sagittarii")->abbreviation, "Sgr");
  EXPECT_EQ(FindConstellation("Scorpii")->abbreviation, "Sco");
  EXPECT_EQ(FindConstellation("Sculptoris")->abbreviation, "Scl");
  EXPECT_EQ(FindConstellation("Scuti")->abbreviation, "Sct");
  EXPECT_EQ(FindConstellation("Puppis")->abbreviation, "Pup");
  EXPECT_EQ(FindConstellation("Piscis Austrini")->abbreviation, "PsA");
  EXPECT_EQ(FindConstellation("Piscium")->abbreviation, "Psc");
  EXPECT_EQ(FindConstellation("Trianguli Australis")->abbreviation, "TrA");
  EXPECT_EQ(FindConstellation("Trianguli")->abbreviation, "Tri");
  EXPECT_EQ(FindConstellation("Canum Venaticorum")->abbreviation, "CVn");
  EXPECT_EQ(FindConstellation("Camelopardalis")->abbreviation, "Cam");
}

TEST(ConstellationsTest, CaseSpacesAndTheDiaeresisAreIgnored) {
  const Constellation* crb = FindConstellation("CrB");
  EXPECT_EQ(FindConstellation("crb"), crb);
  EXPECT_EQ(FindConstellation("coronae borealis"), crb);
  EXPECT_EQ(FindConstellation("CORONAEBOREALIS"), crb);
  EXPECT_EQ(FindConstellation("Coronae  Borealis"), crb);
  const Constellation* boo = FindConstellation("Boo");
  EXPECT_EQ(FindConstellation("Bo\u00f6tis"), boo);
  EXPECT_EQ(FindConstellation("BO\u00d6TIS"), boo);
  EXPECT_EQ(FindConstellation("Bootis"), boo);
}

TEST(ConstellationsTest, NominativesAndOtherWordsAreNotFound) {
  EXPECT_EQ(FindConstellation("Cygnus"), nullptr);
  EXPECT_EQ(FindConstellation("Sagittarius"), nullptr);
  EXPECT_EQ(FindConstellation("Corona Borealis"), nullptr);
  EXPECT_EQ(FindConstellation(""), nullptr);
  EXPECT_EQ(FindConstellation("  "), nullptr);
  EXPECT_EQ(FindConstellation("Cy"), nullptr);
  EXPECT_EQ(FindConstellation("Cygn"), nullptr);
  // Leo is both the abbreviation and the nominative of Leo.
  EXPECT_EQ(FindConstellation("Leo")->genitive, "Leonis");
}

}  // namespace
}  // namespace constellations_test
}  // namespace novacat::domain
