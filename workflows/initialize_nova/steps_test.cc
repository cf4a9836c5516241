// Unit tests of the initialize_nova step logic: each Task of the spec called
// directly with a hand-built state document, over a MemoryTable repository
// seeded from fixtures/novae/existing.json and the fixture resolver
// (fixtures/resolver/names.json; see fixtures/README.md for what each name
// exercises). Run from the repository root. Failures are checked by their
// exact class and whole message.
#include <gtest/gtest.h>

#include <functional>
#include <latch>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

#include "initialize_nova/steps.hpp"
#include "novacat/domain/fixtures.h"
#include "novacat/domain/names.h"
#include "novacat/domain/novae_fixture.h"
#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/testing/throws.h"
#include "novacat/store/fault_injecting_table.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/repository.h"

namespace novacat::initialize_nova {
namespace steps_test {
namespace {

// The separation a step reports as JSON null (set, without a value), as
// opposed to not reporting it at all (nullopt).
const std::optional<std::optional<double>> kNullSeparation =
    std::make_optional(std::optional<double>());

using json = nlohmann::json;

constexpr const char* kV1500Cyg = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr const char* kGkPer = "86cb14e8-2bf7-4bec-9837-df4287f58a01";
// V1500 CYG's stored position (fixtures/novae/existing.json).
constexpr double kV1500Ra = 317.9024208;
constexpr double kV1500Dec = 48.1505417;
// 2026-11-25T13:45:00Z and five minutes later (a retry).
constexpr int64_t kNow = 1795614300;
constexpr int64_t kLater = 1795614600;

using runtime::testing::Throws;

class InitializeNovaStepsTest : public ::testing::Test {
 protected:
  InitializeNovaStepsTest() {
    context_.workflow_name = "initialize_nova";
    context_.now = kNow;
  }

  // The database of fixtures/novae/existing.json: each nova with its
  // position and every one of its names as an exclusive alias.
  void SeedExistingNovae() {
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
      ASSERT_EQ(repository_.CreateNova(nova), store::CreateResult::kCreated);
      for (const std::string& name : f.names) {
        ASSERT_EQ(repository_
                      .PutAlias({name, f.nova_id, name, "2026-01-01T00:00:00Z"})
                      .status,
                  store::AliasResult::Status::kCreated);
      }
    }
  }

  // A stored nova at (ra, dec) with no alias.
  void AddNova(const std::string& nova_id, double ra, double dec) {
    store::Nova nova;
    nova.nova_id = nova_id;
    nova.primary_name = "EXTRA " + nova_id.substr(0, 4);
    nova.normalized_name = nova.primary_name;
    nova.ra_deg = ra;
    nova.dec_deg = dec;
    nova.status = "ACTIVE";
    nova.created_at = "2026-01-01T00:00:00Z";
    ASSERT_EQ(repository_.CreateNova(nova), store::CreateResult::kCreated);
  }

  // The state after NormalizeCandidateName and CheckExistingNovaByName for
  // a name not in the database.
  static InitializeNovaState Named(const std::string& candidate_name) {
    InitializeNovaState state;
    state.candidate_name = candidate_name;
    state.normalized_candidate_name =
        domain::NormalizeCandidateName(candidate_name);
    state.exists_in_db = false;
    return state;
  }

  // `state` with ResolveCandidateAgainstPublicArchives' output merged in.
  InitializeNovaState Resolved(InitializeNovaState state) {
    ResolveCandidateAgainstPublicArchivesOutput r =
        steps_.ResolveCandidateAgainstPublicArchives(state, context_);
    state.resolved_ra = r.resolved_ra;
    state.resolved_dec = r.resolved_dec;
    state.resolved_epoch = r.resolved_epoch;
    state.is_nova = r.is_nova;
    state.classical_nova_status = r.classical_nova_status;
    state.resolved_aliases = r.resolved_aliases;
    return state;
  }

  std::string Normalize(const std::string& candidate_name) {
    InitializeNovaState state;
    state.candidate_name = candidate_name;
    return steps_.NormalizeCandidateName(state, context_)
        .normalized_candidate_name.value_or("<unset>");
  }

  // Runs domain Task `task` through the generated dispatcher, as the host
  // does: the state document in, the document with the outputs merged out.
  json Run(const std::string& task, const json& document) {
    return Dispatch(steps_, task, document, context_);
  }

  store::MemoryTable table_;
  store::Repository repository_{table_};
  domain::FixtureResolver resolver_{"fixtures/resolver/names.json"};
  domain::FixtureProvider providers_{"fixtures/providers"};
  domain::FixtureReferenceSource references_{"fixtures/references"};
  runtime::SeededRandom random_{20261125};
  workflows::Environment env_{repository_, resolver_, providers_, references_,
                              random_};
  Steps steps_{env_};
  runtime::StepContext context_;
};

// --- NormalizeCandidateName ------------------------------------------------

TEST_F(InitializeNovaStepsTest, NormalizeVariableStarSpellingsMeet) {
  for (const char* name :
       {"V1500 Cyg", "V1500 Cygni", "v1500cyg", "V 1500 Cyg.", "  V1500\t Cyg ",
        "\uff36\uff11\uff15\uff10\uff10 Cyg", "V1500 CYG"}) {
    EXPECT_EQ(Normalize(name), "V1500 CYG") << name;
  }
}

TEST_F(InitializeNovaStepsTest, NormalizeNovaNamesStayTheirOwnAlias) {
  // The same star as V1500 Cyg, but only the archives know that.
  for (const char* name :
       {"Nova Cygni 1975", "Nova Cyg 1975", "N Cyg 1975", "N. Cyg. 1975"}) {
    EXPECT_EQ(Normalize(name), "NOVA CYG 1975") << name;
  }
  EXPECT_EQ(Normalize("Nova Sagittarii 2015 \u2116 2"), "NOVA SGR 2015 NO. 2");
  EXPECT_EQ(Normalize("N Sgr 2015 #2"), "NOVA SGR 2015 NO. 2");
}

TEST_F(InitializeNovaStepsTest, NormalizeOtherDesignations) {
  EXPECT_EQ(Normalize("T Coronae Borealis"), "T CRB");
  EXPECT_EQ(Normalize("RSOph"), "RS OPH");
  EXPECT_EQ(Normalize("AT2021abc"), "AT 2021ABC");
  EXPECT_EQ(Normalize("ASASSN-21qj"), "ASASSN-21QJ");
  EXPECT_EQ(Normalize("PNV J20233073+2046041"), "PNV J20233073+2046041");
  EXPECT_EQ(Normalize("TCP J21113658\u22124809030"), "TCP J21113658-4809030");
}

TEST_F(InitializeNovaStepsTest, NormalizeInvalidNameIsTerminal) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { Normalize(" \t "); },
      "invalid_candidate_name: empty or only whitespace"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { Normalize("V1500 Cyg\n"); },
      "invalid_candidate_name: control character U+000A at byte 9"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { Normalize(std::string(257, 'a')); },
      "invalid_candidate_name: longer than 256 bytes (257)"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { Normalize("V1500 \xff"); },
      "invalid_candidate_name: not valid UTF-8 at byte 6"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.NormalizeCandidateName(InitializeNovaState{}, context_); },
      "invalid_candidate_name: candidate_name is missing"));
}

