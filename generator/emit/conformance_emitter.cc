#include "emit/conformance_emitter.h"

#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "emit/cpp_emitter.h"
#include "model/routes.h"

namespace novacat {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxPaths = 64;
constexpr size_t kMaxCombinations = 4096;
constexpr const char* kSampleUuid = "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c";

// A path through the top-level graph and the data that takes it.
struct PathPlan {
  std::vector<std::string> states;  // ASL states entered, Pass marks included
  std::vector<std::string> spec_states;  // spec states, for Task lookups
  Json doc = Json::object();             // field → value
  std::set<std::string> absent;          // fields that must be absent
  std::string outcome;
  std::string quarantine_reason;
  std::string terminal;  // the last state
  bool failed = false;
  std::string error;
  std::set<std::string> branches;  // "Choice#k" taken
};

class PlanBuilder {
 public:
  explicit PlanBuilder(const WorkflowSpec& spec) : spec_(spec), marks_(spec) {}

  Json Build() {
    Json cases = Json::array();
    std::vector<PathPlan> paths;
    PathPlan start;
    Walk(spec_.graph.start, start, paths, 0);
    // Keep a path per outcome and quarantine reason, then paths that take
    // Choice branches not yet taken.
    std::vector<const PathPlan*> chosen;
    std::set<std::string> ends, branches;
    for (const auto& p : paths) {
      std::string end =
          p.outcome.empty() ? "q:" + p.quarantine_reason : p.outcome;
      if (p.failed) continue;
      if (ends.insert(end).second) {
        chosen.push_back(&p);
        branches.insert(p.branches.begin(), p.branches.end());
      }
    }
    for (const auto& p : paths) {
      if (p.failed) continue;
      bool adds = false;
      for (const auto& b : p.branches) adds = adds || !branches.count(b);
      if (adds) {
        chosen.push_back(&p);
        branches.insert(p.branches.begin(), p.branches.end());
      }
    }
    std::set<std::string> names;
    for (const PathPlan* p : chosen) {
      std::string name =
          "path_" + (p->outcome.empty() ? "quarantined_" + p->quarantine_reason
                                        : p->outcome);
      std::string unique = name;
      for (int i = 2; !names.insert(unique).second; ++i)
        unique = name + "_" + std::to_string(i);
      Json expect = {{"status", "SUCCEEDED"}, {"states", p->states}};
      if (!p->outcome.empty()) expect["outcome"] = p->outcome;
      if (!p->quarantine_reason.empty())
        expect["quarantine_reason"] = p->quarantine_reason;
      cases.push_back(Case(unique, *p, Script(*p), expect,
                           "Choice branches: " + Join(p->branches)));
    }
    // Failure classes for every Task on the first success path through it.
    std::set<std::string> covered;
    for (const PathPlan* p : chosen) {
      for (const auto& name : p->spec_states) {
        const State* s = FindState(name);
        if (!s || s->type != StateType::kTask || !covered.insert(name).second)
          continue;
        AddFailureCases(*s, *p, cases);
      }
    }
    return cases;
  }

 private:
  static std::string Join(const std::set<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out.empty() ? "none" : out;
  }

  const State* FindState(const std::string& name) const {
    if (const State* s = spec_.graph.Find(name)) return s;
    if (const State* map = spec_.FindEnclosingMap(name))
      return map->item_states->Find(name);
    return nullptr;
  }

  Json Case(const std::string& name, const PathPlan& p, Json script,
            Json expect, const std::string& note) const {
    return Json{{"name", name},
                {"note", note},
                {"input", Input(p)},
                {"script", std::move(script)},
                {"expect", std::move(expect)}};
  }

  Json Input(const PathPlan& p) const { return p.doc; }

  // Every Task returns the path's document (the Payload convention: a Task
  // returns the whole state), through the script's "*" entry; Map item
  // Tasks return an empty item.
  Json Script(const PathPlan& p) const {
    Json script = Json::object();
    script["*"] = Json::array({{{"return", p.doc}}});
    for (const auto& s : spec_.graph.states) {
      if (!s.item_states) continue;
      for (const auto& item : s.item_states->states)
        if (item.type == StateType::kTask)
          script[item.name] = Json::array({{{"return", Json::object()}}});
    }
    return script;
  }

