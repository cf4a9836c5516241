// The generated C++ of a workflow, through the fourth example
// (tests/adding_a_workflow: spec + hand-written steps) and the seed
// workflows: parsing with field paths, the dispatcher, key builders.
#include <gtest/gtest.h>

#include "annotate_nova/annotate_nova.hpp"
#include "annotate_nova/steps.hpp"
#include "discover_spectra_products/discover_spectra_products.hpp"
#include "novacat/runtime/errors.h"
#include "novacat/runtime/json_reader.h"
#include "refresh_references/refresh_references.hpp"

namespace novacat {
namespace generated_code_test {
namespace {

using nlohmann::json;

constexpr const char* kNova = "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c";

TEST(GeneratedCodeTest, EventParsingNamesEveryFieldPath) {
  auto parsed = annotate_nova::AnnotateNovaEvent::FromJson(
      json::parse(R"({"nova_id": "nope", "note": "", "extra": 1,
                      "schema_version": 2})"));
  EXPECT_FALSE(parsed.ok());
  EXPECT_EQ(runtime::FormatErrors(parsed.errors),
            "$.nova_id: must be a UUID\n"
            "$.note: must be a non-empty string\n"
            "$.schema_version: must be 1\n"
            "$.extra: is not a known property\n");
  auto ok = annotate_nova::AnnotateNovaEvent::FromJson(
      json{{"nova_id", kNova}, {"note", "bright"}});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.value->note, "bright");
  EXPECT_EQ(
      ok.value->ToJson(),
      json({{"nova_id", kNova}, {"note", "bright"}, {"schema_version", 1}}));
}

TEST(GeneratedCodeTest, NestedRecordsReportIndexedPaths) {
  auto errors = discover_spectra_products::ValidateEvent(
      "SpectraProductsDiscovered",
      json::parse(R"({"nova_id": "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c",
        "correlation_id": "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c",
        "dataset_ids": ["x"],
        "provider_summaries": [{"provider": "", "dataset_count_new": -1,
          "dataset_count_existing": 0}]})"));
  ASSERT_TRUE(errors.has_value());
  EXPECT_EQ(runtime::FormatErrors(*errors),
            "$.dataset_ids[0]: must be a UUID\n"
            "$.provider_summaries[0].provider: must be a non-empty string\n"
            "$.provider_summaries[0].dataset_count_new: must be >= 0\n"
            "$.provider_summaries[0].quarantined: is required\n");
  EXPECT_FALSE(
      discover_spectra_products::ValidateEvent("nope", json::object()));
}

TEST(GeneratedCodeTest, DispatcherMergesOutputsIntoTheDocument) {
  auto steps = annotate_nova::MakeSteps();
  runtime::StepContext context;
  EXPECT_TRUE(annotate_nova::IsDomainTask("StoreAnnotation"));
  EXPECT_FALSE(annotate_nova::IsDomainTask("BeginJobRun"));
  json state = {
      {"nova_id", kNova}, {"note", "  bright  "}, {"job_run_id", "j"}};
  json loaded = annotate_nova::Dispatch(*steps, "LoadNova", state, context);
  EXPECT_EQ(loaded["nova_exists"], true);
  json stored =
      annotate_nova::Dispatch(*steps, "StoreAnnotation", loaded, context);
  EXPECT_EQ(stored["note_length"], 6);
  EXPECT_TRUE(runtime::IsUuid(stored["annotation_id"].get<std::string>()));
  EXPECT_EQ(stored["job_run_id"], "j");  // untouched fields stay
}

TEST(GeneratedCodeTest, DispatcherRaisesTerminalErrors) {
  auto steps = annotate_nova::MakeSteps();
  runtime::StepContext context;
  try {
    annotate_nova::Dispatch(*steps, "StoreAnnotation", json{{"nova_id", "bad"}},
                            context);
    FAIL() << "no error";
  } catch (const runtime::TerminalError& e) {
    EXPECT_STREQ(e.what(),
                 "the document given to StoreAnnotation is invalid:\n"
                 "$.nova_id: must be a UUID\n");
    EXPECT_STREQ(e.classification(), "TERMINAL");
  }
  EXPECT_THROW(
      annotate_nova::Dispatch(*steps, "StoreAnnotation",
                              json{{"nova_id", kNova}, {"note", " "}}, context),
      runtime::TerminalError);
  EXPECT_THROW(
      annotate_nova::Dispatch(*steps, "BeginJobRun", json::object(), context),
      runtime::TerminalError);
}

// The governance's facts reach the runtime through the binding: the log
// fields (the governance's, then the spec's own; a name twice keeps its
// first place, a when-known field also required is required) and the
// error names.
TEST(GeneratedCodeTest, BindingCarriesTheGovernanceFacts) {
  const runtime::WorkflowFacts facts =
      refresh_references::MakeBinding(runtime::DomainDispatch{}).facts;
  EXPECT_EQ(
      facts.log_spec.required,
      (std::vector<std::string>{
          "workflow_name", "execution_arn", "job_run_id", "state_name",
          "attempt_number", "schema_version", "correlation_id", "nova_id"}));
  EXPECT_EQ(
      facts.log_spec.when_known,
      (std::vector<std::string>{
          "workflow_idempotency_key", "step_dedupe_key", "error_classification",
          "error_fingerprint", "reference_source", "candidate_count",
          "upsert_count", "link_count", "quarantined_count",
          "discovery_date_old", "discovery_date_new"}));
  EXPECT_EQ(facts.errors.retryable, "RetryableError");
  EXPECT_EQ(facts.errors.terminal, "TerminalError");
  EXPECT_EQ(facts.errors.quarantine, "QuarantineError");
  EXPECT_EQ(
      facts.errors.also_retry,
      (std::vector<std::string>{
          "States.Timeout", "Lambda.ServiceException",
          "Lambda.AWSLambdaException", "Lambda.SdkClientException",
          "Lambda.ClientExecutionTimeoutException",
          "Lambda.TooManyRequestsException", "Lambda.Unknown",
          "Sandbox.Timedout", "Runtime.ExitError", "Runtime.OutOfMemory"}));
}

// The spec's job_run_output, in its order: what the Finalize builtins
// record as the JobRun's output; none for a spec without it.
TEST(GeneratedCodeTest, BindingCarriesTheJobRunOutputFields) {
  EXPECT_EQ(discover_spectra_products::MakeBinding(runtime::DomainDispatch{})
                .facts.job_run_output,
            (std::vector<std::string>{
                "provider_summaries", "provider_failures", "dataset_count_new",
                "dataset_count_existing", "quarantined_count"}));
  EXPECT_EQ(refresh_references::MakeBinding(runtime::DomainDispatch{})
                .facts.job_run_output,
            (std::vector<std::string>{"references_from", "source_quota",
                                      "candidate_count", "upsert_count",
                                      "link_count", "quarantined_count"}));
  EXPECT_TRUE(annotate_nova::MakeBinding(runtime::DomainDispatch{})
                  .facts.job_run_output.empty());
}

TEST(GeneratedCodeTest, KeyBuildersFollowTheSpecTemplates) {
  EXPECT_EQ(annotate_nova::WorkflowIdempotencyKey(kNova, 1),
            std::string("AnnotateNova:") + kNova + ":1");
  EXPECT_EQ(annotate_nova::StoreAnnotationDedupeKey(kNova, 6),
            std::string("Annotation:") + kNova + ":6");
  EXPECT_EQ(refresh_references::UpsertDiscoveryDateMetadataDedupeKey("n", "r"),
            "DiscoveryDate:n:r:1");  // rule_version is a spec constant
  EXPECT_EQ(
      discover_spectra_products::WorkflowIdempotencyKey("n", 1, "2026-11-25"),
      "DiscoverSpectraProducts:n:1:2026-11-25");
  EXPECT_EQ(discover_spectra_products::kTimeBucketSeconds, 86400);
}

TEST(GeneratedCodeTest, IdentityBuilderQuarantinesAmbiguousProducts) {
  EXPECT_EQ(discover_spectra_products::DatasetIdentity(
                "eso", "2026-01-02T00:00:00Z", std::nullopt, "1024", "k"),
            "provider=eso|product_timestamp=2026-01-02T00:00:00Z|size=1024");
  EXPECT_THROW(discover_spectra_products::DatasetIdentity(
                   "eso", "t", std::nullopt, std::nullopt, std::nullopt),
               runtime::QuarantineError);
}

}  // namespace
}  // namespace generated_code_test
}  // namespace novacat