// --- CheckExistingNovaByName -------------------------------------------------

TEST_F(InitializeNovaStepsTest, NameInTheDatabaseGivesItsNova) {
  SeedExistingNovae();
  for (const char* name : {"V1500 Cyg", "V1500 Cygni", "v1500cyg"}) {
    CheckExistingNovaByNameOutput out =
        steps_.CheckExistingNovaByName(Named(name), context_);
    EXPECT_EQ(out.exists_in_db, true) << name;
    EXPECT_EQ(out.nova_id, kV1500Cyg) << name;
  }
  // A second alias of a nova.
  CheckExistingNovaByNameOutput out =
      steps_.CheckExistingNovaByName(Named("Nova Persei 1901"), context_);
  EXPECT_EQ(out.exists_in_db, true);
  EXPECT_EQ(out.nova_id, kGkPer);
}

TEST_F(InitializeNovaStepsTest, NameNotInTheDatabase) {
  SeedExistingNovae();
  // The alias of a stored nova that is not stored itself: found later by
  // coordinates, not by name.
  for (const char* name : {"Nova Cygni 1975", "V1674 Her"}) {
    CheckExistingNovaByNameOutput out =
        steps_.CheckExistingNovaByName(Named(name), context_);
    EXPECT_EQ(out.exists_in_db, false) << name;
    EXPECT_EQ(out.nova_id, std::nullopt) << name;
  }
}

TEST_F(InitializeNovaStepsTest, NameOfTwoNovaeIsQuarantinedNeverPicked) {
  SeedExistingNovae();
  // Explicitly allowed to map to a second nova: AP-INIT-1 now answers two.
  ASSERT_EQ(
      repository_
          .PutAlias({"V1500 CYG", kGkPer, "V1500 Cyg", "2026-01-02T00:00:00Z"},
                    store::AliasPolicy::kAllowMany)
          .status,
      store::AliasResult::Status::kCreated);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.CheckExistingNovaByName(Named("V1500 Cyg"), context_); },
      "ambiguous_name_resolution: name \"V1500 CYG\" maps to 2 novae: "
      "86cb14e8-2bf7-4bec-9837-df4287f58a01, "
      "d4bbdda3-6824-4e82-b1ce-1b781190fbec"));
}

TEST_F(InitializeNovaStepsTest, CheckByNameWithoutNormalizedNameIsTerminal) {
  InitializeNovaState state;
  state.candidate_name = "V1500 Cyg";
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.CheckExistingNovaByName(state, context_); },
      "internal_invariant_violation: normalized_candidate_name is missing"));
}

// --- ResolveCandidateAgainstPublicArchives -----------------------------------

TEST_F(InitializeNovaStepsTest, ResolvesAClassicalNova) {
  ResolveCandidateAgainstPublicArchivesOutput out =
      steps_.ResolveCandidateAgainstPublicArchives(Named("V1674 Her"),
                                                   context_);
  EXPECT_EQ(out.is_nova, true);
  EXPECT_EQ(out.classical_nova_status, "YES");
  // The first source with a position (SIMBAD).
  EXPECT_EQ(out.resolved_ra, 284.3790833);
  EXPECT_EQ(out.resolved_dec, 16.8943333);
  EXPECT_EQ(out.resolved_epoch, "J2000");
}

TEST_F(InitializeNovaStepsTest, NameNoArchiveKnowsIsNotANova) {
  ResolveCandidateAgainstPublicArchivesOutput out =
      steps_.ResolveCandidateAgainstPublicArchives(Named("Nova Cygni 2026"),
                                                   context_);
  EXPECT_EQ(out.is_nova, false);
  EXPECT_EQ(out.classical_nova_status, "NO");
  EXPECT_EQ(out.resolved_ra, std::nullopt);
  EXPECT_EQ(out.resolved_dec, std::nullopt);
  EXPECT_EQ(out.resolved_epoch, std::nullopt);
}

TEST_F(InitializeNovaStepsTest, FoundButNotANovaKeepsItsPosition) {
  ResolveCandidateAgainstPublicArchivesOutput out =
      steps_.ResolveCandidateAgainstPublicArchives(Named("Betelgeuse"),
                                                   context_);
  EXPECT_EQ(out.is_nova, false);
  EXPECT_EQ(out.classical_nova_status, "NO");
  EXPECT_EQ(out.resolved_ra, 88.792939);
  EXPECT_EQ(out.resolved_dec, 7.407064);
  EXPECT_EQ(out.resolved_epoch, "J2000");
}

TEST_F(InitializeNovaStepsTest, NovaThatIsNotClassical) {
  ResolveCandidateAgainstPublicArchivesOutput out =
      steps_.ResolveCandidateAgainstPublicArchives(Named("RS Ophiuchi"),
                                                   context_);
  EXPECT_EQ(out.is_nova, true);
  EXPECT_EQ(out.classical_nova_status, "NO");
  EXPECT_EQ(out.resolved_ra, 267.55487);
  EXPECT_EQ(out.resolved_dec, -6.70794);
}

