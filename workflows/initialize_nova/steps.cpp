// The step logic of workflow initialize_nova, written by hand (see steps.hpp).
//
// Failure messages start with the spec's failure id
// (specs/initialize_nova.yaml, `failures`), "<id>: <detail>", so that the
// cause a QuarantineHandler records as quarantine_reason, the JobRun's error
// and the log line all name the case; the class (Retryable, Terminal,
// Quarantine) is what Step Functions routes on. The domain's failures are
// typed (novacat/domain/failure.h): each is mapped below by its case.
#include "initialize_nova/steps.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/domain/coordinates.h"
#include "novacat/domain/names.h"
#include "novacat/domain/resolver.h"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"
#include "novacat/store/repository.h"
#include "novacat/workflows/failure.h"

namespace novacat::initialize_nova {
namespace {

// The status a nova is created with (store::Nova::status).
constexpr const char* kNovaStatusActive = "ACTIVE";

// CheckExistingNovaByCoordinates asks AP-INIT-4 for the novae within this
// radius: the outer edge of the AMBIGUOUS band, the farthest a stored nova
// can be and still change the route. A nova farther away cannot, so it is
// not reported (see CheckExistingNovaByCoordinates).
constexpr double kSearchRadiusArcsec = domain::kAmbiguousUpToArcsec;

std::string Quote(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

using runtime::ErrorClass;
using workflows::Fail;

// A field the route guarantees (an earlier Task produced it) is absent: the
// state document is not what this workflow's ASL builds.
[[noreturn]] void ThrowMissing(std::string_view field) {
  throw runtime::TerminalError(
      "internal_invariant_violation: " + std::string(field) + " is missing");
}

template <typename T>
const T& Require(const std::optional<T>& value, std::string_view field) {
  if (!value) ThrowMissing(field);
  return *value;
}

// The spec's failure id and class of each case of the archive resolver's
// answer (domain/resolver.h). A malformed archive answer has no id: it is
// TERMINAL with the resolver's message.
[[noreturn]] void FailResolution(const domain::ResolverError& error) {
  switch (error.failure()) {
    case domain::ResolverFailure::kAmbiguous:
      Fail(ErrorClass::kQuarantine, "ambiguous_resolver_result", error.what());
    case domain::ResolverFailure::kConflictingAuthoritativeSources:
      Fail(ErrorClass::kQuarantine, "conflicting_authoritative_sources",
           error.what());
    case domain::ResolverFailure::kMissingCoordinates:
      Fail(ErrorClass::kTerminal, "resolver_missing_coordinates", error.what());
    case domain::ResolverFailure::kMalformedAnswer:
      Fail(ErrorClass::kTerminal, "", error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// The exchange with the archives: a transient failure is retried
// (transient_dependency_failure); an answer that is not one is quarantined
// (malformed_archive_response); a refused request is TERMINAL; each with
// the client's message.
[[noreturn]] void FailExchange(const domain::ClientError& error) {
  switch (error.failure()) {
    case domain::ClientFailure::kUnavailable:
      Fail(ErrorClass::kRetryable, "transient_dependency_failure",
           error.what());
    case domain::ClientFailure::kInvalidRequest:
      Fail(ErrorClass::kTerminal, "", error.what());
    case domain::ClientFailure::kMalformedResponse:
      Fail(ErrorClass::kQuarantine, "malformed_archive_response", error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// The coordinate check: invalid coordinates (the resolver's or a stored
// nova's) are TERMINAL with the domain's message; two or more novae in the
// DUPLICATE band (the alias would belong to either) are
// coordinate_match_ambiguous.
[[noreturn]] void FailCoordinates(const domain::CoordinateError& error) {
  switch (error.failure()) {
    case domain::CoordinateFailure::kNotFinite:
    case domain::CoordinateFailure::kOutOfRange:
    case domain::CoordinateFailure::kInvalidSeparation:
      Fail(ErrorClass::kTerminal, "", error.what());
    case domain::CoordinateFailure::kAmbiguousMatch:
      Fail(ErrorClass::kQuarantine, "coordinate_match_ambiguous", error.what());
  }
  Fail(ErrorClass::kTerminal, "", error.what());
}

// AP-INIT-3 for `nova_id`, exclusive: a name maps to one nova unless a person
// allows more. kCreated and kAlreadyMapped (a retry whose write landed, or a
// name that already maps here) are both success.
store::AliasResult PutAliasOf(store::Repository& repository,
                              const std::string& normalized_name,
                              const std::string& nova_id,
                              const std::string& name, int64_t now) {
  return repository.PutAlias(store::Alias{normalized_name, nova_id, name,
                                          runtime::FormatTimestamp(now)},
                             store::AliasPolicy::kExclusive);
}

// PutAliasOf for the candidate's own name: a name claimed by another nova
// is the spec's ambiguous_name_resolution.
void PutExclusiveAlias(store::Repository& repository,
                       const std::string& normalized_name,
                       const std::string& nova_id, const std::string& name,
                       int64_t now) {
  const store::AliasResult result =
      PutAliasOf(repository, normalized_name, nova_id, name, now);
  if (result.status == store::AliasResult::Status::kMappedToOtherNova) {
    throw runtime::QuarantineError(
        "ambiguous_name_resolution: name " + Quote(normalized_name) +
        " is already claimed by nova " + result.other_nova_id +
        ", so it cannot also map to nova " + nova_id);
  }
}

// The resolved object's other names (resolved_aliases) as aliases of
// `nova_id`, after the candidate's own (PutAliasOf). Each is exclusive like
// the candidate's name, but an archive's name another nova already claims
// does not fail the run: the candidate's name decided the nova, and the
// clash is logged (alias_conflicts) for a person to reconcile. A name that
// does not normalize, or normalizes to the candidate's, is skipped. Every
// write is idempotent (kAlreadyMapped), so a retried Task converges.
void PutResolvedAliases(store::Repository& repository,
                        const InitializeNovaState& state,
                        const std::string& nova_id,
                        const std::string& normalized_name,
                        runtime::StepContext& context) {
  if (!state.resolved_aliases || state.resolved_aliases->empty()) return;
  int64_t stored = 0;
  nlohmann::json conflicts = nlohmann::json::array();
  nlohmann::json unusable = nlohmann::json::array();
  for (const std::string& alias : *state.resolved_aliases) {
    std::string normalized;
    try {
      normalized = domain::NormalizeCandidateName(alias);
    } catch (const domain::NameError&) {
      unusable.push_back(alias);
      continue;
    }
    if (normalized == normalized_name) continue;
    const store::AliasResult result =
        PutAliasOf(repository, normalized, nova_id, alias, context.now);
    if (result.status == store::AliasResult::Status::kMappedToOtherNova) {
      conflicts.push_back(
          {{"alias", normalized}, {"other_nova_id", result.other_nova_id}});
    } else {
      ++stored;
    }
  }
  nlohmann::json fields = {{"aliases_stored", stored}};
  if (!conflicts.empty()) fields["alias_conflicts"] = conflicts;
  if (!unusable.empty()) fields["aliases_unusable"] = unusable;
  context.Log("resolved aliases stored", fields);
}

}  // namespace

std::unique_ptr<InitializeNovaSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

// The canonical form (domain/names.h). Pure: no store or network access, so
// it may run before the idempotency lock, which is keyed by its output.
NormalizeCandidateNameOutput Steps::NormalizeCandidateName(
    const InitializeNovaState& state, runtime::StepContext& /*context*/) {
  if (!state.candidate_name) {
    throw runtime::TerminalError(
        "invalid_candidate_name: candidate_name is missing");
  }
  NormalizeCandidateNameOutput out;
  try {
    out.normalized_candidate_name =
        domain::NormalizeCandidateName(*state.candidate_name);
  } catch (const domain::NameError& e) {
    // Every case is the spec's invalid_candidate_name; the failure id
    // replaces the domain's subject ("invalid candidate_name") rather than
    // repeating it.
    switch (e.failure()) {
      case domain::NameFailure::kTooLong:
      case domain::NameFailure::kNotUtf8:
      case domain::NameFailure::kControlCharacter:
      case domain::NameFailure::kReplacementCharacter:
      case domain::NameFailure::kEmpty:
        break;
    }
    Fail(ErrorClass::kTerminal, "invalid_candidate_name", e.detail());
  }
  return out;
}

// AP-INIT-1 with the seed's determinism rule: none -> not in the database,
// one -> that nova, several -> quarantine for an explicit reconciliation
// (never "pick the first").
CheckExistingNovaByNameOutput Steps::CheckExistingNovaByName(
    const InitializeNovaState& state, runtime::StepContext& /*context*/) {
  const std::string& name =
      Require(state.normalized_candidate_name, "normalized_candidate_name");
  const std::vector<std::string> nova_ids = env_.repository.ResolveName(name);
  CheckExistingNovaByNameOutput out;
  if (nova_ids.empty()) {
    out.exists_in_db = false;
    return out;
  }
  if (nova_ids.size() > 1) {
    std::string list;
    for (const std::string& id : nova_ids)
      list += (list.empty() ? "" : ", ") + id;
    throw runtime::QuarantineError(
        "ambiguous_name_resolution: name " + Quote(name) + " maps to " +
        std::to_string(nova_ids.size()) + " novae: " + list);
  }
  out.exists_in_db = true;
  out.nova_id = nova_ids.front();
  return out;
}

// What the archives say (domain/resolver.h). Always produces is_nova and
// classical_nova_status (the Choices after CheckExistingNovaByCoordinates
// read them; a name no archive knows is not a nova, "NO"); the coordinates
// when an archive gave them (always for a nova: the resolver raises
// resolver_missing_coordinates otherwise). The resolver's failures are
// mapped by FailResolution and FailExchange.
ResolveCandidateAgainstPublicArchivesOutput
Steps::ResolveCandidateAgainstPublicArchives(const InitializeNovaState& state,
                                             runtime::StepContext& context) {
  const std::string& name =
      Require(state.normalized_candidate_name, "normalized_candidate_name");
  domain::Resolution resolution;
  try {
    resolution = env_.resolver.Resolve(
        name, domain::ClientBudgetMs(context.RemainingMs()));
  } catch (const domain::ResolverError& e) {
    FailResolution(e);
  } catch (const domain::ClientError& e) {
    FailExchange(e);
  }
  ResolveCandidateAgainstPublicArchivesOutput out;
  out.is_nova = resolution.is_nova;
  out.classical_nova_status =
      std::string(domain::ToString(resolution.classical_nova_status));
  out.resolved_ra = resolution.ra_deg;
  out.resolved_dec = resolution.dec_deg;
  out.resolved_epoch = resolution.epoch;
  const size_t kept = std::min(resolution.aliases.size(), kMaxResolvedAliases);
  out.resolved_aliases = std::vector<std::string>(
      resolution.aliases.begin(), resolution.aliases.begin() + kept);
  nlohmann::json sources = nlohmann::json::array();
  for (const std::string& s : resolution.sources) sources.push_back(s);
  nlohmann::json fields = {{"resolver_found", resolution.found},
                           {"resolver_sources", sources},
                           {"object_type", resolution.object_type},
                           {"alias_count", resolution.aliases.size()}};
  if (kept < resolution.aliases.size())
    fields["aliases_dropped"] = resolution.aliases.size() - kept;
  // A source not asked for want of its secret: the decision came from the
  // others, which the log says.
  if (!resolution.skipped.empty())
    fields["resolver_skipped"] = resolution.skipped;
  context.Log("resolver answered", fields);
  return out;
}

// The coordinate identity check. Without resolved coordinates (a name no
// archive knows, or a non-nova without a position) there is nothing to
// compare: min_sep null, NONE. Otherwise the novae within
// kSearchRadiusArcsec (AP-INIT-4) are matched (domain::MatchCoordinates):
// min_sep is the separation of the nearest of them, null when none is that
// close (a nova farther away cannot change the route, and AP-INIT-4 cannot
// list every nova to find the true minimum); nova_id only for a DUPLICATE,
// so an ambiguous or distant nova is never handed downstream.
//
// A null min_sep is written as JSON null (the nullable field's outer
// optional set, its inner one empty): the spec's Choice reads the field, and
// a missing one would be States.Runtime.
CheckExistingNovaByCoordinatesOutput Steps::CheckExistingNovaByCoordinates(
    const InitializeNovaState& state, runtime::StepContext& context) {
  CheckExistingNovaByCoordinatesOutput out;
  if (state.resolved_ra.has_value() != state.resolved_dec.has_value()) {
    throw runtime::TerminalError(
        std::string("resolver_missing_coordinates: ") +
        (state.resolved_ra ? "resolved_ra is set without resolved_dec"
                           : "resolved_dec is set without resolved_ra"));
  }
  if (!state.resolved_ra) {
    if (Require(state.is_nova, "is_nova")) {
      throw runtime::TerminalError(
          "resolver_missing_coordinates: the candidate is a nova but has no "
          "resolved_ra / resolved_dec, so the coordinate identity check "
          "cannot run");
    }
    const domain::CoordinateClassification none =
        domain::ClassifyMinimumSeparation(std::nullopt);
    out.coordinate_match_min_sep_arcsec = none.min_sep_arcsec;
    out.coordinate_match_outcome = none.outcome;
    return out;
  }
  const double ra = *state.resolved_ra;
  const double dec = *state.resolved_dec;
  std::vector<domain::NovaPosition> near;
  domain::CoordinateMatch match;
  try {
    domain::ValidateCoordinates(ra, dec, "resolved_ra", "resolved_dec");
    // AP-INIT-4 returns every nova within the radius and possibly others
    // (its bands hold whole RA circles); keep the ones within it by the
    // domain's separation, so that the answer does not depend on the band
    // layout.
    for (const store::NovaPosition& p :
         env_.repository.NovaeNear(ra, dec, kSearchRadiusArcsec)) {
      if (domain::AngularSeparationArcsec(ra, dec, p.ra_deg, p.dec_deg) <=
          kSearchRadiusArcsec) {
        near.push_back({p.nova_id, p.ra_deg, p.dec_deg});
      }
    }
    match = domain::MatchCoordinates(ra, dec, near);
  } catch (const domain::CoordinateError& e) {
    FailCoordinates(e);
  }
  out.coordinate_match_min_sep_arcsec = match.min_sep_arcsec;
  out.coordinate_match_outcome = match.outcome;
  out.nova_id = match.duplicate_nova_id;
  if (match.nearest_nova_id) {
    // The nearest nova is in the state only for a DUPLICATE; for an
    // AMBIGUOUS match (quarantined by the Choice) the log is where a
    // reviewer finds it.
    context.Log("coordinate match",
                {{"nearest_nova_id", *match.nearest_nova_id},
                 {"novae_within_search_radius", near.size()}});
  }
  return out;
}

// A new random nova_id. Nothing is written here: the nova is created by
// UpsertMinimalNovaMetadata, conditionally (AP-INIT-2), so a retry of this
// Task that draws another id leaves nothing behind.
CreateNovaIdOutput Steps::CreateNovaId(const InitializeNovaState& /*state*/,
                                       runtime::StepContext& /*context*/) {
  CreateNovaIdOutput out;
  out.nova_id = runtime::NewUuidV4(env_.random);
  return out;
}

// The claim, then the nova, then the alias (AP-INIT-3's claim, AP-INIT-2,
// AP-INIT-3's alias), so that the name and its nova are one outcome: no run
// leaves a nova that no name points to, and no alias names a missing nova.
//
// Why claim first rather than write the nova and delete it when the claim
// is lost: the claim is the name's nova_id, the one conditional write two
// runs on a new name race for (Repository::ClaimName), never changed or
// deleted. A run writes a nova only under the claim's nova_id, so a run
// that loses writes no nova of its own: nothing to compensate, and no
// delete that could race with a third run already matching the loser's
// nova by its coordinates. Every crash point converges:
//   - before the claim lands: nothing written; a retry claims again with
//     the same nova_id (the state's, drawn once by CreateNovaId).
//   - after the claim, before the nova: the retry's claim passes (same
//     nova_id) and writes the nova. If the run never comes back (retries
//     exhausted), the next run on the name finds the claim with its nova
//     missing and writes the nova under the claim's nova_id itself (its
//     nova_id output is then the claim's), rather than being refused by a
//     claim that names nothing, forever.
//   - after the nova, before the alias: the retry's CreateNova answers
//     kAlreadyExists and the alias is written. If the run never comes back,
//     the next run finds the nova by its coordinates (AP-INIT-4, the
//     DUPLICATE band) and writes the alias (UpsertAliasForExistingNova).
// A run that finds the name claimed for another nova that is written is
// the loser of a race on the name (or came after it was taken): QUARANTINE
// ambiguous_name_resolution, the spec's case, with nothing written.
UpsertMinimalNovaMetadataOutput Steps::UpsertMinimalNovaMetadata(
    const InitializeNovaState& state, runtime::StepContext& context) {
  const std::string& drawn_id = Require(state.nova_id, "nova_id");
  const std::string& candidate_name =
      Require(state.candidate_name, "candidate_name");
  const std::string& normalized_name =
      Require(state.normalized_candidate_name, "normalized_candidate_name");
  store::Nova nova;
  nova.primary_name = candidate_name;  // as given (store::Nova: as published)
  nova.normalized_name = normalized_name;
  nova.ra_deg = Require(state.resolved_ra, "resolved_ra");
  nova.dec_deg = Require(state.resolved_dec, "resolved_dec");
  nova.epoch = state.resolved_epoch;
  nova.status = kNovaStatusActive;
  nova.created_at = runtime::FormatTimestamp(context.now);

  // A nova_id that already names a nova of another name is not
  // CreateNovaId's fresh id (or this run's state changed between
  // attempts): refused before the claim, which is never undone.
  if (std::optional<store::Nova> held = env_.repository.GetNova(drawn_id);
      held && held->normalized_name != normalized_name) {
    throw runtime::TerminalError(
        "internal_invariant_violation: nova " + drawn_id +
        " already exists with another identity; the new nova " +
        Quote(normalized_name) + " was not written");
  }

  const store::AliasResult claim =
      env_.repository.ClaimName(normalized_name, drawn_id);
  const bool name_claimed =
      claim.status != store::AliasResult::Status::kMappedToOtherNova;
  nova.nova_id = name_claimed ? drawn_id : claim.other_nova_id;
  if (!name_claimed && env_.repository.GetNova(nova.nova_id)) {
    throw runtime::QuarantineError(
        "ambiguous_name_resolution: name " + Quote(normalized_name) +
        " is already claimed by nova " + nova.nova_id +
        ", so it cannot also map to nova " + drawn_id);
  }

  // Under the claim's nova_id only. kAlreadyExists / kConflict: the claim's
  // nova is there (this run's earlier attempt, or a run that completed this
  // run's claim, possibly with the name spelled otherwise): it is the
  // name's nova if it is where the archives put it.
  const store::CreateResult created = env_.repository.CreateNova(nova);
  if (created == store::CreateResult::kConflict) {
    const std::optional<store::Nova> stored =
        env_.repository.GetNova(nova.nova_id);
    if (!stored) {
      // Novae are never deleted: refused a moment ago, gone now.
      throw runtime::RetryableError("transient_dependency_failure: nova " +
                                    nova.nova_id +
                                    " was refused as existing, then not found");
    }
    const double separation = domain::AngularSeparationArcsec(
        nova.ra_deg, nova.dec_deg, stored->ra_deg, stored->dec_deg);
    if (!(separation < domain::kDuplicateBelowArcsec)) {
      throw runtime::QuarantineError(
          "ambiguous_name_resolution: name " + Quote(normalized_name) +
          " is claimed by nova " + nova.nova_id + ", stored " +
          std::to_string(separation) + " arcsec from the resolved position");
    }
  }
  // The claim holds nova.nova_id (claims never change): kCreated or
  // kAlreadyMapped.
  PutExclusiveAlias(env_.repository, normalized_name, nova.nova_id,
                    candidate_name, context.now);
  PutResolvedAliases(env_.repository, state, nova.nova_id, normalized_name,
                     context);
  context.Log("nova stored",
              {{"nova_create_result", store::CreateResultName(created)},
               {"name_claimed", name_claimed}});
  UpsertMinimalNovaMetadataOutput out;
  out.nova_id = nova.nova_id;
  return out;
}

// AP-INIT-3: the candidate's name becomes an alias of the nova its
// coordinates matched within 2" (CheckExistingNovaByCoordinates' nova_id).
UpsertAliasForExistingNovaOutput Steps::UpsertAliasForExistingNova(
    const InitializeNovaState& state, runtime::StepContext& context) {
  const std::string& nova_id = Require(state.nova_id, "nova_id");
  const std::string& candidate_name =
      Require(state.candidate_name, "candidate_name");
  const std::string& normalized_name =
      Require(state.normalized_candidate_name, "normalized_candidate_name");
  PutExclusiveAlias(env_.repository, normalized_name, nova_id, candidate_name,
                    context.now);
  PutResolvedAliases(env_.repository, state, nova_id, normalized_name, context);
  return {};
}

}  // namespace novacat::initialize_nova
