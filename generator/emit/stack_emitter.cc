#include "emit/stack_emitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "emit/asl_emitter.h"

namespace novacat {

namespace {

using Json = nlohmann::ordered_json;

// The table's global secondary indexes: name, partition key, sort key.
// Their twin is the store's (runtime/src/store/table.cc IndexName,
// PartitionKeyAttribute, SortKeyAttribute; the seed
// dynamodb_access_patterns.md): the two must name the same indexes.
struct IndexDef {
  const char* name;
  const char* pk;
  const char* sk;
};
constexpr std::array<IndexDef, 3> kIndexes = {{
    {"DatasetEligibilityIndex", "GSI1PK", "GSI1SK"},
    {"NameResolutionIndex", "GSI2PK", "GSI2SK"},
    {"S3ObjectIndex", "GSI3PK", "GSI3SK"},
}};

// What a workflow's function does to the table (runtime/src/store/
// dynamodb_table.cc): nothing else is granted.
constexpr std::array<const char*, 5> kTableActions = {
    "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
    "dynamodb:DeleteItem", "dynamodb:Query"};

// CloudWatch Logs delivery for a state machine's LoggingConfiguration. AWS
// supports no resource-level permissions for these actions, so their
// Resource is "*": the only "*" of the stack.
constexpr std::array<const char*, 8> kLogDeliveryActions = {
    "logs:CreateLogDelivery",        "logs:GetLogDelivery",
    "logs:UpdateLogDelivery",        "logs:DeleteLogDelivery",
    "logs:ListLogDeliveries",        "logs:PutResourcePolicy",
    "logs:DescribeResourcePolicies", "logs:DescribeLogGroups"};

// Lambda's largest timeout (seconds).
constexpr int64_t kLambdaMaxTimeout = 900;
constexpr int kMemoryMb = 512;
constexpr int kLogRetentionDays = 30;

Json Ref(const std::string& id) { return {{"Ref", id}}; }
Json GetAtt(const std::string& id, const std::string& attribute) {
  return {{"Fn::GetAtt", {id, attribute}}};
}
Json Sub(const std::string& text) { return {{"Fn::Sub", text}}; }

// A role `service` may assume, with one inline policy of `statements`.
Json Role(const std::string& service, const std::string& policy_name,
          Json statements) {
  Json assume = Json::array();
  assume.push_back({{"Effect", "Allow"},
                    {"Principal", {{"Service", service}}},
                    {"Action", "sts:AssumeRole"}});
  Json policies = Json::array();
  policies.push_back(
      {{"PolicyName", policy_name},
       {"PolicyDocument",
        {{"Version", "2012-10-17"}, {"Statement", std::move(statements)}}}});
  return {{"Type", "AWS::IAM::Role"},
          {"Properties",
           {{"AssumeRolePolicyDocument",
             {{"Version", "2012-10-17"}, {"Statement", std::move(assume)}}},
            {"Policies", std::move(policies)}}}};
}

Json Allow(Json actions, Json resources) {
  return {{"Effect", "Allow"},
          {"Action", std::move(actions)},
          {"Resource", std::move(resources)}};
}

// Where an event or a schedule's invocation that cannot be delivered
// goes. EventBridge and EventBridge Scheduler retry a target that failed
// retryably (StartExecution or Invoke throttled, a service error) for 24
// hours and up to 185 times, their defaults, written out here; what still
// fails, or fails for good (a missing state machine or function, a role
// that may not), is dropped unless the target has a dead-letter queue.
// Every target of the stack has this one, which keeps a message 14 days
// (SQS's longest) and is watched by an alarm, so that an event is not lost
// without a record. A rule sends to it as events.amazonaws.com (the
// queue's policy names each rule); a schedule with its execution role; a
// function's asynchronous invocation with the function's role.
constexpr const char* kUndelivered = "NovaCatUndeliveredEvents";
constexpr int kTargetRetries = 185;
constexpr int kTargetEventAgeSeconds = 86400;
constexpr int kUndeliveredRetentionSeconds = 1209600;

// The stack's schedules' group: its own, so that the Scheduler's metrics
// of it (kept per group) count the stack's schedules and no one else's.
constexpr const char* kSchedules = "NovaCatSchedules";

// Lambda's asynchronous invocation (a per-nova schedule's): its retries and
// the age past which it gives up, its defaults.
constexpr int kAsyncRetries = 2;
constexpr int kAsyncEventAgeSeconds = 21600;

// `target` (a rule's or a schedule's) with the retry policy and the
// dead-letter queue.
Json Delivered(Json target) {
  target["RetryPolicy"] = {
      {"MaximumRetryAttempts", kTargetRetries},
      {"MaximumEventAgeInSeconds", kTargetEventAgeSeconds}};
  target["DeadLetterConfig"] = {{"Arn", GetAtt(kUndelivered, "Arn")}};
  return target;
}

// What a role needs to send to the dead-letter queue: a schedule's
// execution role, a per-nova function's role.
Json SendToUndelivered() {
  return Allow("sqs:SendMessage", GetAtt(kUndelivered, "Arn"));
}

// A role that may start only `state_machine` (rules and schedules), and
// `also`.
Json StartExecutionRole(const std::string& service,
                        const std::string& state_machine,
                        Json also = Json::array()) {
  Json statements =
      Json::array({Allow("states:StartExecution", Ref(state_machine))});
  for (auto& statement : also) statements.push_back(std::move(statement));
  return Role(service, "StartExecution", std::move(statements));
}

// The generated ASL (`asl`, EmitAsl's text) as an Fn::Sub text: every
// string (keys included) escaped, except the function placeholder the ASL
// emitter writes as the value of a Task's FunctionName. Done on the text,
// byte for byte what dumping the document with those strings escaped would
// give, without building that copy: dumping writes '$' and '{' as they are
// and '$' is nothing but a character of a string in JSON, so every "${" in
// the text is one in a string. The placeholder is kept where the text
// around it is `"FunctionName": "<placeholder>"`, unescaped quotes, which
// only the key FunctionName with the placeholder as its value can be (a
// string's own quotes are escaped).
std::string AslForFnSub(const std::string& asl,
                        const std::string& placeholder) {
  const std::string kept = "\"FunctionName\": \"" + placeholder + "\"";
  const size_t before = kept.size() - placeholder.size() - 1;  // to "${"
  std::string out;
  out.reserve(asl.size() + asl.size() / 64);
  size_t copied = 0;  // asl[0, copied) is in out
  for (size_t at = asl.find("${"); at != std::string::npos;
       at = asl.find("${", at + 2)) {
    if (at >= before && asl.compare(at - before, kept.size(), kept) == 0)
      continue;
    out.append(asl, copied, at + 2 - copied);
    out += '!';
    copied = at + 2;
  }
  out.append(asl, copied);
  return out;
}

// What a secret's parameter accepts: a secret's ARN (in any partition),
// or "" (none). A name would make the policy's Resource no ARN.
constexpr const char* kSecretArnPattern =
    "^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:.+)?$";

// The stack's parameter naming the SNS topic its alarms notify, and the
// condition that it is given (an empty topic: the alarms notify no one).
constexpr const char* kAlarmTopicParameter = "AlarmTopicArn";
constexpr const char* kNotifyAlarms = "NotifyAlarms";

// kAlarmTopicParameter as an alarm's list of actions when kNotifyAlarms,
// else no property at all.
Json AlarmTopicIfGiven() {
  return {{"Fn::If",
           {kNotifyAlarms, Json::array({Ref(kAlarmTopicParameter)}),
            Ref("AWS::NoValue")}}};
}

// A metric's dimension, as an alarm names it.
Json Dimension(const char* name, Json value) {
  return {{"Name", name}, {"Value", std::move(value)}};
}

// An alarm when `metric` (its `statistic` over 5 minutes, of exactly
// `dimensions`, Dimension's) reaches 1; no data is not an alarm. It
// notifies the alarm topic, when the stack has one, of the alarm and of
// its end.
Json FirstOccurrenceAlarm(std::string description, const char* metric_namespace,
                          const char* metric, const char* statistic,
                          Json dimensions) {
  return {{"Type", "AWS::CloudWatch::Alarm"},
          {"Properties",
           {{"AlarmDescription", std::move(description)},
            {"Namespace", metric_namespace},
            {"MetricName", metric},
            {"Dimensions", std::move(dimensions)},
            {"Statistic", statistic},
            {"Period", 300},
            {"EvaluationPeriods", 1},
            {"Threshold", 1},
            {"ComparisonOperator", "GreaterThanOrEqualToThreshold"},
            {"TreatMissingData", "notBreaching"},
            {"AlarmActions", AlarmTopicIfGiven()},
            {"OKActions", AlarmTopicIfGiven()}}}};
}

// A secret's stack parameter, <Id>SecretArn (its ARN; "" when not
// configured), and the condition that it is given, <Id>SecretGiven.
std::string SecretParameter(const std::string& id) {
  return PascalCase(id) + "SecretArn";
}
std::string SecretGiven(const std::string& id) {
  return PascalCase(id) + "SecretGiven";
}

// Whether a `for_each: nova` schedule invokes the workflow's function.
bool HasPerNovaSchedule(const WorkflowSpec& spec) {
  return std::any_of(spec.triggers.begin(), spec.triggers.end(),
                     [](const auto& t) {
                       return t.kind == "scheduled" && t.schedule &&
                              t.schedule->for_each == "nova";
                     });
}

// The largest timeout of a Task in `graph` (Map item states included).
int64_t LargestTaskTimeout(const StateGraph& graph) {
  int64_t largest = 0;
  for (const auto& s : graph.states) {
    if (s.type == StateType::kTask) {
      std::optional<int64_t> t = s.timeout_seconds;
      if (!t && s.retry) t = s.retry->timeout_seconds;
      if (t) largest = std::max(largest, *t);
    }
    if (s.item_states)
      largest = std::max(largest, LargestTaskTimeout(*s.item_states));
  }
  return largest;
}

// The events a workflow publishes (PublishEvent), in state order, once each.
std::vector<std::string> PublishedEvents(const WorkflowSpec& spec) {
  std::vector<std::string> out;
  auto collect = [&](const StateGraph& graph, auto& self) -> void {
    for (const auto& s : graph.states) {
      if (s.builtin == Builtin::kPublishEvent &&
          std::find(out.begin(), out.end(), s.event) == out.end())
        out.push_back(s.event);
      if (s.item_states) self(*s.item_states, self);
    }
  };
  collect(spec.graph, collect);
  return out;
}

// The logical id of the catalog's files (spectra the downloads validated,
// ...): a bucket, private, encrypted, versioned, kept when the stack goes
// (it is data), and publishing its object events to EventBridge's default
// bus (S3 sends them nowhere else), where an object-created trigger's rule
// listens.
constexpr const char* kBucket = "NovaCatCatalogBucket";

// One workflow's share of the stack (EmitStackPart).
class WorkflowPartBuilder {
 public:
  // `asl`: EmitAsl(spec).
  WorkflowPartBuilder(const WorkflowSpec& spec, const std::string& asl)
      : spec_(spec), asl_(asl) {}

