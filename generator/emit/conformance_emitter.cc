#include "emit/conformance_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "model/routes.h"

namespace novacat {

namespace {

using Json = nlohmann::ordered_json;

constexpr int kMaxPaths = 64;
constexpr size_t kMaxCombinations = 4096;
constexpr const char* kSampleUuid = "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c";

// A path through the top-level graph and the data that takes it.
// What a path leaves in the document and how it ends: all a Map case
// reads of its path (copying the states too, per Map, made the plan
// quadratic in the states).
struct PathData {
  Json doc = Json::object();       // field → value
  Json item_doc = Json::object();  // a Map item's fields its Choices need
  std::set<std::string> absent;    // fields that must be absent
  std::string outcome;
  std::string quarantine_reason;
  std::string terminal;  // the last state
  bool failed = false;
  std::string error;
  std::set<std::string> branches;  // "Choice#k" taken
};

struct PathPlan : PathData {
  std::vector<std::string> states;  // ASL states entered, Pass marks included
  std::vector<std::string> spec_states;  // spec states, for Task lookups
};

// What one walk of a path tells every failure case of a Task on it, so
// that a case costs its route, not its path (issue 13).
struct PathIndex {
  // A spec state → where the path first enters it.
  std::unordered_map<std::string, size_t> position;
  // Each PublishEvent state entered: (position, event).
  std::vector<std::pair<size_t, std::string>> events;
  // [i]: the last Finalize builtin before position i, or null.
  std::vector<const State*> last_finalize;
  // A domain Task → its first answer in the path case's host part (an
  // ordered_json object finds a key by a linear scan).
  std::unordered_map<std::string, const nlohmann::ordered_json*> host_success;
};

// The plan's cases as text: each case is dumped when it is added, then
// dropped, so that a large workflow's plan is never held whole as a JSON
// tree (on 10,000 states that tree, copied into the document, made
// generation superlinear). The text is the "cases" array of the plan's
// dump(1): each case's own dump(1), its lines two spaces further in.
class PlanCases {
 public:
  // `room`: the text's expected size (some 4 KB a state).
  explicit PlanCases(size_t room) { text_.reserve(room); }

  // The case's text indented one level deeper: each of its lines after the
  // first gains two spaces.
  void push_back(const Json& c) {
    text_ += count_++ == 0 ? "  " : ",\n  ";
    const std::string dumped = c.dump(1);
    std::string_view rest = dumped;
    for (size_t newline; (newline = rest.find('\n')) != rest.npos;) {
      text_.append(rest.substr(0, newline + 1));
      text_ += "  ";
      rest.remove_prefix(newline + 1);
    }
    text_.append(rest);
  }
  size_t size() const { return count_; }
  std::string& text() { return text_; }

 private:
  std::string text_;
  size_t count_ = 0;
};

class PlanBuilder {
 public:
  // Indexes the spec once: every lookup Build makes per state of a path
  // (and a path can hold every state) must be O(1), or the plan's cost
  // grows faster than its size.
  explicit PlanBuilder(const WorkflowSpec& spec) : spec_(spec), marks_(spec) {
    for (const auto& s : spec_.graph.states) {
      if (!s.item_states) continue;
      for (const auto& item : s.item_states->states) {
        // The first Map wins, as in WorkflowSpec::FindEnclosingMap.
        enclosing_map_.emplace(item.name, &s);
        if (item.type == StateType::kTask) item_tasks_.push_back(item.name);
      }
    }
    for (const auto& s : spec_.graph.states)
      if (IsDomainTask(&s)) {
        domain_tasks_.push_back(&s);
        produced_.insert(s.produces.begin(), s.produces.end());
      }
    if (const EventDef* input = spec_.FindEvent(spec_.input_event))
      for (const auto& f : input->fields) input_fields_.insert(f.name);
    duplicate_outcome_ = DuplicateOutcome();
  }

  // Appends the plan's cases to the array `cases`.
  void Build(PlanCases& cases) {
    std::vector<PathPlan> paths;
    PathPlan start;
    Walk(spec_.graph.start, start, paths);
    // Prefer, for each outcome, a path a valid input can take (a required
    // input field steered absent cannot run through the host).
    std::stable_partition(paths.begin(), paths.end(), [&](const PathPlan& p) {
      return HostInput(p).has_value();
    });
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
    // HostForPath of each chosen path, computed once: every failure case of
    // a Task on the path starts from it (AddFailureCases).
    std::map<const PathPlan*, std::optional<Json>> hosts;
    std::map<const PathPlan*, std::string> case_names;
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
      case_names[p] = unique;
      const std::optional<Json>& host = hosts[p] = HostForPath(*p);
      Json c = {{"name", unique},
                {"note", "Choice branches: " + Join(p->branches)},
                {"input", Input(*p)},
                {"script", Script(*p)},
                {"expect", std::move(expect)}};
      if (host) c["host"] = *host;
      cases.push_back(std::move(c));
    }
    // Failure classes for every Task on the first success path through it,
    // preferring paths a real input can take (so the case also runs
    // through the host).
    std::stable_partition(chosen.begin(), chosen.end(), [&](const PathPlan* p) {
      return HostInput(*p).has_value();
    });
    std::set<std::string> covered;
    for (const PathPlan* p : chosen) {
      std::optional<PathIndex> index;
      for (const auto& name : p->spec_states) {
        const State* s = FindState(name);
        if (!s || s->type != StateType::kTask || !covered.insert(name).second)
          continue;
        if (!index) {
          index = IndexPath(*p);
          if (const std::optional<Json>& host = hosts.at(p))
            for (const auto& [name, entries] : (*host)["domain"].items())
              if (!entries.empty())
                index->host_success.emplace(name, &entries[0]);
        }
        AddFailureCases(*s, *p, *index, case_names.at(p), hosts.at(p), cases);
      }
    }
    // Map states: concurrency on the virtual clock, and one item's
    // quarantine beside items that complete.
    for (const PathPlan* p : chosen) {
      // Field → the last top-level domain Task so far that produces it.
      std::unordered_map<std::string, const State*> producers;
      for (const auto& name : p->spec_states) {
        const State* s = spec_.graph.Find(name);
        if (s && s->type == StateType::kMap && covered.insert(name).second) {
          auto producer = producers.find(s->items_field);
          AddMapCases(*s, *p, case_names.at(p),
                      producer == producers.end() ? nullptr : producer->second,
                      cases);
        }
        const State* task = FindState(name);
        if (IsDomainTask(task) && !EnclosingMap(name))
          for (const auto& field : task->produces) producers[field] = task;
      }
    }
    if (std::optional<Json> c = InvalidInputCase(chosen)) cases.push_back(*c);
    for (const auto& sc : spec_.scenarios) cases.push_back(ScenarioCase(sc));
  }

