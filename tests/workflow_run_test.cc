// A workflow end to end on one machine: the generated definition of the
// fourth example (annotate_nova) runs on the local executor, its Tasks run
// through the host (builtins from the runtime, domain steps through the
// generated dispatcher), and the JobRun/Attempt records, published events
// and log lines are exactly what the spec and the governance say.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "annotate_nova/annotate_nova.hpp"
#include "annotate_nova/steps.hpp"
#include "novacat/runtime/asl/task_handler.h"
#include "novacat/runtime/host.h"
#include "novacat/runtime/ids.h"
#include "novacat/runtime/log.h"
#include "novacat/store/memory_table.h"
#include "novacat/store/table_record_store.h"

namespace novacat {
namespace workflow_run_test {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr const char* kNova = "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c";
constexpr const char* kCorrelation = "0e6f1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c";

class WorkflowRunTest : public ::testing::Test {
 protected:
  WorkflowRunTest()
      : steps_(annotate_nova::MakeSteps()),
        binding_(annotate_nova::MakeBinding(*steps_)),
        services_{store_, log_, bus_, random_},
        handler_(runtime::MakeTaskHandler(binding_, services_)) {
    std::ifstream in(NOVACAT_ANNOTATE_NOVA_ASL);
    std::string error;
    machine_ = runtime::asl::StateMachine::Load(ojson::parse(in), &error);
    EXPECT_TRUE(machine_) << error;
  }

  runtime::asl::RunResult Run(const ojson& input) {
    return machine_->Run(input, handler_);
  }

  std::vector<runtime::JobRun> JobRuns() { return store_.ListJobRuns(kNova); }

  std::vector<std::string> AttemptStates(const std::string& job_run_id) {
    std::vector<std::string> out;
    for (const auto& a : store_.ListAttempts(job_run_id, std::string(kNova)))
      out.push_back(a.state_name + "#" + std::to_string(a.attempt_number) +
                    ":" + runtime::AttemptStatusName(a.status));
    return out;
  }

  std::unique_ptr<annotate_nova::AnnotateNovaSteps> steps_;
  runtime::WorkflowBinding binding_;
  store::MemoryTable table_;
  store::TableRecordStore store_{table_};
  runtime::CaptureSink log_;
  runtime::CaptureBus bus_;
  runtime::SeededRandom random_{7};
  runtime::HostServices services_;
  runtime::asl::TaskHandler handler_;
  std::unique_ptr<runtime::asl::StateMachine> machine_;
};

TEST_F(WorkflowRunTest, HappyPathRecordsOutcomePublishesAndLogs) {
  auto r = Run({{"nova_id", kNova},
                {"note", "bright in B"},
                {"correlation_id", kCorrelation}});
  ASSERT_EQ(r.status, "SUCCEEDED")
      << r.error.value_or("") << ": " << r.cause.value_or("");
  EXPECT_EQ(r.states, (std::vector<std::string>{
                          "BeginJobRun", "AcquireIdempotencyLock",
                          "IsDuplicateRun?", "LoadNova", "NovaExists?",
                          "StoreAnnotation", "RecordOutcome_ANNOTATED",
                          "PublishNovaAnnotated", "FinalizeJobRunSuccess"}));
  auto runs = JobRuns();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runtime::JobRunStatusName(runs[0].status),
            std::string("SUCCEEDED"));
  EXPECT_EQ(runs[0].outcome, "ANNOTATED");
  EXPECT_EQ(runs[0].correlation_id, kCorrelation);
  EXPECT_EQ(
      AttemptStates(runs[0].job_run_id),
      (std::vector<std::string>{
          "AcquireIdempotencyLock#1:SUCCEEDED", "BeginJobRun#1:SUCCEEDED",
          "FinalizeJobRunSuccess#1:SUCCEEDED", "LoadNova#1:SUCCEEDED",
          "PublishNovaAnnotated#1:SUCCEEDED", "StoreAnnotation#1:SUCCEEDED"}));
  auto published = bus_.published();
  ASSERT_EQ(published.size(), 1u);
  EXPECT_EQ(published[0].event_name, "nova_annotated");
  EXPECT_EQ(published[0].event["correlation_id"], kCorrelation);
  EXPECT_EQ(published[0].event["nova_id"], kNova);
  EXPECT_TRUE(annotate_nova::ValidateEvent("nova_annotated", published[0].event)
                  ->empty());
  // Every log line carries the governance's and the spec's required fields.
  ASSERT_FALSE(log_.lines().empty());
  for (const auto& line : log_.lines()) {
    json j = json::parse(line);
    for (const char* field :
         {"workflow_name", "execution_arn", "job_run_id", "state_name",
          "attempt_number", "schema_version", "correlation_id", "nova_id"}) {
      EXPECT_TRUE(j.contains(field) && !j[field].is_null())
          << field << " missing in " << line;
    }
  }
}

TEST_F(WorkflowRunTest, UnknownNovaEndsWithItsOutcomeAndPublishesNothing) {
  auto r = Run({{"nova_id", "00000000-0000-0000-0000-000000000000"},
                {"note", "n"},
                {"correlation_id", kCorrelation}});
  ASSERT_EQ(r.status, "SUCCEEDED") << r.cause.value_or("");
  EXPECT_EQ(r.states.back(), "FinalizeJobRunSuccess");
  EXPECT_EQ(r.states[5], "RecordOutcome_UNKNOWN_NOVA");
  EXPECT_TRUE(bus_.published().empty());
  auto runs = store_.ListJobRuns("00000000-0000-0000-0000-000000000000");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].outcome, "UNKNOWN_NOVA");
}

