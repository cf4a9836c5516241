#include "remote_tasks.h"

#include "novacat/runtime/asl/asl_error.h"
#include "novacat/runtime/errors.h"

namespace novacat::workflows {

using runtime::asl::AslError;

runtime::asl::TaskHandler InvokeTaskHandler(aws::LambdaClient& lambda,
                                            std::string function) {
  return [&lambda, function = std::move(function)](
             const runtime::asl::TaskInvocation& call) {
    const std::string payload =
        call.input.value("Payload", nlohmann::ordered_json::object()).dump();
    aws::InvokeAnswer answer;
    try {
      answer = lambda.Invoke(function, payload);
    } catch (const runtime::StepError& e) {
      throw AslError("Lambda.SdkClientException", e.what());
    }
    if (!answer.service_error.empty())
      throw AslError("Lambda." + answer.service_error, answer.payload);
    auto document = nlohmann::ordered_json::parse(answer.payload, nullptr,
                                                  /*allow_exceptions=*/false);
    if (!answer.function_error.empty()) {
      if (document.is_object() && document.contains("errorType") &&
          document["errorType"].is_string())
        throw AslError(document["errorType"].get<std::string>(),
                       document.value("errorMessage", ""));
      throw AslError("Lambda.Unknown", answer.payload.substr(0, 1000));
    }
    if (document.is_discarded())
      throw AslError("Lambda.Unknown", "the function's result is not JSON: " +
                                           answer.payload.substr(0, 200));
    runtime::asl::TaskOutcome outcome;
    outcome.result = std::move(document);
    return outcome;
  };
}

}  // namespace novacat::workflows
