#include "emit/cpp_emitter.h"

#include <fmt/format.h>

#include <kainjow/mustache.hpp>
#include <set>

#include "check/backoff.h"
#include "check/limits.h"
#include "emit/asl_emitter.h"
#include "emit/templates.h"
#include "model/routes.h"
#include "support/byte_scan.h"

namespace novacat {

namespace mustache = kainjow::mustache;

std::string CppStringLiteral(const std::string& text) {
  std::string out;
  AppendCppStringLiteral(out, text);
  return out;
}

void AppendCppStringLiteral(std::string& out, std::string_view text) {
  // Runs of characters that stand for themselves are appended whole: the
  // definitions the bindings embed are mostly such runs. They are found 8
  // bytes at a time (byte_scan.h).
  auto plain = [](unsigned char c) {
    return c >= 0x20 && c != 0x7F && c != '"' && c != '\\' && c != '?';
  };
  auto not_plain_bytes = [](uint64_t word) {
    using namespace byte_scan;
    return Below(word, 0x20) | Equal(word, 0x7F) | Equal(word, '"') |
           Equal(word, '\\') | Equal(word, '?');
  };
  size_t run = 0;  // the first character of text not yet appended
  for (size_t i = 0; (i = byte_scan::SkipPlain(text, i, not_plain_bytes,
                                               plain)) < text.size();
       ++i) {
    const unsigned char c = text[i];
    out.append(text.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '?':
        // "??x" would be a trigraph in older dialects (and a -Wtrigraphs
        // warning in C++20): escape every '?' that follows one.
        out += i > 0 && text[i - 1] == '?' ? "\\?" : "?";
        break;
      default:
        // Octal escapes are at most three digits: nothing after can extend
        // them, unlike \x.
        out += fmt::format("\\{:03o}", c);
    }
  }
  out.append(text.data() + run, text.size() - run);
}

void AppendCppRawStringLiteral(std::string& out, std::string_view text) {
  std::string delimiter = "json";
  for (int n = 1; text.find(")" + delimiter + "\"") != std::string_view::npos;
       ++n)
    delimiter = "json" + std::to_string(n);
  out.reserve(out.size() + text.size() + 2 * delimiter.size() + 5);
  out += "R\"";
  out += delimiter;
  out += '(';
  out.append(text);
  out += ')';
  out += delimiter;
  out += '"';
}

std::string CppComment(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    out += (c < 0x20 || c == 0x7F) ? ' ' : static_cast<char>(c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  // A backslash at the end of a // comment would splice the next line in.
  if (!out.empty() && out.back() == '\\') out += '.';
  return out;
}

namespace {

// The templates EmitCpp renders.
constexpr char kHeaderTemplate[] = "workflow.hpp.mustache";
constexpr char kSourceTemplate[] = "workflow.cpp.mustache";
constexpr char kStepsHeaderTemplate[] = "steps.hpp.mustache";
constexpr char kStepsSourceTemplate[] = "steps.cpp.mustache";

std::string Pascal(const std::string& name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper
               ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
               : c;
    upper = false;
  }
  return out;
}

struct Member {
  std::string type;
  std::string name;
  std::string comment;
};

struct Record {
  std::string name;
  std::vector<std::string> comment;
  std::vector<Member> members;
  std::string parse;
  std::string serialize;
};

// Builds the records of one workflow; nested object types come first.
class RecordBuilder {
 public:
  explicit RecordBuilder(std::vector<Record>& records) : records_(records) {}

  struct Options {
    bool all_optional = false;  // state, item and output documents
    bool allow_unknown = true;  // unknown properties accepted
    int schema_version = 0;     // events: > 0
  };

  void Add(const std::string& name, std::vector<std::string> comment,
           const std::vector<Field>& fields, const Options& options) {
    Record record;
    record.name = name;
    record.comment = std::move(comment);
    std::string known;
    for (const auto& f : fields) {
      const bool optional = options.all_optional || !f.required || f.nullable;
      // A nullable field that may also be absent needs both: the outer
      // optional says whether it is there, the inner one holds null
      // (nullopt) or the value. A required nullable field of an event is
      // always there: one optional is null or the value.
      const bool maybe_null =
          f.nullable && (options.all_optional || !f.required);
      std::string type = ElementType(f, name, options.allow_unknown);
      std::string member = type;
      if (maybe_null)
        member = "std::optional<std::optional<" + type + ">>";
      else if (optional)
        member = "std::optional<" + type + ">";
      record.members.push_back({member, f.name, CppComment(f.description)});
      record.parse += ParseMember(f, optional && !maybe_null, name, options);
      if (maybe_null)
        record.parse += fmt::format(
            "  if (reader.IsNull(\"{0}\")) value.{0}.emplace();\n", f.name);
      if (!optional) {
        record.serialize +=
            fmt::format("  json[\"{0}\"] = runtime::Encode({0});\n", f.name);
      } else if (f.required && f.nullable && !options.all_optional) {
        record.serialize +=
            fmt::format("  json[\"{0}\"] = runtime::Encode({0});\n", f.name);
      } else {
        record.serialize += fmt::format(
            "  if ({0}) json[\"{0}\"] = runtime::Encode(*{0});\n", f.name);
      }
      known += fmt::format("\"{}\", ", f.name);
    }
    if (options.schema_version > 0) {
      record.parse +=
          fmt::format("  reader.SchemaVersion({});\n", options.schema_version);
      record.serialize += fmt::format("  json[\"schema_version\"] = {};\n",
                                      options.schema_version);
      known += "\"schema_version\", ";
    }
    if (!options.allow_unknown) {
      if (known.size() >= 2) known.resize(known.size() - 2);
      record.parse += fmt::format("  reader.RejectUnknown({{{}}});\n", known);
    }
    if (!record.parse.empty() && record.parse.back() == '\n')
      record.parse.pop_back();
    if (!record.serialize.empty() && record.serialize.back() == '\n')
      record.serialize.pop_back();
    records_.push_back(std::move(record));
  }

 private:
  static std::string RulesLiteral(const Field& f, bool required) {
    std::string out = "runtime::Rules{}";
    if (required) out += ".Required()";
    if (f.nullable) out += ".Nullable()";
    if (f.min_length) out += fmt::format(".MinLength({})", *f.min_length);
    if (f.min_items) out += fmt::format(".MinItems({})", *f.min_items);
    if (f.minimum) out += fmt::format(".Minimum({})", *f.minimum);
    if (!f.enum_values.empty()) {
      std::string values;
      for (const auto& v : f.enum_values)
        values += (values.empty() ? "\"" : ", \"") + CppStringLiteral(v) + "\"";
      out += ".OneOf({" + values + "})";
    }
    return out;
  }

  // The C++ type of one value of `f` (not wrapped in optional); creates the
  // records of nested objects.
  std::string ElementType(const Field& f, const std::string& owner,
                          bool allow_unknown) {
    switch (f.kind) {
      case FieldKind::kString:
      case FieldKind::kUuid:
      case FieldKind::kDate:
      case FieldKind::kDateTime:
        return "std::string";
      case FieldKind::kInteger:
        return "int64_t";
      case FieldKind::kNumber:
        return "double";
      case FieldKind::kBoolean:
        return "bool";
      case FieldKind::kArray:
        return "std::vector<" +
               (f.items ? ElementType(*f.items, owner, allow_unknown)
                        : std::string("nlohmann::json")) +
               ">";
      case FieldKind::kObject: {
        if (f.fields.empty()) return "nlohmann::json";
        // Array elements are named "<array>[]" by the loader.
        std::string name = owner + Pascal(f.name);
        while (name.size() > 2 && name.substr(name.size() - 2) == "[]")
          name = name.substr(0, name.size() - 2) + "Item";
        if (!defined_.insert(name).second) return name;
        Options nested;
        nested.allow_unknown = allow_unknown;
        Add(name, {CppComment(f.description)}, f.fields, nested);
        return name;
      }
    }
    return "std::string";
  }

  static const char* ReaderMethod(FieldKind k) {
    switch (k) {
      case FieldKind::kUuid:
        return "Uuid";
      case FieldKind::kDate:
        return "Date";
      case FieldKind::kDateTime:
        return "DateTime";
      case FieldKind::kInteger:
        return "Integer";
      case FieldKind::kNumber:
        return "Number";
      case FieldKind::kBoolean:
        return "Boolean";
      default:
        return "String";
    }
  }

  // Code reading one array element `json` at `path` into vector `target`.
  std::string ElementCode(const Field& f, const std::string& json,
                          const std::string& path, const std::string& target,
                          const std::string& owner, bool allow_unknown,
                          int depth) {
    const std::string pad(2 * (depth + 2), ' ');
    switch (f.kind) {
      case FieldKind::kString:
        return fmt::format(
            "{0}if (auto v = runtime::ReadString({1}, {2}, {3}, errors))\n"
            "{0}  {4}.push_back(std::move(*v));\n",
            pad, json, path, RulesLiteral(f, false), target);
      case FieldKind::kUuid:
        return fmt::format(
            "{0}if (auto v = runtime::ReadUuid({1}, {2}, errors))\n"
            "{0}  {3}.push_back(std::move(*v));\n",
            pad, json, path, target);
      case FieldKind::kInteger:
      case FieldKind::kNumber:
        return fmt::format(
            "{0}if (auto v = runtime::Read{5}({1}, {2}, {3}, errors))\n"
            "{0}  {4}.push_back(*v);\n",
            pad, json, path, RulesLiteral(f, false), target,
            f.kind == FieldKind::kInteger ? "Integer" : "Number");
      case FieldKind::kBoolean:
        return fmt::format(
            "{0}if (auto v = runtime::ReadBoolean({1}, {2}, errors))\n"
            "{0}  {3}.push_back(*v);\n",
            pad, json, path, target);
      case FieldKind::kDate:
      case FieldKind::kDateTime: {
        const char* check =
            f.kind == FieldKind::kDate ? "IsDate" : "IsDateTime";
        return fmt::format(
            "{0}if ({1}.is_string() && runtime::{4}({1}.get_ref<const "
            "std::string&>()))\n"
            "{0}  {3}.push_back({1}.get<std::string>());\n"
            "{0}else\n"
            "{0}  errors.push_back({{{2}, \"must be a {5}\"}});\n",
            pad, json, path, target, check,
            f.kind == FieldKind::kDate ? "date (YYYY-MM-DD)"
                                       : "RFC 3339 date-time");
      }
      case FieldKind::kObject: {
        if (f.fields.empty()) {
          return fmt::format(
              "{0}if ({1}.is_object())\n"
              "{0}  {3}.push_back({1});\n"
              "{0}else\n"
              "{0}  errors.push_back({{{2}, \"must be an object\"}});\n",
              pad, json, path, target);
        }
        std::string type = ElementType(f, owner, allow_unknown);
        return fmt::format(
            "{0}{{\n"
            "{0}  auto parsed = {1}::FromJson({2}, {3});\n"
            "{0}  errors.insert(errors.end(), parsed.errors.begin(), "
            "parsed.errors.end());\n"
            "{0}  if (parsed.value) {4}.push_back(std::move(*parsed.value));\n"
            "{0}}}\n",
            pad, type, json, path, target);
      }
      case FieldKind::kArray: {
        const std::string a = fmt::format("a{}", depth),
                          i = fmt::format("i{}", depth),
                          p = fmt::format("p{}", depth),
                          items = fmt::format("items{}", depth);
        std::string type = ElementType(f, owner, allow_unknown);
        std::string inner =
            f.items ? ElementCode(*f.items, fmt::format("{}[{}]", a, i), p,
                                  items, owner, allow_unknown, depth + 2)
                    : std::string();
        return fmt::format(
            "{0}if ({1}.is_array()) {{\n"
            "{0}  const nlohmann::json& {4} = {1};\n"
            "{0}  {5} {6};\n"
            "{0}  for (size_t {7} = 0; {7} < {4}.size(); ++{7}) {{\n"
            "{0}    const std::string {8} = {2} + \"[\" + std::to_string({7}) "
            "+ \"]\";\n"
            "{9}"
            "{0}  }}\n"
            "{0}  {3}.push_back(std::move({6}));\n"
            "{0}}} else {{\n"
            "{0}  errors.push_back({{{2}, \"must be an array\"}});\n"
            "{0}}}\n",
            pad, json, path, target, a, type, items, i, p, inner);
      }
    }
    return "";
  }

  std::string ParseMember(const Field& f, bool optional,
                          const std::string& owner, const Options& options) {
    const bool required = f.required && !options.all_optional;
    const std::string rules = RulesLiteral(f, required);
    switch (f.kind) {
      case FieldKind::kArray: {
        std::string type = ElementType(f, owner, options.allow_unknown);
        std::string inner = f.items
                                ? ElementCode(*f.items, "(*a)[i]", "p", "items",
                                              owner, options.allow_unknown, 1)
                                : std::string();
        return fmt::format(
            "  if (const nlohmann::json* a = reader.Array(\"{0}\", {1})) {{\n"
            "    {2} items;\n"
            "    for (size_t i = 0; i < a->size(); ++i) {{\n"
            "      const std::string p = reader.Path(\"{0}\") + \"[\" + "
            "std::to_string(i) + \"]\";\n"
            "{3}"
            "    }}\n"
            "    value.{0} = std::move(items);\n"
            "  }}\n",
            f.name, rules, type, inner);
      }
      case FieldKind::kObject: {
        std::string type = ElementType(f, owner, options.allow_unknown);
        if (f.fields.empty()) {
          return fmt::format(
              "  if (const nlohmann::json* o = reader.Object(\"{0}\", {1}))\n"
              "    value.{0} = *o;\n",
              f.name, rules);
        }
        return fmt::format(
            "  if (const nlohmann::json* o = reader.Object(\"{0}\", {1})) {{\n"
            "    auto p = {2}::FromJson(*o, reader.Path(\"{0}\"));\n"
            "    errors.insert(errors.end(), p.errors.begin(), "
            "p.errors.end());\n"
            "    if (p.value) value.{0} = std::move(*p.value);\n"
            "  }}\n",
            f.name, rules, type);
      }
      default:
        if (optional) {
          return fmt::format("  value.{0} = reader.{1}(\"{0}\", {2});\n",
                             f.name, ReaderMethod(f.kind), rules);
        }
        return fmt::format(
            "  if (auto v = reader.{1}(\"{0}\", {2})) value.{0} = "
            "std::move(*v);\n",
            f.name, ReaderMethod(f.kind), rules);
    }
  }

  std::vector<Record>& records_;
  std::set<std::string> defined_;
};

// A field declaration for runtime members of state and item documents.
Field RuntimeMember(const std::string& name, FieldKind kind,
                    const std::string& description) {
  Field f;
  f.name = name;
  f.kind = kind;
  f.description = description;
  return f;
}

class CppBuilder {
 public:
  // `asl`: EmitAsl(spec), which the binding embeds.
  CppBuilder(const WorkflowSpec& spec, const std::string& asl,
             Scaffolds scaffolds)
      : spec_(spec), asl_(asl), scaffolds_(scaffolds) {}

  CppFiles Build() {
    std::vector<Record> records;
    RecordBuilder builder(records);
    const std::string pascal = spec_.PascalName();
    // Events.
    mustache::data events{mustache::data::type::list};
    for (const auto& e : spec_.events) {
      RecordBuilder::Options options;
      options.allow_unknown = e.allow_unknown_properties;
      options.schema_version = e.schema_version;
      std::string name = Pascal(e.name) + "Event";
      builder.Add(
          name,
          {fmt::format("Event {} (schema v{}, {}).", e.name, e.schema_version,
                       e.name == spec_.input_event ? "the input" : "published"),
           CppComment(e.description)},
          e.fields, options);
      mustache::data event;
      Put(event, "name", e.name);
      Put(event, "record", name);
      Append(events, std::move(event));
    }
    // The state document.
    RecordBuilder::Options doc;
    doc.all_optional = true;
    std::vector<Field> state_fields;
    std::set<std::string> seen;
    auto add_field = [&](std::vector<Field>& out, const Field& f) {
      if (seen.insert(f.name).second) out.push_back(f);
    };
    if (const EventDef* input = spec_.FindEvent(spec_.input_event))
      for (const auto& f : input->fields) add_field(state_fields, f);
    for (const auto& f : spec_.data) add_field(state_fields, f);
    for (const auto& f : RuntimeMembers()) add_field(state_fields, f);
    const std::string state_record = pascal + "State";
    builder.Add(state_record,
                {fmt::format("The state document of {}: the input, the "
                             "fields Tasks produce and the runtime's.",
                             spec_.workflow)},
                state_fields, doc);
    // Map item documents.
    std::map<std::string, std::string> item_record;  // map state → record
    for (const auto& s : spec_.graph.states) {
      if (s.type != StateType::kMap) continue;
      std::vector<Field> fields;
      seen.clear();
      Field item;
      item.name = s.item_name;
      item.kind = s.item_kind;
      item.description = "The item of " + s.name + ".";
      add_field(fields, item);
      // Carried fields: declared ones with their type, runtime ones (the
      // item's job_run_id, ...) as the state document has them.
      for (const auto& c : s.carry) {
        if (const Field* f = spec_.FindFieldType(c)) {
          Field copy = *f;
          copy.name = c;
          add_field(fields, copy);
          continue;
        }
        for (const auto& r : RuntimeMembers())
          if (r.name == c) add_field(fields, r);
      }
      for (const auto& f : s.item_data) add_field(fields, f);
      add_field(fields, RuntimeMember("error", FieldKind::kObject,
                                      "The caught error, on failure paths."));
      item_record[s.name] = Pascal(s.name) + "Item";
      builder.Add(item_record[s.name],
                  {fmt::format("The document of one item of Map {}.", s.name)},
                  fields, doc);
    }
    // Task outputs and the interface.
    mustache::data methods{mustache::data::type::list};
    auto add_tasks = [&](const StateGraph& graph, const std::string& input) {
      for (const auto& s : graph.states) {
        if (s.type != StateType::kTask || s.builtin != Builtin::kNone) continue;
        std::vector<Field> outputs;
        mustache::data output_names{mustache::data::type::list};
        for (const auto& p : s.produces) {
          if (const Field* f = spec_.FindFieldType(p)) {
            Field copy = *f;
            copy.name = p;
            outputs.push_back(copy);
            Append(output_names, mustache::data(p));
          }
        }
        const std::string output = s.name + "Output";
        builder.Add(output, {fmt::format("What {} produces.", s.name)}, outputs,
                    doc);
        mustache::data method;
        Put(method, "name", s.name);
        Put(method, "input", input);
        Put(method, "input_name",
            input == state_record ? std::string("state") : std::string("item"));
        Put(method, "output", output);
        Put(method, "outputs", std::move(output_names));
        mustache::data comment{mustache::data::type::list};
        for (const auto& line : MethodComment(s)) Append(comment, line);
        Put(method, "comment", std::move(comment));
        Append(methods, std::move(method));
      }
    };
    add_tasks(spec_.graph, state_record);
    for (const auto& s : spec_.graph.states) {
      if (s.item_states) add_tasks(*s.item_states, item_record[s.name]);
    }

    mustache::data data;
    Put(data, "workflow", spec_.workflow);
    Put(data, "spec_file",
        CppComment(spec_.file.substr(spec_.file.find_last_of('/') + 1)));
    Put(data, "interface", pascal + "Steps");
    Put(data, "schema_version", std::to_string(spec_.schema_version));
    if (spec_.time_bucket_seconds) {
      Put(data, "has_time_bucket", true);
      Put(data, "time_bucket_seconds",
          std::to_string(*spec_.time_bucket_seconds));
    }
    mustache::data record_list{mustache::data::type::list};
    for (const auto& r : records) {
      mustache::data record;
      Put(record, "name", r.name);
      mustache::data comment{mustache::data::type::list};
      for (const auto& line : r.comment)
        if (!line.empty()) Append(comment, line);
      Put(record, "comment", std::move(comment));
      mustache::data members{mustache::data::type::list};
      for (const auto& m : r.members) {
        mustache::data member;
        Put(member, "type", m.type);
        Put(member, "name", m.name);
        Put(member, "comment", m.comment);
        Put(member, "has_comment", !m.comment.empty());
        Append(members, std::move(member));
      }
      Put(record, "members", std::move(members));
      Put(record, "parse", r.parse);
      Put(record, "serialize", r.serialize);
      Append(record_list, std::move(record));
    }
    Put(data, "records", std::move(record_list));
    Put(data, "methods", std::move(methods));
    Put(data, "events", std::move(events));
    Put(data, "keys", Keys());
    Put(data, "identities", Identities());
    SetBinding(data);

    CppFiles files;
    files.header = Render(kHeaderTemplate, data);
    files.source = Render(kSourceTemplate, data);
    if (scaffolds_ == Scaffolds::kMake) {
      files.steps_header = Render(kStepsHeaderTemplate, data);
      files.steps_source = Render(kStepsSourceTemplate, data);
    }
    return files;
  }

 private:
  static std::vector<Field> RuntimeMembers() {
    return {RuntimeMember("correlation_id", FieldKind::kUuid,
                          "Correlation id (generated when absent)."),
            RuntimeMember("job_run_id", FieldKind::kString,
                          "The JobRun (set by BeginJobRun)."),
            RuntimeMember("outcome", FieldKind::kString,
                          "The outcome recorded on the way to success."),
            RuntimeMember("quarantine_reason", FieldKind::kString,
                          "The failure case that sent the run to quarantine."),
            RuntimeMember("idempotency_status", FieldKind::kString,
                          "ACQUIRED, or DUPLICATE when another run holds or "
                          "finished the idempotency key."),
            RuntimeMember("error", FieldKind::kObject,
                          "The caught error, on failure paths.")};
  }

  static std::string Render(std::string_view name, const mustache::data& data) {
    // Values are escaped for C++ by the emitter; HTML escaping would
    // corrupt them.
    return RenderTemplate(name, data, TemplateEscape::kNone);
  }

  std::vector<std::string> MethodComment(const State& s) const {
    std::vector<std::string> lines;
    lines.push_back(s.name + (s.description.empty()
                                  ? std::string(".")
                                  : ": " + CppComment(s.description)));
    std::optional<int64_t> timeout = s.timeout_seconds;
    if (!timeout && s.retry) timeout = s.retry->timeout_seconds;
    std::string retry = "no retries";
    if (s.retry && s.retry->max_attempts > 0) {
      BackoffSolution b = SolveBackoff(s.retry->backoff_seconds);
      retry = fmt::format(
          "{} retr{} of RETRYABLE errors after {} (IntervalSeconds {}, "
          "BackoffRate {}, MaxDelaySeconds {})",
          s.retry->max_attempts, s.retry->max_attempts == 1 ? "y" : "ies",
          FormatWaits(s.retry->backoff_seconds), b.parameters.interval_seconds,
          FormatRate(b.parameters.backoff_rate),
          b.parameters.max_delay_seconds);
    }
    lines.push_back(
        fmt::format("Timeout {}s; {}.", timeout.value_or(0), retry));
    if (s.retry && !s.retry->note.empty())
      lines.push_back("Retry note: " + CppComment(s.retry->note));
    for (ErrorClass c : {ErrorClass::kRetryable, ErrorClass::kTerminal,
                         ErrorClass::kQuarantine}) {
      std::string cases;
      for (const auto& f : spec_.failures) {
        if (f.error_class != c) continue;
        bool applies = f.raised_by.empty();
        for (const auto& r : f.raised_by) applies = applies || r == s.name;
        if (applies) cases += (cases.empty() ? "" : ", ") + f.id;
      }
      if (!cases.empty())
        lines.push_back(
            fmt::format("May raise {}: {}.", ErrorClassName(c), cases));
    }
    if (!s.dedupe_key.empty())
      lines.push_back("Dedupe key: " + CppComment(s.dedupe_key));
    if (!s.access_patterns.empty()) {
      std::string list;
      for (const auto& a : s.access_patterns)
        list += (list.empty() ? "" : ", ") + a;
      lines.push_back("Access patterns: " + list + ".");
    }
    return lines;
  }

  mustache::data KeyBuilder(const std::string& name,
                            const std::string& key) const {
    std::string params, body;
    std::set<std::string> declared;
    size_t at = 0;
    auto literal = [&](const std::string& text) {
      if (!text.empty())
        body += fmt::format("  key_ += \"{}\";\n", CppStringLiteral(text));
    };
    for (const auto& p : Placeholders(key)) {
      literal(key.substr(at, p.offset - at));
      at = p.offset + p.name.size() + 2;
      std::string constant;
      for (const auto& [n, v] : spec_.constants)
        if (n == p.name) constant = v;
      if (!constant.empty()) {
        literal(constant);
        continue;
      }
      const Field* f = spec_.FindFieldType(p.name);
      const bool integer = f && f->kind == FieldKind::kInteger;
      if (declared.insert(p.name).second) {
        params += (params.empty() ? "" : ", ") +
                  std::string(integer ? "int64_t " : "std::string_view ") +
                  p.name;
      }
      body += integer ? fmt::format("  key_ += std::to_string({});\n", p.name)
                      : fmt::format("  key_ += {};\n", p.name);
    }
    literal(key.substr(std::min(at, key.size())));
    if (!body.empty() && body.back() == '\n') body.pop_back();
    mustache::data out;
    Put(out, "name", name);
    Put(out, "template", CppComment(key));
    Put(out, "params", std::move(params));
    Put(out, "body", std::move(body));
    return out;
  }

  static std::string StringList(const std::vector<std::string>& items) {
    std::string out = "{";
    for (size_t i = 0; i < items.size(); ++i)
      out += (i ? ", \"" : "\"") + CppStringLiteral(items[i]) + "\"";
    return out + "}";
  }

  // A call of key builder `name` with its arguments read from a document
  // named `state` (and `time_bucket` for the time bucket).
  std::string KeyCall(const std::string& name, const std::string& key) const {
    std::string args;
    std::set<std::string> seen;
    for (const auto& p : Placeholders(key)) {
      bool constant = false;
      for (const auto& [n, v] : spec_.constants)
        constant = constant || n == p.name;
      if (constant || !seen.insert(p.name).second) continue;
      std::string arg;
      const Field* f = spec_.FindFieldType(p.name);
      if (p.name == "time_bucket") {
        arg = "time_bucket";
      } else if (p.name == "schema_version") {
        arg = "kSchemaVersion";
      } else if (f && f->kind == FieldKind::kInteger) {
        arg = fmt::format("runtime::RequireInteger(state, \"{}\")", p.name);
      } else {
        arg = fmt::format("runtime::RequireString(state, \"{}\")", p.name);
      }
      args += (args.empty() ? "" : ", ") + arg;
    }
    return name + "(" + args + ")";
  }

  void SetBinding(mustache::data& data) const {
    // The definition as its JSON text, in a raw string literal.
    std::string literal;
    AppendCppRawStringLiteral(literal, asl_);
    Put(data, "definition", std::move(literal));
    Put(data, "input_event", spec_.input_event);
    bool nova_scoped = false;
    if (const EventDef* input = spec_.FindEvent(spec_.input_event)) {
      const Field* nova = input->FindField("nova_id");
      nova_scoped = nova && nova->required;
    }
    Put(data, "nova_scoped", std::string(nova_scoped ? "true" : "false"));
    // The input's defaults, as a JSON text BeginJobRun parses once.
    nlohmann::ordered_json defaults = nlohmann::ordered_json::object();
    if (const EventDef* input = spec_.FindEvent(spec_.input_event))
      for (const auto& f : input->fields)
        if (f.default_value) defaults[f.name] = *f.default_value;
    Put(data, "input_defaults",
        "\"" + CppStringLiteral(defaults.dump()) + "\"");
    Put(data, "time_bucket_or_zero",
        std::to_string(spec_.time_bucket_seconds.value_or(0)));
    Put(data, "lock_lease_seconds", std::to_string(LockLeaseSeconds(spec_)));
    // The governance's log fields, then the workflow's own: a name listed
    // twice keeps its first place, a when-known field also required is
    // required. The runtime lists none itself.
    std::vector<std::string> required, when_known;
    auto add = [](std::vector<std::string>& to, const std::string& name) {
      if (std::find(to.begin(), to.end(), name) == to.end()) to.push_back(name);
    };
    const Governance* governance = spec_.governance.get();
    if (governance)
      for (const auto& name : governance->log_required) add(required, name);
    for (const auto& name : spec_.log_required) add(required, name);
    for (const auto* list : {governance ? &governance->log_when_known : nullptr,
                             &spec_.log_when_known})
      for (const auto& name : list ? *list : std::vector<std::string>())
        if (std::find(required.begin(), required.end(), name) == required.end())
          add(when_known, name);
    Put(data, "log_required", StringList(required));
    Put(data, "log_when_known", StringList(when_known));
    // The fields the Finalize builtins record as the JobRun's output.
    Put(data, "job_run_output", StringList(spec_.job_run_output));
    // The governance's error names (the Lambda errorType of each class, the
    // names retried like RETRYABLE).
    auto class_name = [&](ErrorClass c) {
      const ErrorClassDef* def =
          governance ? governance->FindClass(c) : nullptr;
      return "\"" + CppStringLiteral(def ? def->error_name : "") + "\"";
    };
    const ErrorClassDef* retryable =
        governance ? governance->FindClass(ErrorClass::kRetryable) : nullptr;
    Put(data, "error_names",
        fmt::format("{}, {}, {}, {}", class_name(ErrorClass::kRetryable),
                    class_name(ErrorClass::kTerminal),
                    class_name(ErrorClass::kQuarantine),
                    StringList(retryable ? retryable->also_retry
                                         : std::vector<std::string>())));
    Put(data, "idempotency_call",
        spec_.idempotency_key.empty()
            ? std::string("std::string()")
            : KeyCall("WorkflowIdempotencyKey", spec_.idempotency_key));
    mustache::data builtins{mustache::data::type::list};
    mustache::data dedupes{mustache::data::type::list};
    auto visit = [&](const StateGraph& graph, auto& self) -> void {
      for (const auto& s : graph.states) {
        if (s.item_states) self(*s.item_states, self);
        if (s.type != StateType::kTask) continue;
        if (!s.dedupe_key.empty()) {
          mustache::data d;
          Put(d, "state", s.name);
          std::string call = KeyCall(s.name + "DedupeKey", s.dedupe_key);
          // Dedupe builders read the Task's own document.
          size_t at = 0;
          while ((at = call.find("(state, ", at)) != std::string::npos)
            call.replace(at, 8, "(document, ");
          Put(d, "call", call);
          Append(dedupes, std::move(d));
        }
        if (s.builtin == Builtin::kNone) continue;
        std::string event = "std::nullopt";
        if (s.builtin == Builtin::kPublishEvent) {
          if (const EventDef* e = spec_.FindEvent(s.event)) {
            std::vector<std::string> fields;
            for (const auto& f : e->fields) fields.push_back(f.name);
            std::string for_each = "std::nullopt";
            if (!s.for_each_field.empty())
              for_each =
                  fmt::format("runtime::EventSpec::ForEach{{\"{}\", \"{}\"}}",
                              s.for_each_field, s.for_each_as);
            event =
                fmt::format("runtime::EventSpec{{\"{}\", {}, {}, {}}}", e->name,
                            StringList(fields), e->schema_version, for_each);
          }
        }
        Append(builtins,
               fmt::format("runtime::BuiltinState{{\"{}\", Builtin::k{}, {}}}",
                           s.name, BuiltinName(s.builtin), event));
      }
    };
    visit(spec_.graph, visit);
    Put(data, "builtin_states", std::move(builtins));
    Put(data, "dedupe_calls", std::move(dedupes));
  }

  mustache::data Keys() const {
    mustache::data keys{mustache::data::type::list};
    if (!spec_.idempotency_key.empty())
      Append(keys, KeyBuilder("WorkflowIdempotencyKey", spec_.idempotency_key));
    auto visit = [&](const StateGraph& graph, auto& self) -> void {
      for (const auto& s : graph.states) {
        if (!s.dedupe_key.empty())
          Append(keys, KeyBuilder(s.name + "DedupeKey", s.dedupe_key));
        if (s.item_states) self(*s.item_states, self);
      }
    };
    visit(spec_.graph, visit);
    return keys;
  }

  mustache::data Identities() const {
    mustache::data list{mustache::data::type::list};
    for (const auto& id : spec_.identities) {
      std::string params, body = "  std::string identity;\n";
      for (const auto& p : id.parts) {
        params +=
            (params.empty() ? "" : ", ") + std::string("std::string_view ") + p;
        body += fmt::format(
            "  identity += \"{0}=\";\n  identity += {0};\n  "
            "identity += '|';\n",
            p);
      }
      std::string names;
      for (const auto& p : id.first_of) {
        params += (params.empty() ? "" : ", ") +
                  std::string("std::optional<std::string_view> ") + p;
        body += fmt::format(
            "  if ({0}) return identity + \"{0}=\" + std::string(*{0});\n", p);
        names += (names.empty() ? "" : ", ") + p;
      }
      if (id.first_of.empty()) {
        body += "  identity.pop_back();\n  return identity;";
      } else {
        body += fmt::format(
            "  throw runtime::QuarantineError(\"{}: none of {} is known; the "
            "identity would be ambiguous\");",
            id.name, names);
      }
      mustache::data d;
      Put(d, "name", Pascal(id.name));
      mustache::data comment{mustache::data::type::list};
      std::string shape;
      for (const auto& p : id.parts) shape += (shape.empty() ? "" : " + ") + p;
      if (!id.first_of.empty()) {
        std::string alternatives;
        for (const auto& p : id.first_of)
          alternatives += (alternatives.empty() ? "" : " OR ") + p;
        shape += " + (" + alternatives + ")";
      }
      Append(comment, fmt::format("{} = {}", id.name, shape));
      if (!id.description.empty()) Append(comment, CppComment(id.description));
      if (!id.first_of.empty())
        Append(comment,
               "Throws runtime::QuarantineError when none of the "
               "alternatives is known.");
      Put(d, "comment", std::move(comment));
      Put(d, "params", params);
      Put(d, "body", body);
      Append(list, std::move(d));
    }
    return list;
  }

  const WorkflowSpec& spec_;
  const std::string& asl_;  // EmitAsl(spec_)
  const Scaffolds scaffolds_;
};

}  // namespace

CppFiles EmitCpp(const WorkflowSpec& spec) {
  return EmitCpp(spec, EmitAsl(spec));
}

CppFiles EmitCpp(const WorkflowSpec& spec, const std::string& asl,
                 Scaffolds scaffolds) {
  return CppBuilder(spec, asl, scaffolds).Build();
}

}  // namespace novacat
