// The step logic of workflow refresh_references, written by hand.
//
// novacat-gen created this file once, from refresh_references.yaml, and never
// touches it again. When a Task is added to the spec, the build fails until the
// method is declared here and written in steps.cpp; when one is removed, its
// `override` below stops compiling.
//
// FetchReferenceCandidates, then one Map item per candidate
// (NormalizeReference -> UpsertReferenceEntity -> LinkNovaReference; the
// Map's item_failure catches QUARANTINE, TERMINAL and RETRYABLE, so any
// item failure quarantines that candidate only), then ComputeDiscoveryDate
// and UpsertDiscoveryDateMetadata. Quarantine causes start with the spec's
// failure case ("reference_parse_failure: ",
// "irreconcilable_discovery_date: ") followed by the domain library's
// message.
//
// What the store keeps: the Reference item has source, source_key, title
// and publication_date as YYYY-MM-DD (the first day of its period) with
// publication_date_precision (YEAR, MONTH, DAY) beside it, and no role; the
// Nova keeps discovery_date the same way (discovery_date_precision) and
// discovery_reference_id. Items without a precision read as DAY. So:
//   - a reference's publication_date is stored as PartialDate::ToIsoDate
//     and its precision; the role is logged by NormalizeReference and
//     re-derived from the candidate (kept in each Map result) by
//     ComputeDiscoveryDate;
//   - the stored discovery_date is read back as the PartialDate it was
//     ("1975-01-01" YEAR is "1975"), so rule version 1 refines a coarse
//     date by a more precise one inside it ("1975" -> "1975-08-30") and
//     never moves it later; the repository's condition is the same order
//     (store/repository.h, UpdateDiscoveryDate), so the decision and the
//     write agree;
//   - the spec's date fields (reference_date, discovery_date_old/new) stay
//     YYYY-MM-DD: UpsertDiscoveryDateMetadata takes discovery_date_new's
//     precision from the candidate of earliest_reference_id in
//     reconcile_results.
#pragma once

#include <string_view>

#include "novacat/workflows/environment.h"
#include "refresh_references/refresh_references.hpp"

namespace novacat::refresh_references {

// The Map item type `candidate` is an object, so every document holding
// reference_candidates would fail to parse (TERMINAL, ending the run) if a
// source returned anything else. FetchReferenceCandidates wraps such a
// candidate as {kNonObjectCandidate: <the value>}; NormalizeReference
// unwraps it and quarantines it with the domain library's message
// ("invalid reference candidate: must be an object, got string").
inline constexpr std::string_view kNonObjectCandidate = "non_object_candidate";

// The spec's ReconcileReferences max_items: more candidates than this are
// refused (TERMINAL) rather than risk the state size limit.
inline constexpr int64_t kMaxReferenceCandidates = 500;

class Steps final : public RefreshReferencesSteps {
 public:
  explicit Steps(const workflows::Environment& env) : env_(env) {}

  // The nova must exist (TERMINAL invalid_nova_id: no reference is linked
  // to a nova the store does not have); then ReferenceSource::Fetch:
  // reference_candidates (non-objects wrapped, see kNonObjectCandidate) and
  // candidate_count. RETRYABLE when the source throttles.
  FetchReferenceCandidatesOutput FetchReferenceCandidates(
      const RefreshReferencesState& state,
      runtime::StepContext& context) override;

  // Tallies state.reconcile_results (upsert_count, link_count,
  // quarantined_count) and decides the discovery date (AP-REF-3's read):
  // the nova's stored discovery_date (GetNova) against this run's linked,
  // credible, dated references (domain::DecideDiscoveryDate; links read
  // with ListNovaReferences). Outputs discovery_date_old (as stored),
  // discovery_date_new (YYYY-MM-DD) and earliest_reference_id (the
  // reference that dates discovery_date_new; the stored
  // discovery_reference_id when the date is unchanged); each is null when
  // there is none.
  // QUARANTINE irreconcilable_discovery_date when one reference carries two
  // dates; RETRYABLE when a link this run wrote is not listed yet.
  ComputeDiscoveryDateOutput ComputeDiscoveryDate(
      const RefreshReferencesState& state,
      runtime::StepContext& context) override;

  // AP-REF-3's write: UpdateDiscoveryDate with discovery_date_new and its
  // precision (that of earliest_reference_id's candidate in this run's
  // reconcile_results; a day when this run has no such reference). Its
  // condition only moves the date earlier in PartialDate's order; losing
  // to an earlier date written meanwhile is fine. No store access at all
  // when discovery_date_new is null, or equal to discovery_date_old and not
  // dated by a reference of this run. TERMINAL when asked to move the
  // stored date later, without an earliest_reference_id, or when that
  // reference's date is not discovery_date_new.
  UpsertDiscoveryDateMetadataOutput UpsertDiscoveryDateMetadata(
      const RefreshReferencesState& state,
      runtime::StepContext& context) override;

  // domain::NormalizeReferenceCandidate: reference_source (who returned
  // it), source ("bibcode" or "doi"), source_key and reference_date (the
  // first day of the publication date; null when undated). QUARANTINE
  // reference_parse_failure naming the member.
  NormalizeReferenceOutput NormalizeReference(
      const ReconcileReferencesItem& item,
      runtime::StepContext& context) override;

  // AP-REF-1: reference_id = domain::ReferenceId(source, source_key) (the
  // same on every run), UpsertReference with the candidate's title and
  // date. The stored `source` is the key's kind ("bibcode"/"doi"), not who
  // returned it, so (source, source_key) always re-derives reference_id and
  // two sources returning one reference write one identical item.
  UpsertReferenceEntityOutput UpsertReferenceEntity(
      const ReconcileReferencesItem& item,
      runtime::StepContext& context) override;

  // AP-REF-2: LinkNovaReference; kCreated and kAlreadyExists are both
  // success (the first linked_at is kept).
  LinkNovaReferenceOutput LinkNovaReference(
      const ReconcileReferencesItem& item,
      runtime::StepContext& context) override;

 private:
  workflows::Environment env_;
};

// Makes the steps over `env` (which must outlive them).
std::unique_ptr<RefreshReferencesSteps> MakeSteps(
    const workflows::Environment& env);

}  // namespace novacat::refresh_references