  // An input without its first required field: BeginJobRun rejects it
  // (TERMINAL, never retried), the run is recorded FAILED and nothing is
  // published; the failure handlers keep the input's correlation_id.
  std::optional<Json> InvalidInputCase(
      const std::vector<const PathPlan*>& chosen) const {
    const EventDef* input_event = spec_.FindEvent(spec_.input_event);
    const State* begin = nullptr;
    for (const auto& st : spec_.graph.states)
      if (st.type == StateType::kTask && st.builtin == Builtin::kBeginJobRun)
        begin = &st;
    if (!input_event || !begin || chosen.empty()) return std::nullopt;
    const Field* dropped = nullptr;
    for (const auto& f : input_event->fields)
      if (f.required && f.name != "correlation_id" && !dropped) dropped = &f;
    if (!dropped) return std::nullopt;
    std::optional<Json> input;
    for (const PathPlan* p : chosen)
      if (!input) input = HostInput(*p);
    if (!input) return std::nullopt;
    input->erase(dropped->name);
    (*input)["correlation_id"] = kSampleUuid;
    std::optional<RouteEnd> end;
    for (const auto& r : CatchRoutesFor(spec_, spec_.graph, *begin)) {
      bool matches = r.catch_all;
      for (ErrorClass c : r.classes)
        matches = matches || c == ErrorClass::kTerminal;
      if (matches) {
        end = FollowRoute(r.next);
        break;
      }
    }
    if (!end) return std::nullopt;
    std::vector<std::string> states = {begin->name};
    states.insert(states.end(), end->states.begin(), end->states.end());
    std::optional<Json> jobrun = JobRunAlong(states, "", "TERMINAL");
    if (!jobrun) return std::nullopt;
    Json expect = {{"jobrun", std::move(*jobrun)},
                   {"events", Json::array()},
                   {"attempts", {{begin->name, 0}}}};
    return Json{
        {"name", "invalid_input_without_" + dropped->name},
        {"note", "an input without '" + dropped->name + "' fails TERMINAL at " +
                     begin->name + ": recorded FAILED, nothing published"},
        {"input", *input},
        {"script", Json::object()},
        {"expect", {{"status", end->failed ? "FAILED" : "SUCCEEDED"}}},
        {"host_only", true},
        {"host",
         {{"input", *input},
          {"domain", Json::object()},
          {"expect", std::move(expect)}}}};
  }

  // A scenario the author wrote: host mode only, its answers and
  // expectations as written.
  Json ScenarioCase(const Scenario& sc) const {
    Json domain = Json::object();
    for (const auto& [task, answers] : sc.tasks) {
      Json list = Json::array();
      for (const auto& a : answers) {
        if (!a.throw_error.empty())
          list.push_back(Json{{"throw", a.throw_error}, {"cause", a.cause}});
        else
          list.push_back(Json{{"set", a.set}});
      }
      domain[task] = std::move(list);
    }
    Json jobrun = {{"status", sc.jobrun}};
    if (!sc.outcome.empty()) jobrun["outcome"] = sc.outcome;
    if (!sc.classification.empty())
      jobrun["error_classification"] = sc.classification;
    Json expect = {{"jobrun", std::move(jobrun)}};
    if (sc.events_given) expect["events"] = sc.events;
    if (sc.path_given) {
      Json all = Json::array();
      for (const auto& st : spec_.graph.states) {
        all.push_back(st.name);
        if (st.item_states)
          for (const auto& item : st.item_states->states)
            all.push_back(item.name);
      }
      expect["path"] = sc.path;
      expect["path_filter"] = std::move(all);
    }
    if (!sc.not_invoked.empty()) expect["not_invoked"] = sc.not_invoked;
    if (!sc.attempts.empty()) {
      Json attempts = Json::object();
      for (const auto& [task, n] : sc.attempts) attempts[task] = n;
      expect["attempts"] = std::move(attempts);
    }
    return {{"name", "scenario_" + sc.name},
            {"note",
             sc.description.empty() ? "scenario " + sc.name : sc.description},
            {"input", sc.input},
            {"script", Json::object()},
            {"expect",
             {{"status", sc.jobrun == "FAILED" ? "FAILED" : "SUCCEEDED"}}},
            {"host_only", true},
            {"host",
             {{"input", sc.input},
              {"domain", std::move(domain)},
              {"expect", std::move(expect)}}}};
  }

 private:
  static std::string Join(const std::set<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
    return out.empty() ? "none" : out;
  }

  const State* FindState(const std::string& name) const {
    if (const State* s = spec_.graph.Find(name)) return s;
    if (const State* map = EnclosingMap(name))
      return map->item_states->Find(name);
    return nullptr;
  }

  // WorkflowSpec::FindEnclosingMap through the index (it scans the states).
  const State* EnclosingMap(const std::string& name) const {
    auto it = enclosing_map_.find(name);
    return it == enclosing_map_.end() ? nullptr : it->second;
  }

  // A case that runs as the case `base` does but for the Tasks in `script`
  // (conformance.h: "base").
  static Json BasedCase(const std::string& name, const std::string& base,
                        Json script, Json expect, const std::string& note) {
    return {{"name", name},
            {"note", note},
            {"base", base},
            {"script", std::move(script)},
            {"expect", std::move(expect)}};
  }

  // The path's input: its document without what a domain Task produces
  // (unless the input event declares it too).
  Json Input(const PathPlan& p) const {
    Json input = Json::object();
    for (const auto& [field, value] : p.doc.items())
      if (!produced_.count(field) || input_fields_.count(field))
        input[field] = value;
    return input;
  }

