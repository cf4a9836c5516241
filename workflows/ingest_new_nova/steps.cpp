// The step logic of workflow ingest_new_nova (see steps.hpp): the
// coordinator's two store accesses, AP-INGEST-1 and AP-INGEST-3.
#include "ingest_new_nova/steps.hpp"

#include "novacat/runtime/errors.h"
#include "novacat/runtime/ids.h"

namespace novacat::ingest_new_nova {

namespace {

// The coordinator state this workflow writes: the downstream workflows were
// launched for the nova.
constexpr const char* kLaunched = "LAUNCHED";

std::string Require(const std::optional<std::string>& value,
                    const char* field) {
  if (!value || value->empty())
    throw runtime::TerminalError(std::string("internal_invariant_violation: ") +
                                 field + " is missing");
  return *value;
}

}  // namespace

std::unique_ptr<IngestNewNovaSteps> MakeSteps(
    const workflows::Environment& env) {
  return std::make_unique<Steps>(env);
}

LoadNovaOutput Steps::LoadNova(const IngestNewNovaState& state,
                               runtime::StepContext& /*context*/) {
  const std::string nova_id = Require(state.nova_id, "nova_id");
  std::optional<store::Nova> nova = env_.repository.GetNova(nova_id);
  if (!nova) throw runtime::TerminalError("nova_not_found: no nova " + nova_id);
  LoadNovaOutput out;
  out.primary_name = nova->primary_name;
  return out;
}

RecordIngestStartedOutput Steps::RecordIngestStarted(
    const IngestNewNovaState& state, runtime::StepContext& context) {
  const std::string nova_id = Require(state.nova_id, "nova_id");
  store::NovaCoordinatorState update;
  update.ingest_status = kLaunched;
  update.last_ingest_at = runtime::FormatTimestamp(context.now);
  update.last_ingest_job_run_id = Require(state.job_run_id, "job_run_id");
  // A retry writes the same values again; a nova deleted since LoadNova is
  // the same broken invariant as one that never existed.
  if (env_.repository.UpdateNovaCoordinatorState(nova_id, update) ==
      store::UpdateOutcome::kNotFound)
    throw runtime::TerminalError("nova_not_found: no nova " + nova_id);
  RecordIngestStartedOutput out;
  out.ingest_status = kLaunched;
  return out;
}

}  // namespace novacat::ingest_new_nova
