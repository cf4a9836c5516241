#include "load/spec_loader.h"

#include "load/yaml_document.h"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <filesystem>
#include <fstream>
#include <future>
#include <initializer_list>
#include <map>
#include <set>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "model/routes.h"
#include "support/byte_scan.h"

namespace novacat {

std::optional<int64_t> ParseDuration(const std::string& text) {
  if (text.size() < 2) return std::nullopt;
  int64_t unit = 0;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    default:
      return std::nullopt;
  }
  int64_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size() - 1;
  if (*begin == '0') return std::nullopt;  // "010s": no leading zeros
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || value <= 0) return std::nullopt;
  if (value > 100LL * 365 * 86400 / unit) return std::nullopt;
  return value * unit;
}

namespace {

const char* NodeKindName(const yaml::Node& node) {
  switch (node.Type()) {
    case yaml::NodeType::Map:
      return "a mapping";
    case yaml::NodeType::Sequence:
      return "a sequence";
    case yaml::NodeType::Scalar:
      return "a scalar";
    case yaml::NodeType::Null:
      return "nothing";
    case yaml::NodeType::Undefined:
      return "nothing";
  }
  return "nothing";
}

// State shared by the readers of one file.
class Reader {
 public:
  Reader(DiagnosticSink& sink, std::string file)
      : sink_(sink), file_(std::move(file)) {}

  SourceLocation At(const yaml::Node& node) const {
    SourceLocation loc;
    loc.file = file_;
    yaml::Mark mark = node.GetMark();
    if (mark.line >= 0) {
      loc.line = mark.line + 1;
      loc.column = mark.column + 1;
    }
    if (node.IsScalar()) {
      loc.length = std::max<int>(1, static_cast<int>(node.Scalar().size()));
    }
    return loc;
  }

  void Error(const SourceLocation& at, const std::string& rule,
             const std::string& message) {
    sink_.Error(at, rule, message);
  }

  const std::string& file() const { return file_; }

 private:
  DiagnosticSink& sink_;
  std::string file_;
};

// Reads one YAML mapping: each Get marks a key as known, Finish reports the
// keys that no Get asked for (unknown keys, with the closest known key as a
// suggestion). Duplicate keys are reported when the mapping is opened.
class MapReader {
 public:
  MapReader(Reader& r, const yaml::Node& node, std::string what,
            const SourceLocation& fallback)
      : r_(r), node_(node), what_(std::move(what)) {
    if (!node.IsMap()) {
      // A null value's mark is the next token; the key is more helpful.
      SourceLocation at =
          node.IsDefined() && !node.IsNull() && node.GetMark().line >= 0
              ? r_.At(node)
              : fallback;
      r_.Error(at, "wrong-type",
               fmt::format("{} must be a mapping, got {}", what_,
                           NodeKindName(node)));
      valid_ = false;
      return;
    }
    const std::vector<std::pair<yaml::Node, yaml::Node>> entries =
        node.Entries();
    entries_.reserve(entries.size());
    for (const auto& [key_node, value] : entries) {
      if (!key_node.IsScalar()) {
        r_.Error(r_.At(key_node), "wrong-type",
                 fmt::format("keys in {} must be plain names", what_));
        continue;
      }
      const std::string& key = key_node.Scalar();
      if (const Entry* seen = Find(key)) {
        r_.Error(r_.At(key_node), "duplicate-key",
                 fmt::format("duplicate key '{}' in {} (first defined at "
                             "line {})",
                             key, what_, r_.At(seen->key).line));
        continue;
      }
      entries_.push_back(Entry{key_node, value});
      if (!by_key_.empty() || entries_.size() > kFewKeys) Index();
    }
  }

  // known_ holds views of absent_'s strings.
  MapReader(const MapReader&) = delete;
  MapReader& operator=(const MapReader&) = delete;

  bool valid() const { return valid_; }
  const std::string& what() const { return what_; }

  // The value of `key`, or null when absent. Marks `key` as known.
  const yaml::Node* Get(const std::string& key) {
    Entry* entry = Find(key);
    if (!entry) {
      known_.push_back(absent_.emplace_back(key));
      return nullptr;
    }
    known_.push_back(entry->key.Scalar());
    entry->used = true;
    return &entry->value;
  }

  // As Get, and reports `missing-key` when absent.
  const yaml::Node* Require(const std::string& key) {
    const yaml::Node* value = Get(key);
    if (!value && valid_) {
      r_.Error(location(), "missing-key",
               fmt::format("{} needs '{}'", what_, key));
    }
    return value;
  }

  SourceLocation KeyLocation(const std::string& key) const {
    const Entry* entry = Find(key);
    return entry ? r_.At(entry->key) : location();
  }
  // The value's location; the key's when the value has none (null values).
  SourceLocation ValueLocation(const std::string& key) const {
    const Entry* entry = Find(key);
    if (!entry) return location();
    if (entry->value.GetMark().line < 0 || entry->value.IsNull())
      return r_.At(entry->key);
    return r_.At(entry->value);
  }
  SourceLocation location() const {
    SourceLocation loc = r_.At(node_);
    loc.length = 1;
    return loc;
  }

  // Entries in document order (first occurrence of each key).
  std::vector<std::pair<std::string, const yaml::Node*>> Entries() const {
    std::vector<std::pair<std::string, const yaml::Node*>> out;
    out.reserve(entries_.size());
    for (const Entry& e : entries_) out.emplace_back(e.key.Scalar(), &e.value);
    return out;
  }
  // Adds keys to the vocabulary used for suggestions without reading them.
  void Expect(std::initializer_list<const char*> keys) {
    for (const char* k : keys) known_.emplace_back(k);
  }
  // Marks every key as known: for mappings whose keys are names (states,
  // events, fields) rather than a fixed vocabulary.
  void AcceptAllKeys() { accept_all_ = true; }

  void Finish() {
    if (!valid_ || accept_all_) return;
    for (const Entry& entry : entries_) {
      if (entry.used) continue;
      const std::string& key = entry.key.Scalar();
      if (std::find(known_.begin(), known_.end(), key) != known_.end())
        continue;
      const std::vector<std::string> vocabulary(known_.begin(), known_.end());
      std::string suggestion = ClosestMatch(key, vocabulary);
      std::string message = fmt::format("unknown key '{}' in {}", key, what_);
      if (!suggestion.empty()) {
        message += fmt::format("; did you mean '{}'?", suggestion);
      } else {
        std::set<std::string> sorted(vocabulary.begin(), vocabulary.end());
        std::string list;
        for (const auto& k : sorted) list += (list.empty() ? "" : ", ") + k;
        message += fmt::format(" (expected one of: {})", list);
      }
      r_.Error(r_.At(entry.key), "unknown-key", message);
    }
  }

 private:
  // One key of the mapping (its first occurrence) and its value; the key's
  // text lives in the document, as long as the reader.
  struct Entry {
    yaml::Node key;
    yaml::Node value;
    bool used = false;
  };
  // Up to this many keys a lookup scans them; past it (mappings of names:
  // states, events, fields) they are indexed.
  static constexpr size_t kFewKeys = 16;

  const Entry* Find(std::string_view key) const {
    if (!by_key_.empty()) {
      auto it = by_key_.find(key);
      return it == by_key_.end() ? nullptr : &entries_[it->second];
    }
    for (const Entry& e : entries_)
      if (e.key.Scalar() == key) return &e;
    return nullptr;
  }
  Entry* Find(std::string_view key) {
    return const_cast<Entry*>(std::as_const(*this).Find(key));
  }
  // Indexes the keys not indexed yet.
  void Index() {
    for (size_t i = by_key_.size(); i < entries_.size(); ++i)
      by_key_.emplace(entries_[i].key.Scalar(), i);
  }

  Reader& r_;
  yaml::Node node_;
  std::string what_;
  bool valid_ = true;
  bool accept_all_ = false;
  std::vector<Entry> entries_;  // document order
  std::unordered_map<std::string_view, size_t> by_key_;
  // Every key asked for or expected, in that order (the suggestions'
  // vocabulary): views of the document's keys, of the literals Expect got,
  // or of absent_, which holds the keys asked for and absent.
  std::vector<std::string_view> known_;
  std::deque<std::string> absent_;
};

// Typed scalar readers. Each reports `wrong-type` and returns nullopt when
// the value has the wrong shape.
class Values {
 public:
  explicit Values(Reader& r) : r_(r) {}

  std::optional<std::string> String(const yaml::Node& node,
                                    const std::string& what,
                                    const SourceLocation& fallback) {
    if (!node.IsScalar()) {
      r_.Error(
          node.IsNull() ? fallback : r_.At(node), "wrong-type",
          fmt::format("{} must be a string, got {}", what, NodeKindName(node)));
      return std::nullopt;
    }
    return node.Scalar();
  }

  std::optional<std::string> String(MapReader& m, const std::string& key,
                                    bool required = false) {
    const yaml::Node* node = required ? m.Require(key) : m.Get(key);
    if (!node) return std::nullopt;
    if (node->IsScalar()) return node->Scalar();  // the description unmade
    return String(*node, fmt::format("'{}' in {}", key, m.what()),
                  m.KeyLocation(key));
  }

  std::optional<int64_t> Integer(MapReader& m, const std::string& key,
                                 bool required = false) {
    const yaml::Node* node = required ? m.Require(key) : m.Get(key);
    if (!node) return std::nullopt;
    if (node->IsScalar() && node->Tag() == "?") {
      int64_t value = 0;
      const std::string& s = node->Scalar();
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      if (ec == std::errc() && ptr == s.data() + s.size()) return value;
    }
    r_.Error(m.ValueLocation(key), "wrong-type",
             fmt::format("'{}' in {} must be an integer, got {}", key, m.what(),
                         Describe(*node)));
    return std::nullopt;
  }

  std::optional<double> Number(MapReader& m, const std::string& key) {
    const yaml::Node* node = m.Get(key);
    if (!node) return std::nullopt;
    if (node->IsScalar() && node->Tag() == "?") {
      double value = 0;
      const std::string& s = node->Scalar();
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
      if (ec == std::errc() && ptr == s.data() + s.size() &&
          std::isfinite(value))
        return value;
    }
    r_.Error(m.ValueLocation(key), "wrong-type",
             fmt::format("'{}' in {} must be a number, got {}", key, m.what(),
                         Describe(*node)));
    return std::nullopt;
  }

