// AslEmitter: WorkflowSpec → Amazon States Language (JSONPath) definition.
//
// The definition is built as an ordered JSON document (states in spec order,
// keys in a fixed order) and dumped, so the same spec always gives the same
// bytes. Conventions every generated definition follows:
// - Tasks call one Lambda per workflow through arn:aws:states:::lambda:invoke
//   with a `${<Workflow>FunctionArn}` placeholder (bound by Fn::Sub in the
//   stack template, emit/stack_emitter.h); the
//   payload carries the state name, execution id, retry count and the whole
//   state document, and the function returns the new state document
//   (`OutputPath: $.Payload`).
// - Retry lists only RETRYABLE error names (plus States.Timeout and the
//   Lambda service errors) with an exact schedule (JitterStrategy NONE).
// - Catch keeps the state document (`ResultPath: $.error`): QUARANTINE first,
//   `States.ALL` last and alone.
// - A transition that records an outcome or a quarantine reason becomes a
//   Pass state (`RecordOutcome_<OUTCOME>`) that sets `$.outcome` or
//   `$.quarantine_reason` on the way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "model/spec.h"

namespace novacat {

// The definition as JSON text (2-space indent, trailing newline). The spec
// must have passed the checker.
std::string EmitAsl(const WorkflowSpec& spec);
// The definition EmitAsl dumps, as a document (for the stack template, which
// embeds it: parsing the text back into an ordered_json is quadratic in the
// number of states, since it finds each key by a linear search).
nlohmann::ordered_json AslDocument(const WorkflowSpec& spec);

}  // namespace novacat
