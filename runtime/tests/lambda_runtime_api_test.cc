// The Runtime API loop against the scripted HTTP server: what it asks,
// what it answers for a result, a step's error, any other exception and a
// failed initialization, and what the step sees (trace id, remaining time).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

#include <cstdlib>

#include "fake_http_server.h"
#include "novacat/lambda/runtime_api.h"
#include "novacat/runtime/errors.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/repository.h"
#include "novacat/store/table_record_store.h"
#include "seed_error_names.h"

namespace novacat::lambda {
namespace lambda_runtime_api_test {
namespace {

using novacat::testing::FakeServer;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// `next` answers: the event and the invocation's headers.
FakeServer::Answer Next(const std::string& id, const std::string& event,
                        int64_t deadline_ms = 0) {
  std::string headers = "Lambda-Runtime-Aws-Request-Id: " + id +
                        "\r\nLambda-Runtime-Trace-Id: Root=1-" + id +
                        "\r\nLambda-Runtime-Invoked-Function-Arn: "
                        "arn:aws:lambda:us-east-1:1:function:f\r\n";
  if (deadline_ms)
    headers +=
        "Lambda-Runtime-Deadline-Ms: " + std::to_string(deadline_ms) + "\r\n";
  return {200, event, FakeServer::Mode::kAnswer, headers};
}

const FakeServer::Answer kAccepted{202, R"({"status":"OK"})"};

std::string Endpoint(const FakeServer& server) {
  return server.endpoint().substr(std::string("http://").size());
}

TEST(RuntimeApiTest, AnswersEachInvocationOnItsEndpoint) {
  FakeServer server({Next("r1", R"({"n":1})"), kAccepted,
                     Next("r2", R"({"n":2})"), kAccepted,
                     Next("r3", R"({"n":3})"), kAccepted});
  std::vector<std::string> traces;
  int inits = 0;
  int status = RunLoop(
      [&]() -> InvocationHandler {
        ++inits;
        return [&](const Invocation& invocation) -> std::string {
          traces.push_back(std::getenv("_X_AMZN_TRACE_ID"));
          if (invocation.request_id == "r2")
            throw runtime::QuarantineError("ambiguous resolver result");
          if (invocation.request_id == "r3")
            throw std::out_of_range("vector::at");
          return R"({"ok":)" + invocation.payload + "}";
        };
      },
      {Endpoint(server), 3, runtime::SeedErrorNames()});
  EXPECT_EQ(status, 0);
  EXPECT_EQ(inits, 1);  // once per process, not per invocation
  EXPECT_EQ(traces,
            (std::vector<std::string>{"Root=1-r1", "Root=1-r2", "Root=1-r3"}));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 6u);
  EXPECT_THAT(requests[0].first,
              StartsWith("GET /2018-06-01/runtime/invocation/next HTTP/1.1"));
  EXPECT_THAT(requests[1].first,
              StartsWith("POST /2018-06-01/runtime/invocation/r1/response "));
  EXPECT_EQ(requests[1].second, R"({"ok":{"n":1}})");
  EXPECT_THAT(requests[3].first,
              StartsWith("POST /2018-06-01/runtime/invocation/r2/error "));
  EXPECT_THAT(requests[3].first,
              HasSubstr("\r\nLambda-Runtime-Function-Error-Type: "
                        "QuarantineError"));
  EXPECT_EQ(requests[3].second,
            R"({"errorMessage":"ambiguous resolver result",)"
            R"("errorType":"QuarantineError"})");
  // Not a StepError: TERMINAL with its message, and the loop goes on.
  EXPECT_EQ(requests[5].second,
            R"({"errorMessage":"vector::at","errorType":"TerminalError"})");
}

// A `next` without an answer (here a reset; under Lambda or @vercel/fun, a
// connect timeout run out while the process was frozen) is asked again.
TEST(RuntimeApiTest, NextIsAskedAgainWhenItGetsNoAnswer) {
  const FakeServer::Answer reset{0, "", FakeServer::Mode::kReset};
  FakeServer server({reset, reset, reset, Next("r1", R"({"n":1})"), kAccepted});
  int status = RunLoop(
      [] {
        return [](const Invocation& invocation) { return invocation.payload; };
      },
      {Endpoint(server), 1, runtime::SeedErrorNames()});
  EXPECT_EQ(status, 0);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 5u);
  for (int i = 0; i < 4; ++i)
    EXPECT_THAT(requests[i].first,
                StartsWith("GET /2018-06-01/runtime/invocation/next "));
  EXPECT_THAT(requests[4].first,
              StartsWith("POST /2018-06-01/runtime/invocation/r1/response "));
  EXPECT_EQ(requests[4].second, R"({"n":1})");
}

TEST(RuntimeApiTest, NextGivesUpAfterItsLastAttempt) {
  const FakeServer::Answer reset{0, "", FakeServer::Mode::kReset};
  FakeServer server({reset, reset, reset, reset});
  ::testing::internal::CaptureStderr();
  int status = RunLoop(
      [] {
        return [](const Invocation& invocation) { return invocation.payload; };
      },
      {Endpoint(server), 1, runtime::SeedErrorNames()});
  EXPECT_EQ(status, 1);
  // A reset before any answer is one of two curl errors, depending on
  // timing.
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              ::testing::MatchesRegex(
                  "Lambda Runtime API " + server.endpoint() +
                  "/2018-06-01/runtime/invocation/next: (Failure when "
                  "receiving data from the peer \\(Recv failure: Connection "
                  "reset by peer\\)|Server returned nothing \\(no headers, no "
                  "data\\)) \\(attempt 4 of 4\\)\n"));
  EXPECT_EQ(server.requests().size(), 4u);
}