  // YAML 1.2 booleans only: `yes`/`no` are strings in this format.
  std::optional<bool> Bool(MapReader& m, const std::string& key) {
    const yaml::Node* node = m.Get(key);
    if (!node) return std::nullopt;
    if (node->IsScalar() && node->Tag() == "?") {
      const std::string& s = node->Scalar();
      if (s == "true") return true;
      if (s == "false") return false;
    }
    r_.Error(m.ValueLocation(key), "wrong-type",
             fmt::format("'{}' in {} must be true or false, got {}", key,
                         m.what(), Describe(*node)));
    return std::nullopt;
  }

  std::optional<int64_t> Duration(MapReader& m, const std::string& key) {
    const yaml::Node* node = m.Get(key);
    if (!node) return std::nullopt;
    if (node->IsScalar()) {
      if (auto seconds = ParseDuration(node->Scalar())) return seconds;
    }
    r_.Error(m.ValueLocation(key), "wrong-type",
             fmt::format("'{}' in {} must be a duration such as 10s, 15m, 2h "
                         "or 1d, got {}",
                         key, m.what(), Describe(*node)));
    return std::nullopt;
  }

  // A sequence of strings; `locations` receives one location per entry.
  std::vector<std::string> StringList(MapReader& m, const std::string& key,
                                      std::vector<SourceLocation>* locations,
                                      bool required = false) {
    std::vector<std::string> out;
    const yaml::Node* node = required ? m.Require(key) : m.Get(key);
    if (!node) return out;
    if (!node->IsSequence()) {
      r_.Error(m.ValueLocation(key), "wrong-type",
               fmt::format("'{}' in {} must be a list, got {}", key, m.what(),
                           Describe(*node)));
      return out;
    }
    for (const auto& item : *node) {
      if (!item.IsScalar()) {
        r_.Error(r_.At(item), "wrong-type",
                 fmt::format("entries of '{}' in {} must be strings, got {}",
                             key, m.what(), NodeKindName(item)));
        continue;
      }
      out.push_back(item.Scalar());
      if (locations) locations->push_back(r_.At(item));
    }
    return out;
  }

  std::string Describe(const yaml::Node& node) const {
    if (node.IsScalar()) return fmt::format("'{}'", node.Scalar());
    return NodeKindName(node);
  }

 private:
  Reader& r_;
};

// Resolves a retry policy: a preset name, or a mapping that may name a
// `preset` and override `max_attempts`, `backoff`, `on` and `note`. When
// `backoff` is omitted it is the preset's schedule cut to max_attempts.
std::optional<RetryPolicy> ResolveRetry(Reader& r, const yaml::Node& node,
                                        const SourceLocation& at,
                                        const Governance* governance,
                                        const std::string& what) {
  Values v(r);
  auto find_preset = [&](const std::string& name,
                         const SourceLocation& loc) -> const RetryPolicy* {
    if (!governance) return nullptr;
    if (const RetryPolicy* p = governance->FindPreset(name)) return p;
    std::vector<std::string> names;
    for (const auto& [n, p] : governance->retry_presets) names.push_back(n);
    std::string suggestion = ClosestMatch(name, names);
    r.Error(loc, "unknown-preset",
            fmt::format("unknown retry preset '{}'{}", name,
                        suggestion.empty()
                            ? ""
                            : fmt::format("; did you mean '{}'?", suggestion)));
    return nullptr;
  };
  if (node.IsScalar()) {
    SourceLocation loc = r.At(node);
    const RetryPolicy* preset = find_preset(node.Scalar(), loc);
    if (!preset) return std::nullopt;
    RetryPolicy policy = *preset;
    policy.preset = node.Scalar();
    policy.location = loc;
    return policy;
  }
  MapReader m(r, node, what, at);
  if (!m.valid()) return std::nullopt;
  RetryPolicy policy;
  policy.location = at;
  std::string preset_name;
  if (auto s = v.String(m, "preset")) {
    preset_name = *s;
  } else if (governance) {
    preset_name = governance->default_retry;
  }
  const RetryPolicy* preset = nullptr;
  if (!preset_name.empty()) {
    preset = find_preset(preset_name,
                         m.Get("preset") ? m.ValueLocation("preset") : at);
    if (!preset) return std::nullopt;  // reported; nothing to resolve
  }
  if (preset) {
    policy = *preset;
    policy.preset = preset_name;
  }
  policy.location = at;
  policy.max_attempts_location = at;
  policy.backoff_location = at;
  if (const yaml::Node* n = m.Get("max_attempts")) {
    policy.max_attempts_location = m.ValueLocation("max_attempts");
    if (n->IsScalar() && (n->Scalar() == "unlimited" || n->Scalar() == ".inf" ||
                          n->Scalar() == "infinite")) {
      r.Error(policy.max_attempts_location, "unbounded-retry",
              fmt::format("{} retries without bound; give max_attempts a "
                          "number (governance: no unbounded retries)",
                          what));
      return std::nullopt;
    }
    if (auto count = v.Integer(m, "max_attempts")) {
      policy.max_attempts =
          static_cast<int>(std::clamp<int64_t>(*count, -1, 1'000'000'000));
      if (!m.Get("backoff") && preset) {
        if (policy.max_attempts >= 0 &&
            static_cast<size_t>(policy.max_attempts) <=
                preset->backoff_seconds.size()) {
          policy.backoff_seconds.resize(policy.max_attempts);
        }
      }
    }
  } else if (!preset) {
    r.Error(at, "unbounded-retry",
            fmt::format("{} has no max_attempts and no preset; retries must "
                        "be bounded",
                        what));
  }
  if (const yaml::Node* n = m.Get("backoff")) {
    policy.backoff_seconds.clear();
    policy.backoff_location = m.ValueLocation("backoff");
    if (!n->IsSequence()) {
      r.Error(policy.backoff_location, "wrong-type",
              fmt::format("'backoff' in {} must be a list of durations", what));
    } else {
      for (const auto& item : *n) {
        std::optional<int64_t> seconds;
        if (item.IsScalar()) seconds = ParseDuration(item.Scalar());
        if (!seconds) {
          policy.backoff_invalid = true;
          r.Error(r.At(item), "wrong-type",
                  fmt::format("backoff entries must be durations such as 2s "
                              "or 1m, got {}",
                              v.Describe(item)));
          continue;
        }
        policy.backoff_seconds.push_back(*seconds);
      }
    }
  }
  if (const yaml::Node* n = m.Get("on")) {
    (void)n;
    std::vector<SourceLocation> locations;
    policy.retry_on.clear();
    policy.retry_on_locations.clear();
    auto names = v.StringList(m, "on", &locations);
    if (names.empty()) {
      r.Error(m.ValueLocation("on"), "wrong-type",
              fmt::format("'on' in {} lists no error class; to not retry, "
                          "set max_attempts: 0",
                          what));
    }
    for (size_t i = 0; i < names.size(); ++i) {
      if (auto c = ParseErrorClass(names[i])) {
        policy.retry_on.push_back(*c);
        policy.retry_on_locations.push_back(locations[i]);
      } else {
        r.Error(locations[i], "wrong-type",
                fmt::format("'on' lists error classes (RETRYABLE, TERMINAL, "
                            "QUARANTINE), got '{}'",
                            names[i]));
      }
    }
  }
  if (auto s = v.String(m, "note")) policy.note = *s;
  m.Finish();
  return policy;
}

// Loads one workflow spec file into a WorkflowSpec.
class WorkflowReader {
 public:
  // Where the text of a scalar starts: after the opening quote of a quoted
  // scalar, so columns inside key templates point at the right character.
  static SourceLocation ContentLocation(MapReader& m, const std::string& key) {
    SourceLocation at = m.ValueLocation(key);
    const yaml::Node* node = m.Get(key);
    if (node && node->IsScalar() && node->Tag() == "!") at.column += 1;
    return at;
  }

  WorkflowReader(Reader& r, WorkflowSpec& spec, const Governance* governance,
                 const EventCatalog* catalog = nullptr)
      : r_(r), v_(r), spec_(spec), governance_(governance), catalog_(catalog) {}

  // The governance's `lifecycle: {description, prologue, epilogue}`: states
  // as in a spec, read against the governance's retry presets.
  void ReadLifecycle(const yaml::Node& node, const SourceLocation& at,
                     Governance& governance) {
    MapReader m(r_, node, "'lifecycle'", at);
    if (!m.valid()) return;
    v_.String(m, "description");
    auto part = [&](const char* key) -> std::shared_ptr<const StateGraph> {
      const yaml::Node* n = m.Require(key);
      if (!n) return nullptr;
      auto graph = std::make_shared<StateGraph>();
      ReadStates(*n, m.KeyLocation(key), *graph);
      return graph;
    };
    governance.lifecycle_prologue = part("prologue");
    governance.lifecycle_epilogue = part("epilogue");
    m.Finish();
  }

  // An event catalog file: `events:` as in a spec (every event with its
  // `fields`), and an optional `description`. `published_on` belongs to
  // the spec that publishes an event, not here.
  void ReadCatalog(const yaml::Node& root, EventCatalog& catalog) {
    SourceLocation file_start{r_.file(), 1, 1, 1};
    MapReader m(r_, root, "the event catalog", file_start);
    if (!m.valid()) return;
    v_.String(m, "description");
    if (const yaml::Node* n = m.Require("events"))
      ReadEvents(*n, m.KeyLocation("events"));
    m.Finish();
    for (auto& event : spec_.events) {
      if (!event.published_on.empty())
        r_.Error(event.published_on_locations.front(), "event-catalog",
                 fmt::format("event '{}' in the event catalog has "
                             "published_on; it belongs in the spec that "
                             "publishes the event",
                             event.name));
      catalog.events.push_back(std::move(event));
    }
  }

  void Read(const yaml::Node& root) {
    SourceLocation file_start{r_.file(), 1, 1, 1};
    MapReader m(r_, root, "the workflow spec", file_start);
    if (!m.valid()) return;
    if (auto s = v_.String(m, "workflow", true)) {
      spec_.workflow = *s;
      spec_.workflow_location = m.ValueLocation("workflow");
    }
    spec_.title = v_.String(m, "title").value_or("");
    spec_.description = v_.String(m, "description").value_or("");
    if (auto s = v_.String(m, "type")) {
      spec_.type = *s;
      if (*s != "STANDARD" && *s != "EXPRESS") {
        r_.Error(m.ValueLocation("type"), "wrong-type",
                 fmt::format("workflow type must be STANDARD or EXPRESS, got "
                             "'{}'",
                             *s));
      }
    }
    if (auto s = v_.String(m, "governance", true)) {
      spec_.governance_path = *s;
      spec_.governance_location = m.ValueLocation("governance");
    }
    if (auto s = v_.String(m, "event_catalog")) {
      spec_.event_catalog_path = *s;
      spec_.event_catalog_location = m.ValueLocation("event_catalog");
    }
    if (auto s = v_.String(m, "object_store")) {
      spec_.object_store = *s;
      spec_.object_store_location = m.ValueLocation("object_store");
      if (*s != "read" && *s != "read_write")
        r_.Error(spec_.object_store_location, "wrong-type",
                 fmt::format("object_store must be 'read' or 'read_write' "
                             "(the catalog's bucket); got '{}'",
                             *s));
    }
    spec_.secrets = v_.StringList(m, "secrets", &spec_.secret_locations);
    for (size_t i = 0; i < spec_.secrets.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (spec_.secrets[j] != spec_.secrets[i]) continue;
        r_.Error(spec_.secret_locations[i], "duplicate-key",
                 fmt::format("secret '{}' is named twice in 'secrets' (first "
                             "at line {})",
                             spec_.secrets[i], spec_.secret_locations[j].line));
        spec_.secrets.erase(spec_.secrets.begin() + i);
        spec_.secret_locations.erase(spec_.secret_locations.begin() + i);
        --i;
        break;
      }
    }
    if (auto s = v_.String(m, "lifecycle")) {
      spec_.lifecycle = *s;
      spec_.lifecycle_location = m.ValueLocation("lifecycle");
      if (*s != "shared")
        r_.Error(spec_.lifecycle_location, "wrong-type",
                 fmt::format("lifecycle must be 'shared' (the governance's "
                             "run lifecycle); got '{}'",
                             *s));
    }
    if (auto s = v_.String(m, "begin")) {
      spec_.begin = *s;
      spec_.begin_location = m.ValueLocation("begin");
    }
    if (auto n = v_.Integer(m, "schema_version")) {
      spec_.schema_version = static_cast<int>(*n);
      if (*n < 1 || *n > 1000) {
        r_.Error(m.ValueLocation("schema_version"), "wrong-type",
                 "schema_version must be between 1 and 1000");
      }
    }
    if (const yaml::Node* n = m.Get("triggers")) ReadTriggers(*n, m);
    spec_.invariants = v_.StringList(m, "invariants", nullptr);
    if (auto s = v_.String(m, "input", true)) {
      spec_.input_event = *s;
      spec_.input_event_location = m.ValueLocation("input");
    }
    if (const yaml::Node* n = m.Require("events")) {
      ReadEvents(*n, m.KeyLocation("events"));
    }
    if (const yaml::Node* n = m.Get("identities")) {
      ReadIdentities(*n, m.KeyLocation("identities"));
    }
    if (const yaml::Node* n = m.Get("constants")) {
      MapReader c(r_, *n, "'constants'", m.KeyLocation("constants"));
      c.AcceptAllKeys();
      for (const auto& [name, value] : c.Entries()) {
        if (auto s = v_.String(*value, fmt::format("constant '{}'", name),
                               c.KeyLocation(name))) {
          spec_.constants.emplace_back(name, *s);
        }
      }
    }
    if (const yaml::Node* n = m.Get("data")) {
      spec_.data = ReadFields(*n, "'data'", m.KeyLocation("data"), false);
    }
    spec_.job_run_output =
        v_.StringList(m, "job_run_output", &spec_.job_run_output_locations);
    for (size_t i = 0; i < spec_.job_run_output.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (spec_.job_run_output[j] != spec_.job_run_output[i]) continue;
        r_.Error(spec_.job_run_output_locations[i], "duplicate-key",
                 fmt::format("field '{}' is named twice in 'job_run_output' "
                             "(first at line {})",
                             spec_.job_run_output[i],
                             spec_.job_run_output_locations[j].line));
        spec_.job_run_output.erase(spec_.job_run_output.begin() + i);
        spec_.job_run_output_locations.erase(
            spec_.job_run_output_locations.begin() + i);
        --i;
        break;
      }
    }
    if (const yaml::Node* n = m.Require("outcomes")) {
      MapReader o(r_, *n, "'outcomes'", m.KeyLocation("outcomes"));
      o.AcceptAllKeys();
      for (const auto& [name, value] : o.Entries()) {
        Outcome outcome;
        outcome.name = name;
        outcome.location = o.KeyLocation(name);
        if (!value->IsNull()) {
          outcome.description =
              v_.String(*value, fmt::format("outcome '{}'", name),
                        outcome.location)
                  .value_or("");
        }
        spec_.outcomes.push_back(std::move(outcome));
      }
    }
    if (const yaml::Node* n = m.Get("failures")) {
      ReadFailures(*n, m.KeyLocation("failures"));
    }
    if (const yaml::Node* n = m.Require("idempotency")) {
      MapReader i(r_, *n, "'idempotency'", m.KeyLocation("idempotency"));
      spec_.idempotency_location = m.KeyLocation("idempotency");
      if (auto s = v_.String(i, "key", true)) {
        spec_.idempotency_key = *s;
        spec_.idempotency_key_location = ContentLocation(i, "key");
      }
      spec_.time_bucket_seconds = v_.Duration(i, "time_bucket");
      spec_.time_bucket_given = i.Get("time_bucket") != nullptr;
      i.Finish();
    }
    if (const yaml::Node* n = m.Get("logging")) {
      MapReader l(r_, *n, "'logging'", m.KeyLocation("logging"));
      spec_.log_required =
          v_.StringList(l, "required", &spec_.log_required_locations);
      spec_.log_when_known =
          v_.StringList(l, "when_known", &spec_.log_when_known_locations);
      l.Finish();
    }
    if (const yaml::Node* n = m.Get("catch")) {
      spec_.catch_defaults = ReadCatch(*n, m.KeyLocation("catch"), "'catch'");
    }
    if (auto s = v_.String(m, "start")) {
      spec_.graph.start = *s;
      spec_.graph.start_location = m.ValueLocation("start");
    }
    if (const yaml::Node* n = m.Require("states")) {
      ReadStates(*n, m.KeyLocation("states"), spec_.graph);
    }
    if (const yaml::Node* n = m.Get("scenarios")) {
      ReadScenarios(*n, m.KeyLocation("scenarios"));
    }
    m.Finish();
  }

 private:
  // YAML as JSON: plain scalars by the YAML core schema (true/false, null,
  // integers, floats), quoted scalars as strings.
  nlohmann::ordered_json ToJson(const yaml::Node& node) {
    if (node.IsMap()) {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (const auto& [key, value] : node.Entries())
        o[key.Scalar()] = ToJson(value);
      return o;
    }
    if (node.IsSequence()) {
      nlohmann::ordered_json a = nlohmann::ordered_json::array();
      for (const auto& item : node) a.push_back(ToJson(item));
      return a;
    }
    if (node.IsNull()) return nullptr;
    const std::string& text = node.Scalar();
    if (node.Tag() == "!") return text;  // quoted
    if (text == "true" || text == "True") return true;
    if (text == "false" || text == "False") return false;
    if (text == "null" || text == "~") return nullptr;
    char* end = nullptr;
    long long i = std::strtoll(text.c_str(), &end, 10);
    if (!text.empty() && end == text.c_str() + text.size())
      return static_cast<int64_t>(i);
    double d = std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size()) return d;
    return text;
  }

