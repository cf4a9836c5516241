// The runner of generated conformance plans (test code: it registers
// GoogleTest cases). A plan, generated/<workflow>/conformance.json, is data:
// {"workflow", "cases": [...]}, each case {"name", "input", "script",
// "expect"}, derived by novacat-gen from the spec (every outcome's path,
// every Task's retry schedule and failure classes, every Map's concurrency
// and item quarantine...). cmake/conformance_main.cc is the main of every
// workflow's conformance binary: it registers the workflow's plan here.
//
// A case with "base": <an earlier case's name> runs as that case does but
// for what it states itself: the base's input and script, its own input
// fields and script entries replacing the base's of the same name; with a
// host part, the base's host input and domain, its own input fields and
// domain entries replacing the base's. Its expectations are its own ("states":
// "base" expects the base's states). Every Task's failure cases name their
// path's case so, and a plan grows with the number of Tasks, not with Tasks
// times their paths' length.
//
// Plan mode: each case runs the generated ASL on the local executor with
// its script answering every Task, and checks exactly: status, error,
// outcome (output.outcome), quarantine_reason, states (the exact list
// entered), last_state, waits (the retry waits), invocations ({state:
// count}), map_starts ({map: [each item's start, seconds after the Map
// started]}).
//
// Host mode: a case with a "host" part runs again through the runtime host
// (host.h): the builtins are the real ones over the store that ships
// (TableRecordStore over a MemoryTable), a CaptureBus
// and a CaptureSink, and only the domain Tasks are scripted ("domain":
// {state or "state[item]": [{"set": {...}} | {"throw": name, "cause"}]},
// the last entry repeating). It checks the expectations (the JobRun's final
// status, outcome and classification; the events published, in order; the
// number of Attempts of a state; a Map's item Attempts exactly; the
// idempotency key; the outcome of a second run with the same input) and,
// on every case, the seeds' invariants. Scenarios written in the spec are
// host-mode cases too ("path": the spec states entered; "not_invoked").
// The invariants:
//   - one JobRun; one Attempt per Task invocation, with its status (but
//     for a BeginJobRun that rejects the input: no run exists yet);
//   - the correlation_id is the input's (or a generated UUID v4) and the
//     same in the JobRun, every Attempt, log line and published event;
//   - every published event validates against its schema, and its *_id /
//     *_ids fields hold UUIDs only;
//   - every log line carries the required fields, and every when-known
//     field its invocation's document had; each domain Task's closing line
//     ("task succeeded" / "task failed") carries the step dedupe key, the
//     error classification and fingerprint its Attempt record holds.
#pragma once

#include <functional>
#include <string>

#include "novacat/runtime/host.h"

namespace novacat::runtime::testing {

// Makes the workflow's binding with another domain dispatcher (the
// generated <workflow>::MakeBinding(runtime::DomainDispatch)).
using BindingFactory = std::function<WorkflowBinding(DomainDispatch)>;

// Registers one GoogleTest per case of the plan at `plan_path`, named
// Plan/conformance_<workflow>.Case/<case name>, each running the definition
// at `asl_path` (NOVACAT_CONFORMANCE_ASL overrides it: the mutation test
// runs the same cases against mutants; NOVACAT_CONFORMANCE_PLAN_ONLY=1 skips
// the host-mode runs, to show what plan mode catches alone). Call it between
// ::testing::InitGoogleTest and RUN_ALL_TESTS. A plan that cannot be read,
// or that is another workflow's, registers one test that fails saying so.
// Returns the number of cases registered.
int RegisterConformanceSuite(const std::string& workflow,
                             const std::string& plan_path,
                             const std::string& asl_path,
                             BindingFactory binding_factory);

}  // namespace novacat::runtime::testing