// The invocation carries the Runtime API's deadline and function ARN (the
// handler's time left from it: WorkflowHandlerTest.StepsSeeTheRemainingTime).
TEST(RuntimeApiTest, TheInvocationCarriesItsDeadline) {
  const int64_t deadline = 1795614660000;
  FakeServer server({Next("r1", R"({"n":1})", deadline), kAccepted});
  InvocationHandler handler = [&](const Invocation& invocation) {
    EXPECT_EQ(invocation.deadline_ms, deadline);
    EXPECT_EQ(invocation.function_arn, "arn:aws:lambda:us-east-1:1:function:f");
    return std::string("{}");
  };
  EXPECT_EQ(RunLoop([&] { return handler; },
                    {Endpoint(server), 1, runtime::SeedErrorNames()}),
            0);
}

TEST(RuntimeApiTest, AFailedInitializationIsReportedOnTheInitEndpoint) {
  FakeServer server({kAccepted});
  int status = RunLoop(
      []() -> InvocationHandler {
        throw runtime::TerminalError("NOVACAT_TABLE_NAME is not set");
      },
      {Endpoint(server), 1, runtime::SeedErrorNames()});
  EXPECT_EQ(status, 1);
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_THAT(requests[0].first,
              StartsWith("POST /2018-06-01/runtime/init/error HTTP/1.1"));
  EXPECT_THAT(requests[0].first,
              HasSubstr("\r\nLambda-Runtime-Function-Error-Type: "
                        "TerminalError"));
  EXPECT_EQ(requests[0].second,
            R"({"errorMessage":"NOVACAT_TABLE_NAME is not set",)"
            R"("errorType":"TerminalError"})");
}

TEST(RuntimeApiTest, WithoutTheRuntimeApiItSaysWhatItIs) {
  unsetenv("AWS_LAMBDA_RUNTIME_API");
  ::testing::internal::CaptureStderr();
  int status = RunLoop([]() -> InvocationHandler { return {}; });
  EXPECT_EQ(status, 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "AWS_LAMBDA_RUNTIME_API is not set: this program is a Lambda "
            "function (custom runtime provided.al2023); run it in Lambda or "
            "under a Runtime API emulator\n");
}