  void ReadScenarios(const yaml::Node& node, const SourceLocation& at) {
    MapReader all(r_, node, "'scenarios'", at);
    all.AcceptAllKeys();
    for (const auto& [name, value] : all.Entries()) {
      Scenario sc;
      sc.name = name;
      sc.location = all.KeyLocation(name);
      const std::string what = fmt::format("scenario '{}'", name);
      MapReader m(r_, *value, what, sc.location);
      if (!m.valid()) continue;
      sc.description = v_.String(m, "description").value_or("");
      if (const yaml::Node* in = m.Require("input")) {
        if (!in->IsMap()) {
          r_.Error(m.ValueLocation("input"), "wrong-type",
                   fmt::format("'input' in {} must be a mapping, got {}", what,
                               NodeKindName(*in)));
        } else {
          sc.input = ToJson(*in);
        }
      }
      if (const yaml::Node* t = m.Get("tasks")) {
        MapReader tasks(r_, *t, fmt::format("'tasks' of {}", what),
                        m.KeyLocation("tasks"));
        tasks.AcceptAllKeys();
        for (const auto& [task, answers] : tasks.Entries()) {
          std::vector<ScenarioStep> steps;
          if (!answers->IsSequence()) {
            r_.Error(tasks.ValueLocation(task), "wrong-type",
                     fmt::format("the answers of '{}' in {} must be a list, "
                                 "got {}",
                                 task, what, NodeKindName(*answers)));
            continue;
          }
          for (const auto& answer : *answers) {
            ScenarioStep step;
            step.location = r_.At(answer);
            MapReader a(r_, answer,
                        fmt::format("an answer of '{}' in {}", task, what),
                        step.location);
            if (!a.valid()) continue;
            if (const yaml::Node* set = a.Get("set")) {
              MapReader fields(r_, *set, "'set'", a.KeyLocation("set"));
              fields.AcceptAllKeys();
              if (fields.valid()) {
                step.set = ToJson(*set);
                for (const auto& [field, v] : fields.Entries())
                  step.set_fields.emplace_back(field,
                                               fields.KeyLocation(field));
              }
            }
            step.throw_error = v_.String(a, "throw").value_or("");
            step.cause = v_.String(a, "cause").value_or("");
            if (a.Get("set") && !step.throw_error.empty()) {
              r_.Error(step.location, "scenario-answer",
                       fmt::format("an answer of '{}' in {} either sets "
                                   "fields or throws, not both",
                                   task, what));
            }
            a.Finish();
            steps.push_back(std::move(step));
          }
          sc.tasks.emplace_back(task, std::move(steps));
          sc.task_locations.push_back(tasks.KeyLocation(task));
        }
      }
      if (const yaml::Node* e = m.Require("expect")) {
        MapReader x(r_, *e, fmt::format("'expect' of {}", what),
                    m.KeyLocation("expect"));
        if (x.valid()) {
          if (auto j = v_.String(x, "jobrun", true)) {
            sc.jobrun = *j;
            sc.jobrun_location = x.ValueLocation("jobrun");
            if (*j != "SUCCEEDED" && *j != "QUARANTINED" && *j != "FAILED")
              r_.Error(sc.jobrun_location, "wrong-type",
                       fmt::format("'jobrun' in {} must be SUCCEEDED, "
                                   "QUARANTINED or FAILED, got '{}'",
                                   what, *j));
          }
          if (auto o = v_.String(x, "outcome")) {
            sc.outcome = *o;
            sc.outcome_location = x.ValueLocation("outcome");
          }
          sc.classification = v_.String(x, "classification").value_or("");
          sc.path_given = x.Get("path") != nullptr;
          sc.path = v_.StringList(x, "path", &sc.path_locations);
          sc.events_given = x.Get("events") != nullptr;
          sc.events = v_.StringList(x, "events", &sc.event_locations);
          sc.not_invoked =
              v_.StringList(x, "not_invoked", &sc.not_invoked_locations);
          if (const yaml::Node* n = x.Get("attempts")) {
            MapReader a(r_, *n, "'attempts'", x.KeyLocation("attempts"));
            a.AcceptAllKeys();
            for (const auto& [task, count] : a.Entries()) {
              if (auto c = v_.Integer(a, task)) {
                sc.attempts.emplace_back(task, *c);
                sc.attempt_locations.push_back(a.KeyLocation(task));
              }
            }
          }
          x.Finish();
        }
      }
      m.Finish();
      spec_.scenarios.push_back(std::move(sc));
    }
  }

