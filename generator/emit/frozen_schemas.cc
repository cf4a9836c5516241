#include "emit/frozen_schemas.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "emit/schema_emitter.h"

namespace novacat {

namespace {

// One difference between the frozen schema and the one the spec now gives.
struct Change {
  SourceLocation at;
  std::string what;
};

bool Required(const nlohmann::json& schema, const std::string& field) {
  for (const auto& r : schema.value("required", nlohmann::json::array()))
    if (r == field) return true;
  return false;
}

bool RejectsUnknown(const nlohmann::json& schema) {
  return schema.value("additionalProperties", true) == false;
}

// A property schema without what does not constrain a value.
nlohmann::json Constraints(nlohmann::json schema) {
  if (schema.is_object()) {
    schema.erase("description");
    schema.erase("default");
  }
  return schema;
}

std::string Values(const std::vector<nlohmann::json>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + v.dump();
  return out;
}

// What changing a property from `was` to `now` does to version N.
std::string PropertyChange(const nlohmann::json& was,
                           const nlohmann::json& now) {
  nlohmann::json a = Constraints(was), b = Constraints(now);
  if (a == b) return "changed its description or default: compatible";
  // Only the enum differs: narrowed, widened, or both.
  nlohmann::json a_rest = a, b_rest = b;
  a_rest.erase("enum");
  b_rest.erase("enum");
  if (a_rest == b_rest && a.contains("enum") && b.contains("enum")) {
    std::vector<nlohmann::json> removed, added;
    for (const auto& v : a["enum"])
      if (std::find(b["enum"].begin(), b["enum"].end(), v) == b["enum"].end())
        removed.push_back(v);
    for (const auto& v : b["enum"])
      if (std::find(a["enum"].begin(), a["enum"].end(), v) == a["enum"].end())
        added.push_back(v);
    std::string out;
    if (!removed.empty())
      out += fmt::format(
          "no longer allows {}: breaking for producers (their events may "
          "carry it)",
          Values(removed));
    if (!added.empty())
      out += fmt::format(
          "{}now allows {}: breaking for consumers (they do not expect it)",
          out.empty() ? "" : "; and ", Values(added));
    return out;
  }
  // Only a bound differs: tightened or loosened.
  for (const char* bound : {"minLength", "minimum"}) {
    nlohmann::json a_other = a, b_other = b;
    a_other.erase(bound);
    b_other.erase(bound);
    if (a_other != b_other) continue;
    const nlohmann::json none;
    const nlohmann::json& old_bound = a.contains(bound) ? a[bound] : none;
    const nlohmann::json& new_bound = b.contains(bound) ? b[bound] : none;
    bool tighter = new_bound.is_number() &&
                   (!old_bound.is_number() ||
                    new_bound.get<double>() > old_bound.get<double>());
    return fmt::format(
        "changed its {} from {} to {}: {}", bound,
        old_bound.is_null() ? "none" : old_bound.dump(),
        new_bound.is_null() ? "none" : new_bound.dump(),
        tighter ? "breaking for producers (their events may fall below it)"
                : "breaking for consumers (they may rely on the old bound)");
  }
  return fmt::format(
      "was retyped from {} to {}: breaking for producers and consumers",
      a.dump(), b.dump());
}

// Every difference between `frozen` and `now`, in the order of the spec's
// fields, then the removed ones, then the event's own properties.
std::vector<Change> Differences(const nlohmann::json& frozen,
                                const nlohmann::json& now,
                                const EventDef& event) {
  std::vector<Change> changes;
  const nlohmann::json& was =
      frozen.value("properties", nlohmann::json::object());
  const nlohmann::json& is = now.value("properties", nlohmann::json::object());
  const bool was_closed = RejectsUnknown(frozen);
  const bool is_closed = RejectsUnknown(now);
  auto field_at = [&](const std::string& name) {
    for (const auto& f : event.fields)
      if (f.name == name) return f.location;
    return event.location;
  };
  for (const auto& [name, schema] : is.items()) {
    const SourceLocation at = field_at(name);
    const std::string field = fmt::format("field '{}' ", name);
    if (!was.contains(name)) {
      if (Required(now, name))
        changes.push_back({at, field + "was added as required: breaking for "
                                       "producers (their events lack it)"});
      else if (was_closed)
        changes.push_back(
            {at, field + "was added: breaking for consumers (the version "
                         "rejects unknown properties, so they refuse events "
                         "that carry it)"});
      else
        changes.push_back({at, field + "was added as optional: compatible"});
      continue;
    }
    const bool was_required = Required(frozen, name);
    const bool is_required = Required(now, name);
    if (was_required && !is_required)
      changes.push_back({at, field + "became optional: breaking for consumers "
                                     "(they rely on it)"});
    if (!was_required && is_required)
      changes.push_back({at, field + "became required: breaking for producers "
                                     "(their events may lack it)"});
    if (was[name] != schema)
      changes.push_back({at, field + PropertyChange(was[name], schema)});
  }
  for (const auto& [name, schema] : was.items()) {
    if (is.contains(name)) continue;
    const std::string field = fmt::format("field '{}' ", name);
    if (Required(frozen, name))
      changes.push_back(
          {event.location, field + "was removed: breaking for consumers (they "
                                   "require it)"});
    else if (is_closed)
      changes.push_back(
          {event.location,
           field +
               "was removed: breaking for producers (their events may carry "
               "it, which the version would now reject)"});
    else
      changes.push_back({event.location,
                         field + "was removed: compatible (it was optional)"});
  }
  if (was_closed && !is_closed)
    changes.push_back({event.location,
                       "unknown properties are now allowed: breaking for "
                       "consumers (they refuse events that carry any)"});
  if (!was_closed && is_closed)
    changes.push_back({event.location,
                       "unknown properties are now rejected: breaking for "
                       "producers (their events may carry some)"});
  if (changes.empty())
    changes.push_back(
        {event.location, "its description or layout changed: compatible"});
  return changes;
}

}  // namespace

void CheckFrozenSchemas(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                        const FileSet& files, const std::string& out_dir,
                        const FileReader& read_file, DiagnosticSink& sink) {
  std::set<std::string> seen;
  for (const auto& spec : specs) {
    for (const auto& event : spec->events) {
      const std::string path = EventSchemaPath(event, event.schema_version);
      if (!seen.insert(path).second) continue;
      auto generated = files.files().find(path);
      if (generated == files.files().end()) continue;
      const std::string on_disk_path = out_dir + "/" + path;
      std::optional<std::string> frozen = read_file(on_disk_path);
      if (!frozen || *frozen == generated->second.content) continue;
      nlohmann::json was = nlohmann::json::parse(*frozen, nullptr, false);
      nlohmann::json now = nlohmann::json::parse(generated->second.content);
      std::vector<Change> changes =
          was.is_discarded()
              ? std::vector<Change>{{event.location,
                                     "the frozen file is not JSON"}}
              : Differences(was, now, event);
      for (const auto& c : changes)
        sink.Error(c.at, "schema-frozen",
                   fmt::format("event '{}' version {} is frozen ({}): {}; "
                               "bump its schema_version to {} (the event's "
                               "or the workflow's) to change it",
                               event.name, event.schema_version, on_disk_path,
                               c.what, event.schema_version + 1));
    }
  }
}

}  // namespace novacat
