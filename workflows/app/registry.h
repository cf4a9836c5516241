// The workflows this build knows, by name: what `novacat run` starts, and
// what a published event starts (the workflow whose input event it is).
// They are the specs in specs/: workflows/CMakeLists.txt lists them for
// registry.cc (workflow_list.h), so adding a spec adds its workflow.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "novacat/runtime/host.h"
#include "novacat/workflows/environment.h"

namespace novacat::workflows {

// A workflow's steps over an Environment and the host binding that
// dispatches to them (`steps` owns what `binding` refers to).
struct BoundWorkflow {
  std::shared_ptr<void> steps;
  runtime::WorkflowBinding binding;
};

struct WorkflowInfo {
  std::string name;
  std::string input_event;           // the event that starts it
  std::string_view (*definition)();  // its generated ASL
  std::function<BoundWorkflow(const Environment&)> bind;
};

// Every registered workflow, sorted by name.
const std::vector<WorkflowInfo>& Workflows();
// nullptr when there is no such workflow.
const WorkflowInfo* FindWorkflow(std::string_view name);
// The workflow `event` starts; nullptr when it starts none.
const WorkflowInfo* WorkflowStartedBy(std::string_view event);

}  // namespace novacat::workflows