  void ReadTriggers(const yaml::Node& node, MapReader& parent) {
    if (!node.IsSequence()) {
      r_.Error(
          parent.ValueLocation("triggers"), "wrong-type",
          fmt::format("'triggers' must be a list, got {}", NodeKindName(node)));
      return;
    }
    for (const auto& item : node) {
      MapReader t(r_, item, "a trigger", r_.At(item));
      if (!t.valid()) continue;
      Trigger trigger;
      trigger.location = t.location();
      if (auto s = v_.String(t, "kind", true)) {
        trigger.kind = *s;
        static const std::vector<std::string> kKinds = {
            "manual",  "external", "scheduled",
            "refresh", "event",    "object_created"};
        bool ok = false;
        for (const auto& k : kKinds) ok = ok || k == *s;
        if (!ok) {
          r_.Error(t.ValueLocation("kind"), "wrong-type",
                   fmt::format("trigger kind must be one of manual, external, "
                               "scheduled, refresh, event, object_created; "
                               "got '{}'",
                               *s));
        }
      }
      trigger.after = v_.String(t, "after").value_or("");
      trigger.description = v_.String(t, "description").value_or("");
      if (const yaml::Node* n = t.Get("schedule"))
        trigger.schedule = ReadSchedule(*n, t.KeyLocation("schedule"));
      if (const yaml::Node* n = t.Get("object_created")) {
        MapReader o(r_, *n, "'object_created'",
                    t.ValueLocation("object_created"));
        if (o.valid()) {
          ObjectCreated created;
          created.location = t.KeyLocation("object_created");
          created.prefix = v_.String(o, "prefix", true).value_or("");
          o.Finish();
          trigger.object_created = std::move(created);
        }
      }
      t.Finish();
      spec_.triggers.push_back(std::move(trigger));
    }
  }

  // `schedule: {expression, input, for_each}` of a trigger; the
  // expression's syntax, the input's fields and for_each's value are the
  // checker's (schedule-expression, schedule-input, schedule-for-each).
  std::optional<Schedule> ReadSchedule(const yaml::Node& node,
                                       const SourceLocation& at) {
    MapReader m(r_, node, "'schedule'", at);
    if (!m.valid()) return std::nullopt;
    Schedule schedule;
    schedule.location = at;
    schedule.input_location = at;
    if (auto s = v_.String(m, "expression", true)) {
      schedule.expression = *s;
      schedule.expression_location = m.ValueLocation("expression");
    }
    if (const yaml::Node* in = m.Get("input")) {
      schedule.input_location = m.KeyLocation("input");
      MapReader fields(r_, *in, "'input' of 'schedule'",
                       m.ValueLocation("input"));
      fields.AcceptAllKeys();
      if (fields.valid()) {
        schedule.input = ToJson(*in);
        for (const auto& [field, v] : fields.Entries())
          schedule.input_fields.emplace_back(field, fields.KeyLocation(field));
      }
    }
    if (auto s = v_.String(m, "for_each")) {
      schedule.for_each = *s;
      schedule.for_each_location = m.ValueLocation("for_each");
    }
    m.Finish();
    return schedule;
  }

  void ReadEvents(const yaml::Node& node, const SourceLocation& at) {
    MapReader m(r_, node, "'events'", at);
    m.AcceptAllKeys();
    for (const auto& [name, value] : m.Entries()) {
      EventDef event;
      event.name = name;
      event.location = m.KeyLocation(name);
      MapReader e(r_, *value, fmt::format("event '{}'", name), event.location);
      if (!e.valid()) continue;
      const EventDef* shared = catalog_ ? catalog_->Find(name) : nullptr;
      if (shared && !e.Get("fields")) {
        // A reference: the catalog's event, with this spec's published_on.
        for (const char* key :
             {"description", "schema_version", "unknown_properties"}) {
          if (e.Get(key))
            r_.Error(e.KeyLocation(key), "event-catalog",
                     fmt::format("event '{}' comes from the event catalog "
                                 "({}:{}); only published_on may be given "
                                 "here",
                                 name, shared->location.file,
                                 shared->location.line));
        }
        const SourceLocation reference = event.location;
        event = *shared;
        event.catalog_location = shared->location;
        event.location = reference;
        event.published_on =
            v_.StringList(e, "published_on", &event.published_on_locations);
        e.Finish();
        spec_.events.push_back(std::move(event));
        continue;
      }
      if (shared)
        r_.Error(
            event.location, "event-catalog",
            fmt::format("event '{}' is declared in the event catalog "
                        "({}:{}); name it here without 'fields'",
                        name, shared->location.file, shared->location.line));
      if (catalog_ && !shared && !e.Get("fields")) {
        std::vector<std::string> names;
        for (const auto& c : catalog_->events) names.push_back(c.name);
        std::string closest = ClosestMatch(name, names);
        r_.Error(
            event.location, "missing-key",
            fmt::format("event '{}' has no 'fields', and the event "
                        "catalog {} does not declare it{}",
                        name, catalog_->file,
                        closest.empty()
                            ? std::string()
                            : fmt::format(" (did you mean '{}'?)", closest)));
        v_.StringList(e, "published_on", nullptr);
        e.Finish();
        continue;
      }
      event.description = v_.String(e, "description").value_or("");
      event.schema_version = spec_.schema_version;
      if (auto n = v_.Integer(e, "schema_version")) {
        if (*n < 1 || *n > 1000) {
          r_.Error(e.ValueLocation("schema_version"), "wrong-type",
                   "schema_version must be between 1 and 1000");
        } else {
          event.schema_version = static_cast<int>(*n);
        }
      }
      if (auto policy = v_.String(e, "unknown_properties")) {
        if (*policy == "allow") {
          event.allow_unknown_properties = true;
        } else if (*policy != "reject") {
          r_.Error(e.ValueLocation("unknown_properties"), "wrong-type",
                   fmt::format("unknown_properties must be reject or allow, "
                               "got '{}'",
                               *policy));
        }
      }
      event.published_on =
          v_.StringList(e, "published_on", &event.published_on_locations);
      if (const yaml::Node* f = e.Require("fields")) {
        event.fields = ReadFields(*f, fmt::format("fields of event '{}'", name),
                                  e.KeyLocation("fields"), true);
      }
      e.Finish();
      spec_.events.push_back(std::move(event));
    }
  }

  void ReadIdentities(const yaml::Node& node, const SourceLocation& at) {
    MapReader m(r_, node, "'identities'", at);
    m.AcceptAllKeys();
    for (const auto& [name, value] : m.Entries()) {
      Identity identity;
      identity.name = name;
      identity.location = m.KeyLocation(name);
      MapReader i(r_, *value, fmt::format("identity '{}'", name),
                  identity.location);
      if (!i.valid()) continue;
      identity.description = v_.String(i, "description").value_or("");
      identity.parts = v_.StringList(i, "parts", nullptr, true);
      identity.first_of = v_.StringList(i, "first_of", nullptr);
      i.Finish();
      spec_.identities.push_back(std::move(identity));
    }
  }

  std::vector<Field> ReadFields(const yaml::Node& node, const std::string& what,
                                const SourceLocation& at, bool in_event) {
    std::vector<Field> fields;
    MapReader m(r_, node, what, at);
    m.AcceptAllKeys();
    for (const auto& [name, value] : m.Entries()) {
      fields.push_back(ReadField(name, *value, m.KeyLocation(name), in_event));
    }
    return fields;
  }

  // A field is `name: type` or `name: {type: ..., ...}`.
  Field ReadField(const std::string& name, const yaml::Node& node,
                  const SourceLocation& at, bool in_event) {
    Field field;
    field.name = name;
    field.location = at;
    if (node.IsScalar()) {
      ParseKind(field, node.Scalar(), r_.At(node));
      if (field.kind == FieldKind::kArray) {
        r_.Error(r_.At(node), "missing-key",
                 fmt::format("array field '{}' needs 'items'; write "
                             "{{type: array, items: ...}}",
                             name));
      }
      return field;
    }
    MapReader m(r_, node, fmt::format("field '{}'", name), at);
    if (!m.valid()) return field;
    if (auto s = v_.String(m, "type", true)) {
      ParseKind(field, *s, m.ValueLocation("type"));
    }
    if (in_event) field.required = v_.Bool(m, "required").value_or(false);
    field.nullable = v_.Bool(m, "nullable").value_or(false);
    field.description = v_.String(m, "description").value_or("");
    field.enum_values = v_.StringList(m, "enum", nullptr);
    field.min_length = v_.Integer(m, "min_length");
    field.min_items = v_.Integer(m, "min_items");
    field.minimum = v_.Number(m, "minimum");
    if (const yaml::Node* d = m.Get("default")) {
      field.default_value = ToJson(*d);
      field.default_location = m.ValueLocation("default");
    }
    if (const yaml::Node* items = m.Get("items")) {
      field.items = std::make_shared<Field>(
          ReadField(name + "[]", *items, m.KeyLocation("items"), in_event));
    } else if (field.kind == FieldKind::kArray) {
      r_.Error(m.location(), "missing-key",
               fmt::format("array field '{}' needs 'items'", name));
    }
    if (const yaml::Node* f = m.Get("fields")) {
      field.fields = ReadFields(*f, fmt::format("fields of '{}'", name),
                                m.KeyLocation("fields"), in_event);
    }
    m.Finish();
    return field;
  }

