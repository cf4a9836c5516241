// Derived facts about a spec's state graph that both the checker and the
// emitters need: where each Task's errors go, and which states follow which.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "model/spec.h"

namespace novacat {

// Indices of the states that `graph.states[from]` moves to by its
// transitions (not by catches), in spec order; unknown targets are skipped.
std::vector<int> Successors(const StateGraph& graph, int from);

// Every state reachable from `from` by transitions, `from` included.
std::set<int> ReachableFrom(const StateGraph& graph, int from);

// Adjacency lists: edges[i] are the nodes node i leads to.
using Edges = std::vector<std::vector<int>>;
// Marks every node reachable from `seeds` (seeds included) over `edges`.
std::vector<bool> Closure(const Edges& edges, const std::vector<int>& seeds);
// The same graph with every edge turned around.
Edges Reversed(const Edges& edges);

// One Catch of a Task: the error classes it catches and where it goes.
struct CatchRoute {
  std::vector<ErrorClass> classes;  // {QUARANTINE}, or all failure classes
  bool catch_all = false;           // States.ALL (always last)
  std::string next;
};

// The catches of `state` in order, following the spec's rules:
// - top level: QUARANTINE errors of domain Tasks and Maps go to the
//   quarantine route, everything else (States.ALL) to the failure route,
//   from the workflow's `catch` defaults, overridden per state; `catch: none`
//   removes both. The failure handler and the states after it catch nothing;
//   the quarantine handler and the states after it catch only failures, so
//   error handling cannot loop.
// - Map item states: the Map's `item_failure` classes go to its `next`,
//   except from that handler itself and the states after it; then the
//   state's own `catch: {failure}` (States.ALL), except from its target
//   and the states after it.
std::vector<CatchRoute> CatchRoutesFor(const WorkflowSpec& spec,
                                       const StateGraph& graph,
                                       const State& state);

// Whether a Task may raise `cls`, from the failure cases' `raised_by`.
bool MayRaise(const WorkflowSpec& spec, const State& state, ErrorClass cls);

// Names of the fields a state in `graph` can see: the top level sees the
// input event, data, constants, identities and runtime fields; a Map item
// sees its item, the carried fields, its data and runtime fields.
std::set<std::string> FieldsInScope(const WorkflowSpec& spec,
                                    const StateGraph& graph);

// The Pass states the ASL emitter adds for transitions that record an
// outcome or a quarantine reason: `RecordOutcome_<OUTCOME>` (or
// `RecordQuarantineReason_<failure>`), suffixed `_Then_<Target>` when the
// same mark leads to several targets.
class MarkStates {
 public:
  explicit MarkStates(const WorkflowSpec& spec);
  static bool Has(const Transition& t) {
    return !t.outcome.empty() || !t.quarantine_reason.empty();
  }
  // The Pass state `t` goes through; "" when it records nothing.
  std::string NameOf(const Transition& t) const;

 private:
  std::map<std::pair<std::string, std::string>, std::string> names_;
};

// The placeholders of a key template: "A:{x}:{y}" → {x, y}, with the column
// offset of each inside the template.
struct Placeholder {
  std::string name;
  int offset = 0;
};
std::vector<Placeholder> Placeholders(const std::string& key_template);

// A Map's MaxConcurrency: its `max_concurrency`, else its governance
// concurrency class's `max`, else 1 (never less than 1).
int MapConcurrency(const WorkflowSpec& spec, const State& map);

}  // namespace novacat
