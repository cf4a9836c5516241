#include "novacat/runtime/asl/executor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/asl/intrinsics.h"
#include "novacat/runtime/asl/json_path.h"

namespace novacat::runtime::asl {

namespace {

using Json = nlohmann::ordered_json;

// Ends the whole execution past its time limit; unlike an AslError no Retry
// or Catch of any state sees it.
struct ExecutionTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

constexpr const char* kLambdaInvoke = "arn:aws:states:::lambda:invoke";

// Empties `doc`'s objects and arrays bottom-up, leaving it null. nlohmann's
// destructor flattens every non-empty object or array it destroys into a
// vector it allocates (so that a deep document cannot overflow the stack);
// a run drops a few documents per state, and those vectors were a tenth of
// its time. Emptied here, nothing is left to flatten. Below
// kReleaseDepth levels a subtree is left to nlohmann's iteration.
constexpr int kReleaseDepth = 32;
void Release(Json& doc, int depth = 0) {
  if (doc.is_object()) {
    auto& members = doc.get_ref<Json::object_t&>();
    if (depth < kReleaseDepth)
      for (auto& member : members)
        if (member.second.is_structured()) Release(member.second, depth + 1);
    members.clear();
  } else if (doc.is_array()) {
    auto& items = doc.get_ref<Json::array_t&>();
    if (depth < kReleaseDepth)
      for (auto& item : items)
        if (item.is_structured()) Release(item, depth + 1);
    items.clear();
  }
  doc = nullptr;
}

// ---- time -------------------------------------------------------------------

std::string IsoTime(double seconds) {
  std::time_t whole = static_cast<std::time_t>(std::floor(seconds));
  int millis =
      static_cast<int>(std::lround((seconds - std::floor(seconds)) * 1000));
  if (millis == 1000) {
    ++whole;
    millis = 0;
  }
  std::tm tm{};
  gmtime_r(&whole, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec, millis);
  return buf;
}

// Parses an RFC 3339 timestamp into epoch seconds; nullopt when invalid.
std::optional<double> ParseTime(const std::string& text) {
  int y, mo, d, h, mi;
  double s;
  char t;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d:%lf%n", &y, &mo, &d, &t,
                  &h, &mi, &s, &consumed) != 7 ||
      (t != 'T' && t != 't'))
    return std::nullopt;
  std::string zone = text.substr(static_cast<size_t>(consumed));
  double offset = 0;
  if (zone == "Z" || zone == "z") {
    offset = 0;
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') &&
             zone[3] == ':') {
    int oh = std::atoi(zone.substr(1, 2).c_str());
    int om = std::atoi(zone.substr(4, 2).c_str());
    offset = (zone[0] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
  } else {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s >= 61)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = 0;
  return static_cast<double>(timegm(&tm)) + s - offset;
}

// ---- loading: what the executor supports ------------------------------------

std::string Pointer(const std::string& parent, const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '~')
      escaped += "~0";
    else if (c == '/')
      escaped += "~1";
    else
      escaped += c;
  }
  return parent + "/" + escaped;
}

class Validator {
 public:
  using Names = std::unordered_set<std::string>;

  // `outer`: the variables the enclosing scopes assign (a Parallel
  // branch's or a Map iteration's states read them and may not assign
  // them).
  bool Machine(const Json& machine, const std::string& at,
               const Names& outer = {}) {
    if (!machine.is_object()) return Fail(at, "must be an object");
    for (auto it = machine.begin(); it != machine.end(); ++it) {
      static const std::set<std::string> kTop = {
          "Comment", "StartAt",       "States",         "TimeoutSeconds",
          "Version", "QueryLanguage", "ProcessorConfig"};
      if (!kTop.count(it.key()))
        return Fail(Pointer(at, it.key()), "not supported by the executor");
    }
    if (machine.contains("QueryLanguage") &&
        machine["QueryLanguage"] != "JSONPath")
      return Fail(Pointer(at, "QueryLanguage"),
                  "only the JSONPath query language is supported");
    if (!machine.contains("StartAt") || !machine["StartAt"].is_string())
      return Fail(Pointer(at, "StartAt"), "missing");
    if (!machine.contains("States") || !machine["States"].is_object() ||
        machine["States"].empty())
      return Fail(Pointer(at, "States"), "missing or empty");
    const Json& states = machine["States"];
    // The names of this scope, hashed: a target is found in constant time,
    // so loading stays linear in the number of states.
    Names names;
    names.reserve(states.size());
    for (auto it = states.begin(); it != states.end(); ++it)
      names.insert(it.key());
    if (!names.count(machine["StartAt"].get<std::string>()))
      return Fail(Pointer(at, "StartAt"), "names no state");
    // What this scope's states may read: what they or an enclosing scope's
    // assign.
    Names visible = outer;
    for (auto it = states.begin(); it != states.end(); ++it)
      AssignedNames(it.value(), &visible);
    const Names* const saved_outer = outer_;
    const Names* const saved_visible = visible_;
    outer_ = &outer;
    visible_ = &visible;
    bool ok = true;
    for (auto it = states.begin(); ok && it != states.end(); ++it)
      ok = State(names, it.key(), it.value(),
                 Pointer(Pointer(at, "States"), it.key()));
    outer_ = saved_outer;
    visible_ = saved_visible;
    return ok;
  }

  const std::string& error() const { return error_; }

 private:
  // The names a state's Assign, its top-level Choice rules' and its
  // catchers' set (each a valid name or refused later by AssignField).
  static void AssignedNames(const Json& state, Names* out) {
    const auto add = [out](const Json& holder) {
      if (!holder.is_object() || !holder.contains("Assign") ||
          !holder["Assign"].is_object())
        return;
      for (auto it = holder["Assign"].begin(); it != holder["Assign"].end();
           ++it) {
        const std::string& key = it.key();
        out->insert(EndsWithDollar(key) ? key.substr(0, key.size() - 2) : key);
      }
    };
    add(state);
    for (const char* list : {"Choices", "Catch"})
      if (state.is_object() && state.contains(list) && state[list].is_array())
        for (const Json& entry : state[list]) add(entry);
  }

  static bool EndsWithDollar(const std::string& key) {
    return key.size() > 2 && key.compare(key.size() - 2, 2, ".$") == 0;
  }

  // An Assign: an object whose keys name variables (with ".$" when the
  // value is a path or an intrinsic call, as in a payload template), each
  // once; not "states" (JSONata's $states); in a Parallel branch or a Map
  // iteration, none an enclosing scope assigns. `reads_result_refused`: a
  // ".$" value reading $ is refused (beside a ResultSelector).
  bool AssignField(const Json& assign, const std::string& at,
                   bool reads_result_refused) {
    if (!assign.is_object()) return Fail(at, "must be an object");
    std::set<std::string> seen;
    for (auto it = assign.begin(); it != assign.end(); ++it) {
      const std::string& key = it.key();
      const bool dynamic = EndsWithDollar(key);
      const std::string name = dynamic ? key.substr(0, key.size() - 2) : key;
      const std::string p = Pointer(at, key);
      if (!IsVariableName(name))
        return Fail(p,
                    "not a variable name (a letter or _, then letters, "
                    "digits and _, at most 80 characters)");
      if (name == "states") return Fail(p, "$states is reserved (JSONata's)");
      if (!seen.insert(name).second)
        return Fail(p, "assigns $" + name + " twice");
      if (outer_->count(name))
        return Fail(p, "assigns $" + name +
                           ", a variable of an enclosing scope, which a "
                           "Parallel branch or a Map iteration reads but "
                           "does not assign");
      if (dynamic && reads_result_refused && it->is_string() &&
          ReadsInput(it->get<std::string>()))
        return Fail(p,
                    "reads the state's result ($) beside ResultSelector, "
                    "which the executor refuses: whether Step Functions "
                    "gives Assign the raw result or ResultSelector's is not "
                    "established");
    }
    return Template(assign, at);
  }