TEST_F(InitializeNovaStepsTest, UnsettledClassicalStatusIsAnAnswerNotAnError) {
  // AMBIGUOUS is routed to quarantine by the spec's Choice, not raised.
  ResolveCandidateAgainstPublicArchivesOutput out =
      steps_.ResolveCandidateAgainstPublicArchives(Named("V1309 Sco"),
                                                   context_);
  EXPECT_EQ(out.is_nova, true);
  EXPECT_EQ(out.classical_nova_status, "AMBIGUOUS");
  EXPECT_EQ(out.resolved_ra, 269.3872429);
}

TEST_F(InitializeNovaStepsTest, AmbiguousResolverAnswerIsQuarantined) {
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] {
        steps_.ResolveCandidateAgainstPublicArchives(Named("N Sgr 2015"),
                                                     context_);
      },
      "ambiguous_resolver_result: ambiguous resolver result for \"NOVA SGR "
      "2015\": SIMBAD matched 2 objects (V* V5667 Sgr, V* V5668 Sgr)"));
}

TEST_F(InitializeNovaStepsTest, ConflictingSourcesAreQuarantined) {
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] {
        steps_.ResolveCandidateAgainstPublicArchives(Named("V838 Mon"),
                                                     context_);
      },
      "conflicting_authoritative_sources: conflicting authoritative sources "
      "for \"V838 MON\": SIMBAD says classical_nova_status YES, VSX says NO"));
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] {
        steps_.ResolveCandidateAgainstPublicArchives(Named("Nova Mon 2002"),
                                                     context_);
      },
      "conflicting_authoritative_sources: conflicting authoritative sources "
      "for \"NOVA MON 2002\": SIMBAD and VSX positions are 30.000\" apart "
      "(more "
      "than 2\")"));
}

TEST_F(InitializeNovaStepsTest, NovaWithoutPositionIsTerminal) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] {
        steps_.ResolveCandidateAgainstPublicArchives(Named("Nova Oph 1848"),
                                                     context_);
      },
      "resolver_missing_coordinates: resolver returned no coordinates for "
      "nova \"NOVA OPH 1848\" (sources: SIMBAD)"));
}

TEST_F(InitializeNovaStepsTest, ThrottledTwiceThenAnswers) {
  const InitializeNovaState state = Named("V1405 Cas");
  for (int call = 1; call <= 2; ++call) {
    EXPECT_TRUE(Throws<runtime::RetryableError>(
        [&] { steps_.ResolveCandidateAgainstPublicArchives(state, context_); },
        "transient_dependency_failure: archive resolver throttled the "
        "request for \"V1405 CAS\" (HTTP 429; fixture throttles the first 2 "
        "calls, this is call " +
            std::to_string(call) + ")"));
  }
  ResolveCandidateAgainstPublicArchivesOutput out =
      steps_.ResolveCandidateAgainstPublicArchives(state, context_);
  EXPECT_EQ(out.is_nova, true);
  EXPECT_EQ(out.classical_nova_status, "YES");
  EXPECT_EQ(out.resolved_ra, 351.198875);
  EXPECT_EQ(out.resolved_dec, 61.1874444);
  EXPECT_EQ(resolver_.calls("V1405 CAS"), 3);

  // The count is per resolver instance: a new one is throttled again.
  domain::FixtureResolver fresh("fixtures/resolver/names.json");
  workflows::Environment env{repository_, fresh, providers_, references_,
                             random_};
  Steps steps(env);
  EXPECT_TRUE(Throws<runtime::RetryableError>(
      [&] { steps.ResolveCandidateAgainstPublicArchives(state, context_); },
      "transient_dependency_failure: archive resolver throttled the request "
      "for \"V1405 CAS\" (HTTP 429; fixture throttles the first 2 calls, "
      "this is call 1)"));
  EXPECT_EQ(fresh.calls("V1405 CAS"), 1);
  EXPECT_EQ(resolver_.calls("V1405 CAS"), 3);
}

// A resolver whose every call fails with one ClientError; it records the
// budgets it was given.
class FailingResolver : public domain::ArchiveResolver {
 public:
  explicit FailingResolver(domain::ClientError error)
      : error_(std::move(error)) {}
  domain::Resolution Resolve(std::string_view, int64_t budget_ms) override {
    budgets.push_back(budget_ms);
    throw error_;
  }
  std::vector<int64_t> budgets;

 private:
  domain::ClientError error_;
};

// The archives' failures end in the class the spec gives them, with the
// client's message: unavailable RETRYABLE (transient_dependency_failure),
// an answer that is not one QUARANTINE (malformed_archive_response), a
// refused request TERMINAL; each call within the Task's time less a margin.
TEST_F(InitializeNovaStepsTest, AnExchangeFailureEndsInItsClass) {
  InitializeNovaState state = Named("V1500 CYG");
  context_.remaining_ms = [] { return int64_t{10000}; };
  FailingResolver unavailable(
      domain::ClientError(domain::ClientFailure::kUnavailable,
                          "SIMBAD: HTTP 503 (Retry-After 120 s): busy"));
  FailingResolver malformed(
      domain::ClientError(domain::ClientFailure::kMalformedResponse,
                          "SIMBAD: query failed: Incorrect ADQL query"));
  FailingResolver refused(domain::ClientError(
      domain::ClientFailure::kInvalidRequest, "VSX: HTTP 400: bad ident"));
  workflows::Environment env_unavailable{repository_, unavailable, providers_,
                                         references_, random_};
  workflows::Environment env_malformed{repository_, malformed, providers_,
                                       references_, random_};
  workflows::Environment env_refused{repository_, refused, providers_,
                                     references_, random_};
  Steps with_unavailable(env_unavailable), with_malformed(env_malformed),
      with_refused(env_refused);
  EXPECT_TRUE(Throws<runtime::RetryableError>(
      [&] {
        with_unavailable.ResolveCandidateAgainstPublicArchives(state, context_);
      },
      "transient_dependency_failure: SIMBAD: HTTP 503 (Retry-After 120 s): "
      "busy"));
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] {
        with_malformed.ResolveCandidateAgainstPublicArchives(state, context_);
      },
      "malformed_archive_response: SIMBAD: query failed: Incorrect ADQL "
      "query"));
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] {
        with_refused.ResolveCandidateAgainstPublicArchives(state, context_);
      },
      "VSX: HTTP 400: bad ident"));
  EXPECT_EQ(unavailable.budgets, std::vector<int64_t>{9000});  // a tenth
}

