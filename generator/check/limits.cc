#include "check/limits.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "model/routes.h"

namespace novacat {

namespace {

constexpr int64_t kLambdaMaxSeconds = 15 * 60;
constexpr int64_t kExpressMaxSeconds = 5 * 60;
constexpr int64_t kPayloadLimitBytes = 256 * 1024;

struct Cost {
  int64_t seconds = 0;
  int64_t retry_seconds = 0;
};

int64_t TaskTimeout(const State& s) {
  if (s.timeout_seconds) return *s.timeout_seconds;
  if (s.retry && s.retry->timeout_seconds) return *s.retry->timeout_seconds;
  return 0;
}

WorstCase Longest(const WorkflowSpec& spec, const StateGraph& graph);

Cost StateCost(const WorkflowSpec& spec, const State& s) {
  Cost c;
  if (s.type == StateType::kTask) {
    const int attempts = 1 + (s.retry ? s.retry->max_attempts : 0);
    c.seconds = TaskTimeout(s) * attempts;
    if (s.retry) {
      for (int64_t w : s.retry->backoff_seconds) c.retry_seconds += w;
    }
    c.seconds += c.retry_seconds;
  } else if (s.type == StateType::kMap && s.item_states) {
    WorstCase item = Longest(spec, *s.item_states);
    const int64_t items = s.max_items.value_or(0);
    const int concurrency = MapConcurrency(spec, s);
    const int64_t rounds = (items + concurrency - 1) / concurrency;
    c.seconds = item.seconds * rounds;
    c.retry_seconds = item.retry_seconds * rounds;
  }
  return c;
}

WorstCase Longest(const WorkflowSpec& spec, const StateGraph& graph) {
  const int n = static_cast<int>(graph.states.size());
  WorstCase out;
  const int start = graph.IndexOf(graph.start);
  if (start < 0) return out;
  std::vector<std::vector<int>> edges(n);
  for (int i = 0; i < n; ++i) {
    edges[i] = Successors(graph, i);
    for (const auto& route : CatchRoutesFor(spec, graph, graph.states[i])) {
      int to = graph.IndexOf(route.next);
      if (to >= 0) edges[i].push_back(to);
    }
  }
  // Memoized depth-first search; a state on the current path seen again
  // is a cycle, which no bound covers.
  enum class Mark { kNew, kActive, kDone };
  std::vector<Mark> mark(n, Mark::kNew);
  std::vector<Cost> best(n);
  std::vector<int> next(n, -1);
  bool cyclic = false;
  std::function<void(int)> visit = [&](int i) {
    mark[i] = Mark::kActive;
    Cost own = StateCost(spec, graph.states[i]);
    Cost tail;
    for (int to : edges[i]) {
      if (mark[to] == Mark::kActive) {
        cyclic = true;
        continue;
      }
      if (mark[to] == Mark::kNew) visit(to);
      if (next[i] < 0 || best[to].seconds > tail.seconds) {
        tail = best[to];
        next[i] = to;
      }
    }
    best[i] = {own.seconds + tail.seconds,
               own.retry_seconds + tail.retry_seconds};
    mark[i] = Mark::kDone;
  };
  visit(start);
  out.bounded = !cyclic;
  out.seconds = best[start].seconds;
  out.retry_seconds = best[start].retry_seconds;
  for (int i = start; i >= 0 && out.path.size() <= graph.states.size();
       i = next[i])
    out.path.push_back(graph.states[i].name);
  return out;
}

std::string JoinPath(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& p : path) out += (out.empty() ? "" : " -> ") + p;
  return out;
}

}  // namespace

WorstCase ComputeWorstCase(const WorkflowSpec& spec) {
  return Longest(spec, spec.graph);
}

int64_t LockLeaseSeconds(const WorkflowSpec& spec) {
  const WorstCase worst = ComputeWorstCase(spec);
  return worst.bounded ? worst.seconds : kMaxExecutionSeconds;
}

std::string FormatSeconds(int64_t seconds) {
  // "1h 2m 3s", without zero parts ("16m", "2h 5s"); "0s" for nothing.
  std::string out;
  const int64_t parts[] = {seconds / 3600, seconds % 3600 / 60, seconds % 60};
  const char* units[] = {"h", "m", "s"};
  for (int i = 0; i < 3; ++i) {
    if (parts[i] == 0) continue;
    if (!out.empty()) out += ' ';
    out += fmt::format("{}{}", parts[i], units[i]);
  }
  return out.empty() ? "0s" : out;
}