  // ---- conditions -----------------------------------------------------

  Json Typed(const Field* f, const std::string& text) const {
    if (!f) return text;
    switch (f->kind) {
      case FieldKind::kBoolean:
        return text == "true";
      case FieldKind::kInteger:
      case FieldKind::kNumber: {
        char* end = nullptr;
        long long i = std::strtoll(text.c_str(), &end, 10);
        if (end == text.c_str() + text.size()) return static_cast<int64_t>(i);
        return std::strtod(text.c_str(), nullptr);
      }
      default:
        return text;
    }
  }

  // nullopt: the condition reads a missing field (States.Runtime in ASL).
  std::optional<bool> Eval(const Condition& c, const Json& doc) const {
    using Op = Condition::Op;
    switch (c.op) {
      case Op::kAll: {
        for (const auto& child : c.children) {
          auto v = Eval(child, doc);
          if (!v || !*v) return v;
        }
        return true;
      }
      case Op::kAny: {
        for (const auto& child : c.children) {
          auto v = Eval(child, doc);
          if (!v || *v) return v;
        }
        return false;
      }
      case Op::kNot: {
        auto v = Eval(c.children.front(), doc);
        if (!v) return v;
        return !*v;
      }
      default:
        break;
    }
    const bool present = doc.contains(c.field);
    if (c.op == Op::kIsPresent) return present == (c.value.text == "true");
    if (!present) return std::nullopt;
    const Json& v = doc[c.field];
    if (c.op == Op::kIsNull) return v.is_null() == (c.value.text == "true");
    const Json lit = Typed(spec_.FindFieldType(c.field), c.value.text);
    if (c.op == Op::kEquals) return v == lit;
    if (!v.is_number() || !lit.is_number()) return false;
    const double a = v.get<double>(), b = lit.get<double>();
    switch (c.op) {
      case Op::kLt:
        return a < b;
      case Op::kLe:
        return a <= b;
      case Op::kGt:
        return a > b;
      case Op::kGe:
        return a >= b;
      default:
        return false;
    }
  }

  void Fields(const Condition& c, std::set<std::string>& out) const {
    if (!c.field.empty()) out.insert(c.field);
    for (const auto& child : c.children) Fields(child, out);
  }

  void Literals(const Condition& c, const std::string& field,
                std::vector<Json>& out) const {
    if (c.field == field && c.op != Condition::Op::kIsPresent &&
        c.op != Condition::Op::kIsNull) {
      Json lit = Typed(spec_.FindFieldType(field), c.value.text);
      out.push_back(lit);
      if (lit.is_number()) {
        out.push_back(lit.get<double>() - 1);
        out.push_back(lit.get<double>() + 1);
      }
    }
    for (const auto& child : c.children) Literals(child, field, out);
  }

  // Values worth trying for `field` at Choice `s`; a null Json "absent"
  // marker is represented by the `absent` flag in the pair.
  std::vector<std::pair<bool, Json>> Candidates(
      const State& s, const std::string& field) const {
    std::vector<Json> values;
    for (const auto& r : s.rules) Literals(r.when, field, values);
    const Field* f = spec_.FindFieldType(field);
    if (f) {
      if (f->kind == FieldKind::kBoolean) values = {true, false};
      for (const auto& e : f->enum_values) values.push_back(e);
      if (f->nullable) values.push_back(nullptr);
      if (values.empty()) values.push_back(Sample(*f));
    }
    // A value no literal equals, so that "none of the rules" is possible.
    if (!f || f->kind == FieldKind::kString || f->kind == FieldKind::kUuid)
      if (!f || f->enum_values.empty()) values.push_back("other");
    std::vector<std::pair<bool, Json>> out;
    for (auto& v : values) out.emplace_back(false, v);
    out.emplace_back(true, nullptr);  // absent
    return out;
  }

