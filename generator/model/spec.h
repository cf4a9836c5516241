// The model of a workflow spec and of the governance it references.
//
// The loader builds it from YAML, the checker validates it, and every
// emitter reads it. Each element keeps the source location it came from so
// that checks can point at the spec, not at generated output. Containers keep
// spec order (never hash order): emitters iterate them to produce
// deterministic files.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "novacat/vocabulary.h"
#include "support/diagnostics.h"

namespace novacat {

struct ErrorClassDef {
  ErrorClass error_class = ErrorClass::kTerminal;
  std::string error_name;  // the ASL error name (Lambda errorType)
  std::string description;
  std::vector<std::string> examples;
  std::vector<std::string> also_retry;  // RETRYABLE only
  SourceLocation location;
};

// A retry policy after presets are applied. `max_attempts` counts retries
// after the first attempt; `backoff_seconds[n]` is the wait before retry n.
struct RetryPolicy {
  std::string preset;  // the preset it derives from ("" when none)
  std::optional<int64_t> timeout_seconds;  // presets may carry a timeout
  int max_attempts = 0;
  std::vector<int64_t> backoff_seconds;
  std::vector<ErrorClass> retry_on = {ErrorClass::kRetryable};
  std::string note;
  SourceLocation location;
  SourceLocation max_attempts_location;
  SourceLocation backoff_location;
  bool backoff_invalid = false;  // an entry was rejected (already reported)
  std::vector<SourceLocation> retry_on_locations;  // one per retry_on entry
};

struct ConcurrencyLimit {
  std::string name;
  int max = 1;
  std::string description;
  SourceLocation location;
};

// A secret a workflow's function may read from AWS Secrets Manager,
// declared once in the governance (`secrets:`) and named by the specs
// whose functions read it (the spec's `secrets:`). The stack gets one
// parameter per secret a spec names, <PascalCase(id)>SecretArn (default
// "": not configured); a function whose spec names the secret gets
// `variable` set to the ARN, and may read exactly that secret, only when
// the parameter is given.
struct SecretDef {
  std::string id;           // lower_snake_case: "tns"
  std::string variable;     // NOVACAT_<NAME>_SECRET: what the function reads
  std::string description;  // what the secret holds (its JSON)
  SourceLocation location;  // the id's key in the governance
  SourceLocation variable_location;
};

struct StateGraph;

// "annotate_nova" (or "annotate-nova") -> "AnnotateNova".
std::string PascalCase(std::string_view name);

struct Governance {
  std::string file;
  std::string name;
  std::vector<ErrorClassDef> error_classes;  // RETRYABLE, TERMINAL, QUARANTINE
  std::vector<std::pair<std::string, RetryPolicy>> retry_presets;
  std::string default_retry;
  SourceLocation default_retry_location;
  int max_attempts_limit = 10;  // retries beyond this count as unbounded
  // Retry waits may take at most this share of a workflow's worst case.
  double retry_budget_share = 0.6;
  std::vector<ConcurrencyLimit> map_concurrency;
  std::string correlation_field = "correlation_id";
  std::vector<std::string> internal_fields;
  std::vector<std::string> log_required;
  std::vector<std::string> log_when_known;
  std::vector<std::pair<std::string, std::string>> access_patterns;
  std::vector<SecretDef> secrets;  // declaration order
  // The run lifecycle the workflows share (`lifecycle:`), for the specs
  // that say `lifecycle: shared`: the states before a workflow's own
  // (`prologue`) and after them (`epilogue`), in order. A target "$begin"
  // is the spec's `begin:` state (default: its first own state). Null when
  // the governance has none.
  std::shared_ptr<const StateGraph> lifecycle_prologue;
  std::shared_ptr<const StateGraph> lifecycle_epilogue;

