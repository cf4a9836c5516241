// The local executor: loading rejects what it does not support with a JSON
// pointer; retries, catches, timeouts and Map follow Step Functions' rules
// with exact schedules on the virtual clock.
#include "novacat/runtime/asl/executor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>

#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/asl/ordered_parse.h"
#include "novacat/runtime/asl/script.h"
#include "novacat/runtime/json_reader.h"

namespace novacat::runtime::asl {
namespace executor_test {
namespace {

using json = nlohmann::ordered_json;

std::string LoadError(const json& definition) {
  std::string error;
  EXPECT_EQ(StateMachine::Load(definition, &error), nullptr);
  return error;
}

std::unique_ptr<StateMachine> MustLoad(const json& definition) {
  std::string error;
  auto machine = StateMachine::Load(definition, &error);
  EXPECT_TRUE(machine) << error;
  return machine;
}

// A handler that plays a script: per state, outcomes in order (last repeats);
// an outcome is a result or an error name.
struct Scripted {
  Scripted() = default;
  explicit Scripted(std::map<std::string, std::vector<json>> o)
      : outcomes(std::move(o)) {}
  std::map<std::string, std::vector<json>> outcomes;
  std::map<std::string, int> calls;
  TaskOutcome operator()(const TaskInvocation& call) {
    auto& list = outcomes.at(call.state_name);
    int n = calls[call.state_name]++;
    const json& o = list[std::min<size_t>(n, list.size() - 1)];
    if (o.contains("throw")) throw AslError(o["throw"], o.value("cause", ""));
    return TaskOutcome{o.value("return", json::object()),
                       o.value("seconds", 0.0)};
  }
};

json Task(const json& extra) {
  json t = {{"Type", "Task"},
            {"Resource", "arn:aws:states:::lambda:invoke"},
            {"End", true}};
  t.update(extra);
  return t;
}

// ParseOrderedJson builds what ordered_json::parse does, key order and
// repeated keys included, and fails where it fails.
TEST(OrderedParseTest, SameValueAsOrderedJsonParse) {
  for (const char* text :
       {R"({"b": 1, "a": [1, 2.5, "x", null, true, {"z": {}, "y": []}]})",
        R"({"a": 1, "b": 2, "a": {"c": 3}, "d": [{"e": 1, "e": 2}]})",
        R"([[], {}, -3, 18446744073709551615, "\u00e9"])", R"("just text")",
        "42", R"({"States": {"S2": {"Next": "S1"}, "S1": {"End": true}}})"}) {
    std::optional<json> fast = ParseOrderedJson(text);
    ASSERT_TRUE(fast) << text;
    json slow = json::parse(text);
    EXPECT_EQ(*fast, slow) << text;
    EXPECT_EQ(fast->dump(), slow.dump()) << text;  // the same key order
  }
  EXPECT_EQ(ParseOrderedJson(R"({"a": 1, "b": 2, "a": 3})")->dump(),
            R"({"a":3,"b":2})");
  std::string error;
  EXPECT_EQ(ParseOrderedJson(R"({"a": 1,})", &error), std::nullopt);
  EXPECT_EQ(error,
            "[json.exception.parse_error.101] parse error at line 1, column "
            "9: syntax error while parsing object key - unexpected '}'; "
            "expected string literal");
  EXPECT_EQ(ParseOrderedJson(""), std::nullopt);
  EXPECT_EQ(ParseOrderedJson("{} {}"), std::nullopt);
}

TEST(ExecutorLoadTest, RejectsUnsupportedConstructsWithTheirPointer) {
  EXPECT_EQ(LoadError({{"QueryLanguage", "JSONata"},
                       {"StartAt", "A"},
                       {"States", {{"A", {{"Type", "Succeed"}}}}}}),
            "/QueryLanguage: only the JSONPath query language is supported");
  EXPECT_EQ(
      LoadError({{"StartAt", "A"},
                 {"States", {{"A", Task({{"HeartbeatSecondsPath", "$.h"}})}}}}),
      "/States/A/HeartbeatSecondsPath: not supported by the executor");
  EXPECT_EQ(LoadError({{"StartAt", "M"},
                       {"States",
                        {{"M",
                          {{"Type", "Map"},
                           {"End", true},
                           {"ItemProcessor",
                            {{"ProcessorConfig", {{"Mode", "DISTRIBUTED"}}},
                             {"StartAt", "X"},
                             {"States", {{"X", {{"Type", "Succeed"}}}}}}}}}}}}),
            "/States/M/ItemProcessor/ProcessorConfig/Mode: only INLINE Map is "
            "supported");
  EXPECT_EQ(LoadError({{"StartAt", "A"},
                       {"States",
                        {{"A",
                          {{"Type", "Pass"},
                           {"End", true},
                           {"Parameters", {{"x.$", "States.Nope($.a)"}}}}}}}}),
            "/States/A/Parameters/x.$: intrinsic function States.Nope is not "
            "supported");
  EXPECT_EQ(LoadError({{"StartAt", "A"},
                       {"States", {{"A", {{"Type", "Pass"}, {"Next", "B"}}}}}}),
            "/States/A/Next: names no state in this scope");
  EXPECT_EQ(LoadError({{"StartAt", "A"},
                       {"States",
                        {{"A", Task({{"Resource",
                                      "arn:aws:states:::lambda:invoke."
                                      "waitForTaskToken"}})}}}}),
            "/States/A/Resource: callback and .sync integrations are not "
            "supported");
}

TEST(ExecutorTest, RetriesFollowTheExactScheduleThenFail) {
  auto machine =
      MustLoad({{"StartAt", "T"},
                {"States",
                 {{"T", Task({{"Retry",
                               {{{"ErrorEquals", {"RetryableError"}},
                                 {"IntervalSeconds", 2},
                                 {"BackoffRate", 5},
                                 {"MaxDelaySeconds", 30},
                                 {"MaxAttempts", 3},
                                 {"JitterStrategy", "NONE"}}}}})}}}});
  Scripted script{{{"T", {{{"throw", "RetryableError"}, {"cause", "503"}}}}}};
  RunResult r = machine->Run(json::object(), std::ref(script));
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "RetryableError");
  EXPECT_EQ(r.cause, "503");
  EXPECT_EQ(r.waits, (std::vector<double>{2, 10, 30}));
  EXPECT_EQ(script.calls["T"], 4);  // 1 + MaxAttempts
  EXPECT_DOUBLE_EQ(r.end_time - RunOptions{}.start_time, 42);
}

TEST(ExecutorTest, RetrierCountersArePerRetrierAndRetryThenSuccessContinues) {
  auto machine = MustLoad({{"StartAt", "T"},
                           {"States",
                            {{"T", Task({{"Retry",
                                          {{{"ErrorEquals", {"A"}},
                                            {"IntervalSeconds", 1},
                                            {"MaxAttempts", 1}},
                                           {{"ErrorEquals", {"B"}},
                                            {"IntervalSeconds", 3},
                                            {"MaxAttempts", 2},
                                            {"BackoffRate", 2}}}}})}}}});
  Scripted script{{{"T",
                    {{{"throw", "A"}},
                     {{"throw", "B"}},
                     {{"throw", "B"}},
                     {{"return", {{"ok", true}}}}}}}};
  RunResult r = machine->Run(json::object(), std::ref(script));
  EXPECT_EQ(r.status, "SUCCEEDED");
  EXPECT_EQ(r.waits, (std::vector<double>{1, 3, 6}));
  EXPECT_EQ(r.output["Payload"], (json{{"ok", true}}));
}

TEST(ExecutorTest, StatesAllDoesNotCatchRuntimeErrorsButCatchesTaskErrors) {
  json definition = {{"StartAt", "T"},
                     {"States",
                      {{"T", Task({{"OutputPath", "$.missing"},
                                   {"End", false},
                                   {"Next", "Done"},
                                   {"Catch",
                                    {{{"ErrorEquals", {"States.ALL"}},
                                      {"ResultPath", "$.error"},
                                      {"Next", "Handler"}}}}})},
                       {"Handler", {{"Type", "Pass"}, {"End", true}}},
                       {"Done", {{"Type", "Succeed"}}}}}};
  definition["States"]["T"].erase("End");
  auto machine = MustLoad(definition);
  Scripted ok{{{"T", {{{"return", json::object()}}}}}};
  RunResult runtime_error = machine->Run({{"a", 1}}, std::ref(ok));
  EXPECT_EQ(runtime_error.status, "FAILED");
  EXPECT_EQ(runtime_error.error, "States.Runtime");
  Scripted failing{{{"T", {{{"throw", "TerminalError"}, {"cause", "bad"}}}}}};
  RunResult caught = machine->Run({{"a", 1}}, std::ref(failing));
  EXPECT_EQ(caught.status, "SUCCEEDED");
  EXPECT_EQ(caught.states, (std::vector<std::string>{"T", "Handler"}));
  EXPECT_EQ(caught.output,
            (json{{"a", 1},
                  {"error", {{"Error", "TerminalError"}, {"Cause", "bad"}}}}));
}

TEST(ExecutorTest, TimeoutIsNotATaskFailedAndIsRetriedWhenNamed) {
  json definition = {
      {"StartAt", "T"},
      {"States",
       {{"T",
         Task({{"TimeoutSeconds", 10},
               {"Retry",
                {{{"ErrorEquals", {"States.TaskFailed"}}, {"MaxAttempts", 5}},
                 {{"ErrorEquals", {"States.Timeout"}},
                  {"IntervalSeconds", 2},
                  {"MaxAttempts", 1}}}}})}}}};
  auto machine = MustLoad(definition);
  Scripted slow{{{"T",
                  {{{"return", json::object()}, {"seconds", 11}},
                   {{"return", {{"v", 1}}}, {"seconds", 3}}}}}};
  RunResult r = machine->Run(json::object(), std::ref(slow));
  EXPECT_EQ(r.status, "SUCCEEDED");
  EXPECT_EQ(r.waits, std::vector<double>{2});
  EXPECT_DOUBLE_EQ(r.end_time - RunOptions{}.start_time, 10 + 2 + 3);
}

TEST(ExecutorTest, MapRunsItemsInOrderWithTheirContext) {
  auto machine = MustLoad(
      {{"StartAt", "M"},
       {"States",
        {{"M",
          {{"Type", "Map"},
           {"ItemsPath", "$.items"},
           {"ItemSelector",
            {{"index.$", "$$.Map.Item.Index"},
             {"value.$", "$$.Map.Item.Value"},
             {"tag.$", "$.tag"}}},
           {"MaxConcurrency", 1},
           {"ItemProcessor",
            {{"ProcessorConfig", {{"Mode", "INLINE"}}},
             {"StartAt", "Item"},
             {"States", {{"Item", {{"Type", "Pass"}, {"End", true}}}}}}},
           {"ResultPath", "$.results"},
           {"End", true}}}}}});
  Scripted none;
  RunResult r =
      machine->Run({{"items", {"a", "b"}}, {"tag", "t"}}, std::ref(none));
  EXPECT_EQ(r.status, "SUCCEEDED");
  EXPECT_EQ(r.states, (std::vector<std::string>{"M", "Item", "Item"}));
  EXPECT_EQ(r.output["results"],
            json::parse(R"([{"index":0,"value":"a","tag":"t"},
                            {"index":1,"value":"b","tag":"t"}])"));
}

TEST(ExecutorTest, NullAndAbsentPathsDiffer) {
  auto machine = MustLoad(
      {{"StartAt", "A"},
       {"States",
        {{"A",
          {{"Type", "Pass"},
           {"Result", "r"},
           {"ResultPath", nullptr},
           {"Next", "B"}}},
         {"B",
          {{"Type", "Pass"},
           {"Result", "r"},
           {"ResultPath", "$.x"},
           {"Next", "C"}}},
         {"C", {{"Type", "Pass"}, {"OutputPath", nullptr}, {"End", true}}}}}});
  Scripted none;
  RunResult r = machine->Run({{"k", 1}}, std::ref(none));
  EXPECT_EQ(r.output, json::object());
  EXPECT_EQ(r.history[2].details["output"], (json{{"k", 1}}));  // A exited
  EXPECT_EQ(r.history[4].details["output"], (json{{"k", 1}, {"x", "r"}}));
}

TEST(ExecutorTest, CorrelationIdPassMergesAUuidDeterministically) {
  auto machine = MustLoad(
      {{"StartAt", "G"},
       {"States",
        {{"G",
          {{"Type", "Pass"},
           {"Parameters",
            {{"merged.$",
              "States.JsonMerge($, States.StringToJson(States.Format("
              "'\\{\"correlation_id\":\"{}\"\\}', States.UUID())), false)"}}},
           {"OutputPath", "$.merged"},
           {"End", true}}}}}});
  Scripted none;
  RunResult a = machine->Run({{"k", 1}}, std::ref(none));
  RunResult b = machine->Run({{"k", 1}}, std::ref(none));
  ASSERT_EQ(a.status, "SUCCEEDED") << a.cause.value_or("");
  EXPECT_EQ(a.output["k"], 1);
  const std::string id = a.output["correlation_id"];
  EXPECT_TRUE(runtime::IsUuid(id));
  EXPECT_EQ(id[14], '4');         // version 4
  EXPECT_EQ(a.output, b.output);  // same seed, same id
}

TEST(ExecutorTest, FullJitterIsSeededAndBounded) {
  auto machine =
      MustLoad({{"StartAt", "T"},
                {"States",
                 {{"T", Task({{"Retry",
                               {{{"ErrorEquals", {"States.ALL"}},
                                 {"IntervalSeconds", 10},
                                 {"MaxAttempts", 3},
                                 {"JitterStrategy", "FULL"}}}}})}}}});
  Scripted failing{{{"T", {{{"throw", "X"}}}}}};
  RunResult a = machine->Run(json::object(), std::ref(failing));
  Scripted failing_again{{{"T", {{{"throw", "X"}}}}}};
  RunResult b = machine->Run(json::object(), std::ref(failing_again));
  ASSERT_EQ(a.waits.size(), 3u);
  EXPECT_EQ(a.waits, b.waits);
  const double caps[] = {10, 20, 40};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GE(a.waits[i], 0);
    EXPECT_LE(a.waits[i], caps[i]);
  }
}

TEST(ExecutorTest, ChoiceWithoutMatchFailsWithNoChoiceMatched) {
  auto machine = MustLoad(
      {{"StartAt", "C"},
       {"States",
        {{"C",
          {{"Type", "Choice"},
           {"Choices",
            {{{"Variable", "$.n"}, {"NumericEquals", 1}, {"Next", "D"}}}}}},
         {"D", {{"Type", "Succeed"}}}}}});
  Scripted none;
  EXPECT_EQ(machine->Run({{"n", "1"}}, std::ref(none)).error,
            "States.NoChoiceMatched");  // a string never equals a number
  EXPECT_EQ(machine->Run({{"n", 1}}, std::ref(none)).status, "SUCCEEDED");
  EXPECT_EQ(machine->Run(json::object(), std::ref(none)).error,
            "States.Runtime");  // a missing Variable is a runtime error
}

// The same run under each RunOptions::history: the same states, waits and
// output; kNone records no event, kEvents every event without a document,
// kFull the documents too (a retried Task's parameters each time, Lambda's
// wrapper around the result).
TEST(ExecutorTest, HistoryKeepsWhatRunOptionsAsk) {
  auto machine = MustLoad(
      {{"StartAt", "P"},
       {"States",
        {{"P",
          {{"Type", "Pass"},
           {"Result", "r"},
           {"ResultPath", "$.p"},
           {"Next", "T"}}},
         {"T",
          Task({{"Parameters",
                 {{"FunctionName", "f"},
                  {"Payload",
                   {{"state.$", "$"}, {"n.$", "$$.State.RetryCount"}}}}},
                {"OutputPath", "$.Payload"},
                {"Retry", {{{"ErrorEquals", {"A"}}, {"IntervalSeconds", 2}}}},
                {"End", false},
                {"Next", "S"}})},
         {"S", {{"Type", "Succeed"}}}}}});
  const json input = {{"k", 1}};
  const std::vector<std::string> types = {
      "ExecutionStarted",  "StateEntered", "StateExited",    "StateEntered",
      "TaskScheduled",     "TaskFailed",   "RetryScheduled", "TaskScheduled",
      "TaskSucceeded",     "StateExited",  "StateEntered",   "StateExited",
      "ExecutionSucceeded"};
  std::map<History, RunResult> runs;
  for (History history : {History::kNone, History::kEvents, History::kFull}) {
    Scripted script{{{"T", {{{"throw", "A"}}, {{"return", {{"ok", true}}}}}}}};
    RunOptions options;
    options.history = history;
    runs[history] = machine->Run(input, std::ref(script), options);
    const RunResult& r = runs[history];
    EXPECT_EQ(r.status, "SUCCEEDED");
    EXPECT_EQ(r.output, (json{{"ok", true}}));
    EXPECT_EQ(r.states, (std::vector<std::string>{"P", "T", "S"}));
    EXPECT_EQ(r.waits, (std::vector<double>{2}));
  }
  EXPECT_TRUE(runs[History::kNone].history.empty());
  for (History history : {History::kEvents, History::kFull}) {
    std::vector<std::string> seen;
    for (const HistoryEvent& e : runs[history].history) seen.push_back(e.type);
    EXPECT_EQ(seen, types);
  }
  const auto& events = runs[History::kEvents].history;
  EXPECT_EQ(HistoryToJson({events[0], events[3], events[4], events[6]}),
            json::parse(R"([
      {"id":1,"timestamp":"2026-01-01T00:00:00.000Z","type":"ExecutionStarted"},
      {"id":4,"timestamp":"2026-01-01T00:00:00.000Z","type":"StateEntered",
       "state":"T"},
      {"id":5,"timestamp":"2026-01-01T00:00:00.000Z","type":"TaskScheduled",
       "state":"T","details":{"resource":"arn:aws:states:::lambda:invoke",
                              "retry_count":0}},
      {"id":7,"timestamp":"2026-01-01T00:00:00.000Z","type":"RetryScheduled",
       "state":"T","details":{"error":"A","cause":"","retrier":0,"attempt":1,
                              "wait":2.0}}])"));
  const auto& full = runs[History::kFull].history;
  EXPECT_EQ(full[7].details,
            json::parse(R"({"resource":"arn:aws:states:::lambda:invoke",
      "parameters":{"FunctionName":"f",
                    "Payload":{"state":{"k":1,"p":"r"},"n":1}},
      "retry_count":1})"));
  EXPECT_EQ(full[8].details, json::parse(R"({"output":
      {"ExecutedVersion":"$LATEST","Payload":{"ok":true},"StatusCode":200}})"));
  EXPECT_EQ(full[9].details, (json{{"output", {{"ok", true}}}}));
}

// A Task lends its input to the invocation (the "$" field of its
// Parameters, or the whole input without Parameters) rather than copying
// it: every attempt sees the whole input, and a catcher's output keeps it.
TEST(ExecutorTest, EveryAttemptSeesTheWholeInputAndTheCatcherKeepsIt) {
  auto machine =
      MustLoad({{"StartAt", "T"},
                {"States",
                 {{"T", Task({{"Parameters", {{"Payload", {{"state.$", "$"}}}}},
                              {"Retry", {{{"ErrorEquals", {"A"}}}}},
                              {"Catch",
                               {{{"ErrorEquals", {"B"}},
                                 {"ResultPath", "$.error"},
                                 {"Next", "U"}}}},
                              {"End", false},
                              {"Next", "U"}})},
                  {"U", Task({{"Retry", {{{"ErrorEquals", {"A"}}}}},
                              {"ResultPath", "$.u"}})}}}});
  std::vector<json> seen;
  int calls = 0;
  auto handler = [&](const TaskInvocation& call) -> TaskOutcome {
    seen.push_back(call.input);
    ++calls;
    if (calls == 1 || calls == 3) throw AslError("A", "again");
    if (calls == 2) throw AslError("B", "caught");
    return TaskOutcome{{{"done", true}}, 0};
  };
  const json input = {{"k", 1}, {"list", {1, 2}}};
  RunResult r = machine->Run(input, handler);
  EXPECT_EQ(r.status, "SUCCEEDED")
      << r.error.value_or("") << ": " << r.cause.value_or("");
  const json caught = {{"k", 1},
                       {"list", {1, 2}},
                       {"error", {{"Error", "B"}, {"Cause", "caught"}}}};
  EXPECT_EQ(seen, (std::vector<json>{{{"Payload", {{"state", input}}}},
                                     {{"Payload", {{"state", input}}}},
                                     caught,
                                     caught}));
  json output = caught;
  output["u"] = {{"ExecutedVersion", "$LATEST"},
                 {"Payload", {{"done", true}}},
                 {"StatusCode", 200}};
  EXPECT_EQ(r.output, output);
}

// The context fields read without building the context object are the
// context object's own.
TEST(ExecutorTest, KnownContextFieldsAreTheContextObjects) {
  auto machine =
      MustLoad({{"StartAt", "W"},
                {"States",
                 {{"W", {{"Type", "Wait"}, {"Seconds", 5}, {"Next", "P"}}},
                  {"P",
                   {{"Type", "Pass"},
                    {"Parameters",
                     {{"context.$", "$$"},
                      {"id.$", "$$.Execution.Id"},
                      {"name.$", "$$.Execution.Name"},
                      {"start.$", "$$.Execution.StartTime"},
                      {"machine.$", "$$.StateMachine.Id"},
                      {"machine_name.$", "$$.StateMachine.Name"},
                      {"state.$", "$$.State.Name"},
                      {"entered.$", "$$.State.EnteredTime"},
                      {"retries.$", "$$.State.RetryCount"}}},
                    {"End", true}}}}}});
  Scripted none;
  RunResult r = machine->Run(json::object(), std::ref(none));
  ASSERT_EQ(r.status, "SUCCEEDED")
      << r.error.value_or("") << ": " << r.cause.value_or("");
  const json& context = r.output["context"];
  EXPECT_EQ(r.output["entered"], "2026-01-01T00:00:05.000Z");
  EXPECT_EQ(r.output["start"], "2026-01-01T00:00:00.000Z");
  const json expected = {{"context", context},
                         {"id", context["Execution"]["Id"]},
                         {"name", context["Execution"]["Name"]},
                         {"start", context["Execution"]["StartTime"]},
                         {"machine", context["StateMachine"]["Id"]},
                         {"machine_name", context["StateMachine"]["Name"]},
                         {"state", "P"},
                         {"entered", context["State"]["EnteredTime"]},
                         {"retries", context["State"]["RetryCount"]}};
  EXPECT_EQ(r.output, expected);
}

TEST(ExecutorTest, HistoryIsPrintable) {
  auto machine =
      MustLoad({{"StartAt", "F"},
                {"States",
                 {{"F", {{"Type", "Fail"}, {"Error", "E"}, {"Cause", "c"}}}}}});
  Scripted none;
  RunResult r = machine->Run(json::object(), std::ref(none));
  EXPECT_EQ(FormatHistory(r.history),
            "   1  +    0.000s  ExecutionStarted         {\"input\":{}}\n"
            "   2  +    0.000s  StateEntered           F  {\"input\":{}}\n"
            "   3  +    0.000s  ExecutionFailed          "
            "{\"error\":\"E\",\"cause\":\"c\"}\n");
}

}  // namespace
}  // namespace executor_test
}  // namespace novacat::runtime::asl