  void ParseKind(Field& field, const std::string& text,
                 const SourceLocation& at) {
    if (auto kind = ParseFieldKind(text)) {
      field.kind = *kind;
      return;
    }
    std::vector<std::string> names;
    for (FieldKind k :
         {FieldKind::kString, FieldKind::kUuid, FieldKind::kInteger,
          FieldKind::kNumber, FieldKind::kBoolean, FieldKind::kDate,
          FieldKind::kDateTime, FieldKind::kArray, FieldKind::kObject}) {
      names.emplace_back(FieldKindName(k));
    }
    std::string suggestion = ClosestMatch(text, names);
    r_.Error(
        at, "wrong-type",
        fmt::format("unknown field type '{}'{}", text,
                    suggestion.empty()
                        ? "; use string, uuid, integer, number, boolean, "
                          "date, date_time, array or object"
                        : fmt::format("; did you mean '{}'?", suggestion)));
  }

  void ReadFailures(const yaml::Node& node, const SourceLocation& at) {
    MapReader m(r_, node, "'failures'", at);
    m.AcceptAllKeys();
    for (const auto& [id, value] : m.Entries()) {
      FailureCase failure;
      failure.id = id;
      failure.location = m.KeyLocation(id);
      MapReader f(r_, *value, fmt::format("failure '{}'", id),
                  failure.location);
      if (!f.valid()) continue;
      if (auto s = v_.String(f, "class", true)) {
        if (auto c = ParseErrorClass(*s)) {
          failure.error_class = *c;
        } else {
          r_.Error(f.ValueLocation("class"), "wrong-type",
                   fmt::format("failure class must be RETRYABLE, TERMINAL or "
                               "QUARANTINE, got '{}'",
                               *s));
        }
      }
      failure.description = v_.String(f, "description").value_or("");
      failure.raised_by =
          v_.StringList(f, "raised_by", &failure.raised_by_locations);
      f.Finish();
      spec_.failures.push_back(std::move(failure));
    }
  }

  CatchRoutes ReadCatch(const yaml::Node& node, const SourceLocation& at,
                        const std::string& what) {
    CatchRoutes routes;
    routes.location = at;
    if (node.IsScalar() && node.Scalar() == "none") {
      routes.none = true;
      return routes;
    }
    MapReader m(r_, node, what, at);
    if (!m.valid()) return routes;
    if (auto s = v_.String(m, "quarantine")) {
      routes.quarantine = *s;
      routes.quarantine_location = m.ValueLocation("quarantine");
    }
    if (auto s = v_.String(m, "failure")) {
      routes.failure = *s;
      routes.failure_location = m.ValueLocation("failure");
    }
    m.Finish();
    return routes;
  }

  void ReadStates(const yaml::Node& node, const SourceLocation& at,
                  StateGraph& graph) {
    MapReader m(r_, node, "'states'", at);
    m.AcceptAllKeys();
    if (!m.valid()) return;
    const bool outer_incomplete = graph_incomplete_;
    graph_incomplete_ = false;
    const auto entries = m.Entries();
    // A State is large (some 2.5 KB): growing the vector would move every
    // one of them, and touch twice the memory, at each doubling.
    graph.states.reserve(graph.states.size() + entries.size());
    for (const auto& [name, value] : entries) {
      graph.states.push_back(ReadState(name, *value, m.KeyLocation(name)));
    }
    graph.incomplete = graph_incomplete_;
    graph_incomplete_ = outer_incomplete || graph_incomplete_;
    graph.BuildIndex();
    if (graph.start.empty() && !graph.states.empty()) {
      graph.start = graph.states.front().name;
      graph.start_location = graph.states.front().location;
    }
    if (graph.states.empty()) {
      r_.Error(at, "missing-key", "'states' needs at least one state");
    }
  }

  // `next: X` plus the optional `outcome` / `quarantine_reason` beside it.
  Transition ReadTransition(MapReader& m, const std::string& key) {
    Transition t;
    if (auto s = v_.String(m, key)) {
      t.location = m.ValueLocation(key);
      if (s->empty()) {
        r_.Error(t.location, "wrong-type",
                 fmt::format("'{}' in {} must name a state", key, m.what()));
        graph_incomplete_ = true;
      } else {
        t.target = *s;
      }
    } else if (m.Get(key)) {
      graph_incomplete_ = true;  // present but not a string: reported
    }
    return t;
  }

  void ReadTransitionMarks(MapReader& m, Transition& t) {
    if (!t.present() && !m.Get("next")) {
      // An outcome belongs to a transition; without one it would be lost.
      for (const char* key : {"outcome", "quarantine_reason"}) {
        if (m.Get(key)) {
          r_.Error(m.KeyLocation(key), "missing-key",
                   fmt::format("'{}' in {} needs a 'next' to record it on", key,
                               m.what()));
        }
      }
      return;
    }
    if (auto s = v_.String(m, "outcome")) {
      t.outcome = *s;
      t.outcome_location = m.ValueLocation("outcome");
    }
    if (auto s = v_.String(m, "quarantine_reason")) {
      t.quarantine_reason = *s;
      t.quarantine_reason_location = m.ValueLocation("quarantine_reason");
    }
  }

  State ReadState(const std::string& name, const yaml::Node& node,
                  const SourceLocation& at) {
    State state;
    state.name = name;
    state.location = at;
    state.location.length = static_cast<int>(name.size());
    // The type decides which keys are allowed, so peek at it first.
    std::string type_text;
    if (node.IsMap()) {
      const yaml::Node type_node = node["type"];
      if (type_node.IsDefined() && type_node.IsScalar())
        type_text = type_node.Scalar();
    }
    bool known_type = false;
    for (StateType t :
         {StateType::kPass, StateType::kTask, StateType::kChoice,
          StateType::kMap, StateType::kSucceed, StateType::kFail}) {
      if (type_text == StateTypeName(t)) {
        state.type = t;
        known_type = true;
      }
    }
    MapReader typed(r_, node,
                    known_type ? fmt::format("{} state '{}'",
                                             StateTypeName(state.type), name)
                               : fmt::format("state '{}'", name),
                    at);
    if (!typed.valid()) {
      graph_incomplete_ = true;  // reported; its transitions are unknown
      return state;
    }
    if (auto s = v_.String(typed, "type", true)) {
      state.type_location = typed.ValueLocation("type");
      if (!known_type) {
        static const std::vector<std::string> kTypes = {
            "Pass", "Task", "Choice", "Map", "Succeed", "Fail"};
        std::string suggestion = ClosestMatch(*s, kTypes);
        r_.Error(
            state.type_location, "wrong-type",
            fmt::format("unknown state type '{}'{}", *s,
                        suggestion.empty()
                            ? "; use Pass, Task, Choice, Map, Succeed or "
                              "Fail"
                            : fmt::format("; did you mean '{}'?", suggestion)));
      }
    }
    if (!known_type) {
      graph_incomplete_ = true;
      // Keys cannot be judged without a type, but the transitions still
      // place the state in the graph, so no false follow-on errors arise.
      typed.AcceptAllKeys();
      state.next = ReadTransition(typed, "next");
      ReadTransitionMarks(typed, state.next);
      state.end = true;  // counts as terminating: it is already reported
      return state;
    }
    state.description = v_.String(typed, "description").value_or("");
    bool flows = state.type != StateType::kChoice &&
                 state.type != StateType::kSucceed &&
                 state.type != StateType::kFail;
    if (flows) {
      state.next = ReadTransition(typed, "next");
      ReadTransitionMarks(typed, state.next);
      state.end = v_.Bool(typed, "end").value_or(false);
      if (state.next.present() && state.end) {
        r_.Error(typed.KeyLocation("end"), "wrong-type",
                 fmt::format("state '{}' has both 'next' and 'end: true'; "
                             "keep one",
                             name));
      } else if (!state.next.present() && !state.end && !typed.Get("next")) {
        r_.Error(at, "missing-key",
                 fmt::format("state '{}' needs 'next' or 'end: true'", name));
      }
    }
    switch (state.type) {
      case StateType::kTask:
        ReadTask(typed, state);
        break;
      case StateType::kChoice:
        ReadChoice(typed, state);
        break;
      case StateType::kPass:
        if (auto s = v_.String(typed, "generate")) {
          state.generate = *s;
          state.generate_location = typed.ValueLocation("generate");
        }
        break;
      case StateType::kMap:
        ReadMap(typed, state);
        break;
      case StateType::kFail:
        state.error = v_.String(typed, "error").value_or("");
        state.cause = v_.String(typed, "cause").value_or("");
        break;
      case StateType::kSucceed:
        break;
    }
    typed.Finish();
    return state;
  }

  void ReadTask(MapReader& m, State& state) {
    if (auto s = v_.String(m, "builtin")) {
      state.builtin_location = m.ValueLocation("builtin");
      if (auto b = ParseBuiltin(*s)) {
        state.builtin = *b;
      } else {
        std::string suggestion = ClosestMatch(*s, BuiltinNames());
        std::string list;
        for (const auto& n : BuiltinNames())
          list += (list.empty() ? "" : ", ") + n;
        r_.Error(
            state.builtin_location, "unknown-builtin",
            fmt::format("unknown builtin task '{}'{}", *s,
                        suggestion.empty()
                            ? fmt::format(" (the runtime provides: {})", list)
                            : fmt::format("; did you mean '{}'?", suggestion)));
      }
    }
    if (auto s = v_.String(m, "event")) {
      state.event = *s;
      state.event_location = m.ValueLocation("event");
    }
    if (const yaml::Node* n = m.Get("for_each")) {
      MapReader f(r_, *n, fmt::format("'for_each' of state '{}'", state.name),
                  m.KeyLocation("for_each"));
      state.for_each_location = m.KeyLocation("for_each");
      state.for_each_field = v_.String(f, "field", true).value_or("");
      state.for_each_as = v_.String(f, "as", true).value_or("");
      f.Finish();
    }
    state.timeout_seconds = v_.Duration(m, "timeout");
    state.timeout_location = m.KeyLocation("timeout");
    state.timeout_given = m.Get("timeout") != nullptr;
    if (const yaml::Node* n = m.Get("retry")) {
      state.retry_explicit = true;
      state.retry =
          ResolveRetry(r_, *n, m.KeyLocation("retry"), governance_,
                       fmt::format("the retry of state '{}'", state.name));
    }
    if (const yaml::Node* n = m.Get("catch")) {
      state.catch_override =
          ReadCatch(*n, m.KeyLocation("catch"),
                    fmt::format("'catch' of state '{}'", state.name));
    }
    if (auto s = v_.String(m, "dedupe_key")) {
      state.dedupe_key = *s;
      state.dedupe_key_location = ContentLocation(m, "dedupe_key");
    }
    state.produces = v_.StringList(m, "produces", &state.produces_locations);
    state.max_result_bytes = v_.Integer(m, "max_result_bytes");
    state.access_patterns =
        v_.StringList(m, "access_patterns", &state.access_pattern_locations);
  }