  const ErrorClassDef* FindClass(ErrorClass c) const;
  const RetryPolicy* FindPreset(const std::string& name) const;
  const ConcurrencyLimit* FindConcurrency(const std::string& name) const;
  bool HasAccessPattern(const std::string& id) const;
  const SecretDef* FindSecret(const std::string& id) const;
};

// The types a field of an event or of the state document can have.
enum class FieldKind {
  kString,
  kUuid,
  kInteger,
  kNumber,
  kBoolean,
  kDate,
  kDateTime,
  kArray,
  kObject
};
const char* FieldKindName(FieldKind k);
std::optional<FieldKind> ParseFieldKind(const std::string& name);

struct Field {
  std::string name;
  FieldKind kind = FieldKind::kString;
  bool required = false;
  bool nullable = false;
  std::string description;
  std::vector<std::string> enum_values;
  std::optional<int64_t> min_length;
  std::optional<int64_t> min_items;  // arrays
  std::optional<double> minimum;
  std::shared_ptr<Field> items;  // kArray: the element type
  std::vector<Field> fields;     // kObject: the properties
  SourceLocation location;
  // Input event fields: the value BeginJobRun fills in when the input
  // lacks the field (JSON Schema `default`).
  std::optional<nlohmann::ordered_json> default_value;
  SourceLocation default_location;
};

struct EventDef {
  std::string name;
  std::string description;
  // Version of this event's schema; older versions' files are frozen.
  int schema_version = 1;
  // Whether properties the event does not declare are accepted.
  bool allow_unknown_properties = false;  // `unknown_properties: reject`
  std::vector<std::string> published_on;  // outcomes
  std::vector<SourceLocation> published_on_locations;
  std::vector<Field> fields;
  SourceLocation location;
  // Where the event is declared, when it comes from the event catalog
  // (`location` is then the spec's reference to it).
  std::optional<SourceLocation> catalog_location;

  const Field* FindField(const std::string& name) const;
};

// The events several specs share, declared once (a spec's
// `event_catalog:` file, usually specs/shared/events.yaml). A spec uses one
// by naming it under `events:` without `fields`, with its own
// `published_on`.
struct EventCatalog {
  std::string file;
  std::vector<EventDef> events;

  const EventDef* Find(const std::string& name) const;
};

// When a `scheduled` trigger runs in AWS (one EventBridge Scheduler
// schedule in the stack) and the input event it starts the workflow with.
// With `for_each: nova` the schedule starts one run per nova of the
// catalog: it invokes the workflow's function, which publishes the input
// event with each nova's nova_id on the bus, where a rule starts the state
// machine (runtime/include/novacat/store/for_each_nova.h).
struct Schedule {
  // rate(<n> minute|minutes|hour|hours|day|days) or cron(<6 fields>).
  std::string expression;
  SourceLocation expression_location;
  // The input event of the scheduled run ({} when not given); checked
  // against the workflow's input event.
  nlohmann::ordered_json input = nlohmann::ordered_json::object();
  SourceLocation input_location;  // `input:` key, or the schedule's
  std::vector<std::pair<std::string, SourceLocation>> input_fields;
  // "nova" (one run per nova), or "" (one run with `input`).
  std::string for_each;
  SourceLocation for_each_location;
  SourceLocation location;  // the `schedule:` key
};

// What an `object_created` trigger listens to: S3's Object Created events
// of the catalog's bucket (on EventBridge's default bus) for keys starting
// with `prefix`. The stack's rule starts the state machine with the input
// event's bucket, key, etag (and byte_length when declared) taken from the
// event's detail.
struct ObjectCreated {
  std::string prefix;
  SourceLocation location;  // the `object_created:` key
};

struct Trigger {
  // manual | external | scheduled | refresh | event | object_created
  std::string kind;
  std::string after;  // kind: event — the workflow it follows
  std::string description;
  std::optional<Schedule> schedule;             // kind: scheduled
  std::optional<ObjectCreated> object_created;  // kind: object_created
  SourceLocation location;
};

struct Identity {
  std::string name;
  std::string description;
  std::vector<std::string> parts;
  std::vector<std::string> first_of;
  SourceLocation location;
};

struct FailureCase {
  std::string id;
  ErrorClass error_class = ErrorClass::kTerminal;
  std::string description;
  std::vector<std::string> raised_by;  // empty: any Task may raise it
  std::vector<SourceLocation> raised_by_locations;
  SourceLocation location;
};

// A literal in a Choice condition. Its JSON type is decided by the type of
// the field it is compared with, not by YAML's guess (YAML 1.1 reads `NO` as
// false).
struct Literal {
  std::string text;
  SourceLocation location;
};

struct Condition {
  enum class Op {
    kAll,
    kAny,
    kNot,
    kEquals,
    kLt,
    kLe,
    kGt,
    kGe,
    kIsPresent,
    kIsNull
  };
  Op op = Op::kEquals;
  std::string field;
  SourceLocation field_location;
  Literal value;
  std::vector<Condition> children;  // kAll, kAny: several; kNot: one
  SourceLocation location;
};

// An edge of the state graph. Taking it may record the run's outcome or a
// quarantine reason; the ASL emitter materializes that as a Pass state.
struct Transition {
  std::string target;
  std::string outcome;
  std::string quarantine_reason;
  SourceLocation location;
  SourceLocation outcome_location;
  SourceLocation quarantine_reason_location;
  bool present() const { return !target.empty(); }
};

struct ChoiceRule {
  Condition when;
  Transition then;
  SourceLocation location;
};

enum class StateType { kPass, kTask, kChoice, kMap, kSucceed, kFail };
const char* StateTypeName(StateType t);

// ErrorClass and Builtin, with their names, are the vocabulary the
// runtime shares (novacat/vocabulary.h).

// Where a Task's errors go. Empty targets mean "not caught".
struct CatchRoutes {
  std::string quarantine;
  std::string failure;
  SourceLocation quarantine_location;
  SourceLocation failure_location;
  bool none = false;  // `catch: none`
  SourceLocation location;
};

struct ItemFailure {
  std::string name;  // the seeds name the Catch (ProviderItemFailureHandler)
  std::vector<ErrorClass> classes;
  std::vector<SourceLocation> class_locations;
  std::string next;
  SourceLocation next_location;
  SourceLocation location;
};

struct StateGraph;

struct State {
  std::string name;
  StateType type = StateType::kPass;
  std::string description;
  SourceLocation location;       // the state's key
  SourceLocation type_location;  // its `type:` value