namespace novacat::runtime::asl {
namespace executor_test {
namespace {

TEST(ExecutorLimitsTest, DataLimitExceededIsNotCaughtByStatesAll) {
  auto machine = MustLoad(
      {{"StartAt", "T"},
       {"States",
        {{"T",
          {{"Type", "Task"},
           {"Resource", "arn:aws:states:::lambda:invoke"},
           {"Retry", {{{"ErrorEquals", {"States.ALL"}}, {"MaxAttempts", 2}}}},
           {"Catch", {{{"ErrorEquals", {"States.ALL"}}, {"Next", "H"}}}},
           {"End", true}}},
         {"H", {{"Type", "Succeed"}}}}}});
  Scripted big(
      {{"T", {{{"return", {{"blob", std::string(300 * 1024, 'x')}}}}}}});
  RunResult r = machine->Run(json::object(), std::ref(big));
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.DataLimitExceeded");
  EXPECT_EQ(r.cause,
            "the result of task T is 307211 bytes, above the limit of 262144");
  EXPECT_TRUE(r.waits.empty());
  RunOptions small;
  small.max_payload_bytes = 10;
  Scripted tiny({{"T", {{{"return", json::object()}}}}});
  EXPECT_EQ(
      machine->Run({{"key", "a long value"}}, std::ref(tiny), small).error,
      "States.DataLimitExceeded");
}

// The payload limit counts the bytes json::dump() writes: escapes (2 bytes
// for \", 6 for another control character), UTF-8 as is, numbers as
// written. At the exact size the state passes; a byte less fails it.
TEST(ExecutorLimitsTest, TheLimitIsTheDumpedSizeToTheByte) {
  const json mixed = {{"quote", "say \"hi\"\n\t\\"},
                      {"control", std::string("\x01\x1f", 2)},
                      {"utf8", "\xc3\xa9toile \xe2\x98\x85"},
                      {"numbers", {-12345, 0, 18446744073709551615u, 0.1}},
                      {"flags", {true, false, nullptr}},
                      {"empty", {{"a", json::object()}, {"b", json::array()}}}};
  // Escapes alone: 40 six-byte escapes.
  const json escapes = std::string(40, '\x01');
  for (const json& result : {mixed, escapes}) {
    SCOPED_TRACE(result.dump());
    auto machine = MustLoad(
        {{"StartAt", "P"},
         {"States",
          {{"P", {{"Type", "Pass"}, {"Result", result}, {"End", true}}}}}});
    const size_t size = result.dump().size();
    Scripted none;
    RunOptions exact;
    exact.max_payload_bytes = size;
    EXPECT_EQ(machine->Run(json::object(), std::ref(none), exact).status,
              "SUCCEEDED");
    RunOptions below;
    below.max_payload_bytes = size - 1;
    RunResult r = machine->Run(json::object(), std::ref(none), below);
    EXPECT_EQ(r.error, "States.DataLimitExceeded");
    EXPECT_EQ(r.cause, "the output of state P is " + std::to_string(size) +
                           " bytes, above the limit of " +
                           std::to_string(size - 1));
  }
}

TEST(ExecutorLimitsTest, ExpressExecutionsTimeOutAfterFiveMinutesUncatchably) {
  json definition = {
      {"StartAt", "T"},
      {"States",
       {{"T",
         {{"Type", "Task"},
          {"Resource", "arn:aws:states:::lambda:invoke"},
          {"Retry",
           {{{"ErrorEquals", {"States.ALL"}},
             {"IntervalSeconds", 60},
             {"MaxAttempts", 10},
             {"BackoffRate", 1}}}},
          {"Catch", {{{"ErrorEquals", {"States.ALL"}}, {"Next", "H"}}}},
          {"End", true}}},
        {"H", {{"Type", "Succeed"}}}}}};
  auto machine = MustLoad(definition);
  RunOptions express;
  express.execution_timeout_seconds = 300;
  Scripted failing({{"T", {{{"throw", "RetryableError"}, {"seconds", 10}}}}});
  RunResult r = machine->Run(json::object(), std::ref(failing), express);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.Timeout");
  EXPECT_EQ(r.cause, "the execution exceeded its timeout of 300s");
  EXPECT_EQ(r.history.back().type, "ExecutionTimedOut");
  // The definition's own TimeoutSeconds applies too.
  definition["TimeoutSeconds"] = 100;
  auto limited = MustLoad(definition);
  Scripted again({{"T", {{{"throw", "RetryableError"}, {"seconds", 10}}}}});
  RunResult d = limited->Run(json::object(), std::ref(again));
  EXPECT_EQ(d.cause, "the execution exceeded its timeout of 100s");
}

}  // namespace
}  // namespace executor_test
}  // namespace novacat::runtime::asl

