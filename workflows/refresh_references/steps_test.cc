// Unit tests of the refresh_references step logic: the steps over a
// MemoryTable repository and the fixture clients (fixtures/, tests run from
// the repository root), called directly with hand-built items and states.
#include "refresh_references/steps.hpp"

#include <gtest/gtest.h>

#include <string>
#include <typeinfo>
#include <vector>

#include "novacat/domain/fixtures.h"
#include "novacat/domain/novae_fixture.h"
#include "novacat/domain/references.h"
#include "novacat/domain/resolver.h"
#include "novacat/domain/spectra.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/testing/throws.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/repository.h"

namespace novacat::refresh_references {
namespace steps_test {
namespace {

using nlohmann::json;

constexpr const char* kV1500Cyg = "d4bbdda3-6824-4e82-b1ce-1b781190fbec";
constexpr const char* kGkPer = "86cb14e8-2bf7-4bec-9837-df4287f58a01";
constexpr const char* kUnknownNova = "0b7d3c1e-2f4a-4b6c-9d8e-7f6a5b4c3d2e";
constexpr const char* kCorrelationId = "0e6f1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c";
constexpr int64_t kNow = 1795614300;  // 2026-11-25T13:45:00Z

// A nullable output field written as null (not absent).
const std::optional<std::optional<std::string>> kNull{std::in_place};

// reference_ids: UUID v5 in the reference namespace of "<source>:<key>", as
// Python's uuid.uuid5 computes them (independent of this code).
constexpr const char* kCircularId =  // bibcode:1975IAUC.2826....1H
    "c0a1c019-e5d7-5d88-8269-ab0639219af6";
constexpr const char* kFerlandId =  // bibcode:1977ApJ...215..873F
    "801a217d-cc11-52a6-b055-6f200069b794";
constexpr const char* kStockmanId =  // doi:10.1086/166652
    "e1fca1c2-fee4-510e-bf0e-ca1de2ab96c5";
constexpr const char* kProgenitorId =  // bibcode:1965AJ.....70..123P
    "31a4e65c-995b-5eec-9924-6af8adbb7b9c";
constexpr const char* kCatalogId =  // bibcode:1985GCVS4.C......0K
    "5df9d7d2-d0d2-5e7a-b6ff-fcdefddea7dc";
constexpr const char* kPhotometryId =  // bibcode:1975IBVS.1050....1W
    "915bbb8b-6412-5640-99fd-06d7c6716683";
constexpr const char* kGkPerDiscoveryId =  // bibcode:1901MNRAS..61..318A
    "b5c69a72-0a9b-5d40-acad-c802b6496ee0";

using runtime::testing::Throws;

class RefreshReferencesStepsTest : public ::testing::Test {
 protected:
  RefreshReferencesStepsTest() {
    context_.workflow_name = "refresh_references";
    context_.now = kNow;
    // The database of fixtures/novae/existing.json (GK PER with its stored
    // discovery_date, no discovery_reference_id).
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

  static ReconcileReferencesItem Item(const json& candidate,
                                      const std::string& nova_id = kV1500Cyg) {
    ReconcileReferencesItem item;
    item.candidate = candidate;
    item.nova_id = nova_id;
    item.correlation_id = kCorrelationId;
    return item;
  }

  // FetchReferenceCandidates, then every candidate as a Map item of
  // ReconcileReferences: the three Tasks through the generated dispatcher
  // (which merges each Task's outputs into the item document), any step
  // error ending the item as QuarantineItem does (quarantined: true).
  // Returns the state ComputeDiscoveryDate gets.
  RefreshReferencesState Reconcile(const std::string& nova_id) {
    RefreshReferencesState state;
    state.nova_id = nova_id;
    FetchReferenceCandidatesOutput fetched =
        steps_.FetchReferenceCandidates(state, context_);
    state.reference_candidates = fetched.reference_candidates;
    state.candidate_count = fetched.candidate_count;
    state.reconcile_results = ReconcileCandidates(
        nova_id, fetched.reference_candidates.value_or(std::vector<json>{}));
    return state;
  }

  std::vector<json> ReconcileCandidates(const std::string& nova_id,
                                        const std::vector<json>& candidates) {
    std::vector<json> results;
    for (const json& candidate : candidates) {
      json document = {{"candidate", candidate},
                       {"nova_id", nova_id},
                       {"correlation_id", kCorrelationId},
                       {"job_run_id", "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"}};
      try {
        for (const char* state : {"NormalizeReference", "UpsertReferenceEntity",
                                  "LinkNovaReference"}) {
          document = Dispatch(steps_, state, document, context_);
        }
      } catch (const runtime::StepError& e) {
        document["quarantine_reason"] = e.what();
        document["quarantined"] = true;
      }
      results.push_back(document);
    }
    return results;
  }

  // ComputeDiscoveryDate's outputs merged into `state`, as the Task's
  // ResultPath does.
  RefreshReferencesState Compute(RefreshReferencesState state) {
    ComputeDiscoveryDateOutput out =
        steps_.ComputeDiscoveryDate(state, context_);
    state.upsert_count = out.upsert_count;
    state.link_count = out.link_count;
    state.quarantined_count = out.quarantined_count;
    state.earliest_reference_id = out.earliest_reference_id;
    state.discovery_date_old = out.discovery_date_old;
    state.discovery_date_new = out.discovery_date_new;
    return state;
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

// --- FetchReferenceCandidates -----------------------------------------------

TEST_F(RefreshReferencesStepsTest,
       FetchReturnsCandidatesWithNonObjectsWrapped) {
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  FetchReferenceCandidatesOutput out =
      steps_.FetchReferenceCandidates(state, context_);
  EXPECT_EQ(out.candidate_count, 11);
  EXPECT_EQ(out.references_from, "fixtures");
  EXPECT_EQ(out.source_quota,
            std::optional<std::optional<json>>(std::in_place, std::nullopt));
  ASSERT_TRUE(out.reference_candidates);
  ASSERT_EQ(out.reference_candidates->size(), 11u);
  EXPECT_EQ((*out.reference_candidates)[0]["bibcode"], "1975IAUC.2826....1H");
  EXPECT_EQ((*out.reference_candidates)[10],
            (json{{"non_object_candidate", "1975IAUC.2827....1S"}}));
  // Every later document holding the candidates still parses.
  json document = {{"nova_id", kV1500Cyg},
                   {"reference_candidates", *out.reference_candidates}};
  EXPECT_TRUE(RefreshReferencesState::FromJson(document).errors.empty());
}

TEST_F(RefreshReferencesStepsTest, ThrottledSourceIsRetryableThenAnswers) {
  RefreshReferencesState state;
  state.nova_id = kGkPer;
  for (int call = 1; call <= 2; ++call) {
    EXPECT_TRUE(Throws<runtime::RetryableError>(
        [&] { steps_.FetchReferenceCandidates(state, context_); },
        "reference source throttled the fetch for nova "
        "86cb14e8-2bf7-4bec-9837-df4287f58a01 (HTTP 429; fixture throttles the "
        "first 2 calls, this is call " +
            std::to_string(call) + ")"));
  }
  FetchReferenceCandidatesOutput out =
      steps_.FetchReferenceCandidates(state, context_);
  EXPECT_EQ(out.candidate_count, 2);
  EXPECT_EQ(references_.calls(kGkPer), 3);
}

// A source whose every fetch fails with one ClientError; it records what
// it was asked.
class FailingSource : public domain::ReferenceSource {
 public:
  explicit FailingSource(domain::ClientError error)
      : error_(std::move(error)) {}
  domain::ReferenceAnswer Fetch(const domain::ReferenceQuery& query) override {
    asked.push_back(query);
    throw error_;
  }
  std::vector<domain::ReferenceQuery> asked;

 private:
  domain::ClientError error_;
};

// The exchange's failures end in the class the spec gives them, with the
// client's message: an answer that is not one QUARANTINE
// (malformed_reference_response), a refused request TERMINAL. The source is
// asked by the nova's stored name and position, within the Task's time.
TEST_F(RefreshReferencesStepsTest, AnExchangeFailureEndsInItsClass) {
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  context_.remaining_ms = [] { return int64_t{30000}; };
  FailingSource malformed(
      domain::ClientError(domain::ClientFailure::kMalformedResponse,
                          "ADS: malformed answer: no response object"));
  workflows::Environment env{repository_, resolver_, providers_, malformed,
                             random_};
  Steps steps(env);
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps.FetchReferenceCandidates(state, context_); },
      "malformed_reference_response: ADS: malformed answer: no response "
      "object"));
  ASSERT_EQ(malformed.asked.size(), 1u);
  EXPECT_EQ(malformed.asked[0].nova_id, kV1500Cyg);
  EXPECT_EQ(malformed.asked[0].names, std::vector<std::string>{"V1500 CYG"});
  EXPECT_EQ(malformed.asked[0].ra_deg, 317.9024208);
  EXPECT_EQ(malformed.asked[0].dec_deg, 48.1505417);
  EXPECT_EQ(malformed.asked[0].budget_ms, 28000);  // less a 2 s margin
  FailingSource refused(
      domain::ClientError(domain::ClientFailure::kInvalidRequest,
                          "ADS: HTTP 401: {\"error\": \"Unauthorized\"}"));
  workflows::Environment env2{repository_, resolver_, providers_, refused,
                              random_};
  Steps steps2(env2);
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps2.FetchReferenceCandidates(state, context_); },
      "ADS: HTTP 401: {\"error\": \"Unauthorized\"}"));
}