  void ReadChoice(MapReader& m, State& state) {
    if (const yaml::Node* rules = m.Get("rules")) {
      if (!rules->IsSequence()) {
        r_.Error(m.ValueLocation("rules"), "wrong-type",
                 fmt::format("'rules' of state '{}' must be a list, got {}",
                             state.name, NodeKindName(*rules)));
      } else if (rules->size() == 0) {
        r_.Error(m.ValueLocation("rules"), "missing-key",
                 fmt::format("Choice state '{}' needs at least one rule",
                             state.name));
      } else {
        for (const auto& item : *rules) {
          MapReader r(r_, item, fmt::format("a rule of state '{}'", state.name),
                      r_.At(item));
          if (!r.valid()) continue;
          ChoiceRule rule;
          rule.location = r.location();
          if (const yaml::Node* when = r.Require("when")) {
            rule.when = ReadCondition(*when, r.KeyLocation("when"));
          }
          rule.then = ReadTransition(r, "next");
          if (!rule.then.present()) r.Require("next");
          ReadTransitionMarks(r, rule.then);
          r.Finish();
          state.rules.push_back(std::move(rule));
        }
      }
    } else {
      r_.Error(state.location, "missing-key",
               fmt::format("Choice state '{}' needs 'rules'", state.name));
    }
    if (const yaml::Node* d = m.Get("default")) {
      if (d->IsMap()) {
        MapReader dm(r_, *d, fmt::format("'default' of state '{}'", state.name),
                     m.KeyLocation("default"));
        state.default_transition = ReadTransition(dm, "next");
        if (!state.default_transition.present()) dm.Require("next");
        ReadTransitionMarks(dm, state.default_transition);
        dm.Finish();
      } else {
        state.default_transition = ReadTransition(m, "default");
      }
    }
  }

  Condition ReadCondition(const yaml::Node& node, const SourceLocation& at) {
    Condition c;
    c.location =
        node.IsDefined() && node.GetMark().line >= 0 ? r_.At(node) : at;
    c.location.length = 1;
    MapReader m(r_, node, "a condition", at);
    if (!m.valid()) return c;
    m.Expect({"all", "any", "not", "field", "equals", "lt", "le", "gt", "ge",
              "is_present", "is_null"});
    auto read_children = [&](const char* key, Condition::Op op) {
      c.op = op;
      const yaml::Node* list = m.Get(key);
      if (!list->IsSequence() || list->size() == 0) {
        r_.Error(
            m.ValueLocation(key), "wrong-type",
            fmt::format("'{}' must be a non-empty list of conditions", key));
        return;
      }
      for (const auto& item : *list) {
        c.children.push_back(ReadCondition(item, r_.At(item)));
      }
    };
    static const char* kCombinators[] = {"all", "any", "not"};
    int combinators = 0;
    for (const char* k : kCombinators) combinators += node[k].IsDefined();
    if (combinators > 0 && node.size() > 1) {
      r_.Error(m.location(), "wrong-type",
               "'all', 'any' and 'not' stand alone in a condition; put the "
               "other comparisons inside their list");
    }
    if (m.Get("all")) {
      read_children("all", Condition::Op::kAll);
    } else if (m.Get("any")) {
      read_children("any", Condition::Op::kAny);
    } else if (const yaml::Node* n = m.Get("not")) {
      c.op = Condition::Op::kNot;
      c.children.push_back(ReadCondition(*n, m.KeyLocation("not")));
    } else {
      if (auto s = v_.String(m, "field", true)) {
        c.field = *s;
        c.field_location = m.ValueLocation("field");
      }
      static const std::pair<const char*, Condition::Op> kOps[] = {
          {"equals", Condition::Op::kEquals},
          {"lt", Condition::Op::kLt},
          {"le", Condition::Op::kLe},
          {"gt", Condition::Op::kGt},
          {"ge", Condition::Op::kGe},
          {"is_present", Condition::Op::kIsPresent},
          {"is_null", Condition::Op::kIsNull}};
      int found = 0;
      for (const auto& [key, op] : kOps) {
        const yaml::Node* value = m.Get(key);
        if (!value) continue;
        ++found;
        c.op = op;
        if (!value->IsScalar()) {
          r_.Error(m.ValueLocation(key), "wrong-type",
                   fmt::format("'{}' must compare with a single value, got {}",
                               key, NodeKindName(*value)));
          continue;
        }
        c.value.text = value->Scalar();
        c.value.location = m.ValueLocation(key);
        if ((op == Condition::Op::kIsPresent || op == Condition::Op::kIsNull) &&
            c.value.text != "true" && c.value.text != "false") {
          r_.Error(c.value.location, "wrong-type",
                   fmt::format("'{}' must be true or false, got '{}'", key,
                               c.value.text));
        }
      }
      if (found != 1 && !c.field.empty()) {
        r_.Error(m.location(), found == 0 ? "missing-key" : "wrong-type",
                 found == 0 ? std::string("a condition needs one comparison: "
                                          "equals, lt, le, gt, ge, is_present "
                                          "or is_null")
                            : std::string("a condition has exactly one "
                                          "comparison; combine several with "
                                          "'all' or 'any'"));
      }
    }
    m.Finish();
    return c;
  }

  void ReadMap(MapReader& m, State& state) {
    if (auto s = v_.String(m, "items", true)) {
      state.items_field = *s;
      state.items_location = m.ValueLocation("items");
    }
    if (const yaml::Node* n = m.Require("item")) {
      MapReader i(r_, *n, fmt::format("'item' of state '{}'", state.name),
                  m.KeyLocation("item"));
      state.item_name = v_.String(i, "name", true).value_or("");
      if (auto s = v_.String(i, "type")) {
        Field scratch;
        ParseKind(scratch, *s, i.ValueLocation("type"));
        state.item_kind = scratch.kind;
      }
      i.Finish();
    }
    state.carry = v_.StringList(m, "carry", &state.carry_locations);
    if (auto s = v_.String(m, "concurrency", true)) {
      state.concurrency = *s;
      state.concurrency_location = m.ValueLocation("concurrency");
    }
    if (auto n = v_.Integer(m, "max_concurrency")) {
      state.max_concurrency = static_cast<int>(*n);
      state.max_concurrency_location = m.ValueLocation("max_concurrency");
    }
    state.max_items = v_.Integer(m, "max_items");
    state.max_item_bytes = v_.Integer(m, "max_item_bytes");
    if (auto s = v_.String(m, "result", true)) {
      state.result_field = *s;
      state.result_location = m.ValueLocation("result");
    }
    if (const yaml::Node* n = m.Get("item_failure")) {
      MapReader f(r_, *n,
                  fmt::format("'item_failure' of state '{}'", state.name),
                  m.KeyLocation("item_failure"));
      if (f.valid()) {
        ItemFailure failure;
        failure.location = m.KeyLocation("item_failure");
        failure.name = v_.String(f, "name").value_or("");
        std::vector<SourceLocation> locations;
        auto names = v_.StringList(f, "catch", &locations, true);
        for (size_t i = 0; i < names.size(); ++i) {
          if (auto c = ParseErrorClass(names[i])) {
            failure.classes.push_back(*c);
            failure.class_locations.push_back(locations[i]);
          } else {
            r_.Error(locations[i], "wrong-type",
                     fmt::format("'catch' lists error classes (RETRYABLE, "
                                 "TERMINAL, QUARANTINE), got '{}'",
                                 names[i]));
          }
        }
        if (auto s = v_.String(f, "next", true)) {
          failure.next = *s;
          failure.next_location = f.ValueLocation("next");
        }
        state.item_failure = std::move(failure);
      }
      f.Finish();
    }
    if (const yaml::Node* n = m.Get("data")) {
      state.item_data =
          ReadFields(*n, fmt::format("'data' of state '{}'", state.name),
                     m.KeyLocation("data"), false);
    }
    state.item_states = std::make_shared<StateGraph>();
    if (auto s = v_.String(m, "start")) {
      state.item_states->start = *s;
      state.item_states->start_location = m.ValueLocation("start");
    }
    if (const yaml::Node* n = m.Require("states")) {
      ReadStates(*n, m.KeyLocation("states"), *state.item_states);
    }
  }

  Reader& r_;
  Values v_;
  WorkflowSpec& spec_;
  const Governance* governance_;
  const EventCatalog* catalog_;
  // Set when a state's type or a transition could not be read: the graph
  // checks would only report follow-ons of the errors already given.
  bool graph_incomplete_ = false;
};

// `lifecycle: shared`: the governance's prologue states, then the spec's
// own states, then the epilogue states, each in order. A spec state named
// as a lifecycle state replaces it at the lifecycle's place (an override);
// "$begin" in a lifecycle transition becomes the spec's `begin:` state, or
// its first own state. Lifecycle states nothing reaches (from the start,
// by transitions and catches) are left out: a workflow without quarantine
// routes gets no QuarantineHandler.
// "; did you mean 'X'?" for the state of `graph` closest to `name`.
std::string SuggestState(const std::string& name, const StateGraph& graph) {
  std::vector<std::string> names;
  for (const auto& s : graph.states) names.push_back(s.name);
  std::string closest = ClosestMatch(name, names);
  return closest.empty() ? "" : fmt::format("; did you mean '{}'?", closest);
}