namespace novacat::runtime::asl {
namespace executor_test {
namespace {

// End to end on a generated definition: discover_spectra_products' Map
// collects one result per provider into the state; with too many providers
// returning large results the state outgrows 256 KiB, and the execution
// fails with States.DataLimitExceeded, which its Catch (States.ALL) cannot
// turn into a handled failure.
TEST(ExecutorLimitsTest, GeneratedMapOverThePayloadLimitFailsTheExecution) {
  std::ifstream in("generated/discover_spectra_products/statemachine.asl.json");
  auto machine = MustLoad(json::parse(in));
  json providers = json::array();
  for (int i = 0; i < 40; ++i) {
    // append: GCC 12 misreports `"p" + to_string(i)` under -O2 (-Wrestrict).
    std::string provider = "p";
    provider.append(std::to_string(i));
    providers.push_back(provider);
  }
  const json state = {
      {"nova_id", "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c"},
      {"correlation_id", "0e6f1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c"},
      {"job_run_id", "j"},
      {"idempotency_status", "ACQUIRED"},
      {"providers", providers}};
  const json item_result = {{"provider", "p"},
                            {"new_dataset_ids", json::array()},
                            {"products", std::string(8 * 1024, 'x')}};
  Scripted script(
      {{"BeginJobRun", {{{"return", state}}}},
       {"AcquireIdempotencyLock", {{{"return", state}}}},
       {"QueryProviderForProducts", {{{"return", item_result}}}},
       {"NormalizeProviderProducts", {{{"return", item_result}}}},
       {"DeduplicateAndAssignDatasetIds", {{{"return", item_result}}}},
       {"PublishDatasetDiscoveredEvents", {{{"return", item_result}}}},
       {"TerminalFailHandler", {{{"return", state}}}},
       {"FinalizeJobRunFailed", {{{"return", state}}}}});
  RunResult r = machine->Run(state, std::ref(script));
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.DataLimitExceeded");
  EXPECT_EQ(std::count(r.states.begin(), r.states.end(), "TerminalFailHandler"),
            0);
}

// A function that dies in one Map item is retried on the Task's schedule
// like a RETRYABLE error, then caught inside the item, and the other item
// goes on: Lambda's own timeout (Sandbox.Timedout), an unhandled failure
// (Lambda.Unknown), the process's exit (Runtime.ExitError) and running out
// of memory (Runtime.OutOfMemory) are names no handler raises, retried with
// RETRYABLE (specs/shared/governance.yaml, also_retry). Without them in the
// Retry and Catch, the Map fails and the run with it.
TEST(GeneratedDefinitionTest, AFunctionThatDiesInOneMapItemLeavesTheOthers) {
  std::ifstream in(
      "generated/download_and_validate_spectra/statemachine.asl.json");
  auto machine = MustLoad(json::parse(in));
  const std::array<const char*, 4> kDeaths = {
      "Sandbox.Timedout", "Lambda.Unknown", "Runtime.ExitError",
      "Runtime.OutOfMemory"};
  std::vector<std::string> top;                     // top-level Tasks
  std::map<int, std::vector<std::string>> by_item;  // each item's Tasks
  json recorded_error;
  auto handler = [&](const TaskInvocation& call) -> TaskOutcome {
    json doc = call.input.at("Payload").at("state");  // the state's input
    const std::string& state = call.state_name;
    if (!doc.contains("map_item_index")) {
      top.push_back(state);
      if (state == "AcquireIdempotencyLock")
        doc["idempotency_status"] = "ACQUIRED";
      if (state == "QueryEligibleDatasets")
        doc["datasets"] = json::array({{{"dataset_id", "d0"}},  //
                                       {{"dataset_id", "d1"}}});
      return TaskOutcome{doc, 0};
    }
    const int item = doc["map_item_index"];
    by_item[item].push_back(state);
    if (state == "AcquireDatasetLease") doc["lease_status"] = "ACQUIRED";
    if (state == "DownloadSpectrum" && item == 0)
      throw AslError(kDeaths.at(call.retry_count),
                     "RequestId: r0 Error: the function died");
    if (state == "RecordDatasetFailure") recorded_error = doc["error"];
    return TaskOutcome{doc, 0};
  };
  RunResult r = machine->Run(
      {{"nova_id", "n"}, {"correlation_id", "c"}, {"job_run_id", "j"}},
      handler);
  EXPECT_EQ(r.status, "SUCCEEDED")
      << r.error.value_or("") << ": " << r.cause.value_or("");
  EXPECT_EQ(r.waits, (std::vector<double>{10, 60, 180}));
  EXPECT_EQ(top, (std::vector<std::string>{
                     "BeginJobRun", "AcquireIdempotencyLock",
                     "QueryEligibleDatasets", "SummarizeDownloads",
                     "PublishSpectraValidated", "FinalizeJobRunSuccess"}));
  EXPECT_EQ(by_item[0], (std::vector<std::string>{
                            "AcquireDatasetLease", "DownloadSpectrum",
                            "DownloadSpectrum", "DownloadSpectrum",
                            "DownloadSpectrum", "RecordDatasetFailure"}));
  EXPECT_EQ(by_item[1],
            (std::vector<std::string>{"AcquireDatasetLease", "DownloadSpectrum",
                                      "ValidateSpectrum"}));
  EXPECT_EQ(recorded_error,
            (json{{"Error", "Runtime.OutOfMemory"},
                  {"Cause", "RequestId: r0 Error: the function died"}}));
}

}  // namespace
}  // namespace executor_test
}  // namespace novacat::runtime::asl