  StackPart Build() && {
    Workflow(spec_);
    return std::move(part_);
  }

 private:
  void Workflow(const WorkflowSpec& spec) {
    const std::string p = spec.PascalName();
    const std::string w = spec.workflow;
    const std::string function = p + "Function";
    const std::string machine = p + "StateMachine";

    // The function. It is not named: "${AWS::StackName}-w" may exceed
    // Lambda's 64 characters (a stack name has up to 128), so its log
    // group's name comes from Ref, and the logs policy is its own resource
    // (in the role it would be a cycle: role → log group → function → role).
    Json fn;
    fn["Description"] = fmt::format("Runs every Task of {}.", w);
    fn["Runtime"] = "provided.al2023";
    fn["Handler"] = w;
    fn["Architectures"] = {"x86_64"};
    // The key joins Ref ArtifactKeyPrefix rather than naming it inside an
    // Fn::Sub: the same key on AWS, and moto's CloudFormation (which
    // stack_deploy updates) sees a changed prefix only through a Ref.
    fn["Code"] = {
        {"S3Bucket", Ref("ArtifactBucket")},
        {"S3Key",
         {{"Fn::Join", Json::array({"", Json::array({Ref("ArtifactKeyPrefix"),
                                                     w + ".zip"})})}}}};
    int64_t timeout = LargestTaskTimeout(spec.graph);
    fn["Timeout"] = timeout <= 0 ? 60 : std::min(timeout, kLambdaMaxTimeout);
    fn["MemorySize"] = kMemoryMb;
    fn["Role"] = GetAtt(function + "Role", "Arn");
    fn["Environment"] = {
        {"Variables",
         {{"NOVACAT_TABLE_NAME", Ref("NovaCatTable")},
          {"NOVACAT_EVENT_BUS_NAME", GetAtt("NovaCatEventBus", "Name")},
          {"NOVACAT_WORKFLOW", w}}}};
    if (!spec.object_store.empty())
      fn["Environment"]["Variables"]["NOVACAT_BUCKET"] = Ref(kBucket);
    // Each secret the spec names: its variable holds the ARN when the
    // stack's parameter gives one; otherwise the variable is not set, and
    // the client that needs the secret is skipped (sources/archives.h).
    for (const auto& id : spec.secrets)
      fn["Environment"]["Variables"]
        [spec.governance->FindSecret(id)->variable] = {
            {"Fn::If",
             {SecretGiven(id), Ref(SecretParameter(id)), Ref("AWS::NoValue")}}};
    part_.resources[function] = {{"Type", "AWS::Lambda::Function"},
                                 {"Properties", fn}};

    Json table_resources = Json::array({GetAtt("NovaCatTable", "Arn")});
    for (const auto& index : kIndexes)
      table_resources.push_back(
          Sub(std::string("${NovaCatTable.Arn}/index/") + index.name));
    Json statements = Json::array(
        {Allow(kTableActions, table_resources),
         Allow("events:PutEvents", GetAtt("NovaCatEventBus", "Arn"))});
    if (!spec.object_store.empty()) {
      Json actions = spec.object_store == "read_write"
                         ? Json::array({"s3:GetObject", "s3:PutObject"})
                         : Json::array({"s3:GetObject"});
      statements.push_back(
          Allow(actions, Sub(std::string("${") + kBucket + ".Arn}/*")));
    }
    // A per-nova schedule invokes the function asynchronously: Lambda sends
    // the record of a sweep it gave up on to the dead-letter queue with the
    // function's role (<P>FunctionInvokeConfig).
    if (HasPerNovaSchedule(spec)) statements.push_back(SendToUndelivered());
    part_.resources[function + "Role"] = Role(
        "lambda.amazonaws.com",
        spec.object_store.empty() ? "TableAndEvents" : "TableEventsAndObjects",
        std::move(statements));
    part_.resources[function + "LogGroup"] = {
        {"Type", "AWS::Logs::LogGroup"},
        {"Properties",
         {{"LogGroupName", Sub("/aws/lambda/${" + function + "}")},
          {"RetentionInDays", kLogRetentionDays}}}};
    part_.resources[function + "LogsPolicy"] = {
        {"Type", "AWS::IAM::Policy"},
        {"Properties",
         {{"PolicyName", "Logs"},
          {"Roles", {Ref(function + "Role")}},
          {"PolicyDocument",
           {{"Version", "2012-10-17"},
            {"Statement",
             {Allow({"logs:CreateLogStream", "logs:PutLogEvents"},
                    GetAtt(function + "LogGroup", "Arn"))}}}}}}};
    // Reading each secret the spec names, exactly that secret, and only
    // when its parameter is given: a policy of the function's role of its
    // own, <P>Function<Id>SecretPolicy, that exists under the secret's
    // condition (a conditional statement inside the role's policy would
    // need an AWS::NoValue list item, which moto's CloudFormation keeps as
    // null). Like the logs policy, the function does not wait for it; the
    // function runs once the stack is complete.
    for (const auto& id : spec.secrets) {
      part_.resources[function + PascalCase(id) + "SecretPolicy"] = {
          {"Type", "AWS::IAM::Policy"},
          {"Condition", SecretGiven(id)},
          {"Properties",
           {{"PolicyName", PascalCase(id) + "Secret"},
            {"Roles", {Ref(function + "Role")}},
            {"PolicyDocument",
             {{"Version", "2012-10-17"},
              {"Statement",
               Json::array({Allow("secretsmanager:GetSecretValue",
                                  Ref(SecretParameter(id)))})}}}}}};
    }

    // The state machine. Unnamed for the same reason (80 characters).
    const std::string placeholder = "${" + p + "FunctionArn}";
    Json sm;
    sm["StateMachineType"] = spec.type;
    sm["DefinitionString"] = {
        {"Fn::Sub",
         {AslForFnSub(asl_, placeholder),
          {{p + "FunctionArn", GetAtt(function, "Arn")}}}}};
    sm["RoleArn"] = GetAtt(machine + "Role", "Arn");
    sm["LoggingConfiguration"] = {
        {"Level", "ERROR"},
        {"IncludeExecutionData", false},
        {"Destinations",
         {{{"CloudWatchLogsLogGroup",
            {{"LogGroupArn", GetAtt(machine + "LogGroup", "Arn")}}}}}}};
    part_.resources[machine] = {{"Type", "AWS::StepFunctions::StateMachine"},
                                {"Properties", sm}};
    part_.resources[machine + "Role"] = Role(
        "states.amazonaws.com", "InvokeFunctionAndLog",
        Json::array(
            {Allow("lambda:InvokeFunction",
                   {GetAtt(function, "Arn"), Sub("${" + function + ".Arn}:*")}),
             Allow(kLogDeliveryActions, "*")}));
    part_.resources[machine + "LogGroup"] = {
        {"Type", "AWS::Logs::LogGroup"},
        {"Properties",
         {{"LogGroupName",
           Sub("/aws/vendedlogs/states/${AWS::StackName}-" + p)},
          {"RetentionInDays", kLogRetentionDays}}}};

    part_.resources[p + "FailedExecutionsAlarm"] = FirstOccurrenceAlarm(
        fmt::format("An execution of {} failed.", w), "AWS/States",
        "ExecutionsFailed", "Sum",
        Json::array({Dimension("StateMachineArn", Ref(machine))}));

    Schedules(spec, function, machine);
    ObjectCreatedRules(spec, machine);
    ReaperRule(spec, function, machine);

    part_.outputs[machine + "Arn"] = {
        {"Description", fmt::format("The {} state machine.", w)},
        {"Value", Ref(machine)}};
    part_.outputs[function + "Arn"] = {
        {"Description", fmt::format("The {} function.", w)},
        {"Value", GetAtt(function, "Arn")}};
  }