TEST(WorkflowHandlerTest, StepsSeeTheRemainingTime) {
  runtime::WorkflowBinding binding;
  binding.facts.workflow_name = "w";
  binding.is_domain_task = [](std::string_view) { return true; };
  int64_t seen = 0;
  store::MemoryTable table;
  store::TableRecordStore store(table);
  runtime::CaptureSink log;
  runtime::CaptureBus bus;
  runtime::SystemRandom random;
  runtime::HostServices services{store, log, bus, random};
  Invocation invocation;
  invocation.request_id = "r1";
  // The wall clock is the test's: it reads 30 s before the deadline, and
  // 1.25 s later when the step asks.
  int64_t now = 1795614600000;
  invocation.deadline_ms = now + 30000;
  invocation.payload =
      R"({"workflow": "w", "state_name": "S", "retry_count": 0,
          "execution_arn": "arn:x", "state": {"a": 1}})";
  binding.dispatch = [&](std::string_view, const nlohmann::json& document,
                         runtime::StepContext& context) {
    now += 1250;
    seen = context.RemainingMs();
    return document;
  };
  InvocationHandler handler =
      WorkflowHandler(binding, services, nullptr, [&] { return now; });
  EXPECT_EQ(handler(invocation), R"({"a":1})");
  EXPECT_EQ(seen, 28750);
  // A deadline already past on arrival (@vercel/fun sends 5000) bounds
  // nothing: the function's own timeout does.
  invocation.deadline_ms = 5000;
  EXPECT_EQ(handler(invocation), R"({"a":1})");
  EXPECT_EQ(seen, std::numeric_limits<int64_t>::max());
  invocation.payload = "not json";
  try {
    handler(invocation);
    ADD_FAILURE() << "no error";
  } catch (const runtime::TerminalError& e) {
    EXPECT_STREQ(e.what(), "the invocation payload is not JSON");
  }
}

// A bus whose `fail_at`-th publish (0-based) throws RetryableError, as a
// throttled PutEvents does.
class FlakyBus : public runtime::EventBus {
 public:
  explicit FlakyBus(int fail_at) : fail_at_(fail_at) {}
  void Publish(std::string_view event, const nlohmann::json& body) override {
    if (calls_++ == fail_at_)
      throw runtime::RetryableError("PutEvents: ThrottlingException");
    published.push_back({std::string(event), body});
  }
  std::vector<runtime::CaptureBus::Published> published;

 private:
  int fail_at_;
  int calls_ = 0;
};

constexpr const char* kNovaA = "59d47572-ecfc-4738-a94e-c2d2b9936849";
constexpr const char* kNovaB = "78833635-915b-41b4-930d-84f91bf14b09";

struct SweepWorld {
  SweepWorld() {
    binding.facts.workflow_name = "refresh";
    binding.facts.input_event = "refresh_input";
    // The input event: nova_id required, nothing but `providers` besides.
    binding.facts.validate_event = [](std::string_view event,
                                      const nlohmann::json& document)
        -> std::optional<runtime::ValidationErrors> {
      if (event != "refresh_input") return std::nullopt;
      runtime::ValidationErrors errors;
      if (!document.contains("nova_id"))
        errors.push_back({"$.nova_id", "is required"});
      for (const auto& [key, value] : document.items())
        if (key != "nova_id" && key != "providers")
          errors.push_back({"$." + key, "is not allowed"});
      return errors;
    };
    store::Repository repository(table);
    for (const char* id : {kNovaB, kNovaA}) {
      store::Nova nova;
      nova.nova_id = id;
      nova.primary_name = nova.normalized_name = id;
      nova.ra_deg = 10;
      nova.dec_deg = id == kNovaA ? -45 : 45;
      nova.status = "ACTIVE";
      nova.created_at = "2026-01-01T00:00:00Z";
      repository.CreateNova(nova);
    }
  }
  std::string Invoke(const std::string& payload, runtime::EventBus& bus,
                     store::Table* catalog) {
    runtime::HostServices services{records, log, bus, random};
    Invocation invocation;
    invocation.request_id = "r1";
    invocation.payload = payload;
    return WorkflowHandler(binding, services, catalog)(invocation);
  }
  runtime::WorkflowBinding binding;
  store::MemoryTable table;
  store::MemoryTable record_table;
  store::TableRecordStore records{record_table};
  runtime::CaptureSink log;
  runtime::SystemRandom random;
};