namespace novacat::runtime::asl {
namespace executor_test {
namespace {

TEST(ScriptedHandlerTest, StarAnswersEveryTaskTheScriptDoesNotName) {
  ScriptedHandler handler(nlohmann::ordered_json::parse(
      R"({"*": [{"return": {"d": 1}}], "B": [{"throw": "E", "cause": "c"}]})"));
  TaskInvocation a{"A", "r", nlohmann::ordered_json::object(), 0, 0};
  EXPECT_EQ(handler(a).result, nlohmann::ordered_json({{"d", 1}}));
  EXPECT_EQ(handler(a).result,
            nlohmann::ordered_json({{"d", 1}}));  // the last repeats
  TaskInvocation b{"B", "r", nlohmann::ordered_json::object(), 0, 0};
  EXPECT_THROW(handler(b), AslError);
  EXPECT_EQ(handler.invocations("A"), 2);
  EXPECT_EQ(handler.invocations("B"), 1);
  ScriptedHandler none(nlohmann::ordered_json::object());
  EXPECT_THROW(none(a), ScriptError);
}

TEST(ScriptedHandlerTest, SetReturnsTheGivenStateWithTheFieldsSet) {
  using Json = nlohmann::ordered_json;
  ScriptedHandler handler(
      Json::parse(R"({"*": [{"set": {"flag": true, "n": 2}}]})"));
  // The Payload convention: the function gets the state in Payload.state.
  TaskInvocation lambda{"A", "arn:aws:states:::lambda:invoke",
                        Json::parse(R"({"FunctionName": "f",
                      "Payload": {"state_name": "A",
                                  "state": {"nova_id": "x", "n": 1}}})"),
                        0, 0};
  EXPECT_EQ(handler(lambda).result,
            Json::parse(R"({"nova_id": "x", "n": 2, "flag": true})"));
  // Any other resource: its input.
  TaskInvocation other{"B", "r", Json::parse(R"({"m": 0})"), 0, 0};
  EXPECT_EQ(handler(other).result,
            Json::parse(R"({"m": 0, "flag": true, "n": 2})"));
}

TEST(ScriptedHandlerTest, CheckScriptNamesTheBadOutcome) {
  using Json = nlohmann::ordered_json;
  std::string error;
  EXPECT_TRUE(CheckScript(Json::parse(R"({"A": [{"set": {}}]})"), &error));
  EXPECT_FALSE(
      CheckScript(Json::parse(R"({"A": [{"set": {}, "return": 1}]})"), &error));
  EXPECT_EQ(
      error,
      R"(script["A"][0] needs exactly one of "return", "set" and "throw")");
  EXPECT_FALSE(CheckScript(Json::parse(R"({"A": [{"set": 3}]})"), &error));
  EXPECT_EQ(error, R"(script["A"][0].set must be an object of fields)");
}

}  // namespace
}  // namespace executor_test
}  // namespace novacat::runtime::asl

// What Step Functions does that issue 39 (point 5) found the executor doing
// otherwise: each rule with its exact error, cause and output.
namespace novacat::runtime::asl {
namespace executor_test {
namespace {

json Pass(const json& extra) {
  json p = {{"Type", "Pass"}, {"End", true}};
  p.update(extra);
  return p;
}

// The handler of a definition whose Tasks must never be invoked.
TaskOutcome NeverCalled(const TaskInvocation& call) {
  ADD_FAILURE() << "task " << call.state_name << " invoked";
  return TaskOutcome{};
}

// A path inside an intrinsic call that matches nothing fails the execution
// with States.Runtime, as a payload template's own path does: no Retry or
// Catch handles it, not even States.ALL, and a Parallel or a Map around it
// fails with it. The cause names the path, the field and the input.
TEST(ExecutorIntrinsicTest, AMissingPathInACallFailsTheExecution) {
  const json catch_all = {{"Retry", {{{"ErrorEquals", {"States.ALL"}}}}},
                          {"Catch",
                           {{{"ErrorEquals", {"States.ALL"}},
                             {"ResultPath", "$.error"},
                             {"Next", "H"}}}}};
  json task =
      Task({{"Parameters",
             {{"FunctionName", "f"},
              {"Payload", {{"msg.$", "States.Format('{}', $.missing)"}}}}},
            {"End", false},
            {"Next", "H"}});
  task.erase("End");
  task.update(catch_all);
  const json handler_state = Pass(json::object());
  const std::string cause =
      "The JSONPath '$.missing' specified for the field 'msg.$' could not be "
      "found in the input '{\"a\":1}'";

  auto top = MustLoad(
      {{"StartAt", "T"}, {"States", {{"T", task}, {"H", handler_state}}}});
  RunResult r = top->Run({{"a", 1}}, NeverCalled);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause, cause);
  EXPECT_EQ(r.output, nullptr);
  EXPECT_EQ(r.states, (std::vector<std::string>{"T"}));
  EXPECT_TRUE(r.waits.empty());

  // The same Task in a Parallel branch, the Parallel retrying and catching
  // everything.
  json parallel = {
      {"Type", "Parallel"},
      {"Branches",
       {{{"StartAt", "T"}, {"States", {{"T", task}, {"H", handler_state}}}}}},
      {"Next", "H"}};
  parallel.update(catch_all);
  auto in_branch = MustLoad(
      {{"StartAt", "P"}, {"States", {{"P", parallel}, {"H", handler_state}}}});
  r = in_branch->Run({{"a", 1}}, NeverCalled);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause, cause);
  EXPECT_EQ(r.states, (std::vector<std::string>{"P", "T"}));
  EXPECT_TRUE(r.waits.empty());

  // In a Map iteration (the second item's), from a Pass state's
  // Parameters; the Map retries and catches everything.
  json map = {
      {"Type", "Map"},
      {"ItemsPath", "$.items"},
      {"ItemProcessor",
       {{"StartAt", "X"},
        {"States",
         {{"X", Pass({{"Parameters",
                       {{"v.$", "States.Format('{} {}', $.a, $.b)"}}}})}}}}},
      {"Next", "H"}};
  map.update(catch_all);
  auto in_item = MustLoad(
      {{"StartAt", "M"}, {"States", {{"M", map}, {"H", handler_state}}}});
  r = in_item->Run({{"items", {{{"a", 1}, {"b", 2}}, {{"a", 3}}}}},
                   NeverCalled);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause,
            "The JSONPath '$.b' specified for the field 'v.$' could not be "
            "found in the input '{\"a\":3}'");
  EXPECT_EQ(r.states, (std::vector<std::string>{"M", "X", "X"}));

  // A plain path of a template is reported the same way; a context path
  // with the context object as the input.
  auto plain = MustLoad(
      {{"StartAt", "A"},
       {"States",
        {{"A", Pass({{"Parameters", {{"k", {{"y.$", "$.nope[0]"}}}}}})}}}});
  r = plain->Run({{"nope", json::array()}}, NeverCalled);
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause,
            "The JSONPath '$.nope[0]' specified for the field 'y.$' could not "
            "be found in the input '{\"nope\":[]}'");
}

// The function's own failures (a bad argument) stay States.IntrinsicFailure,
// which Retry and Catch handle.
TEST(ExecutorIntrinsicTest, AFunctionsOwnFailureIsCaught) {
  auto machine = MustLoad(
      {{"StartAt", "T"},
       {"States",
        {{"T",
          Task({{"Parameters", {{"x.$", "States.ArrayGetItem($.list, 5)"}}},
                {"Retry",
                 {{{"ErrorEquals", {"States.IntrinsicFailure"}},
                   {"MaxAttempts", 1},
                   {"IntervalSeconds", 3}}}},
                {"Catch",
                 {{{"ErrorEquals", {"States.ALL"}},
                   {"ResultPath", "$.error"},
                   {"Next", "H"}}}},
                {"End", false},
                {"Next", "H"}})},
         {"H", Pass(json::object())}}}});
  RunResult r = machine->Run({{"list", {1, 2}}}, NeverCalled);
  EXPECT_EQ(r.status, "SUCCEEDED");
  EXPECT_EQ(r.waits, (std::vector<double>{3}));
  EXPECT_EQ(r.states, (std::vector<std::string>{"T", "H"}));
  EXPECT_EQ(r.output,
            (json{{"list", {1, 2}},
                  {"error",
                   {{"Error", "States.IntrinsicFailure"},
                    {"Cause", "States.ArrayGetItem: index out of range"}}}}));
}

