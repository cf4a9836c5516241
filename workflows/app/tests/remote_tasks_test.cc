// Tasks on a deployed function: LambdaClient's Invoke requests and answers
// against the scripted HTTP server, and how InvokeTaskHandler names each
// outcome the way Step Functions' lambda:invoke does.
#include "remote_tasks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_http_server.h"
#include "novacat/runtime/asl/asl_error.h"

namespace novacat::workflows {
namespace remote_tasks_test {
namespace {

using novacat::testing::FakeServer;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

aws::ClientOptions FakeOptions(const std::string& endpoint) {
  aws::ClientOptions options;
  options.endpoint = endpoint;
  options.region = "eu-west-1";
  options.access_key_id = "AKIDEXAMPLE";
  options.secret_access_key = "secret";
  // An answered request never meets its timeout, however slow the machine.
  options.request_timeout_ms = 30000;
  return options;
}

runtime::asl::TaskInvocation Call() {
  runtime::asl::TaskInvocation call;
  call.state_name = "BeginJobRun";
  call.resource = "arn:aws:states:::lambda:invoke";
  call.input = nlohmann::ordered_json::parse(
      R"js({"FunctionName": "${InitializeNovaFunctionArn}",
            "Payload": {"workflow": "initialize_nova", "state_name":
            "BeginJobRun", "retry_count": 0, "state": {"a": 1}}})js");
  return call;
}

// The error a handler throws: name and cause.
std::pair<std::string, std::string> Failure(
    const runtime::asl::TaskHandler& handler) {
  try {
    handler(Call());
  } catch (const runtime::asl::AslError& e) {
    return {e.error(), e.cause()};
  }
  ADD_FAILURE() << "the handler threw nothing";
  return {};
}

TEST(LambdaClientTest, InvokePostsThePayloadSigned) {
  FakeServer server({{200, R"js({"a": 1, "job_run_id": "j"})js"}});
  aws::LambdaClient client(FakeOptions(server.endpoint()));
  aws::InvokeAnswer answer = client.Invoke(
      "arn:aws:lambda:eu-west-1:123456789012:function:novacat-InitializeNova",
      R"({"x":1})");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.function_error, "");
  EXPECT_EQ(answer.service_error, "");
  EXPECT_EQ(answer.payload, R"js({"a": 1, "job_run_id": "j"})js");
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& [head, body] = requests[0];
  EXPECT_THAT(head, StartsWith("POST /2015-03-31/functions/arn:aws:lambda:"
                               "eu-west-1:123456789012:function:novacat-"
                               "InitializeNova/invocations HTTP/1.1\r\n"));
  EXPECT_THAT(head, HasSubstr("\r\nX-Amz-Invocation-Type: RequestResponse"));
  EXPECT_THAT(head,
              MatchesRegex("(.|\r|\n)*\r\nAuthorization: AWS4-HMAC-SHA256 "
                           "Credential=AKIDEXAMPLE/[0-9]{8}/eu-west-1/lambda/"
                           "aws4_request, SignedHeaders=[a-z0-9;-]*, "
                           "Signature=[0-9a-f]{64}(.|\r|\n)*"));
  EXPECT_EQ(body, R"({"x":1})");
}

TEST(InvokeTaskHandlerTest, TheResultIsTheFunctionsDocument) {
  FakeServer server({{200, R"js({"a": 1, "job_run_id": "j"})js"}});
  aws::LambdaClient client(FakeOptions(server.endpoint()));
  auto handler = InvokeTaskHandler(client, "initialize_nova");
  runtime::asl::TaskOutcome outcome = handler(Call());
  EXPECT_EQ(outcome.result.dump(), R"({"a":1,"job_run_id":"j"})");
  EXPECT_EQ(server.requests().at(0).second,
            R"({"workflow":"initialize_nova","state_name":"BeginJobRun",)"
            R"("retry_count":0,"state":{"a":1}})");
}

TEST(InvokeTaskHandlerTest, AFailedFunctionIsItsErrorType) {
  FakeServer server(
      {{200, R"({"errorType":"QuarantineError","errorMessage":"ambiguous"})",
        FakeServer::Mode::kAnswer, "X-Amz-Function-Error: Unhandled\r\n"},
       {200, "Segmentation fault", FakeServer::Mode::kAnswer,
        "X-Amz-Function-Error: Unhandled\r\n"}});
  aws::LambdaClient client(FakeOptions(server.endpoint()));
  auto handler = InvokeTaskHandler(client, "initialize_nova");
  EXPECT_EQ(Failure(handler), std::make_pair(std::string("QuarantineError"),
                                             std::string("ambiguous")));
  EXPECT_EQ(Failure(handler),
            std::make_pair(std::string("Lambda.Unknown"),
                           std::string("Segmentation fault")));
}

TEST(InvokeTaskHandlerTest, AFailedInvokeIsALambdaServiceError) {
  FakeServer server(
      {{429, R"({"message":"Rate exceeded"})", FakeServer::Mode::kAnswer,
        "X-Amzn-ErrorType: TooManyRequestsException\r\n"},
       {404, R"({"message":"Function not found"})", FakeServer::Mode::kAnswer,
        "X-Amzn-ErrorType: ResourceNotFoundException:http://internal\r\n"},
       {502, "bad gateway"},
       {200, "not json"},
       // libcurl sends a request again, once, on a fresh connection when
       // a reused one is reset before any answer: both are reset.
       {0, "", FakeServer::Mode::kReset},
       {0, "", FakeServer::Mode::kReset}});
  aws::LambdaClient client(FakeOptions(server.endpoint()));
  auto handler = InvokeTaskHandler(client, "initialize_nova");
  EXPECT_EQ(Failure(handler),
            std::make_pair(std::string("Lambda.TooManyRequestsException"),
                           std::string(R"({"message":"Rate exceeded"})")));
  EXPECT_EQ(Failure(handler),
            std::make_pair(std::string("Lambda.ResourceNotFoundException"),
                           std::string(R"({"message":"Function not found"})")));
  EXPECT_EQ(Failure(handler),
            std::make_pair(std::string("Lambda.ServiceException"),
                           std::string("bad gateway")));
  EXPECT_EQ(Failure(handler),
            std::make_pair(std::string("Lambda.Unknown"),
                           std::string("the function's result is not JSON: "
                                       "not json")));
  auto [error, cause] = Failure(handler);
  EXPECT_EQ(error, "Lambda.SdkClientException");
  EXPECT_THAT(cause, StartsWith("Invoke initialize_nova: curl: "));
}

}  // namespace
}  // namespace remote_tasks_test
}  // namespace novacat::workflows