// A source that answers with a quota (ADS): the run records where its
// references came from and what is left of the quota, reset as UTC time.
class QuotaSource : public domain::ReferenceSource {
 public:
  domain::ReferenceAnswer Fetch(const domain::ReferenceQuery&) override {
    return {.source = "ADS",
            .candidates = {json{{"bibcode", "1975IAUC.2826....1H"}}},
            .quota = domain::SourceQuota{
                .limit = 5000, .remaining = 4987, .reset = 1767312000}};
  }
};

TEST_F(RefreshReferencesStepsTest, TheSourcesQuotaIsRecorded) {
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  QuotaSource ads;
  workflows::Environment env{repository_, resolver_, providers_, ads, random_};
  Steps steps(env);
  FetchReferenceCandidatesOutput out =
      steps.FetchReferenceCandidates(state, context_);
  EXPECT_EQ(out.candidate_count, 1);
  EXPECT_EQ(out.references_from, "ADS");
  EXPECT_EQ(out.source_quota, std::optional<std::optional<json>>(
                                  json{{"limit", 5000},
                                       {"remaining", 4987},
                                       {"reset", "2026-01-02T00:00:00Z"}}));
}

TEST_F(RefreshReferencesStepsTest, FetchForAnUnknownNovaIsTerminal) {
  RefreshReferencesState state;
  state.nova_id = kUnknownNova;
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.FetchReferenceCandidates(state, context_); },
      "invalid nova_id: nova 0b7d3c1e-2f4a-4b6c-9d8e-7f6a5b4c3d2e does not "
      "exist"));
  EXPECT_EQ(references_.calls(kUnknownNova), 0);
}

