// CfnEmitter: a spec → the CloudFormation template that deploys its state
// machine: the definition with its DefinitionSubstitutions (the workflow's
// Lambda ARN and role as parameters) and the workflow's type (STANDARD or
// EXPRESS), which only the deployment carries.
#pragma once

#include <string>

#include "model/spec.h"

namespace novacat {

// generated/<workflow>/template.json (JSON text, trailing newline).
std::string EmitCloudFormation(const WorkflowSpec& spec);

}  // namespace novacat