  Transition next;
  bool end = false;

  // Task
  Builtin builtin = Builtin::kNone;
  SourceLocation builtin_location;
  std::string event;  // PublishEvent
  SourceLocation event_location;
  std::string for_each_field;  // PublishEvent: one event per element
  std::string for_each_as;
  SourceLocation for_each_location;
  std::optional<int64_t> timeout_seconds;
  SourceLocation timeout_location;
  bool timeout_given = false;        // present, even if malformed
  std::optional<RetryPolicy> retry;  // resolved; absent: no policy at all
  bool retry_explicit = false;
  std::optional<CatchRoutes> catch_override;
  std::string dedupe_key;
  SourceLocation dedupe_key_location;
  std::vector<std::string> produces;
  std::vector<SourceLocation> produces_locations;
  std::vector<std::string> access_patterns;
  std::vector<SourceLocation> access_pattern_locations;
  std::optional<int64_t> max_result_bytes;  // worst-case size of its output

  // Choice
  std::vector<ChoiceRule> rules;
  Transition default_transition;

  // Pass
  std::string generate;  // field to set to a new UUID (correlation_id)
  SourceLocation generate_location;

  // Fail
  std::string error;
  std::string cause;

  // Map
  std::string items_field;
  SourceLocation items_location;
  std::string item_name;
  FieldKind item_kind = FieldKind::kObject;
  std::vector<std::string> carry;
  std::vector<SourceLocation> carry_locations;
  std::string concurrency;
  SourceLocation concurrency_location;
  std::optional<int> max_concurrency;
  SourceLocation max_concurrency_location;
  std::optional<int64_t> max_items;
  std::optional<int64_t> max_item_bytes;  // worst-case size of one result
  std::string result_field;
  SourceLocation result_location;
  std::optional<ItemFailure> item_failure;
  std::vector<Field> item_data;
  std::shared_ptr<StateGraph> item_states;

  bool is_terminal() const {
    return end || type == StateType::kSucceed || type == StateType::kFail;
  }
  // The outgoing edges in spec order (next, rules, default).
  std::vector<const Transition*> Transitions() const;
};

// A set of states: the workflow's top level or a Map's item processor.
struct StateGraph {
  std::vector<State> states;
  std::string start;  // first state unless `start:` says otherwise
  SourceLocation start_location;
  // A state's type or a transition was malformed (and reported): path
  // checks (reachability, outcomes) are skipped to avoid follow-on errors.
  bool incomplete = false;

  const State* Find(const std::string& name) const;
  // -1 when there is no such state. Uses the index built by BuildIndex.
  int IndexOf(const std::string& name) const;
  // Indexes `states` by name (first occurrence wins), and the states of
  // their item processors by the Map that holds them (the first Map
  // wins); call after filling, item processors included.
  void BuildIndex();
  // The state (a Map) whose item processor holds a state named `name`, or
  // null. Uses the index built by BuildIndex: O(1), where a scan of every
  // state per call made the checker quadratic in the states.
  const State* FindItemOwner(const std::string& name) const;