TEST_F(InitializeNovaStepsTest, ResolveWithoutNormalizedNameIsTerminal) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] {
        steps_.ResolveCandidateAgainstPublicArchives(InitializeNovaState{},
                                                     context_);
      },
      "internal_invariant_violation: normalized_candidate_name is missing"));
}

// --- CheckExistingNovaByCoordinates ------------------------------------------

TEST_F(InitializeNovaStepsTest, OneArcsecondAwayIsADuplicateOfThatNova) {
  SeedExistingNovae();
  CheckExistingNovaByCoordinatesOutput out =
      steps_.CheckExistingNovaByCoordinates(
          Resolved(Named("TCP J21113658+4809030")), context_);
  ASSERT_TRUE(out.coordinate_match_min_sep_arcsec.has_value() &&
              out.coordinate_match_min_sep_arcsec->has_value());
  EXPECT_NEAR(**out.coordinate_match_min_sep_arcsec, 1.0, 1e-6);
  EXPECT_EQ(out.coordinate_match_outcome, "DUPLICATE");
  EXPECT_EQ(out.nova_id, kV1500Cyg);
}

TEST_F(InitializeNovaStepsTest, SamePositionIsADuplicateAtZero) {
  SeedExistingNovae();
  CheckExistingNovaByCoordinatesOutput out =
      steps_.CheckExistingNovaByCoordinates(Resolved(Named("Nova Cygni 1975")),
                                            context_);
  EXPECT_EQ(out.coordinate_match_min_sep_arcsec, 0.0);
  EXPECT_EQ(out.coordinate_match_outcome, "DUPLICATE");
  EXPECT_EQ(out.nova_id, kV1500Cyg);
}

TEST_F(InitializeNovaStepsTest, FiveArcsecondsAwayIsAmbiguousWithoutNovaId) {
  SeedExistingNovae();
  CheckExistingNovaByCoordinatesOutput out =
      steps_.CheckExistingNovaByCoordinates(
          Resolved(Named("TCP J21113658+4809070")), context_);
  ASSERT_TRUE(out.coordinate_match_min_sep_arcsec.has_value() &&
              out.coordinate_match_min_sep_arcsec->has_value());
  EXPECT_NEAR(**out.coordinate_match_min_sep_arcsec, 5.0, 1e-6);
  EXPECT_EQ(out.coordinate_match_outcome, "AMBIGUOUS");
  // Never handed downstream: the Choice quarantines the run.
  EXPECT_EQ(out.nova_id, std::nullopt);
}

TEST_F(InitializeNovaStepsTest, FarFromEveryNovaIsNoneWithoutSeparation) {
  SeedExistingNovae();
  CheckExistingNovaByCoordinatesOutput out =
      steps_.CheckExistingNovaByCoordinates(Resolved(Named("V1674 Her")),
                                            context_);
  EXPECT_EQ(out.coordinate_match_min_sep_arcsec, kNullSeparation);
  EXPECT_EQ(out.coordinate_match_outcome, "NONE");
  EXPECT_EQ(out.nova_id, std::nullopt);

  // A nova 30" away in the same declination band is beyond the search
  // radius (10"): still no separation, whatever AP-INIT-4's bands return.
  AddNova("0b5c6f7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f", kV1500Ra,
          kV1500Dec + 30.0 / 3600);
  InitializeNovaState near = Named("Nova Cyg 2027");
  near.is_nova = true;
  near.classical_nova_status = "YES";
  near.resolved_ra = kV1500Ra;
  near.resolved_dec = kV1500Dec + 15.0 / 3600;  // 15" from both
  out = steps_.CheckExistingNovaByCoordinates(near, context_);
  EXPECT_EQ(out.coordinate_match_min_sep_arcsec, kNullSeparation);
  EXPECT_EQ(out.coordinate_match_outcome, "NONE");
  EXPECT_EQ(out.nova_id, std::nullopt);
}

TEST_F(InitializeNovaStepsTest, AmbiguousBandEdgesFollowTheChoice) {
  SeedExistingNovae();
  InitializeNovaState state = Named("Nova Cyg 2027");
  state.is_nova = true;
  state.classical_nova_status = "YES";
  state.resolved_ra = kV1500Ra;
  struct Case {
    double offset_arcsec;
    const char* outcome;
  };
  for (const Case& c : std::vector<Case>{{1.9, "DUPLICATE"},
                                         {2.1, "AMBIGUOUS"},
                                         {9.9, "AMBIGUOUS"},
                                         {10.1, "NONE"}}) {
    state.resolved_dec = kV1500Dec + c.offset_arcsec / 3600;
    CheckExistingNovaByCoordinatesOutput out =
        steps_.CheckExistingNovaByCoordinates(state, context_);
    EXPECT_EQ(out.coordinate_match_outcome, c.outcome) << c.offset_arcsec;
    if (std::string(c.outcome) == "NONE") {
      EXPECT_EQ(out.coordinate_match_min_sep_arcsec, kNullSeparation);
    } else {
      ASSERT_TRUE(out.coordinate_match_min_sep_arcsec.has_value() &&
                  out.coordinate_match_min_sep_arcsec->has_value());
      EXPECT_NEAR(**out.coordinate_match_min_sep_arcsec, c.offset_arcsec, 1e-6);
    }
  }
}

TEST_F(InitializeNovaStepsTest, NoCoordinatesIsNoneWithNullSeparation) {
  SeedExistingNovae();
  CheckExistingNovaByCoordinatesOutput out =
      steps_.CheckExistingNovaByCoordinates(Resolved(Named("Nova Cygni 2026")),
                                            context_);
  EXPECT_EQ(out.coordinate_match_min_sep_arcsec, kNullSeparation);
  EXPECT_EQ(out.coordinate_match_outcome, "NONE");
  EXPECT_EQ(out.nova_id, std::nullopt);
}

TEST_F(InitializeNovaStepsTest, EmptyDatabaseIsNone) {
  CheckExistingNovaByCoordinatesOutput out =
      steps_.CheckExistingNovaByCoordinates(Resolved(Named("V1500 Cyg")),
                                            context_);
  EXPECT_EQ(out.coordinate_match_min_sep_arcsec, kNullSeparation);
  EXPECT_EQ(out.coordinate_match_outcome, "NONE");
  EXPECT_EQ(out.nova_id, std::nullopt);
}