// A Fail state's ErrorPath and CausePath take an intrinsic function that
// returns a string, as Step Functions allows; any other is refused at load,
// as is a literal beside its path.
TEST(ExecutorFailStateTest, ErrorPathAndCausePathTakeStringIntrinsics) {
  auto machine = MustLoad(
      {{"StartAt", "F"},
       {"States",
        {{"F",
          {{"Type", "Fail"},
           {"ErrorPath", "States.Format('Bad.{}', $.kind)"},
           {"CausePath", "States.Format('x {} of {}', $.a, $.b)"}}}}}});
  RunResult r =
      machine->Run({{"kind", "Input"}, {"a", 7}, {"b", "y"}}, NeverCalled);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "Bad.Input");
  EXPECT_EQ(r.cause, "x 7 of y");
  EXPECT_EQ(r.states, (std::vector<std::string>{"F"}));

  // A missing argument is the execution's States.Runtime, naming the field.
  r = machine->Run({{"kind", "Input"}, {"a", 7}}, NeverCalled);
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause,
            "The JSONPath '$.b' specified for the field 'CausePath' could not "
            "be found in the input '{\"kind\":\"Input\",\"a\":7}'");

  // States.ArrayGetItem returns a string only when the item is one.
  auto item = MustLoad({{"StartAt", "F"},
                        {"States",
                         {{"F",
                           {{"Type", "Fail"},
                            {"Error", "E"},
                            {"CausePath", "States.ArrayGetItem($.l, 1)"}}}}}});
  r = item->Run({{"l", {"a", "b"}}}, NeverCalled);
  EXPECT_EQ(r.error, "E");
  EXPECT_EQ(r.cause, "b");
  r = item->Run({{"l", {"a", 2}}}, NeverCalled);
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause, "CausePath must select a string");

  const auto fail = [](const json& fields) {
    json f = {{"Type", "Fail"}};
    f.update(fields);
    return json{{"StartAt", "F"}, {"States", {{"F", f}}}};
  };
  EXPECT_EQ(LoadError(fail({{"CausePath", "States.ArrayLength($.l)"}})),
            "/States/F/CausePath: States.ArrayLength does not return a "
            "string: only States.Format, States.JsonToString, "
            "States.ArrayGetItem, States.Base64Encode, States.Base64Decode, "
            "States.Hash and States.UUID may be used here");
  EXPECT_EQ(LoadError(fail({{"ErrorPath", "States.Nope($.l)"}})),
            "/States/F/ErrorPath: intrinsic function States.Nope is not "
            "supported");
  EXPECT_EQ(LoadError(fail({{"Cause", "c"}, {"CausePath", "$.c"}})),
            "/States/F: Cause and CausePath cannot both be given");
  EXPECT_EQ(LoadError(fail({{"Error", "e"}, {"ErrorPath", "$.e"}})),
            "/States/F: Error and ErrorPath cannot both be given");
  EXPECT_EQ(LoadError(fail({{"Error", 5}})),
            "/States/F/Error: must be a string");
  EXPECT_EQ(LoadError(fail({{"ErrorPath", "$.a[*]"}})),
            "/States/F/ErrorPath: must be a reference path (a single node: "
            "no [*], .*, slice, index list or ..): $.a[*]");
}

// A Fail state that names no Error or Cause leaves them absent, in the
// result and in the history's ExecutionFailed, as Step Functions does; a
// catcher's output has "" for them, as Step Functions binds.
TEST(ExecutorFailStateTest, AnUnnamedErrorOrCauseIsAbsentNotEmpty) {
  auto bare =
      MustLoad({{"StartAt", "F"}, {"States", {{"F", {{"Type", "Fail"}}}}}});
  RunResult r = bare->Run(json::object(), NeverCalled);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, std::nullopt);
  EXPECT_EQ(r.cause, std::nullopt);
  EXPECT_EQ(HistoryToJson({r.history.back()}),
            json::parse(R"([{"id":3,"timestamp":"2026-01-01T00:00:00.000Z",
                             "type":"ExecutionFailed"}])"));

  auto error_only =
      MustLoad({{"StartAt", "F"},
                {"States", {{"F", {{"Type", "Fail"}, {"Error", "E"}}}}}});
  r = error_only->Run(json::object(), NeverCalled);
  EXPECT_EQ(r.error, "E");
  EXPECT_EQ(r.cause, std::nullopt);
  EXPECT_EQ(r.history.back().details, (json{{"error", "E"}}));

  // A Fail state in a Parallel branch, caught by the Parallel.
  auto caught = MustLoad(
      {{"StartAt", "P"},
       {"States",
        {{"P",
          {{"Type", "Parallel"},
           {"Branches",
            {{{"StartAt", "F"},
              {"States", {{"F", {{"Type", "Fail"}, {"Cause", "why"}}}}}}}},
           {"Catch",
            {{{"ErrorEquals", {"States.ALL"}},
              {"ResultPath", "$.error"},
              {"Next", "H"}}}},
           {"Next", "H"}}},
         {"H", Pass(json::object())}}}});
  r = caught->Run({{"k", 1}}, NeverCalled);
  EXPECT_EQ(r.status, "SUCCEEDED");
  EXPECT_EQ(r.error, std::nullopt);
  EXPECT_EQ(r.output,
            (json{{"k", 1}, {"error", {{"Error", ""}, {"Cause", "why"}}}}));
}

// HeartbeatSeconds is accepted as Step Functions accepts it (a positive
// integer, smaller than TimeoutSeconds when both are given) and recorded
// in TaskScheduled; a handler sends no heartbeat, so it never fails a Task
// here: only TimeoutSeconds bounds the invocation.
TEST(ExecutorTaskTest, HeartbeatSecondsIsValidatedAndRecorded) {
  const auto task = [](const json& fields) {
    return json{{"StartAt", "T"}, {"States", {{"T", Task(fields)}}}};
  };
  EXPECT_EQ(LoadError(task({{"HeartbeatSeconds", 0}})),
            "/States/T/HeartbeatSeconds: must be a positive integer");
  EXPECT_EQ(LoadError(task({{"HeartbeatSeconds", 2.5}})),
            "/States/T/HeartbeatSeconds: must be a positive integer");
  EXPECT_EQ(LoadError(task({{"TimeoutSeconds", "10"}})),
            "/States/T/TimeoutSeconds: must be a positive integer");
  EXPECT_EQ(LoadError(task({{"TimeoutSeconds", 10}, {"HeartbeatSeconds", 10}})),
            "/States/T/HeartbeatSeconds: must be smaller than TimeoutSeconds");
  auto machine =
      MustLoad(task({{"TimeoutSeconds", 10}, {"HeartbeatSeconds", 2}}));
  Scripted slow{{{"T", {{{"return", {{"ok", true}}}, {"seconds", 9}}}}}};
  RunResult r = machine->Run(json::object(), std::ref(slow));
  EXPECT_EQ(r.status, "SUCCEEDED");
  EXPECT_DOUBLE_EQ(r.end_time - RunOptions{}.start_time, 9);
  EXPECT_EQ(r.history[2].type, "TaskScheduled");
  EXPECT_EQ(r.history[2].details["heartbeat_seconds"], 2);
  Scripted slower{{{"T", {{{"return", {{"ok", true}}}, {"seconds", 11}}}}}};
  r = machine->Run(json::object(), std::ref(slower));
  EXPECT_EQ(r.error, "States.Timeout");
  EXPECT_EQ(r.cause, "Task timed out");
  // Without TimeoutSeconds.
  EXPECT_EQ(MustLoad(task({{"HeartbeatSeconds", 3600}}))
                ->Run(json::object(), std::ref(slower))
                .status,
            "SUCCEEDED");
}

// A Distributed Map's fields are refused at load, naming the field.
TEST(ExecutorLoadTest, DistributedMapFieldsAreRefusedByName) {
  const auto map = [](const char* key, const json& value) {
    json m = {{"Type", "Map"},
              {"End", true},
              {"ItemProcessor",
               {{"StartAt", "X"}, {"States", {{"X", {{"Type", "Succeed"}}}}}}}};
    m[key] = value;
    return json{{"StartAt", "M"}, {"States", {{"M", m}}}};
  };
  EXPECT_EQ(LoadError(map("ItemReader",
                          {{"Resource", "arn:aws:states:::s3:getObject"}})),
            "/States/M/ItemReader: ItemReader (reading a Map's items from "
            "Amazon S3, a Distributed Map) is not supported by the executor, "
            "which runs INLINE Maps only");
  EXPECT_EQ(LoadError(map("ItemBatcher", {{"MaxItemsPerBatch", 10}})),
            "/States/M/ItemBatcher: ItemBatcher (batching a Map's items, a "
            "Distributed Map) is not supported by the executor, which runs "
            "INLINE Maps only");
  EXPECT_EQ(LoadError(map("ResultWriter",
                          {{"Resource", "arn:aws:states:::s3:putObject"}})),
            "/States/M/ResultWriter: ResultWriter (writing a Map's results to "
            "Amazon S3, a Distributed Map) is not supported by the executor, "
            "which runs INLINE Maps only");
  EXPECT_EQ(LoadError(map("ToleratedFailureCount", 1)),
            "/States/M/ToleratedFailureCount: ToleratedFailureCount (a Map's "
            "tolerated failures, a Distributed Map) is not supported by the "
            "executor, which runs INLINE Maps only");
}

