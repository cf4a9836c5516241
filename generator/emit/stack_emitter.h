// StackEmitter: the checked specs of a run → ONE CloudFormation template
// (plain JSON, no Transform) that deploys all of them: the NovaCat table,
// the event bus, and per workflow its Lambda function, state machine, log
// groups, least-privilege roles and failed-executions alarm; one rule per
// event a workflow publishes that another takes as its input event; one
// EventBridge Scheduler schedule per `scheduled` trigger with a schedule.
//
// Contracts other code relies on (keep the names):
// - Parameters: ArtifactBucket (the S3 bucket of the Lambda zips, no
//   default), ArtifactKeyPrefix (default ""; workflow w's zip is at
//   `<ArtifactKeyPrefix>w.zip`), TableName (default NovaCat), EventBusName
//   (default novacat), AlarmTopicArn (default ""), and per secret id s a
//   spec names (`secrets:`, declared in the governance) <S>SecretArn with
//   S = PascalCase(s) (default "": not configured) and the condition
//   <S>SecretGiven.
// - Logical ids: NovaCatTable, NovaCatEventBus; per workflow w with
//   P = PascalName(w): PFunction, PFunctionRole, PFunctionLogGroup,
//   PFunctionLogsPolicy, PStateMachine, PStateMachineRole,
//   PStateMachineLogGroup, PFailedExecutionsAlarm, PSchedule (PSchedule2...)
//   and PScheduleRole; per route from publisher A to consumer C:
//   Route<A><C> and Route<A><C>Role. Outputs: PStateMachineArn,
//   PFunctionArn, NovaCatTableName, NovaCatEventBusName.
// - The function's environment: NOVACAT_TABLE_NAME, NOVACAT_EVENT_BUS_NAME,
//   NOVACAT_WORKFLOW (= w); its handler is w. Per secret s its spec names,
//   when <S>SecretGiven: the secret's variable (NOVACAT_TNS_SECRET...) set
//   to the ARN, and PFunction<S>SecretPolicy letting its role
//   secretsmanager:GetSecretValue on exactly that ARN.
// - EventBridge: a publisher sends Source = its workflow name, DetailType =
//   the event name, Detail = the event; a rule passes `$.detail` to the
//   consumer's state machine as its input.
// - The state machine's DefinitionString is Fn::Sub of the generated ASL
//   (the bytes of <w>/statemachine.asl.json) with `${PFunctionArn}` bound to
//   the function's ARN; every other "${" of the text is written "${!" so
//   Fn::Sub leaves it as it was.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/spec.h"

namespace novacat {

// The template's path relative to the output folder. It belongs to the
// whole set of workflows (see FileSet::AddWholeSet).
inline constexpr const char* kStackPath = "stack.template.json";

// The template (2-space indent, trailing newline) for `specs`, which must
// have passed the checker. Workflows appear in name order; same specs,
// same bytes.
std::string EmitStack(const std::vector<std::unique_ptr<WorkflowSpec>>& specs);
// One workflow's share of the stack: its function, state machine, roles,
// log groups, alarm, schedules and object-created rules (resources), and
// its outputs, each in the stack's order. `asl` must be EmitAsl(spec).
// Built on its own so that each workflow's definition is made once, for
// its binding and for its share; the stack joins the shares.
struct StackPart {
  nlohmann::ordered_json resources = nlohmann::ordered_json::object();
  nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
};
StackPart EmitStackPart(const WorkflowSpec& spec, const std::string& asl);

// As EmitStack, with each spec's share already made: `parts[i]` must be
// EmitStackPart(*specs[i], EmitAsl(*specs[i])).
std::string EmitStack(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                      std::vector<StackPart> parts);

// `text` with every "${" written "${!": Fn::Sub then leaves it literal.
std::string EscapeForFnSub(const std::string& text);

}  // namespace novacat