  // One EventBridge Scheduler schedule per `scheduled` trigger, <P>Schedule,
  // <P>Schedule2, ... in trigger order. A fixed-input schedule starts the
  // state machine with its input. A `for_each: nova` schedule invokes the
  // function instead, with {"for_each": "nova", "input": ...}: the function
  // publishes the input event once per nova (runtime/include/novacat/
  // store/for_each_nova.h, Source the workflow, DetailType its input
  // event), and the rule <P>ScheduleRoute starts the state machine with
  // each event's detail.
  void Schedules(const WorkflowSpec& spec, const std::string& function,
                 const std::string& machine) {
    const std::string p = spec.PascalName();
    const std::string& w = spec.workflow;
    int n = 0;
    for (const auto& t : spec.triggers) {
      if (t.kind != "scheduled" || !t.schedule) continue;
      const Schedule& schedule = *t.schedule;
      const std::string id =
          p + "Schedule" + (++n == 1 ? std::string() : std::to_string(n));
      const bool each_nova = schedule.for_each == "nova";
      Json target = Delivered(
          {{"Arn", each_nova ? GetAtt(function, "Arn") : Ref(machine)},
           {"RoleArn", GetAtt(id + "Role", "Arn")},
           {"Input",
            each_nova
                ? Json{{"for_each", "nova"}, {"input", schedule.input}}.dump()
                : schedule.input.dump()}});
      part_.resources[id] = {
          {"Type", "AWS::Scheduler::Schedule"},
          {"Properties",
           {{"Description", fmt::format("Starts {}{} ({}).", w,
                                        each_nova ? " once per nova" : "",
                                        schedule.expression)},
            {"GroupName", Ref(kSchedules)},
            {"ScheduleExpression", schedule.expression},
            {"FlexibleTimeWindow", {{"Mode", "OFF"}}},
            {"Target", target}}}};
      part_.resources[id + "Role"] =
          each_nova ? Role("scheduler.amazonaws.com", "InvokeFunction",
                           Json::array({Allow("lambda:InvokeFunction",
                                              GetAtt(function, "Arn")),
                                        SendToUndelivered()}))
                    : StartExecutionRole("scheduler.amazonaws.com", machine,
                                         Json::array({SendToUndelivered()}));
    }
    if (!HasPerNovaSchedule(spec)) return;
    // The schedule's invocation is asynchronous: Lambda retries a failed
    // sweep twice within 6 hours (its defaults, written out), then sends
    // the invocation's record to the dead-letter queue. Lambda checks the
    // function's role may when the config is written, so it waits for the
    // role: on an update the function does not, and would not wait.
    part_.resources[function + "InvokeConfig"] = {
        {"Type", "AWS::Lambda::EventInvokeConfig"},
        {"DependsOn", Json::array({function + "Role"})},
        {"Properties",
         {{"FunctionName", Ref(function)},
          {"Qualifier", "$LATEST"},
          {"MaximumRetryAttempts", kAsyncRetries},
          {"MaximumEventAgeInSeconds", kAsyncEventAgeSeconds},
          {"DestinationConfig",
           {{"OnFailure", {{"Destination", GetAtt(kUndelivered, "Arn")}}}}}}}};
    const std::string route = p + "ScheduleRoute";
    part_.resources[route] = {
        {"Type", "AWS::Events::Rule"},
        {"Properties",
         {{"Description",
           fmt::format("{}'s per-nova schedule: each {} event it publishes "
                       "starts {}.",
                       w, spec.input_event, w)},
          {"EventBusName", GetAtt("NovaCatEventBus", "Name")},
          {"EventPattern",
           {{"source", {w}}, {"detail-type", {spec.input_event}}}},
          {"State", "ENABLED"},
          {"Targets",
           Json::array({Delivered({{"Id", w.substr(0, 64)},
                                   {"Arn", Ref(machine)},
                                   {"RoleArn", GetAtt(route + "Role", "Arn")},
                                   {"InputPath", "$.detail"}})})}}}};
    part_.resources[route + "Role"] =
        StartExecutionRole("events.amazonaws.com", machine);
  }