// An execution that would write more than Step Functions' 25,000 history
// events fails at the event Step Functions fails it: ExecutionFailed is
// event 25,000, with States.Runtime and Step Functions' cause, which no
// Catch handles. A Pass and a Choice looping write 2 events each (entered,
// exited) after ExecutionStarted: events 2..24,999 are 6,250 Pass and
// 6,249 Choice states, the last one the Pass's exit.
TEST(ExecutorLimitsTest, AnEndlessLoopFailsAtTheHistoryQuota) {
  auto machine = MustLoad({{"StartAt", "Spin"},
                           {"States",
                            {{"Spin", {{"Type", "Pass"}, {"Next", "Again"}}},
                             {"Again",
                              {{"Type", "Choice"},
                               {"Choices",
                                {{{"Variable", "$.spin"},
                                  {"BooleanEquals", true},
                                  {"Next", "Spin"}}}},
                               {"Default", "Done"}}},
                             {"Done", {{"Type", "Succeed"}}}}}});
  for (History history : {History::kNone, History::kFull}) {
    RunOptions options;
    options.history = history;
    RunResult r = machine->Run({{"spin", true}}, NeverCalled, options);
    EXPECT_EQ(r.status, "FAILED");
    EXPECT_EQ(r.error, "States.Runtime");
    EXPECT_EQ(r.cause,
              "The execution reached the maximum number of history events "
              "(25000).");
    ASSERT_EQ(r.states.size(), 6250u + 6249u);
    EXPECT_EQ(r.states.back(), "Spin");
    EXPECT_EQ(std::count(r.states.begin(), r.states.end(), "Again"), 6249);
    if (history == History::kFull) {
      ASSERT_FALSE(r.history.empty());
      EXPECT_EQ(r.history.back().type, "ExecutionFailed");
      EXPECT_EQ(r.history[r.history.size() - 2].type, "StateExited");
      EXPECT_EQ(r.history[r.history.size() - 2].state, "Spin");
    }
  }
  // One loop fewer ends in time: 24,998 events, then ExecutionSucceeded.
  json counted = {{"StartAt", "Spin"},
                  {"States",
                   {{"Spin",
                     {{"Type", "Pass"},
                      {"Parameters", {{"n.$", "States.MathAdd($.n, 1)"}}},
                      {"Next", "Again"}}},
                    {"Again",
                     {{"Type", "Choice"},
                      {"Choices",
                       {{{"Variable", "$.n"},
                         {"NumericLessThan", 6249},
                         {"Next", "Spin"}}}},
                      {"Default", "Done"}}},
                    {"Done", {{"Type", "Succeed"}}}}}};
  RunResult ok = MustLoad(counted)->Run({{"n", 0}}, NeverCalled);
  EXPECT_EQ(ok.status, "SUCCEEDED") << ok.cause.value_or("");
  EXPECT_EQ(ok.states.size(), 6249u * 2 + 1);
  counted["States"]["Again"]["Choices"][0]["NumericLessThan"] = 6250;
  RunResult over = MustLoad(counted)->Run({{"n", 0}}, NeverCalled);
  EXPECT_EQ(over.error, "States.Runtime");
}

// Tasks, Parallel and Map write their own events, counted toward the quota
// whether the history is kept or not: a Task attempt 3, a Parallel 2, a Map
// 2 and 2 per iteration, and the states their entered and exited events.
TEST(ExecutorLimitsTest, TasksParallelsAndMapsCountTheirEvents) {
  // ExecutionStarted, then 22 events a loop: the 5 states' entered and
  // exited (10), the Task's two attempts (6), the Parallel's started and
  // succeeded (2), the Map's started and succeeded and its one
  // iteration's started and succeeded (4).
  json definition = {
      {"StartAt", "T"},
      {"States",
       {{"T",
         Task({{"Retry", {{{"ErrorEquals", {"A"}}, {"IntervalSeconds", 0}}}},
               {"ResultPath", nullptr},
               {"End", false},
               {"Next", "P"}})},
        {"P",
         {{"Type", "Parallel"},
          {"Branches",
           {{{"StartAt", "B"}, {"States", {{"B", Pass(json::object())}}}}}},
          {"ResultPath", nullptr},
          {"Next", "M"}}},
        {"M",
         {{"Type", "Map"},
          {"ItemsPath", "$.one"},
          {"ItemProcessor",
           {{"StartAt", "I"}, {"States", {{"I", Pass(json::object())}}}}},
          {"ResultPath", nullptr},
          {"Next", "T"}}}}}};
  definition["States"]["T"].erase("End");
  auto machine = MustLoad(definition);
  int calls = 0;
  auto handler = [&](const TaskInvocation&) -> TaskOutcome {
    if (++calls % 2 == 1) throw AslError("A", "again");
    return TaskOutcome{json::object(), 0};
  };
  RunOptions options;
  options.history = History::kNone;
  RunResult r = machine->Run({{"one", {1}}}, handler, options);
  EXPECT_EQ(r.error, "States.Runtime");
  // 1 + 1,136 loops of 22 = 24,993 events; the 1,137th loop's Task writes
  // 24,994..24,999 (entered, the failed attempt's 3, then TaskScheduled and
  // TaskStarted of the second: its handler runs) and the execution fails
  // at its TaskSucceeded.
  EXPECT_EQ(r.cause,
            "The execution reached the maximum number of history events "
            "(25000).");
  EXPECT_EQ(calls, 1137 * 2);
  EXPECT_EQ(r.states.size(), 1136u * 5 + 1);
  EXPECT_EQ(r.states.back(), "T");
}

}  // namespace
}  // namespace executor_test
}  // namespace novacat::runtime::asl