// --- NormalizeReference -----------------------------------------------------

TEST_F(RefreshReferencesStepsTest, NormalizesBibcodeDoiAndPartialDates) {
  NormalizeReferenceOutput circular =
      steps_.NormalizeReference(Item({{"source", "ADS"},
                                      {"bibcode", "1975IAUC.2826....1H"},
                                      {"publication_date", "1975-08-30"},
                                      {"role", "DISCOVERY"}}),
                                context_);
  EXPECT_EQ(circular.reference_source, "ADS");
  EXPECT_EQ(circular.source, "bibcode");
  EXPECT_EQ(circular.source_key, "1975IAUC.2826....1H");
  EXPECT_EQ(circular.reference_date, "1975-08-30");

  // A bibcode is preferred over a DOI; ADS's "1977-07-00" is July 1977,
  // whose first day is the spec's YYYY-MM-DD.
  NormalizeReferenceOutput ferland =
      steps_.NormalizeReference(Item({{"source", "ADS"},
                                      {"bibcode", "1977ApJ...215..873F"},
                                      {"doi", "10.1086/155424"},
                                      {"publication_date", "1977-07-00"}}),
                                context_);
  EXPECT_EQ(ferland.source, "bibcode");
  EXPECT_EQ(ferland.source_key, "1977ApJ...215..873F");
  EXPECT_EQ(ferland.reference_date, "1977-07-01");

  NormalizeReferenceOutput stockman =
      steps_.NormalizeReference(Item({{"source", "CROSSREF"},
                                      {"doi", "https://doi.org/10.1086/166652"},
                                      {"publication_date", "1988-09"}}),
                                context_);
  EXPECT_EQ(stockman.reference_source, "CROSSREF");
  EXPECT_EQ(stockman.source, "doi");
  EXPECT_EQ(stockman.source_key, "10.1086/166652");
  EXPECT_EQ(stockman.reference_date, "1988-09-01");

  // Undated: reference_date is null.
  NormalizeReferenceOutput undated = steps_.NormalizeReference(
      Item({{"source", "ADS"}, {"bibcode", "1975IAUC.2826....1H"}}), context_);
  EXPECT_EQ(undated.reference_date, kNull);
  EXPECT_EQ(undated.ToJson()["reference_date"], nullptr);
}