  // One rule per `object_created` trigger, <P>ObjectCreated,
  // <P>ObjectCreated2, ... in trigger order, on EventBridge's default bus
  // (where S3 sends the catalog bucket's events): S3's Object Created events
  // of the bucket whose key starts with the prefix start the state machine
  // with the input event built from the event's detail by an
  // InputTransformer (placeholders outside quotes: EventBridge writes each
  // value as JSON, a string quoted and escaped). byte_length is passed only
  // when the input event declares it (checked: object-created-input).
  void ObjectCreatedRules(const WorkflowSpec& spec,
                          const std::string& machine) {
    const std::string p = spec.PascalName();
    const EventDef* input = spec.FindEvent(spec.input_event);
    const bool with_size = input && input->FindField("byte_length");
    int n = 0;
    for (const auto& t : spec.triggers) {
      if (t.kind != "object_created" || !t.object_created) continue;
      const std::string id =
          p + "ObjectCreated" + (++n == 1 ? std::string() : std::to_string(n));
      Json paths = {{"bucket", "$.detail.bucket.name"},
                    {"key", "$.detail.object.key"},
                    {"etag", "$.detail.object.etag"}};
      std::string input_template =
          R"({"bucket": <bucket>, "key": <key>, "etag": <etag>)";
      if (with_size) {
        paths["size"] = "$.detail.object.size";
        input_template += ", \"byte_length\": <size>";
      }
      input_template += "}";
      part_.resources[id] = {
          {"Type", "AWS::Events::Rule"},
          {"Properties",
           {{"Description",
             fmt::format("Objects created under {} in the catalog's bucket "
                         "start {}.",
                         t.object_created->prefix, spec.workflow)},
            {"EventPattern",
             {{"source", {"aws.s3"}},
              {"detail-type", {"Object Created"}},
              {"detail",
               {{"bucket", {{"name", {Ref(kBucket)}}}},
                {"object",
                 {{"key", {{{"prefix", t.object_created->prefix}}}}}}}}}},
            {"State", "ENABLED"},
            {"Targets", Json::array({Delivered(
                            {{"Id", spec.workflow.substr(0, 64)},
                             {"Arn", Ref(machine)},
                             {"RoleArn", GetAtt(id + "Role", "Arn")},
                             {"InputTransformer",
                              {{"InputPathsMap", paths},
                               {"InputTemplate", input_template}}}})})}}}};
      part_.resources[id + "Role"] =
          StartExecutionRole("events.amazonaws.com", machine);
    }
  }