  // Calls `each(i)` for every '$' of the intrinsic call `text` outside its
  // quoted strings that is not part of a "$$" (a context path), at index i;
  // `each` returns how many characters after i it consumed.
  template <class Each>
  static void ForEachDollar(const std::string& text, Each each) {
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
        continue;
      }
      if (text[i] == '\'') quoted = !quoted;
      if (quoted || text[i] != '$') continue;
      if (i + 1 < text.size() && text[i + 1] == '$') {
        ++i;
        continue;
      }
      i += each(i);
    }
  }

  // Whether the path or intrinsic call `text` reads $ (the input, or the
  // result an Assign sees), not only $$ or variables.
  static bool ReadsInput(const std::string& text) {
    if (!IsIntrinsic(text)) {
      std::optional<Path> path = ParsePath(text);
      return path && !path->context && path->variable.empty();
    }
    bool reads = false;
    ForEachDollar(text, [&](size_t i) -> size_t {
      const char c = i + 1 < text.size() ? text[i + 1] : ')';
      if (c == '.' || c == '[' || c == ',' || c == ')' || c == ' ')
        reads = true;
      return 0;
    });
    return reads;
  }

  // The variables the path or intrinsic call `text` reads.
  static std::vector<std::string> VariablesRead(const std::string& text) {
    std::vector<std::string> names;
    if (!IsIntrinsic(text)) {
      std::optional<Path> path = ParsePath(text);
      if (path && !path->variable.empty()) names.push_back(path->variable);
      return names;
    }
    const auto word = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
             (c >= '0' && c <= '9');
    };
    ForEachDollar(text, [&](size_t i) -> size_t {
      size_t end = i + 1;
      while (end < text.size() && word(text[end])) ++end;
      if (end > i + 1 && !(text[i + 1] >= '0' && text[i + 1] <= '9'))
        names.push_back(text.substr(i + 1, end - i - 1));
      return end - 1 - i;
    });
    return names;
  }

  // Each variable `text` (a path or an intrinsic call, at `at`) reads is
  // assigned by a state of this scope or an enclosing one; never $states.
  bool Reads(const std::string& text, const std::string& at) {
    for (const std::string& name : VariablesRead(text)) {
      if (name == "states")
        return Fail(at,
                    "$states is JSONata's reserved variable, which a "
                    "JSONPath state cannot read");
      if (!visible_->count(name))
        return Fail(at, "$" + name +
                            " is assigned by no state of this scope or an "
                            "enclosing one");
    }
    return true;
  }

  // Calls `each(field, pointer)` for every ".$" field of the payload
  // template (or Assign) `value` at `at`, nested in objects and arrays;
  // stops at the first false.
  template <class Each>
  static bool ForEachDynamicField(const Json& value, const std::string& at,
                                  Each each) {
    if (value.is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        const std::string p = Pointer(at, it.key());
        if (!(EndsWithDollar(it.key()) ? each(*it, p)
                                       : ForEachDynamicField(*it, p, each)))
          return false;
      }
    } else if (value.is_array()) {
      for (size_t i = 0; i < value.size(); ++i)
        if (!ForEachDynamicField(value[i], Pointer(at, std::to_string(i)),
                                 each))
          return false;
    }
    return true;
  }

  // Reads() for every ".$" field of a payload template or an Assign.
  bool TemplateReads(const Json& value, const std::string& at) {
    return ForEachDynamicField(
        value, at, [&](const Json& field, const std::string& p) {
          return !field.is_string() || Reads(field.get<std::string>(), p);
        });
  }

  // Reads() for a Choice rule's Variable and ...Path operands, nested.
  bool RuleReads(const Json& rule, const std::string& at) {
    if (!rule.is_object()) return true;
    for (auto it = rule.begin(); it != rule.end(); ++it) {
      const std::string& key = it.key();
      const std::string p = Pointer(at, key);
      const bool path_operand =
          key.size() > 4 && key.compare(key.size() - 4, 4, "Path") == 0;
      if ((key == "Variable" || path_operand) && it->is_string()) {
        if (!Reads(it->get<std::string>(), p)) return false;
      } else if (key == "And" || key == "Or") {
        for (size_t i = 0; it->is_array() && i < it->size(); ++i)
          if (!RuleReads((*it)[i], Pointer(p, std::to_string(i)))) return false;
      } else if (key == "Not" && !RuleReads(*it, p)) {
        return false;
      }
    }
    return true;
  }

  // The variables every field of `state` reads (its Parallel branches and
  // Map iterations are checked as scopes of their own), its Assigns, and
  // no ResultPath naming a variable.
  bool Variables(const Json& state, const std::string& at) {
    for (const char* key :
         {"InputPath", "OutputPath", "ItemsPath", "SecondsPath",
          "TimestampPath", "ErrorPath", "CausePath"})
      if (state.contains(key) && state[key].is_string() &&
          !Reads(state[key].get<std::string>(), Pointer(at, key)))
        return false;
    for (const char* key :
         {"Parameters", "ResultSelector", "ItemSelector", "Assign"})
      if (state.contains(key) && !TemplateReads(state[key], Pointer(at, key)))
        return false;
    const bool selects = state.contains("ResultSelector");
    if (state.contains("Assign") &&
        !AssignField(state["Assign"], Pointer(at, "Assign"), selects))
      return false;
    if (!NoVariable(state, "ResultPath", at)) return false;
    if (state.contains("Choices") && state["Choices"].is_array()) {
      for (size_t i = 0; i < state["Choices"].size(); ++i) {
        const Json& rule = state["Choices"][i];
        const std::string p =
            Pointer(Pointer(at, "Choices"), std::to_string(i));
        if (!RuleReads(rule, p)) return false;
        if (rule.is_object() && rule.contains("Assign") &&
            (!TemplateReads(rule["Assign"], Pointer(p, "Assign")) ||
             !AssignField(rule["Assign"], Pointer(p, "Assign"), false)))
          return false;
      }
    }
    if (state.contains("Catch") && state["Catch"].is_array()) {
      for (size_t i = 0; i < state["Catch"].size(); ++i) {
        const Json& c = state["Catch"][i];
        const std::string p = Pointer(Pointer(at, "Catch"), std::to_string(i));
        if (!c.is_object()) continue;
        if (!NoVariable(c, "ResultPath", p)) return false;
        if (c.contains("Assign") &&
            (!TemplateReads(c["Assign"], Pointer(p, "Assign")) ||
             !AssignField(c["Assign"], Pointer(p, "Assign"), false)))
          return false;
      }
    }
    return true;
  }

  bool NoVariable(const Json& holder, const char* key, const std::string& at) {
    if (!holder.contains(key) || !holder[key].is_string()) return true;
    std::optional<Path> path = ParsePath(holder[key].get<std::string>());
    if (path && !path->variable.empty())
      return Fail(Pointer(at, key), "cannot name a variable");
    return true;
  }

  const Names* outer_ = nullptr;    // Machine's `outer`
  const Names* visible_ = nullptr;  // what the current scope may read

  bool Fail(const std::string& at, const std::string& why) {
    error_ = (at.empty() ? std::string("/") : at) + ": " + why;
    return false;
  }

  bool Target(const Names& states, const Json& value, const std::string& at) {
    if (!value.is_string() || !states.count(value.get<std::string>()))
      return Fail(at, "names no state in this scope");
    return true;
  }

  // A path field: a Path (`query`: InputPath, OutputPath) or a Reference
  // Path (every other), which Step Functions refuses a query in.
  bool PathField(const Json& state, const char* key, const std::string& at,
                 bool nullable, bool query = false) {
    if (!state.contains(key)) return true;
    const Json& v = state[key];
    if (v.is_null() && nullable) return true;
    if (!v.is_string())
      return Fail(Pointer(at, key), "not a supported reference path");
    return PathText(v.get<std::string>(), Pointer(at, key), query);
  }

  // `text`, the path at `at`: parsed, and a query only where `query` says
  // the field takes one.
  bool PathText(const std::string& text, const std::string& at, bool query) {
    std::string why;
    std::optional<Path> path = ParsePath(text, &why);
    if (!path)
      return Fail(at, "not a supported path: " + text +
                          (why.empty() ? "" : " (" + why + ")"));
    if (!query && !path->IsReference())
      return Fail(at,
                  "must be a reference path (a single node: no [*], .*, "
                  "slice, index list or ..): " +
                      text);
    return true;
  }

  // Error and Cause are strings; ErrorPath and CausePath a reference path or
  // a call of an intrinsic function that returns a string; a state names
  // at most one of Error and ErrorPath, and of Cause and CausePath (Step
  // Functions refuses the definition otherwise).
  bool FailFields(const Json& state, const std::string& at) {
    static const std::set<std::string> kStringFunctions = {
        "States.Format",       "States.JsonToString", "States.ArrayGetItem",
        "States.Base64Encode", "States.Base64Decode", "States.Hash",
        "States.UUID"};
    for (const char* key : {"Error", "Cause"}) {
      const std::string path = std::string(key) + "Path";
      if (state.contains(key) && state.contains(path))
        return Fail(
            at, std::string(key) + " and " + path + " cannot both be given");
      if (state.contains(key) && !state[key].is_string())
        return Fail(Pointer(at, key), "must be a string");
      if (!state.contains(path)) continue;
      const Json& v = state[path];
      if (!v.is_string())
        return Fail(Pointer(at, path), "not a supported reference path");
      const std::string text = v.get<std::string>();
      if (!IsIntrinsic(text)) {
        if (!PathField(state, path.c_str(), at, false)) return false;
        continue;
      }
      if (!Intrinsics(text, Pointer(at, path))) return false;
      std::string name = text.substr(0, text.find('('));
      while (!name.empty() && name.back() == ' ') name.pop_back();
      if (!kStringFunctions.count(name))
        return Fail(Pointer(at, path),
                    name +
                        " does not return a string: only States.Format, "
                        "States.JsonToString, States.ArrayGetItem, "
                        "States.Base64Encode, States.Base64Decode, "
                        "States.Hash and States.UUID may be used here");
    }
    return true;
  }

  bool Template(const Json& value, const std::string& at) {
    return ForEachDynamicField(
        value, at, [&](const Json& field, const std::string& p) {
          if (!field.is_string()) return Fail(p, "a .$ field needs a string");
          const std::string text = field.get<std::string>();
          return IsIntrinsic(text) ? Intrinsics(text, p)
                                   : PathText(text, p, true);
        });
  }

  // Every function named in an intrinsic expression must be supported.
  bool Intrinsics(const std::string& text, const std::string& at) {
    size_t pos = 0;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\\') {
        ++i;
        continue;
      }
      if (text[i] == '\'') quoted = !quoted;
      if (quoted || text.compare(i, 7, "States.") != 0) continue;
      pos = i;
      size_t end = text.find('(', pos);
      if (end == std::string::npos) return Fail(at, "malformed intrinsic call");
      std::string name = text.substr(pos, end - pos);
      if (!IsSupportedIntrinsic(name))
        return Fail(at, "intrinsic function " + name + " is not supported");
      i = end;
    }
    return true;
  }

  bool Rule(const Names& states, const Json& rule, const std::string& at,
            bool top) {
    if (!rule.is_object()) return Fail(at, "must be an object");
    if (top) {
      if (!rule.contains("Next")) return Fail(Pointer(at, "Next"), "missing");
      if (!Target(states, rule["Next"], Pointer(at, "Next"))) return false;
    }
    for (const char* combinator : {"And", "Or"}) {
      if (rule.contains(combinator)) {
        const Json& list = rule[combinator];
        if (!list.is_array() || list.empty())
          return Fail(Pointer(at, combinator), "needs a non-empty list");
        for (size_t i = 0; i < list.size(); ++i)
          if (!Rule(states, list[i],
                    Pointer(Pointer(at, combinator), std::to_string(i)), false))
            return false;
        return true;
      }
    }
    if (rule.contains("Not"))
      return Rule(states, rule["Not"], Pointer(at, "Not"), false);
    if (!rule.contains("Variable") || !rule["Variable"].is_string())
      return Fail(Pointer(at, "Variable"), "missing or not a supported path");
    if (!PathText(rule["Variable"].get<std::string>(), Pointer(at, "Variable"),
                  false))
      return false;
    int comparators = 0;
    for (auto it = rule.begin(); it != rule.end(); ++it) {
      const std::string& key = it.key();
      if (key == "Variable" || key == "Next" || key == "Comment" ||
          (top && key == "Assign"))
        continue;
      static const std::set<std::string> kOps = {"StringEquals",
                                                 "StringLessThan",
                                                 "StringGreaterThan",
                                                 "StringLessThanEquals",
                                                 "StringGreaterThanEquals",
                                                 "StringMatches",
                                                 "NumericEquals",
                                                 "NumericLessThan",
                                                 "NumericGreaterThan",
                                                 "NumericLessThanEquals",
                                                 "NumericGreaterThanEquals",
                                                 "BooleanEquals",
                                                 "TimestampEquals",
                                                 "TimestampLessThan",
                                                 "TimestampGreaterThan",
                                                 "TimestampLessThanEquals",
                                                 "TimestampGreaterThanEquals",
                                                 "IsNull",
                                                 "IsPresent",
                                                 "IsNumeric",
                                                 "IsString",
                                                 "IsBoolean",
                                                 "IsTimestamp"};
      std::string op = key;
      bool path = false;
      if (op.size() > 4 && op.compare(op.size() - 4, 4, "Path") == 0 &&
          kOps.count(op.substr(0, op.size() - 4))) {
        op = op.substr(0, op.size() - 4);
        path = true;
      }
      if (!kOps.count(op)) return Fail(Pointer(at, key), "unknown comparator");
      if (path && !it->is_string())
        return Fail(Pointer(at, key), "not a supported path");
      if (path && !PathText(it->get<std::string>(), Pointer(at, key), false))
        return false;
      ++comparators;
    }
    if (comparators != 1) return Fail(at, "needs exactly one comparator");
    return true;
  }

  bool Retriers(const Json& state, const std::string& at) {
    if (!state.contains("Retry")) return true;
    const Json& list = state["Retry"];
    if (!list.is_array()) return Fail(Pointer(at, "Retry"), "must be a list");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = Pointer(Pointer(at, "Retry"), std::to_string(i));
      const Json& r = list[i];
      if (!r.is_object() || !r.contains("ErrorEquals") ||
          !r["ErrorEquals"].is_array() || r["ErrorEquals"].empty())
        return Fail(Pointer(p, "ErrorEquals"), "needs a non-empty list");
      for (auto it = r.begin(); it != r.end(); ++it) {
        static const std::set<std::string> kKeys = {
            "ErrorEquals",     "IntervalSeconds", "MaxAttempts", "BackoffRate",
            "MaxDelaySeconds", "JitterStrategy",  "Comment"};
        if (!kKeys.count(it.key()))
          return Fail(Pointer(p, it.key()), "not supported by the executor");
      }
      if (r.contains("JitterStrategy") && r["JitterStrategy"] != "NONE" &&
          r["JitterStrategy"] != "FULL")
        return Fail(Pointer(p, "JitterStrategy"), "must be NONE or FULL");
    }
    return true;
  }

  bool Catchers(const Names& states, const Json& state, const std::string& at) {
    if (!state.contains("Catch")) return true;
    const Json& list = state["Catch"];
    if (!list.is_array()) return Fail(Pointer(at, "Catch"), "must be a list");
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = Pointer(Pointer(at, "Catch"), std::to_string(i));
      const Json& c = list[i];
      if (!c.is_object() || !c.contains("ErrorEquals") || !c.contains("Next"))
        return Fail(p, "needs ErrorEquals and Next");
      if (!Target(states, c["Next"], Pointer(p, "Next"))) return false;
      if (!PathField(c, "ResultPath", p, true)) return false;
    }
    return true;
  }

  bool State(const Names& states, const std::string& name, const Json& state,
             const std::string& at) {
    if (!state.is_object() || !state.contains("Type") ||
        !state["Type"].is_string())
      return Fail(Pointer(at, "Type"), "missing");
    const std::string type = state["Type"];
    static const std::map<std::string, std::set<std::string>> kFields = {
        {"Pass", {"Result", "Parameters", "ResultPath", "Assign"}},
        {"Task",
         {"Resource", "Parameters", "ResultSelector", "ResultPath",
          "TimeoutSeconds", "HeartbeatSeconds", "Retry", "Catch", "Assign"}},
        {"Choice", {"Choices", "Default", "Assign"}},
        {"Wait",
         {"Seconds", "SecondsPath", "Timestamp", "TimestampPath", "Assign"}},
        {"Succeed", {}},
        {"Fail", {"Error", "Cause", "ErrorPath", "CausePath"}},
        {"Parallel",
         {"Branches", "Parameters", "ResultSelector", "ResultPath", "Retry",
          "Catch", "Assign"}},
        {"Map",
         {"ItemsPath", "ItemSelector", "Parameters", "ItemProcessor",
          "Iterator", "MaxConcurrency", "ResultSelector", "ResultPath", "Retry",
          "Catch", "Assign"}}};
    auto fields = kFields.find(type);
    if (fields == kFields.end())
      return Fail(Pointer(at, "Type"), "unknown state type " + type);
    // What a Distributed Map adds to a Map, which the executor does not run
    // (its Maps are INLINE, over the input or ItemsPath).
    static const std::map<std::string, std::string> kDistributed = {
        {"ItemReader", "reading a Map's items from Amazon S3"},
        {"ItemBatcher", "batching a Map's items"},
        {"ResultWriter", "writing a Map's results to Amazon S3"},
        {"ToleratedFailureCount", "a Map's tolerated failures"},
        {"ToleratedFailureCountPath", "a Map's tolerated failures"},
        {"ToleratedFailurePercentage", "a Map's tolerated failures"},
        {"ToleratedFailurePercentagePath", "a Map's tolerated failures"},
        {"Label", "a Map Run's label"}};
    for (auto it = state.begin(); it != state.end(); ++it) {
      const std::string& key = it.key();
      if (key == "Type" || key == "Comment" || key == "Next" || key == "End" ||
          key == "InputPath" || key == "OutputPath")
        continue;
      auto distributed = kDistributed.find(key);
      if (type == "Map" && distributed != kDistributed.end())
        return Fail(Pointer(at, key),
                    key + " (" + distributed->second +
                        ", a Distributed Map) is not supported by the "
                        "executor, which runs INLINE Maps only");
      if (!fields->second.count(key))
        return Fail(Pointer(at, key), "not supported by the executor");
    }
    if (type != "Choice" && type != "Succeed" && type != "Fail") {
      bool next = state.contains("Next"), end = state.value("End", false);
      if (next == end) return Fail(at, "needs exactly one of Next and End");
      if (next && !Target(states, state["Next"], Pointer(at, "Next")))
        return false;
    }
    if (!PathField(state, "InputPath", at, true, true) ||
        !PathField(state, "OutputPath", at, true, true) ||
        !PathField(state, "ResultPath", at, true) ||
        !PathField(state, "ItemsPath", at, false) ||
        !PathField(state, "SecondsPath", at, false) ||
        !PathField(state, "TimestampPath", at, false))
      return false;
    if (type == "Fail" && !FailFields(state, at)) return false;
    if (!Variables(state, at)) return false;
    for (const char* t : {"Parameters", "ResultSelector", "ItemSelector"})
      if (state.contains(t) && !Template(state[t], Pointer(at, t)))
        return false;
    if (type == "Task") {
      if (!state.contains("Resource") || !state["Resource"].is_string())
        return Fail(Pointer(at, "Resource"), "missing");
      for (const char* key : {"TimeoutSeconds", "HeartbeatSeconds"})
        if (state.contains(key) &&
            (!state[key].is_number_integer() || state[key].get<int64_t>() <= 0))
          return Fail(Pointer(at, key), "must be a positive integer");
      if (state.contains("TimeoutSeconds") &&
          state.contains("HeartbeatSeconds") &&
          state["HeartbeatSeconds"].get<int64_t>() >=
              state["TimeoutSeconds"].get<int64_t>())
        return Fail(Pointer(at, "HeartbeatSeconds"),
                    "must be smaller than TimeoutSeconds");
      const std::string resource = state["Resource"];
      if (resource.find(".waitForTaskToken") != std::string::npos ||
          resource.find(".sync") != std::string::npos)
        return Fail(Pointer(at, "Resource"),
                    "callback and .sync integrations are not supported");
    }
    if (type == "Choice") {
      if (!state.contains("Choices") || !state["Choices"].is_array() ||
          state["Choices"].empty())
        return Fail(Pointer(at, "Choices"), "needs a non-empty list");
      for (size_t i = 0; i < state["Choices"].size(); ++i)
        if (!Rule(states, state["Choices"][i],
                  Pointer(Pointer(at, "Choices"), std::to_string(i)), true))
          return false;
      if (state.contains("Default") &&
          !Target(states, state["Default"], Pointer(at, "Default")))
        return false;
    }
    if (type == "Parallel") {
      if (!state.contains("Branches") || !state["Branches"].is_array())
        return Fail(Pointer(at, "Branches"), "needs a list");
      for (size_t i = 0; i < state["Branches"].size(); ++i)
        if (!Machine(state["Branches"][i],
                     Pointer(Pointer(at, "Branches"), std::to_string(i)),
                     *visible_))
          return false;
    }
    if (type == "Map") {
      const char* key =
          state.contains("ItemProcessor") ? "ItemProcessor" : "Iterator";
      if (!state.contains(key))
        return Fail(Pointer(at, "ItemProcessor"), "missing");
      const Json& processor = state[key];
      if (processor.contains("ProcessorConfig")) {
        const Json& config = processor["ProcessorConfig"];
        if (config.value("Mode", "INLINE") != "INLINE")
          return Fail(
              Pointer(Pointer(Pointer(at, key), "ProcessorConfig"), "Mode"),
              "only INLINE Map is supported");
      }
      if (!Machine(processor, Pointer(at, key), *visible_)) return false;
    }
    (void)name;
    return Retriers(state, at) && Catchers(states, state, at);
  }

  std::string error_;
};