void CheckLimits(const WorkflowSpec& spec, DiagnosticSink& sink) {
  bool maps_ok = true;
  auto visit = [&](const StateGraph& graph, auto& self) -> void {
    for (const auto& s : graph.states) {
      if (s.type == StateType::kMap && !s.max_items) {
        sink.Error(s.location, "map-max-items",
                   fmt::format("Map '{}' needs 'max_items' (the most items it "
                               "can get) so its duration and payload have a "
                               "bound",
                               s.name));
        maps_ok = false;
      }
      if (s.type == StateType::kTask && TaskTimeout(s) > kLambdaMaxSeconds) {
        sink.Error(
            s.timeout_given ? s.timeout_location : s.location, "lambda-timeout",
            fmt::format("Task '{}' has a timeout of {}; a Lambda runs at "
                        "most 15m",
                        s.name, FormatSeconds(TaskTimeout(s))));
      }
      if (s.item_states) self(*s.item_states, self);
    }
  };
  visit(spec.graph, visit);
  if (!maps_ok || spec.graph.incomplete) return;
  const WorstCase worst = ComputeWorstCase(spec);
  if (spec.type == "EXPRESS" &&
      (!worst.bounded || worst.seconds > kExpressMaxSeconds)) {
    sink.Error(spec.workflow_location, "express-duration",
               worst.bounded
                   ? fmt::format("EXPRESS workflow '{}' can run {} (path {}), "
                                 "above the 5m limit of Express state "
                                 "machines; make it STANDARD or lower its "
                                 "timeouts, retries or Map sizes",
                                 spec.workflow, FormatSeconds(worst.seconds),
                                 JoinPath(worst.path))
                   : fmt::format("EXPRESS workflow '{}' has a cycle, so its "
                                 "duration has no bound under the 5m limit",
                                 spec.workflow));
  }
  const double share =
      spec.governance ? spec.governance->retry_budget_share : 1.0;
  if (worst.bounded && worst.seconds > 0 &&
      static_cast<double>(worst.retry_seconds) >
          share * static_cast<double>(worst.seconds)) {
    sink.Warning(spec.workflow_location, "retry-budget",
                 fmt::format("retry waits take {} of the worst case {} ({}%), "
                             "above the governance share of {}%; answer "
                             "throttling with less concurrency, not more "
                             "retries",
                             FormatSeconds(worst.retry_seconds),
                             FormatSeconds(worst.seconds),
                             100 * worst.retry_seconds / worst.seconds,
                             static_cast<int>(share * 100)));
  }
  // Payload: every Task's output is merged into the state document, which
  // only grows; its worst case is the sum of the declared result sizes and
  // of each Map's max_items x max_item_bytes.
  int64_t total = 0;
  const State* crossing = nullptr;
  for (const auto& s : spec.graph.states) {
    if (s.type == StateType::kTask && s.max_result_bytes)
      total += *s.max_result_bytes;
    if (s.type == StateType::kMap && s.max_items && s.max_item_bytes)
      total += *s.max_items * *s.max_item_bytes;
    if (!crossing && total * 5 > kPayloadLimitBytes * 4) crossing = &s;
  }
  if (crossing && crossing->type != StateType::kMap) {
    if (total > kPayloadLimitBytes) {
      sink.Error(crossing->location, "payload-size",
                 fmt::format("the state document can reach {} bytes (declared "
                             "max_result_bytes and Map results), above Step "
                             "Functions' 256 KiB limit; it passes 80% at '{}'",
                             total, crossing->name));
    } else {
      sink.Warning(crossing->location, "payload-size",
                   fmt::format("the state document can reach {} bytes from "
                               "'{}' on, above 80% of the 256 KiB limit",
                               total, crossing->name));
    }
  }
  // A Map's own results (reported at the Map).
  for (const auto& s : spec.graph.states) {
    if (s.type != StateType::kMap || !s.max_items || !s.max_item_bytes)
      continue;
    const int64_t bytes = *s.max_items * *s.max_item_bytes;
    if (bytes > kPayloadLimitBytes) {
      sink.Error(s.location, "payload-size",
                 fmt::format("Map '{}' can put {} items of {} bytes ({} bytes) "
                             "into the state, above Step Functions' 256 KiB "
                             "limit (States.DataLimitExceeded); lower "
                             "max_items or keep item results out of the state",
                             s.name, *s.max_items, *s.max_item_bytes, bytes));
    } else if (bytes * 5 > kPayloadLimitBytes * 4) {
      sink.Warning(
          s.location, "payload-size",
          fmt::format("Map '{}' can put {} bytes into the state, above "
                      "80% of the 256 KiB limit",
                      s.name, bytes));
    }
  }
}

void CheckDefinitionSize(const WorkflowSpec& spec, size_t bytes,
                         DiagnosticSink& sink) {
  if (bytes <= kDefinitionQuotaBytes) return;
  sink.Error(spec.workflow_location, "definition-size",
             fmt::format("the definition of '{}' is {} bytes, above Step "
                         "Functions' quota of {} bytes (1 MiB) for a state "
                         "machine definition; split the workflow",
                         spec.workflow, bytes, kDefinitionQuotaBytes));
}

void CheckTemplateSize(const std::string& path, size_t bytes,
                       DiagnosticSink& sink) {
  if (bytes <= kTemplateQuotaBytes) return;
  sink.Error(SourceLocation{path, 0, 0, 1}, "template-size",
             fmt::format("the stack template is {} bytes, above "
                         "CloudFormation's quota of {} bytes for a template in "
                         "S3; deploy fewer workflows in one stack",
                         bytes, kTemplateQuotaBytes));
}

}  // namespace novacat
