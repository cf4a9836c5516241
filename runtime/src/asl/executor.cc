#include "novacat/runtime/asl/executor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>
#include <set>

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
  bool Machine(const Json& machine, const std::string& at) {
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
    if (!states.contains(machine["StartAt"].get<std::string>()))
      return Fail(Pointer(at, "StartAt"), "names no state");
    for (auto it = states.begin(); it != states.end(); ++it) {
      if (!State(states, it.key(), it.value(),
                 Pointer(Pointer(at, "States"), it.key())))
        return false;
    }
    return true;
  }

  const std::string& error() const { return error_; }

 private:
  bool Fail(const std::string& at, const std::string& why) {
    error_ = (at.empty() ? std::string("/") : at) + ": " + why;
    return false;
  }

  bool Target(const Json& states, const Json& value, const std::string& at) {
    if (!value.is_string() || !states.contains(value.get<std::string>()))
      return Fail(at, "names no state in this scope");
    return true;
  }

  bool PathField(const Json& state, const char* key, const std::string& at,
                 bool nullable) {
    if (!state.contains(key)) return true;
    const Json& v = state[key];
    if (v.is_null() && nullable) return true;
    if (!v.is_string() || !ParsePath(v.get<std::string>()))
      return Fail(Pointer(at, key), "not a supported reference path");
    return true;
  }

  bool Template(const Json& value, const std::string& at) {
    if (value.is_object()) {
      for (auto it = value.begin(); it != value.end(); ++it) {
        const std::string& key = it.key();
        if (key.size() > 2 && key.compare(key.size() - 2, 2, ".$") == 0) {
          if (!it->is_string())
            return Fail(Pointer(at, key), "a .$ field needs a string");
          const std::string text = it->get<std::string>();
          if (IsIntrinsic(text)) {
            if (!Intrinsics(text, Pointer(at, key))) return false;
          } else if (!ParsePath(text)) {
            return Fail(Pointer(at, key), "not a supported path: " + text);
          }
        } else if (!Template(*it, Pointer(at, key))) {
          return false;
        }
      }
    } else if (value.is_array()) {
      for (size_t i = 0; i < value.size(); ++i)
        if (!Template(value[i], Pointer(at, std::to_string(i)))) return false;
    }
    return true;
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

  bool Rule(const Json& states, const Json& rule, const std::string& at,
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
    if (!rule.contains("Variable") || !rule["Variable"].is_string() ||
        !ParsePath(rule["Variable"].get<std::string>()))
      return Fail(Pointer(at, "Variable"), "missing or not a supported path");
    int comparators = 0;
    for (auto it = rule.begin(); it != rule.end(); ++it) {
      const std::string& key = it.key();
      if (key == "Variable" || key == "Next" || key == "Comment") continue;
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
      if (path && (!it->is_string() || !ParsePath(it->get<std::string>())))
        return Fail(Pointer(at, key), "not a supported path");
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

  bool Catchers(const Json& states, const Json& state, const std::string& at) {
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

  bool State(const Json& states, const std::string& name, const Json& state,
             const std::string& at) {
    if (!state.is_object() || !state.contains("Type") ||
        !state["Type"].is_string())
      return Fail(Pointer(at, "Type"), "missing");
    const std::string type = state["Type"];
    static const std::map<std::string, std::set<std::string>> kFields = {
        {"Pass", {"Result", "Parameters", "ResultPath"}},
        {"Task",
         {"Resource", "Parameters", "ResultSelector", "ResultPath",
          "TimeoutSeconds", "Retry", "Catch"}},
        {"Choice", {"Choices", "Default"}},
        {"Wait", {"Seconds", "SecondsPath", "Timestamp", "TimestampPath"}},
        {"Succeed", {}},
        {"Fail", {"Error", "Cause", "ErrorPath", "CausePath"}},
        {"Parallel",
         {"Branches", "Parameters", "ResultSelector", "ResultPath", "Retry",
          "Catch"}},
        {"Map",
         {"ItemsPath", "ItemSelector", "Parameters", "ItemProcessor",
          "Iterator", "MaxConcurrency", "ResultSelector", "ResultPath", "Retry",
          "Catch"}}};
    auto fields = kFields.find(type);
    if (fields == kFields.end())
      return Fail(Pointer(at, "Type"), "unknown state type " + type);
    for (auto it = state.begin(); it != state.end(); ++it) {
      const std::string& key = it.key();
      if (key == "Type" || key == "Comment" || key == "Next" || key == "End" ||
          key == "InputPath" || key == "OutputPath")
        continue;
      if (!fields->second.count(key))
        return Fail(Pointer(at, key), "not supported by the executor");
    }
    if (type != "Choice" && type != "Succeed" && type != "Fail") {
      bool next = state.contains("Next"), end = state.value("End", false);
      if (next == end) return Fail(at, "needs exactly one of Next and End");
      if (next && !Target(states, state["Next"], Pointer(at, "Next")))
        return false;
    }
    if (!PathField(state, "InputPath", at, true) ||
        !PathField(state, "OutputPath", at, true) ||
        !PathField(state, "ResultPath", at, true) ||
        !PathField(state, "ItemsPath", at, false) ||
        !PathField(state, "SecondsPath", at, false) ||
        !PathField(state, "TimestampPath", at, false) ||
        !PathField(state, "ErrorPath", at, false) ||
        !PathField(state, "CausePath", at, false))
      return false;
    for (const char* t : {"Parameters", "ResultSelector", "ItemSelector"})
      if (state.contains(t) && !Template(state[t], Pointer(at, t)))
        return false;
    if (type == "Task") {
      if (!state.contains("Resource") || !state["Resource"].is_string())
        return Fail(Pointer(at, "Resource"), "missing");
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
                     Pointer(Pointer(at, "Branches"), std::to_string(i))))
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
      if (!Machine(processor, Pointer(at, key))) return false;
    }
    (void)name;
    return Retriers(state, at) && Catchers(states, state, at);
  }

  std::string error_;
};

// ---- running ----------------------------------------------------------------

struct MapItem {
  int64_t index = 0;
  Json value;
};

class Run {
 public:
  Run(const TaskHandler& handler, const RunOptions& options, RunResult& result)
      : handler_(handler),
        options_(options),
        result_(result),
        rng_(options.seed),
        now_(options.start_time) {}

  Json Execute(const Json& definition, const Json& input) {
    execution_input_ = input;
    deadline_ = 0;
    if (definition.contains("TimeoutSeconds"))
      deadline_ = definition["TimeoutSeconds"].get<double>();
    if (options_.execution_timeout_seconds > 0 &&
        (deadline_ == 0 || options_.execution_timeout_seconds < deadline_))
      deadline_ = options_.execution_timeout_seconds;
    CheckSize(input, "the execution input");
    Event("ExecutionStarted", "", {{"input", input}});
    return Machine(definition, input, nullptr);
  }

  double now() const { return now_; }

  void Event(const std::string& type, const std::string& state,
             Json details = Json::object()) {
    HistoryEvent e;
    e.id = static_cast<int64_t>(result_.history.size()) + 1;
    e.timestamp = now_;
    e.type = type;
    e.state = state;
    e.details = std::move(details);
    result_.history.push_back(std::move(e));
  }

 private:
  Json Context(const std::string& state, int retry_count,
               const MapItem* item) const {
    Json context = {{"Execution",
                     {{"Id", options_.execution_arn},
                      {"Name", options_.execution_name},
                      {"StartTime", IsoTime(options_.start_time)}}},
                    {"StateMachine",
                     {{"Id", options_.state_machine_arn},
                      {"Name", options_.state_machine_name}}},
                    {"State",
                     {{"Name", state},
                      {"EnteredTime", IsoTime(entered_)},
                      {"RetryCount", retry_count}}}};
    if (item)
      context["Map"] = {
          {"Item", {{"Index", item->index}, {"Value", item->value}}}};
    return context;
  }

  // $$.Execution.Input is not copied into every context object (each step
  // would then cost the size of the execution input); it is looked up here,
  // or added for the rare intrinsic that reads it.
  const Json* FindInContext(const Path& path, const Json& context) const {
    const auto* first = path.steps.size() >= 2
                            ? std::get_if<std::string>(&path.steps[0])
                            : nullptr;
    const auto* second =
        first ? std::get_if<std::string>(&path.steps[1]) : nullptr;
    if (second && *first == "Execution" && *second == "Input") {
      Path rest{false, {path.steps.begin() + 2, path.steps.end()}};
      return Find(execution_input_, rest);
    }
    return Find(context, path);
  }

  Json Resolve(const std::string& text, const Json& input, const Json& context,
               const char* error) {
    if (IsIntrinsic(text)) {
      std::function<uint64_t()> random = [this] { return rng_(); };
      if (text.find("$$.Execution.Input") != std::string::npos) {
        Json full = context;
        full["Execution"]["Input"] = execution_input_;
        return EvaluateIntrinsic(text, input, full, random);
      }
      return EvaluateIntrinsic(text, input, context, random);
    }
    std::optional<Path> path = ParsePath(text);
    const Json* value = !path           ? nullptr
                        : path->context ? FindInContext(*path, context)
                                        : Find(input, *path);
    if (!value)
      throw AslError(
          error, "The JSONPath '" + text + "' could not be found in the input");
    return *value;
  }

  Json Template(const Json& t, const Json& input, const Json& context) {
    if (t.is_object()) {
      Json out = Json::object();
      for (auto it = t.begin(); it != t.end(); ++it) {
        const std::string& key = it.key();
        if (key.size() > 2 && key.compare(key.size() - 2, 2, ".$") == 0) {
          // AWS fails the execution with States.Runtime (not catchable)
          // when a payload template path matches nothing.
          out[key.substr(0, key.size() - 2)] =
              Resolve(it->get<std::string>(), input, context, "States.Runtime");
        } else {
          out[key] = Template(*it, input, context);
        }
      }
      return out;
    }
    if (t.is_array()) {
      Json out = Json::array();
      for (const auto& e : t) out.push_back(Template(e, input, context));
      return out;
    }
    return t;
  }

  // InputPath: null gives {}, absent gives the whole input.
  Json ApplyInputPath(const Json& state, const Json& input, const char* key) {
    if (!state.contains(key)) return input;
    if (state[key].is_null()) return Json::object();
    std::optional<Path> path = ParsePath(state[key].get<std::string>());
    // InputPath and OutputPath read the state's data, never the context.
    const Json* value = path->context ? nullptr : Find(input, *path);
    if (!value)
      throw AslError("States.Runtime", std::string("Invalid path '") +
                                           state[key].get<std::string>() +
                                           "' : No results for path: " + key);
    return *value;
  }

  Json ApplyResultPath(const Json& state, const Json& raw_input, Json result) {
    if (!state.contains("ResultPath")) return result;
    if (state["ResultPath"].is_null()) return raw_input;
    std::optional<Path> path =
        ParsePath(state["ResultPath"].get<std::string>());
    Json out = raw_input;
    if (!Assign(out, *path, std::move(result)))
      throw AslError("States.ResultPathMatchFailure",
                     "Unable to apply ResultPath " +
                         state["ResultPath"].get<std::string>() +
                         " to the input");
    return out;
  }

  static bool Matches(const Json& names, const std::string& error) {
    // States.Runtime and States.DataLimitExceeded are never retried or
    // caught; States.TaskFailed matches everything but States.Timeout.
    const bool terminal =
        error == "States.Runtime" || error == "States.DataLimitExceeded";
    for (const auto& n : names) {
      const std::string name = n.get<std::string>();
      if (name == error && !terminal) return true;
      if (name == "States.ALL" && !terminal) return true;
      if (name == "States.TaskFailed" && !terminal && error != "States.Timeout")
        return true;
    }
    return false;
  }

  double Jitter(double wait) {
    std::uniform_real_distribution<double> d(0.0, wait);
    return d(rng_);
  }

  // Runs `attempt` with the state's Retry and Catch; returns the state's
  // output and sets `next` when a catcher redirects.
  Json WithRetryAndCatch(const std::string& name, const Json& state,
                         const Json& raw_input, std::string* next,
                         const std::function<Json(int)>& attempt) {
    const Json retriers = state.value("Retry", Json::array());
    std::vector<int> counts(retriers.size(), 0);
    int retry_count = 0;
    while (true) {
      try {
        return attempt(retry_count);
      } catch (const AslError& e) {
        bool retried = false;
        for (size_t i = 0; i < retriers.size(); ++i) {
          const Json& r = retriers[i];
          if (!Matches(r["ErrorEquals"], e.error())) continue;
          int max_attempts = r.value("MaxAttempts", 3);
          if (counts[i] >= max_attempts) break;
          double interval = r.value("IntervalSeconds", 1.0);
          double rate = r.value("BackoffRate", 2.0);
          double wait = interval * std::pow(rate, counts[i]);
          if (r.contains("MaxDelaySeconds"))
            wait = std::min(wait, r["MaxDelaySeconds"].get<double>());
          if (r.value("JitterStrategy", "NONE") == "FULL") wait = Jitter(wait);
          ++counts[i];
          ++retry_count;
          result_.waits.push_back(wait);
          Event("RetryScheduled", name,
                {{"error", e.error()},
                 {"cause", e.cause()},
                 {"retrier", i},
                 {"attempt", counts[i]},
                 {"wait", wait}});
          now_ += wait;
          CheckDeadline();
          retried = true;
          break;
        }
        if (retried) continue;
        for (const auto& c : state.value("Catch", Json::array())) {
          if (!Matches(c["ErrorEquals"], e.error())) continue;
          Json error = {{"Error", e.error()}, {"Cause", e.cause()}};
          Json output = raw_input;
          if (!c.contains("ResultPath")) {
            output = error;
          } else if (!c["ResultPath"].is_null()) {
            std::optional<Path> path =
                ParsePath(c["ResultPath"].get<std::string>());
            if (!Assign(output, *path, error))
              throw AslError("States.ResultPathMatchFailure",
                             "Unable to apply the Catch ResultPath");
          }
          *next = c["Next"].get<std::string>();
          Event("Caught", name,
                {{"error", e.error()}, {"cause", e.cause()}, {"next", *next}});
          return output;
        }
        throw;
      }
    }
  }

  Json Machine(const Json& machine, Json input, const MapItem* item) {
    const Json& states = machine["States"];
    std::string name = machine["StartAt"];
    while (true) {
      if (++transitions_ > options_.max_transitions)
        throw AslError("States.Runtime", "too many state transitions");
      CheckDeadline();
      CheckSize(input, "the input of state " + name);
      const Json& state = states[name];
      entered_ = now_;
      result_.states.push_back(name);
      Event("StateEntered", name, {{"input", input}});
      // Step sets `next` only when it decides where to go: a Choice, or a
      // catcher; otherwise the state's own Next or End applies.
      std::string next;
      Json output = Step(name, state, input, item, &next);
      CheckDeadline();
      CheckSize(output, "the output of state " + name);
      Event("StateExited", name, {{"output", output}});
      if (next.empty()) {
        if (state["Type"] == "Succeed" || state.value("End", false))
          return output;
        next = state["Next"];
      }
      name = next;
      input = std::move(output);
    }
  }

  Json Step(const std::string& name, const Json& state, const Json& input,
            const MapItem* item, std::string* next) {
    const std::string type = state["Type"];
    const Json context = Context(name, 0, item);
    if (type == "Pass") {
      Json effective = ApplyInputPath(state, input, "InputPath");
      if (state.contains("Parameters"))
        effective = Template(state["Parameters"], effective, context);
      Json result = state.contains("Result") ? state["Result"] : effective;
      return ApplyInputPath(state, ApplyResultPath(state, input, result),
                            "OutputPath");
    }
    if (type == "Succeed") {
      return ApplyInputPath(state, ApplyInputPath(state, input, "InputPath"),
                            "OutputPath");
    }
    if (type == "Fail") {
      std::string error = state.value("Error", ""),
                  cause = state.value("Cause", "");
      for (const char* key : {"ErrorPath", "CausePath"}) {
        if (!state.contains(key)) continue;
        Json v = Resolve(state[key], input, context, "States.Runtime");
        if (!v.is_string())
          throw AslError("States.Runtime",
                         std::string(key) + " must select a string");
        (std::string(key) == "ErrorPath" ? error : cause) =
            v.get<std::string>();
      }
      throw AslError(error, cause);
    }
    if (type == "Wait") {
      Json effective = ApplyInputPath(state, input, "InputPath");
      double until = now_;
      if (state.contains("Seconds"))
        until = now_ + state["Seconds"].get<double>();
      if (state.contains("SecondsPath")) {
        Json v =
            Resolve(state["SecondsPath"], effective, context, "States.Runtime");
        if (!v.is_number() || v.get<double>() < 0)
          throw AslError("States.Runtime",
                         "SecondsPath is not a non-negative number");
        until = now_ + v.get<double>();
      }
      for (const char* key : {"Timestamp", "TimestampPath"}) {
        if (!state.contains(key)) continue;
        Json v =
            std::string(key) == "Timestamp"
                ? state[key]
                : Resolve(state[key], effective, context, "States.Runtime");
        std::optional<double> t =
            v.is_string() ? ParseTime(v.get<std::string>()) : std::nullopt;
        if (!t) throw AslError("States.Runtime", "invalid timestamp for Wait");
        until = std::max(now_, *t);
      }
      Event("WaitStarted", name, {{"seconds", until - now_}});
      now_ = until;
      return ApplyInputPath(state, effective, "OutputPath");
    }
    if (type == "Choice") {
      Json effective = ApplyInputPath(state, input, "InputPath");
      for (const auto& rule : state["Choices"]) {
        if (Evaluate(rule, effective, context)) {
          *next = rule["Next"];
          return ApplyInputPath(state, effective, "OutputPath");
        }
      }
      if (!state.contains("Default"))
        throw AslError("States.NoChoiceMatched",
                       "No Matches! at state " + name);
      *next = state["Default"];
      return ApplyInputPath(state, effective, "OutputPath");
    }
    // Task, Parallel and Map retry and catch.
    return WithRetryAndCatch(name, state, input, next, [&](int retry_count) {
      const Json ctx = Context(name, retry_count, item);
      Json effective = ApplyInputPath(state, input, "InputPath");
      Json result;
      if (type == "Task") {
        if (state.contains("Parameters"))
          effective = Template(state["Parameters"], effective, ctx);
        result = Invoke(name, state, effective, retry_count);
      } else if (type == "Parallel") {
        if (state.contains("Parameters"))
          effective = Template(state["Parameters"], effective, ctx);
        result = Json::array();
        for (const auto& branch : state["Branches"])
          result.push_back(Machine(branch, effective, nullptr));
      } else {
        result = RunMap(name, state, effective, ctx);
      }
      if (state.contains("ResultSelector"))
        result = Template(state["ResultSelector"], result, ctx);
      return ApplyInputPath(state, ApplyResultPath(state, input, result),
                            "OutputPath");
    });
  }

  Json Invoke(const std::string& name, const Json& state, const Json& effective,
              int retry_count) {
    const std::string resource = state["Resource"];
    Event("TaskScheduled", name,
          {{"resource", resource},
           {"parameters", effective},
           {"retry_count", retry_count}});
    TaskInvocation invocation{name, resource, effective, retry_count, now_};
    TaskOutcome outcome;
    try {
      outcome = handler_(invocation);
    } catch (const AslError& e) {
      Event("TaskFailed", name, {{"error", e.error()}, {"cause", e.cause()}});
      throw;
    }
    if (state.contains("TimeoutSeconds") &&
        outcome.seconds > state["TimeoutSeconds"].get<double>()) {
      now_ += state["TimeoutSeconds"].get<double>();
      Event("TaskTimedOut", name, {{"error", "States.Timeout"}});
      throw AslError("States.Timeout", "Task timed out");
    }
    now_ += outcome.seconds;
    CheckDeadline();
    CheckSize(outcome.result, "the result of task " + name);
    Json result = outcome.result;
    if (resource == kLambdaInvoke) {
      result = {{"ExecutedVersion", "$LATEST"},
                {"Payload", outcome.result},
                {"StatusCode", 200}};
    }
    Event("TaskSucceeded", name, {{"output", result}});
    return result;
  }

  Json RunMap(const std::string& name, const Json& state, const Json& effective,
              const Json& context) {
    Json items = effective;
    if (state.contains("ItemsPath"))
      items = Resolve(state["ItemsPath"], effective, context, "States.Runtime");
    if (!items.is_array())
      throw AslError("States.Runtime",
                     "Map state input is not an array at ItemsPath");
    const Json& processor = state.contains("ItemProcessor")
                                ? state["ItemProcessor"]
                                : state["Iterator"];
    const Json* selector = state.contains("ItemSelector")
                               ? &state["ItemSelector"]
                           : state.contains("Parameters") ? &state["Parameters"]
                                                          : nullptr;
    Json results = Json::array();
    Event("MapStarted", name, {{"items", items.size()}});
    // Items run one after another here, but on the virtual clock they run
    // in MaxConcurrency lanes (0: one lane per item): each item starts, in
    // index order, when the earliest lane is free, so the clock shows what
    // the limit does (1: strictly in order; the Map takes the sum of its
    // items) and the Map ends when its last lane does.
    const int64_t max_concurrency = state.value("MaxConcurrency", 0);
    const double map_start = now_;
    double map_end = now_;
    std::vector<double> lanes;  // when each lane is free again
    for (size_t i = 0; i < items.size(); ++i) {
      MapItem item{static_cast<int64_t>(i), items[i]};
      Json item_input = items[i];
      if (selector) {
        Json ctx = context;
        ctx["Map"] = {{"Item", {{"Index", item.index}, {"Value", item.value}}}};
        item_input = Template(*selector, effective, ctx);
      }
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
      Event("MapIterationStarted", name, {{"index", i}});
      results.push_back(Machine(processor, item_input, &item));
      Event("MapIterationSucceeded", name, {{"index", i}});
      lanes[lane] = now_;
      map_end = std::max(map_end, now_);
    }
    now_ = map_end;
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

  bool Evaluate(const Json& rule, const Json& input, const Json& context) {
    if (rule.contains("And")) {
      for (const auto& r : rule["And"])
        if (!Evaluate(r, input, context)) return false;
      return true;
    }
    if (rule.contains("Or")) {
      for (const auto& r : rule["Or"])
        if (Evaluate(r, input, context)) return true;
      return false;
    }
    if (rule.contains("Not")) return !Evaluate(rule["Not"], input, context);
    const std::string variable = rule["Variable"];
    std::optional<Path> path = ParsePath(variable);
    const Json* value =
        path->context ? FindInContext(*path, context) : Find(input, *path);
    if (rule.contains("IsPresent"))
      return (value != nullptr) == rule["IsPresent"].get<bool>();
    if (!value)
      throw AslError("States.Runtime", "Invalid path '" + variable +
                                           "': The choice state's condition "
                                           "path references an invalid value.");
    const Json& v = *value;
    for (auto it = rule.begin(); it != rule.end(); ++it) {
      std::string op = it.key();
      if (op == "Variable" || op == "Next" || op == "Comment") continue;
      Json operand = *it;
      if (op.size() > 4 && op.compare(op.size() - 4, 4, "Path") == 0 &&
          op != "IsPresent") {
        op = op.substr(0, op.size() - 4);
        operand =
            Resolve(it->get<std::string>(), input, context, "States.Runtime");
      }
      if (op == "IsNull") return v.is_null() == operand.get<bool>();
      if (op == "IsNumeric") return v.is_number() == operand.get<bool>();
      if (op == "IsString") return v.is_string() == operand.get<bool>();
      if (op == "IsBoolean") return v.is_boolean() == operand.get<bool>();
      if (op == "IsTimestamp") return IsTimestamp(v) == operand.get<bool>();
      if (op == "BooleanEquals")
        return v.is_boolean() && operand.is_boolean() && v == operand;
      if (op.rfind("String", 0) == 0) {
        if (!v.is_string() || !operand.is_string()) return false;
        const std::string a = v, b = operand;
        if (op == "StringEquals") return a == b;
        if (op == "StringLessThan") return a < b;
        if (op == "StringGreaterThan") return a > b;
        if (op == "StringLessThanEquals") return a <= b;
        if (op == "StringGreaterThanEquals") return a >= b;
        if (op == "StringMatches") return WildcardMatch(a, b);
      }
      if (op.rfind("Numeric", 0) == 0) {
        if (!v.is_number() || !operand.is_number()) return false;
        const double a = v.get<double>(), b = operand.get<double>();
        if (op == "NumericEquals") return a == b;
        if (op == "NumericLessThan") return a < b;
        if (op == "NumericGreaterThan") return a > b;
        if (op == "NumericLessThanEquals") return a <= b;
        if (op == "NumericGreaterThanEquals") return a >= b;
      }
      if (op.rfind("Timestamp", 0) == 0) {
        if (!IsTimestamp(v) || !IsTimestamp(operand)) return false;
        const double a = *ParseTime(v.get<std::string>());
        const double b = *ParseTime(operand.get<std::string>());
        if (op == "TimestampEquals") return a == b;
        if (op == "TimestampLessThan") return a < b;
        if (op == "TimestampGreaterThan") return a > b;
        if (op == "TimestampLessThanEquals") return a <= b;
        if (op == "TimestampGreaterThanEquals") return a >= b;
      }
    }
    return false;
  }

  // States.DataLimitExceeded when `value` serializes to more than the
  // payload limit.
  void CheckSize(const Json& value, const std::string& what) const {
    const size_t size = value.dump().size();
    if (size > options_.max_payload_bytes)
      throw AslError("States.DataLimitExceeded",
                     what + " is " + std::to_string(size) +
                         " bytes, above the limit of " +
                         std::to_string(options_.max_payload_bytes));
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
  std::mt19937_64 rng_;
  double now_;
  double entered_ = 0;
  int64_t transitions_ = 0;
  Json execution_input_;
};

}  // namespace

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
    result.output = run.Execute(definition_, input);
    result.status = "SUCCEEDED";
    run.Event("ExecutionSucceeded", "", {{"output", result.output}});
  } catch (const AslError& e) {
    result.status = "FAILED";
    result.error = e.error();
    result.cause = e.cause();
    result.output = nullptr;
    run.Event("ExecutionFailed", "",
              {{"error", e.error()}, {"cause", e.cause()}});
  } catch (const ExecutionTimeout& e) {
    result.status = "FAILED";
    result.error = "States.Timeout";
    result.cause = e.what();
    result.output = nullptr;
    run.Event("ExecutionTimedOut", "",
              {{"error", result.error}, {"cause", result.cause}});
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