 private:
  std::unordered_map<std::string, int> index_;
  std::unordered_map<std::string, int> item_owner_;
};

struct Outcome {
  std::string name;
  std::string description;
  SourceLocation location;
};

// A scenario the spec's author states (an example from the seeds): an
// input, what the domain Tasks answer, and what must follow. Each becomes a
// host-mode conformance case.
struct ScenarioStep {
  // One answer of a domain Task: the fields it sets, or an error it
  // throws (an ASL error name from the governance, e.g. RetryableError).
  nlohmann::ordered_json set = nlohmann::ordered_json::object();
  std::string throw_error;
  std::string cause;
  SourceLocation location;
  std::vector<std::pair<std::string, SourceLocation>> set_fields;
};

struct Scenario {
  std::string name;
  std::string description;
  SourceLocation location;
  nlohmann::ordered_json input = nlohmann::ordered_json::object();
  // Domain Task -> its answers in order (the last repeats).
  std::vector<std::pair<std::string, std::vector<ScenarioStep>>> tasks;
  std::vector<SourceLocation> task_locations;
  // Expectations.
  std::string jobrun;  // SUCCEEDED, QUARANTINED or FAILED
  SourceLocation jobrun_location;
  std::string outcome;  // SUCCEEDED
  SourceLocation outcome_location;
  std::string classification;     // QUARANTINED / FAILED: QUARANTINE, ...
  std::vector<std::string> path;  // spec states entered, exactly, in order
  std::vector<SourceLocation> path_locations;
  bool path_given = false;
  std::vector<std::string> events;  // published, in order
  std::vector<SourceLocation> event_locations;
  bool events_given = false;
  std::vector<std::string> not_invoked;  // Tasks that must not run
  std::vector<SourceLocation> not_invoked_locations;
  std::vector<std::pair<std::string, int64_t>> attempts;  // Attempts of a Task
  std::vector<SourceLocation> attempt_locations;
};

struct WorkflowSpec {
  std::string file;
  std::string workflow;
  SourceLocation workflow_location;
  std::string title;
  std::string description;
  std::string type = "STANDARD";  // STANDARD | EXPRESS
  std::string governance_path;    // as written, relative to the spec
  SourceLocation governance_location;
  std::shared_ptr<const Governance> governance;
  std::string event_catalog_path;  // as written, relative to the spec
  SourceLocation event_catalog_location;
  std::shared_ptr<const EventCatalog> event_catalog;
  // The catalog's object store (the stack's bucket) the steps use: "read",
  // "read_write", or "" (none): the function's permissions and
  // NOVACAT_BUCKET.
  std::string object_store;
  SourceLocation object_store_location;
  // The governance's secrets the function reads (`secrets:`), in spec
  // order, each named once (the loader reports a repeat); the checker
  // reports an id the governance does not declare (unknown-secret).
  std::vector<std::string> secrets;
  std::vector<SourceLocation> secret_locations;  // one per entry
  // `lifecycle: shared`: the governance's run lifecycle is merged into the
  // states (load/spec_loader.cc MergeLifecycle); "" otherwise.
  std::string lifecycle;
  SourceLocation lifecycle_location;
  std::string begin;  // where the lifecycle's "$begin" leads
  SourceLocation begin_location;
  int schema_version = 1;
  std::vector<Trigger> triggers;
  std::vector<std::string> invariants;
  std::string input_event;
  SourceLocation input_event_location;
  std::vector<EventDef> events;
  std::vector<Identity> identities;
  std::vector<std::pair<std::string, std::string>> constants;
  std::vector<Field> data;
  // `job_run_output`: the data fields the Finalize builtins copy, those
  // present in the document, into the JobRun's output, in this order; each
  // named once (the loader reports a repeat), each a `data` field (the
  // checker: unknown-field).
  std::vector<std::string> job_run_output;
  std::vector<SourceLocation> job_run_output_locations;  // one per entry
  std::vector<Outcome> outcomes;
  std::vector<FailureCase> failures;
  std::string idempotency_key;
  SourceLocation idempotency_key_location;
  std::optional<int64_t> time_bucket_seconds;
  bool time_bucket_given = false;  // present, even if malformed
  SourceLocation idempotency_location;
  std::vector<std::string> log_required;
  std::vector<SourceLocation> log_required_locations;
  std::vector<std::string> log_when_known;
  std::vector<SourceLocation> log_when_known_locations;
  CatchRoutes catch_defaults;
  StateGraph graph;
  std::vector<Scenario> scenarios;

  const EventDef* FindEvent(const std::string& name) const;
  const Field* FindData(const std::string& name) const;
  const Outcome* FindOutcome(const std::string& name) const;
  const FailureCase* FindFailure(const std::string& name) const;
  // The declared type of a field used in a condition: a runtime field, a
  // data field, an input event field or a Map item data field; null when
  // none declares it.
  const Field* FindFieldType(const std::string& name) const;
  // The Map state (top level) whose item processor holds `state`, or null.
  const State* FindEnclosingMap(const std::string& state) const;
  // The PascalCase name of the workflow ("initialize_nova" → "InitializeNova").
  std::string PascalName() const;
};

// Fields the runtime sets in every state document, known to every check.
extern const std::vector<std::string> kRuntimeFields;
// The type of a runtime field that is not a string (attempt_number,
// schema_version: integers), or null.
const Field* RuntimeFieldDef(const std::string& name);

}  // namespace novacat
