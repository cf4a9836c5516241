#include "model/spec.h"

#include <cctype>

namespace novacat {

const std::vector<std::string> kRuntimeFields = {"workflow_name",
                                                 "execution_arn",
                                                 "job_run_id",
                                                 "state_name",
                                                 "attempt_number",
                                                 "schema_version",
                                                 "correlation_id",
                                                 "idempotency_key",
                                                 "workflow_idempotency_key",
                                                 "step_dedupe_key",
                                                 "error_classification",
                                                 "error_fingerprint",
                                                 "time_bucket",
                                                 "outcome",
                                                 "quarantine_reason",
                                                 "error",
                                                 "idempotency_status"};

const Field* RuntimeFieldDef(const std::string& name) {
  static const Field kInteger[] = {[] {
                                     Field f;
                                     f.name = "attempt_number";
                                     f.kind = FieldKind::kInteger;
                                     return f;
                                   }(),
                                   [] {
                                     Field f;
                                     f.name = "schema_version";
                                     f.kind = FieldKind::kInteger;
                                     return f;
                                   }()};
  for (const auto& f : kInteger)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {
struct KindName {
  FieldKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {
    {FieldKind::kString, "string"},      {FieldKind::kUuid, "uuid"},
    {FieldKind::kInteger, "integer"},    {FieldKind::kNumber, "number"},
    {FieldKind::kBoolean, "boolean"},    {FieldKind::kDate, "date"},
    {FieldKind::kDateTime, "date_time"}, {FieldKind::kArray, "array"},
    {FieldKind::kObject, "object"}};

}  // namespace

const char* FieldKindName(FieldKind k) {
  for (const auto& e : kKindNames)
    if (e.kind == k) return e.name;
  return "string";
}

std::optional<FieldKind> ParseFieldKind(const std::string& name) {
  for (const auto& e : kKindNames)
    if (name == e.name) return e.kind;
  return std::nullopt;
}

const char* StateTypeName(StateType t) {
  switch (t) {
    case StateType::kPass:
      return "Pass";
    case StateType::kTask:
      return "Task";
    case StateType::kChoice:
      return "Choice";
    case StateType::kMap:
      return "Map";
    case StateType::kSucceed:
      return "Succeed";
    case StateType::kFail:
      return "Fail";
  }
  return "Pass";
}

const ErrorClassDef* Governance::FindClass(ErrorClass c) const {
  for (const auto& d : error_classes)
    if (d.error_class == c) return &d;
  return nullptr;
}

const RetryPolicy* Governance::FindPreset(const std::string& name) const {
  for (const auto& [n, p] : retry_presets)
    if (n == name) return &p;
  return nullptr;
}

const ConcurrencyLimit* Governance::FindConcurrency(
    const std::string& name) const {
  for (const auto& c : map_concurrency)
    if (c.name == name) return &c;
  return nullptr;
}

bool Governance::HasAccessPattern(const std::string& id) const {
  for (const auto& [k, v] : access_patterns)
    if (k == id) return true;
  return false;
}

const SecretDef* Governance::FindSecret(const std::string& id) const {
  for (const auto& s : secrets)
    if (s.id == id) return &s;
  return nullptr;
}

const Field* EventDef::FindField(const std::string& n) const {
  for (const auto& f : fields)
    if (f.name == n) return &f;
  return nullptr;
}

std::vector<const Transition*> State::Transitions() const {
  std::vector<const Transition*> out;
  if (next.present()) out.push_back(&next);
  for (const auto& r : rules)
    if (r.then.present()) out.push_back(&r.then);
  if (default_transition.present()) out.push_back(&default_transition);
  return out;
}

const State* StateGraph::Find(const std::string& n) const {
  int i = IndexOf(n);
  return i < 0 ? nullptr : &states[i];
}

int StateGraph::IndexOf(const std::string& n) const {
  auto it = index_.find(n);
  return it == index_.end() ? -1 : it->second;
}

void StateGraph::BuildIndex() {
  index_.clear();
  item_owner_.clear();
  for (size_t i = 0; i < states.size(); ++i) {
    index_.emplace(states[i].name, static_cast<int>(i));
    if (states[i].item_states)
      for (const auto& item : states[i].item_states->states)
        item_owner_.emplace(item.name, static_cast<int>(i));
  }
}

const State* StateGraph::FindItemOwner(const std::string& n) const {
  auto it = item_owner_.find(n);
  return it == item_owner_.end() ? nullptr : &states[it->second];
}

const EventDef* EventCatalog::Find(const std::string& n) const {
  for (const auto& e : events)
    if (e.name == n) return &e;
  return nullptr;
}

const EventDef* WorkflowSpec::FindEvent(const std::string& n) const {
  for (const auto& e : events)
    if (e.name == n) return &e;
  return nullptr;
}

const Field* WorkflowSpec::FindData(const std::string& n) const {
  for (const auto& f : data)
    if (f.name == n) return &f;
  return nullptr;
}

const Outcome* WorkflowSpec::FindOutcome(const std::string& n) const {
  for (const auto& o : outcomes)
    if (o.name == n) return &o;
  return nullptr;
}

const FailureCase* WorkflowSpec::FindFailure(const std::string& n) const {
  for (const auto& f : failures)
    if (f.id == n) return &f;
  return nullptr;
}

const Field* WorkflowSpec::FindFieldType(const std::string& n) const {
  if (const Field* f = RuntimeFieldDef(n)) return f;
  if (const Field* f = FindData(n)) return f;
  if (const EventDef* input = FindEvent(input_event)) {
    if (const Field* f = input->FindField(n)) return f;
  }
  for (const auto& s : graph.states) {
    for (const auto& f : s.item_data)
      if (f.name == n) return &f;
  }
  return nullptr;
}

const State* WorkflowSpec::FindEnclosingMap(const std::string& n) const {
  return graph.FindItemOwner(n);
}

std::string PascalCase(std::string_view name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '_' || c == '-') {
      upper = true;
    } else {
      out.push_back(
          upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                : c);
      upper = false;
    }
  }
  return out;
}

std::string WorkflowSpec::PascalName() const { return PascalCase(workflow); }

}  // namespace novacat
