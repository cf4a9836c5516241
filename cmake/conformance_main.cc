// The main of every workflow's conformance binary, compiled once per
// workflow by novacat_add_workflow (cmake/NovacatWorkflow.cmake), which
// defines
//
//   NOVACAT_WORKFLOW            the workflow's namespace (initialize_nova)
//   NOVACAT_WORKFLOW_NAME       the same as a string
//   NOVACAT_WORKFLOW_HEADER     "<workflow>/<workflow>.hpp", the generated
//                               binding
//   NOVACAT_PLAN_PATH           the generated plan (conformance.json)
//   NOVACAT_ASL_PATH            the generated definition
//
// The plan is data and the runner is compiled once (novacat_testing): this
// file only hands them the workflow's binding.
#include <gtest/gtest.h>

#include NOVACAT_WORKFLOW_HEADER
#include "novacat/runtime/testing/conformance.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  novacat::runtime::testing::RegisterConformanceSuite(
      NOVACAT_WORKFLOW_NAME, NOVACAT_PLAN_PATH, NOVACAT_ASL_PATH,
      [](novacat::runtime::DomainDispatch dispatch) {
        return novacat::NOVACAT_WORKFLOW::MakeBinding(std::move(dispatch));
      });
  return RUN_ALL_TESTS();
}