  // What the builtins give the path: its input-level fields the input event
  // does not declare (the idempotency status the lock reports, the run's
  // id...). The input's own fields pass through untouched.
  Json BuiltinFields(const PathPlan& p) const {
    Json set = Input(p);
    for (const auto& field : input_fields_) set.erase(field);
    return set;
  }

  // How a Task of the path succeeds. As a function under the Payload
  // convention does, it returns the state it was given with fields set: a
  // domain Task only the fields it `produces` (those the path has), every
  // other Task (the builtins) BuiltinFields; a Map item Task returns an
  // empty item.
  Json SuccessEntry(const PathPlan& p, const State& task) const {
    if (EnclosingMap(task.name)) return ItemEntry(p.item_doc, task);
    if (!IsDomainTask(&task)) return {{"set", BuiltinFields(p)}};
    Json set = Json::object();
    for (const auto& field : task.produces)
      if (p.doc.contains(field)) set[field] = p.doc[field];
    return {{"set", std::move(set)}};
  }

  // The path's script: "*" for the builtins, an entry per domain Task the
  // path enters, the Map item Tasks. Appended to the object's entries: an
  // ordered_json object finds a key by a linear scan.
  Json Script(const PathPlan& p) const {
    Json script = Json::object();
    auto& entries = script.get_ref<Json::object_t&>();
    entries.emplace_back("*", Json::array({Json{{"set", BuiltinFields(p)}}}));
    std::unordered_set<std::string> added;
    for (const auto& name : p.spec_states) {
      const State* task = FindState(name);
      if (!IsDomainTask(task) || EnclosingMap(name) ||
          !added.insert(name).second)
        continue;
      entries.emplace_back(name, Json::array({SuccessEntry(p, *task)}));
    }
    for (const auto& name : item_tasks_)
      if (added.insert(name).second)
        entries.emplace_back(
            name, Json::array({ItemEntry(p.item_doc, *FindState(name))}));
    return script;
  }