TEST_F(RefreshReferencesStepsTest, ParseFailuresAreQuarantinedWithTheMember) {
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  std::vector<json> candidates =
      *steps_.FetchReferenceCandidates(state, context_).reference_candidates;
  const std::vector<std::pair<size_t, std::string>> cases = {
      {7,
       "reference_parse_failure: invalid reference candidate: neither bibcode "
       "nor doi is present (the reference would have no stable key)"},
      {8,
       "reference_parse_failure: invalid reference "
       "candidate.publication_date: \"1975-13-01\" is not a date (YYYY, "
       "YYYY-MM or YYYY-MM-DD)"},
      {9,
       "reference_parse_failure: invalid reference candidate.role: "
       "\"SPECULATION\" is not a role (DISCOVERY, CONFIRMATION, SPECTROSCOPY, "
       "PHOTOMETRY, ANALYSIS, CATALOG, PROGENITOR, ERRATUM, OTHER)"},
      {10,
       "reference_parse_failure: invalid reference candidate: must be an "
       "object, got string"},
  };
  for (const auto& [index, message] : cases) {
    EXPECT_TRUE(Throws<runtime::QuarantineError>(
        [&] { steps_.NormalizeReference(Item(candidates[index]), context_); },
        message))
        << "candidate " << index;
  }
}

// --- UpsertReferenceEntity / LinkNovaReference ------------------------------

TEST_F(RefreshReferencesStepsTest, ReferenceIdIsStableAcrossSourcesAndRuns) {
  const json from_ads = {{"source", "ADS"},
                         {"bibcode", "1975IAUC.2826....1H"},
                         {"title", "Nova Cygni 1975"},
                         {"publication_date", "1975-08-30"},
                         {"role", "DISCOVERY"}};
  const json from_simbad = {{"source", "SIMBAD"},
                            {"bibcode", "1975IAUC.2826....1H"},
                            {"publication_date", "1975-08-30"},
                            {"role", "DISCOVERY"}};
  for (const json& candidate : {from_ads, from_simbad, from_ads}) {
    ReconcileReferencesItem item = Item(candidate);
    NormalizeReferenceOutput n = steps_.NormalizeReference(item, context_);
    item.reference_source = n.reference_source;
    item.source = n.source;
    item.source_key = n.source_key;
    item.reference_date = n.reference_date;
    EXPECT_EQ(steps_.UpsertReferenceEntity(item, context_).reference_id,
              kCircularId);
  }
  EXPECT_EQ(domain::ReferenceId("bibcode", "1975IAUC.2826....1H"), kCircularId);
  std::vector<store::Reference> stored = repository_.ListReferences(kV1500Cyg);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0],
            (store::Reference{kV1500Cyg, kCircularId, "bibcode",
                              "1975IAUC.2826....1H", "Nova Cygni 1975",
                              "1975-08-30", "2026-11-25T13:45:00Z"}));
}