  static Json Sample(const Field& f) {
    switch (f.kind) {
      case FieldKind::kUuid:
        return kSampleUuid;
      case FieldKind::kInteger:
        return 1;
      case FieldKind::kNumber:
        return 1.5;
      case FieldKind::kBoolean:
        return true;
      case FieldKind::kDate:
        return "2026-01-01";
      case FieldKind::kDateTime:
        return "2026-01-01T00:00:00Z";
      case FieldKind::kArray:
        return Json::array({"item-1"});
      case FieldKind::kObject:
        return Json::object();
      default:
        return "sample";
    }
  }

  // Extends `p` so that Choice `s` takes branch `k` (rules.size() = the
  // default); false when no data does.
  bool Steer(const State& s, size_t k, PathPlan& p) const {
    std::set<std::string> fields;
    for (const auto& r : s.rules) Fields(r.when, fields);
    std::vector<std::string> free;
    for (const auto& f : fields)
      if (!p.doc.contains(f) && !p.absent.count(f)) free.push_back(f);
    std::vector<std::vector<std::pair<bool, Json>>> options;
    size_t combinations = 1;
    for (const auto& f : free) {
      options.push_back(Candidates(s, f));
      combinations *= options.back().size();
      if (combinations > kMaxCombinations) return false;
    }
    for (size_t n = 0; n < combinations; ++n) {
      Json doc = p.doc;
      std::set<std::string> absent = p.absent;
      size_t rest = n;
      for (size_t i = 0; i < free.size(); ++i) {
        const auto& [is_absent, value] = options[i][rest % options[i].size()];
        rest /= options[i].size();
        if (is_absent)
          absent.insert(free[i]);
        else
          doc[free[i]] = value;
      }
      bool ok = true;
      for (size_t i = 0; i < s.rules.size() && ok; ++i) {
        auto v = Eval(s.rules[i].when, doc);
        if (!v)
          ok = false;  // would be States.Runtime
        else if (i < k && *v)
          ok = false;  // an earlier rule would match
        else if (i == k && !*v)
          ok = false;
      }
      if (ok) {
        p.doc = std::move(doc);
        p.absent = std::move(absent);
        return true;
      }
    }
    return false;
  }

  // ---- paths ------------------------------------------------------------

  // Follows `t`. What it records also goes into the path's document: the
  // Tasks after it return the whole state, which keeps it.
  void Take(const Transition& t, PathPlan& p) const {
    if (!t.outcome.empty()) {
      p.outcome = t.outcome;
      p.doc["outcome"] = t.outcome;
    }
    if (!t.quarantine_reason.empty()) {
      p.quarantine_reason = t.quarantine_reason;
      p.doc["quarantine_reason"] = t.quarantine_reason;
    }
    std::string mark = marks_.NameOf(t);
    if (!mark.empty()) p.states.push_back(mark);
  }

  // The item states one item enters (following `next`).
  std::vector<std::string> ItemWalk(const StateGraph& items) const {
    std::vector<std::string> out;
    const State* s = items.Find(items.start);
    while (s && out.size() <= items.states.size()) {
      out.push_back(s->name);
      if (s->is_terminal() || !s->next.present()) break;
      std::string mark = marks_.NameOf(s->next);
      if (!mark.empty()) out.push_back(mark);
      s = items.Find(s->next.target);
    }
    return out;
  }

  // Enters a Map: one item, its carried fields present.
  bool EnterMap(const State& s, PathPlan& p) const {
    if (p.absent.count(s.items_field)) return false;
    if (!p.doc.contains(s.items_field))
      p.doc[s.items_field] = Json::array({"item-1"});
    for (const auto& c : s.carry) {
      if (p.absent.count(c)) return false;
      if (!p.doc.contains(c)) {
        const Field* f = spec_.FindFieldType(c);
        p.doc[c] = f ? Sample(*f) : Json("sample");
      }
    }
    if (!p.doc.contains(s.result_field)) p.absent.insert(s.result_field);
    for (const auto& name : ItemWalk(*s.item_states)) {
      p.states.push_back(name);
      if (s.item_states->Find(name)) p.spec_states.push_back(name);
    }
    return true;
  }