  // How a Map item Task succeeds: it sets the fields it produces that the
  // item's Choices need (`item_doc`, steered by ItemWalk); without any, it
  // returns an empty item.
  static Json ItemEntry(const Json& item_doc, const State& task) {
    Json set = Json::object();
    for (const auto& field : task.produces)
      if (item_doc.contains(field)) set[field] = item_doc[field];
    if (set.empty()) return {{"return", Json::object()}};
    return {{"set", std::move(set)}};
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
        return Json::array({f.items ? Sample(*f.items) : Json("item-1")});
      case FieldKind::kObject: {
        Json o = Json::object();
        for (const auto& sub : f.fields)
          if (sub.required) o[sub.name] = Sample(sub);
        return o;
      }
      default:
        return f.enum_values.empty() ? Json("sample") : Json(f.enum_values[0]);
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

  // Follows `t`. What it records stays out of the path's document: only
  // the definition's mark state writes it, so no input or script holds it
  // and a mutant of a mark's Result is caught.
  void Take(const Transition& t, PathPlan& p) const {
    if (!t.outcome.empty()) p.outcome = t.outcome;
    if (!t.quarantine_reason.empty()) p.quarantine_reason = t.quarantine_reason;
    std::string mark = marks_.NameOf(t);
    if (!mark.empty()) p.states.push_back(mark);
  }

  // The item states one item enters (following `next`; at a Choice, the
  // first branch the item's fields can be steered into, those fields set
  // in `item_doc` for the Tasks that produce them).
  std::vector<std::string> ItemWalk(const StateGraph& items,
                                    Json& item_doc) const {
    std::vector<std::string> out;
    const State* s = items.Find(items.start);
    while (s && out.size() <= items.states.size()) {
      out.push_back(s->name);
      const Transition* next = s->next.present() ? &s->next : nullptr;
      if (s->type == StateType::kChoice) {
        for (size_t k = 0; k <= s->rules.size() && !next; ++k) {
          const Transition& t =
              k < s->rules.size() ? s->rules[k].then : s->default_transition;
          PathPlan steered;
          steered.doc = item_doc;
          if (!t.present() || !Steer(*s, k, steered)) continue;
          item_doc = std::move(steered.doc);
          next = &t;
        }
      }
      if (s->is_terminal() || !next) break;
      std::string mark = marks_.NameOf(*next);
      if (!mark.empty()) out.push_back(mark);
      s = items.Find(next->target);
    }
    return out;
  }

  // Enters a Map: one item, its carried fields present.
  bool EnterMap(const State& s, PathPlan& p) const {
    if (p.absent.count(s.items_field)) return false;
    if (!p.doc.contains(s.items_field)) {
      // One item of the declared element type (an input event's items may
      // be an enum: a made-up value would fail BeginJobRun's validation).
      const Field* items = spec_.FindFieldType(s.items_field);
      p.doc[s.items_field] = Json::array(
          {items && items->items ? Sample(*items->items) : Json("item-1")});
    }
    for (const auto& c : s.carry) {
      if (p.absent.count(c)) return false;
      if (!p.doc.contains(c)) {
        const Field* f = spec_.FindFieldType(c);
        p.doc[c] = f ? Sample(*f) : Json("sample");
      }
    }
    if (!p.doc.contains(s.result_field)) p.absent.insert(s.result_field);
    for (const auto& name : ItemWalk(*s.item_states, p.item_doc)) {
      p.states.push_back(name);
      if (s.item_states->Find(name)) p.spec_states.push_back(name);
    }
    return true;
  }

  // A path's names as a persistent list, newest first: branches share their
  // prefix, so a Choice costs its branches, not the length of the path
  // before it (10,000 states with a Choice every ten copied paths of
  // thousands of names a thousand times).
  struct Trail {
    std::string name;
    std::shared_ptr<const Trail> parent;
    // Frees the nodes no one else holds in a loop: the default, one
    // destructor per node inside the next, recursed as deep as the path.
    ~Trail() {
      std::shared_ptr<const Trail> next = std::move(parent);
      while (next && next.use_count() == 1) {
        // Made non-const by Extend; only the last owner gets here.
        std::shared_ptr<const Trail> after =
            std::move(const_cast<Trail&>(*next).parent);
        next = std::move(after);
      }
    }
  };
  using TrailPtr = std::shared_ptr<const Trail>;

  // Moves `names` onto `trail`.
  static void Extend(TrailPtr& trail, std::vector<std::string>& names) {
    for (auto& name : names) {
      auto node = std::make_shared<Trail>();
      node->name = std::move(name);
      node->parent = std::move(trail);
      trail = std::move(node);
    }
    names.clear();
  }
  static std::vector<std::string> Unwind(const TrailPtr& trail) {
    std::vector<std::string> names;
    for (const Trail* t = trail.get(); t; t = t->parent.get())
      names.push_back(t->name);
    std::reverse(names.begin(), names.end());
    return names;
  }

  // Every path from `start`, depth first (a Choice's rules in order, then
  // its default), at most kMaxPaths. A loop with its own stack of the
  // branches still to walk, not recursion: a chain of 10,000 states must
  // not need 10,000 stack frames. While a path is walked, its states,
  // spec states and branches live in trails (PathPlan holds only the
  // names not yet moved there); a finished path gets them back.
  void Walk(const std::string& start, PathPlan first,
            std::vector<PathPlan>& out) const {
    struct Pending {
      std::string name;
      PathPlan p;
      TrailPtr states, spec_states, branches;
      int depth = 0;
    };
    const int max_depth = static_cast<int>(spec_.graph.states.size()) * 2;
    auto finish = [&](Pending& w) {
      Extend(w.states, w.p.states);
      Extend(w.spec_states, w.p.spec_states);
      w.p.states = Unwind(w.states);
      w.p.spec_states = Unwind(w.spec_states);
      for (auto& b : Unwind(w.branches)) w.p.branches.insert(std::move(b));
      out.push_back(std::move(w.p));
    };
    std::vector<Pending> stack;
    {
      Pending w;
      w.name = start;
      w.p = std::move(first);
      std::vector<std::string> branches(w.p.branches.begin(),
                                        w.p.branches.end());
      w.p.branches.clear();
      Extend(w.branches, branches);
      stack.push_back(std::move(w));
    }
    while (!stack.empty()) {
      Pending w = std::move(stack.back());
      stack.pop_back();
      for (;; ++w.depth) {
        Extend(w.states, w.p.states);
        Extend(w.spec_states, w.p.spec_states);
        if (static_cast<int>(out.size()) >= kMaxPaths || w.depth > max_depth)
          break;
        const State* s = spec_.graph.Find(w.name);
        if (!s) break;
        w.p.states.push_back(s->name);
        w.p.spec_states.push_back(s->name);
        if (s->type == StateType::kMap && !EnterMap(*s, w.p)) break;
        if (s->type == StateType::kChoice) {
          Extend(w.states, w.p.states);
          Extend(w.spec_states, w.p.spec_states);
          std::vector<Pending> branches;
          for (size_t k = 0; k <= s->rules.size(); ++k) {
            const Transition& t =
                k < s->rules.size() ? s->rules[k].then : s->default_transition;
            if (!t.present()) continue;
            Pending branch{t.target,      w.p,        w.states,
                           w.spec_states, w.branches, w.depth + 1};
            if (!Steer(*s, k, branch.p)) continue;
            std::vector<std::string> taken = {
                s->name + (k < s->rules.size() ? "#rule" + std::to_string(k)
                                               : std::string("#default"))};
            Extend(branch.branches, taken);
            Take(t, branch.p);
            branches.push_back(std::move(branch));
          }
          // The first branch is walked first.
          for (auto it = branches.rbegin(); it != branches.rend(); ++it)
            stack.push_back(std::move(*it));
          break;
        }
        if (s->type == StateType::kFail) {
          w.p.failed = true;
          w.p.error = s->error;
          w.p.terminal = s->name;
          finish(w);
          break;
        }
        if (s->is_terminal() || !s->next.present()) {
          w.p.terminal = s->name;
          finish(w);
          break;
        }
        Take(s->next, w.p);
        w.name = s->next.target;
      }
    }
  }

  // Where an error routed to `target` ends: the last state and the status.
  struct RouteEnd {
    std::string last;
    bool failed = false;
    std::string error;
    std::vector<std::string> states;  // spec states entered on the route
    bool in_item = false;             // caught inside the Map item
    // Recorded by a transition on the route (its mark state writes it).
    std::string quarantine_reason;
  };
  RouteEnd FollowRoute(const std::string& target) const {
    RouteEnd end;
    const State* s = spec_.graph.Find(target);
    for (size_t guard = 0; s && guard <= spec_.graph.states.size(); ++guard) {
      end.last = s->name;
      end.states.push_back(s->name);
      if (s->type == StateType::kFail) {
        end.failed = true;
        end.error = s->error;
        return end;
      }
      if (s->is_terminal() || !s->next.present()) return end;
      if (!s->next.quarantine_reason.empty())
        end.quarantine_reason = s->next.quarantine_reason;
      s = spec_.graph.Find(s->next.target);
    }
    return end;
  }

  // A failure case names its path's case, `base_name`, and holds only what
  // differs from it (conformance.h: "base"): the failing Task's script and
  // domain entries and its own expectations. So a plan grows with the
  // number of Tasks, not with Tasks times the length of their paths.
  // `base_host` is HostForPath(base), the base case's host part.
  void AddFailureCases(const State& task, const PathPlan& base,
                       const PathIndex& index, const std::string& base_name,
                       const std::optional<Json>& base_host,
                       PlanCases& cases) const {
    const bool in_map = EnclosingMap(task.name) != nullptr;
    const int retries = task.retry ? task.retry->max_attempts : 0;
    Json waits = Json::array();
    if (task.retry)
      for (int64_t w : task.retry->backoff_seconds) waits.push_back(w);
    // Where each error class goes from this Task.
    auto find_route = [&](ErrorClass cls) -> std::optional<RouteEnd> {
      const StateGraph& graph =
          in_map ? *EnclosingMap(task.name)->item_states : spec_.graph;
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
          end.in_item = true;
          return end;
        }
        return FollowRoute(r.next);
      }
      if (in_map) {
        // The item fails, so the Map fails: the Map's own catches apply.
        const State* map = EnclosingMap(task.name);
        for (const auto& r : CatchRoutesFor(spec_, spec_.graph, *map)) {
          bool matches = r.catch_all;
          for (ErrorClass c : r.classes) matches = matches || c == cls;
          if (matches) return FollowRoute(r.next);
        }
      }
      return std::nullopt;
    };
    // find_route once per class: several cases share one.
    std::map<ErrorClass, std::optional<RouteEnd>> routes;
    auto route_for = [&](ErrorClass cls) -> const std::optional<RouteEnd>& {
      auto it = routes.find(cls);
      if (it == routes.end()) it = routes.emplace(cls, find_route(cls)).first;
      return it->second;
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
                   ErrorClass cls, const Json& wait_list, int invocations,
                   const std::string& note) {
      const std::optional<RouteEnd>& end = route_for(cls);
      Json expect;
      if (end) {
        expect["status"] = end->failed ? "FAILED" : "SUCCEEDED";
        if (end->failed) expect["error"] = end->error;
        expect["last_state"] = end->last;
        if (!end->quarantine_reason.empty())
          expect["quarantine_reason"] = end->quarantine_reason;
      } else {
        expect["status"] = "FAILED";
      }
      expect["waits"] = wait_list;
      expect["invocations"] = {{task.name, invocations}};
      Json c = BasedCase(task.name + "_" + kind, base_name,
                         {{task.name, outcomes}}, std::move(expect), note);
      // Through the host: a domain Task's StepError (not Lambda's own
      // throttling or a timeout, which never reach the step logic).
      const std::string thrown = outcomes[0].value("throw", "");
      const bool step_error = thrown == "RetryableError" ||
                              thrown == "TerminalError" ||
                              thrown == "QuarantineError";
      std::optional<Json> jobrun;
      // The spec states the run enters after the path's first
      // `path_events` events (all of them: npos).
      std::vector<std::string> states;
      size_t at = std::string::npos;
      const char* cls_name = cls == ErrorClass::kRetryable  ? "RETRYABLE"
                             : cls == ErrorClass::kTerminal ? "TERMINAL"
                                                            : "QUARANTINE";
      if (IsDomainTask(&task) && step_error && end && base_host) {
        if (end->in_item) {
          // The rest of the path runs: a walk of it (Map item Tasks only).
          states = FailureStates(base, task);
          jobrun = JobRunAlong(states, base.outcome, cls_name);
        } else {
          // The path up to the Task, from the index; then the route.
          at = index.position.at(task.name);
          jobrun = JobRunAlong(end->states, base.outcome, cls_name);
          if (!jobrun && index.last_finalize[at])
            jobrun = JobRunOf(*index.last_finalize[at], base.outcome, cls_name);
        }
      }
      if (jobrun) {
        Json answers = Json::array();
        for (const auto& o : outcomes)
          answers.push_back(
              Json{{"throw", o["throw"]}, {"cause", o.value("cause", "")}});
        Json events = Json::array();
        if (at != std::string::npos) {
          for (const auto& [position, event] : index.events)
            if (position < at) events.push_back(event);
          events = EventsAlong(end->states, std::move(events));
        } else {
          events = EventsAlong(states);
        }
        c["host"] = {{"domain", {{task.name, std::move(answers)}}},
                     {"expect",
                      {{"jobrun", std::move(*jobrun)},
                       {"events", std::move(events)},
                       {"attempts", {{task.name, invocations}}}}}};
      }
      cases.push_back(std::move(c));
    };
    const int64_t timeout = task.timeout_seconds.value_or(
        task.retry && task.retry->timeout_seconds ? *task.retry->timeout_seconds
                                                  : 0);
    const Json ok = SuccessEntry(base, task);
    if (retryable) {
      add("retryable_exhausted",
          Json::array(
              {Json{{"throw", retryable->error_name}, {"cause", "503"}}}),
          ErrorClass::kRetryable, waits, 1 + retries,
          "RETRYABLE until the retries are exhausted: 1 + MaxAttempts "
          "invocations, the spec's backoff, then the failure route");
      add("throttled",
          Json::array({Json{{"throw", "Lambda.TooManyRequestsException"}}}),
          ErrorClass::kRetryable, waits, 1 + retries,
          "Lambda throttling is retried like a RETRYABLE error");
      if (timeout > 0) {
        add("timeout", Json::array({[&] {
              Json slow = ok;
              slow["seconds"] = timeout + 1;
              return slow;
            }()}),
            ErrorClass::kRetryable, waits, 1 + retries,
            "a timeout is retried on the same schedule");
      }
    }
    if (retryable && retries > 0) {
      Json expect = {{"status", base.failed ? "FAILED" : "SUCCEEDED"},
                     {"states", "base"},
                     {"waits", Json::array({waits[0]})},
                     {"invocations", {{task.name, 2}}}};
      if (!base.outcome.empty()) expect["outcome"] = base.outcome;
      Json c = BasedCase(
          task.name + "_retry_then_success", base_name,
          {{task.name,
            Json::array({Json{{"throw", retryable->error_name}}, ok})}},
          std::move(expect),
          "a RETRYABLE error, then success: the path goes on");
      if (IsDomainTask(&task) && base_host) {
        auto it = index.host_success.find(task.name);
        Json answers = Json::array();
        answers.push_back(
            Json{{"throw", retryable->error_name}, {"cause", "503"}});
        answers.push_back(it != index.host_success.end()
                              ? *it->second
                              : Json{{"set", Json::object()}});
        // The base case's host expectations, but for the Task's attempts
        // (in place, or last) and without the rerun, which is the base's.
        Json host_expect = Json::object();
        const Json attempts = {{task.name, 2}};
        for (const auto& [key, value] : (*base_host)["expect"].items()) {
          if (key == "rerun_outcome" || key == "rerun_domain_calls") continue;
          host_expect[key] = key == "attempts" ? attempts : value;
        }
        if (!host_expect.contains("attempts"))
          host_expect["attempts"] = attempts;
        c["host"] = {{"domain", {{task.name, std::move(answers)}}},
                     {"expect", std::move(host_expect)}};
      }
      cases.push_back(std::move(c));
    }
    if (terminal) {
      add("terminal",
          Json::array(
              {Json{{"throw", terminal->error_name}, {"cause", "invalid"}}}),
          ErrorClass::kTerminal, Json::array(), 1,
          "a TERMINAL error is never retried");
    }
    if (quarantine) {
      add("quarantine",
          Json::array(
              {Json{{"throw", quarantine->error_name}, {"cause", "review"}}}),
          ErrorClass::kQuarantine, Json::array(), 1,
          "a QUARANTINE error is never retried and goes to quarantine when "
          "routed");
    }
  }