TEST_F(InitializeNovaStepsTest, TwoNovaeWithinTwoArcsecondsAreQuarantined) {
  SeedExistingNovae();
  AddNova("0b5c6f7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f", kV1500Ra,
          kV1500Dec + 1.5 / 3600);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] {
        steps_.CheckExistingNovaByCoordinates(
            Resolved(Named("TCP J21113658+4809030")), context_);
      },
      "coordinate_match_ambiguous: coordinate match is ambiguous: 2 existing "
      "novae within 2\" of (317.9024208, 48.15081947777777): "
      "0b5c6f7e-1a2b-4c3d-8e9f-0a1b2c3d4e5f at 0.500\", "
      "d4bbdda3-6824-4e82-b1ce-1b781190fbec at 1.000\""));
}

TEST_F(InitializeNovaStepsTest, NovaWithoutCoordinatesIsTerminal) {
  InitializeNovaState state = Named("Nova Oph 1848");
  state.is_nova = true;
  state.classical_nova_status = "YES";
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.CheckExistingNovaByCoordinates(state, context_); },
      "resolver_missing_coordinates: the candidate is a nova but has no "
      "resolved_ra / resolved_dec, so the coordinate identity check cannot "
      "run"));
  state.resolved_ra = 10.0;
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.CheckExistingNovaByCoordinates(state, context_); },
      "resolver_missing_coordinates: resolved_ra is set without "
      "resolved_dec"));
  state.resolved_dec = 91.0;
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.CheckExistingNovaByCoordinates(state, context_); },
      "invalid coordinates: resolved_dec = 91 is not in [-90, 90] degrees"));
  state = Named("Nova Cygni 2026");
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.CheckExistingNovaByCoordinates(state, context_); },
      "internal_invariant_violation: is_nova is missing"));
}

// --- CreateNovaId ------------------------------------------------------------

TEST_F(InitializeNovaStepsTest, CreateNovaIdGivesAFreshUuidV4EachCall) {
  const std::string first =
      steps_.CreateNovaId(Named("V1674 Her"), context_).nova_id.value_or("");
  const std::string second =
      steps_.CreateNovaId(Named("V1674 Her"), context_).nova_id.value_or("");
  EXPECT_TRUE(runtime::IsUuidV4(first)) << first;
  EXPECT_TRUE(runtime::IsUuidV4(second)) << second;
  EXPECT_NE(first, second);
  // From the injected source: the same seed gives the same ids.
  runtime::SeededRandom same_seed{20261125};
  workflows::Environment env{repository_, resolver_, providers_, references_,
                             same_seed};
  Steps steps(env);
  EXPECT_EQ(steps.CreateNovaId(Named("V1674 Her"), context_).nova_id, first);
  // Nothing is written.
  EXPECT_TRUE(table_.Scan().empty());
}

// --- UpsertMinimalNovaMetadata -----------------------------------------------

class InitializeNovaUpsertMetadataTest : public InitializeNovaStepsTest {
 protected:
  // The state at UpsertMinimalNovaMetadata for a new classical nova.
  InitializeNovaState NewNova(const std::string& candidate_name) {
    InitializeNovaState state = Resolved(Named(candidate_name));
    state.nova_id = steps_.CreateNovaId(state, context_).nova_id;
    return state;
  }

  // The nova_id of every Nova item in `table`, in table order.
  std::vector<std::string> StoredNovae() { return StoredNovae(table_); }
  static std::vector<std::string> StoredNovae(const store::MemoryTable& table) {
    std::vector<std::string> ids;
    for (const store::Item& item : table.Scan())
      if (item.value("entity", "") == "Nova") ids.push_back(item["nova_id"]);
    return ids;
  }

  // No nova in `table` is an orphan: each has an Alias item naming it.
  bool EveryNovaIsNamed() { return EveryNovaIsNamed(table_); }
  static bool EveryNovaIsNamed(const store::MemoryTable& table) {
    for (const std::string& nova_id : StoredNovae(table)) {
      bool named = false;
      for (const store::Item& item : table.Scan())
        named = named || (item.value("entity", "") == "Alias" &&
                          item.value("nova_id", "") == nova_id);
      if (!named) {
        ADD_FAILURE() << "nova " << nova_id << " has no alias";
        return false;
      }
    }
    return true;
  }
};

TEST_F(InitializeNovaUpsertMetadataTest, WritesTheNovaAndItsAlias) {
  SeedExistingNovae();
  const size_t before = table_.Scan().size();
  const InitializeNovaState state = NewNova("V1674 Her");
  const std::string nova_id = *state.nova_id;
  steps_.UpsertMinimalNovaMetadata(state, context_);

  store::Nova expected;
  expected.nova_id = nova_id;
  expected.primary_name = "V1674 Her";
  expected.normalized_name = "V1674 HER";
  expected.ra_deg = 284.3790833;
  expected.dec_deg = 16.8943333;
  expected.epoch = "J2000";
  expected.status = "ACTIVE";
  expected.created_at = "2026-11-25T13:45:00Z";
  EXPECT_EQ(repository_.GetNova(nova_id), expected);
  EXPECT_EQ(repository_.ResolveName("V1674 HER"),
            std::vector<std::string>{nova_id});
  // Found by position from now on (AP-INIT-4).
  std::vector<store::NovaPosition> near =
      repository_.NovaeNear(284.3790833, 16.8943333, 1.0);
  ASSERT_EQ(near.size(), 1u);
  EXPECT_EQ(near[0].nova_id, nova_id);
  // Exactly the nova, its position, the name claim and the alias.
  EXPECT_EQ(table_.Scan().size(), before + 4);

  // The next run for any spelling of the name finds it by name.
  CheckExistingNovaByNameOutput by_name =
      steps_.CheckExistingNovaByName(Named("v1674 her"), context_);
  EXPECT_EQ(by_name.exists_in_db, true);
  EXPECT_EQ(by_name.nova_id, nova_id);
}

