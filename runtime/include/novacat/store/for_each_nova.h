// The sweep of a `for_each: nova` schedule (docs/spec-format.md,
// Schedules): one input event per nova of the catalog. In AWS the schedule
// invokes the workflow's function with
//
//   {"for_each": "nova", "input": {<the schedule's input>}}
//
// and the function publishes the events on the bus, where the stack's rule
// <Workflow>ScheduleRoute starts the state machine with each; locally
// `novacat run <workflow> --for-each-nova` runs them in process.
//
// At least once, never lost: a sweep that fails part way (entries
// EventBridge still failed after their resends) is invoked again and
// publishes every event again, and EventBridge may deliver one twice. The
// workflow's idempotency key (with its {time_bucket}) ends a second run of
// a nova in the same period DUPLICATE_SKIPPED.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "novacat/runtime/builtins.h"
#include "novacat/store/repository.h"

namespace novacat::store {

// The schedule's input when `payload` is a sweep ({"for_each": "nova",
// "input": {...}}, input optional), nullopt when it is not one (it has no
// "for_each": a Task's payload). TerminalError for a for_each other than
// "nova" or an input that is not an object.
std::optional<nlohmann::json> SweepInput(const nlohmann::json& payload);

// `input` with nova_id set to each nova of the catalog (Repository::
// ListNovae), in nova_id order.
std::vector<nlohmann::json> PerNovaEvents(Repository& repository,
                                          const nlohmann::json& input);

// Checks every per-nova event against `workflow`'s input event schema, then
// publishes them on `bus` as workflow.input_event, in nova_id order
// (EventBus::PublishAll: EventBridge takes them 10 a call), and
// writes one log line (at `now`, seconds since the epoch). Returns how many
// were published. An invalid event is a TerminalError before anything is
// published (naming the nova and the errors); a failing publish throws what the
// bus throws (RetryableError from EventBridge), and the retry publishes them
// all again.
int64_t PublishPerNova(const runtime::WorkflowFacts& workflow,
                       Repository& repository, runtime::EventBus& bus,
                       runtime::LogSink& log, const nlohmann::json& input,
                       int64_t now);

}  // namespace novacat::store