  // ---- host mode ----------------------------------------------------------
  //
  // A case with a "host" part runs a second time through the runtime host:
  // the builtins are the real ones (JobRun and Attempt records on a
  // TableRecordStore over a MemoryTable, events validated and captured, log
  // lines captured) and only the domain Tasks are scripted: each returns its
  // document with the fields it `produces` set, or throws. The runner then
  // checks the records and the seeds' invariants (conformance.h).

  bool IsDomainTask(const State* s) const {
    return s && s->type == StateType::kTask && s->builtin == Builtin::kNone;
  }

  const State* FindTopOrItem(const std::string& name) const {
    return FindState(name);
  }

  // A sample value for a produced field. A published event may declare it
  // more precisely than `data` does (the properties of its objects), so
  // its declaration wins: the sample must be publishable.
  Json SampleFor(const std::string& field) const {
    for (const auto& e : spec_.events)
      if (const Field* f = e.FindField(field)) return Sample(*f);
    const Field* f = spec_.FindFieldType(field);
    return f ? Sample(*f) : Json("sample");
  }

  // A valid input event: the path's values for its fields, samples for the
  // required ones the path leaves free.
  std::optional<Json> HostInput(const PathPlan& p) const {
    const EventDef* input = spec_.FindEvent(spec_.input_event);
    if (!input) return std::nullopt;
    Json doc = Json::object();
    for (const auto& f : input->fields) {
      if (p.doc.contains(f.name)) {
        doc[f.name] = p.doc[f.name];
      } else if (f.required) {
        if (p.absent.count(f.name)) return std::nullopt;
        doc[f.name] = Sample(f);
      }
    }
    return doc;
  }

