#include "registry.h"

#include <algorithm>

#include "novacat/workflows/make_steps.h"
#include "workflow_list.h"  // one per spec, from workflows/CMakeLists.txt

namespace novacat::workflows {

namespace {

// One entry per workflow: its generated definition and binding, and the
// step logic's MakeSteps. The input event comes from the generated facts.
#define NOVACAT_WORKFLOW(ns)                                                \
  WorkflowInfo {                                                            \
#ns, ns::MakeBinding(runtime::DomainDispatch{}).facts.input_event,        \
        &ns::Definition, [](const Environment& env) {                         \
          auto steps = NOVACAT_MAKE_STEPS(ns, env);                           \
          runtime::WorkflowBinding binding = ns::MakeBinding(*steps);         \
          return BoundWorkflow{std::shared_ptr<void>(std::move(steps)),       \
                               std::move(binding)};                           \
        } \
  }

}  // namespace

const std::vector<WorkflowInfo>& Workflows() {
  static const std::vector<WorkflowInfo> kWorkflows = [] {
#define NOVACAT_WORKFLOW_ENTRY(ns) NOVACAT_WORKFLOW(ns),
    std::vector<WorkflowInfo> all = {
        NOVACAT_FOR_EACH_WORKFLOW(NOVACAT_WORKFLOW_ENTRY)};
#undef NOVACAT_WORKFLOW_ENTRY
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return all;
  }();
  return kWorkflows;
}

const WorkflowInfo* FindWorkflow(std::string_view name) {
  for (const auto& w : Workflows())
    if (w.name == name) return &w;
  return nullptr;
}

const WorkflowInfo* WorkflowStartedBy(std::string_view event) {
  for (const auto& w : Workflows())
    if (w.input_event == event) return &w;
  return nullptr;
}

}  // namespace novacat::workflows