TEST_F(RefreshReferencesStepsTest, LinkIsIdempotent) {
  ReconcileReferencesItem item = Item(json::object());
  item.reference_id = kCircularId;
  steps_.LinkNovaReference(item, context_);
  context_.now = kNow + 60;
  steps_.LinkNovaReference(item, context_);  // a retry or a second run
  EXPECT_EQ(repository_.ListNovaReferences(kV1500Cyg),
            (std::vector<store::NovaReference>{
                {kV1500Cyg, kCircularId, "2026-11-25T13:45:00Z"}}));
}

// --- ComputeDiscoveryDate / UpsertDiscoveryDateMetadata ---------------------

TEST_F(RefreshReferencesStepsTest, DiscoveryDateIsSetWhenAbsent) {
  RefreshReferencesState state = Compute(Reconcile(kV1500Cyg));
  // 11 candidates: 7 parse (0 and 5 are one reference), 4 quarantined.
  EXPECT_EQ(state.upsert_count, 7);
  EXPECT_EQ(state.link_count, 7);
  EXPECT_EQ(state.quarantined_count, 4);
  // The circular (DISCOVERY, 1975-08-30) beats the photometry paper dated
  // only 1975 (it nests around it), the progenitor survey of 1965 and the
  // 1985 catalog are not credible.
  EXPECT_EQ(state.discovery_date_old, kNull);
  EXPECT_EQ(state.discovery_date_new, "1975-08-30");
  EXPECT_EQ(state.earliest_reference_id, kCircularId);

  UpsertDiscoveryDateMetadataOutput out =
      steps_.UpsertDiscoveryDateMetadata(state, context_);
  EXPECT_EQ(out.ToJson(), json::object());
  std::optional<store::Nova> nova = repository_.GetNova(kV1500Cyg);
  ASSERT_TRUE(nova);
  EXPECT_EQ(nova->discovery_date, "1975-08-30");
  EXPECT_EQ(nova->discovery_reference_id, kCircularId);

  std::vector<std::string> linked;
  for (const store::NovaReference& link :
       repository_.ListNovaReferences(kV1500Cyg)) {
    linked.push_back(link.reference_id);
  }
  // By reference_id.
  const std::vector<std::string> expected = {kProgenitorId, kCatalogId,
                                             kFerlandId,    kPhotometryId,
                                             kCircularId,   kStockmanId};
  EXPECT_EQ(linked, expected);
  std::vector<std::string> references;
  for (const store::Reference& r : repository_.ListReferences(kV1500Cyg)) {
    references.push_back(r.reference_id);
  }
  EXPECT_EQ(references, expected);

  // The next refresh finds the same references: nothing to change, and
  // the stored reference still dates it.
  context_.now = kNow + 86400;
  RefreshReferencesState again = Compute(Reconcile(kV1500Cyg));
  EXPECT_EQ(again.discovery_date_old, "1975-08-30");
  EXPECT_EQ(again.discovery_date_new, "1975-08-30");
  EXPECT_EQ(again.earliest_reference_id, kCircularId);
  const std::vector<store::Item> before = table_.Scan();
  steps_.UpsertDiscoveryDateMetadata(again, context_);
  EXPECT_EQ(table_.Scan(), before);
}