  // What each domain Task of the path sets: its `produces` fields, with the
  // path's values (the ones its Choices need) or samples; fields the path
  // needs absent stay absent.
  Json HostDomain(const PathPlan& p) const {
    Json domain = Json::object();
    // The names in `domain` (an ordered_json object looks keys up by a
    // linear scan, which made this quadratic in the path's length).
    std::unordered_set<std::string> added;
    for (const auto& name : p.spec_states) {
      const State* s = FindState(name);
      if (!IsDomainTask(s) || !added.insert(name).second) continue;
      domain.get_ref<Json::object_t&>().emplace_back(name,
                                                     HostDomainEntry(p, *s));
    }
    return domain;
  }

  // HostDomain(p)[task.name], for a domain Task `task` of the path, without
  // the others' (a Map case needs only its producer's).
  Json HostDomainEntry(const PathPlan& p, const State& task) const {
    const bool in_map = EnclosingMap(task.name) != nullptr;
    Json set = Json::object();
    for (const auto& field : task.produces) {
      if (in_map && p.item_doc.contains(field)) {
        set[field] = p.item_doc[field];
      } else if (!in_map && p.doc.contains(field)) {
        set[field] = p.doc[field];
      } else if (!p.absent.count(field) || in_map) {
        set[field] = SampleFor(field);
      }
    }
    Json entries = Json::array();
    entries.push_back(Json{{"set", std::move(set)}});
    return entries;
  }

  // `events` and then the events published along `states` (spec states,
  // items included), in order: one per PublishEvent state, one per element
  // of its for_each array (the samples hold one).
  Json EventsAlong(const std::vector<std::string>& states,
                   Json events = Json::array()) const {
    for (const auto& name : states) {
      const State* s = FindState(name);
      if (s && s->type == StateType::kTask &&
          s->builtin == Builtin::kPublishEvent)
        events.push_back(s->event);
    }
    return events;
  }

  // The JobRun a run that entered `states` ends with: the last Finalize
  // builtin decides. `failure_class` is what a failure route records.
  std::optional<Json> JobRunAlong(const std::vector<std::string>& states,
                                  const std::string& outcome,
                                  const std::string& failure_class) const {
    for (auto it = states.rbegin(); it != states.rend(); ++it) {
      const State* s = FindState(*it);
      if (!s) continue;
      if (std::optional<Json> jobrun = JobRunOf(*s, outcome, failure_class))
        return jobrun;
    }
    return std::nullopt;
  }

  // The JobRun state `s` finalizes, when it is a Finalize builtin.
  static std::optional<Json> JobRunOf(const State& s,
                                      const std::string& outcome,
                                      const std::string& failure_class) {
    if (s.type != StateType::kTask) return std::nullopt;
    switch (s.builtin) {
      case Builtin::kFinalizeJobRunSuccess:
        return Json{{"status", "SUCCEEDED"}, {"outcome", outcome}};
      case Builtin::kFinalizeJobRunQuarantined:
        return Json{{"status", "QUARANTINED"},
                    {"error_classification", "QUARANTINE"}};
      case Builtin::kFinalizeJobRunFailed:
        return Json{{"status", "FAILED"},
                    {"error_classification", failure_class}};
      default:
        return std::nullopt;
    }
  }

  // The outcome a duplicate run records: the one of the rule that routes
  // idempotency_status DUPLICATE.
  std::string DuplicateOutcome() const {
    for (const auto& s : spec_.graph.states) {
      if (s.type != StateType::kChoice) continue;
      for (const auto& r : s.rules)
        if (r.when.field == "idempotency_status" &&
            r.when.value.text == "DUPLICATE")
          return r.then.outcome;
    }
    return "";
  }

  bool Passes(const PathPlan& p, Builtin b) const {
    for (const auto& name : p.spec_states) {
      const State* s = FindState(name);
      if (s && s->type == StateType::kTask && s->builtin == b) return true;
    }
    return false;
  }