// Workflow variables (Assign, JSONPath): what Step Functions' recorded
// executions show, and the executor's refusals of what they do not settle.
namespace novacat::runtime::asl {
namespace executor_test {
namespace {

json Machine(const json& states, const char* start) {
  return {{"StartAt", start}, {"States", states}};
}

// Step Functions' own example of the order: a state's paths read the
// variables as they were when it was entered (OutputPath "$answer" reads
// 42, not what the state assigns); a Pass's Assign reads its Result as $.
TEST(ExecutorAssignTest, AStatesPathsReadTheVariablesItWasEnteredWith) {
  auto machine = MustLoad(Machine(
      {{"State0",
        {{"Type", "Pass"},
         {"Result",
          {{"theQuestion",
            "What is the answer to life the universe and everything?"}}},
         {"Assign", {{"question.$", "$.theQuestion"}, {"answer", 42}}},
         {"Next", "State1"}}},
       {"State1",
        {{"Type", "Pass"},
         {"InputPath", "$answer"},
         {"ResultPath", "$.theAnswer"},
         {"OutputPath", "$answer"},
         {"Assign", {{"answer", "<omitted>"}}},
         {"Next", "State2"}}},
       {"State2",
        {{"Type", "Pass"},
         {"Parameters",
          {{"answer.$", "$answer"},
           {"question.$", "$question"},
           {"both.$", "States.Format('{} {}', $question, $answer)"}}},
         {"End", true}}}},
      "State0"));
  RunResult r = machine->Run(json::object(), NeverCalled);
  ASSERT_EQ(r.status, "SUCCEEDED") << r.cause.value_or("");
  EXPECT_EQ(r.history[4].type, "StateExited");
  EXPECT_EQ(r.history[4].details,  // State1's OutputPath, its Assign
            (json{{"output", 42},
                  {"assigned_variables", {{"answer", "<omitted>"}}}}));
  EXPECT_EQ(r.output,
            (json{{"answer", "<omitted>"},
                  {"question",
                   "What is the answer to life the universe and everything?"},
                  {"both",
                   "What is the answer to life the universe and everything? "
                   "<omitted>"}}));
}

// A Pass reads its Parameters' payload as $ (or its input without them),
// the context object as $$; every path field reads variables: InputPath,
// Parameters, a Choice's Variable and ...Path operand, a Wait's SecondsPath
// and TimestampPath, a Fail's ErrorPath and CausePath, a Map's ItemsPath.
TEST(ExecutorAssignTest, EveryPathFieldReadsVariables) {
  auto machine = MustLoad(Machine(
      {{"Set",
        {{"Type", "Pass"},
         {"Parameters", {{"input", "PENDING"}}},
         {"Assign",
          {{"result.$", "$.input"},
           {"name.$", "$$.State.Name"},
           {"wait", 3},
           {"until", "2026-01-01T00:01:00Z"},
           {"items", {1, 2}},
           {"guess", "a"},
           {"answer", "b"}}},
         {"Next", "Check"}}},
       {"Check",
        {{"Type", "Choice"},
         {"Choices",
          {{{"Variable", "$guess"},
            {"StringEqualsPath", "$answer"},
            {"Next", "Done"}}}},
         {"Default", "Sleep"}}},
       {"Sleep",
        {{"Type", "Wait"}, {"SecondsPath", "$wait"}, {"Next", "Until"}}},
       {"Until",
        {{"Type", "Wait"}, {"TimestampPath", "$until"}, {"Next", "Each"}}},
       {"Each",
        {{"Type", "Map"},
         {"ItemsPath", "$items"},
         {"ItemSelector",
          {{"item.$", "$$.Map.Item.Value"}, {"from.$", "$name"}}},
         {"ItemProcessor",
          {{"StartAt", "I"}, {"States", {{"I", Pass(json::object())}}}}},
         {"ResultPath", "$.each"},
         {"Next", "Again"}}},
       {"Again",
        {{"Type", "Pass"},
         {"Assign", {{"guess.$", "$answer"}}},
         {"Next", "Check"}}},
       {"Done",
        {{"Type", "Fail"},
         {"ErrorPath", "$result"},
         {"CausePath", "States.Format('{} after {}', $guess, $name)"}}}},
      "Set"));
  RunResult r = machine->Run(json::object(), NeverCalled);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "PENDING");
  EXPECT_EQ(r.cause, "b after Set");
  EXPECT_EQ(r.states,
            (std::vector<std::string>{"Set", "Check", "Sleep", "Until", "Each",
                                      "I", "I", "Again", "Check", "Done"}));
  EXPECT_DOUBLE_EQ(r.end_time - RunOptions{}.start_time, 60);
}

// A Choice makes the Assign of the rule that chooses, or its own when it
// takes its Default (Step Functions' example: "42" is a string, so
// NumericEquals 42 does not choose).
TEST(ExecutorAssignTest, AChoiceAssignsForTheRuleItTakes) {
  auto machine = MustLoad(Machine(
      {{"CheckInputState",
        {{"Type", "Choice"},
         {"Choices",
          {{{"Variable", "$.input_value"},
            {"IsPresent", false},
            {"Assign", {{"status", "UNKNOWN"}}},
            {"Next", "FinalState"}},
           {{"Variable", "$.input_value"},
            {"NumericEquals", 42},
            {"Assign", {{"status", "CORRECT"}}},
            {"Next", "FinalState"}}}},
         {"Assign", {{"status", "INCORRECT"}, {"guess.$", "$.input_value"}}},
         {"Default", "FinalState"}}},
       {"FinalState",
        {{"Type", "Pass"},
         {"Parameters", {{"result.$", "$status"}}},
         {"End", true}}}},
      "CheckInputState"));
  EXPECT_EQ(machine->Run({{"input_value", "42"}}, NeverCalled).output,
            (json{{"result", "INCORRECT"}}));
  EXPECT_EQ(machine->Run({{"input_value", 42}}, NeverCalled).output,
            (json{{"result", "CORRECT"}}));
  EXPECT_EQ(machine->Run(json::object(), NeverCalled).output,
            (json{{"result", "UNKNOWN"}}));
}

// A Task's Assign reads its raw result (Lambda's wrapper) as $, once it
// succeeds; when a catcher takes the error, the catcher's Assign is made,
// reading the error output, and the state's is not.
TEST(ExecutorAssignTest, ATaskAssignsItsResultOrItsCatchersError) {
  json task =
      Task({{"Assign", {{"result.$", "$.Payload"}, {"path", "ok"}}},
            {"Retry", {{{"ErrorEquals", {"A"}}, {"IntervalSeconds", 1}}}},
            {"Catch",
             {{{"ErrorEquals", {"B"}},
               {"Assign", {{"error.$", "$.Cause"}, {"path", "caught"}}},
               {"ResultPath", "$.error"},
               {"Next", "Report"}}}},
            {"OutputPath", "$.Payload"},
            {"Next", "Report"}});
  task.erase("End");
  auto machine =
      MustLoad(Machine({{"Start",
                         {{"Type", "Pass"},
                          {"Assign", {{"result", "none"}, {"error", "none"}}},
                          {"Next", "T"}}},
                        {"T", task},
                        {"Report",
                         {{"Type", "Pass"},
                          {"Parameters",
                           {{"result.$", "$result"},
                            {"error.$", "$error"},
                            {"path.$", "$path"}}},
                          {"End", true}}}},
                       "Start"));
  Scripted retried{{{"T", {{{"throw", "A"}}, {{"return", {{"n", 1}}}}}}}};
  RunResult r = machine->Run(json::object(), std::ref(retried));
  EXPECT_EQ(r.output,
            (json{{"result", {{"n", 1}}}, {"error", "none"}, {"path", "ok"}}));
  EXPECT_EQ(r.waits, std::vector<double>{1});
  Scripted caught{{{"T", {{{"throw", "B"}, {"cause", "bad"}}}}}};
  r = machine->Run(json::object(), std::ref(caught));
  EXPECT_EQ(r.output,
            (json{{"result", "none"}, {"error", "bad"}, {"path", "caught"}}));

  // The Task succeeds and its Assign is made, then its ResultPath fails
  // (States.ResultPathMatchFailure): the catcher, without an Assign, takes
  // the error and the state assigns nothing.
  json late = Task({{"Assign", {{"result", "assigned"}}},
                    {"ResultPath", "$.a.b"},
                    {"Catch",
                     {{{"ErrorEquals", {"States.ResultPathMatchFailure"}},
                       {"ResultPath", nullptr},
                       {"Next", "Report"}}}},
                    {"Next", "Report"}});
  late.erase("End");
  auto failing_late = MustLoad(Machine(
      {{"Start",
        {{"Type", "Pass"}, {"Assign", {{"result", "none"}}}, {"Next", "T"}}},
       {"T", late},
       {"Report", Pass({{"Parameters", {{"result.$", "$result"}}}})}},
      "Start"));
  Scripted fine{{{"T", {{{"return", {{"n", 1}}}}}}}};
  r = failing_late->Run({{"a", "not an object"}}, std::ref(fine));
  EXPECT_EQ(r.states, (std::vector<std::string>{"Start", "T", "Report"}));
  EXPECT_EQ(r.output, (json{{"result", "none"}}));
}

// A Parallel branch and a Map iteration read the enclosing scope's
// variables; what they assign ends with them: another iteration does not
// see it (reading it fails the execution), nor may the enclosing scope
// read it (refused at load), nor may they assign an enclosing scope's.
TEST(ExecutorAssignTest, BranchesAndIterationsHaveTheirOwnScope) {
  const json outer = {{"Type", "Pass"},
                      {"Assign", {{"x", 42}, {"items", {0, 1}}}},
                      {"Next", "P"}};
  auto parallel = MustLoad(Machine(
      {{"Start", outer},
       {"P",
        {{"Type", "Parallel"},
         {"Branches",
          {{{"StartAt", "B"},
            {"States",
             {{"B",
               {{"Type", "Pass"},
                {"Assign", {{"inner.$", "$x"}}},
                {"Next", "C"}}},
              {"C", Pass({{"Parameters",
                           {{"inner.$", "$inner"}, {"x.$", "$x"}}}})}}}}}},
         {"End", true}}}},
      "Start"));
  RunResult r = parallel->Run(json::object(), NeverCalled);
  EXPECT_EQ(r.output, json::parse(R"([{"inner":42,"x":42}])"));

  // Item 0 assigns $y; item 1 reads it without assigning it.
  json to_map = outer;
  to_map["Next"] = "M";
  const json with_map = Machine(
      {{"Start", to_map},
       {"M",
        {{"Type", "Map"},
         {"ItemsPath", "$items"},
         {"MaxConcurrency", 1},
         {"ItemProcessor",
          {{"StartAt", "First"},
           {"States",
            {{"First",
              {{"Type", "Choice"},
               {"Choices",
                {{{"Variable", "$"}, {"NumericEquals", 0}, {"Next", "Set"}}}},
               {"Default", "Read"}}},
             {"Set",
              {{"Type", "Pass"}, {"Assign", {{"y", "set"}}}, {"Next", "Read"}}},
             {"Read", Pass({{"Parameters", {{"y.$", "$y"}}}})}}}}},
         {"End", true}}}},
      "Start");
  r = MustLoad(with_map)->Run(json::object(), NeverCalled);
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause,
            "The variable '$y' read by the field 'y.$' has not been assigned");
  EXPECT_EQ(r.states, (std::vector<std::string>{"Start", "M", "First", "Set",
                                                "Read", "First", "Read"}));

  json leaks = with_map;
  leaks["States"]["M"]["End"] = false;
  leaks["States"]["M"].erase("End");
  leaks["States"]["M"]["Next"] = "After";
  leaks["States"]["After"] = Pass({{"Parameters", {{"y.$", "$y"}}}});
  EXPECT_EQ(LoadError(leaks),
            "/States/After/Parameters/y.$: $y is assigned by no state of this "
            "scope or an enclosing one");
  json writes_outer = with_map;
  writes_outer["States"]["M"]["ItemProcessor"]["States"]["Set"]["Assign"] = {
      {"x", 1}};
  EXPECT_EQ(LoadError(writes_outer),
            "/States/M/ItemProcessor/States/Set/Assign/x: assigns $x, a "
            "variable of an enclosing scope, which a Parallel branch or a Map "
            "iteration reads but does not assign");
}

// A variable a state reads before any state assigned it fails the
// execution with States.Runtime, which no Catch handles.
TEST(ExecutorAssignTest, ReadingAVariableNotYetAssignedFails) {
  json task =
      Task({{"Parameters", {{"v.$", "$later"}}},
            {"Catch", {{{"ErrorEquals", {"States.ALL"}}, {"Next", "Set"}}}},
            {"Next", "Set"}});
  task.erase("End");
  auto machine = MustLoad(
      Machine({{"T", task}, {"Set", Pass({{"Assign", {{"later", 1}}}})}}, "T"));
  RunResult r = machine->Run(json::object(), NeverCalled);
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause,
            "The variable '$later' read by the field 'v.$' has not been "
            "assigned");
  EXPECT_EQ(r.states, (std::vector<std::string>{"T"}));
}

// What the executor refuses at load, with the field named.
TEST(ExecutorAssignTest, RefusedAssignsAndReads) {
  const auto pass = [](const json& fields) {
    return Machine({{"A", Pass(fields)}}, "A");
  };
  EXPECT_EQ(LoadError(pass({{"Assign", {{"9lives", 1}}}})),
            "/States/A/Assign/9lives: not a variable name (a letter or _, then "
            "letters, digits and _, at most 80 characters)");
  EXPECT_EQ(LoadError(pass({{"Assign", {{"states", 1}}}})),
            "/States/A/Assign/states: $states is reserved (JSONata's)");
  EXPECT_EQ(LoadError(pass({{"Assign", {{"a", 1}, {"a.$", "$.b"}}}})),
            "/States/A/Assign/a.$: assigns $a twice");
  EXPECT_EQ(LoadError(pass({{"Assign", json::array()}})),
            "/States/A/Assign: must be an object");
  EXPECT_EQ(LoadError(pass({{"Assign", {{"a", 1}}}, {"ResultPath", "$a"}})),
            "/States/A/ResultPath: cannot name a variable");
  EXPECT_EQ(LoadError(pass({{"Parameters", {{"s.$", "$states.input"}}}})),
            "/States/A/Parameters/s.$: $states is JSONata's reserved "
            "variable, which a JSONPath state cannot read");
  EXPECT_EQ(LoadError(pass(
                {{"Parameters", {{"s.$", "States.Format('{}', $nope)"}}}})),
            "/States/A/Parameters/s.$: $nope is assigned by no state of this "
            "scope or an enclosing one");
  EXPECT_EQ(LoadError(Machine(
                {{"S", {{"Type", "Succeed"}, {"Assign", {{"a", 1}}}}}}, "S")),
            "/States/S/Assign: not supported by the executor");
  EXPECT_EQ(
      LoadError(Machine({{"T", Task({{"ResultSelector", {{"p.$", "$.Payload"}}},
                                     {"Assign", {{"raw.$", "$.Payload"}}}})}},
                        "T")),
      "/States/T/Assign/raw.$: reads the state's result ($) beside "
      "ResultSelector, which the executor refuses: whether Step Functions "
      "gives Assign the raw result or ResultSelector's is not established");
  // Beside ResultSelector, an Assign that does not read $ runs.
  json selecting = Task({{"ResultSelector", {{"p.$", "$.Payload"}}},
                         {"Assign", {{"at.$", "$$.State.Name"}, {"n", 1}}},
                         {"Next", "R"}});
  selecting.erase("End");
  auto selected = MustLoad(
      Machine({{"T", selecting},
               {"R", Pass({{"Parameters", {{"at.$", "$at"}, {"n.$", "$n"}}}})}},
              "T"));
  Scripted ok{{{"T", {{{"return", {{"v", 1}}}}}}}};
  EXPECT_EQ(selected->Run(json::object(), std::ref(ok)).output,
            (json{{"at", "T"}, {"n", 1}}));
}