TEST_F(RefreshReferencesStepsTest,
       LaterReferencesLeaveTheDateUnchangedAndWriteNothing) {
  // GK PER: stored 1901-02-22; the references are of 1901-03 and 1902-06.
  RefreshReferencesState state;
  state.nova_id = kGkPer;
  for (int call = 0; call < 2; ++call) {  // the source throttles twice
    EXPECT_THROW(steps_.FetchReferenceCandidates(state, context_),
                 runtime::RetryableError);
  }
  state = Compute(Reconcile(kGkPer));
  EXPECT_EQ(state.upsert_count, 2);
  EXPECT_EQ(state.link_count, 2);
  EXPECT_EQ(state.quarantined_count, 0);
  EXPECT_EQ(state.discovery_date_old, "1901-02-22");
  EXPECT_EQ(state.discovery_date_new, "1901-02-22");
  // No reference has exactly the stored date, and none is stored with it.
  EXPECT_EQ(state.earliest_reference_id, kNull);

  const std::vector<store::Item> before = table_.Scan();
  steps_.UpsertDiscoveryDateMetadata(state, context_);
  EXPECT_EQ(table_.Scan(), before);
  EXPECT_EQ(repository_.GetNova(kGkPer)->discovery_date, "1901-02-22");
}

TEST_F(RefreshReferencesStepsTest,
       EarlierCredibleReferenceMovesTheDateEarlier) {
  const std::vector<json> candidates = {
      // Earlier, but not credible: ignored.
      {{"source", "ADS"},
       {"bibcode", "1899PASP...11..123Z"},
       {"publication_date", "1899"},
       {"role", "PROGENITOR"}},
      {{"source", "ADS"},
       {"bibcode", "1901MNRAS..61..318A"},
       {"publication_date", "1901-03-00"},
       {"role", "DISCOVERY"}},
      {{"source", "ADS"},
       {"bibcode", "1901AN....154..319W"},
       {"publication_date", "1901-02-21"},
       {"role", "DISCOVERY"}},
  };
  RefreshReferencesState state;
  state.nova_id = kGkPer;
  state.reconcile_results = ReconcileCandidates(kGkPer, candidates);
  state = Compute(state);
  const std::string earliest =
      domain::ReferenceId("bibcode", "1901AN....154..319W");
  EXPECT_EQ(state.discovery_date_old, "1901-02-22");
  EXPECT_EQ(state.discovery_date_new, "1901-02-21");
  EXPECT_EQ(state.earliest_reference_id, earliest);

  steps_.UpsertDiscoveryDateMetadata(state, context_);
  std::optional<store::Nova> nova = repository_.GetNova(kGkPer);
  ASSERT_TRUE(nova);
  EXPECT_EQ(nova->discovery_date, "1901-02-21");
  EXPECT_EQ(nova->discovery_reference_id, earliest);
  // A retry of the landed write changes nothing.
  const std::vector<store::Item> before = table_.Scan();
  steps_.UpsertDiscoveryDateMetadata(state, context_);
  EXPECT_EQ(table_.Scan(), before);

  // The fixture's later references do not move it back.
  for (int call = 0; call < 2; ++call) {
    EXPECT_THROW(Reconcile(kGkPer), runtime::RetryableError);
  }
  RefreshReferencesState later = Compute(Reconcile(kGkPer));
  EXPECT_EQ(later.discovery_date_old, "1901-02-21");
  EXPECT_EQ(later.discovery_date_new, "1901-02-21");
  EXPECT_EQ(later.earliest_reference_id, earliest);
}

TEST_F(RefreshReferencesStepsTest, DiscoveryDateIsNeverMovedLater) {
  RefreshReferencesState state;
  state.nova_id = kGkPer;
  state.discovery_date_old = "1901-02-22";
  state.discovery_date_new = "1901-03-01";
  state.earliest_reference_id = kGkPerDiscoveryId;
  const std::vector<store::Item> before = table_.Scan();
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.UpsertDiscoveryDateMetadata(state, context_); },
      "UpsertDiscoveryDateMetadata: refusing to change discovery_date from "
      "1901-02-22 to 1901-03-01 (it only moves earlier)"));
  EXPECT_EQ(table_.Scan(), before);

  // A stale decision (the date was absent when it was made, another run
  // has stored an earlier one since): the store's condition keeps the
  // earlier date and the step succeeds.
  state.discovery_date_old = kNull;
  steps_.UpsertDiscoveryDateMetadata(state, context_);
  EXPECT_EQ(repository_.GetNova(kGkPer)->discovery_date, "1901-02-22");
}

