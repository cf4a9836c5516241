#include "novacat/domain/references.h"

#include <gtest/gtest.h>

#include "fixture_data.h"
#include "novacat/domain/uuid.h"
#include "test_util.h"

namespace novacat::domain {
namespace references_test {
namespace {

using nlohmann::json;
using testing::Fails;
using testing::ReferenceCandidates;
using Change = DiscoveryDateChange;
using Role = ReferenceRole;

using testing::kGkPer;
using testing::kV1500;

// Ids from Python: uuid.uuid5(UUID(kReferenceIdNamespace), source:key).
constexpr char kIaucId[] = "c0a1c019-e5d7-5d88-8269-ab0639219af6";
constexpr char kFerlandId[] = "801a217d-cc11-52a6-b055-6f200069b794";
constexpr char kStockmanId[] = "e1fca1c2-fee4-510e-bf0e-ca1de2ab96c5";
constexpr char kProgenitorId[] = "31a4e65c-995b-5eec-9924-6af8adbb7b9c";
constexpr char kGcvsId[] = "5df9d7d2-d0d2-5e7a-b6ff-fcdefddea7dc";
constexpr char kIbvsId[] = "915bbb8b-6412-5640-99fd-06d7c6716683";

PartialDate D(std::string_view text) {
  std::optional<PartialDate> d = PartialDate::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d.value_or(*PartialDate::Parse("0001"));
}

// --- PartialDate -------------------------------------------------------------

TEST(PartialDateTest, ParsesTheThreePrecisionsAndTheAdsForms) {
  using P = PartialDate::Precision;
  struct Case {
    const char* text;
    const char* canonical;
    P precision;
    const char* first;
    const char* last;
  };
  for (const Case& c : std::vector<Case>{
           {"1975", "1975", P::kYear, "1975-01-01", "1975-12-31"},
           {"1975-00-00", "1975", P::kYear, "1975-01-01", "1975-12-31"},
           {"1975-08", "1975-08", P::kMonth, "1975-08-01", "1975-08-31"},
           {"1975-08-00", "1975-08", P::kMonth, "1975-08-01", "1975-08-31"},
           {"1975-02", "1975-02", P::kMonth, "1975-02-01", "1975-02-28"},
           {"1976-02", "1976-02", P::kMonth, "1976-02-01", "1976-02-29"},
           {"2000-02-00", "2000-02", P::kMonth, "2000-02-01", "2000-02-29"},
           {"1900-02", "1900-02", P::kMonth, "1900-02-01", "1900-02-28"},
           {"1975-08-30", "1975-08-30", P::kDay, "1975-08-30", "1975-08-30"},
           {"2016-02-29", "2016-02-29", P::kDay, "2016-02-29", "2016-02-29"},
           {"0001", "0001", P::kYear, "0001-01-01", "0001-12-31"},
       }) {
    std::optional<PartialDate> d = PartialDate::Parse(c.text);
    ASSERT_TRUE(d.has_value()) << c.text;
    EXPECT_EQ(d->ToString(), c.canonical) << c.text;
    EXPECT_EQ(d->precision(), c.precision) << c.text;
    EXPECT_EQ(d->FirstDay(), c.first) << c.text;
    EXPECT_EQ(d->LastDay(), c.last) << c.text;
    EXPECT_EQ(d->ToIsoDate(), c.first) << c.text;
    EXPECT_EQ(PartialDate::Parse(d->ToString()), d) << c.text;
  }
  EXPECT_EQ(D("1975-08-30").year(), 1975);
  EXPECT_EQ(D("1975-08-30").month(), 8);
  EXPECT_EQ(D("1975-08-30").day(), 30);
  EXPECT_EQ(D("1975").month(), 0);
  EXPECT_EQ(D("1975-08").day(), 0);
}

TEST(PartialDateTest, RejectsEverythingElse) {
  for (const char* text :
       {"", "75", "19750", "1975-8", "1975-13", "1975-00", "1975-08-32",
        "2015-02-29", "1900-02-29", "1975-00-05", "0000", "1975/08/30",
        "1975-08-30T00:00:00", "abcd", " 1975", "1975-08-3", "-975"}) {
    EXPECT_EQ(PartialDate::Parse(text), std::nullopt) << text;
  }
}

TEST(PartialDateTest, OrderByLastPossibleDayThenPrecision) {
  struct Case {
    const char* earlier;
    const char* later;
  };
  for (const Case& c : std::vector<Case>{
           {"1974", "1975-01-01"},        // disjoint
           {"1975-08", "1975-09-02"},     // disjoint
           {"1975-08", "1975-09-01"},     // disjoint, adjacent
           {"1975-08-30", "1975"},        // nested: the precise one
           {"1975-08-30", "1975-08"},     // nested
           {"1975-08-31", "1975-08"},     // same last day: the precise one
           {"1975-12-31", "1975"},        // same last day
           {"1975-12", "1975"},           // same last day
           {"1975-01-01", "1975-01-02"},  // days
       }) {
    EXPECT_TRUE(D(c.earlier).EarlierThan(D(c.later)))
        << c.earlier << " < " << c.later;
    EXPECT_FALSE(D(c.later).EarlierThan(D(c.earlier)))
        << c.later << " !< " << c.earlier;
  }
  EXPECT_FALSE(D("1975").EarlierThan(D("1975-00-00")));
  EXPECT_FALSE(D("1975-08-30").EarlierThan(D("1975-08-30")));
}

TEST(PartialDateTest, Within) {
  EXPECT_TRUE(D("1975-08-30").Within(D("1975")));
  EXPECT_TRUE(D("1975-08-30").Within(D("1975-08")));
  EXPECT_TRUE(D("1975-08").Within(D("1975")));
  EXPECT_TRUE(D("1975").Within(D("1975")));
  EXPECT_FALSE(D("1975").Within(D("1975-08")));
  EXPECT_FALSE(D("1976-01").Within(D("1975")));
  EXPECT_FALSE(D("1975-07-31").Within(D("1975-08")));
}

// --- Roles -------------------------------------------------------------------

TEST(ReferenceRoleTest, NamesAndCredibility) {
  struct Case {
    Role role;
    const char* name;
    bool credible;
  };
  for (const Case& c : std::vector<Case>{
           {Role::kDiscovery, "DISCOVERY", true},
           {Role::kConfirmation, "CONFIRMATION", true},
           {Role::kSpectroscopy, "SPECTROSCOPY", true},
           {Role::kPhotometry, "PHOTOMETRY", true},
           {Role::kAnalysis, "ANALYSIS", true},
           {Role::kCatalog, "CATALOG", false},
           {Role::kProgenitor, "PROGENITOR", false},
           {Role::kErratum, "ERRATUM", false},
           {Role::kOther, "OTHER", false},
       }) {
    EXPECT_EQ(ToString(c.role), c.name);
    EXPECT_EQ(ParseReferenceRole(c.name), c.role);
    EXPECT_EQ(IsCredibleRole(c.role), c.credible) << c.name;
  }
  EXPECT_EQ(ParseReferenceRole("discovery"), std::nullopt);
}

TEST(PublicationRoleTest, FromAdsDoctype) {
  // The doctype decides, whatever the bibcode's journal says.
  struct Case {
    const char* doctype;
    Role role;
  };
  for (const Case& c : std::vector<Case>{
           {"circular", Role::kDiscovery},
           {"telegram", Role::kDiscovery},
           {"catalog", Role::kCatalog},
           {"erratum", Role::kErratum},
           {"article", Role::kAnalysis},
           {"eprint", Role::kAnalysis},
           {"inproceedings", Role::kAnalysis},
           {"inbook", Role::kAnalysis},
           {"abstract", Role::kAnalysis},
           {"book", Role::kOther},
           {"phdthesis", Role::kOther},
           {"software", Role::kOther},
           {"proposal", Role::kOther},
           {"misc", Role::kOther},
           {"Article", Role::kOther},  // ADS's names are lower case
           {"circular ", Role::kOther},
       }) {
    EXPECT_EQ(PublicationRole("1977ApJ...215..873F", c.doctype), c.role)
        << c.doctype;
    EXPECT_EQ(PublicationRole("1975IAUC.2826....1H", c.doctype), c.role)
        << c.doctype;
    EXPECT_EQ(PublicationRole("", c.doctype), c.role) << c.doctype;
  }
}

TEST(PublicationRoleTest, FromTheBibcodesJournalWithoutADoctype) {
  struct Case {
    const char* bibcode;
    Role role;
  };
  for (const Case& c : std::vector<Case>{
           {"1975IAUC.2826....1H", Role::kDiscovery},
           {"2021CBET.4976....1U", Role::kDiscovery},
           {"2013ATel.5279....1M", Role::kDiscovery},
           {"2021ATel14704....1M", Role::kDiscovery},
           {"1977ApJ...215..873F", Role::kAnalysis},
           {"1976A&A....47..123Y", Role::kAnalysis},
           {"1985GCVS4.C......0K", Role::kAnalysis},  // a journal, no type
           {"1975IBVS.1050....1W", Role::kAnalysis},
           {"1975iauc.2826....1H", Role::kAnalysis},  // journals keep case
           {"1975.IAUC2826....1H", Role::kAnalysis},  // characters 5-9 only
           {"1975IAUC.", Role::kDiscovery},           // 9 characters: enough
           {"1975IAUC", Role::kOther},                // too short a bibcode
           {"", Role::kOther},
       }) {
    EXPECT_EQ(PublicationRole(c.bibcode, ""), c.role) << c.bibcode;
  }
}

// --- NormalizeReferenceCandidate ---------------------------------------------

TEST(NormalizeReferenceCandidateTest, BibcodeIsTheKeyWhenPresent) {
  NormalizedReference r =
      NormalizeReferenceCandidate({{"source", "ADS"},
                                   {"bibcode", "1975IAUC.2826....1H"},
                                   {"title", "Nova Cygni 1975"},
                                   {"publication_date", "1975-08-30"},
                                   {"role", "DISCOVERY"}});
  EXPECT_EQ(r, (NormalizedReference{"ADS", "bibcode", "1975IAUC.2826....1H",
                                    "1975IAUC.2826....1H", std::nullopt,
                                    "Nova Cygni 1975", D("1975-08-30"),
                                    Role::kDiscovery, kIaucId}));
  EXPECT_TRUE(r.credible());
  EXPECT_EQ(r.ToJson(), (json{{"reference_source", "ADS"},
                              {"source", "bibcode"},
                              {"source_key", "1975IAUC.2826....1H"},
                              {"reference_id", kIaucId},
                              {"role", "DISCOVERY"},
                              {"bibcode", "1975IAUC.2826....1H"},
                              {"title", "Nova Cygni 1975"},
                              {"publication_date", "1975-08-30"},
                              {"reference_date", "1975-08-30"}}));

  NormalizedReference both =
      NormalizeReferenceCandidate({{"source", "ADS"},
                                   {"bibcode", " 1977ApJ...215..873F "},
                                   {"doi", "10.1086/155424"},
                                   {"publication_date", "1977-07-00"},
                                   {"role", "ANALYSIS"}});
  EXPECT_EQ(both.source, "bibcode");
  EXPECT_EQ(both.source_key, "1977ApJ...215..873F");
  EXPECT_EQ(both.doi, "10.1086/155424");
  EXPECT_EQ(both.reference_id, kFerlandId);
  EXPECT_EQ(both.publication_date, D("1977-07"));
  EXPECT_EQ(both.ToJson()["reference_date"], "1977-07-01");
  EXPECT_EQ(both.ToJson()["publication_date"], "1977-07");
}

TEST(NormalizeReferenceCandidateTest, DoiIsTheKeyOtherwiseInCanonicalForm) {
  for (const char* doi :
       {"10.1086/166652", "https://doi.org/10.1086/166652",
        "http://doi.org/10.1086/166652", "https://dx.doi.org/10.1086/166652",
        "http://dx.doi.org/10.1086/166652", "doi:10.1086/166652",
        "DOI:10.1086/166652", "HTTPS://DOI.ORG/10.1086/166652",
        "  10.1086/166652\t"}) {
    NormalizedReference r =
        NormalizeReferenceCandidate({{"source", "CROSSREF"}, {"doi", doi}});
    EXPECT_EQ(r.source, "doi") << doi;
    EXPECT_EQ(r.source_key, "10.1086/166652") << doi;
    EXPECT_EQ(r.reference_id, kStockmanId) << doi;
    EXPECT_EQ(r.role, Role::kOther);
    EXPECT_FALSE(r.credible());
  }
  EXPECT_EQ(
      NormalizeReferenceCandidate(
          {{"source", "CROSSREF"}, {"doi", "10.1051/0004-6361/201527700"}})
          .source_key,
      "10.1051/0004-6361/201527700");
  EXPECT_EQ(NormalizeReferenceCandidate(
                {{"source", "X"}, {"doi", "10.1093/MNRAS/STAB123"}})
                .source_key,
            "10.1093/mnras/stab123");
}

TEST(NormalizeReferenceCandidateTest, NullAndBlankMembersAreAbsent) {
  NormalizedReference r =
      NormalizeReferenceCandidate({{"source", "ADS"},
                                   {"bibcode", "1977ApJ...215..873F"},
                                   {"doi", nullptr},
                                   {"title", "  "},
                                   {"publication_date", nullptr},
                                   {"role", nullptr},
                                   {"citation_count", 12}});
  EXPECT_EQ(
      r, (NormalizedReference{"ADS", "bibcode", "1977ApJ...215..873F",
                              "1977ApJ...215..873F", std::nullopt, std::nullopt,
                              std::nullopt, Role::kOther, kFerlandId}));
  EXPECT_EQ(r.ToJson(), (json{{"reference_source", "ADS"},
                              {"source", "bibcode"},
                              {"source_key", "1977ApJ...215..873F"},
                              {"reference_id", kFerlandId},
                              {"role", "OTHER"},
                              {"bibcode", "1977ApJ...215..873F"},
                              {"reference_date", nullptr}}));
}

TEST(NormalizeReferenceCandidateTest,
     ParseFailuresAreQuarantinedNamingTheMember) {
  struct Case {
    json candidate;
    std::string message;
  };
  const json ok = {{"source", "ADS"}, {"bibcode", "1977ApJ...215..873F"}};
  auto with = [&](const char* key, json value) {
    json c = ok;
    c[key] = std::move(value);
    return c;
  };
  for (const Case& c : std::vector<Case>{
           {json("1975IAUC.2827....1S"), ": must be an object, got string"},
           {json::array(), ": must be an object, got array"},
           {{{"bibcode", "1977ApJ...215..873F"}}, ".source: is missing"},
           {with("source", 5), ".source: must be a string, got 5"},
           {{{"source", "ADS"}, {"title", "x"}},
            ": neither bibcode nor doi is present (the reference would have "
            "no stable key)"},
           {with("bibcode", "1975IAUC"),
            ".bibcode: \"1975IAUC\" is not a bibcode (19 characters: a "
            "4-digit year, then letters, digits, '.' or '&')"},
           {with("bibcode", "19A5IAUC.2826....1H"),
            ".bibcode: \"19A5IAUC.2826....1H\" is not a bibcode (19 "
            "characters: a 4-digit year, then letters, digits, '.' or '&')"},
           {with("bibcode", "1975IAUC.2826 ...1H"),
            ".bibcode: \"1975IAUC.2826 ...1H\" is not a bibcode (19 "
            "characters: a 4-digit year, then letters, digits, '.' or '&')"},
           {with("doi", "11.1086/x"),
            ".doi: \"11.1086/x\" is not a DOI (10.<registrant>/<suffix>)"},
           {with("doi", "10.12/x"),
            ".doi: \"10.12/x\" is not a DOI (10.<registrant>/<suffix>)"},
           {with("doi", "10.1086/"),
            ".doi: \"10.1086/\" is not a DOI (10.<registrant>/<suffix>)"},
           {with("doi", "10.1086/a b"),
            ".doi: \"10.1086/a b\" is not a DOI (10.<registrant>/<suffix>)"},
           {with("doi", 42), ".doi: must be a string, got 42"},
           {with("publication_date", "1975-13-01"),
            ".publication_date: \"1975-13-01\" is not a date (YYYY, YYYY-MM "
            "or YYYY-MM-DD)"},
           {with("publication_date", 1975),
            ".publication_date: must be a string, got 1975"},
           {with("title", json::object()), ".title: must be a string, got {}"},
           {with("role", "SPECULATION"),
            ".role: \"SPECULATION\" is not a role (DISCOVERY, CONFIRMATION, "
            "SPECTROSCOPY, PHOTOMETRY, ANALYSIS, CATALOG, PROGENITOR, "
            "ERRATUM, OTHER)"},
       }) {
    EXPECT_TRUE(Fails(
        ReferenceFailure::kInvalidCandidate,
        [&] { NormalizeReferenceCandidate(c.candidate); },
        "invalid reference candidate" + c.message))
        << c.message;
  }
  EXPECT_TRUE(Fails(
      ReferenceFailure::kInvalidCandidate,
      [] {
        NormalizeReferenceCandidate({{"source", "ADS"}},
                                    "reference_candidates[7]");
      },
      "invalid reference reference_candidates[7]: neither bibcode nor doi is "
      "present (the reference would have no stable key)"));
}

TEST(ReferenceKeysTest, IdsAndDedupeKeys) {
  EXPECT_EQ(ReferenceId("bibcode", "1977ApJ...215..873F"), kFerlandId);
  EXPECT_EQ(ReferenceId("doi", "10.1086/166652"), kStockmanId);
  EXPECT_TRUE(IsUuidV5(ReferenceId("doi", "10.1086/166652")));
  EXPECT_EQ(ReferenceUpsertDedupeKey("bibcode", "1975IAUC.2826....1H", 1),
            "ReferenceUpsert:bibcode:1975IAUC.2826....1H:1");
  EXPECT_EQ(ReferenceUpsertDedupeKey("doi", "10.1086/166652", 2),
            "ReferenceUpsert:doi:10.1086/166652:2");
  EXPECT_EQ(NovaReferenceLinkDedupeKey(kV1500, kIaucId),
            std::string("NovaReferenceLink:") + kV1500 + ":" + kIaucId);
  EXPECT_EQ(DiscoveryDateDedupeKey(kV1500, kIaucId, kDiscoveryDateRuleVersion),
            std::string("DiscoveryDate:") + kV1500 + ":" + kIaucId + ":1");
  EXPECT_EQ(kDiscoveryDateRuleVersion, 1);
}

TEST(NormalizeReferenceCandidateTest,
     V1500FixtureCandidatesNormalizeOrQuarantine) {
  std::vector<json> candidates = ReferenceCandidates(kV1500);
  ASSERT_EQ(candidates.size(), 11u);
  std::vector<std::string> ids, quarantined;
  for (size_t i = 0; i < candidates.size(); ++i) {
    try {
      ids.push_back(
          NormalizeReferenceCandidate(
              candidates[i], "reference_candidates[" + std::to_string(i) + "]")
              .reference_id);
    } catch (const ReferenceError& e) {
      quarantined.push_back(e.what());
    }
  }
  // The IAU Circular comes from ADS and from SIMBAD: one reference_id.
  EXPECT_EQ(ids, (std::vector<std::string>{kIaucId, kFerlandId, kStockmanId,
                                           kProgenitorId, kGcvsId, kIaucId,
                                           kIbvsId}));
  EXPECT_EQ(quarantined,
            (std::vector<std::string>{
                "invalid reference reference_candidates[7]: neither bibcode "
                "nor doi is present (the reference would have no stable key)",
                "invalid reference reference_candidates[8].publication_date: "
                "\"1975-13-01\" is not a date (YYYY, YYYY-MM or YYYY-MM-DD)",
                "invalid reference reference_candidates[9].role: "
                "\"SPECULATION\" is not a role (DISCOVERY, CONFIRMATION, "
                "SPECTROSCOPY, PHOTOMETRY, ANALYSIS, CATALOG, PROGENITOR, "
                "ERRATUM, OTHER)",
                "invalid reference reference_candidates[10]: must be an "
                "object, got string"}));
}

// --- Tally -------------------------------------------------------------------

TEST(TallyReconcileResultsTest, CountsUpsertsLinksAndQuarantines) {
  std::vector<json> results = {
      {{"candidate", json::object()}, {"reference_id", kIaucId}},
      {{"reference_id", kFerlandId}, {"quarantined", false}},
      {{"quarantined", true}, {"error", json::object()}},
      {{"reference_id", kStockmanId}, {"quarantined", true}},
      {{"reference_id", nullptr}},
  };
  EXPECT_EQ(TallyReconcileResults(results), (ReconcileTally{3, 2, 2}));
  EXPECT_EQ(TallyReconcileResults({}), ReconcileTally{});
  EXPECT_TRUE(Fails(
      ReferenceFailure::kInvalidReconcileResult,
      [] { TallyReconcileResults({json::array()}); },
      "invalid reconcile result reconcile_results[0]: must be an object, got "
      "array"));
  EXPECT_TRUE(Fails(
      ReferenceFailure::kInvalidReconcileResult,
      [] {
        TallyReconcileResults(
            {json::object(), json{{"reference_id", "not-a-uuid"}}});
      },
      "invalid reconcile result reconcile_results[1].reference_id: must be a "
      "UUID, got \"not-a-uuid\""));
  EXPECT_TRUE(Fails(
      ReferenceFailure::kInvalidReconcileResult,
      [] {
        TallyReconcileResults({json{{"quarantined", 1}}});
      },
      "invalid reconcile result reconcile_results[0].quarantined: must be "
      "true or false, got 1"));
}

// --- DecideDiscoveryDate -----------------------------------------------------

// The V1500 fixture's candidates as evidence (the quarantined ones dropped).
std::vector<DiscoveryEvidence> V1500Evidence() {
  std::vector<DiscoveryEvidence> evidence;
  for (const json& c : ReferenceCandidates(kV1500)) {
    try {
      NormalizedReference r = NormalizeReferenceCandidate(c);
      evidence.push_back({r.reference_id, r.publication_date, r.role});
    } catch (const ReferenceError&) {
    }
  }
  return evidence;
}

TEST(DecideDiscoveryDateTest, FirstRunSetsTheEarliestCredibleDate) {
  // The 1965 progenitor survey is earlier but not credible; the year-only
  // photometry paper nests around the IAU Circular's day and loses to it.
  DiscoveryDateDecision d = DecideDiscoveryDate(std::nullopt, V1500Evidence());
  EXPECT_EQ(d, (DiscoveryDateDecision{std::nullopt, D("1975-08-30"), kIaucId,
                                      Change::kSet}));
  EXPECT_TRUE(d.changed());
  EXPECT_EQ(d.new_date->ToIsoDate(), "1975-08-30");
}

TEST(DecideDiscoveryDateTest, ASecondRunIsANoOp) {
  DiscoveryDateDecision d =
      DecideDiscoveryDate(D("1975-08-30"), V1500Evidence());
  EXPECT_EQ(d, (DiscoveryDateDecision{D("1975-08-30"), D("1975-08-30"), kIaucId,
                                      Change::kUnchanged}));
  EXPECT_FALSE(d.changed());
}

TEST(DecideDiscoveryDateTest, MovesOnlyEarlier) {
  std::vector<DiscoveryEvidence> evidence = V1500Evidence();
  EXPECT_EQ(DecideDiscoveryDate(D("1976-03-01"), evidence),
            (DiscoveryDateDecision{D("1976-03-01"), D("1975-08-30"), kIaucId,
                                   Change::kMovedEarlier}));
  EXPECT_EQ(DecideDiscoveryDate(D("1975-09"), evidence),
            (DiscoveryDateDecision{D("1975-09"), D("1975-08-30"), kIaucId,
                                   Change::kMovedEarlier}));
  // Already earlier than every reference: kept, and no reference dates it.
  EXPECT_EQ(DecideDiscoveryDate(D("1975-08-29"), evidence),
            (DiscoveryDateDecision{D("1975-08-29"), D("1975-08-29"),
                                   std::nullopt, Change::kUnchanged}));
}

TEST(DecideDiscoveryDateTest, RefinesACoarserDateThatContainsTheNewOne) {
  std::vector<DiscoveryEvidence> evidence = V1500Evidence();
  EXPECT_EQ(DecideDiscoveryDate(D("1975"), evidence),
            (DiscoveryDateDecision{D("1975"), D("1975-08-30"), kIaucId,
                                   Change::kRefined}));
  EXPECT_EQ(DecideDiscoveryDate(D("1975-08"), evidence),
            (DiscoveryDateDecision{D("1975-08"), D("1975-08-30"), kIaucId,
                                   Change::kRefined}));
  // A coarser candidate never replaces a precise date inside it.
  EXPECT_EQ(DecideDiscoveryDate(D("1975-08-30"),
                                {{"r", D("1975"), Role::kDiscovery}}),
            (DiscoveryDateDecision{D("1975-08-30"), D("1975-08-30"),
                                   std::nullopt, Change::kUnchanged}));
}

TEST(DecideDiscoveryDateTest, OnlyCredibleDatedReferencesCount) {
  std::vector<DiscoveryEvidence> evidence = {
      {"p", D("1965-03"), Role::kProgenitor}, {"c", D("1960"), Role::kCatalog},
      {"e", D("1950"), Role::kErratum},       {"o", D("1940"), Role::kOther},
      {"u", std::nullopt, Role::kDiscovery},
  };
  EXPECT_EQ(DecideDiscoveryDate(std::nullopt, evidence),
            (DiscoveryDateDecision{std::nullopt, std::nullopt, std::nullopt,
                                   Change::kUnchanged}));
  EXPECT_EQ(DecideDiscoveryDate(D("1975-08-30"), evidence),
            (DiscoveryDateDecision{D("1975-08-30"), D("1975-08-30"),
                                   std::nullopt, Change::kUnchanged}));
  evidence.push_back({"s", D("1975-09"), Role::kSpectroscopy});
  EXPECT_EQ(DecideDiscoveryDate(std::nullopt, evidence).new_date, D("1975-09"));
}

TEST(DecideDiscoveryDateTest, TiesGoToTheSmallestReferenceId) {
  EXPECT_EQ(DecideDiscoveryDate(std::nullopt,
                                {{"b", D("1975-08-30"), Role::kDiscovery},
                                 {"a", D("1975-08-30"), Role::kPhotometry},
                                 {"c", D("1975-08-31"), Role::kDiscovery}})
                .earliest_reference_id,
            "a");
}

TEST(DecideDiscoveryDateTest, OneReferenceWithTwoDatesIsIrreconcilable) {
  EXPECT_TRUE(Fails(
      ReferenceFailure::kIrreconcilableDiscoveryDate,
      [] {
        DecideDiscoveryDate(std::nullopt,
                            {{"r1", D("1975-08-30"), Role::kDiscovery},
                             {"r2", D("1977"), Role::kAnalysis},
                             {"r1", D("1975-09"), Role::kDiscovery}});
      },
      "irreconcilable discovery date: reference r1 is dated both 1975-08-30 "
      "and 1975-09"));
  // The same date twice, or a second date on a non-credible listing, is fine.
  EXPECT_NO_THROW(DecideDiscoveryDate(
      std::nullopt, {{"r1", D("1975-08-30"), Role::kDiscovery},
                     {"r1", D("1975-08-30"), Role::kDiscovery},
                     {"r1", D("1985"), Role::kCatalog}}));
}

TEST(DecideDiscoveryDateTest, GkPerIsUnchanged) {
  std::vector<DiscoveryEvidence> evidence;
  for (const json& c : ReferenceCandidates(kGkPer)) {
    NormalizedReference r = NormalizeReferenceCandidate(c);
    evidence.push_back({r.reference_id, r.publication_date, r.role});
  }
  DiscoveryDateDecision d = DecideDiscoveryDate(D("1901-02-22"), evidence);
  EXPECT_EQ(d, (DiscoveryDateDecision{D("1901-02-22"), D("1901-02-22"),
                                      std::nullopt, Change::kUnchanged}));
}

TEST(DiscoveryDateChangeTest, Names) {
  EXPECT_EQ(ToString(Change::kUnchanged), "UNCHANGED");
  EXPECT_EQ(ToString(Change::kSet), "SET");
  EXPECT_EQ(ToString(Change::kMovedEarlier), "MOVED_EARLIER");
  EXPECT_EQ(ToString(Change::kRefined), "REFINED");
}

}  // namespace
}  // namespace references_test
}  // namespace novacat::domain