  // <P>Reaper (every workflow keeps a JobRun: missing-builtin): Step
  // Functions' status changes of the state machine's executions that ended
  // without finishing their run (ABORTED, TIMED_OUT, FAILED), on the
  // default bus where Step Functions sends them, to the workflow's own
  // function, which finalizes the run and releases its lock and leases
  // (store/reaper.h; idempotent, as EventBridge delivers at least once);
  // and EventBridge's permission to invoke it from that rule.
  void ReaperRule(const WorkflowSpec& spec, const std::string& function,
                  const std::string& machine) {
    const std::string id = spec.PascalName() + "Reaper";
    part_.resources[id] = {
        {"Type", "AWS::Events::Rule"},
        {"Properties",
         {{"Description",
           fmt::format("{}'s executions stopped, timed out or failed outside "
                       "its catch: its function finalizes the run and "
                       "releases its lock and leases.",
                       spec.workflow)},
          {"EventPattern",
           {{"source", {"aws.states"}},
            {"detail-type", {"Step Functions Execution Status Change"}},
            {"detail",
             {{"status", {"ABORTED", "TIMED_OUT", "FAILED"}},
              {"stateMachineArn", {Ref(machine)}}}}}},
          {"State", "ENABLED"},
          {"Targets",
           Json::array({Delivered(
               {{"Id", "reaper"}, {"Arn", GetAtt(function, "Arn")}})})}}}};
    part_.resources[id + "Permission"] = {
        {"Type", "AWS::Lambda::Permission"},
        {"Properties",
         {{"Action", "lambda:InvokeFunction"},
          {"FunctionName", Ref(function)},
          {"Principal", "events.amazonaws.com"},
          {"SourceArn", GetAtt(id, "Arn")}}}};
  }

