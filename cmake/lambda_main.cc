// The main of every workflow's Lambda function, compiled once per workflow
// by novacat_add_workflow (cmake/NovacatWorkflow.cmake), which defines
//
//   NOVACAT_WORKFLOW            the workflow's namespace (initialize_nova)
//   NOVACAT_WORKFLOW_NAME       the same as a string
//   NOVACAT_STEPS_HEADER        "<workflow>/steps.hpp", the step logic
//   NOVACAT_LAMBDA_ENVIRONMENT  1 when the workflow links the Environment
//                               (the outside sources are set up, and
//                               MakeSteps gets them if it takes them), 0 when
//                               MakeSteps takes nothing
//
// Initialization (the DynamoDB and EventBridge clients, the step logic) runs
// once per process; then the Runtime API loop hands every invocation to the
// host. Nothing here is the workflow's own: its facts come from the
// generated binding, its behaviour from its steps.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include NOVACAT_STEPS_HEADER
#include "novacat/lambda/runtime_api.h"
#include "novacat/lambda/services.h"
#if NOVACAT_LAMBDA_ENVIRONMENT
#include "novacat/workflows/make_steps.h"
#include "novacat/workflows/sources_world.h"
#endif

int main() {
  namespace lambda = novacat::lambda;
  std::unique_ptr<lambda::Services> services;
#if NOVACAT_LAMBDA_ENVIRONMENT
  std::unique_ptr<novacat::workflows::SourcesWorld> world;
#endif
  std::shared_ptr<void> steps;  // what `binding` dispatches to
  novacat::runtime::WorkflowBinding binding;
  lambda::LoopOptions options;
  // The governance's error names, known before initialization can fail.
  options.errors =
      novacat::NOVACAT_WORKFLOW::MakeBinding(novacat::runtime::DomainDispatch{})
          .facts.errors;
  return lambda::RunLoop(
      [&] {
        services = lambda::Services::FromEnvironment(NOVACAT_WORKFLOW_NAME);
#if NOVACAT_LAMBDA_ENVIRONMENT
        using novacat::workflows::SourcesWorld;
        world = std::make_unique<SourcesWorld>(
            services->table(), services->random(),
            SourcesWorld::SourcesFromEnvironment(),
            SourcesWorld::MirrorsFromEnvironment(),
            // The stack sets NOVACAT_BUCKET; without it, Lambda's /tmp.
            SourcesWorld::ObjectStoreFromEnvironment("/tmp/novacat-objects"));
        // Once per cold start: the archives asked without a secret.
        for (const std::string& reason : world->archives.skipped()) {
          std::printf("%s\n",
                      nlohmann::json{{"level", "WARN"},
                                     {"message", "archive source skipped"},
                                     {"workflow", NOVACAT_WORKFLOW_NAME},
                                     {"reason", reason}}
                          .dump()
                          .c_str());
        }
        auto made = NOVACAT_MAKE_STEPS(novacat::NOVACAT_WORKFLOW, world->env);
#else
        auto made = novacat::NOVACAT_WORKFLOW::MakeSteps();
#endif
        binding = novacat::NOVACAT_WORKFLOW::MakeBinding(*made);
        steps = std::move(made);
        return lambda::WorkflowHandler(binding, services->host(),
                                       &services->table());
      },
      options);
}
