#include "model/routes.h"

#include <algorithm>

#include <deque>
#include <unordered_set>

namespace novacat {

std::vector<int> Successors(const StateGraph& graph, int from) {
  std::vector<int> out;
  for (const Transition* t : graph.states[from].Transitions()) {
    int to = graph.IndexOf(t->target);
    if (to >= 0) out.push_back(to);
  }
  return out;
}

std::set<int> ReachableFrom(const StateGraph& graph, int from) {
  std::set<int> seen;
  if (from < 0) return seen;
  std::deque<int> queue = {from};
  seen.insert(from);
  while (!queue.empty()) {
    int at = queue.front();
    queue.pop_front();
    for (int to : Successors(graph, at)) {
      if (seen.insert(to).second) queue.push_back(to);
    }
  }
  return seen;
}

std::vector<bool> Closure(const Edges& edges, const std::vector<int>& seeds) {
  std::vector<bool> marked(edges.size(), false);
  std::deque<int> queue;
  for (int s : seeds) {
    if (!marked[s]) {
      marked[s] = true;
      queue.push_back(s);
    }
  }
  while (!queue.empty()) {
    int at = queue.front();
    queue.pop_front();
    for (int to : edges[at]) {
      if (!marked[to]) {
        marked[to] = true;
        queue.push_back(to);
      }
    }
  }
  return marked;
}

Edges Reversed(const Edges& edges) {
  Edges reversed(edges.size());
  for (size_t i = 0; i < edges.size(); ++i)
    for (int to : edges[i]) reversed[to].push_back(static_cast<int>(i));
  return reversed;
}

namespace {

// Whether `state` is reachable from `handler`: a search that stops when it
// gets there (every emitter asks it for every Task and catch route). What
// follows a handler is mostly a few states, whatever the size of the graph,
// so the states seen are a set of those: a mark per state of the graph,
// cleared for every call, made each cost the graph's size.
bool Downstream(const StateGraph& graph, const std::string& handler,
                const std::string& state) {
  const int from = graph.IndexOf(handler);
  const int target = graph.IndexOf(state);
  if (from < 0 || target < 0) return false;
  std::unordered_set<int> seen = {from};
  std::vector<int> pending = {from};
  while (!pending.empty()) {
    const int at = pending.back();
    pending.pop_back();
    if (at == target) return true;
    for (const Transition* t : graph.states[at].Transitions()) {
      const int to = graph.IndexOf(t->target);
      if (to >= 0 && seen.insert(to).second) pending.push_back(to);
    }
  }
  return false;
}

}  // namespace

std::vector<CatchRoute> CatchRoutesFor(const WorkflowSpec& spec,
                                       const StateGraph& graph,
                                       const State& state) {
  std::vector<CatchRoute> routes;
  if (state.type != StateType::kTask && state.type != StateType::kMap)
    return routes;
  if (&graph != &spec.graph) {
    const State* map = spec.FindEnclosingMap(state.name);
    if (map && map->item_failure) {
      const ItemFailure& f = *map->item_failure;
      if (!f.next.empty() && !Downstream(graph, f.next, state.name)) {
        CatchRoute route;
        route.classes = f.classes;
        route.next = f.next;
        routes.push_back(route);
      }
    }
    // An item state's own failure route (only `failure` is allowed there),
    // after the classes, except from that route's target and what follows.
    if (state.catch_override && !state.catch_override->failure.empty() &&
        !Downstream(graph, state.catch_override->failure, state.name)) {
      CatchRoute route;
      route.catch_all = true;
      route.next = state.catch_override->failure;
      routes.push_back(route);
    }
    return routes;
  }
  CatchRoutes effective = spec.catch_defaults;
  if (state.catch_override) {
    if (state.catch_override->none) return routes;
    if (!state.catch_override->quarantine.empty())
      effective.quarantine = state.catch_override->quarantine;
    if (!state.catch_override->failure.empty())
      effective.failure = state.catch_override->failure;
  }
  // The failure path itself catches nothing: a failing failure handler
  // fails the execution rather than loop.
  if (!effective.failure.empty() &&
      Downstream(graph, effective.failure, state.name))
    return routes;
  // Runtime builtins never raise QUARANTINE; domain Tasks and Maps may, and
  // a QUARANTINE error must never fall through to States.ALL.
  const bool may_quarantine = state.builtin == Builtin::kNone;
  if (may_quarantine && !effective.quarantine.empty() &&
      !Downstream(graph, effective.quarantine, state.name)) {
    CatchRoute route;
    route.classes = {ErrorClass::kQuarantine};
    route.next = effective.quarantine;
    routes.push_back(route);
  }
  if (!effective.failure.empty()) {
    CatchRoute route;
    route.catch_all = true;
    route.next = effective.failure;
    routes.push_back(route);
  }
  return routes;
}

bool MayRaise(const WorkflowSpec& spec, const State& state, ErrorClass cls) {
  for (const auto& f : spec.failures) {
    if (f.error_class != cls) continue;
    if (f.raised_by.empty()) {
      // Unattributed cases may come from any domain Task.
      if (state.builtin == Builtin::kNone) return true;
      continue;
    }
    for (const auto& s : f.raised_by)
      if (s == state.name) return true;
  }
  return false;
}

std::set<std::string> FieldsInScope(const WorkflowSpec& spec,
                                    const StateGraph& graph) {
  std::set<std::string> names(kRuntimeFields.begin(), kRuntimeFields.end());
  if (&graph == &spec.graph) {
    if (const EventDef* input = spec.FindEvent(spec.input_event)) {
      for (const auto& f : input->fields) names.insert(f.name);
    }
    for (const auto& f : spec.data) names.insert(f.name);
    for (const auto& [name, value] : spec.constants) names.insert(name);
    for (const auto& i : spec.identities) names.insert(i.name);
    return names;
  }
  // The Map that holds `graph`: by the index when the graph has a state,
  // since a scan of every state for each Map made the checker quadratic.
  auto add_owner = [&](const State& s) {
    names.insert(s.item_name);
    for (const auto& c : s.carry) names.insert(c);
    for (const auto& f : s.item_data) names.insert(f.name);
  };
  const State* owner = graph.states.empty()
                           ? nullptr
                           : spec.graph.FindItemOwner(graph.states[0].name);
  if (owner && owner->item_states.get() == &graph) {
    add_owner(*owner);
  } else {
    for (const auto& s : spec.graph.states)
      if (s.item_states.get() == &graph) add_owner(s);
  }
  for (const auto& [name, value] : spec.constants) names.insert(name);
  for (const auto& i : spec.identities) names.insert(i.name);
  return names;
}

namespace {

std::string MarkBase(const Transition& t) {
  return t.outcome.empty() ? "RecordQuarantineReason_" + t.quarantine_reason
                           : "RecordOutcome_" + t.outcome;
}

template <typename F>
void VisitTransitions(const StateGraph& graph, F&& f) {
  for (const auto& s : graph.states) {
    for (const Transition* t : s.Transitions()) f(*t);
    if (s.item_states) VisitTransitions(*s.item_states, f);
  }
}

}  // namespace

MarkStates::MarkStates(const WorkflowSpec& spec) {
  std::map<std::string, std::set<std::string>> targets;
  VisitTransitions(spec.graph, [&](const Transition& t) {
    if (Has(t)) targets[MarkBase(t)].insert(t.target);
  });
  VisitTransitions(spec.graph, [&](const Transition& t) {
    if (!Has(t)) return;
    std::string name = MarkBase(t);
    if (targets[name].size() > 1) name += "_Then_" + t.target;
    names_[{MarkBase(t), t.target}] = name;
  });
}

std::string MarkStates::NameOf(const Transition& t) const {
  if (!Has(t)) return "";
  auto it = names_.find({MarkBase(t), t.target});
  return it == names_.end() ? "" : it->second;
}

std::vector<Placeholder> Placeholders(const std::string& key_template) {
  std::vector<Placeholder> out;
  size_t at = 0;
  while ((at = key_template.find('{', at)) != std::string::npos) {
    size_t close = key_template.find('}', at);
    if (close == std::string::npos) break;
    out.push_back(
        {key_template.substr(at + 1, close - at - 1), static_cast<int>(at)});
    at = close + 1;
  }
  return out;
}

int MapConcurrency(const WorkflowSpec& spec, const State& map) {
  int concurrency = 1;
  if (spec.governance) {
    if (const ConcurrencyLimit* limit =
            spec.governance->FindConcurrency(map.concurrency))
      concurrency = limit->max;
  }
  if (map.max_concurrency) concurrency = *map.max_concurrency;
  return std::max(concurrency, 1);
}

}  // namespace novacat