// The archives' other names of the object become the nova's aliases too:
// the candidate's own name skipped, a spelling met twice stored once, a
// name another nova holds left to it and logged, a name that does not
// normalize logged. A retry writes nothing more.
TEST_F(InitializeNovaUpsertMetadataTest, TheResolvedAliasesAreStoredToo) {
  SeedExistingNovae();
  InitializeNovaState state = NewNova("V1674 Her");
  const std::string nova_id = *state.nova_id;
  state.resolved_aliases = std::vector<std::string>{
      "V1674 Her",          "NOVA Her 2021",    "TCP J18573095+1653396",
      "Nova Herculis 2021", "Nova Persei 1901", " \t "};
  std::vector<std::pair<std::string, json>> logs;
  context_.log = [&](std::string_view message, const json& fields) {
    logs.emplace_back(std::string(message), fields);
  };
  const size_t before = table_.Scan().size();
  steps_.UpsertMinimalNovaMetadata(state, context_);
  EXPECT_EQ(repository_.ResolveName("NOVA HER 2021"),
            std::vector<std::string>{nova_id});
  EXPECT_EQ(repository_.ResolveName("TCP J18573095+1653396"),
            std::vector<std::string>{nova_id});
  EXPECT_EQ(repository_.ResolveName("NOVA PER 1901"),
            std::vector<std::string>{kGkPer});
  // The nova, its position, and a claim and an alias for each of its three
  // names.
  EXPECT_EQ(table_.Scan().size(), before + 2 + 2 * 3);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].first, "resolved aliases stored");
  EXPECT_EQ(
      logs[0].second,
      (json{{"aliases_stored", 3},
            {"alias_conflicts", json::array({{{"alias", "NOVA PER 1901"},
                                              {"other_nova_id", kGkPer}}})},
            {"aliases_unusable", json::array({" \t "})}}));
  EXPECT_EQ(logs[1].first, "nova stored");

  const std::vector<store::Item> after_first = table_.Scan();
  context_.now = kLater;
  steps_.UpsertMinimalNovaMetadata(state, context_);
  EXPECT_EQ(table_.Scan(), after_first);
}

// Resolve keeps the first kMaxResolvedAliases of the object's names and
// says how many it dropped.
TEST_F(InitializeNovaStepsTest, ResolvedAliasesAreBounded) {
  class ManyNames : public domain::ArchiveResolver {
   public:
    domain::Resolution Resolve(std::string_view, int64_t) override {
      domain::Resolution r;
      r.found = true;
      r.is_nova = true;
      r.classical_nova_status = domain::ClassicalNovaStatus::kYes;
      r.ra_deg = 284.3790833;
      r.dec_deg = 16.8943333;
      r.epoch = "J2000";
      r.sources = {"SIMBAD"};
      for (int i = 0; i < 70; ++i)
        r.aliases.push_back("HD " + std::to_string(i));
      return r;
    }
  } many;
  workflows::Environment env{repository_, many, providers_, references_,
                             random_};
  Steps steps(env);
  json fields;
  context_.log = [&](std::string_view, const json& f) { fields = f; };
  ResolveCandidateAgainstPublicArchivesOutput out =
      steps.ResolveCandidateAgainstPublicArchives(Named("V1674 Her"), context_);
  ASSERT_TRUE(out.resolved_aliases);
  ASSERT_EQ(out.resolved_aliases->size(), kMaxResolvedAliases);
  EXPECT_EQ(out.resolved_aliases->front(), "HD 0");
  EXPECT_EQ(out.resolved_aliases->back(), "HD 63");
  EXPECT_EQ(fields["alias_count"], 70);
  EXPECT_EQ(fields["aliases_dropped"], 6);
}

TEST_F(InitializeNovaUpsertMetadataTest, TwoRunsOnOneNewNameRaceToOneNova) {
  // Two runs on the same new name, each with its own nova_id, call
  // UpsertMinimalNovaMetadata at once (two threads, started together), many
  // times over. Whatever the interleaving: one nova exists afterwards, the
  // name maps to it, no nova is left that no name points to, the winner
  // answers its own nova_id, and the loser either is quarantined
  // (ambiguous_name_resolution: the name was taken, its nova written) or,
  // having found the winner's claim before the winner's nova, wrote that
  // nova under the winner's nova_id and answers it.
  int quarantined = 0;
  for (int round = 0; round < 200; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    store::MemoryTable table;
    store::Repository repository(table);
    workflows::Environment env{repository, resolver_, providers_, references_,
                               random_};
    Steps steps{env};
    const InitializeNovaState runs[2] = {NewNova("V1674 Her"),
                                         NewNova("V1674 Her")};
    ASSERT_NE(*runs[0].nova_id, *runs[1].nova_id);
    std::optional<std::string> answered[2];
    std::string error[2];
    std::latch start(2);
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
      threads.emplace_back([&, i] {
        runtime::StepContext context = context_;
        start.arrive_and_wait();
        try {
          answered[i] =
              steps.UpsertMinimalNovaMetadata(runs[i], context).nova_id;
        } catch (const runtime::QuarantineError& e) {
          error[i] = e.what();
        }
      });
    }
    for (std::thread& t : threads) t.join();

    const std::vector<std::string> novae = StoredNovae(table);
    ASSERT_EQ(novae.size(), 1u);
    const std::string& winner = novae.front();
    const int w = winner == *runs[0].nova_id ? 0 : 1;
    ASSERT_EQ(winner, *runs[w].nova_id);
    EXPECT_EQ(repository.ResolveName("V1674 HER"),
              std::vector<std::string>{winner});
    EXPECT_TRUE(EveryNovaIsNamed(table));
    EXPECT_EQ(answered[w], winner);
    const int l = 1 - w;
    if (answered[l]) {
      EXPECT_EQ(answered[l], winner);
    } else {
      ++quarantined;
      EXPECT_EQ(error[l],
                "ambiguous_name_resolution: name \"V1674 HER\" is "
                "already claimed by nova " +
                    winner + ", so it cannot also map to nova " +
                    *runs[l].nova_id);
    }
  }
  RecordProperty("loser_quarantined", quarantined);
}

TEST_F(InitializeNovaUpsertMetadataTest, LoserAfterTheWinnerWritesNoNova) {
  // The scripted interleaving: run A completes, then run B (same name, its
  // own nova_id) arrives at UpsertMinimalNovaMetadata.
  const InitializeNovaState a = NewNova("V1674 Her");
  const InitializeNovaState b = NewNova("V1674 Her");
  EXPECT_EQ(steps_.UpsertMinimalNovaMetadata(a, context_).nova_id, *a.nova_id);
  const std::vector<store::Item> after_a = table_.Scan();

  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.UpsertMinimalNovaMetadata(b, context_); },
      "ambiguous_name_resolution: name \"V1674 HER\" is already claimed by "
      "nova " +
          *a.nova_id + ", so it cannot also map to nova " + *b.nova_id));
  EXPECT_EQ(table_.Scan(), after_a);  // nothing written
  EXPECT_EQ(StoredNovae(), std::vector<std::string>{*a.nova_id});
  EXPECT_TRUE(EveryNovaIsNamed());
}