void MergeLifecycle(WorkflowSpec& spec, DiagnosticSink& sink) {
  const Governance* g = spec.governance.get();
  if (!g) return;  // governance-not-found was reported
  if (!g->lifecycle_prologue || !g->lifecycle_epilogue) {
    sink.Error(spec.lifecycle_location, "lifecycle-missing",
               fmt::format("lifecycle: shared, but the governance file {} "
                           "has no lifecycle (prologue and epilogue)",
                           g->file));
    return;
  }
  StateGraph& graph = spec.graph;
  const bool default_start =
      !graph.states.empty() && graph.start == graph.states.front().name &&
      graph.start_location.line == graph.states.front().location.line &&
      graph.start_location.column == graph.states.front().location.column;
  std::set<std::string> lifecycle_names;
  for (const StateGraph* part :
       {g->lifecycle_prologue.get(), g->lifecycle_epilogue.get()})
    for (const auto& s : part->states) lifecycle_names.insert(s.name);
  // The first own state: where "$begin" leads unless `begin:` says.
  std::string first_own;
  for (const auto& s : graph.states)
    if (!lifecycle_names.count(s.name)) {
      first_own = s.name;
      break;
    }
  if (first_own.empty()) {
    sink.Error(spec.lifecycle_location, "lifecycle-begin",
               "lifecycle: shared needs a state of the workflow's own to "
               "begin at (after the lifecycle's prologue)");
    return;
  }
  std::string begin = spec.begin.empty() ? first_own : spec.begin;
  if (!spec.begin.empty() && !graph.Find(spec.begin)) {
    sink.Error(spec.begin_location, "unknown-state",
               fmt::format("begin: no state '{}'{}", spec.begin,
                           SuggestState(spec.begin, graph)));
    begin = first_own;
  }
  // The spec's own states of a lifecycle name override the lifecycle's.
  std::map<std::string, State> overrides;
  std::vector<bool> overriding(graph.states.size(), false);
  for (size_t i = 0; i < graph.states.size(); ++i) {
    State& s = graph.states[i];
    if (!lifecycle_names.count(s.name)) continue;
    overriding[i] = true;
    overrides.emplace(s.name, std::move(s));
  }
  // A State is large (ReadStates): the vector gets its room first, and the
  // spec's own states move into it straight from the graph.
  std::vector<State> merged;
  merged.reserve(g->lifecycle_prologue->states.size() + graph.states.size() +
                 g->lifecycle_epilogue->states.size());
  std::set<std::string> added;  // from the lifecycle, not overridden
  auto take = [&](const StateGraph& part) {
    for (const auto& s : part.states) {
      auto o = overrides.find(s.name);
      if (o != overrides.end()) {
        merged.push_back(std::move(o->second));
        continue;
      }
      State copy = s;
      for (Transition* t : {&copy.next, &copy.default_transition}) {
        if (t->target == "$begin") t->target = begin;
      }
      for (auto& rule : copy.rules)
        if (rule.then.target == "$begin") rule.then.target = begin;
      added.insert(copy.name);
      merged.push_back(std::move(copy));
    }
  };
  take(*g->lifecycle_prologue);
  for (size_t i = 0; i < graph.states.size(); ++i)
    if (!overriding[i]) merged.push_back(std::move(graph.states[i]));
  take(*g->lifecycle_epilogue);
  graph.states = std::move(merged);
  graph.BuildIndex();
  if (default_start) {
    graph.start = graph.states.front().name;
    graph.start_location = graph.states.front().location;
  }
  // What the start reaches, by transitions and by catches.
  std::vector<bool> reached(graph.states.size(), false);
  std::vector<int> queue;
  if (int start = graph.IndexOf(graph.start); start >= 0) {
    reached[start] = true;
    queue.push_back(start);
  }
  while (!queue.empty()) {
    int at = queue.back();
    queue.pop_back();
    std::vector<int> next = Successors(graph, at);
    for (const auto& c : CatchRoutesFor(spec, graph, graph.states[at]))
      if (int to = graph.IndexOf(c.next); to >= 0) next.push_back(to);
    for (int to : next)
      if (!reached[to]) {
        reached[to] = true;
        queue.push_back(to);
      }
  }
  std::vector<State> kept;
  for (size_t i = 0; i < graph.states.size(); ++i)
    if (reached[i] || !added.count(graph.states[i].name))
      kept.push_back(std::move(graph.states[i]));
  graph.states = std::move(kept);
  graph.BuildIndex();
}

// Gives every Task without an explicit retry the governance default.
void ApplyDefaultRetry(StateGraph& graph, const Governance* governance) {
  for (auto& state : graph.states) {
    if (state.item_states) ApplyDefaultRetry(*state.item_states, governance);
    if (state.type != StateType::kTask || state.retry_explicit) continue;
    if (!governance || governance->default_retry.empty()) continue;
    if (const RetryPolicy* p =
            governance->FindPreset(governance->default_retry)) {
      state.retry = *p;
      state.retry->preset = governance->default_retry;
      state.retry->location = state.location;
      state.retry->max_attempts_location = state.location;
      state.retry->backoff_location = state.location;
    }
  }
}

// Whether `id` is lower_snake_case with no empty part ("tns",
// "ads_token"): PascalCase makes it the stack parameter's name, which
// CloudFormation wants alphanumeric.
bool IsSecretId(const std::string& id) {
  if (id.empty() || id.size() > 64 || id[0] < 'a' || id[0] > 'z' ||
      id.back() == '_')
    return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (c == '_' ? id[i - 1] == '_'
                 : !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
      return false;
  }
  return true;
}