// ---- compiling: the definition as a program ---------------------------------
//
// Load compiles a valid definition once: each scope's states in a vector,
// every target (Next, Default, a Choice rule's or a catcher's Next) an index
// into it, every InputPath, OutputPath, ResultPath, ItemsPath, payload
// template and Choice rule parsed. A transition finds its state by index and
// parses nothing, so its cost does not depend on the size of the definition.

}  // namespace

namespace detail {

enum class StateType {
  kPass,
  kTask,
  kChoice,
  kWait,
  kSucceed,
  kFail,
  kParallel,
  kMap
};

// InputPath, OutputPath, ResultPath, ItemsPath: absent, null or a path.
struct PathField {
  enum class Mode { kAbsent, kNull, kPath };
  Mode mode = Mode::kAbsent;
  std::string text;
  Path path;
};

// The value of a ".$" template field (or a Choice rule's ...Path operand):
// an intrinsic call, or a path into the input or the context.
struct Resolver {
  std::string text;
  // The definition's field holding it ("x.$", "ItemsPath", "CausePath"...),
  // which a path that matches nothing is reported with.
  std::string field;
  bool intrinsic = false;
  bool reads_execution_input = false;  // the intrinsic reads $$.Execution.Input
  std::optional<Path> path;
  // A context path to one of the fields the executor knows without building
  // the context object ($$.Execution.Id...); kNone for any other path.
  enum class ContextField {
    kNone,
    kExecutionId,
    kExecutionName,
    kExecutionStartTime,
    kStateMachineId,
    kStateMachineName,
    kStateName,
    kStateEnteredTime,
    kStateRetryCount,
    kMapItemIndex,
  };
  ContextField context_field = ContextField::kNone;
};

// A payload template (Parameters, ItemSelector, ResultSelector).
struct TemplateNode {
  enum class Kind { kLiteral, kObject, kArray, kResolve };
  Kind kind = Kind::kLiteral;
  const Json* literal = nullptr;       // kLiteral: the value itself
  std::vector<std::string> keys;       // kObject: the output keys (no ".$")
  bool unique_keys = true;             // kObject: no key twice ("a", "a.$")
  std::vector<TemplateNode> children;  // kObject, kArray
  Resolver resolver;                   // kResolve
};

enum class Op {
  kOther,  // a comparator with no test here: the rule is false
  kIsNull,
  kIsNumeric,
  kIsString,
  kIsBoolean,
  kIsTimestamp,
  kBooleanEquals,
  kStringEquals,
  kStringLessThan,
  kStringGreaterThan,
  kStringLessThanEquals,
  kStringGreaterThanEquals,
  kStringMatches,
  kStringOther,
  kNumericEquals,
  kNumericLessThan,
  kNumericGreaterThan,
  kNumericLessThanEquals,
  kNumericGreaterThanEquals,
  kNumericOther,
  kTimestampEquals,
  kTimestampLessThan,
  kTimestampGreaterThan,
  kTimestampLessThanEquals,
  kTimestampGreaterThanEquals,
  kTimestampOther,
};

// A Choice rule.
struct Rule {
  enum class Kind { kAnd, kOr, kNot, kLeaf };
  Kind kind = Kind::kLeaf;
  std::vector<Rule> children;  // kAnd, kOr, kNot
  int next = -1;               // a top-level rule: the state it chooses
  // A top-level rule's Assign, made when the rule chooses.
  std::shared_ptr<const TemplateNode> assign;
  // kLeaf:
  std::string variable;
  Path variable_path;
  const Json* is_present = nullptr;  // the IsPresent member, when there
  bool has_comparator = false;
  Op op = Op::kOther;
  const Json* operand = nullptr;  // the comparator's member
  bool operand_is_path = false;   // a ...Path comparator
  Resolver operand_path;
};

// A Retry entry with its defaults applied.
struct Retrier {
  const Json* error_equals = nullptr;
  int max_attempts = 3;
  double interval_seconds = 1;
  double backoff_rate = 2;
  std::optional<double> max_delay_seconds;
  bool full_jitter = false;
};

struct Catcher {
  const Json* error_equals = nullptr;
  // Its Assign, reading the error output ({"Error", "Cause"}) as $; made
  // instead of the state's own.
  std::shared_ptr<const TemplateNode> assign;
  PathField result_path;
  int next = -1;
  std::string next_name;
};

struct CompiledState;

struct Program {
  int start = 0;
  std::vector<CompiledState> states;
};

struct CompiledState {
  std::string name;
  const Json* json = nullptr;  // the state's definition
  StateType type = StateType::kPass;
  int next = -1;     // Next
  bool end = false;  // End (not read for Choice, Succeed and Fail)
  PathField input_path, output_path, result_path;
  Resolver items_path;
  bool has_items_path = false;
  const Json* result = nullptr;  // Pass: Result
  // Fail: Error or ErrorPath, Cause or CausePath (never both of a pair).
  const Json *error = nullptr, *cause = nullptr;
  std::optional<Resolver> error_path, cause_path;
  std::unique_ptr<TemplateNode> parameters, result_selector, item_selector;
  // Assign: the variables the state sets when it ends other than by an
  // error, read from what the state's type gives as $ (Run::Step); a Choice
  // makes it when it takes its Default.
  std::shared_ptr<const TemplateNode> assign;
  std::vector<Rule> choices;
  bool has_default = false;
  int default_next = -1;
  std::vector<Retrier> retriers;
  std::vector<Catcher> catchers;
  std::string resource;        // Task
  bool lambda_invoke = false;  // Task: arn:...:lambda:invoke
  // A lambda:invoke whose output is its Payload alone (no ResultSelector,
  // no ResultPath, OutputPath "$.Payload"): Lambda's wrapper is never built.
  bool output_is_payload = false;
  // A Choice or Succeed without InputPath and OutputPath: its output is its
  // input, already checked against the payload limit.
  bool passes_input_through = false;
  // A Task without InputPath lends its input to the invocation instead of
  // copying it: as the invocation's input when it has no Parameters, or at
  // this "$" field of its Parameters (reached through objects alone).
  bool lends_input = false;
  const TemplateNode* lent_field = nullptr;
  std::optional<double> timeout_seconds;  // Task: TimeoutSeconds
  // Task: HeartbeatSeconds, recorded in TaskScheduled and never raised
  // here: a handler is a request-response call (callback and .sync
  // integrations are refused), which sends no heartbeat, so only
  // TimeoutSeconds bounds it (see the manual's executor section).
  std::optional<int64_t> heartbeat_seconds;
  std::vector<Program> branches;       // Parallel
  std::unique_ptr<Program> processor;  // Map
};

}  // namespace detail