TEST_F(InitializeNovaUpsertMetadataTest, AnAbandonedClaimIsCompletedByTheNext) {
  // Run A's claim landed, then A never came back (its retries exhausted
  // before the nova was written): the next run on the name writes the nova
  // under A's claim instead of being refused forever; A's late retry meets
  // that nova and succeeds.
  const InitializeNovaState a = NewNova("V1674 Her");
  const InitializeNovaState b = NewNova("V1674 Herculis");
  ASSERT_EQ(repository_.ClaimName("V1674 HER", *a.nova_id).status,
            store::AliasResult::Status::kCreated);
  ASSERT_TRUE(StoredNovae().empty());

  EXPECT_EQ(steps_.UpsertMinimalNovaMetadata(b, context_).nova_id, *a.nova_id);
  EXPECT_EQ(StoredNovae(), std::vector<std::string>{*a.nova_id});
  EXPECT_EQ(repository_.GetNova(*a.nova_id)->primary_name, "V1674 Herculis");
  EXPECT_EQ(repository_.ResolveName("V1674 HER"),
            std::vector<std::string>{*a.nova_id});

  // A's nova as A spells it is not the stored one (kConflict), but it is
  // the claim's nova where the archives put it.
  context_.now = kLater;
  EXPECT_EQ(steps_.UpsertMinimalNovaMetadata(a, context_).nova_id, *a.nova_id);
  EXPECT_EQ(StoredNovae(), std::vector<std::string>{*a.nova_id});
  EXPECT_TRUE(EveryNovaIsNamed());
}

TEST_F(InitializeNovaUpsertMetadataTest, CrashAfterEachWriteConverges) {
  // The Task fails RETRYABLE after each of its writes lands (the answer is
  // lost), and Step Functions retries it with the same state: every crash
  // point ends with the one nova, named.
  // PutItems: the claim, the nova, its position, the claim again (PutAlias)
  // and the alias.
  for (int put = 1; put <= 5; ++put) {
    SCOPED_TRACE("PutItem " + std::to_string(put) + " applied then lost");
    store::MemoryTable inner;
    store::FaultInjectingTable faulty(inner);
    faulty.InjectOn(store::Operation::kPutItem, put,
                    store::Fault::kAppliedThenLost);
    store::Repository repository(faulty);
    workflows::Environment env{repository, resolver_, providers_, references_,
                               random_};
    Steps steps{env};
    const InitializeNovaState state = NewNova("V1674 Her");
    EXPECT_THROW(steps.UpsertMinimalNovaMetadata(state, context_),
                 runtime::RetryableError);
    EXPECT_EQ(steps.UpsertMinimalNovaMetadata(state, context_).nova_id,
              *state.nova_id);
    EXPECT_EQ(repository.ResolveName("V1674 HER"),
              std::vector<std::string>{*state.nova_id});
    EXPECT_EQ(StoredNovae(inner), std::vector<std::string>{*state.nova_id});
    EXPECT_TRUE(EveryNovaIsNamed(inner));
  }
}

TEST_F(InitializeNovaUpsertMetadataTest, RetryIsASuccessAndDuplicatesNothing) {
  const InitializeNovaState state = NewNova("Nova Sagittarii 2015 No. 2");
  steps_.UpsertMinimalNovaMetadata(state, context_);
  const std::vector<store::Item> after_first = table_.Scan();
  ASSERT_EQ(after_first.size(), 4u);

  // Step Functions retries the Task (its first call landed but the answer
  // was lost) five minutes later.
  context_.now = kLater;
  context_.attempt_number = 2;
  steps_.UpsertMinimalNovaMetadata(state, context_);
  EXPECT_EQ(table_.Scan(), after_first);
  EXPECT_EQ(repository_.GetNova(*state.nova_id)->created_at,
            "2026-11-25T13:45:00Z");
  EXPECT_EQ(repository_.ResolveName("NOVA SGR 2015 NO. 2"),
            std::vector<std::string>{*state.nova_id});
}

TEST_F(InitializeNovaUpsertMetadataTest,
       NameClaimedByAnotherNovaIsQuarantined) {
  SeedExistingNovae();
  // A race: another run stored the name for another nova after this run's
  // CheckExistingNovaByName.
  InitializeNovaState state = NewNova("V1674 Her");
  ASSERT_EQ(
      repository_
          .PutAlias({"V1674 HER", kGkPer, "V1674 Her", "2026-11-25T13:44:00Z"})
          .status,
      store::AliasResult::Status::kCreated);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.UpsertMinimalNovaMetadata(state, context_); },
      "ambiguous_name_resolution: name \"V1674 HER\" is already claimed by "
      "nova 86cb14e8-2bf7-4bec-9837-df4287f58a01, so it cannot also map to "
      "nova " +
          *state.nova_id));
  EXPECT_EQ(repository_.ResolveName("V1674 HER"),
            std::vector<std::string>{kGkPer});
  // The claim is taken before the nova is written: a run that loses it
  // leaves no nova behind.
  EXPECT_FALSE(repository_.GetNova(*state.nova_id).has_value());
  EXPECT_TRUE(EveryNovaIsNamed());
}

TEST_F(InitializeNovaUpsertMetadataTest, NovaIdHeldByAnotherNovaIsTerminal) {
  SeedExistingNovae();
  InitializeNovaState state = NewNova("V1674 Her");
  state.nova_id = kV1500Cyg;
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.UpsertMinimalNovaMetadata(state, context_); },
      "internal_invariant_violation: nova "
      "d4bbdda3-6824-4e82-b1ce-1b781190fbec already exists with another "
      "identity; the new nova \"V1674 HER\" was not written"));
  EXPECT_EQ(repository_.ResolveName("V1674 HER"), std::vector<std::string>{});
}