TEST_F(RefreshReferencesStepsTest, YearOnlyDateIsRefinedByADayWithinIt) {
  // Only the photometry paper dated "1975": stored as 1975-01-01, YEAR.
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  state.reconcile_results =
      ReconcileCandidates(kV1500Cyg, {{{"source", "ADS"},
                                       {"bibcode", "1975IBVS.1050....1W"},
                                       {"publication_date", "1975"},
                                       {"role", "PHOTOMETRY"}}});
  state = Compute(state);
  EXPECT_EQ(state.discovery_date_old, kNull);
  EXPECT_EQ(state.discovery_date_new, "1975-01-01");
  EXPECT_EQ(state.earliest_reference_id, kPhotometryId);
  steps_.UpsertDiscoveryDateMetadata(state, context_);
  std::optional<store::Nova> nova = repository_.GetNova(kV1500Cyg);
  ASSERT_TRUE(nova);
  EXPECT_EQ(nova->discovery_date, "1975-01-01");
  EXPECT_EQ(nova->discovery_date_precision, store::DatePrecision::kYear);
  EXPECT_EQ(nova->discovery_reference_id, kPhotometryId);
  store::Reference photometry = repository_.ListReferences(kV1500Cyg).at(0);
  EXPECT_EQ(photometry.publication_date, "1975-01-01");
  EXPECT_EQ(photometry.publication_date_precision, store::DatePrecision::kYear);

  // The fixture's circular of 1975-08-30 lies within 1975: it refines the
  // stored "1975" (1975-01-01 read back as the year, not as that day).
  RefreshReferencesState refresh = Compute(Reconcile(kV1500Cyg));
  EXPECT_EQ(refresh.discovery_date_old, "1975-01-01");
  EXPECT_EQ(refresh.discovery_date_new, "1975-08-30");
  EXPECT_EQ(refresh.earliest_reference_id, kCircularId);
  steps_.UpsertDiscoveryDateMetadata(refresh, context_);
  nova = repository_.GetNova(kV1500Cyg);
  ASSERT_TRUE(nova);
  EXPECT_EQ(nova->discovery_date, "1975-08-30");
  EXPECT_EQ(nova->discovery_date_precision, store::DatePrecision::kDay);
  EXPECT_EQ(nova->discovery_reference_id, kCircularId);

  // The year-only photometry paper again: it does not coarsen it back.
  RefreshReferencesState again = state;
  again = Compute(again);
  EXPECT_EQ(again.discovery_date_old, "1975-08-30");
  EXPECT_EQ(again.discovery_date_new, "1975-08-30");
  const std::vector<store::Item> before = table_.Scan();
  steps_.UpsertDiscoveryDateMetadata(again, context_);
  EXPECT_EQ(table_.Scan(), before);
  // Nor asked directly (a stale decision that the stored "1975-08-30" is
  // refined by "1975"): TERMINAL, nothing written.
  RefreshReferencesState later = state;
  later.discovery_date_old = "1975-08-30";
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.UpsertDiscoveryDateMetadata(later, context_); },
      "UpsertDiscoveryDateMetadata: refusing to change discovery_date from "
      "1975-08-30 to 1975 (it only moves earlier)"));
  EXPECT_EQ(table_.Scan(), before);
}