  void Walk(const std::string& name, PathPlan p, std::vector<PathPlan>& out,
            int depth) const {
    if (static_cast<int>(out.size()) >= kMaxPaths ||
        depth > static_cast<int>(spec_.graph.states.size()) * 2)
      return;
    const State* s = spec_.graph.Find(name);
    if (!s) return;
    p.states.push_back(s->name);
    p.spec_states.push_back(s->name);
    if (s->type == StateType::kMap && !EnterMap(*s, p)) return;
    if (s->type == StateType::kChoice) {
      for (size_t k = 0; k <= s->rules.size(); ++k) {
        const Transition& t =
            k < s->rules.size() ? s->rules[k].then : s->default_transition;
        if (!t.present()) continue;
        PathPlan branch = p;
        if (!Steer(*s, k, branch)) continue;
        branch.branches.insert(s->name + (k < s->rules.size()
                                              ? "#rule" + std::to_string(k)
                                              : std::string("#default")));
        Take(t, branch);
        Walk(t.target, std::move(branch), out, depth + 1);
      }
      return;
    }
    if (s->type == StateType::kFail) {
      p.failed = true;
      p.error = s->error;
      p.terminal = s->name;
      out.push_back(std::move(p));
      return;
    }
    if (s->is_terminal() || !s->next.present()) {
      p.terminal = s->name;
      out.push_back(std::move(p));
      return;
    }
    Take(s->next, p);
    Walk(s->next.target, std::move(p), out, depth + 1);
  }

  // Where an error routed to `target` ends: the last state and the status.
  struct RouteEnd {
    std::string last;
    bool failed = false;
    std::string error;
  };
  RouteEnd FollowRoute(const std::string& target) const {
    RouteEnd end;
    const State* s = spec_.graph.Find(target);
    for (size_t guard = 0; s && guard <= spec_.graph.states.size(); ++guard) {
      end.last = s->name;
      if (s->type == StateType::kFail) {
        end.failed = true;
        end.error = s->error;
        return end;
      }
      if (s->is_terminal() || !s->next.present()) return end;
      s = spec_.graph.Find(s->next.target);
    }
    return end;
  }