namespace {

using detail::Catcher;
using detail::CompiledState;
using detail::Op;
using detail::PathField;
using detail::Program;
using detail::Resolver;
using detail::Retrier;
using detail::Rule;
using detail::StateType;
using detail::TemplateNode;

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

// Which known context field a context path names (kNone: another).
Resolver::ContextField KnownContextField(const std::string& text) {
  using F = Resolver::ContextField;
  static const std::unordered_map<std::string, F> kFields = {
      {"$$.Execution.Id", F::kExecutionId},
      {"$$.Execution.Name", F::kExecutionName},
      {"$$.Execution.StartTime", F::kExecutionStartTime},
      {"$$.StateMachine.Id", F::kStateMachineId},
      {"$$.StateMachine.Name", F::kStateMachineName},
      {"$$.State.Name", F::kStateName},
      {"$$.State.EnteredTime", F::kStateEnteredTime},
      {"$$.State.RetryCount", F::kStateRetryCount},
      {"$$.Map.Item.Index", F::kMapItemIndex}};
  auto it = kFields.find(text);
  return it == kFields.end() ? F::kNone : it->second;
}

// A ".$" field's or a ...Path operand's value, parsed once; `field` is the
// member of the definition holding it.
Resolver MakeResolver(const std::string& text, const std::string& field) {
  Resolver r;
  r.text = text;
  r.field = field;
  r.intrinsic = IsIntrinsic(text);
  if (r.intrinsic) {
    r.reads_execution_input =
        text.find("$$.Execution.Input") != std::string::npos;
  } else {
    r.path = ParsePath(text);
    if (r.path && r.path->context) r.context_field = KnownContextField(text);
  }
  return r;
}

// The definition is valid (the Validator passed): paths parse, targets
// exist, and a value read here has the type the Validator checked.
class Compiler {
 public:
  void Machine(const Json& machine, Program* program) {
    const Json& states = machine["States"];
    std::unordered_map<std::string, int> index;
    index.reserve(states.size());
    int i = 0;
    for (auto it = states.begin(); it != states.end(); ++it)
      index.emplace(it.key(), i++);
    const auto target = [&](const Json& name) {
      return index.at(name.get<std::string>());
    };
    program->start = target(machine["StartAt"]);
    program->states.resize(states.size());
    i = 0;
    for (auto it = states.begin(); it != states.end(); ++it)
      State(it.key(), it.value(), target, &program->states[i++]);
  }

 private:
  static PathField Field(const Json& object, const char* key) {
    PathField field;
    auto it = object.find(key);
    if (it == object.end()) return field;
    if (it->is_null()) {
      field.mode = PathField::Mode::kNull;
      return field;
    }
    field.mode = PathField::Mode::kPath;
    field.text = it->get<std::string>();
    field.path = *ParsePath(field.text);
    return field;
  }

  static TemplateNode Template(const Json& t) {
    TemplateNode node;
    if (t.is_object()) {
      node.kind = TemplateNode::Kind::kObject;
      for (auto it = t.begin(); it != t.end(); ++it) {
        const std::string& key = it.key();
        if (EndsWith(key, ".$")) {
          node.keys.push_back(key.substr(0, key.size() - 2));
          if (t.contains(node.keys.back())) node.unique_keys = false;
          TemplateNode child;
          child.kind = TemplateNode::Kind::kResolve;
          child.resolver = MakeResolver(it->get<std::string>(), key);
          node.children.push_back(std::move(child));
        } else {
          node.keys.push_back(key);
          node.children.push_back(Template(*it));
        }
      }
    } else if (t.is_array()) {
      node.kind = TemplateNode::Kind::kArray;
      for (const auto& e : t) node.children.push_back(Template(e));
    } else {
      node.literal = &t;
    }
    return node;
  }

  // The first "$" field (the whole input) of a template reached through
  // objects with distinct keys, whose place in the built document stays put
  // (Run::Template reserves every object's members); null when none.
  static const TemplateNode* WholeInputField(const TemplateNode& t) {
    if (t.kind != TemplateNode::Kind::kObject || !t.unique_keys) return nullptr;
    for (const TemplateNode& child : t.children) {
      const Resolver& r = child.resolver;
      if (child.kind == TemplateNode::Kind::kResolve && !r.intrinsic &&
          r.path && !r.path->context && r.path->variable.empty() &&
          r.path->steps.empty() && r.path->IsReference())
        return &child;
      if (const TemplateNode* found = WholeInputField(child)) return found;
    }
    return nullptr;
  }

  static std::unique_ptr<TemplateNode> OptionalTemplate(const Json& state,
                                                        const char* key) {
    auto it = state.find(key);
    if (it == state.end()) return nullptr;
    return std::make_unique<TemplateNode>(Template(*it));
  }

  static Op Decode(const std::string& op) {
    static const std::unordered_map<std::string, Op> kOps = {
        {"IsNull", Op::kIsNull},
        {"IsNumeric", Op::kIsNumeric},
        {"IsString", Op::kIsString},
        {"IsBoolean", Op::kIsBoolean},
        {"IsTimestamp", Op::kIsTimestamp},
        {"BooleanEquals", Op::kBooleanEquals},
        {"StringEquals", Op::kStringEquals},
        {"StringLessThan", Op::kStringLessThan},
        {"StringGreaterThan", Op::kStringGreaterThan},
        {"StringLessThanEquals", Op::kStringLessThanEquals},
        {"StringGreaterThanEquals", Op::kStringGreaterThanEquals},
        {"StringMatches", Op::kStringMatches},
        {"NumericEquals", Op::kNumericEquals},
        {"NumericLessThan", Op::kNumericLessThan},
        {"NumericGreaterThan", Op::kNumericGreaterThan},
        {"NumericLessThanEquals", Op::kNumericLessThanEquals},
        {"NumericGreaterThanEquals", Op::kNumericGreaterThanEquals},
        {"TimestampEquals", Op::kTimestampEquals},
        {"TimestampLessThan", Op::kTimestampLessThan},
        {"TimestampGreaterThan", Op::kTimestampGreaterThan},
        {"TimestampLessThanEquals", Op::kTimestampLessThanEquals},
        {"TimestampGreaterThanEquals", Op::kTimestampGreaterThanEquals}};
    auto it = kOps.find(op);
    if (it != kOps.end()) return it->second;
    if (op.rfind("String", 0) == 0) return Op::kStringOther;
    if (op.rfind("Numeric", 0) == 0) return Op::kNumericOther;
    if (op.rfind("Timestamp", 0) == 0) return Op::kTimestampOther;
    return Op::kOther;
  }

  template <typename Target>
  static Rule MakeRule(const Json& rule, const Target& target, bool top) {
    Rule r;
    if (top) r.next = target(rule["Next"]);
    if (top && rule.contains("Assign") &&
        (rule.contains("And") || rule.contains("Or") || rule.contains("Not")))
      r.assign = std::make_shared<TemplateNode>(Template(rule["Assign"]));
    if (rule.contains("And") || rule.contains("Or")) {
      const bool is_and = rule.contains("And");
      r.kind = is_and ? Rule::Kind::kAnd : Rule::Kind::kOr;
      for (const auto& child : rule[is_and ? "And" : "Or"])
        r.children.push_back(MakeRule(child, target, false));
      return r;
    }
    if (rule.contains("Not")) {
      r.kind = Rule::Kind::kNot;
      r.children.push_back(MakeRule(rule["Not"], target, false));
      return r;
    }
    if (top && rule.contains("Assign"))
      r.assign = std::make_shared<TemplateNode>(Template(rule["Assign"]));
    r.kind = Rule::Kind::kLeaf;
    r.variable = rule["Variable"].get<std::string>();
    r.variable_path = *ParsePath(r.variable);
    if (rule.contains("IsPresent")) r.is_present = &rule["IsPresent"];
    // The first member that is not Variable, Next or Comment decides.
    for (auto it = rule.begin(); it != rule.end(); ++it) {
      std::string op = it.key();
      if (op == "Variable" || op == "Next" || op == "Comment" || op == "Assign")
        continue;
      r.has_comparator = true;
      r.operand = &*it;
      if (EndsWith(op, "Path") && op != "IsPresent") {
        op = op.substr(0, op.size() - 4);
        r.operand_is_path = true;
        r.operand_path = MakeResolver(it->get<std::string>(), it.key());
      }
      r.op = Decode(op);
      break;
    }
    return r;
  }

  template <typename Target>
  void State(const std::string& name, const Json& state, const Target& target,
             CompiledState* s) {
    static const std::unordered_map<std::string, StateType> kTypes = {
        {"Pass", StateType::kPass},         {"Task", StateType::kTask},
        {"Choice", StateType::kChoice},     {"Wait", StateType::kWait},
        {"Succeed", StateType::kSucceed},   {"Fail", StateType::kFail},
        {"Parallel", StateType::kParallel}, {"Map", StateType::kMap}};
    s->name = name;
    s->json = &state;
    s->type = kTypes.at(state["Type"].get<std::string>());
    const bool flows = s->type != StateType::kChoice &&
                       s->type != StateType::kSucceed &&
                       s->type != StateType::kFail;
    if (flows) {
      s->end = state.value("End", false);
      if (!s->end) s->next = target(state["Next"]);
    }
    s->input_path = Field(state, "InputPath");
    s->output_path = Field(state, "OutputPath");
    s->result_path = Field(state, "ResultPath");
    s->passes_input_through =
        (s->type == StateType::kChoice || s->type == StateType::kSucceed) &&
        s->input_path.mode == PathField::Mode::kAbsent &&
        s->output_path.mode == PathField::Mode::kAbsent;
    if (state.contains("ItemsPath")) {
      s->has_items_path = true;
      s->items_path =
          MakeResolver(state["ItemsPath"].get<std::string>(), "ItemsPath");
    }
    if (s->type == StateType::kPass && state.contains("Result"))
      s->result = &state["Result"];
    if (s->type == StateType::kFail) {
      if (state.contains("Error")) s->error = &state["Error"];
      if (state.contains("Cause")) s->cause = &state["Cause"];
      if (state.contains("ErrorPath"))
        s->error_path =
            MakeResolver(state["ErrorPath"].get<std::string>(), "ErrorPath");
      if (state.contains("CausePath"))
        s->cause_path =
            MakeResolver(state["CausePath"].get<std::string>(), "CausePath");
    }
    s->parameters = OptionalTemplate(state, "Parameters");
    if (s->type == StateType::kTask &&
        s->input_path.mode == PathField::Mode::kAbsent) {
      s->lent_field = s->parameters ? WholeInputField(*s->parameters) : nullptr;
      s->lends_input = !s->parameters || s->lent_field;
    }
    s->result_selector = OptionalTemplate(state, "ResultSelector");
    s->item_selector = OptionalTemplate(state, "ItemSelector");
    if (state.contains("Assign"))
      s->assign = std::make_shared<TemplateNode>(Template(state["Assign"]));
    if (s->type == StateType::kChoice) {
      for (const auto& rule : state["Choices"])
        s->choices.push_back(MakeRule(rule, target, true));
      if (state.contains("Default")) {
        s->has_default = true;
        s->default_next = target(state["Default"]);
      }
    }
    if (state.contains("Retry")) {
      for (const auto& r : state["Retry"]) {
        Retrier retrier;
        retrier.error_equals = &r["ErrorEquals"];
        retrier.max_attempts = r.value("MaxAttempts", 3);
        retrier.interval_seconds = r.value("IntervalSeconds", 1.0);
        retrier.backoff_rate = r.value("BackoffRate", 2.0);
        if (r.contains("MaxDelaySeconds"))
          retrier.max_delay_seconds = r["MaxDelaySeconds"].get<double>();
        retrier.full_jitter = r.value("JitterStrategy", "NONE") == "FULL";
        s->retriers.push_back(retrier);
      }
    }
    if (s->type == StateType::kTask) {
      s->resource = state["Resource"].get<std::string>();
      s->lambda_invoke = s->resource == kLambdaInvoke;
      const Path& output = s->output_path.path;
      const auto* first = output.steps.size() == 1
                              ? std::get_if<std::string>(&output.steps[0])
                              : nullptr;
      s->output_is_payload =
          s->lambda_invoke && !s->result_selector && !s->assign &&
          s->result_path.mode == PathField::Mode::kAbsent &&
          s->output_path.mode == PathField::Mode::kPath && !output.context &&
          output.variable.empty() && output.IsReference() && first &&
          *first == "Payload";
      if (state.contains("TimeoutSeconds"))
        s->timeout_seconds = state["TimeoutSeconds"].get<double>();
      if (state.contains("HeartbeatSeconds"))
        s->heartbeat_seconds = state["HeartbeatSeconds"].get<int64_t>();
    }
    if (state.contains("Catch")) {
      for (const auto& c : state["Catch"]) {
        Catcher catcher;
        catcher.error_equals = &c["ErrorEquals"];
        if (c.contains("Assign"))
          catcher.assign =
              std::make_shared<TemplateNode>(Template(c["Assign"]));
        catcher.result_path = Field(c, "ResultPath");
        catcher.next = target(c["Next"]);
        catcher.next_name = c["Next"].get<std::string>();
        s->catchers.push_back(std::move(catcher));
      }
    }
    if (s->type == StateType::kParallel) {
      const Json& branches = state["Branches"];
      s->branches.resize(branches.size());
      for (size_t i = 0; i < branches.size(); ++i)
        Machine(branches[i], &s->branches[i]);
    }
    if (s->type == StateType::kMap) {
      s->processor = std::make_unique<Program>();
      Machine(state.contains("ItemProcessor") ? state["ItemProcessor"]
                                              : state["Iterator"],
              s->processor.get());
    }
  }
};

// ---- running ----------------------------------------------------------------

struct MapItem {
  int64_t index = 0;
  Json value;
};

Json BuildContext(const RunOptions& options, const std::string& state,
                  double entered, int retry_count, const MapItem* item) {
  Json context = {{"Execution",
                   {{"Id", options.execution_arn},
                    {"Name", options.execution_name},
                    {"StartTime", IsoTime(options.start_time)}}},
                  {"StateMachine",
                   {{"Id", options.state_machine_arn},
                    {"Name", options.state_machine_name}}},
                  {"State",
                   {{"Name", state},
                    {"EnteredTime", IsoTime(entered)},
                    {"RetryCount", retry_count}}}};
  if (item)
    context["Map"] = {
        {"Item", {{"Index", item->index}, {"Value", item->value}}}};
  return context;
}

// A state's context object ($$), built only when something reads it: most
// transitions never do. What it holds is fixed when it is made (the entered
// time, the retry count, the Map item).
class Context {
 public:
  Context(const RunOptions& options, const std::string& state, double entered,
          int retry_count, const MapItem* item)
      : options_(options),
        state_(state),
        entered_(entered),
        retry_count_(retry_count),
        item_(item) {}