  const WorkflowSpec& spec_;
  const std::string& asl_;
  StackPart part_;
};

class StackBuilder {
 public:
  // Workflows in name order: the stack does not depend on the order of the
  // command line.
  // `parts`: EmitStackPart of each of `specs`, in the same order.
  StackBuilder(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
               std::vector<StackPart> parts) {
    std::vector<size_t> order(specs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return specs[a]->workflow < specs[b]->workflow;
    });
    for (size_t i : order) {
      specs_.push_back(specs[i].get());
      parts_.push_back(std::move(parts[i]));
    }
  }

  Json Build() {
    Json root;
    root["AWSTemplateFormatVersion"] = "2010-09-09";
    std::string names;
    for (const auto& s : specs_)
      names += (names.empty() ? "" : ", ") + s->workflow;
    root["Description"] = fmt::format(
        "Nova Cat: the table, the event bus and the workflows {}. Generated "
        "by novacat-gen; do not edit.",
        names.empty() ? "(none)" : names);
    root["Parameters"] = Parameters();
    root["Conditions"] = {
        {kNotifyAlarms,
         {{"Fn::Not", {{{"Fn::Equals", {Ref(kAlarmTopicParameter), ""}}}}}}}};
    for (const auto& [secret, readers] : Secrets())
      root["Conditions"][SecretGiven(secret->id)] = {
          {"Fn::Not",
           {{{"Fn::Equals", {Ref(SecretParameter(secret->id)), ""}}}}}};
    resources_["NovaCatTable"] = Table();
    resources_["NovaCatEventBus"] = {
        {"Type", "AWS::Events::EventBus"},
        {"Properties", {{"Name", Ref("EventBusName")}}}};
    if (std::any_of(specs_.begin(), specs_.end(), [](const WorkflowSpec* s) {
          return !s->object_store.empty();
        })) {
      resources_[kBucket] = CatalogBucket();
      outputs_["NovaCatCatalogBucketName"] = {
          {"Description", "The catalog's bucket (downloaded spectra, ...)."},
          {"Value", Ref(kBucket)}};
    }
    // Each workflow's resources and outputs, as if added here in turn.
    for (StackPart& part : parts_) {
      Merge(resources_, std::move(part.resources));
      Merge(outputs_, std::move(part.outputs));
    }
    Routes();
    ScheduleGroup();
    UndeliveredEvents();
    root["Resources"] = std::move(resources_);
    outputs_["NovaCatTableName"] = {
        {"Description", "The NovaCat table's name."},
        {"Value", Ref("NovaCatTable")}};
    outputs_["NovaCatEventBusName"] = {
        {"Description", "The event bus's name."},
        {"Value", GetAtt("NovaCatEventBus", "Name")}};
    root["Outputs"] = std::move(outputs_);
    return root;
  }

 private:
  // The secrets the specs name, in id order, each with the workflows that
  // read it (in name order). The checker made the specs that name one
  // agree on it (secret-conflict).
  std::vector<std::pair<const SecretDef*, std::vector<std::string>>> Secrets()
      const {
    std::map<std::string, std::pair<const SecretDef*, std::vector<std::string>>>
        by_id;
    for (const WorkflowSpec* spec : specs_) {
      for (const auto& id : spec->secrets) {
        auto& [secret, readers] = by_id[id];
        secret = spec->governance->FindSecret(id);
        readers.push_back(spec->workflow);
      }
    }
    std::vector<std::pair<const SecretDef*, std::vector<std::string>>> out;
    for (auto& [id, secret] : by_id) out.push_back(std::move(secret));
    return out;
  }

  // The stack's parameters: its own, then <Id>SecretArn per secret
  // (Secrets()): an ARN (the policy's Resource must be one), or "".
  Json Parameters() const {
    Json p;
    p["ArtifactBucket"] = {
        {"Type", "String"},
        {"Description",
         "The S3 bucket holding the Lambda zips (<workflow>.zip)."}};
    p["ArtifactKeyPrefix"] = {
        {"Type", "String"},
        {"Default", ""},
        {"Description",
         "Prefix of the zips' keys: workflow w's zip is at "
         "<ArtifactKeyPrefix>w.zip."}};
    p["TableName"] = {{"Type", "String"},
                      {"Default", "NovaCat"},
                      {"Description", "Name of the DynamoDB table."}};
    p["EventBusName"] = {{"Type", "String"},
                         {"Default", "novacat"},
                         {"Description", "Name of the EventBridge bus."}};
    p[kAlarmTopicParameter] = {
        {"Type", "String"},
        {"Default", ""},
        {"Description",
         "ARN of an SNS topic the alarms notify when they go into ALARM and "
         "back to OK; empty: they notify no one."}};
    for (const auto& [secret, readers] : Secrets()) {
      std::string names;
      for (const auto& w : readers) names += (names.empty() ? "" : ", ") + w;
      p[SecretParameter(secret->id)] = {
          {"Type", "String"},
          {"Default", ""},
          {"Description",
           fmt::format("ARN of the Secrets Manager secret {}, which {} "
                       "read{} ({}). {} Empty: not configured (the client "
                       "that needs it is skipped).",
                       secret->id, names, readers.size() == 1 ? "s" : "",
                       secret->variable, secret->description)},
          {"AllowedPattern", kSecretArnPattern},
          {"ConstraintDescription",
           "the ARN of a Secrets Manager secret "
           "(arn:aws:secretsmanager:<region>:<account>:secret:<name>), or "
           "empty"}};
    }
    return p;
  }