// JSONPath queries: where a field takes a Path (a payload template's ".$"
// values, intrinsic arguments, InputPath, OutputPath) Step Functions runs
// Jayway's JsonPath: a path that can match several nodes ([*], .*, a slice,
// an index list, ..) gives the array of its matches in document order, []
// when none; a definite path gives the value.
json PassWith(const json& parameters) {
  return json{
      {"StartAt", "P"},
      {"States",
       {{"P", {{"Type", "Pass"}, {"Parameters", parameters}, {"End", true}}}}}};
}

json RunPass(const json& parameters, const json& input) {
  auto machine = MustLoad(PassWith(parameters));
  Scripted none;
  RunResult r = machine->Run(input, std::ref(none));
  EXPECT_EQ(r.status, "SUCCEEDED") << r.cause.value_or("");
  return r.output;
}

TEST(ExecutorJsonPathTest, AQueryInAPayloadTemplateGivesTheArrayOfItsMatches) {
  const json input = {
      {"objs", {{{"id", 1}, {"k", "a"}}, {{"id", 2}}, {{"k", "c"}}}},
      {"l", {10, 11, 12, 13}},
      {"o", {{"x", 1}, {"y", {{"id", 9}}}}},
      {"n", 5}};
  EXPECT_EQ(RunPass({{"ids.$", "$.objs[*].id"}}, input),
            (json{{"ids", {1, 2}}}));
  EXPECT_EQ(RunPass({{"ks.$", "$.objs.*.k"}}, input),
            (json{{"ks", {"a", "c"}}}));
  EXPECT_EQ(RunPass({{"s.$", "$.l[1:3]"},
                     {"from.$", "$.l[2:]"},
                     {"to.$", "$.l[:1]"},
                     {"last.$", "$.l[-2:]"},
                     {"past.$", "$.l[3:99]"},
                     {"empty.$", "$.l[3:1]"}},
                    input),
            (json{{"s", {11, 12}},
                  {"from", {12, 13}},
                  {"to", {10}},
                  {"last", {12, 13}},
                  {"past", {13}},
                  {"empty", json::array()}}));
  EXPECT_EQ(RunPass({{"i.$", "$.l[0,2]"}, {"j.$", "$.l[3,-4,7]"}}, input),
            (json{{"i", {10, 12}}, {"j", {13, 10}}}));
  // An object's values for a wildcard; one match is still an array.
  EXPECT_EQ(RunPass({{"v.$", "$.o[*]"}, {"one.$", "$.objs[0:1].id"}}, input),
            (json{{"v", {1, {{"id", 9}}}}, {"one", {1}}}));
  // `..name`: a node's own member before those below it, in document order.
  EXPECT_EQ(RunPass({{"all.$", "$..id"}, {"under.$", "$.o..id"}}, input),
            (json{{"all", {1, 2, 9}}, {"under", {9}}}));
  EXPECT_EQ(RunPass({{"ids.$", "$..id"}},
                    {{"c", {{"c", {{"id", 3}}}, {"id", 2}}}, {"id", 1}}),
            (json{{"ids", {1, 2, 3}}}));
  // Nothing matched is []: a wildcard on a number, members of numbers, a
  // slice of a member that is not an array after a wildcard.
  EXPECT_EQ(
      RunPass(
          {{"a.$", "$.n[*]"}, {"b.$", "$.l[*].x"}, {"c.$", "$.objs[*].k[0:1]"}},
          input),
      (json{{"a", json::array()}, {"b", json::array()}, {"c", json::array()}}));
  // The context object, a variable and an intrinsic's argument take them.
  EXPECT_EQ(RunPass({{"n.$", "States.ArrayLength($.objs[*].id)"},
                     {"in.$", "$$.Execution.Input.l[1:2]"}},
                    input),
            (json{{"n", 2}, {"in", {11}}}));
}

TEST(ExecutorJsonPathTest, AQueryWhoseDefinitePartIsMissingIsARuntimeError) {
  auto machine = MustLoad(PassWith({{"ids.$", "$.objs[*].id"}}));
  Scripted none;
  RunResult r = machine->Run({{"n", 1}}, std::ref(none));
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause,
            "The JSONPath '$.objs[*].id' specified for the field 'ids.$' could "
            "not be found in the input '{\"n\":1}'");
}

// ...and so is a slice or an index list applied to the definite part's
// value when it is not an array (Jayway: "can only be applied to arrays").
TEST(ExecutorJsonPathTest, ASliceOfWhatIsNotAnArrayIsARuntimeError) {
  for (const char* path : {"$.o[0:2]", "$.o[0,1]"}) {
    auto machine = MustLoad(PassWith({{"v.$", path}}));
    Scripted none;
    RunResult r = machine->Run({{"o", {{"x", 1}}}}, std::ref(none));
    EXPECT_EQ(r.status, "FAILED") << path;
    EXPECT_EQ(r.error, "States.Runtime") << path;
    EXPECT_EQ(r.cause, "The JSONPath '" + std::string(path) +
                           "' specified for the field 'v.$' could not be "
                           "found in the input '{\"o\":{\"x\":1}}'");
  }
  auto machine = MustLoad(
      {{"StartAt", "P"},
       {"States",
        {{"P", {{"Type", "Pass"}, {"InputPath", "$.o[1:]"}, {"End", true}}}}}});
  Scripted none;
  RunResult r = machine->Run({{"o", 1}}, std::ref(none));
  EXPECT_EQ(r.error, "States.Runtime");
  EXPECT_EQ(r.cause, "Invalid path '$.o[1:]' : No results for path: InputPath");
}

TEST(ExecutorJsonPathTest, InputPathAndOutputPathTakeQueries) {
  auto machine = MustLoad({{"StartAt", "P"},
                           {"States",
                            {{"P",
                              {{"Type", "Pass"},
                               {"InputPath", "$.objs[*]"},
                               {"OutputPath", "$[*].id"},
                               {"End", true}}}}}});
  Scripted none;
  RunResult r =
      machine->Run({{"objs", {{{"id", 1}}, {{"id", 2}}}}}, std::ref(none));
  EXPECT_EQ(r.status, "SUCCEEDED") << r.cause.value_or("");
  EXPECT_EQ(r.output, (json{1, 2}));
}

// Step Functions refuses a query where a field takes a Reference Path
// (ResultPath, ItemsPath, a Choice's Variable and ...Path operands,
// SecondsPath, TimestampPath, ErrorPath, CausePath); the executor also
// refuses, naming the field, the JSONPath it does not run.
TEST(ExecutorJsonPathTest, ReferencePathsRefuseQueriesAndUnsupportedSyntax) {
  const std::string ref =
      ": must be a reference path (a single node: no [*], .*, slice, index "
      "list or ..): ";
  EXPECT_EQ(
      LoadError(
          {{"StartAt", "P"},
           {"States",
            {{"P",
              {{"Type", "Pass"}, {"ResultPath", "$.a[*]"}, {"End", true}}}}}}),
      "/States/P/ResultPath" + ref + "$.a[*]");
  EXPECT_EQ(LoadError({{"StartAt", "W"},
                       {"States",
                        {{"W",
                          {{"Type", "Wait"},
                           {"SecondsPath", "$.s[0:1]"},
                           {"End", true}}}}}}),
            "/States/W/SecondsPath" + ref + "$.s[0:1]");
  EXPECT_EQ(
      LoadError(
          {{"StartAt", "M"},
           {"States",
            {{"M",
              {{"Type", "Map"},
               {"ItemsPath", "$..items"},
               {"ItemProcessor",
                {{"StartAt", "X"}, {"States", {{"X", {{"Type", "Succeed"}}}}}}},
               {"End", true}}}}}}),
      "/States/M/ItemsPath" + ref + "$..items");
  const auto choice = [](const json& rule) {
    json r = rule;
    r["Next"] = "S";
    return json{{"StartAt", "C"},
                {"States",
                 {{"C", {{"Type", "Choice"}, {"Choices", {r}}}},
                  {"S", {{"Type", "Succeed"}}}}}};
  };
  EXPECT_EQ(LoadError(choice({{"Variable", "$.a.*"}, {"IsPresent", true}})),
            "/States/C/Choices/0/Variable" + ref + "$.a.*");
  EXPECT_EQ(LoadError(choice(
                {{"Variable", "$.a"}, {"NumericEqualsPath", "$.b[0,1]"}})),
            "/States/C/Choices/0/NumericEqualsPath" + ref + "$.b[0,1]");
  EXPECT_EQ(LoadError(PassWith({{"x.$", "$.a[?(@.b > 1)]"}})),
            "/States/P/Parameters/x.$: not a supported path: $.a[?(@.b > 1)] "
            "(filter expressions ([?(...)]) are not supported by the "
            "executor)");
  EXPECT_EQ(LoadError(PassWith({{"x.$", "$.a[0:4:2]"}})),
            "/States/P/Parameters/x.$: not a supported path: $.a[0:4:2] "
            "(slices with a step are not supported by the executor)");
  EXPECT_EQ(LoadError(PassWith({{"x.$", "$['a','b']"}})),
            "/States/P/Parameters/x.$: not a supported path: $['a','b'] "
            "(lists of member names are not supported by the executor)");
  EXPECT_EQ(LoadError(PassWith({{"x.$", "$.a[-1]"}})),
            "/States/P/Parameters/x.$: not a supported path: $.a[-1] "
            "(negative indexes are not supported by the executor)");
  EXPECT_EQ(LoadError(PassWith({{"x.$", "$..*"}})),
            "/States/P/Parameters/x.$: not a supported path: $..* (`..` is "
            "supported before a member name only)");
  EXPECT_EQ(LoadError(PassWith({{"x.$", "$.a[x]"}})),
            "/States/P/Parameters/x.$: not a supported path: $.a[x]");
}

}  // namespace
}  // namespace executor_test
}  // namespace novacat::runtime::asl