  const Json& json() const {
    if (!json_)
      json_ = BuildContext(options_, state_, entered_, retry_count_, item_);
    return *json_;
  }

  // The same context for another Map item (an ItemSelector's $$.Map.Item).
  Context WithItem(const MapItem* item) const {
    return Context(options_, state_, entered_, retry_count_, item);
  }

  const MapItem* item() const { return item_; }
  const RunOptions& options() const { return options_; }
  const std::string& state() const { return state_; }
  double entered() const { return entered_; }
  int retry_count() const { return retry_count_; }

 private:
  const RunOptions& options_;
  const std::string& state_;
  double entered_;
  int retry_count_;
  const MapItem* item_;
  mutable std::optional<Json> json_;
};

bool StepIs(const Path& path, size_t i, const char* name) {
  const auto* s = std::get_if<std::string>(&path.steps[i]);
  return s && *s == name;
}

// Counts the bytes of Json::dump() (compact, UTF-8 as is, invalid UTF-8 an
// error). Objects, arrays, ASCII strings, integers, booleans and null are
// counted here, in one walk that allocates nothing; a float or a string
// with a byte above 0x7F (which must be valid UTF-8) is counted by dump()
// itself, so the count is always dump()'s.
class DumpSizer {
 public:
  // At least the bytes of value.dump(), from the tree's shape and string
  // lengths alone (a byte may take a 6-byte escape, a number 32), in a walk
  // that reads no string: well under the limit, no exact count is needed.
  static size_t UpperBound(const Json& value) {
    using value_t = Json::value_t;
    switch (value.type()) {
      case value_t::object: {
        const auto& members = value.get_ref<const Json::object_t&>();
        size_t n = 2 + members.size();
        for (const auto& [key, member] : members)
          n += 6 * key.size() + 3 + UpperBound(member);
        return n;
      }
      case value_t::array: {
        const auto& items = value.get_ref<const Json::array_t&>();
        size_t n = 2 + items.size();
        for (const auto& item : items) n += UpperBound(item);
        return n;
      }
      case value_t::string:
        return 6 * value.get_ref<const std::string&>().size() + 2;
      default:
        return 32;
    }
  }

  size_t operator()(const Json& value) {
    using value_t = Json::value_t;
    switch (value.type()) {
      case value_t::object: {
        const auto& members = value.get_ref<const Json::object_t&>();
        // {} and a comma between members, then "key": value each.
        size_t n = members.empty() ? 2 : members.size() + 1;
        for (const auto& [key, member] : members)
          n += String(key) + 1 + (*this)(member);
        return n;
      }
      case value_t::array: {
        const auto& items = value.get_ref<const Json::array_t&>();
        size_t n = items.empty() ? 2 : items.size() + 1;
        for (const auto& item : items) n += (*this)(item);
        return n;
      }
      case value_t::string:
        return String(value.get_ref<const std::string&>());
      case value_t::boolean:
        return value.get<bool>() ? 4 : 5;
      case value_t::null:
        return 4;
      case value_t::number_integer: {
        const int64_t i = value.get<int64_t>();
        return (i < 0 ? 1 : 0) + Digits(i < 0 ? 0 - static_cast<uint64_t>(i)
                                              : static_cast<uint64_t>(i));
      }
      case value_t::number_unsigned:
        return Digits(value.get<uint64_t>());
      default:
        return Serialized(value);
    }
  }

 private:
  // A string with its quotes and escapes as dump() writes them.
  size_t String(const std::string& s) {
    static const std::array<uint8_t, 256> kExtra = EscapeExtraBytes();
    size_t extra = 0;
    unsigned high = 0;  // a byte above 0x7F: UTF-8, dump() decides
    for (unsigned char c : s) {
      extra += kExtra[c];
      high |= c;
    }
    if (high & 0x80u) return Serialized(Json(s));
    return s.size() + 2 + extra;
  }

  // The bytes an ASCII character's escape adds: \" \\ \b \t \n \f \r
  // one, another control character five (\u00XX).
  static std::array<uint8_t, 256> EscapeExtraBytes() {
    std::array<uint8_t, 256> extra{};
    for (int c = 0; c < 0x20; ++c) extra[c] = 5;
    for (unsigned char c : {'"', '\\', '\b', '\t', '\n', '\f', '\r'})
      extra[c] = 1;
    return extra;
  }

  static size_t Digits(uint64_t u) {
    size_t n = 1;
    while (u >= 10) {
      u /= 10;
      ++n;
    }
    return n;
  }

  static size_t Serialized(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::strict).size();
  }
};

// An event's {"error", "cause"}, without the parts the error does not
// name, as Step Functions' events leave them out.
Json ErrorDetails(const AslError& e) {
  Json details = Json::object();
  if (e.has_error()) details["error"] = e.error();
  if (e.has_cause()) details["cause"] = e.cause();
  return details;
}

Json ErrorDetails(const RunResult& r) {
  Json details = Json::object();
  if (r.error) details["error"] = *r.error;
  if (r.cause) details["cause"] = *r.cause;
  return details;
}

// The workflow variables of a scope: the execution's, a Parallel branch's
// or a Map iteration's. An inner scope reads its enclosing scopes'
// variables and sets only its own (the Validator refuses an Assign of an
// enclosing scope's name there), which end with it.
struct Scope {
  const Scope* outer = nullptr;
  std::unordered_map<std::string, Json> variables;
};

class Run {
 public:
  Run(const TaskHandler& handler, const RunOptions& options, RunResult& result)
      : handler_(handler),
        options_(options),
        result_(result),
        events_(options.history != History::kNone),
        documents_(options.history == History::kFull),
        now_(options.start_time) {}

  // `input` outlives the run ($$.Execution.Input reads it).
  Json Execute(const Json& definition, const Program& program,
               const Json& input) {
    execution_input_ = &input;
    // Room for a short execution's states and events without regrowing.
    result_.states.reserve(32);
    if (events_) result_.history.reserve(32);
    deadline_ = 0;
    if (definition.contains("TimeoutSeconds"))
      deadline_ = definition["TimeoutSeconds"].get<double>();
    if (options_.execution_timeout_seconds > 0 &&
        (deadline_ == 0 || options_.execution_timeout_seconds < deadline_))
      deadline_ = options_.execution_timeout_seconds;
    CheckSize(input, "the execution input");
    Count();  // ExecutionStarted
    DocumentEvent("ExecutionStarted", "", "input", input);
    Scope execution;
    return Machine(program, input, nullptr, execution);
  }

  double now() const { return now_; }

  // Records an event when the history is kept (RunOptions::history);
  // `details`, a callable returning the details object, is called only
  // then, so an event nobody reads costs nothing.
  template <typename MakeDetails>
  void Event(const char* type, const std::string& state,
             const MakeDetails& details) {
    if (!events_) return;
    // Made whole in place: a default HistoryEvent would allocate an empty
    // details object only to replace it.
    result_.history.push_back(
        HistoryEvent{static_cast<int64_t>(result_.history.size()) + 1, now_,
                     type, state, details()});
  }

  // An event whose one detail is a document ({key: document}), which only
  // a full history copies.
  void DocumentEvent(const char* type, const std::string& state,
                     const char* key, const Json& document) {
    Event(type, state, [&] {
      Json details = Json::object();
      if (documents_) details[key] = document;
      return details;
    });
  }

 private:
  // $$.Execution.Input is not copied into every context object (each step
  // would then cost the size of the execution input); it is looked up here,
  // or added for the rare intrinsic that reads it. $$.Map.Item.Value is read
  // from the item itself.
  const Json* FindInContext(const Path& path, const Context& context) const {
    if (path.steps.size() >= 2 && StepIs(path, 0, "Execution") &&
        StepIs(path, 1, "Input"))
      return Find(*execution_input_, path, 2);
    if (context.item() && path.steps.size() >= 3 && StepIs(path, 0, "Map") &&
        StepIs(path, 1, "Item") && StepIs(path, 2, "Value"))
      return Find(context.item()->value, path, 3);
    return Find(context.json(), path);
  }

  // The variable `name` in the current scope or an enclosing one, or null.
  const Json* FindVariable(const std::string& name) const {
    for (const Scope* scope = scope_; scope; scope = scope->outer) {
      auto it = scope->variables.find(name);
      if (it != scope->variables.end()) return &it->second;
    }
    return nullptr;
  }

  // The variable `name` that `field` reads, or States.Runtime when no
  // state has assigned it yet (the Validator refused a name no state of
  // the scope or an enclosing one assigns).
  const Json& RequireVariable(const std::string& name,
                              const std::string& field) const {
    if (const Json* value = FindVariable(name)) return *value;
    throw AslError("States.Runtime", "The variable '$" + name +
                                         "' read by the field '" + field +
                                         "' has not been assigned");
  }

  // What `path` reads for `field`: the variable it names, the context
  // object ($$) or `input`.
  const Json& Root(const Path& path, const std::string& field,
                   const Json& input, const Context& context) const {
    if (!path.variable.empty()) return RequireVariable(path.variable, field);
    return path.context ? context.json() : input;
  }