  static Json Table() {
    Json attributes = Json::array();
    Json indexes = Json::array();
    auto attribute = [](const char* name) {
      return Json{{"AttributeName", name}, {"AttributeType", "S"}};
    };
    auto keys = [](const char* pk, const char* sk) {
      return Json::array({{{"AttributeName", pk}, {"KeyType", "HASH"}},
                          {{"AttributeName", sk}, {"KeyType", "RANGE"}}});
    };
    attributes.push_back(attribute("PK"));
    attributes.push_back(attribute("SK"));
    for (const auto& index : kIndexes) {
      attributes.push_back(attribute(index.pk));
      attributes.push_back(attribute(index.sk));
      indexes.push_back({{"IndexName", index.name},
                         {"KeySchema", keys(index.pk, index.sk)},
                         {"Projection", {{"ProjectionType", "ALL"}}}});
    }
    Json properties;
    properties["TableName"] = Ref("TableName");
    properties["BillingMode"] = "PAY_PER_REQUEST";
    properties["AttributeDefinitions"] = attributes;
    properties["KeySchema"] = keys("PK", "SK");
    properties["GlobalSecondaryIndexes"] = indexes;
    properties["PointInTimeRecoverySpecification"] = {
        {"PointInTimeRecoveryEnabled", true}};
    return {{"Type", "AWS::DynamoDB::Table"},
            {"DeletionPolicy", "Retain"},
            {"UpdateReplacePolicy", "Retain"},
            {"Properties", properties}};
  }

  // to[key] = value for each member of `from`, in order: a key `to` has
  // keeps its place.
  static void Merge(Json& to, Json&& from) {
    for (auto& [key, value] : from.items()) to[key] = std::move(value);
  }

  // The catalog's bucket, kBucket.
  static Json CatalogBucket() {
    return {
        {"Type", "AWS::S3::Bucket"},
        {"DeletionPolicy", "Retain"},
        {"UpdateReplacePolicy", "Retain"},
        {"Properties",
         {{"BucketEncryption",
           {{"ServerSideEncryptionConfiguration",
             {{{"ServerSideEncryptionByDefault",
                {{"SSEAlgorithm", "AES256"}}}}}}}},
          {"PublicAccessBlockConfiguration",
           {{"BlockPublicAcls", true},
            {"BlockPublicPolicy", true},
            {"IgnorePublicAcls", true},
            {"RestrictPublicBuckets", true}}},
          {"VersioningConfiguration", {{"Status", "Enabled"}}},
          {"NotificationConfiguration",
           {{"EventBridgeConfiguration", {{"EventBridgeEnabled", true}}}}}}}};
  }

  // One rule per (publisher A, event E, consumer C) where C's input event
  // is E, in name order of A, then E's first PublishEvent, then C. A and C
  // name the rule: C has one input event, so the pair is unique.
  void Routes() {
    Json routes = Json::object();
    for (const auto& a : specs_) {
      for (const auto& event : PublishedEvents(*a)) {
        for (const auto& c : specs_) {
          if (c == a || c->input_event != event) continue;
          const std::string id = "Route" + a->PascalName() + c->PascalName();
          const std::string machine = c->PascalName() + "StateMachine";
          routes[id] = {
              {"Type", "AWS::Events::Rule"},
              {"Properties",
               {{"Description", fmt::format("{}'s {} event starts {}.",
                                            a->workflow, event, c->workflow)},
                {"EventBusName", GetAtt("NovaCatEventBus", "Name")},
                {"EventPattern",
                 {{"source", {a->workflow}}, {"detail-type", {event}}}},
                {"State", "ENABLED"},
                {"Targets", Json::array({Delivered(
                                {{"Id", c->workflow.substr(0, 64)},
                                 {"Arn", Ref(machine)},
                                 {"RoleArn", GetAtt(id + "Role", "Arn")},
                                 {"InputPath", "$.detail"}})})}}}};
          routes[id + "Role"] =
              StartExecutionRole("events.amazonaws.com", machine);
        }
      }
    }
    Merge(resources_, std::move(routes));
  }

  bool HasResourceOfType(const char* type) const {
    return std::any_of(resources_.begin(), resources_.end(),
                       [&](const Json& r) { return r["Type"] == type; });
  }

  // kSchedules, when the stack has a schedule (each names it).
  void ScheduleGroup() {
    if (HasResourceOfType("AWS::Scheduler::Schedule"))
      resources_[kSchedules] = {{"Type", "AWS::Scheduler::ScheduleGroup"}};
  }