TEST_F(InitializeNovaUpsertMetadataTest, MissingFieldsAreTerminal) {
  const InitializeNovaState complete = NewNova("V1674 Her");
  struct Case {
    std::function<void(InitializeNovaState&)> clear;
    const char* field;
  };
  for (const Case& c : std::vector<Case>{
           {[](InitializeNovaState& s) { s.nova_id.reset(); }, "nova_id"},
           {[](InitializeNovaState& s) { s.candidate_name.reset(); },
            "candidate_name"},
           {[](InitializeNovaState& s) { s.normalized_candidate_name.reset(); },
            "normalized_candidate_name"},
           {[](InitializeNovaState& s) { s.resolved_ra.reset(); },
            "resolved_ra"},
           {[](InitializeNovaState& s) { s.resolved_dec.reset(); },
            "resolved_dec"},
       }) {
    InitializeNovaState state = complete;
    c.clear(state);
    EXPECT_TRUE(Throws<runtime::TerminalError>(
        [&] { steps_.UpsertMinimalNovaMetadata(state, context_); },
        std::string("internal_invariant_violation: ") + c.field +
            " is missing"));
  }
  EXPECT_TRUE(table_.Scan().empty());
}

// --- UpsertAliasForExistingNova ----------------------------------------------

TEST_F(InitializeNovaStepsTest, AliasOfTheCoordinateMatchIsStored) {
  SeedExistingNovae();
  InitializeNovaState state = Resolved(Named("Nova Cygni 1975"));
  state.nova_id =
      steps_.CheckExistingNovaByCoordinates(state, context_).nova_id;
  ASSERT_EQ(state.nova_id, kV1500Cyg);
  const size_t before = table_.Scan().size();
  steps_.UpsertAliasForExistingNova(state, context_);
  EXPECT_EQ(repository_.ResolveName("NOVA CYG 1975"),
            std::vector<std::string>{kV1500Cyg});
  EXPECT_EQ(table_.Scan().size(), before + 2);  // the claim and the alias

  // A retry writes nothing.
  const std::vector<store::Item> after_first = table_.Scan();
  context_.now = kLater;
  steps_.UpsertAliasForExistingNova(state, context_);
  EXPECT_EQ(table_.Scan(), after_first);
}

TEST_F(InitializeNovaStepsTest, AliasClaimedByAnotherNovaIsQuarantined) {
  SeedExistingNovae();
  InitializeNovaState state = Named("Nova Persei 1901");
  state.nova_id = kV1500Cyg;
  const std::vector<store::Item> before = table_.Scan();
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.UpsertAliasForExistingNova(state, context_); },
      "ambiguous_name_resolution: name \"NOVA PER 1901\" is already claimed "
      "by nova 86cb14e8-2bf7-4bec-9837-df4287f58a01, so it cannot also map "
      "to nova d4bbdda3-6824-4e82-b1ce-1b781190fbec"));
  EXPECT_EQ(table_.Scan(), before);
}

TEST_F(InitializeNovaStepsTest, AliasWithoutNovaIdIsTerminal) {
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] {
        steps_.UpsertAliasForExistingNova(Named("Nova Cygni 1975"), context_);
      },
      "internal_invariant_violation: nova_id is missing"));
}

// --- The Tasks in sequence, through the generated dispatcher -----------------

TEST_F(InitializeNovaStepsTest, NewClassicalNovaThroughTheDispatcher) {
  SeedExistingNovae();
  json doc = {{"candidate_name", "V1674 Her"}};
  doc = Run("NormalizeCandidateName", doc);
  EXPECT_EQ(doc["normalized_candidate_name"], "V1674 HER");
  doc = Run("CheckExistingNovaByName", doc);
  EXPECT_EQ(doc["exists_in_db"], false);
  doc = Run("ResolveCandidateAgainstPublicArchives", doc);
  EXPECT_EQ(doc["is_nova"], true);
  EXPECT_EQ(doc["classical_nova_status"], "YES");
  doc = Run("CheckExistingNovaByCoordinates", doc);
  EXPECT_EQ(doc["coordinate_match_outcome"], "NONE");
  ASSERT_TRUE(doc.contains("coordinate_match_min_sep_arcsec"));
  EXPECT_TRUE(doc["coordinate_match_min_sep_arcsec"].is_null());
  EXPECT_FALSE(doc.contains("nova_id"));
  doc = Run("CreateNovaId", doc);
  const std::string nova_id = doc["nova_id"];
  EXPECT_TRUE(runtime::IsUuidV4(nova_id));
  doc = Run("UpsertMinimalNovaMetadata", doc);
  EXPECT_EQ(repository_.ResolveName("V1674 HER"),
            std::vector<std::string>{nova_id});
  EXPECT_EQ(repository_.GetNova(nova_id)->ra_deg, 284.3790833);

  // The next run stops at the name.
  json again = Run(
      "CheckExistingNovaByName",
      Run("NormalizeCandidateName", {{"candidate_name", "V1674 Herculis"}}));
  EXPECT_EQ(again["exists_in_db"], true);
  EXPECT_EQ(again["nova_id"], nova_id);
}

TEST_F(InitializeNovaStepsTest, KnownStarUnderANewNameThroughTheDispatcher) {
  SeedExistingNovae();
  json doc = {{"candidate_name", "Nova Cygni 1975"}};
  for (const char* task : {"NormalizeCandidateName", "CheckExistingNovaByName",
                           "ResolveCandidateAgainstPublicArchives",
                           "CheckExistingNovaByCoordinates"}) {
    doc = Run(task, doc);
  }
  EXPECT_EQ(doc["exists_in_db"], false);
  EXPECT_EQ(doc["coordinate_match_min_sep_arcsec"], 0.0);
  EXPECT_EQ(doc["coordinate_match_outcome"], "DUPLICATE");
  EXPECT_EQ(doc["nova_id"], kV1500Cyg);
  doc = Run("UpsertAliasForExistingNova", doc);
  json again =
      Run("CheckExistingNovaByName",
          Run("NormalizeCandidateName", {{"candidate_name", "N Cyg 1975"}}));
  EXPECT_EQ(again["exists_in_db"], true);
  EXPECT_EQ(again["nova_id"], kV1500Cyg);
}

}  // namespace
}  // namespace steps_test
}  // namespace novacat::initialize_nova