TEST_F(RefreshReferencesStepsTest, ReferenceDateIsRefinedNeverCoarsened) {
  const json year = {{"source", "ADS"},
                     {"bibcode", "1975IBVS.1050....1W"},
                     {"publication_date", "1975"},
                     {"role", "PHOTOMETRY"}};
  json day = year;
  day["publication_date"] = "1975-08-30";
  ReconcileCandidates(kV1500Cyg, {year});
  std::vector<store::Reference> refs = repository_.ListReferences(kV1500Cyg);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(store::PartialDateText(*refs[0].publication_date,
                                   refs[0].publication_date_precision),
            "1975");
  ReconcileCandidates(kV1500Cyg, {day});
  refs = repository_.ListReferences(kV1500Cyg);
  EXPECT_EQ(store::PartialDateText(*refs.at(0).publication_date,
                                   refs.at(0).publication_date_precision),
            "1975-08-30");
  ReconcileCandidates(kV1500Cyg, {year});
  refs = repository_.ListReferences(kV1500Cyg);
  EXPECT_EQ(store::PartialDateText(*refs.at(0).publication_date,
                                   refs.at(0).publication_date_precision),
            "1975-08-30");
}

TEST_F(RefreshReferencesStepsTest, OneReferenceWithTwoDatesIsIrreconcilable) {
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  state.reconcile_results =
      ReconcileCandidates(kV1500Cyg, {{{"source", "ADS"},
                                       {"bibcode", "1975IAUC.2826....1H"},
                                       {"publication_date", "1975-08-30"},
                                       {"role", "DISCOVERY"}},
                                      {{"source", "SIMBAD"},
                                       {"bibcode", "1975IAUC.2826....1H"},
                                       {"publication_date", "1975-08-31"},
                                       {"role", "DISCOVERY"}}});
  EXPECT_TRUE(Throws<runtime::QuarantineError>(
      [&] { steps_.ComputeDiscoveryDate(state, context_); },
      "irreconcilable_discovery_date: irreconcilable discovery date: "
      "reference c0a1c019-e5d7-5d88-8269-ab0639219af6 is dated both "
      "1975-08-30 and 1975-08-31"));
}

TEST_F(RefreshReferencesStepsTest, ComputeNeedsTheMapResultsAndTheirLinks) {
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  EXPECT_TRUE(Throws<runtime::TerminalError>(
      [&] { steps_.ComputeDiscoveryDate(state, context_); },
      "ComputeDiscoveryDate: the state has no reconcile_results (the Map "
      "ReconcileReferences did not run)"));

  // A result whose link is not (yet) listed: retried, not decided on.
  state.reconcile_results =
      std::vector<json>{{{"candidate",
                          {{"source", "ADS"},
                           {"bibcode", "1975IAUC.2826....1H"},
                           {"publication_date", "1975-08-30"},
                           {"role", "DISCOVERY"}}},
                         {"nova_id", kV1500Cyg},
                         {"reference_id", kCircularId}}};
  EXPECT_TRUE(Throws<runtime::RetryableError>(
      [&] { steps_.ComputeDiscoveryDate(state, context_); },
      "ComputeDiscoveryDate: reconcile_results[0]: the link of reference "
      "c0a1c019-e5d7-5d88-8269-ab0639219af6 to nova "
      "d4bbdda3-6824-4e82-b1ce-1b781190fbec is not listed yet"));
}

TEST_F(RefreshReferencesStepsTest, NoReferencesLeaveAnAbsentDateAbsent) {
  RefreshReferencesState state;
  state.nova_id = kV1500Cyg;
  state.reconcile_results = std::vector<json>{};
  state = Compute(state);
  EXPECT_EQ(state.upsert_count, 0);
  EXPECT_EQ(state.link_count, 0);
  EXPECT_EQ(state.quarantined_count, 0);
  EXPECT_EQ(state.discovery_date_old, kNull);
  EXPECT_EQ(state.discovery_date_new, kNull);
  EXPECT_EQ(state.earliest_reference_id, kNull);
  const std::vector<store::Item> before = table_.Scan();
  steps_.UpsertDiscoveryDateMetadata(state, context_);
  EXPECT_EQ(table_.Scan(), before);
}

}  // namespace
}  // namespace steps_test
}  // namespace novacat::refresh_references