  void AddFailureCases(const State& task, const PathPlan& base,
                       Json& cases) const {
    const bool in_map = spec_.FindEnclosingMap(task.name) != nullptr;
    const int retries = task.retry ? task.retry->max_attempts : 0;
    Json waits = Json::array();
    if (task.retry)
      for (int64_t w : task.retry->backoff_seconds) waits.push_back(w);
    // Where each error class goes from this Task.
    auto route_for = [&](ErrorClass cls) -> std::optional<RouteEnd> {
      const StateGraph& graph =
          in_map ? *spec_.FindEnclosingMap(task.name)->item_states
                 : spec_.graph;
      for (const auto& r : CatchRoutesFor(spec_, graph, task)) {
        bool matches = r.catch_all;
        for (ErrorClass c : r.classes) matches = matches || c == cls;
        if (!matches) continue;
        if (in_map) {
          // Caught inside the item: the Map goes on; the run ends as the
          // base path does.
          RouteEnd end;
          end.last = base.terminal;
          end.failed = base.failed;
          end.error = base.error;
          return end;
        }
        return FollowRoute(r.next);
      }
      if (in_map) {
        // The item fails, so the Map fails: the Map's own catches apply.
        const State* map = spec_.FindEnclosingMap(task.name);
        for (const auto& r : CatchRoutesFor(spec_, spec_.graph, *map)) {
          bool matches = r.catch_all;
          for (ErrorClass c : r.classes) matches = matches || c == cls;
          if (matches) return FollowRoute(r.next);
        }
      }
      return std::nullopt;
    };
    const ErrorClassDef* retryable =
        spec_.governance ? spec_.governance->FindClass(ErrorClass::kRetryable)
                         : nullptr;
    const ErrorClassDef* terminal =
        spec_.governance ? spec_.governance->FindClass(ErrorClass::kTerminal)
                         : nullptr;
    const ErrorClassDef* quarantine =
        spec_.governance ? spec_.governance->FindClass(ErrorClass::kQuarantine)
                         : nullptr;
    auto add = [&](const std::string& kind, const Json& outcomes,
                   ErrorClass cls, Json wait_list, int invocations,
                   const std::string& note) {
      std::optional<RouteEnd> end = route_for(cls);
      Json expect;
      if (end) {
        expect["status"] = end->failed ? "FAILED" : "SUCCEEDED";
        if (end->failed) expect["error"] = end->error;
        expect["last_state"] = end->last;
      } else {
        expect["status"] = "FAILED";
      }
      expect["waits"] = std::move(wait_list);
      expect["invocations"] = {{task.name, invocations}};
      Json script = Script(base);
      script[task.name] = outcomes;
      cases.push_back(Case(task.name + "_" + kind, base, script, expect, note));
    };
    const int64_t timeout = task.timeout_seconds.value_or(
        task.retry && task.retry->timeout_seconds ? *task.retry->timeout_seconds
                                                  : 0);
    const Json ok = in_map ? Json::object() : base.doc;
    if (retryable) {
      add("retryable_exhausted",
          Json::array({{{"throw", retryable->error_name}, {"cause", "503"}}}),
          ErrorClass::kRetryable, waits, 1 + retries,
          "RETRYABLE until the retries are exhausted: 1 + MaxAttempts "
          "invocations, the spec's backoff, then the failure route");
      add("throttled",
          Json::array({{{"throw", "Lambda.TooManyRequestsException"}}}),
          ErrorClass::kRetryable, waits, 1 + retries,
          "Lambda throttling is retried like a RETRYABLE error");
      if (timeout > 0) {
        add("timeout",
            Json::array({{{"return", ok}, {"seconds", timeout + 1}}}),
            ErrorClass::kRetryable, waits, 1 + retries,
            "a timeout is retried on the same schedule");
      }
    }
    if (retryable && retries > 0) {
      Json expect = {{"status", base.failed ? "FAILED" : "SUCCEEDED"},
                     {"states", base.states},
                     {"waits", Json::array({waits[0]})},
                     {"invocations", {{task.name, 2}}}};
      if (!base.outcome.empty()) expect["outcome"] = base.outcome;
      Json script = Script(base);
      script[task.name] =
          Json::array({{{"throw", retryable->error_name}}, {{"return", ok}}});
      cases.push_back(
          Case(task.name + "_retry_then_success", base, script, expect,
               "a RETRYABLE error, then success: the path goes on"));
    }
    if (terminal) {
      add("terminal",
          Json::array(
              {{{"throw", terminal->error_name}, {"cause", "invalid"}}}),
          ErrorClass::kTerminal, Json::array(), 1,
          "a TERMINAL error is never retried");
    }
    if (quarantine) {
      add("quarantine",
          Json::array(
              {{{"throw", quarantine->error_name}, {"cause", "review"}}}),
          ErrorClass::kQuarantine, Json::array(), 1,
          "a QUARANTINE error is never retried and goes to quarantine when "
          "routed");
    }
  }

  const WorkflowSpec& spec_;
  MarkStates marks_;
};

}  // namespace

std::string EmitConformanceTests(const WorkflowSpec& spec) {
  const Json plan = PlanBuilder(spec).Build();
  std::string macro_name = spec.workflow;
  for (auto& c : macro_name)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out = fmt::format(
      "// Generated by novacat-gen from {0}; do not edit.\n"
      "//\n"
      "// Conformance of workflow {1}: its generated ASL, run on the local\n"
      "// executor, against its spec ({2} cases). See\n"
      "// runtime/include/novacat/runtime/testing/conformance.h.\n"
      "#include \"novacat/runtime/testing/conformance.h\"\n\n"
      "namespace {{\n\n"
      "const char* const kPlan =\n",
      CppComment(spec.file.substr(spec.file.find_last_of('/') + 1)),
      spec.workflow, plan.size());
  // One string literal per case keeps lines reviewable.
  const std::string text = plan.dump(1);
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    out += "    \"" + CppStringLiteral(text.substr(at, end - at)) + "\\n\"\n";
    at = end + 1;
  }
  out += "    ;\n\n}  // namespace\n\n";
  out += fmt::format("NOVACAT_CONFORMANCE_SUITE({}, kPlan, NOVACAT_{}_ASL);\n",
                     spec.workflow, macro_name);
  return out;
}

}  // namespace novacat