  // The dead-letter queue (kUndelivered) of every rule and schedule, its
  // policy (each rule of the stack may send to it) and its alarm, when the
  // stack has a rule or a schedule; then an alarm on each way into the
  // queue failing (DeadLetterFailureAlarms).
  void UndeliveredEvents() {
    Json rules = Json::array();
    for (const auto& [id, resource] : resources_.items())
      if (resource["Type"] == "AWS::Events::Rule")
        rules.push_back(GetAtt(id, "Arn"));
    // Every stack has a rule: each workflow's reaper (every workflow keeps
    // a JobRun: missing-builtin).
    const std::string queue = kUndelivered;
    resources_[queue] = {
        {"Type", "AWS::SQS::Queue"},
        {"Properties",
         {{"MessageRetentionPeriod", kUndeliveredRetentionSeconds},
          {"SqsManagedSseEnabled", true}}}};
    resources_[queue + "Policy"] = {
        {"Type", "AWS::SQS::QueuePolicy"},
        {"Properties",
         {{"Queues", {Ref(queue)}},
          {"PolicyDocument",
           {{"Version", "2012-10-17"},
            {"Statement",
             {{{"Effect", "Allow"},
               {"Principal", {{"Service", "events.amazonaws.com"}}},
               {"Action", "sqs:SendMessage"},
               {"Resource", GetAtt(queue, "Arn")},
               {"Condition",
                {{"ArnEquals", {{"aws:SourceArn", rules}}}}}}}}}}}}};
    resources_[queue + "Alarm"] = FirstOccurrenceAlarm(
        "An event or a scheduled invocation could not be delivered; it is "
        "kept in the NovaCatUndeliveredEvents queue.",
        "AWS/SQS", "ApproximateNumberOfMessagesVisible", "Maximum",
        Json::array({Dimension("QueueName", GetAtt(queue, "QueueName"))}));
    outputs_[queue + "Url"] = {
        {"Description",
         "The queue of the events and scheduled invocations that could not "
         "be delivered."},
        {"Value", Ref(queue)}};
    DeadLetterFailureAlarms();
  }

  // What the dead-letter queue refuses (a policy or a key that does not
  // let the sender, a message over SQS's size) is lost, and each sender
  // counts it in its own metric: an alarm on each, <sender>DeadLetterAlarm,
  // in the order of the senders' resources.
  // - A rule (AWS/Events InvocationsFailedToBeSentToDlq): of RuleName on
  //   the default bus, of EventBusName and RuleName on another. The rule's
  //   name is the last part of its ARN, arn:...:rule/[<bus>/]<name> (its
  //   Ref is not the name alone on every bus).
  // - The schedules (AWS/Scheduler InvocationsFailedToBeSentToDeadLetter-
  //   Count, kept per group): of kSchedules.
  // - A per-nova function's asynchronous invocation (AWS/Lambda
  //   DestinationDeliveryFailures): of its FunctionName.
  void DeadLetterFailureAlarms() {
    Json alarms = Json::object();
    for (const auto& [id, resource] : std::as_const(resources_).items()) {
      const Json& type = resource["Type"];
      if (type == "AWS::Events::Rule") {
        const Json& properties = resource["Properties"];
        const bool on_bus = properties.contains("EventBusName");
        Json dimensions = Json::array();
        if (on_bus)
          dimensions.push_back(
              Dimension("EventBusName", properties["EventBusName"]));
        dimensions.push_back(Dimension(
            "RuleName",
            {{"Fn::Select",
              {on_bus ? 2 : 1, {{"Fn::Split", {"/", GetAtt(id, "Arn")}}}}}}));
        alarms[id + "DeadLetterAlarm"] = FirstOccurrenceAlarm(
            fmt::format("{}: an event the rule could not deliver could not "
                        "be kept in the {} queue either; it is lost.",
                        id, kUndelivered),
            "AWS/Events", "InvocationsFailedToBeSentToDlq", "Sum",
            std::move(dimensions));
      } else if (type == "AWS::Scheduler::ScheduleGroup") {
        alarms[id + "DeadLetterAlarm"] = FirstOccurrenceAlarm(
            fmt::format("A schedule's failed invocation could not be kept in "
                        "the {} queue; it is lost.",
                        kUndelivered),
            "AWS/Scheduler", "InvocationsFailedToBeSentToDeadLetterCount",
            "Sum", Json::array({Dimension("ScheduleGroup", Ref(id))}));
      } else if (type == "AWS::Lambda::EventInvokeConfig") {
        const std::string& function =
            resource["Properties"]["FunctionName"]["Ref"]
                .get_ref<const std::string&>();
        alarms[function + "DeadLetterAlarm"] = FirstOccurrenceAlarm(
            fmt::format("{}: the record of a failed asynchronous invocation "
                        "could not be kept in the {} queue; it is lost.",
                        function, kUndelivered),
            "AWS/Lambda", "DestinationDeliveryFailures", "Sum",
            Json::array({Dimension("FunctionName", Ref(function))}));
      }
    }
    Merge(resources_, std::move(alarms));
  }

  std::vector<const WorkflowSpec*> specs_;  // in name order
  std::vector<StackPart> parts_;            // parts_[i]: specs_[i]'s
  Json resources_ = Json::object();
  Json outputs_ = Json::object();
};

}  // namespace

std::string EscapeForFnSub(const std::string& text) {
  // Whole runs between the "${" (a definition is some 20 KB of them).
  std::string out;
  out.reserve(text.size() + 64);
  size_t from = 0;
  for (size_t at; (at = text.find("${", from)) != std::string::npos;
       from = at + 2) {
    out.append(text, from, at + 2 - from);
    out += '!';
  }
  out.append(text, from, std::string::npos);
  return out;
}

StackPart EmitStackPart(const WorkflowSpec& spec, const std::string& asl) {
  return WorkflowPartBuilder(spec, asl).Build();
}

std::string EmitStack(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) {
  std::vector<StackPart> parts;
  for (const auto& spec : specs)
    parts.push_back(EmitStackPart(*spec, EmitAsl(*spec)));
  return EmitStack(specs, std::move(parts));
}

std::string EmitStack(const std::vector<std::unique_ptr<WorkflowSpec>>& specs,
                      std::vector<StackPart> parts) {
  return StackBuilder(specs, std::move(parts)).Build().dump(2) + "\n";
}

}  // namespace novacat