TEST_F(WorkflowRunTest, TerminalStepErrorIsNotRetriedAndTheRunFails) {
  auto r = Run(
      {{"nova_id", kNova}, {"note", "   "}, {"correlation_id", kCorrelation}});
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.error, "TerminalError");
  EXPECT_TRUE(r.waits.empty());  // TERMINAL errors are never retried
  EXPECT_EQ(
      std::vector<std::string>(r.states.end() - 4, r.states.end()),
      (std::vector<std::string>{"StoreAnnotation", "TerminalFailHandler",
                                "FinalizeJobRunFailed", "WorkflowFailed"}));
  auto runs = JobRuns();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runtime::JobRunStatusName(runs[0].status), std::string("FAILED"));
  EXPECT_EQ(runs[0].error_classification, "TERMINAL");
  EXPECT_TRUE(bus_.published().empty());
}

TEST_F(WorkflowRunTest, CorrelationIdIsCreatedWhenAbsent) {
  auto r = Run({{"nova_id", kNova}, {"note", "bright"}});
  ASSERT_EQ(r.status, "SUCCEEDED") << r.cause.value_or("");
  const std::string id = r.output["correlation_id"];
  EXPECT_TRUE(runtime::IsUuidV4(id));
  EXPECT_EQ(bus_.published().at(0).event["correlation_id"], id);
  EXPECT_EQ(JobRuns().at(0).correlation_id, id);
}

TEST_F(WorkflowRunTest, ADuplicateRunSeesTheLockAndDoesNotFail) {
  ojson input = {
      {"nova_id", kNova}, {"note", "bright"}, {"correlation_id", kCorrelation}};
  ASSERT_EQ(Run(input).status, "SUCCEEDED");
  auto second = Run(input);
  EXPECT_EQ(second.status, "SUCCEEDED");
  EXPECT_EQ(second.output["idempotency"]["status"], "DUPLICATE");
  EXPECT_EQ(second.output["idempotency"]["outcome"], "ANNOTATED");
  EXPECT_EQ(second.output["outcome"], "DUPLICATE_SKIPPED");
  // No side effect is repeated: no second annotation, no second event.
  EXPECT_EQ(
      std::count(second.states.begin(), second.states.end(), "StoreAnnotation"),
      0);
  EXPECT_EQ(bus_.published().size(), 1u);
  auto runs = JobRuns();
  ASSERT_EQ(runs.size(), 2u);
  int skipped = 0;
  for (const auto& run : runs) skipped += run.outcome == "DUPLICATE_SKIPPED";
  EXPECT_EQ(skipped, 1);
}

TEST_F(WorkflowRunTest, InvalidInputFailsTerminallyAndIsRecorded) {
  auto r = Run({{"nova_id", "not-a-uuid"},
                {"note", "x"},
                {"correlation_id", kCorrelation}});
  EXPECT_EQ(r.status, "FAILED");
  EXPECT_EQ(r.states[0], "BeginJobRun");
  EXPECT_EQ(r.states[1], "TerminalFailHandler");
  // The reason travels in the state document to the end of the run.
  const auto& last = r.history[r.history.size() - 2];  // WorkflowFailed entered
  ASSERT_EQ(last.state, "WorkflowFailed");
  const std::string cause = last.details["input"]["error"]["Cause"];
  EXPECT_NE(cause.find("$.nova_id: must be a UUID"), std::string::npos)
      << cause;
  EXPECT_EQ(last.details["input"]["error"]["Error"], "TerminalError");
}

// Locally, an Attempt starts at the executor's virtual time and ends when
// the invocation returns, moved on by the real time it took: a step that
// takes 30 ms (on the clock the test moves, not the machine's, so a loaded
// machine cannot move the answer) ends 30 ms after it started.
TEST(TaskHandlerTest, TheAttemptEndsWhenTheInvocationReturns) {
  std::chrono::steady_clock::time_point now{};
  runtime::WorkflowBinding binding;
  binding.facts.workflow_name = "w";
  binding.is_domain_task = [](std::string_view) { return true; };
  binding.dispatch = [&now](std::string_view, const json& document,
                            runtime::StepContext&) {
    now += std::chrono::milliseconds(30);
    return document;
  };
  store::MemoryTable table;
  store::TableRecordStore store(table);
  runtime::CaptureSink log;
  runtime::CaptureBus bus;
  runtime::SeededRandom random{7};
  runtime::HostServices services{store, log, bus, random};
  runtime::asl::TaskHandler handler =
      runtime::MakeTaskHandler(binding, services, [&now] { return now; });
  const char* job_run_id = "2245bd5f-bb68-4f68-a2eb-92502318fa4e";
  runtime::asl::TaskInvocation call;
  call.state_name = "S";
  call.now = 1795614300.5;  // 2026-11-25T13:45:00.500Z
  call.input = {
      {"Payload",
       {{"state_name", "S"},
        {"execution_arn", "arn:x"},
        {"state",
         {{"job_run_id", job_run_id}, {"correlation_id", kCorrelation}}}}}};
  handler(call);
  auto attempts = store.ListAttempts(job_run_id, std::nullopt);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts[0].started_at, "2026-11-25T13:45:00.500Z");
  EXPECT_EQ(attempts[0].ended_at, "2026-11-25T13:45:00.530Z");
}

}  // namespace
}  // namespace workflow_run_test
}  // namespace novacat
