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

#include <fstream>
#include <sstream>

#include NOVACAT_WORKFLOW_HEADER
#include "novacat/runtime/testing/conformance.h"

// The binding's Definition() is byte for byte the definition file generated
// with it (the header's contract): what runs locally is what is deployed.
TEST(Binding, DefinitionIsTheGeneratedFile) {
  std::ifstream in(NOVACAT_ASL_PATH, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << NOVACAT_ASL_PATH;
  std::ostringstream text;
  text << in.rdbuf();
  const std::string file = text.str();
  const std::string_view definition = novacat::NOVACAT_WORKFLOW::Definition();
  if (definition == file) return;
  size_t at = 0;
  while (at < definition.size() && at < file.size() &&
         definition[at] == file[at])
    ++at;
  ADD_FAILURE() << "Definition() differs from " << NOVACAT_ASL_PATH
                << " from byte " << at << ": \"" << definition.substr(at, 40)
                << "\" against \"" << file.substr(at, 40) << "\"";
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  novacat::runtime::testing::RegisterConformanceSuite(
      NOVACAT_WORKFLOW_NAME, NOVACAT_PLAN_PATH, NOVACAT_ASL_PATH,
      [](novacat::runtime::DomainDispatch dispatch) {
        return novacat::NOVACAT_WORKFLOW::MakeBinding(std::move(dispatch));
      });
  return RUN_ALL_TESTS();
}