  // What Step Functions reports for a path of `field` (a payload
  // template's "x.$", an intrinsic call's argument there, ItemsPath,
  // CausePath...) that matches nothing in `data` (the state's input, or the
  // context object for a $$ path): States.Runtime, which fails the
  // execution whatever the Retry and Catch of any enclosing state say.
  static AslError PathNotFound(const std::string& path,
                               const std::string& field, const Json& data) {
    return AslError(
        "States.Runtime",
        "The JSONPath '" + path + "' specified for the field '" + field +
            "' could not be found in the input '" +
            data.dump(-1, ' ', false, Json::error_handler_t::replace) + "'");
  }

  // A path's value (no intrinsic), or PathNotFound.
  const Json& ResolvePath(const Resolver& r, const Json& input,
                          const Context& context) const {
    const Json* value = FindPath(*r.path, r.field, input, context);
    if (!value)
      throw PathNotFound(r.text, r.field,
                         Root(*r.path, r.field, input, context));
    return *value;
  }

  // The value at `path` (a variable's, the context's or `input`'s) or null
  // when a step is missing; States.Runtime when the variable is unassigned.
  const Json* FindPath(const Path& path, const std::string& field,
                       const Json& input, const Context& context) const {
    if (!path.variable.empty())
      return Find(RequireVariable(path.variable, field), path);
    return path.context ? FindInContext(path, context) : Find(input, path);
  }

  // The value of a context field the executor knows (Resolver::
  // ContextField) as BuildContext would hold it, without building the
  // context; nullopt for any other path (and $$.Map.Item outside a Map).
  static std::optional<Json> KnownContextValue(Resolver::ContextField field,
                                               const Context& context) {
    using F = Resolver::ContextField;
    const RunOptions& o = context.options();
    switch (field) {
      case F::kExecutionId:
        return o.execution_arn;
      case F::kExecutionName:
        return o.execution_name;
      case F::kExecutionStartTime:
        return IsoTime(o.start_time);
      case F::kStateMachineId:
        return o.state_machine_arn;
      case F::kStateMachineName:
        return o.state_machine_name;
      case F::kStateName:
        return context.state();
      case F::kStateEnteredTime:
        return IsoTime(context.entered());
      case F::kStateRetryCount:
        return context.retry_count();
      case F::kMapItemIndex:
        if (context.item()) return context.item()->index;
        break;
      case F::kNone:
        break;
    }
    return std::nullopt;
  }

  Json Resolve(const Resolver& r, const Json& input, const Context& context) {
    if (auto known = KnownContextValue(r.context_field, context))
      return std::move(*known);
    if (r.intrinsic) {
      std::function<uint64_t()> random = [this] { return Rng()(); };
      const VariableLookup variables =
          [&](const std::string& name) -> const Json& {
        return RequireVariable(name, r.field);
      };
      // Outlives the call: a path that matches nothing is reported with
      // the document it searched.
      std::optional<Json> full;
      if (r.reads_execution_input) {
        full = context.json();
        (*full)["Execution"]["Input"] = *execution_input_;
      }
      try {
        return EvaluateIntrinsic(r.text, input, full ? *full : context.json(),
                                 random, &variables);
      } catch (const IntrinsicPathNotFound& e) {
        throw PathNotFound(e.path, r.field, e.data);
      }
    }
    // A query: ResolvePath finds where its definite part leads (Find walks
    // `steps` only), or PathNotFound (Jayway reports a missing member met
    // before the first selector that can match several); then the array
    // of its matches, [] when none, or PathNotFound (Query's nullopt).
    if (!r.path->IsReference()) {
      std::optional<Json> matches =
          Query(ResolvePath(r, input, context), *r.path);
      if (!matches)
        throw PathNotFound(r.text, r.field,
                           Root(*r.path, r.field, input, context));
      return std::move(*matches);
    }
    return ResolvePath(r, input, context);
  }

  Json Resolve(const std::string& text, const std::string& field,
               const Json& input, const Context& context) {
    return Resolve(MakeResolver(text, field), input, context);
  }

  // Builds a payload template. `lent` (a field of it, with `slot`) is left
  // null, `*slot` pointing at it, for the caller to move a document into.
  Json Template(const TemplateNode& t, const Json& input,
                const Context& context, const TemplateNode* lent = nullptr,
                Json** slot = nullptr) {
    switch (t.kind) {
      case TemplateNode::Kind::kObject: {
        Json out = Json::object();
        auto& members = out.get_ref<Json::object_t&>();
        members.reserve(t.keys.size());
        for (size_t i = 0; i < t.keys.size(); ++i) {
          const TemplateNode& child = t.children[i];
          if (&child == lent) {  // unique_keys: WholeInputField checked
            members.emplace_back(t.keys[i], nullptr);
            *slot = &members.back().second;
            continue;
          }
          Json value = child.kind == TemplateNode::Kind::kResolve
                           ? Resolve(child.resolver, input, context)
                           : Template(child, input, context, lent, slot);
          // Distinct keys are appended without a lookup.
          if (t.unique_keys) {
            members.emplace_back(t.keys[i], std::move(value));
          } else {
            out[t.keys[i]] = std::move(value);
          }
        }
        return out;
      }
      case TemplateNode::Kind::kArray: {
        Json out = Json::array();
        for (const auto& e : t.children)
          out.push_back(Template(e, input, context));
        return out;
      }
      case TemplateNode::Kind::kResolve:
        return Resolve(t.resolver, input, context);
      case TemplateNode::Kind::kLiteral:
        break;
    }
    return *t.literal;
  }

  // InputPath and OutputPath: absent gives the whole document, null gives
  // {}; a path reads the state's data or a variable, never the context; a
  // query gives the array of its matches (in `storage`).
  const Json* Select(const PathField& field, const Json& input, Json& storage,
                     const char* key) const {
    switch (field.mode) {
      case PathField::Mode::kAbsent:
        return &input;
      case PathField::Mode::kNull:
        storage = Json::object();
        return &storage;
      case PathField::Mode::kPath:
        break;
    }
    const Json* value =
        field.path.context ? nullptr
        : field.path.variable.empty()
            ? Find(input, field.path)
            : Find(RequireVariable(field.path.variable, key), field.path);
    std::optional<Json> matches;
    if (value && !field.path.IsReference())  // a query: the array of matches
      matches = Query(*value, field.path);
    if (!value || (!field.path.IsReference() && !matches))
      throw AslError("States.Runtime", "Invalid path '" + field.text +
                                           "' : No results for path: " + key);
    if (matches) {
      storage = std::move(*matches);
      return &storage;
    }
    return value;
  }

  // Select on a document no longer needed: the selection is moved out (a
  // variable's value is copied).
  Json Take(const PathField& field, Json&& input, const char* key) const {
    Json storage;
    const Json* value = Select(field, input, storage, key);
    if (value == &storage) return storage;
    if (!field.path.variable.empty()) return *value;
    return std::move(*const_cast<Json*>(value));
  }

  static Json ApplyResultPath(const CompiledState& s, Json&& raw_input,
                              Json result) {
    switch (s.result_path.mode) {
      case PathField::Mode::kAbsent:
        return result;
      case PathField::Mode::kNull:
        return std::move(raw_input);
      case PathField::Mode::kPath:
        break;
    }
    if (!Assign(raw_input, s.result_path.path, std::move(result)))
      throw AslError(
          "States.ResultPathMatchFailure",
          "Unable to apply ResultPath " + s.result_path.text + " to the input");
    return std::move(raw_input);
  }

  static Json ApplyResultPath(const CompiledState& s, const Json& raw_input,
                              Json result) {
    if (s.result_path.mode == PathField::Mode::kAbsent) return result;
    return ApplyResultPath(s, Json(raw_input), std::move(result));
  }

  static bool Matches(const Json& names, const std::string& error) {
    // States.Runtime and States.DataLimitExceeded are never retried or
    // caught; States.TaskFailed matches everything but States.Timeout.
    const bool terminal =
        error == "States.Runtime" || error == "States.DataLimitExceeded";
    for (const auto& n : names) {
      const std::string& name = n.get_ref<const std::string&>();
      if (name == error && !terminal) return true;
      if (name == "States.ALL" && !terminal) return true;
      if (name == "States.TaskFailed" && !terminal && error != "States.Timeout")
        return true;
    }
    return false;
  }

  // The run's generator (FULL jitter, States.UUID, MathRandom), seeded on
  // first use: most runs never draw.
  std::mt19937_64& Rng() {
    if (!rng_) rng_.emplace(options_.seed);
    return *rng_;
  }

  double Jitter(double wait) {
    std::uniform_real_distribution<double> d(0.0, wait);
    return d(Rng());
  }

  // Runs `attempt` (Json(int retry_count)) with the state's Retry and
  // Catch; returns the state's output and sets `next` when a catcher
  // redirects.
  template <typename Attempt>
  Json WithRetryAndCatch(const CompiledState& s, const Json& raw_input,
                         const MapItem* item, int* next, Json* assigned,
                         const Attempt& attempt) {
    const std::string& name = s.name;
    std::vector<int> counts;  // per retrier, made on the first error
    int retry_count = 0;
    while (true) {
      try {
        return attempt(retry_count);
      } catch (const AslError& e) {
        bool retried = false;
        counts.resize(s.retriers.size(), 0);
        for (size_t i = 0; i < s.retriers.size(); ++i) {
          const Retrier& r = s.retriers[i];
          if (!Matches(*r.error_equals, e.error())) continue;
          if (counts[i] >= r.max_attempts) break;
          double wait =
              r.interval_seconds * std::pow(r.backoff_rate, counts[i]);
          if (r.max_delay_seconds) wait = std::min(wait, *r.max_delay_seconds);
          if (r.full_jitter) wait = Jitter(wait);
          ++counts[i];
          ++retry_count;
          result_.waits.push_back(wait);
          Event("RetryScheduled", name, [&] {
            Json details = ErrorDetails(e);
            details["retrier"] = i;
            details["attempt"] = counts[i];
            details["wait"] = wait;
            return details;
          });
          now_ += wait;
          CheckDeadline();
          retried = true;
          break;
        }
        if (retried) continue;
        for (const Catcher& c : s.catchers) {
          if (!Matches(*c.error_equals, e.error())) continue;
          // A part the error does not name (a Fail state's) is "" here:
          // Step Functions binds an empty string in a catcher's output.
          Json error = {{"Error", e.error()}, {"Cause", e.cause()}};
          // The state's own Assign is not made; the catcher's is.
          *assigned = nullptr;
          if (c.assign) {
            const Context ctx(options_, name, entered_, retry_count, item);
            *assigned = Template(*c.assign, error, ctx);
          }
          Json output = raw_input;
          if (c.result_path.mode == PathField::Mode::kAbsent) {
            output = error;
          } else if (c.result_path.mode == PathField::Mode::kPath) {
            if (!Assign(output, c.result_path.path, error))
              throw AslError("States.ResultPathMatchFailure",
                             "Unable to apply the Catch ResultPath");
          }
          *next = c.next;
          Event("Caught", name, [&] {
            Json details = ErrorDetails(e);
            details["next"] = c.next_name;
            return details;
          });
          return output;
        }
        throw;
      }
    }
  }

