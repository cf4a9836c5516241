// The step logic of workflow refresh_references, written by hand (see
// steps.hpp).
#include "refresh_references/steps.hpp"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "novacat/domain/references.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/json_reader.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/failure.h"

namespace novacat::refresh_references {

namespace {

using nlohmann::json;

using runtime::ErrorClass;
using workflows::Fail;

// The spec's id and class of each case of the references' failures
// (domain/references.h): the source's data at fault is quarantined with the
// spec's id; our own documents (the Map's reconcile results) at fault are a
// broken invariant, TERMINAL.
[[noreturn]] void FailReferences(const domain::ReferenceError& error) {
  switch (error.failure()) {
    case domain::ReferenceFailure::kInvalidCandidate:
      Fail(ErrorClass::kQuarantine, "reference_parse_failure", error.what());
    case domain::ReferenceFailure::kIrreconcilableDiscoveryDate:
      Fail(ErrorClass::kQuarantine, "irreconcilable_discovery_date",
           error.what());
    case domain::ReferenceFailure::kInvalidReconcileResult:
      Fail(ErrorClass::kTerminal, "", error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// The exchange with the reference source: a transient failure is retried,
// an answer that is not one quarantined, a refused request TERMINAL, each
// with the client's message.
[[noreturn]] void FailFetch(const domain::ClientError& error) {
  switch (error.failure()) {
    case domain::ClientFailure::kUnavailable:
      Fail(ErrorClass::kRetryable, "", error.what());
    case domain::ClientFailure::kInvalidRequest:
      Fail(ErrorClass::kTerminal, "", error.what());
    case domain::ClientFailure::kMalformedResponse:
      Fail(ErrorClass::kQuarantine, "malformed_reference_response",
           error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// A field the workflow always has at this point (the input's nova_id, a
// field an earlier Task produced): its absence is a broken invariant.
const std::string& Required(const std::optional<std::string>& value,
                            std::string_view state, std::string_view member) {
  if (!value || value->empty()) {
    throw runtime::TerminalError(std::string(state) + ": the document has no " +
                                 std::string(member));
  }
  return *value;
}

// A nullable field's value: nullopt when absent or null.
std::optional<std::string> Value(
    const std::optional<std::optional<std::string>>& field) {
  return field ? *field : std::nullopt;
}

// A nullable output field, always written: the value, or null (an unset
// field would leave the document's member as it was).
std::optional<std::optional<std::string>> Nullable(
    std::optional<std::string> value) {
  return std::optional<std::optional<std::string>>(std::in_place,
                                                   std::move(value));
}

// The raw candidate of a Map item, unwrapped (see kNonObjectCandidate).
const json& RawCandidate(const json& candidate) {
  if (candidate.is_object() && candidate.size() == 1) {
    auto it = candidate.find(std::string(kNonObjectCandidate));
    if (it != candidate.end()) return *it;
  }
  return candidate;
}

// The candidate of a Map item, normalized again by a later step. It was
// normalized successfully by NormalizeReference (the same pure function on
// the same value), so a failure now is a broken invariant, not bad data.
domain::NormalizedReference Renormalize(const json& candidate,
                                        std::string_view where) {
  try {
    return domain::NormalizeReferenceCandidate(RawCandidate(candidate));
  } catch (const domain::ReferenceError& e) {
    throw runtime::TerminalError(
        std::string(where) +
        ": the candidate no longer normalizes: " + e.what());
  }
}

// The store's precision of a partial date.
store::DatePrecision StorePrecision(const domain::PartialDate& date) {
  switch (date.precision()) {
    case domain::PartialDate::Precision::kYear:
      return store::DatePrecision::kYear;
    case domain::PartialDate::Precision::kMonth:
      return store::DatePrecision::kMonth;
    case domain::PartialDate::Precision::kDay:
      break;
  }
  return store::DatePrecision::kDay;
}

// The partial date of a nova's stored discovery_date (its first day and
// precision; an item without the precision reads as a day).
std::optional<domain::PartialDate> StoredDiscoveryDate(const store::Nova& nova,
                                                       std::string_view where) {
  if (!nova.discovery_date) return std::nullopt;
  const std::string text = store::PartialDateText(
      *nova.discovery_date, nova.discovery_date_precision);
  std::optional<domain::PartialDate> date = domain::PartialDate::Parse(text);
  if (!date || date->FirstDay() != *nova.discovery_date) {
    throw runtime::TerminalError(
        std::string(where) + ": nova " + nova.nova_id + " has discovery_date " +
        *nova.discovery_date + " (" +
        store::DatePrecisionName(nova.discovery_date_precision) +
        "), which is not a date");
  }
  return date;
}

}  // namespace

std::unique_ptr<RefreshReferencesSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

FetchReferenceCandidatesOutput Steps::FetchReferenceCandidates(
    const RefreshReferencesState& state, runtime::StepContext& context) {
  constexpr std::string_view kState = "FetchReferenceCandidates";
  const std::string& nova_id = Required(state.nova_id, kState, "nova_id");
  std::optional<store::Nova> nova = env_.repository.GetNova(nova_id);
  if (!nova) {
    throw runtime::TerminalError("invalid nova_id: nova " + nova_id +
                                 " does not exist");
  }
  domain::ReferenceQuery query;
  query.nova_id = nova_id;
  query.names = {nova->primary_name};
  query.ra_deg = nova->ra_deg;
  query.dec_deg = nova->dec_deg;
  query.budget_ms = domain::ClientBudgetMs(context.RemainingMs());
  domain::ReferenceAnswer answer;
  try {
    answer = env_.references.Fetch(query);
  } catch (const domain::ClientError& e) {
    FailFetch(e);
  }
  std::vector<json>& candidates = answer.candidates;
  if (static_cast<int64_t>(candidates.size()) > kMaxReferenceCandidates) {
    throw runtime::TerminalError(
        std::string(kState) + ": " + std::to_string(candidates.size()) +
        " candidates for nova " + nova_id + " exceed the Map's max_items " +
        std::to_string(kMaxReferenceCandidates));
  }
  for (json& candidate : candidates) {
    if (!candidate.is_object()) {
      candidate =
          json{{std::string(kNonObjectCandidate), std::move(candidate)}};
    }
  }
  FetchReferenceCandidatesOutput out;
  out.candidate_count = static_cast<int64_t>(candidates.size());
  out.reference_candidates = std::move(candidates);
  out.references_from = answer.source;
  std::optional<json> quota;
  if (answer.quota) {
    quota = json{{"limit", answer.quota->limit},
                 {"remaining", answer.quota->remaining},
                 {"reset", runtime::FormatTimestamp(answer.quota->reset)}};
  }
  out.source_quota = quota;
  context.Log("reference candidates fetched",
              {{"candidate_count", *out.candidate_count},
               {"references_from", answer.source},
               {"source_quota", quota ? *quota : json(nullptr)}});
  return out;
}

NormalizeReferenceOutput Steps::NormalizeReference(
    const ReconcileReferencesItem& item, runtime::StepContext& context) {
  if (!item.candidate) {
    throw runtime::TerminalError(
        "NormalizeReference: the item has no candidate");
  }
  domain::NormalizedReference ref;
  try {
    ref = domain::NormalizeReferenceCandidate(RawCandidate(*item.candidate));
  } catch (const domain::ReferenceError& e) {
    FailReferences(e);
  }
  NormalizeReferenceOutput out;
  out.reference_source = ref.reference_source;
  out.source = ref.source;
  out.source_key = ref.source_key;
  // Nullable: null for an undated reference.
  std::optional<std::string> date;
  if (ref.publication_date) date = ref.publication_date->ToIsoDate();
  out.reference_date = Nullable(date);
  // The canonical partial date and the role are not spec fields and the
  // store has no place for them: they are logged here and re-derived from
  // the candidate by ComputeDiscoveryDate.
  context.Log("reference normalized",
              {{"reference_source", ref.reference_source},
               {"reference_id", ref.reference_id},
               {"role", std::string(domain::ToString(ref.role))},
               {"publication_date", ref.publication_date
                                        ? json(ref.publication_date->ToString())
                                        : json(nullptr)}});
  return out;
}

UpsertReferenceEntityOutput Steps::UpsertReferenceEntity(
    const ReconcileReferencesItem& item, runtime::StepContext& context) {
  constexpr std::string_view kState = "UpsertReferenceEntity";
  const std::string& nova_id = Required(item.nova_id, kState, "nova_id");
  const std::string& source = Required(item.source, kState, "source");
  const std::string& source_key =
      Required(item.source_key, kState, "source_key");
  if (!item.candidate) {
    throw runtime::TerminalError(std::string(kState) +
                                 ": the document has no candidate");
  }
  // The title is only in the candidate; its identity must be the one
  // NormalizeReference produced.
  domain::NormalizedReference ref = Renormalize(*item.candidate, kState);
  if (ref.source != source || ref.source_key != source_key) {
    throw runtime::TerminalError(
        std::string(kState) + ": the candidate is " + ref.source + ":" +
        ref.source_key + ", the item says " + source + ":" + source_key);
  }

  store::Reference reference;
  reference.nova_id = nova_id;
  reference.reference_id = domain::ReferenceId(source, source_key);
  reference.source = source;
  reference.source_key = source_key;
  reference.title = ref.title;
  if (ref.publication_date) {
    reference.publication_date = ref.publication_date->ToIsoDate();
    reference.publication_date_precision =
        StorePrecision(*ref.publication_date);
  }
  reference.updated_at = runtime::FormatTimestamp(context.now);
  env_.repository.UpsertReference(reference);

  UpsertReferenceEntityOutput out;
  out.reference_id = reference.reference_id;
  return out;
}

LinkNovaReferenceOutput Steps::LinkNovaReference(
    const ReconcileReferencesItem& item, runtime::StepContext& context) {
  constexpr std::string_view kState = "LinkNovaReference";
  const std::string& nova_id = Required(item.nova_id, kState, "nova_id");
  const std::string& reference_id =
      Required(item.reference_id, kState, "reference_id");
  store::CreateResult result = env_.repository.LinkNovaReference(
      {nova_id, reference_id, runtime::FormatTimestamp(context.now)});
  if (result == store::CreateResult::kConflict) {
    // The key is the link's whole identity: the repository never answers
    // this.
    throw runtime::TerminalError(std::string(kState) + ": link of reference " +
                                 reference_id + " answered CONFLICT");
  }
  context.Log("reference linked", {{"reference_id", reference_id},
                                   {"link", store::CreateResultName(result)}});
  return {};
}

ComputeDiscoveryDateOutput Steps::ComputeDiscoveryDate(
    const RefreshReferencesState& state, runtime::StepContext& context) {
  constexpr std::string_view kState = "ComputeDiscoveryDate";
  const std::string& nova_id = Required(state.nova_id, kState, "nova_id");
  if (!state.reconcile_results) {
    throw runtime::TerminalError(
        std::string(kState) +
        ": the state has no reconcile_results (the Map ReconcileReferences "
        "did not run)");
  }
  const std::vector<json>& results = *state.reconcile_results;
  domain::ReconcileTally tally;
  try {
    tally = domain::TallyReconcileResults(results);
  } catch (const domain::ReferenceError& e) {
    FailReferences(e);
  }

  std::optional<store::Nova> nova = env_.repository.GetNova(nova_id);
  if (!nova) {
    throw runtime::TerminalError("invalid nova_id: nova " + nova_id +
                                 " does not exist");
  }
  // Stored as its first day and precision (see steps.hpp).
  const std::optional<domain::PartialDate> current =
      StoredDiscoveryDate(*nova, kState);

  // AP-REF-3's read: the nova's links. Evidence is this run's linked
  // references, with the role and the exact partial date re-derived from
  // each result's candidate. Earlier runs' references are already in the
  // stored discovery_date (which only ever moves earlier), and the store
  // does not keep their role.
  std::set<std::string> linked;
  for (const store::NovaReference& link :
       env_.repository.ListNovaReferences(nova_id)) {
    linked.insert(link.reference_id);
  }
  std::vector<domain::DiscoveryEvidence> evidence;
  for (size_t i = 0; i < results.size(); ++i) {
    const json& result = results[i];
    if (result.value("quarantined", false)) continue;
    auto id = result.find("reference_id");
    if (id == result.end() || !id->is_string()) continue;
    const std::string where =
        std::string(kState) + ": reconcile_results[" + std::to_string(i) + "]";
    auto candidate = result.find("candidate");
    if (candidate == result.end()) {
      throw runtime::TerminalError(where + " has no candidate");
    }
    domain::NormalizedReference ref = Renormalize(*candidate, where);
    if (ref.reference_id != id->get<std::string>()) {
      throw runtime::TerminalError(where + " has reference_id " +
                                   id->get<std::string>() +
                                   " but its candidate is " + ref.reference_id);
    }
    if (!linked.contains(ref.reference_id)) {
      throw runtime::RetryableError(where + ": the link of reference " +
                                    ref.reference_id + " to nova " + nova_id +
                                    " is not listed yet");
    }
    evidence.push_back({ref.reference_id, ref.publication_date, ref.role});
  }

  domain::DiscoveryDateDecision decision;
  try {
    decision = domain::DecideDiscoveryDate(current, evidence);
  } catch (const domain::ReferenceError& e) {
    FailReferences(e);
  }

  ComputeDiscoveryDateOutput out;
  out.upsert_count = tally.upsert_count;
  out.link_count = tally.link_count;
  out.quarantined_count = tally.quarantined_count;
  // The three nullable fields are always written: null means "none".
  out.discovery_date_old = Nullable(nova->discovery_date);
  out.discovery_date_new =
      Nullable(decision.new_date
                   ? std::optional<std::string>(decision.new_date->ToIsoDate())
                   : std::nullopt);
  if (decision.changed()) {
    if (!decision.earliest_reference_id) {
      throw runtime::TerminalError(
          std::string(kState) +
          ": the decision changed discovery_date without a reference");
    }
    out.earliest_reference_id = Nullable(decision.earliest_reference_id);
  } else {
    // Unchanged: the reference that dated the stored date, when known.
    out.earliest_reference_id =
        Nullable(nova->discovery_reference_id ? nova->discovery_reference_id
                                              : decision.earliest_reference_id);
  }
  context.Log("discovery date decided",
              {{"change", std::string(domain::ToString(decision.change))},
               {"evidence_count", evidence.size()},
               {"rule_version", domain::kDiscoveryDateRuleVersion}});
  return out;
}

UpsertDiscoveryDateMetadataOutput Steps::UpsertDiscoveryDateMetadata(
    const RefreshReferencesState& state, runtime::StepContext& context) {
  constexpr std::string_view kState = "UpsertDiscoveryDateMetadata";
  const std::string& nova_id = Required(state.nova_id, kState, "nova_id");
  const std::optional<std::string> old_date = Value(state.discovery_date_old);
  const std::optional<std::string> new_date = Value(state.discovery_date_new);
  const std::optional<std::string> reference_id =
      Value(state.earliest_reference_id);
  if (!new_date) {
    context.Log("discovery_date unchanged: nothing written");
    return {};
  }
  // The new date's precision: the partial date of the reference that dates
  // it, when this run reconciled that reference.
  std::optional<domain::PartialDate> date;
  if (reference_id && state.reconcile_results) {
    for (size_t i = 0; i < state.reconcile_results->size() && !date; ++i) {
      const json& result = (*state.reconcile_results)[i];
      if (result.value("quarantined", false)) continue;
      auto id = result.find("reference_id");
      if (id == result.end() || *id != *reference_id) continue;
      auto candidate = result.find("candidate");
      if (candidate == result.end()) continue;
      const std::string where = std::string(kState) + ": reconcile_results[" +
                                std::to_string(i) + "]";
      date = Renormalize(*candidate, where).publication_date;
      if (!date || date->ToIsoDate() != *new_date) {
        throw runtime::TerminalError(
            where + ": reference " + *reference_id + " is dated " +
            (date ? date->ToString() : "none") + ", not " + *new_date);
      }
    }
  }
  if (!date) {
    // No reference of this run dates it: unchanged when equal (no store
    // access at all), else a day (what the spec's date field says).
    if (new_date == old_date) {
      context.Log("discovery_date unchanged: nothing written");
      return {};
    }
    date = domain::PartialDate::Parse(*new_date);
    if (!date || date->ToIsoDate() != *new_date) {
      throw runtime::TerminalError(std::string(kState) +
                                   ": discovery_date_new " + *new_date +
                                   " is not YYYY-MM-DD");
    }
  }
  // The decision never moves the date later (PartialDate's order); refuse
  // rather than ask the store to (it would refuse too). The stored date is
  // the decision's old one when it has the same first day.
  std::optional<store::Nova> nova = env_.repository.GetNova(nova_id);
  if (!nova) {
    throw runtime::TerminalError("invalid nova_id: nova " + nova_id +
                                 " does not exist");
  }
  std::optional<domain::PartialDate> stored =
      StoredDiscoveryDate(*nova, kState);
  if (old_date && stored && stored->ToIsoDate() == *old_date &&
      !date->EarlierThan(*stored) && *date != *stored) {
    throw runtime::TerminalError(std::string(kState) +
                                 ": refusing to change discovery_date from " +
                                 stored->ToString() + " to " +
                                 date->ToString() + " (it only moves earlier)");
  }
  const std::string& earliest =
      Required(reference_id, kState, "earliest_reference_id");
  store::DiscoveryDateResult result = env_.repository.UpdateDiscoveryDate(
      nova_id, date->ToIsoDate(), earliest, StorePrecision(*date));
  switch (result.status) {
    case store::DiscoveryDateResult::Status::kUpdated:
      context.Log("discovery_date updated",
                  {{"discovery_date", date->ToString()},
                   {"earliest_reference_id", earliest}});
      break;
    case store::DiscoveryDateResult::Status::kUnchanged:
      // A retry whose first write landed (the stored date is ours), the
      // same reference found again, or another run stored a date at least
      // as early meanwhile: either way the monotonic invariant holds and
      // there is nothing to do.
      context.Log("discovery_date already as early",
                  {{"discovery_date", result.discovery_date
                                          ? store::PartialDateText(
                                                *result.discovery_date,
                                                result.discovery_date_precision)
                                          : std::string()}});
      break;
    case store::DiscoveryDateResult::Status::kNotFound:
      throw runtime::TerminalError("invalid nova_id: nova " + nova_id +
                                   " does not exist");
  }
  return {};
}

}  // namespace novacat::refresh_references