  // The workflow idempotency key the path's run takes: the spec's template
  // over the run's values, at the executor's start time (2026-01-01).
  std::optional<std::string> IdempotencyKey(const Json& input,
                                            const Json& domain) const {
    if (spec_.idempotency_key.empty()) return std::nullopt;
    Json values = input;
    for (auto it = domain.begin(); it != domain.end(); ++it)
      for (const auto& entry : it.value())
        if (entry.contains("set"))
          for (auto f = entry["set"].begin(); f != entry["set"].end(); ++f)
            if (!values.contains(f.key())) values[f.key()] = f.value();
    values["schema_version"] = spec_.schema_version;
    constexpr int64_t kStart = 1767225600;  // asl::RunOptions::start_time
    if (spec_.time_bucket_seconds && *spec_.time_bucket_seconds > 0) {
      time_t bucket =
          static_cast<time_t>(kStart - kStart % *spec_.time_bucket_seconds);
      std::tm tm{};
      gmtime_r(&bucket, &tm);
      char text[32];
      std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
      values["time_bucket"] = text;
    }
    std::string key;
    const std::string& t = spec_.idempotency_key;
    size_t at = 0;
    for (const Placeholder& ph : Placeholders(t)) {
      if (!values.contains(ph.name)) return std::nullopt;
      const Json& v = values[ph.name];
      key += t.substr(at, ph.offset - at);
      key += v.is_string() ? v.get<std::string>() : v.dump();
      at = ph.offset + ph.name.size() + 2;  // past "{name}"
    }
    return key + t.substr(at);
  }

  std::optional<Json> HostForPath(const PathPlan& p) const {
    const std::string& duplicate = duplicate_outcome_;
    if (!duplicate.empty() && p.outcome == duplicate) return std::nullopt;
    std::optional<Json> input = HostInput(p);
    if (!input) return std::nullopt;
    Json domain = HostDomain(p);
    std::optional<Json> jobrun = JobRunAlong(p.spec_states, p.outcome, "");
    if (!jobrun) return std::nullopt;
    Json host = {{"input", *input}, {"domain", domain}};
    Json expect = {{"jobrun", std::move(*jobrun)},
                   {"events", EventsAlong(p.spec_states)}};
    if (Passes(p, Builtin::kAcquireIdempotencyLock)) {
      if (auto key = IdempotencyKey(*input, domain))
        expect["idempotency_key"] = *key;
      if (expect["jobrun"]["status"] == "SUCCEEDED" && !duplicate.empty()) {
        expect["rerun_outcome"] = duplicate;
        // The domain Tasks before the lock run again (they must be free
        // of side effects: normalizing a name); none after it.
        int before = 0;
        for (const auto& name : p.spec_states) {
          const State* s = FindState(name);
          if (s && s->builtin == Builtin::kAcquireIdempotencyLock) break;
          if (IsDomainTask(s)) ++before;
        }
        expect["rerun_domain_calls"] = before;
      }
    }
    host["expect"] = std::move(expect);
    return host;
  }

  // The spec states a failure of Map item Task `task`, caught inside its
  // item, leads through: the base path up to the task, then the rest of the
  // base path after the item.
  std::vector<std::string> FailureStates(const PathPlan& base,
                                         const State& task) const {
    std::vector<std::string> out;
    size_t i = 0;
    for (; i < base.spec_states.size() && base.spec_states[i] != task.name; ++i)
      out.push_back(base.spec_states[i]);
    const State* map = EnclosingMap(task.name);
    for (++i; i < base.spec_states.size(); ++i) {
      const std::string& name = base.spec_states[i];
      if (map->item_states->Find(name)) continue;
      out.push_back(name);
    }
    return out;
  }

  PathIndex IndexPath(const PathPlan& p) const {
    PathIndex index;
    const State* last = nullptr;
    for (size_t i = 0; i < p.spec_states.size(); ++i) {
      index.last_finalize.push_back(last);
      index.position.emplace(p.spec_states[i], i);
      const State* s = FindState(p.spec_states[i]);
      if (!s || s->type != StateType::kTask) continue;
      if (s->builtin == Builtin::kPublishEvent)
        index.events.emplace_back(i, s->event);
      if (JobRunOf(*s, "", "")) last = s;
    }
    return index;
  }

