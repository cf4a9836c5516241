#include "check/checker.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "check/backoff.h"
#include "model/routes.h"

namespace novacat {

namespace {

std::vector<std::string> Sorted(const std::set<std::string>& names) {
  return {names.begin(), names.end()};
}

std::string Suggest(const std::string& word, const std::set<std::string>& in) {
  std::string s = ClosestMatch(word, Sorted(in));
  return s.empty() ? "" : fmt::format("; did you mean '{}'?", s);
}

bool Contains(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

// The column of placeholder `p` inside a key template found at `at`.
SourceLocation PlaceholderLocation(SourceLocation at, const Placeholder& p) {
  at.column += p.offset;
  at.length = static_cast<int>(p.name.size()) + 2;
  return at;
}

class SpecChecker {
 public:
  SpecChecker(const WorkflowSpec& spec, DiagnosticSink& sink)
      : spec_(spec), sink_(sink), g_(spec.governance.get()) {}

  void Run() {
    CheckNames();
    CheckStateNames();
    CheckGraph(spec_.graph);
    for (const auto& s : spec_.graph.states) {
      if (s.item_states) CheckGraph(*s.item_states);
    }
    CheckCatchDefaults();
    CheckBuiltinsPresent();
    CheckOutcomes();
    CheckFailures();
    CheckIdempotency();
    CheckEvents();
    CheckLogging();
    CheckScenarios();
    CheckSchedules();
    CheckObjectCreatedTriggers();
    CheckSecrets();
    CheckJobRunOutput();
  }

 private:
  // Scenarios name Tasks, fields, outcomes, states and events of this spec;
  // a misspelt one would make a test that checks nothing.
  void CheckScenarios() {
    std::set<std::string> states, domain_tasks, events, outcomes, errors;
    std::map<std::string, std::set<std::string>> produces;
    auto collect = [&](const StateGraph& g) {
      for (const auto& st : g.states) {
        states.insert(st.name);
        if (st.type == StateType::kTask && st.builtin == Builtin::kNone) {
          domain_tasks.insert(st.name);
          produces[st.name].insert(st.produces.begin(), st.produces.end());
        }
      }
    };
    collect(spec_.graph);
    for (const auto& st : spec_.graph.states)
      if (st.item_states) collect(*st.item_states);
    for (const auto& e : spec_.events) events.insert(e.name);
    for (const auto& o : spec_.outcomes) outcomes.insert(o.name);
    if (g_)
      for (const auto& c : g_->error_classes) errors.insert(c.error_name);
    for (const auto& sc : spec_.scenarios) {
      CheckName(sc.name, sc.location, "scenario", NameStyle::kSnake);
      for (size_t i = 0; i < sc.tasks.size(); ++i) {
        const auto& [written, answers] = sc.tasks[i];
        // "Task[k]": the answers of a Map item Task for item k only.
        std::string task = written;
        size_t bracket = written.find('[');
        if (bracket != std::string::npos) {
          task = written.substr(0, bracket);
          const std::string index =
              written.substr(bracket + 1, written.size() - bracket - 2);
          const bool digits =
              !index.empty() && written.back() == ']' &&
              index.find_first_not_of("0123456789") == std::string::npos;
          if (!digits || !spec_.FindEnclosingMap(task)) {
            Error(sc.task_locations[i], "scenario-unknown-task",
                  fmt::format("'{}': only a Map item Task takes an item index "
                              "such as {}[0]",
                              written, task));
            continue;
          }
        }
        if (!domain_tasks.count(task)) {
          Error(sc.task_locations[i], "scenario-unknown-task",
                fmt::format("scenario '{}' answers '{}', which is not a "
                            "domain Task of this workflow{}",
                            sc.name, task, Suggest(task, domain_tasks)));
          continue;
        }
        for (const auto& answer : answers) {
          for (const auto& [field, at] : answer.set_fields) {
            if (!produces[task].count(field))
              Error(at, "scenario-unknown-field",
                    fmt::format("'{}' does not produce '{}'{}", task, field,
                                Suggest(field, produces[task])));
          }
          if (!answer.throw_error.empty() && !errors.count(answer.throw_error))
            Error(answer.location, "scenario-unknown-error",
                  fmt::format("'{}' is not an error of the governance's "
                              "error classes{}",
                              answer.throw_error,
                              Suggest(answer.throw_error, errors)));
        }
      }
      if (!sc.outcome.empty() && !outcomes.count(sc.outcome))
        Error(sc.outcome_location, "unknown-outcome",
              fmt::format("unknown outcome '{}'{}", sc.outcome,
                          Suggest(sc.outcome, outcomes)));
      if (!sc.outcome.empty() &&
          (sc.jobrun == "QUARANTINED" || sc.jobrun == "FAILED"))
        Error(sc.outcome_location, "scenario-outcome",
              fmt::format("scenario '{}' expects an outcome, which only a "
                          "SUCCEEDED JobRun records",
                          sc.name));
      auto check_states = [&](const std::vector<std::string>& names,
                              const std::vector<SourceLocation>& at) {
        for (size_t i = 0; i < names.size(); ++i)
          if (!states.count(names[i]))
            Error(at[i], "unknown-state",
                  fmt::format("unknown state '{}'{}", names[i],
                              Suggest(names[i], states)));
      };
      check_states(sc.path, sc.path_locations);
      bool path_known = !spec_.graph.incomplete;
      for (const auto& name : sc.path)
        path_known = path_known && states.count(name);
      if (path_known) CheckScenarioPath(sc);
      check_states(sc.not_invoked, sc.not_invoked_locations);
      std::vector<std::string> attempted;
      for (const auto& [task, n] : sc.attempts) attempted.push_back(task);
      check_states(attempted, sc.attempt_locations);
      for (size_t i = 0; i < sc.events.size(); ++i)
        if (!events.count(sc.events[i]))
          Error(sc.event_locations[i], "unknown-event",
                fmt::format("unknown event '{}'{}", sc.events[i],
                            Suggest(sc.events[i], events)));
    }
  }

  // A scenario's expect.path must be one the definition can take: it
  // starts where every execution starts, each state can follow the one
  // before it, and it ends where an execution can end. (Whether the
  // scenario's answers steer it there is the conformance test's to prove.)
  void CheckScenarioPath(const Scenario& sc) {
    if (sc.path.empty()) return;
    if (sc.path.front() != spec_.graph.start) {
      Error(sc.path_locations.front(), "scenario-path",
            fmt::format("scenario '{}' starts its path at '{}', but every "
                        "execution starts at '{}'",
                        sc.name, sc.path.front(), spec_.graph.start));
      return;
    }
    for (size_t i = 1; i < sc.path.size(); ++i) {
      const std::set<std::string> next = StatesAfter(sc.path[i - 1]);
      if (next.count(sc.path[i])) continue;
      Error(sc.path_locations[i], "scenario-path",
            fmt::format("scenario '{}' enters '{}' right after '{}', which "
                        "the definition cannot do: after '{}' come {}",
                        sc.name, sc.path[i], sc.path[i - 1], sc.path[i - 1],
                        Quoted(next)));
      return;
    }
    const State* last = spec_.graph.Find(sc.path.back());
    const bool can_end =
        last && (last->end || last->type == StateType::kSucceed ||
                 last->type == StateType::kFail);
    if (!can_end)
      Error(sc.path_locations.back(), "scenario-path",
            fmt::format("scenario '{}' ends its path at '{}', where no "
                        "execution ends: after it come {}",
                        sc.name, sc.path.back(),
                        Quoted(StatesAfter(sc.path.back()))));
  }

  // The states an execution can enter right after `name`: its transitions
  // and catches; a Map's first item state; after an item's last state the
  // next item's first or what follows the Map; from any item state, the
  // Map's catches (an item's uncaught error fails the Map).
  std::set<std::string> StatesAfter(const std::string& name) const {
    const State* map = spec_.graph.FindItemOwner(name);
    const StateGraph& graph = map ? *map->item_states : spec_.graph;
    std::set<std::string> next;
    const int at = graph.IndexOf(name);
    if (at < 0) return next;
    const State& state = graph.states[at];
    for (int to : Successors(graph, at)) next.insert(graph.states[to].name);
    for (const auto& c : CatchRoutesFor(spec_, graph, state))
      next.insert(c.next);
    if (state.type == StateType::kMap && state.item_states)
      next.insert(state.item_states->start);
    if (map) {
      if (state.end || state.type == StateType::kSucceed) {
        next.insert(map->item_states->start);
        for (int to : Successors(spec_.graph, spec_.graph.IndexOf(map->name)))
          next.insert(spec_.graph.states[to].name);
      }
      for (const auto& c : CatchRoutesFor(spec_, spec_.graph, *map))
        next.insert(c.next);
    }
    next.erase("");
    return next;
  }

  // 'a', 'b' or 'c'; "nothing" for none.
  static std::string Quoted(const std::set<std::string>& names) {
    if (names.empty()) return "nothing";
    std::string out;
    size_t i = 0;
    for (const auto& n : names) {
      out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ");
      out += "'" + n + "'";
      ++i;
    }
    return out;
  }

  void Error(const SourceLocation& at, const char* rule, std::string message) {
    sink_.Error(at, rule, std::move(message));
  }

  // Names become C++ identifiers, JSON keys, file names and ASL state
  // names; whatever cannot be escaped in all of them is rejected here.
  enum class NameStyle { kSnake, kPascalOrSnake, kUpperSnake };

  void CheckName(const std::string& name, const SourceLocation& at,
                 const char* what, NameStyle style) {
    static const std::set<std::string> kCppKeywords = {"alignas",
                                                       "alignof",
                                                       "and",
                                                       "asm",
                                                       "auto",
                                                       "bool",
                                                       "break",
                                                       "case",
                                                       "catch",
                                                       "char",
                                                       "class",
                                                       "concept",
                                                       "const",
                                                       "consteval",
                                                       "constexpr",
                                                       "constinit",
                                                       "const_cast",
                                                       "continue",
                                                       "co_await",
                                                       "co_return",
                                                       "co_yield",
                                                       "decltype",
                                                       "default",
                                                       "delete",
                                                       "do",
                                                       "double",
                                                       "dynamic_cast",
                                                       "else",
                                                       "enum",
                                                       "explicit",
                                                       "export",
                                                       "extern",
                                                       "false",
                                                       "float",
                                                       "for",
                                                       "friend",
                                                       "goto",
                                                       "if",
                                                       "inline",
                                                       "int",
                                                       "long",
                                                       "mutable",
                                                       "namespace",
                                                       "new",
                                                       "noexcept",
                                                       "not",
                                                       "nullptr",
                                                       "operator",
                                                       "or",
                                                       "private",
                                                       "protected",
                                                       "public",
                                                       "register",
                                                       "reinterpret_cast",
                                                       "requires",
                                                       "return",
                                                       "short",
                                                       "signed",
                                                       "sizeof",
                                                       "static",
                                                       "static_assert",
                                                       "static_cast",
                                                       "struct",
                                                       "switch",
                                                       "template",
                                                       "this",
                                                       "thread_local",
                                                       "throw",
                                                       "true",
                                                       "try",
                                                       "typedef",
                                                       "typeid",
                                                       "typename",
                                                       "union",
                                                       "unsigned",
                                                       "using",
                                                       "virtual",
                                                       "void",
                                                       "volatile",
                                                       "wchar_t",
                                                       "while",
                                                       "xor"};
    bool ok = !name.empty() && name.size() <= 64;
    const char* shape = "";
    switch (style) {
      case NameStyle::kSnake:
        shape = "lower_snake_case (a-z, 0-9, _; starting with a letter)";
        ok = ok && name[0] >= 'a' && name[0] <= 'z';
        for (char c : name)
          ok = ok &&
               ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
        break;
      case NameStyle::kPascalOrSnake:
        shape = "an identifier (letters, digits, _; starting with a letter)";
        ok = ok && std::isalpha(static_cast<unsigned char>(name[0]));
        for (char c : name)
          ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
        break;
      case NameStyle::kUpperSnake:
        shape = "UPPER_SNAKE_CASE (A-Z, 0-9, _; starting with a letter)";
        ok = ok && name[0] >= 'A' && name[0] <= 'Z';
        for (char c : name)
          ok = ok &&
               ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_');
        break;
    }
    if (!ok) {
      std::string shown = name.size() > 40 ? name.substr(0, 40) + "..." : name;
      Error(at, "invalid-name",
            fmt::format("{} '{}' must be {} and at most 64 characters; it "
                        "becomes a C++ identifier and a file or JSON name",
                        what, shown, shape));
    } else if (kCppKeywords.count(name)) {
      Error(at, "invalid-name",
            fmt::format("{} '{}' is a C++ keyword; it becomes a C++ "
                        "identifier, so choose another name",
                        what, name));
    }
  }

  void CheckFieldNames(const std::vector<Field>& fields, const char* what) {
    for (const auto& f : fields) {
      CheckName(f.name, f.location, what, NameStyle::kSnake);
      CheckFieldNames(f.fields, what);
      if (f.items) CheckFieldNames(f.items->fields, what);
    }
  }

  void CheckNames() {
    if (!spec_.workflow.empty())
      CheckName(spec_.workflow, spec_.workflow_location, "workflow name",
                NameStyle::kSnake);
    for (const auto& e : spec_.events) {
      CheckName(e.name, e.location, "event name", NameStyle::kPascalOrSnake);
      CheckFieldNames(e.fields, "field name");
    }
    CheckFieldNames(spec_.data, "field name");
    for (const auto& o : spec_.outcomes)
      CheckName(o.name, o.location, "outcome", NameStyle::kUpperSnake);
    for (const auto& f : spec_.failures)
      CheckName(f.id, f.location, "failure id", NameStyle::kSnake);
    for (const auto& i : spec_.identities)
      CheckName(i.name, i.location, "identity name", NameStyle::kSnake);
    auto visit = [&](const StateGraph& graph, auto& self) -> void {
      for (const auto& s : graph.states) {
        if (s.type == StateType::kTask || s.type == StateType::kMap) {
          CheckName(s.name, s.location,
                    s.type == StateType::kTask ? "Task name" : "Map name",
                    NameStyle::kPascalOrSnake);
        } else {
          bool control = false;
          for (char c : s.name)
            control = control || static_cast<unsigned char>(c) < 0x20;
          if (s.name.empty() || s.name.size() > 80 || control) {
            Error(s.location, "invalid-name",
                  fmt::format("state name must be 1 to 80 characters without "
                              "control characters (an ASL limit)"));
          }
        }
        if (s.type == StateType::kMap) {
          if (!s.item_name.empty())
            CheckName(s.item_name, s.items_location, "item name",
                      NameStyle::kSnake);
          CheckFieldNames(s.item_data, "field name");
        }
        if (s.item_states) self(*s.item_states, self);
      }
    };
    visit(spec_.graph, visit);
  }

  // ASL state names are unique across the whole machine, Map items included.
  void CheckStateNames() {
    std::map<std::string, const State*> seen;
    auto visit = [&](const StateGraph& graph, auto& self) -> void {
      for (const auto& s : graph.states) {
        for (const char* prefix :
             {"RecordOutcome_", "RecordQuarantineReason_"}) {
          if (s.name.rfind(prefix, 0) == 0) {
            Error(s.location, "duplicate-state",
                  fmt::format("state names starting with '{}' are reserved "
                              "for the Pass states the generator adds; "
                              "rename '{}'",
                              prefix, s.name));
          }
        }
        auto [it, inserted] = seen.emplace(s.name, &s);
        if (!inserted) {
          Error(s.location, "duplicate-state",
                fmt::format("state name '{}' is already used at line {}; "
                            "state names must be unique across the workflow, "
                            "Map item states included",
                            s.name, it->second->location.line));
        }
        if (s.item_states) self(*s.item_states, self);
      }
    };
    visit(spec_.graph, visit);
  }

  // Resolves a transition target inside `graph`; reports unknown targets.
  bool CheckTarget(const StateGraph& graph, const std::string& target,
                   const SourceLocation& at) {
    if (graph.Find(target)) return true;
    std::set<std::string> names;
    for (const auto& s : graph.states) names.insert(s.name);
    bool elsewhere = false;
    auto search = [&](const StateGraph& g, auto& self) -> void {
      for (const auto& s : g.states) {
        if (&g != &graph && s.name == target) elsewhere = true;
        if (s.item_states) self(*s.item_states, self);
      }
    };
    search(spec_.graph, search);
    if (elsewhere) {
      Error(at, "unknown-state",
            fmt::format("state '{}' is in another scope: a Map's item states "
                        "and the top-level states cannot move to each other",
                        target));
    } else {
      Error(at, "unknown-state",
            fmt::format("transition to unknown state '{}'{}", target,
                        Suggest(target, names)));
    }
    return false;
  }

  void CheckGraph(const StateGraph& graph) {
    const bool top = &graph == &spec_.graph;
    if (!graph.start.empty() && !graph.Find(graph.start)) {
      CheckTarget(graph, graph.start, graph.start_location);
    }
    const std::set<std::string> scope = FieldsInScope(spec_, graph);
    for (const auto& state : graph.states) {
      for (const Transition* t : state.Transitions()) {
        CheckTarget(graph, t->target, t->location);
        CheckTransitionMarks(*t, top);
      }
      if (state.type == StateType::kChoice) CheckChoice(state, scope);
      if (state.type == StateType::kTask) CheckTask(graph, state, scope);
      if (state.type == StateType::kMap) CheckMap(state, scope, top);
      if (state.type == StateType::kPass && !state.generate.empty()) {
        std::string field = g_ ? g_->correlation_field : "correlation_id";
        if (state.generate != field) {
          Error(state.generate_location, "wrong-type",
                fmt::format("a Pass state can only generate the correlation "
                            "id field '{}', not '{}'",
                            field, state.generate));
        }
      }
      CheckCatchTargets(graph, state);
    }
    CheckReachability(graph);
  }

  void CheckTransitionMarks(const Transition& t, bool top) {
    if (!t.outcome.empty()) {
      if (!top) {
        Error(t.outcome_location, "unknown-outcome",
              "outcomes belong to the workflow; a Map item state cannot "
              "record one");
      } else if (!spec_.FindOutcome(t.outcome)) {
        std::set<std::string> names;
        for (const auto& o : spec_.outcomes) names.insert(o.name);
        Error(t.outcome_location, "unknown-outcome",
              fmt::format("outcome '{}' is not declared under 'outcomes'{}",
                          t.outcome, Suggest(t.outcome, names)));
      }
    }
    if (!t.quarantine_reason.empty()) {
      const FailureCase* f = spec_.FindFailure(t.quarantine_reason);
      if (!f) {
        std::set<std::string> names;
        for (const auto& c : spec_.failures) names.insert(c.id);
        Error(t.quarantine_reason_location, "unknown-failure",
              fmt::format("quarantine_reason '{}' is not declared under "
                          "'failures'{}",
                          t.quarantine_reason,
                          Suggest(t.quarantine_reason, names)));
      } else if (f->error_class != ErrorClass::kQuarantine) {
        Error(t.quarantine_reason_location, "unknown-failure",
              fmt::format("quarantine_reason '{}' is a {} failure; it must be "
                          "of class QUARANTINE",
                          t.quarantine_reason, ErrorClassName(f->error_class)));
      }
      if (!t.outcome.empty()) {
        Error(t.outcome_location, "unknown-outcome",
              "a transition records an outcome or a quarantine_reason, not "
              "both");
      }
    }
  }

  // Field lookup with the state's scope; reports `unknown-field`.
  bool CheckField(const std::string& name, const SourceLocation& at,
                  const std::set<std::string>& scope, const char* what) {
    if (scope.count(name)) return true;
    Error(at, "unknown-field",
          fmt::format("{} names unknown field '{}'{}", what, name,
                      Suggest(name, scope)));
    return false;
  }

  void CheckChoice(const State& state, const std::set<std::string>& scope) {
    if (!state.default_transition.present()) {
      Error(state.location, "choice-without-default",
            fmt::format("Choice state '{}' has no 'default'; without one a "
                        "value no rule matches fails the run with "
                        "States.NoChoiceMatched",
                        state.name));
    }
    for (const auto& rule : state.rules) CheckCondition(rule.when, scope);
  }

  void CheckCondition(const Condition& c, const std::set<std::string>& scope) {
    using Op = Condition::Op;
    if (c.op == Op::kAll || c.op == Op::kAny || c.op == Op::kNot) {
      for (const auto& child : c.children) CheckCondition(child, scope);
      return;
    }
    if (c.field.empty()) return;
    if (!CheckField(c.field, c.field_location, scope, "a condition")) return;
    if (c.op == Op::kIsPresent || c.op == Op::kIsNull) return;
    const Field* f = spec_.FindFieldType(c.field);
    if (!f) return;  // runtime fields: strings, no declared type
    const std::string& v = c.value.text;
    const bool ordering = c.op != Op::kEquals;
    switch (f->kind) {
      case FieldKind::kBoolean:
        if (ordering) {
          Error(c.value.location, "condition-type",
                fmt::format("boolean field '{}' can only be compared with "
                            "'equals'",
                            f->name));
        } else if (v != "true" && v != "false") {
          Error(c.value.location, "condition-type",
                fmt::format("field '{}' is boolean; compare it with true or "
                            "false, not '{}' (ASL treats a comparison of "
                            "mismatched types as false)",
                            f->name, v));
        }
        break;
      case FieldKind::kInteger:
      case FieldKind::kNumber: {
        char* end = nullptr;
        std::strtod(v.c_str(), &end);
        if (v.empty() || end != v.c_str() + v.size()) {
          Error(c.value.location, "condition-type",
                fmt::format("field '{}' is a {}; compare it with a number, "
                            "not '{}'",
                            f->name, FieldKindName(f->kind), v));
        }
        break;
      }
      case FieldKind::kString:
      case FieldKind::kUuid:
        if (ordering) {
          Error(c.value.location, "condition-type",
                fmt::format("field '{}' is a {}; use 'equals' (ordering "
                            "comparisons need a number or a date_time)",
                            f->name, FieldKindName(f->kind)));
        } else if (!f->enum_values.empty() && !Contains(f->enum_values, v)) {
          std::string list;
          for (const auto& e : f->enum_values)
            list += (list.empty() ? "" : ", ") + e;
          Error(c.value.location, "condition-type",
                fmt::format("'{}' is not a value of field '{}' (one of: {})", v,
                            f->name, list));
        }
        break;
      case FieldKind::kDate:
      case FieldKind::kDateTime:
        break;
      case FieldKind::kArray:
      case FieldKind::kObject:
        Error(c.value.location, "condition-type",
              fmt::format("field '{}' is an {}; conditions compare scalar "
                          "fields",
                          f->name, FieldKindName(f->kind)));
        break;
    }
  }

  void CheckTask(const StateGraph& graph, const State& state,
                 const std::set<std::string>& scope) {
    const bool top = &graph == &spec_.graph;
    if (state.builtin == Builtin::kPublishEvent) {
      if (state.event.empty()) {
        Error(state.builtin_location, "unknown-event",
              fmt::format("PublishEvent state '{}' needs 'event'", state.name));
      } else if (!spec_.FindEvent(state.event)) {
        std::set<std::string> names;
        for (const auto& e : spec_.events) names.insert(e.name);
        Error(state.event_location, "unknown-event",
              fmt::format("event '{}' is not declared under 'events'{}",
                          state.event, Suggest(state.event, names)));
      } else if (state.event == spec_.input_event) {
        Error(state.event_location, "unknown-event",
              fmt::format("'{}' is the workflow's input event; publish a "
                          "downstream event instead",
                          state.event));
      }
      if (!state.for_each_field.empty()) {
        CheckField(state.for_each_field, state.for_each_location, scope,
                   "'for_each'");
      }
    } else if (!state.event.empty()) {
      Error(state.event_location, "unknown-event",
            fmt::format("only a PublishEvent task publishes an event; state "
                        "'{}' is {}",
                        state.name,
                        state.builtin == Builtin::kNone
                            ? "a domain task"
                            : BuiltinName(state.builtin)));
    }
    if (state.builtin == Builtin::kQuarantineItem && top) {
      Error(state.builtin_location, "builtin-scope",
            "QuarantineItem belongs in a Map's item states; use "
            "QuarantineHandler at the top level");
    }
    if (!top && state.builtin != Builtin::kNone &&
        state.builtin != Builtin::kQuarantineItem &&
        state.builtin != Builtin::kPublishEvent) {
      Error(state.builtin_location, "builtin-scope",
            fmt::format("{} runs once per workflow and cannot be a Map item "
                        "state",
                        BuiltinName(state.builtin)));
    }
    CheckTimeoutAndRetry(state);
    for (size_t i = 0; i < state.produces.size(); ++i) {
      const std::string& name = state.produces[i];
      bool declared = false;
      if (top) {
        declared = spec_.FindData(name) != nullptr;
      } else if (const State* map = spec_.FindEnclosingMap(state.name)) {
        for (const auto& f : map->item_data)
          declared = declared || f.name == name;
      }
      if (!declared) {
        std::set<std::string> names;
        if (top) {
          for (const auto& f : spec_.data) names.insert(f.name);
        } else if (const State* map = spec_.FindEnclosingMap(state.name)) {
          for (const auto& f : map->item_data) names.insert(f.name);
        }
        Error(state.produces_locations[i], "unknown-field",
              fmt::format("state '{}' produces '{}', which is not declared "
                          "under {}{}",
                          state.name, name, top ? "'data'" : "the Map's 'data'",
                          Suggest(name, names)));
      }
    }
    for (size_t i = 0; i < state.access_patterns.size(); ++i) {
      if (g_ && !g_->HasAccessPattern(state.access_patterns[i])) {
        std::set<std::string> ids;
        for (const auto& [id, text] : g_->access_patterns) ids.insert(id);
        Error(state.access_pattern_locations[i], "unknown-access-pattern",
              fmt::format("access pattern '{}' is not in the governance "
                          "catalog{}",
                          state.access_patterns[i],
                          Suggest(state.access_patterns[i], ids)));
      }
    }
    if (!state.dedupe_key.empty()) {
      CheckKeyTemplate(state.dedupe_key, state.dedupe_key_location, scope,
                       "dedupe key");
    }
    // A QUARANTINE error with nowhere to go would be caught as a failure
    // and end the run FAILED instead of QUARANTINED.
    if (MayRaise(spec_, state, ErrorClass::kQuarantine)) {
      bool routed = false;
      for (const auto& route : CatchRoutesFor(spec_, graph, state)) {
        for (ErrorClass c : route.classes)
          routed = routed || c == ErrorClass::kQuarantine;
      }
      if (!routed && !top) {
        // An uncaught item error fails the Map; the Map's own catches apply.
        if (const State* map = spec_.FindEnclosingMap(state.name)) {
          for (const auto& route : CatchRoutesFor(spec_, spec_.graph, *map))
            for (ErrorClass c : route.classes)
              routed = routed || c == ErrorClass::kQuarantine;
        }
      }
      if (!routed) {
        Error(state.location, "quarantine-unrouted",
              fmt::format("state '{}' may raise QUARANTINE errors but nothing "
                          "routes them to a quarantine handler; set "
                          "'catch: {{quarantine: ...}}' (or a Map's "
                          "'item_failure') so the run is not recorded FAILED",
                          state.name));
      }
    }
  }

  void CheckTimeoutAndRetry(const State& state) {
    const bool has_timeout =
        state.timeout_given ||
        (state.retry && state.retry->timeout_seconds.has_value());
    if (!has_timeout) {
      Error(state.location, "task-timeout",
            fmt::format("Task '{}' has no timeout; add 'timeout:' (e.g. 10s) "
                        "or use a retry preset that sets one",
                        state.name));
    }
    if (!state.retry) {
      // Without a governance (already reported) the default is unknown.
      if (!state.retry_explicit && g_) {
        Error(state.location, "task-retry",
              fmt::format("Task '{}' has no retry policy and the governance "
                          "sets no default_retry; add 'retry:' with a preset "
                          "or max_attempts",
                          state.name));
      }
      return;
    }
    const RetryPolicy& r = *state.retry;
    for (size_t i = 0; i < r.retry_on.size(); ++i) {
      if (r.retry_on[i] != ErrorClass::kRetryable) {
        Error(i < r.retry_on_locations.size() ? r.retry_on_locations[i]
                                              : r.location,
              "retry-only-retryable",
              fmt::format("state '{}' retries {} errors; only RETRYABLE "
                          "errors may be retried",
                          state.name, ErrorClassName(r.retry_on[i])));
      }
    }
    const int limit = g_ ? g_->max_attempts_limit : 10;
    if (r.max_attempts < 0) {
      Error(r.max_attempts_location, "unbounded-retry",
            fmt::format("max_attempts of state '{}' must be 0 or more",
                        state.name));
      return;
    }
    if (r.max_attempts > limit) {
      Error(r.max_attempts_location, "unbounded-retry",
            fmt::format("state '{}' retries {} times; the governance allows "
                        "at most {} (max_attempts_limit) so retries stay "
                        "bounded",
                        state.name, r.max_attempts, limit));
      return;
    }
    if (r.backoff_invalid) return;  // a malformed entry is reported
    if (static_cast<int>(r.backoff_seconds.size()) != r.max_attempts) {
      Error(
          r.backoff_location, "backoff-length",
          fmt::format("state '{}' retries {} time{} but its backoff lists "
                      "{} wait{} ({}); give one wait per retry",
                      state.name, r.max_attempts,
                      r.max_attempts == 1 ? "" : "s", r.backoff_seconds.size(),
                      r.backoff_seconds.size() == 1 ? "" : "s",
                      FormatWaits(r.backoff_seconds)));
      return;
    }
    if (r.backoff_seconds.empty()) return;
    BackoffSolution solution = SolveBackoff(r.backoff_seconds);
    if (!solution.exact) {
      const BackoffParameters& p = solution.parameters;
      Error(r.backoff_location, "backoff-inexpressible",
            fmt::format("backoff {} of state '{}' cannot be produced by "
                        "IntervalSeconds * BackoffRate^n capped by "
                        "MaxDelaySeconds; closest is IntervalSeconds {}, "
                        "BackoffRate {}, MaxDelaySeconds {} giving {}",
                        FormatWaits(r.backoff_seconds), state.name,
                        p.interval_seconds, FormatRate(p.backoff_rate),
                        p.max_delay_seconds, FormatWaits(solution.produced)));
    }
  }

  void CheckMap(const State& state, const std::set<std::string>& scope,
                bool top) {
    if (!top) {
      Error(state.location, "builtin-scope",
            fmt::format("Map state '{}' is inside another Map; nested Maps "
                        "are not supported",
                        state.name));
    }
    if (!state.items_field.empty()) {
      if (CheckField(state.items_field, state.items_location, scope,
                     "'items'")) {
        const Field* f = spec_.FindFieldType(state.items_field);
        if (f && f->kind != FieldKind::kArray) {
          Error(state.items_location, "wrong-type",
                fmt::format("'items' of Map '{}' must name an array field; "
                            "'{}' is a {}",
                            state.name, state.items_field,
                            FieldKindName(f->kind)));
        }
      }
    }
    for (size_t i = 0; i < state.carry.size(); ++i) {
      CheckField(state.carry[i], state.carry_locations[i], scope, "'carry'");
    }
    if (!state.result_field.empty() && !spec_.FindData(state.result_field)) {
      Error(state.result_location, "unknown-field",
            fmt::format("'result' of Map '{}' names '{}', which is not "
                        "declared under 'data'",
                        state.name, state.result_field));
    }
    if (g_ && !state.concurrency.empty()) {
      const ConcurrencyLimit* limit = g_->FindConcurrency(state.concurrency);
      if (!limit) {
        std::set<std::string> names;
        for (const auto& c : g_->map_concurrency) names.insert(c.name);
        Error(
            state.concurrency_location, "unknown-concurrency",
            fmt::format("concurrency class '{}' is not in the governance "
                        "map_concurrency{}",
                        state.concurrency, Suggest(state.concurrency, names)));
      } else if (state.max_concurrency &&
                 (*state.max_concurrency > limit->max ||
                  *state.max_concurrency < 1)) {
        Error(state.max_concurrency_location, "map-concurrency-limit",
              fmt::format("max_concurrency {} of Map '{}' is outside the "
                          "governance limit for '{}' (1 to {}); prefer lower "
                          "concurrency to more retries",
                          *state.max_concurrency, state.name, state.concurrency,
                          limit->max));
      }
    }
    if (state.item_failure && state.item_states) {
      const ItemFailure& f = *state.item_failure;
      if (!f.next.empty())
        CheckTarget(*state.item_states, f.next, f.next_location);
    }
  }

  void CheckCatchTargets(const StateGraph& graph, const State& state) {
    if (!state.catch_override) return;
    if (&graph != &spec_.graph) {
      // Inside items the Map's item_failure routes errors by class; a
      // state may add a failure route (States.ALL), nothing else.
      const CatchRoutes& c = *state.catch_override;
      if (c.none || !c.quarantine.empty() || c.failure.empty()) {
        Error(state.catch_override->location, "builtin-scope",
              fmt::format("Map item state '{}' may set only 'catch: "
                          "{{failure: <item state>}}'; the Map's "
                          "'item_failure' routes item errors by class",
                          state.name));
        return;
      }
      CheckTarget(graph, c.failure, c.failure_location);
      return;
    }
    if (state.catch_override->none) return;
    const CatchRoutes& c = *state.catch_override;
    if (!c.quarantine.empty())
      CheckTarget(graph, c.quarantine, c.quarantine_location);
    if (!c.failure.empty()) CheckTarget(graph, c.failure, c.failure_location);
  }

  void CheckCatchDefaults() {
    const CatchRoutes& c = spec_.catch_defaults;
    if (!c.quarantine.empty())
      CheckTarget(spec_.graph, c.quarantine, c.quarantine_location);
    if (!c.failure.empty())
      CheckTarget(spec_.graph, c.failure, c.failure_location);
  }

  // Every state reachable from the start (by transitions and catches), and
  // from every state some terminal state reachable.
  void CheckReachability(const StateGraph& graph) {
    const int n = static_cast<int>(graph.states.size());
    if (n == 0 || graph.incomplete) return;
    Edges edges(n);
    for (int i = 0; i < n; ++i) {
      edges[i] = Successors(graph, i);
      for (const auto& route : CatchRoutesFor(spec_, graph, graph.states[i])) {
        int to = graph.IndexOf(route.next);
        if (to >= 0) edges[i].push_back(to);
      }
    }
    int start = graph.IndexOf(graph.start);
    if (start < 0) return;
    const std::vector<bool> reached = Closure(edges, {start});
    for (int i = 0; i < n; ++i) {
      if (!reached[i]) {
        Error(graph.states[i].location, "unreachable-state",
              fmt::format("state '{}' is unreachable from '{}'; remove it or "
                          "add a transition to it",
                          graph.states[i].name, graph.start));
      }
    }
    // Backwards from the terminal states, over transitions only: an error
    // caught out of a loop is no way out of it (a loop of Tasks that always
    // succeed runs until Step Functions fails the execution at its 25,000
    // history events). A transition to an unknown state is reported
    // already; such a state is a dead end, not a loop.
    std::vector<int> terminals;
    for (int i = 0; i < n; ++i) {
      bool unresolved = false;
      for (const Transition* t : graph.states[i].Transitions())
        unresolved = unresolved || graph.IndexOf(t->target) < 0;
      // A state with no transition that is not terminal lacks its `next`
      // (reported by the loader): a dead end too.
      if (graph.states[i].is_terminal() || unresolved ||
          graph.states[i].Transitions().empty())
        terminals.push_back(i);
    }
    Edges transitions(n);
    for (int i = 0; i < n; ++i) transitions[i] = Successors(graph, i);
    const std::vector<bool> ends = Closure(Reversed(transitions), terminals);
    for (int i = 0; i < n; ++i) {
      if (reached[i] && !ends[i]) {
        Error(graph.states[i].location, "no-terminal-path",
              fmt::format("no path from state '{}' reaches a terminal state "
                          "(end: true, Succeed or Fail) by transitions (a "
                          "catch is no way out); the run would loop forever",
                          graph.states[i].name));
      }
    }
  }

  // The `workflow:` value, or the file's start when the key is missing.
  SourceLocation WorkflowLocation() const {
    if (!spec_.workflow_location.file.empty()) return spec_.workflow_location;
    return SourceLocation{spec_.file, 1, 1, 1};
  }

  void CheckBuiltinsPresent() {
    static const Builtin kRequired[] = {
        Builtin::kBeginJobRun, Builtin::kAcquireIdempotencyLock,
        Builtin::kFinalizeJobRunSuccess, Builtin::kTerminalFailHandler,
        Builtin::kFinalizeJobRunFailed};
    for (Builtin b : kRequired) {
      bool found = false;
      for (const auto& s : spec_.graph.states) found = found || s.builtin == b;
      if (!found) {
        Error(WorkflowLocation(), "missing-builtin",
              fmt::format("workflow '{}' has no {} task; every workflow "
                          "records its JobRun from BeginJobRun to a Finalize "
                          "state",
                          spec_.workflow, BuiltinName(b)));
      }
    }
    // Quarantine routes must end in FinalizeJobRunQuarantined.
    bool quarantine_used = !spec_.catch_defaults.quarantine.empty();
    for (const auto& s : spec_.graph.states)
      quarantine_used =
          quarantine_used || s.builtin == Builtin::kQuarantineHandler;
    if (quarantine_used) {
      bool found = false;
      for (const auto& s : spec_.graph.states)
        found = found || s.builtin == Builtin::kFinalizeJobRunQuarantined;
      if (!found) {
        Error(WorkflowLocation(), "missing-builtin",
              fmt::format("workflow '{}' quarantines but has no "
                          "FinalizeJobRunQuarantined task to record it",
                          spec_.workflow));
      }
    }
  }

  // Every path from the start to FinalizeJobRunSuccess records exactly one
  // outcome, and every declared outcome is recorded on some such path.
  void CheckOutcomes() {
    const StateGraph& graph = spec_.graph;
    const int n = static_cast<int>(graph.states.size());
    int start = graph.IndexOf(graph.start);
    if (start < 0 || graph.incomplete) return;
    // Breadth-first over (state, outcomes recorded so far capped at 2); the
    // parent links give the shortest offending path for the message.
    struct Node {
      int state;
      int count;
    };
    std::vector<std::array<int, 3>> parent(n, {-2, -2, -2});
    std::vector<std::array<const Transition*, 3>> via(
        n, {nullptr, nullptr, nullptr});
    std::deque<Node> queue = {{start, 0}};
    parent[start][0] = -1;
    std::set<int> reported;
    while (!queue.empty()) {
      Node at = queue.front();
      queue.pop_front();
      const State& s = graph.states[at.state];
      if (s.builtin == Builtin::kFinalizeJobRunSuccess && at.count != 1 &&
          reported.insert(at.count).second) {
        ReportOutcomePath(at.state, at.count, parent, via);
      }
      for (const Transition* t : s.Transitions()) {
        int to = graph.IndexOf(t->target);
        if (to < 0) continue;
        int count = std::min(2, at.count + (t->outcome.empty() ? 0 : 1));
        if (parent[to][count] != -2) continue;
        parent[to][count] = at.state * 3 + at.count;
        via[to][count] = t;
        queue.push_back({to, count});
      }
    }
    // Declared outcomes must be recorded on a transition from a reachable
    // state into a state from which success is reachable.
    std::set<int> reachable = ReachableFrom(graph, start);
    Edges edges(n);
    std::vector<int> successes;
    for (int i = 0; i < n; ++i) {
      edges[i] = Successors(graph, i);
      if (graph.states[i].builtin == Builtin::kFinalizeJobRunSuccess)
        successes.push_back(i);
    }
    const std::vector<bool> leads_to_success =
        Closure(Reversed(edges), successes);
    std::set<std::string> recorded;
    for (int i : reachable) {
      for (const Transition* t : graph.states[i].Transitions()) {
        int to = graph.IndexOf(t->target);
        if (!t->outcome.empty() && to >= 0 && leads_to_success[to])
          recorded.insert(t->outcome);
        if (!t->outcome.empty() && to >= 0 && !leads_to_success[to]) {
          Error(t->outcome_location, "outcome-unreachable",
                fmt::format("outcome '{}' is recorded on a transition to "
                            "'{}', from which FinalizeJobRunSuccess cannot be "
                            "reached",
                            t->outcome, t->target));
        }
      }
    }
    for (const auto& o : spec_.outcomes) {
      if (!recorded.count(o.name)) {
        Error(o.location, "outcome-unreachable",
              fmt::format("outcome '{}' is declared but no path to "
                          "FinalizeJobRunSuccess records it",
                          o.name));
      }
    }
  }

  void ReportOutcomePath(
      int state, int count, const std::vector<std::array<int, 3>>& parent,
      const std::vector<std::array<const Transition*, 3>>& via) {
    const StateGraph& graph = spec_.graph;
    std::vector<std::string> path;
    // Point at the transition to change: the last one for a missing
    // outcome, the one that recorded the second outcome for a repeat.
    const Transition* last = via[state][count];
    int s = state, c = count;
    while (s >= 0) {
      path.push_back(graph.states[s].name);
      int p = parent[s][c];
      if (p < 0) break;
      if (count == 2 && c == 2 && p % 3 == 1) last = via[s][c];
      s = p / 3;
      c = p % 3;
    }
    std::reverse(path.begin(), path.end());
    std::string joined;
    for (const auto& p : path) joined += (joined.empty() ? "" : " -> ") + p;
    SourceLocation at = last ? last->location : graph.states[state].location;
    if (count == 2 && last) at = last->outcome_location;
    if (count == 0) {
      Error(at, "outcome-missing",
            fmt::format("this path reaches {} without recording an outcome: "
                        "{}; add 'outcome:' to one of its transitions",
                        graph.states[state].name, joined));
    } else {
      Error(at, "outcome-repeated",
            fmt::format("this path records more than one outcome before {}: "
                        "{}; record exactly one",
                        graph.states[state].name, joined));
    }
  }

  void CheckFailures() {
    for (const auto& f : spec_.failures) {
      for (size_t i = 0; i < f.raised_by.size(); ++i) {
        const State* s = spec_.graph.Find(f.raised_by[i]);
        if (!s) {
          if (const State* map = spec_.FindEnclosingMap(f.raised_by[i]))
            s = map->item_states->Find(f.raised_by[i]);
        }
        if (!s || s->type != StateType::kTask) {
          Error(f.raised_by_locations[i], "unknown-state",
                fmt::format("failure '{}' is raised by '{}', which is not a "
                            "Task state of this workflow",
                            f.id, f.raised_by[i]));
        }
      }
    }
  }

  void CheckKeyTemplate(const std::string& key, const SourceLocation& at,
                        const std::set<std::string>& scope, const char* what) {
    for (const auto& p : Placeholders(key)) {
      if (scope.count(p.name)) continue;
      Error(PlaceholderLocation(at, p), "key-unknown-field",
            fmt::format("{} names unknown field '{}'{}", what, p.name,
                        Suggest(p.name, scope)));
    }
  }

  void CheckIdempotency() {
    if (spec_.idempotency_key.empty()) return;
    CheckKeyTemplate(spec_.idempotency_key, spec_.idempotency_key_location,
                     FieldsInScope(spec_, spec_.graph), "the idempotency key");
    bool bucketed = false;
    for (const auto& p : Placeholders(spec_.idempotency_key))
      bucketed = bucketed || p.name == "time_bucket";
    const Trigger* refresh = nullptr;
    for (const auto& t : spec_.triggers) {
      if (!refresh && (t.kind == "scheduled" || t.kind == "refresh"))
        refresh = &t;
    }
    if (refresh && !bucketed) {
      Error(spec_.idempotency_key_location, "idempotency-time-bucket",
            fmt::format("workflow '{}' has a {} trigger (line {}), so its "
                        "idempotency key must contain {{time_bucket}}",
                        spec_.workflow, refresh->kind, refresh->location.line));
    }
    CheckKeyFieldsKnownAtLock();
    if (bucketed && !spec_.time_bucket_given) {
      Error(spec_.idempotency_key_location, "idempotency-time-bucket",
            "the idempotency key uses {time_bucket} but 'idempotency' sets no "
            "time_bucket size (e.g. time_bucket: 1d)");
    }
  }

  // The lock is taken by AcquireIdempotencyLock: every field its key names
  // must be known there on every path (an input or runtime field, or
  // produced by a Task that every path passes first).
  void CheckKeyFieldsKnownAtLock() {
    const StateGraph& graph = spec_.graph;
    const int n = static_cast<int>(graph.states.size());
    int lock = -1;
    for (int i = 0; i < n; ++i)
      if (graph.states[i].builtin == Builtin::kAcquireIdempotencyLock) lock = i;
    const int start = graph.IndexOf(graph.start);
    if (lock < 0 || start < 0 || graph.incomplete) return;
    // Forward must-analysis: known[i] is what every path into state i has
    // produced (nullopt: not reached yet).
    std::vector<std::optional<std::set<std::string>>> known(n);
    known[start] = std::set<std::string>{};
    for (bool changed = true; changed;) {
      changed = false;
      for (int i = 0; i < n; ++i) {
        if (!known[i]) continue;
        std::set<std::string> out = *known[i];
        out.insert(graph.states[i].produces.begin(),
                   graph.states[i].produces.end());
        for (int to : Successors(graph, i)) {
          std::set<std::string> merged;
          if (!known[to]) {
            merged = out;
          } else {
            for (const auto& f : *known[to])
              if (out.count(f)) merged.insert(f);
          }
          if (!known[to] || merged != *known[to]) {
            known[to] = std::move(merged);
            changed = true;
          }
        }
      }
    }
    if (!known[lock]) return;
    for (const auto& p : Placeholders(spec_.idempotency_key)) {
      if (!spec_.FindData(p.name)) continue;  // input, runtime or constant
      if (known[lock]->count(p.name)) continue;
      Error(PlaceholderLocation(spec_.idempotency_key_location, p),
            "idempotency-key-unavailable",
            fmt::format("the idempotency key needs '{}', which is not produced "
                        "on every path before {} takes the lock; produce it "
                        "earlier or key on an input field",
                        p.name, graph.states[lock].name));
    }
  }

  void CheckInternalFields(const std::vector<Field>& fields,
                           const EventDef& event) {
    std::set<std::string> internal;
    if (g_)
      internal.insert(g_->internal_fields.begin(), g_->internal_fields.end());
    for (const auto& f : fields) {
      if (internal.count(f.name)) {
        Error(f.location, "internal-field-in-event",
              fmt::format("'{}' is internal only and must not appear in "
                          "event '{}'",
                          f.name, event.name));
      }
      CheckInternalFields(f.fields, event);
      if (f.items) CheckInternalFields(f.items->fields, event);
    }
  }

  // Whether `value` has the shape of field kind `kind` (a default's check;
  // the schema validators check the rest).
  static bool FitsKind(const Field& f, const nlohmann::ordered_json& value) {
    switch (f.kind) {
      case FieldKind::kInteger:
        return value.is_number_integer();
      case FieldKind::kNumber:
        return value.is_number();
      case FieldKind::kBoolean:
        return value.is_boolean();
      case FieldKind::kArray:
        if (!value.is_array()) return false;
        for (const auto& v : value)
          if (f.items && !FitsKind(*f.items, v)) return false;
        return true;
      case FieldKind::kObject:
        return value.is_object();
      default:
        return value.is_string() &&
               (f.enum_values.empty() ||
                std::find(f.enum_values.begin(), f.enum_values.end(),
                          value.get<std::string>()) != f.enum_values.end());
    }
  }

  // A schedule expression as EventBridge Scheduler takes it: "" when
  // valid, else what is wrong.
  static std::string ScheduleExpressionProblem(const std::string& e) {
    auto inside = [&](const char* prefix) -> std::optional<std::string> {
      const std::string p(prefix);
      if (e.size() < p.size() + 1 || e.compare(0, p.size(), p) != 0 ||
          e.back() != ')')
        return std::nullopt;
      return e.substr(p.size(), e.size() - p.size() - 1);
    };
    if (auto body = inside("rate(")) {
      const size_t space = body->find(' ');
      const std::string n = body->substr(0, space);
      const std::string unit =
          space == std::string::npos ? "" : body->substr(space + 1);
      if (n.empty() || n.size() > 9 ||
          n.find_first_not_of("0123456789") != std::string::npos || n[0] == '0')
        return "the rate must be a positive whole number, e.g. rate(1 day)";
      static const std::set<std::string> kUnits = {"minute", "minutes", "hour",
                                                   "hours",  "day",     "days"};
      if (!kUnits.count(unit))
        return "the unit must be minute(s), hour(s) or day(s)";
      const bool one = n == "1";
      if (one != (unit.back() != 's'))
        return one ? "a rate of 1 takes a singular unit (rate(1 " +
                         unit.substr(0, unit.size() - 1) + "))"
                   : "a rate above 1 takes a plural unit (rate(" + n + " " +
                         unit + "s))";
      return "";
    }
    if (auto body = inside("cron(")) {
      std::vector<std::string> fields;
      size_t start = 0;
      while (start <= body->size()) {
        size_t end = body->find(' ', start);
        if (end == std::string::npos) end = body->size();
        fields.push_back(body->substr(start, end - start));
        start = end + 1;
      }
      if (fields.size() != 6)
        return fmt::format(
            "cron takes 6 fields separated by single spaces (minutes hours "
            "day-of-month month day-of-week year), got {}",
            fields.size());
      for (const auto& f : fields) {
        if (f.empty() || f.find_first_not_of("0123456789abcdefghijklmnopqrstu"
                                             "vwxyzABCDEFGHIJKLMNOPQRSTUVWXY"
                                             "Z,-*/?#") != std::string::npos)
          return fmt::format(
              "cron field '{}' has a character cron does not "
              "take",
              f);
      }
      if ((fields[2] == "?") == (fields[4] == "?"))
        return "exactly one of day-of-month and day-of-week must be '?'";
      return "";
    }
    return "write rate(<n> minute|minutes|hour|hours|day|days) or "
           "cron(<minutes> <hours> <day-of-month> <month> <day-of-week> "
           "<year>)";
  }

  // A `scheduled` trigger's schedule: its expression's syntax and its input
  // against the workflow's input event; with `for_each: nova`, the nova_id
  // each run gets is the sweep's, never the input's. Without a schedule
  // nothing would start the workflow in AWS: an error.
  void CheckSchedules() {
    for (const auto& t : spec_.triggers) {
      if (!t.schedule) {
        if (t.kind == "scheduled")
          Error(t.location, "schedule-missing",
                fmt::format("the scheduled trigger of '{}' has no schedule: "
                            "nothing would start it when deployed; add "
                            "schedule: {{expression, input}}, or schedule: "
                            "{{expression, for_each: nova}} for one run per "
                            "nova",
                            spec_.workflow));
        continue;
      }
      const Schedule& sc = *t.schedule;
      if (t.kind != "scheduled") {
        Error(sc.location, "schedule-trigger-kind",
              fmt::format("only a 'scheduled' trigger has a schedule; this "
                          "trigger is '{}'",
                          t.kind));
        continue;
      }
      if (!sc.expression.empty()) {
        std::string problem = ScheduleExpressionProblem(sc.expression);
        if (!problem.empty())
          Error(sc.expression_location, "schedule-expression",
                fmt::format("bad schedule expression '{}': {}", sc.expression,
                            problem));
      }
      const bool per_nova = sc.for_each == "nova";
      if (!sc.for_each.empty() && !per_nova)
        Error(sc.for_each_location, "schedule-for-each",
              fmt::format("for_each must be 'nova' (one run per nova of the "
                          "catalog); got '{}'",
                          sc.for_each));
      const EventDef* input = spec_.FindEvent(spec_.input_event);
      if (!input) continue;
      if (per_nova) {
        const Field* id = input->FindField("nova_id");
        if (!id ||
            (id->kind != FieldKind::kUuid && id->kind != FieldKind::kString))
          Error(sc.for_each_location, "schedule-for-each",
                fmt::format("for_each: nova gives each run a nova_id, but "
                            "input event '{}' {}",
                            input->name,
                            id ? "declares nova_id as " +
                                     std::string(FieldKindName(id->kind))
                               : std::string("does not declare nova_id")));
      }
      std::set<std::string> declared;
      for (const auto& f : input->fields) declared.insert(f.name);
      for (const auto& [name, at] : sc.input_fields) {
        const Field* f = input->FindField(name);
        const auto& value = sc.input[name];
        if (per_nova && name == "nova_id") {
          Error(at, "schedule-input",
                "the schedule's input sets 'nova_id', which for_each: nova "
                "gives each run");
        } else if (!f) {
          if (!input->allow_unknown_properties)
            Error(at, "schedule-input",
                  fmt::format("the schedule's input sets '{}', which input "
                              "event '{}' does not declare (it rejects "
                              "unknown properties){}",
                              name, input->name, Suggest(name, declared)));
        } else if (!(value.is_null() && f->nullable) && !FitsKind(*f, value)) {
          Error(at, "schedule-input",
                fmt::format("the schedule's input '{}' is not a value of "
                            "its type {} in input event '{}'",
                            name, FieldKindName(f->kind), input->name));
        }
      }
      for (const auto& f : input->fields) {
        if (f.required && !sc.input.contains(f.name) &&
            !(per_nova && f.name == "nova_id"))
          Error(sc.input_location, "schedule-input",
                fmt::format("the schedule's input lacks '{}', a required "
                            "field of input event '{}'",
                            f.name, input->name));
      }
    }
  }

  // The spec's `secrets` name secrets the governance declares: an unknown
  // id would give the function no variable and the stack no parameter.
  void CheckSecrets() {
    if (!g_) return;
    for (size_t i = 0; i < spec_.secrets.size(); ++i) {
      if (g_->FindSecret(spec_.secrets[i])) continue;
      std::set<std::string> ids;
      for (const auto& secret : g_->secrets) ids.insert(secret.id);
      Error(spec_.secret_locations[i], "unknown-secret",
            fmt::format("secret '{}' is not declared in the governance's "
                        "'secrets'{}",
                        spec_.secrets[i], Suggest(spec_.secrets[i], ids)));
    }
  }

  // `job_run_output` names `data` fields: what a run's JobRun records is
  // what its Tasks produce, and a misspelt name would record nothing.
  void CheckJobRunOutput() {
    for (size_t i = 0; i < spec_.job_run_output.size(); ++i) {
      const std::string& name = spec_.job_run_output[i];
      if (spec_.FindData(name)) continue;
      std::set<std::string> names;
      for (const auto& f : spec_.data) names.insert(f.name);
      Error(spec_.job_run_output_locations[i], "unknown-field",
            fmt::format("'job_run_output' names '{}', which is not declared "
                        "under 'data'{}",
                        name, Suggest(name, names)));
    }
  }

  // An `object_created` trigger: its `object_created: {prefix}`, a bucket
  // to listen to (the catalog's, which the stack has only for a spec with
  // `object_store`), and an input event the stack's rule can fill from S3's
  // event: bucket, key and etag as required strings, byte_length (when
  // declared) an integer, and no other required field.
  void CheckObjectCreatedTriggers() {
    for (const auto& t : spec_.triggers) {
      if (t.object_created && t.kind != "object_created") {
        Error(t.object_created->location, "object-created-trigger-kind",
              fmt::format("only an 'object_created' trigger has "
                          "object_created; this trigger is '{}'",
                          t.kind));
        continue;
      }
      if (t.kind != "object_created") continue;
      if (!t.object_created) {
        Error(t.location, "object-created-missing",
              fmt::format("the object_created trigger of '{}' says no "
                          "objects: add object_created: {{prefix: <key "
                          "prefix>}}",
                          spec_.workflow));
        continue;
      }
      if (t.object_created->prefix.empty())
        Error(t.object_created->location, "object-created-missing",
              fmt::format("the object_created trigger of '{}' has an empty "
                          "prefix: it would start for every object of the "
                          "bucket, the workflow's own writes included; give "
                          "the key prefix of the objects it takes",
                          spec_.workflow));
      if (spec_.object_store.empty())
        Error(t.object_created->location, "object-created-bucket",
              fmt::format("the object_created trigger of '{}' listens to "
                          "the catalog's bucket, which the workflow does "
                          "not use: add object_store: read (or read_write)",
                          spec_.workflow));
      const EventDef* input = spec_.FindEvent(spec_.input_event);
      if (!input) continue;
      for (const char* name : {"bucket", "key", "etag"}) {
        const Field* f = input->FindField(name);
        if (!f || f->kind != FieldKind::kString || !f->required)
          Error(t.object_created->location, "object-created-input",
                fmt::format("the object_created trigger fills '{}' from "
                            "S3's event, so input event '{}' must declare "
                            "it as a required string",
                            name, input->name));
      }
      if (const Field* f = input->FindField("byte_length");
          f && f->kind != FieldKind::kInteger)
        Error(t.object_created->location, "object-created-input",
              fmt::format("the object_created trigger fills 'byte_length' "
                          "with the object's size, so input event '{}' "
                          "must declare it as an integer",
                          input->name));
      for (const auto& f : input->fields) {
        if (f.required && f.name != "bucket" && f.name != "key" &&
            f.name != "etag")
          Error(t.object_created->location, "object-created-input",
                fmt::format("input event '{}' requires '{}', which S3's "
                            "event does not give",
                            input->name, f.name));
      }
    }
  }

  // `default` fills an absent input field at BeginJobRun: only optional
  // fields have one, of their own type.
  void CheckDefaults() {
    for (const auto& f : spec_.data) {
      if (f.default_value)
        Error(f.default_location, "field-default",
              fmt::format("data field '{}' has a default, but only input "
                          "event fields are filled in (by BeginJobRun)",
                          f.name));
    }
    for (const auto& e : spec_.events) {
      for (const auto& f : e.fields) {
        if (!f.default_value) continue;
        // On a published event the default documents what its consumer
        // (the workflow it starts) fills in: the declarations must agree.
        if (f.required) {
          Error(f.default_location, "field-default",
                fmt::format("required field '{}' has a default that can "
                            "never apply; make it optional or drop the "
                            "default",
                            f.name));
        } else if (!FitsKind(f, *f.default_value)) {
          Error(f.default_location, "field-default",
                fmt::format("the default of '{}' is not a value of its type",
                            f.name));
        }
      }
    }
  }

  void CheckEvents() {
    CheckDefaults();
    if (!spec_.input_event.empty() && !spec_.FindEvent(spec_.input_event)) {
      std::set<std::string> names;
      for (const auto& e : spec_.events) names.insert(e.name);
      Error(spec_.input_event_location, "unknown-event",
            fmt::format("input event '{}' is not declared under 'events'{}",
                        spec_.input_event, Suggest(spec_.input_event, names)));
    }
    std::set<std::string> published;
    auto collect = [&](const StateGraph& graph, auto& self) -> void {
      for (const auto& s : graph.states) {
        if (s.builtin == Builtin::kPublishEvent) published.insert(s.event);
        if (s.item_states) self(*s.item_states, self);
      }
    };
    collect(spec_.graph, collect);
    const std::string correlation =
        g_ ? g_->correlation_field : "correlation_id";
    for (const auto& e : spec_.events) {
      CheckInternalFields(e.fields, e);
      for (size_t i = 0; i < e.published_on.size(); ++i) {
        if (!spec_.FindOutcome(e.published_on[i])) {
          Error(e.published_on_locations[i], "unknown-outcome",
                fmt::format("event '{}' is published on unknown outcome "
                            "'{}'",
                            e.name, e.published_on[i]));
        }
      }
      if (e.name == spec_.input_event) continue;
      if (!published.count(e.name)) {
        sink_.Warning(e.location, "unused-event",
                      fmt::format("event '{}' is neither the input nor "
                                  "published by any state",
                                  e.name));
        continue;
      }
      // PublishEvent always fills the run's correlation id in; the field
      // may still be optional in the schema when the event is also another
      // workflow's input, which manual triggers start without one.
      const Field* id = e.FindField(correlation);
      if (!id || id->kind != FieldKind::kUuid) {
        Error(id ? id->location : e.location, "event-correlation-id",
              fmt::format("published event '{}' must declare '{}' as a "
                          "uuid field (PublishEvent fills it in)",
                          e.name, correlation));
      }
    }
  }

  void CheckLogging() {
    std::set<std::string> known;
    auto add_scope = [&](const StateGraph& graph) {
      auto s = FieldsInScope(spec_, graph);
      known.insert(s.begin(), s.end());
    };
    add_scope(spec_.graph);
    for (const auto& s : spec_.graph.states)
      if (s.item_states) add_scope(*s.item_states);
    std::set<std::string> at_start(kRuntimeFields.begin(),
                                   kRuntimeFields.end());
    if (const EventDef* input = spec_.FindEvent(spec_.input_event)) {
      for (const auto& f : input->fields)
        if (f.required) at_start.insert(f.name);
    }
    for (size_t i = 0; i < spec_.log_required.size(); ++i) {
      const std::string& name = spec_.log_required[i];
      const SourceLocation& at = spec_.log_required_locations[i];
      if (!known.count(name)) {
        Error(at, "log-field-unknown",
              fmt::format("log field '{}' is not a field of this workflow{}",
                          name, Suggest(name, known)));
      } else if (!at_start.count(name)) {
        Error(at, "log-field-unavailable",
              fmt::format("required log field '{}' is not known when the run "
                          "starts; list it under 'when_known' or make it a "
                          "required input field",
                          name));
      }
    }
    for (size_t i = 0; i < spec_.log_when_known.size(); ++i) {
      const std::string& name = spec_.log_when_known[i];
      if (!known.count(name)) {
        Error(spec_.log_when_known_locations[i], "log-field-unknown",
              fmt::format("log field '{}' is not a field of this workflow{}",
                          name, Suggest(name, known)));
      }
    }
  }

  const WorkflowSpec& spec_;
  DiagnosticSink& sink_;
  const Governance* g_;
};

}  // namespace

void CheckSpec(const WorkflowSpec& spec, DiagnosticSink& sink) {
  SpecChecker(spec, sink).Run();
}

void CheckSpecSet(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                  DiagnosticSink& sink) {
  std::map<std::string, const WorkflowSpec*> seen;
  for (const auto& spec : specs) {
    if (!spec || spec->workflow.empty()) continue;
    auto [it, inserted] = seen.emplace(spec->workflow, spec.get());
    if (!inserted) {
      sink.Error(spec->workflow_location, "duplicate-workflow",
                 fmt::format("workflow '{}' is also defined in {}; each "
                             "workflow has one spec",
                             spec->workflow, it->second->file));
    }
  }
  // A secret the stack gives one parameter: the specs that name it must
  // mean the same secret (specs of one run naming different governance
  // files could declare one id twice).
  std::map<std::string, const SecretDef*> secrets;
  for (const auto& spec : specs) {
    if (!spec || !spec->governance) continue;
    for (size_t i = 0; i < spec->secrets.size(); ++i) {
      const SecretDef* secret = spec->governance->FindSecret(spec->secrets[i]);
      if (!secret) continue;
      auto [it, inserted] = secrets.emplace(secret->id, secret);
      const SecretDef& first = *it->second;
      if (inserted || (first.variable == secret->variable &&
                       first.description == secret->description))
        continue;
      sink.Error(
          spec->secret_locations[i], "secret-conflict",
          fmt::format(
              "secret '{}' is declared at {}:{} with another {} than "
              "at {}:{}; the stack has one parameter per secret, so "
              "the specs of one stack must name the same governance",
              secret->id, secret->location.file, secret->location.line,
              first.variable != secret->variable ? "variable" : "description",
              first.location.file, first.location.line));
    }
  }
  // An event is declared once: two specs that declare the same event
  // themselves (not through the event catalog) would be two copies to keep
  // in step.
  std::map<std::string, const EventDef*> declared;
  for (const auto& spec : specs) {
    if (!spec) continue;
    for (const auto& event : spec->events) {
      if (event.catalog_location) continue;
      auto [it, inserted] = declared.emplace(event.name, &event);
      if (!inserted)
        sink.Error(event.location, "event-conflict",
                   fmt::format("event '{}' is also declared at {}:{}; declare "
                               "it once, in the event catalog (event_catalog: "
                               "shared/events.yaml), and name it in each spec "
                               "without 'fields'",
                               event.name, it->second->location.file,
                               it->second->location.line));
    }
  }
}

}  // namespace novacat