TEST(WorkflowHandlerTest, ForEachNovaPublishesTheInputEventPerNova) {
  SweepWorld world;
  runtime::CaptureBus bus;
  EXPECT_EQ(
      world.Invoke(R"({"for_each": "nova", "input": {"providers": ["eso"]}})",
                   bus, &world.table),
      R"({"for_each":"nova","published":2})");
  using Published = runtime::CaptureBus::Published;
  EXPECT_EQ(
      bus.published(),
      (std::vector<Published>{
          {"refresh_input", {{"providers", {"eso"}}, {"nova_id", kNovaA}}},
          {"refresh_input", {{"providers", {"eso"}}, {"nova_id", kNovaB}}}}));
  ASSERT_EQ(world.log.lines().size(), 1u);
  EXPECT_THAT(world.log.lines()[0],
              HasSubstr(R"("level":"INFO","message":"published one input )"
                        R"(event per nova","workflow_name":"refresh",)"
                        R"("event":"refresh_input","published":2})"));
  // Without an input: nova_id alone.
  runtime::CaptureBus bare;
  EXPECT_EQ(world.Invoke(R"({"for_each": "nova"})", bare, &world.table),
            R"({"for_each":"nova","published":2})");
  EXPECT_EQ(bare.published()[0].event, nlohmann::json({{"nova_id", kNovaA}}));
}

TEST(WorkflowHandlerTest, ForEachNovaRefusesBadSweepsBeforePublishing) {
  SweepWorld world;
  runtime::CaptureBus bus;
  auto error_of = [&](const std::string& payload, store::Table* catalog) {
    try {
      world.Invoke(payload, bus, catalog);
    } catch (const runtime::TerminalError& e) {
      return std::string(e.what());
    }
    return std::string("no TerminalError");
  };
  EXPECT_EQ(
      error_of(R"({"for_each": "nova", "input": {"cursor": 1}})", &world.table),
      "the sweep's refresh_input events are invalid:\n"
      "nova " +
          std::string(kNovaA) +
          ":\n$.cursor: is not allowed\n"
          "nova " +
          std::string(kNovaB) + ":\n$.cursor: is not allowed\n");
  EXPECT_EQ(error_of(R"({"for_each": "dataset"})", &world.table),
            "a sweep's for_each must be \"nova\"; got \"dataset\"");
  EXPECT_EQ(error_of(R"({"for_each": "nova", "input": [1]})", &world.table),
            "a sweep's input must be an object; got [1]");
  EXPECT_EQ(error_of(R"({"for_each": "nova"})", nullptr),
            "refresh has no catalog to sweep");
  EXPECT_EQ(bus.published(), std::vector<runtime::CaptureBus::Published>{});
}

// A throttled publish fails the sweep RETRYABLE; the retry publishes every
// event again (the consumers' idempotency keys skip the repeats).
TEST(WorkflowHandlerTest, ForEachNovaRetryPublishesEveryEventAgain) {
  SweepWorld world;
  FlakyBus bus(1);
  try {
    world.Invoke(R"({"for_each": "nova"})", bus, &world.table);
    ADD_FAILURE() << "no RetryableError";
  } catch (const runtime::RetryableError& e) {
    EXPECT_EQ(runtime::DescribeFailure(e, runtime::SeedErrorNames()).error_type,
              "RetryableError");
  }
  EXPECT_EQ(bus.published.size(), 1u);
  EXPECT_EQ(world.Invoke(R"({"for_each": "nova"})", bus, &world.table),
            R"({"for_each":"nova","published":2})");
  ASSERT_EQ(bus.published.size(), 3u);
  EXPECT_EQ(bus.published[1].event["nova_id"], kNovaA);
  EXPECT_EQ(bus.published[2].event["nova_id"], kNovaB);
}

}  // namespace
}  // namespace lambda_runtime_api_test
}  // namespace novacat::lambda