  // A Map's cases name their path's case, `base_name`, as the failure
  // cases do: they change only the items (through the Task that produces
  // them, or the input) and the item Tasks' answers.
  // `producer`: the last top-level domain Task before the Map's first
  // entry in `base` that produces its items, or null.
  void AddMapCases(const State& map, const PathPlan& base,
                   const std::string& base_name, const State* producer,
                   PlanCases& cases) const {
    Json item_doc = base.item_doc;
    const std::vector<std::string> walk = ItemWalk(*map.item_states, item_doc);
    std::vector<const State*> tasks;
    for (const auto& name : walk) {
      const State* s = map.item_states->Find(name);
      if (s && s->type == StateType::kTask) tasks.push_back(s);
    }
    if (tasks.empty()) return;
    // Enough items that every lane is used and one waits: a MaxConcurrency
    // one higher would start them all at once.
    const int concurrency = MapConcurrency(spec_, map);
    const int kItems = std::clamp(concurrency + 1, 3, 64);
    // The path's data with the Map's items, without its states.
    PathPlan p;
    static_cast<PathData&>(p) = base;
    const Field* items_field = spec_.FindFieldType(map.items_field);
    Json item = items_field && items_field->items ? Sample(*items_field->items)
                                                  : Json("item");
    p.doc[map.items_field] = Json::array();
    for (int k = 0; k < kItems; ++k) p.doc[map.items_field].push_back(item);

    // MaxConcurrency on the virtual clock: every item Task takes a second,
    // so an item takes as many seconds as it has Tasks, and item k starts
    // when the earliest of MaxConcurrency lanes is free.
    const double item_seconds = static_cast<double>(tasks.size());
    std::vector<double> lanes;
    Json starts = Json::array();
    for (int k = 0; k < kItems; ++k) {
      size_t lane = lanes.size();
      if (concurrency > 0 && lanes.size() >= static_cast<size_t>(concurrency))
        lane = static_cast<size_t>(
            std::min_element(lanes.begin(), lanes.end()) - lanes.begin());
      else
        lanes.push_back(0);
      starts.push_back(lanes[lane]);
      lanes[lane] += item_seconds;
    }
    // Who gives the Map its items: `producer`, else the input.
    // The items as the case's own input or producer's answer (plan mode).
    auto with_items = [&](Json script, Json& input) {
      if (producer)
        script[producer->name] = Json::array({SuccessEntry(p, *producer)});
      else
        input = {{map.items_field, p.doc[map.items_field]}};
      return script;
    };
    Json script = Json::object();
    for (const State* t : tasks) {
      Json entry = ItemEntry(item_doc, *t);
      entry["seconds"] = 1;
      script[t->name] = Json::array({std::move(entry)});
    }
    Json input = Json::object();
    script = with_items(std::move(script), input);
    Json expect = {{"status", base.failed ? "FAILED" : "SUCCEEDED"},
                   {"map_starts", {{map.name, starts}}}};
    if (!base.outcome.empty()) expect["outcome"] = base.outcome;
    Json c = BasedCase(map.name + "_max_concurrency", base_name,
                       std::move(script), expect,
                       "MaxConcurrency " + std::to_string(concurrency) +
                           ": item k starts when a lane is free (1: "
                           "strictly in order)");
    if (!input.empty()) c["input"] = std::move(input);
    cases.push_back(std::move(c));

    // One item quarantined by its first Task, the others complete.
    const State* first = tasks.front();
    bool caught = false;
    std::string route;
    for (const auto& r : CatchRoutesFor(spec_, *map.item_states, *first)) {
      bool matches = r.catch_all;
      for (ErrorClass c : r.classes)
        matches = matches || c == ErrorClass::kQuarantine;
      if (matches) {
        caught = true;
        route = r.next;
        break;
      }
    }
    const ErrorClassDef* quarantine =
        spec_.governance ? spec_.governance->FindClass(ErrorClass::kQuarantine)
                         : nullptr;
    if (!caught || !quarantine) return;
    constexpr int kQuarantineItems = 3;
    p.doc[map.items_field] = Json::array({item, item, item});
    std::optional<Json> host_input = HostInput(p);
    if (!host_input) return;
    // The host part's own answers: the items' producer with three items,
    // item 1's first Task throwing.
    Json domain = Json::object();
    Json host_input_items = Json::object();
    if (producer) {
      domain[producer->name] = HostDomainEntry(p, *producer);
    } else {
      host_input_items[map.items_field] = (*host_input)[map.items_field];
    }
    domain[first->name + "[1]"] = Json::array(
        {{{"throw", quarantine->error_name}, {"cause", "malformed item"}}});
    // The item Attempts, exactly: items 0 and 2 run every Task of the walk;
    // item 1 fails its first and runs the catch route's Tasks.
    Json item_attempts = Json::array();
    std::vector<std::string> item_states;  // spec states, all items
    std::vector<std::string> route_tasks;
    for (const State* s = map.item_states->Find(route); s;) {
      if (s->type == StateType::kTask) route_tasks.push_back(s->name);
      if (s->is_terminal() || !s->next.present()) break;
      s = map.item_states->Find(s->next.target);
    }
    for (int k = 0; k < kQuarantineItems; ++k) {
      const std::string idx = fmt::format("[{}]", k);
      if (k == 1) {
        item_attempts.push_back(first->name + idx + "#1:FAILED:QUARANTINE");
        item_states.push_back(first->name);
        for (const auto& t : route_tasks) {
          item_attempts.push_back(t + idx + "#1:SUCCEEDED");
          item_states.push_back(t);
        }
      } else {
        for (const State* t : tasks) {
          item_attempts.push_back(t->name + idx + "#1:SUCCEEDED");
          item_states.push_back(t->name);
        }
      }
    }
    std::sort(item_attempts.begin(), item_attempts.end());
    // The run's states: the base path with its one item replaced by three.
    std::vector<std::string> states;
    bool inserted = false;
    for (const auto& name : base.spec_states) {
      if (map.item_states->Find(name)) {
        if (!inserted)
          states.insert(states.end(), item_states.begin(), item_states.end());
        inserted = true;
        continue;
      }
      states.push_back(name);
    }
    std::optional<Json> jobrun = JobRunAlong(states, base.outcome, "");
    if (!jobrun) return;
    Json host = {{"domain", domain},
                 {"expect",
                  {{"jobrun", *jobrun},
                   {"events", EventsAlong(states)},
                   {"item_attempts", item_attempts}}}};
    if (!host_input_items.empty()) host["input"] = host_input_items;
    Json qexpect = {{"status", base.failed ? "FAILED" : "SUCCEEDED"}};
    if (!base.outcome.empty()) qexpect["outcome"] = base.outcome;
    Json qinput = Json::object();
    Json qscript = with_items(Json::object(), qinput);
    Json q = BasedCase(
        map.name + "_item_quarantined", base_name, std::move(qscript), qexpect,
        "item 1 is quarantined by " + first->name + "; items 0 and 2 complete");
    if (!qinput.empty()) q["input"] = std::move(qinput);
    q["host_only"] = true;
    q["host"] = std::move(host);
    cases.push_back(std::move(q));
  }
  const WorkflowSpec& spec_;
  MarkStates marks_;
  // Map item state → its Map (the first, in spec order).
  std::unordered_map<std::string, const State*> enclosing_map_;
  // The Map item Tasks, in spec order (Script's entries).
  std::vector<std::string> item_tasks_;
  // The top-level domain Tasks, in spec order, and the fields they produce.
  std::vector<const State*> domain_tasks_;
  std::set<std::string> produced_;
  std::set<std::string> input_fields_;  // the input event's
  std::string duplicate_outcome_;       // DuplicateOutcome()
};

}  // namespace

std::string EmitConformancePlan(const WorkflowSpec& spec) {
  size_t states = 0;
  for (const auto& s : spec.graph.states)
    states += 1 + (s.item_states ? s.item_states->states.size() : 0);
  PlanCases cases(states * 4096);
  PlanBuilder(spec).Build(cases);
  const Json head = {
      {"generated_by",
       fmt::format("novacat-gen from {}; do not edit",
                   spec.file.substr(spec.file.find_last_of('/') + 1))},
      {"workflow", spec.workflow},
      {"runner", "runtime/include/novacat/runtime/testing/conformance.h"},
      {"case_count", cases.size()}};
  // The head's dump(1) without its closing "\n}", then the cases: the
  // whole plan's dump(1).
  std::string out = head.dump(1);
  out.resize(out.size() - 2);
  if (cases.size() == 0) return out + ",\n \"cases\": []\n}\n";
  out += ",\n \"cases\": [\n";
  out += cases.text();
  out += "\n ]\n}\n";
  return out;
}

}  // namespace novacat