  // Runs `program` in `scope` (the execution's, a branch's, an item's).
  Json Machine(const Program& program, Json input, const MapItem* item,
               Scope& scope) {
    const Scope* const enclosing = scope_;
    struct Restore {
      const Scope*& current;
      const Scope* saved;
      ~Restore() { current = saved; }
    } restore{scope_, enclosing};
    scope_ = &scope;
    int index = program.start;
    // The input of the first state is checked against the payload limit;
    // every later input is the previous state's output, checked already.
    bool checked = false;
    while (true) {
      const CompiledState& state = program.states[index];
      CheckDeadline();
      Count();  // <Type>StateEntered
      if (!checked) CheckSize(input, "the input of state ", &state.name);
      entered_ = now_;
      result_.states.push_back(state.name);
      DocumentEvent("StateEntered", state.name, "input", input);
      // Step sets `next` only when it decides where to go: a Choice, or a
      // catcher; otherwise the state's own Next or End applies. It may
      // consume `input`.
      int next = -1;
      Json assigned;  // what the state's Assign, or its catcher's, sets
      Json output = Step(state, input, item, &next, &assigned);
      CheckDeadline();
      // A Task whose output is its Payload was checked as the task's result.
      if (!state.passes_input_through && !state.output_is_payload)
        CheckSize(output, "the output of state ", &state.name);
      checked = true;
      Count();  // <Type>StateExited, also after a catch
      Event("StateExited", state.name, [&] {
        Json details = Json::object();
        if (documents_) {
          details["output"] = output;
          if (assigned.is_object()) details["assigned_variables"] = assigned;
        }
        return details;
      });
      // The state's paths read the variables as they were when it was
      // entered (Step Functions': an OutputPath of a variable the state
      // assigns reads the old value); what it assigns is set as it ends.
      if (assigned.is_object())
        for (auto& [name, value] : assigned.get_ref<Json::object_t&>())
          scope.variables[name] = std::move(value);
      if (next < 0) {
        if (state.type == StateType::kSucceed || state.end) return output;
        next = state.next;
      }
      index = next;
      Release(input);  // what Step left of it
      input = std::move(output);
    }
  }

  // `*assigned` is set to what the state's Assign evaluates to ({name:
  // value}), from what its type gives as $: a Pass's result (Result, the
  // Parameters, else the effective input), a Wait's or a Choice's
  // effective input, a Task's raw result (Lambda's wrapper for
  // lambda:invoke), a Parallel's or a Map's array of results; a catcher's
  // Assign instead, from the error output.
  Json Step(const CompiledState& s, Json& input, const MapItem* item, int* next,
            Json* assigned) {
    const Json& state = *s.json;
    const std::string& name = s.name;
    const Context context(options_, name, entered_, 0, item);
    switch (s.type) {
      case StateType::kPass: {
        Json storage;
        const Json* effective =
            Select(s.input_path, input, storage, "InputPath");
        Json result;
        if (s.parameters) result = Template(*s.parameters, *effective, context);
        if (s.result) {
          result = *s.result;
        } else if (!s.parameters) {
          if (s.result_path.mode == PathField::Mode::kAbsent &&
              s.input_path.path.variable.empty())
            result = std::move(*const_cast<Json*>(effective));
          else
            result = *effective;
        }
        if (s.assign) *assigned = Template(*s.assign, result, context);
        return Take(s.output_path,
                    ApplyResultPath(s, std::move(input), std::move(result)),
                    "OutputPath");
      }
      case StateType::kSucceed:
        return Take(s.output_path,
                    Take(s.input_path, std::move(input), "InputPath"),
                    "OutputPath");
      case StateType::kFail: {
        // What the state does not name stays absent.
        const auto part = [&](const Json* literal,
                              const std::optional<Resolver>& path) {
          std::optional<std::string> text;
          if (literal) {
            text = literal->get<std::string>();
          } else if (path) {
            Json v = Resolve(*path, input, context);
            if (!v.is_string())
              throw AslError("States.Runtime",
                             path->field + " must select a string");
            text = std::move(v.get_ref<std::string&>());
          }
          return text;
        };
        std::optional<std::string> error = part(s.error, s.error_path);
        std::optional<std::string> cause = part(s.cause, s.cause_path);
        throw AslError::FromFailState(std::move(error), std::move(cause));
      }
      case StateType::kWait: {
        Json effective = Take(s.input_path, std::move(input), "InputPath");
        double until = now_;
        if (state.contains("Seconds"))
          until = now_ + state["Seconds"].get<double>();
        if (state.contains("SecondsPath")) {
          Json v = Resolve(state["SecondsPath"].get<std::string>(),
                           "SecondsPath", effective, context);
          if (!v.is_number() || v.get<double>() < 0)
            throw AslError("States.Runtime",
                           "SecondsPath is not a non-negative number");
          until = now_ + v.get<double>();
        }
        for (const char* key : {"Timestamp", "TimestampPath"}) {
          if (!state.contains(key)) continue;
          Json v = std::string(key) == "Timestamp"
                       ? state[key]
                       : Resolve(state[key].get<std::string>(), key, effective,
                                 context);
          std::optional<double> t =
              v.is_string() ? ParseTime(v.get<std::string>()) : std::nullopt;
          if (!t)
            throw AslError("States.Runtime", "invalid timestamp for Wait");
          until = std::max(now_, *t);
        }
        if (s.assign) *assigned = Template(*s.assign, effective, context);
        Event("WaitStarted", name, [&] {
          return Json{{"seconds", until - now_}};
        });
        now_ = until;
        return Take(s.output_path, std::move(effective), "OutputPath");
      }
      case StateType::kChoice: {
        Json effective = Take(s.input_path, std::move(input), "InputPath");
        for (const Rule& rule : s.choices) {
          if (Evaluate(rule, effective, context)) {
            *next = rule.next;
            if (rule.assign)
              *assigned = Template(*rule.assign, effective, context);
            return Take(s.output_path, std::move(effective), "OutputPath");
          }
        }
        if (!s.has_default)
          throw AslError("States.NoChoiceMatched",
                         "No Matches! at state " + name);
        *next = s.default_next;
        if (s.assign) *assigned = Template(*s.assign, effective, context);
        return Take(s.output_path, std::move(effective), "OutputPath");
      }
      case StateType::kTask:
      case StateType::kParallel:
      case StateType::kMap:
        break;
    }
    // Task, Parallel and Map retry and catch; `input` stays whole for the
    // next attempt and the catchers.
    const Json& raw_input = input;
    return WithRetryAndCatch(
        s, raw_input, item, next, assigned, [&](int retry_count) {
          const Context ctx(options_, name, entered_, retry_count, item);
          Json storage;
          const Json* selected =
              Select(s.input_path, raw_input, storage, "InputPath");
          Json result;
          if (s.type == StateType::kMap) {
            result = RunMap(s, *selected, ctx);
          } else if (s.type == StateType::kTask && s.lends_input) {
            // The input goes to the invocation and comes back (Invoke).
            Json* slot = nullptr;
            Json effective = s.parameters ? Template(*s.parameters, *selected,
                                                     ctx, s.lent_field, &slot)
                                          : Json();
            result = Invoke(s, std::move(effective), retry_count, &input, slot);
            if (s.output_is_payload) return result;
          } else {
            Json effective = s.parameters
                                 ? Template(*s.parameters, *selected, ctx)
                                 : Json(*selected);
            if (s.type == StateType::kTask) {
              result = Invoke(s, std::move(effective), retry_count);
              if (s.output_is_payload) return result;
            } else {
              result = Json::array();
              Count();  // ParallelStateStarted
              try {
                for (const Program& branch : s.branches) {
                  Scope inner{scope_, {}};
                  result.push_back(Machine(branch, effective, nullptr, inner));
                }
              } catch (const AslError& e) {
                if (!IsQuota(e)) Count();  // ParallelStateFailed
                throw;
              }
              Count();  // ParallelStateSucceeded
            }
          }
          if (s.assign) *assigned = Template(*s.assign, result, ctx);
          if (s.result_selector)
            result = Template(*s.result_selector, result, ctx);
          return Take(s.output_path,
                      ApplyResultPath(s, raw_input, std::move(result)),
                      "OutputPath");
        });
  }

  // Moves a document into a place for a while and back when it ends,
  // however it ends.
  class Lend {
   public:
    Lend(Json* owner, Json* place) : owner_(owner), place_(place) {
      if (owner_) *place_ = std::move(*owner_);
    }
    ~Lend() {
      if (owner_) *owner_ = std::move(*place_);
    }
    Lend(const Lend&) = delete;
    Lend& operator=(const Lend&) = delete;

   private:
    Json* owner_;
    Json* place_;
  };

  // Releases a document when it goes out of scope, however the scope ends.
  class ReleaseOnExit {
   public:
    explicit ReleaseOnExit(Json& doc) : doc_(doc) {}
    ~ReleaseOnExit() { Release(doc_); }
    ReleaseOnExit(const ReleaseOnExit&) = delete;
    ReleaseOnExit& operator=(const ReleaseOnExit&) = delete;

   private:
    Json& doc_;
  };

  // Invokes a Task with `effective` as its input. With `lent` (the state's
  // input), that document is moved into the invocation's input at `slot`
  // (its null field; the whole input when null) for the call and moved
  // back before Invoke returns or throws: the handler sees it as const,
  // and nothing reads the state's input meanwhile.
  Json Invoke(const CompiledState& s, Json effective, int retry_count,
              Json* lent = nullptr, Json* slot = nullptr) {
    const std::string& name = s.name;
    const std::string& resource = s.resource;
    // Moving `effective` keeps its members where they are: `slot` holds.
    TaskInvocation invocation{name, resource, std::move(effective), retry_count,
                              now_};
    // Declared before `lend`, so it runs after the lent document went back.
    const ReleaseOnExit release_parameters(invocation.input);
    const Lend lend(lent, slot ? slot : &invocation.input);
    Count(2);  // TaskScheduled, TaskStarted (or Lambda's, an activity's)
    Event("TaskScheduled", name, [&] {
      Json details = {{"resource", resource}};
      if (documents_) details["parameters"] = invocation.input;
      details["retry_count"] = retry_count;
      if (s.heartbeat_seconds)
        details["heartbeat_seconds"] = *s.heartbeat_seconds;
      return details;
    });
    TaskOutcome outcome;
    try {
      outcome = handler_(invocation);
    } catch (const AslError& e) {
      Count();  // TaskFailed
      Event("TaskFailed", name, [&] { return ErrorDetails(e); });
      throw;
    }
    if (s.timeout_seconds && outcome.seconds > *s.timeout_seconds) {
      now_ += *s.timeout_seconds;
      Count();  // TaskTimedOut
      Event("TaskTimedOut", name, [] {
        return Json{{"error", "States.Timeout"}};
      });
      throw AslError("States.Timeout", "Task timed out");
    }
    now_ += outcome.seconds;
    CheckDeadline();
    CheckSize(outcome.result, "the result of task ", &name);
    Count();  // TaskSucceeded
    Json result = std::move(outcome.result);
    if (s.output_is_payload) {  // the state's output: the Payload alone
      Event("TaskSucceeded", name, [&] {
        Json details = Json::object();
        if (documents_) details["output"] = LambdaResult(result);
        return details;
      });
      return result;
    }
    if (s.lambda_invoke) result = LambdaResult(std::move(result));
    DocumentEvent("TaskSucceeded", name, "output", result);
    return result;
  }

  // What lambda:invoke returns for a function's result.
  static Json LambdaResult(Json payload) {
    Json wrapped = Json::object();
    auto& members = wrapped.get_ref<Json::object_t&>();
    members.reserve(3);
    members.emplace_back("ExecutedVersion", "$LATEST");
    members.emplace_back("Payload", std::move(payload));
    members.emplace_back("StatusCode", 200);
    return wrapped;
  }