// Whether `variable` is NOVACAT_<NAME>_SECRET, NAME of A-Z, 0-9 and _:
// the names the sources library reads (sources/archives.h), apart from
// every other variable of the function.
bool IsSecretVariable(const std::string& variable) {
  constexpr std::string_view kPrefix = "NOVACAT_";
  constexpr std::string_view kSuffix = "_SECRET";
  if (variable.size() <= kPrefix.size() + kSuffix.size() ||
      variable.compare(0, kPrefix.size(), kPrefix) != 0 ||
      variable.compare(variable.size() - kSuffix.size(), kSuffix.size(),
                       kSuffix) != 0)
    return false;
  return std::all_of(variable.begin(), variable.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// The governance's `secrets:`: id → {variable, description}, both
// required. Two secrets may share neither a variable (a function would get
// one of the two ARNs) nor a stack parameter (ids PascalCase makes the same).
void ReadSecrets(Reader& r, const yaml::Node& node, const SourceLocation& at,
                 Governance& g) {
  Values v(r);
  MapReader all(r, node, "'secrets'", at);
  all.AcceptAllKeys();
  for (const auto& [id, value] : all.Entries()) {
    SecretDef secret;
    secret.id = id;
    secret.location = all.KeyLocation(id);
    MapReader d(r, *value, fmt::format("secret '{}'", id), secret.location);
    if (!d.valid()) continue;
    const std::optional<std::string> variable = v.String(d, "variable", true);
    if (variable) {
      secret.variable = *variable;
      secret.variable_location = d.ValueLocation("variable");
    }
    secret.description = v.String(d, "description", true).value_or("");
    d.Finish();
    if (!IsSecretId(id)) {
      std::string shown = id.size() > 40 ? id.substr(0, 40) + "..." : id;
      r.Error(secret.location, "invalid-name",
              fmt::format("secret id '{}' must be lower_snake_case (a-z, 0-9, "
                          "single _ between parts; starting with a letter) "
                          "and at most 64 characters; it names the stack "
                          "parameter <Id>SecretArn",
                          shown));
    } else {
      for (const auto& other : g.secrets) {
        if (PascalCase(other.id) != PascalCase(id)) continue;
        r.Error(secret.location, "invalid-name",
                fmt::format("secret id '{}' makes the stack parameter {}"
                            "SecretArn, as '{}' (line {}) does; rename one",
                            id, PascalCase(id), other.id, other.location.line));
        break;
      }
    }
    if (variable && !IsSecretVariable(*variable)) {
      r.Error(secret.variable_location, "secret-variable",
              fmt::format("secret '{}': variable '{}' must be "
                          "NOVACAT_<NAME>_SECRET (A-Z, 0-9, _)",
                          id, secret.variable));
    } else if (variable) {
      for (const auto& other : g.secrets) {
        if (other.variable != secret.variable) continue;
        r.Error(
            secret.variable_location, "secret-variable",
            fmt::format("secret '{}': secret '{}' (line {}) has variable "
                        "{} already; each secret needs its own",
                        id, other.id, other.location.line, secret.variable));
        break;
      }
    }
    g.secrets.push_back(std::move(secret));
  }
}

void ReadGovernance(Reader& r, const yaml::Node& root, Governance& g) {
  Values v(r);
  SourceLocation file_start{r.file(), 1, 1, 1};
  MapReader m(r, root, "the governance file", file_start);
  if (!m.valid()) return;
  g.name = v.String(m, "governance", true).value_or("");
  if (const yaml::Node* n = m.Require("error_classes")) {
    MapReader classes(r, *n, "'error_classes'", m.KeyLocation("error_classes"));
    for (ErrorClass c : {ErrorClass::kRetryable, ErrorClass::kTerminal,
                         ErrorClass::kQuarantine}) {
      const char* name = ErrorClassName(c);
      const yaml::Node* def = classes.Require(name);
      if (!def) continue;
      MapReader d(r, *def, fmt::format("error class {}", name),
                  classes.KeyLocation(name));
      ErrorClassDef cls;
      cls.error_class = c;
      cls.location = classes.KeyLocation(name);
      cls.error_name = v.String(d, "error", true).value_or("");
      cls.description = v.String(d, "description").value_or("");
      cls.examples = v.StringList(d, "examples", nullptr);
      if (c == ErrorClass::kRetryable) {
        cls.also_retry = v.StringList(d, "also_retry", nullptr);
      }
      d.Finish();
      g.error_classes.push_back(std::move(cls));
    }
    classes.Finish();
  }
  if (const yaml::Node* n = m.Require("retry_presets")) {
    MapReader presets(r, *n, "'retry_presets'", m.KeyLocation("retry_presets"));
    presets.AcceptAllKeys();
    for (const auto& [name, value] : presets.Entries()) {
      MapReader p(r, *value, fmt::format("retry preset '{}'", name),
                  presets.KeyLocation(name));
      if (!p.valid()) continue;
      RetryPolicy policy;
      policy.preset = name;
      policy.location = presets.KeyLocation(name);
      policy.timeout_seconds = v.Duration(p, "timeout");
      policy.max_attempts =
          static_cast<int>(v.Integer(p, "max_attempts", true).value_or(0));
      policy.max_attempts_location = p.ValueLocation("max_attempts");
      policy.backoff_location = p.ValueLocation("backoff");
      if (const yaml::Node* b = p.Require("backoff")) {
        if (b->IsSequence()) {
          for (const auto& item : *b) {
            auto seconds =
                item.IsScalar() ? ParseDuration(item.Scalar()) : std::nullopt;
            if (seconds) {
              policy.backoff_seconds.push_back(*seconds);
            } else {
              r.Error(r.At(item), "wrong-type",
                      "backoff entries must be durations such as 2s or 1m");
            }
          }
        } else {
          r.Error(policy.backoff_location, "wrong-type",
                  "'backoff' must be a list of durations");
        }
      }
      policy.note = v.String(p, "note").value_or("");
      p.Finish();
      g.retry_presets.emplace_back(name, std::move(policy));
    }
  }
  g.default_retry = v.String(m, "default_retry").value_or("");
  g.default_retry_location = m.ValueLocation("default_retry");
  if (auto n = v.Integer(m, "max_attempts_limit")) {
    g.max_attempts_limit = static_cast<int>(*n);
  }
  if (auto share = v.Number(m, "retry_budget_share")) {
    if (*share <= 0 || *share > 1) {
      r.Error(m.ValueLocation("retry_budget_share"), "wrong-type",
              "retry_budget_share must be above 0 and at most 1");
    } else {
      g.retry_budget_share = *share;
    }
  }
  if (const yaml::Node* n = m.Get("map_concurrency")) {
    MapReader limits(r, *n, "'map_concurrency'",
                     m.KeyLocation("map_concurrency"));
    limits.AcceptAllKeys();
    for (const auto& [name, value] : limits.Entries()) {
      MapReader l(r, *value, fmt::format("concurrency class '{}'", name),
                  limits.KeyLocation(name));
      if (!l.valid()) continue;
      ConcurrencyLimit limit;
      limit.name = name;
      limit.location = limits.KeyLocation(name);
      limit.max = static_cast<int>(v.Integer(l, "max", true).value_or(1));
      limit.description = v.String(l, "description").value_or("");
      l.Finish();
      g.map_concurrency.push_back(std::move(limit));
    }
  }
  if (const yaml::Node* n = m.Get("correlation_id")) {
    MapReader c(r, *n, "'correlation_id'", m.KeyLocation("correlation_id"));
    g.correlation_field = v.String(c, "field").value_or("correlation_id");
    v.String(c, "format");
    c.Finish();
  }
  m.Get("lifecycle");  // read by SpecLoader::LoadGovernance (its states)
  g.internal_fields = v.StringList(m, "internal_fields", nullptr);
  if (const yaml::Node* n = m.Get("log_fields")) {
    MapReader l(r, *n, "'log_fields'", m.KeyLocation("log_fields"));
    g.log_required = v.StringList(l, "required", nullptr);
    g.log_when_known = v.StringList(l, "when_known", nullptr);
    l.Finish();
  }
  if (const yaml::Node* n = m.Get("access_patterns")) {
    MapReader a(r, *n, "'access_patterns'", m.KeyLocation("access_patterns"));
    a.AcceptAllKeys();
    for (const auto& [id, value] : a.Entries()) {
      g.access_patterns.emplace_back(
          id, v.String(*value, fmt::format("access pattern '{}'", id),
                       a.KeyLocation(id))
                  .value_or(""));
    }
  }
  if (const yaml::Node* n = m.Get("secrets"))
    ReadSecrets(r, *n, m.KeyLocation("secrets"), g);
  if (!g.default_retry.empty() && !g.FindPreset(g.default_retry)) {
    r.Error(g.default_retry_location, "unknown-preset",
            fmt::format("default_retry names unknown preset '{}'",
                        g.default_retry));
  }
  m.Finish();
}

// The offset of the first byte that is not part of valid UTF-8, or npos.
// ASCII goes 8 bytes at a time: specs are mostly ASCII.
size_t FirstInvalidUtf8Byte(std::string_view text) {
  size_t i = 0;
  while ((i = byte_scan::SkipAscii(text, i)) < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t length = c < 0x80           ? 1
                    : (c >> 5) == 0x6  ? 2
                    : (c >> 4) == 0xE  ? 3
                    : (c >> 3) == 0x1E ? 4
                                       : 0;
    if (length == 0 || i + length > text.size()) return i;
    unsigned cp = length == 1 ? c : c & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) {
      unsigned char d = static_cast<unsigned char>(text[i + k]);
      if ((d >> 6) != 0x2) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and values beyond U+10FFFF are invalid.
    static const unsigned kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[length] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return i;
    i += length;
  }
  return std::string_view::npos;
}

// The line and column (in characters) of the first byte that is not part
// of valid UTF-8, or nullopt. Generated JSON must be UTF-8, so specs must
// be too.
std::optional<std::pair<int, int>> FirstInvalidUtf8(std::string_view text) {
  const size_t at = FirstInvalidUtf8Byte(text);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view before = text.substr(0, at);
  const size_t line_start = before.rfind('\n') + 1;  // 0 when there is none
  int line =
      1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  // Every character before `at` is valid: one per byte but continuations.
  int column = 1;
  for (size_t i = line_start; i < at; ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  return std::make_pair(line, column);
}

// The YAML document of `text` (read from `path`), or nullopt when a problem
// stops it, reported into `sink`.
std::optional<yaml::Document> ParseYaml(DiagnosticSink& sink,
                                        const std::string& path,
                                        const std::string& text) {
  if (auto at = FirstInvalidUtf8(text)) {
    sink.Error(SourceLocation{path, at->first, at->second, 1}, "encoding",
               "the file is not valid UTF-8 here; specs must be UTF-8");
    return std::nullopt;
  }
  yaml::Document document = yaml::Document::Parse(text);
  if (const yaml::SyntaxError* e = document.error()) {
    SourceLocation at{path, e->mark.line + 1, e->mark.column + 1, 1};
    if (e->mark.line < 0) at.line = 0;
    if (e->too_large)
      sink.Error(at, "yaml-size",
                 fmt::format("this entry makes the document larger than {} "
                             "YAML nodes once its aliases are expanded (each "
                             "alias copies what it names); a spec is far "
                             "smaller: is an alias repeated by mistake?",
                             yaml::Document::kMaxNodes));
    else
      sink.Error(at, "yaml-syntax",
                 fmt::format("YAML syntax error: {}", e->message));
    return std::nullopt;
  }
  return document;
}

}  // namespace

SpecLoader::SpecLoader(DiagnosticSink& sink, FileReader read_file)
    : sink_(sink), read_file_(std::move(read_file)) {}

std::unique_ptr<WorkflowSpec> SpecLoader::LoadFile(const std::string& path) {
  const std::optional<std::string> text = read_file_(path);
  if (!text) {
    sink_.Error(SourceLocation{path, 0, 0, 1}, "file-not-found",
                "cannot read the spec file");
    return nullptr;
  }
  sink_.AddSource(path, *text);
  const std::optional<yaml::Document> document = ParseYaml(sink_, path, *text);
  if (!document) return nullptr;
  const yaml::Node root = document->root();
  auto spec = std::make_unique<WorkflowSpec>();
  spec->file = path;
  Reader reader(sink_, path);
  // The governance comes first: retry presets resolve against it.
  if (root.IsMap()) {
    const yaml::Node reference = root["governance"];
    if (reference.IsDefined() && reference.IsScalar()) {
      std::filesystem::path resolved =
          (std::filesystem::path(path).parent_path() / reference.Scalar())
              .lexically_normal();
      spec->governance =
          LoadGovernance(resolved.generic_string(), reader.At(reference));
    }
  }
  if (root.IsMap()) {
    const yaml::Node reference = root["event_catalog"];
    if (reference.IsDefined() && reference.IsScalar()) {
      std::filesystem::path resolved =
          (std::filesystem::path(path).parent_path() / reference.Scalar())
              .lexically_normal();
      spec->event_catalog =
          LoadEventCatalog(resolved.generic_string(), reader.At(reference));
    }
  }
  WorkflowReader workflow_reader(reader, *spec, spec->governance.get(),
                                 spec->event_catalog.get());
  workflow_reader.Read(root);
  // A wrong `lifecycle` value was reported; merging anyway spares the
  // follow-on errors of a spec without its lifecycle states.
  if (!spec->lifecycle.empty()) MergeLifecycle(*spec, sink_);
  ApplyDefaultRetry(spec->graph, spec->governance.get());
  return spec;
}

std::shared_ptr<const Governance> SpecLoader::LoadGovernance(
    const std::string& path, const SourceLocation& referenced_at) {
  auto cached = governance_cache_.find(path);
  if (cached != governance_cache_.end()) return cached->second;
  std::shared_ptr<Governance> governance;
  std::optional<std::string> text = read_file_(path);
  if (!text) {
    sink_.Error(referenced_at, "governance-not-found",
                fmt::format("cannot read governance file '{}'", path));
  } else {
    sink_.AddSource(path, *text);
    if (std::optional<yaml::Document> document =
            ParseYaml(sink_, path, *text)) {
      const yaml::Node root = document->root();
      governance = std::make_shared<Governance>();
      governance->file = path;
      Reader reader(sink_, path);
      ReadGovernance(reader, root, *governance);
      if (root.IsMap() && root["lifecycle"].IsDefined()) {
        const yaml::Node node = root["lifecycle"];
        WorkflowSpec scratch;
        WorkflowReader(reader, scratch, governance.get())
            .ReadLifecycle(node, reader.At(node), *governance);
      }
    }
  }
  governance_cache_[path] = governance;
  return governance;
}

std::shared_ptr<const EventCatalog> SpecLoader::LoadEventCatalog(
    const std::string& path, const SourceLocation& referenced_at) {
  auto cached = catalog_cache_.find(path);
  if (cached != catalog_cache_.end()) return cached->second;
  std::shared_ptr<EventCatalog> catalog;
  std::optional<std::string> text = read_file_(path);
  if (!text) {
    sink_.Error(referenced_at, "event-catalog-not-found",
                fmt::format("cannot read event catalog '{}'", path));
  } else {
    sink_.AddSource(path, *text);
    if (std::optional<yaml::Document> document =
            ParseYaml(sink_, path, *text)) {
      catalog = std::make_shared<EventCatalog>();
      catalog->file = path;
      Reader reader(sink_, path);
      WorkflowSpec scratch;  // the catalog's events default to version 1
      WorkflowReader(reader, scratch, nullptr)
          .ReadCatalog(document->root(), *catalog);
    }
  }
  catalog_cache_[path] = catalog;
  return catalog;
}

}  // namespace novacat