  Json RunMap(const CompiledState& s, const Json& effective,
              const Context& context) {
    const std::string& name = s.name;
    const Json& items = s.has_items_path
                            ? ResolvePath(s.items_path, effective, context)
                            : effective;
    if (!items.is_array())
      throw AslError("States.Runtime",
                     "Map state input is not an array at ItemsPath");
    const TemplateNode* selector = s.item_selector ? s.item_selector.get()
                                   : s.parameters  ? s.parameters.get()
                                                   : nullptr;
    Json results = Json::array();
    Count();  // MapStateStarted
    Event("MapStarted", name, [&] { return Json{{"items", items.size()}}; });
    // Items run one after another here, but on the virtual clock they run
    // in MaxConcurrency lanes (0: one lane per item): each item starts, in
    // index order, when the earliest lane is free, so the clock shows what
    // the limit does (1: strictly in order; the Map takes the sum of its
    // items) and the Map ends when its last lane does.
    const int64_t max_concurrency = s.json->value("MaxConcurrency", 0);
    const double map_start = now_;
    double map_end = now_;
    std::vector<double> lanes;  // when each lane is free again
    for (size_t i = 0; i < items.size(); ++i) {
      MapItem item{static_cast<int64_t>(i), items[i]};
      Json item_input =
          selector ? Template(*selector, effective, context.WithItem(&item))
                   : items[i];
      size_t lane = lanes.size();
      if (max_concurrency > 0 &&
          lanes.size() >= static_cast<size_t>(max_concurrency)) {
        lane = static_cast<size_t>(
            std::min_element(lanes.begin(), lanes.end()) - lanes.begin());
        now_ = lanes[lane];
      } else {
        lanes.push_back(map_start);
        now_ = map_start;
      }
      Count();  // MapIterationStarted
      Event("MapIterationStarted", name, [&] { return Json{{"index", i}}; });
      try {
        Scope inner{scope_, {}};
        results.push_back(
            Machine(*s.processor, std::move(item_input), &item, inner));
      } catch (const AslError& e) {
        if (!IsQuota(e)) Count(2);  // MapIterationFailed, MapStateFailed
        throw;
      }
      Count();  // MapIterationSucceeded
      Event("MapIterationSucceeded", name, [&] { return Json{{"index", i}}; });
      lanes[lane] = now_;
      map_end = std::max(map_end, now_);
    }
    now_ = map_end;
    Count();  // MapStateSucceeded
    return results;
  }

  static bool IsTimestamp(const Json& v) {
    return v.is_string() && ParseTime(v.get<std::string>()).has_value();
  }

  static bool WildcardMatch(const std::string& s, const std::string& pattern) {
    // '*' matches any run; "\*" is a literal star.
    std::vector<std::pair<char, bool>> p;  // (char, is_wildcard)
    for (size_t i = 0; i < pattern.size(); ++i) {
      if (pattern[i] == '\\' && i + 1 < pattern.size()) {
        p.emplace_back(pattern[++i], false);
      } else {
        p.emplace_back(pattern[i], pattern[i] == '*');
      }
    }
    size_t si = 0, pi = 0, star = std::string::npos, mark = 0;
    while (si < s.size()) {
      if (pi < p.size() && !p[pi].second && p[pi].first == s[si]) {
        ++si;
        ++pi;
      } else if (pi < p.size() && p[pi].second) {
        star = pi++;
        mark = si;
      } else if (star != std::string::npos) {
        pi = star + 1;
        si = ++mark;
      } else {
        return false;
      }
    }
    while (pi < p.size() && p[pi].second) ++pi;
    return pi == p.size();
  }

  bool Evaluate(const Rule& rule, const Json& input, const Context& context) {
    switch (rule.kind) {
      case Rule::Kind::kAnd:
        for (const Rule& r : rule.children)
          if (!Evaluate(r, input, context)) return false;
        return true;
      case Rule::Kind::kOr:
        for (const Rule& r : rule.children)
          if (Evaluate(r, input, context)) return true;
        return false;
      case Rule::Kind::kNot:
        return !Evaluate(rule.children[0], input, context);
      case Rule::Kind::kLeaf:
        break;
    }
    const Json* value =
        FindPath(rule.variable_path, "Variable", input, context);
    if (rule.is_present)
      return (value != nullptr) == rule.is_present->get<bool>();
    if (!value)
      throw AslError("States.Runtime", "Invalid path '" + rule.variable +
                                           "': The choice state's condition "
                                           "path references an invalid value.");
    if (!rule.has_comparator) return false;
    const Json& v = *value;
    Json resolved;
    if (rule.operand_is_path)
      resolved = Resolve(rule.operand_path, input, context);
    const Json& operand = rule.operand_is_path ? resolved : *rule.operand;
    switch (rule.op) {
      case Op::kIsNull:
        return v.is_null() == operand.get<bool>();
      case Op::kIsNumeric:
        return v.is_number() == operand.get<bool>();
      case Op::kIsString:
        return v.is_string() == operand.get<bool>();
      case Op::kIsBoolean:
        return v.is_boolean() == operand.get<bool>();
      case Op::kIsTimestamp:
        return IsTimestamp(v) == operand.get<bool>();
      case Op::kBooleanEquals:
        return v.is_boolean() && operand.is_boolean() && v == operand;
      case Op::kStringEquals:
      case Op::kStringLessThan:
      case Op::kStringGreaterThan:
      case Op::kStringLessThanEquals:
      case Op::kStringGreaterThanEquals:
      case Op::kStringMatches:
      case Op::kStringOther: {
        if (!v.is_string() || !operand.is_string()) return false;
        const std::string& a = v.get_ref<const std::string&>();
        const std::string& b = operand.get_ref<const std::string&>();
        switch (rule.op) {
          case Op::kStringEquals:
            return a == b;
          case Op::kStringLessThan:
            return a < b;
          case Op::kStringGreaterThan:
            return a > b;
          case Op::kStringLessThanEquals:
            return a <= b;
          case Op::kStringGreaterThanEquals:
            return a >= b;
          case Op::kStringMatches:
            return WildcardMatch(a, b);
          default:
            return false;
        }
      }
      case Op::kNumericEquals:
      case Op::kNumericLessThan:
      case Op::kNumericGreaterThan:
      case Op::kNumericLessThanEquals:
      case Op::kNumericGreaterThanEquals:
      case Op::kNumericOther: {
        if (!v.is_number() || !operand.is_number()) return false;
        const double a = v.get<double>(), b = operand.get<double>();
        switch (rule.op) {
          case Op::kNumericEquals:
            return a == b;
          case Op::kNumericLessThan:
            return a < b;
          case Op::kNumericGreaterThan:
            return a > b;
          case Op::kNumericLessThanEquals:
            return a <= b;
          case Op::kNumericGreaterThanEquals:
            return a >= b;
          default:
            return false;
        }
      }
      case Op::kTimestampEquals:
      case Op::kTimestampLessThan:
      case Op::kTimestampGreaterThan:
      case Op::kTimestampLessThanEquals:
      case Op::kTimestampGreaterThanEquals:
      case Op::kTimestampOther: {
        if (!IsTimestamp(v) || !IsTimestamp(operand)) return false;
        const double a = *ParseTime(v.get<std::string>());
        const double b = *ParseTime(operand.get<std::string>());
        switch (rule.op) {
          case Op::kTimestampEquals:
            return a == b;
          case Op::kTimestampLessThan:
            return a < b;
          case Op::kTimestampGreaterThan:
            return a > b;
          case Op::kTimestampLessThanEquals:
            return a <= b;
          case Op::kTimestampGreaterThanEquals:
            return a >= b;
          default:
            return false;
        }
      }
      case Op::kOther:
        break;
    }
    return false;
  }

  // States.DataLimitExceeded when `value` serializes to more than the
  // payload limit ("<what><name> is N bytes...").
  void CheckSize(const Json& value, const char* what,
                 const std::string* name = nullptr) {
    if (DumpSizer::UpperBound(value) <= options_.max_payload_bytes) return;
    const size_t size = dump_size_(value);
    if (size > options_.max_payload_bytes)
      throw AslError("States.DataLimitExceeded",
                     std::string(what) + (name ? *name : std::string()) +
                         " is " + std::to_string(size) +
                         " bytes, above the limit of " +
                         std::to_string(options_.max_payload_bytes));
  }

  // Counts `n` events of the execution's history as Step Functions writes
  // them (RunOptions::history aside), and fails the execution as Step
  // Functions does when one would be the quota's last (RunOptions::
  // max_history_events, kMaxHistoryEvents but in benchmarks): that one is
  // ExecutionFailed instead. The events: ExecutionStarted; each state's
  // <Type>StateEntered, and <Type>StateExited when it ends other than by
  // failing (a caught error included; a Fail state has none); each Task
  // attempt's TaskScheduled and TaskStarted before the handler runs and
  // TaskSucceeded, TaskFailed or TaskTimedOut after; a Parallel attempt's
  // ParallelStateStarted, then ParallelStateSucceeded or ParallelStateFailed;
  // a Map attempt's MapStateStarted, each iteration's MapIterationStarted
  // and MapIterationSucceeded (or MapIterationFailed and MapStateFailed),
  // then MapStateSucceeded. A state that fails before its Task is scheduled
  // (a path, an intrinsic) counts no event for it; retries and waits none.
  void Count(int64_t n = 1) {
    history_events_ += n;
    if (history_events_ >= options_.max_history_events)
      throw AslError("States.Runtime",
                     "The execution reached the maximum number of history "
                     "events (" +
                         std::to_string(options_.max_history_events) + ").");
  }

  // Whether `e` is Count's failure, after which no further event is written.
  bool IsQuota(const AslError& e) const {
    return history_events_ >= options_.max_history_events &&
           e.error() == "States.Runtime";
  }

  // The execution fails with States.Timeout once the virtual clock passes
  // the definition's TimeoutSeconds or the execution's limit.
  void CheckDeadline() const {
    if (deadline_ > 0 && now_ - options_.start_time > deadline_)
      throw ExecutionTimeout("the execution exceeded its timeout of " +
                             std::to_string(static_cast<int64_t>(deadline_)) +
                             "s");
  }

  const TaskHandler& handler_;
  const RunOptions& options_;
  double deadline_ = 0;
  RunResult& result_;
  const bool events_, documents_;  // what the history keeps
  std::optional<std::mt19937_64> rng_;
  double now_;
  double entered_ = 0;
  const Scope* scope_ = nullptr;  // the current Machine's
  int64_t history_events_ = 0;    // Count
  const Json* execution_input_ = nullptr;
  DumpSizer dump_size_;
};

}  // namespace

StateMachine::StateMachine(nlohmann::ordered_json definition)
    : definition_(std::move(definition)) {
  auto program = std::make_unique<detail::Program>();
  Compiler().Machine(definition_, program.get());
  program_ = std::move(program);
}

StateMachine::~StateMachine() = default;

std::unique_ptr<StateMachine> StateMachine::Load(
    const nlohmann::ordered_json& definition, std::string* error) {
  Validator validator;
  if (!validator.Machine(definition, "")) {
    if (error) *error = validator.error();
    return nullptr;
  }
  return std::unique_ptr<StateMachine>(new StateMachine(definition));
}

RunResult StateMachine::Run(const nlohmann::ordered_json& input,
                            const TaskHandler& handler,
                            const RunOptions& options) const {
  RunResult result;
  class Run run(handler, options, result);
  try {
    result.output = run.Execute(definition_, *program_, input);
    result.status = "SUCCEEDED";
    run.DocumentEvent("ExecutionSucceeded", "", "output", result.output);
  } catch (const AslError& e) {
    result.status = "FAILED";
    if (e.has_error()) result.error = e.error();
    if (e.has_cause()) result.cause = e.cause();
    result.output = nullptr;
    run.Event("ExecutionFailed", "", [&] { return ErrorDetails(result); });
  } catch (const ExecutionTimeout& e) {
    result.status = "FAILED";
    result.error = "States.Timeout";
    result.cause = e.what();
    result.output = nullptr;
    run.Event("ExecutionTimedOut", "", [&] { return ErrorDetails(result); });
  }
  result.end_time = run.now();
  return result;
}

nlohmann::ordered_json HistoryToJson(const std::vector<HistoryEvent>& history) {
  Json out = Json::array();
  for (const auto& e : history) {
    Json event = {
        {"id", e.id}, {"timestamp", IsoTime(e.timestamp)}, {"type", e.type}};
    if (!e.state.empty()) event["state"] = e.state;
    if (!e.details.empty()) event["details"] = e.details;
    out.push_back(event);
  }
  return out;
}

std::string FormatHistory(const std::vector<HistoryEvent>& history) {
  std::string out;
  const double start = history.empty() ? 0 : history.front().timestamp;
  for (const auto& e : history) {
    char line[96];
    std::snprintf(line, sizeof line, "%4lld  +%9.3fs  %-22s ",
                  static_cast<long long>(e.id), e.timestamp - start,
                  e.type.c_str());
    out += line;
    out += e.state;
    if (!e.details.empty()) {
      std::string details = e.details.dump();
      if (details.size() > 160) details = details.substr(0, 157) + "...";
      out += "  " + details;
    }
    out += "\n";
  }
  return out;
}

}  // namespace novacat::runtime::asl
