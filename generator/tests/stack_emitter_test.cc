// The stack template (emit/stack_emitter.h) for the seed specs: its exact
// resources, one workflow's exact IAM statements, the route from
// initialize_nova's ingest_new_nova event to ingest_new_nova, schedules,
// and the state machine definitions: after Fn::Sub they are the generated
// ASL byte for byte, with hostile "${" text escaped as "${!".
#include "emit/stack_emitter.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>

#include "compiler.h"
#include "emit/asl_emitter.h"

namespace novacat {
namespace stack_emitter_test {
namespace {

using Json = nlohmann::ordered_json;

const std::vector<std::string> kSeeds = {
    "specs/discover_spectra_products.yaml", "specs/ingest_new_nova.yaml",
    "specs/initialize_nova.yaml", "specs/refresh_references.yaml"};

std::vector<std::unique_ptr<WorkflowSpec>> Load(
    const std::vector<std::string>& paths, FileReader read = DiskFileReader()) {
  DiagnosticSink sink;
  auto specs = LoadAndCheck(paths, read, sink);
  EXPECT_FALSE(sink.has_errors()) << sink.FormatAll();
  return specs;
}

Json Stack(const std::vector<std::unique_ptr<WorkflowSpec>>& specs) {
  return Json::parse(EmitStack(specs));
}

// Fn::Sub as CloudFormation evaluates it: "${!x}" → "${x}", "${Name}" →
// vars[Name]; nullopt when a name is not bound (CloudFormation would
// resolve it as a parameter or resource, which the definition must never
// mean).
std::optional<std::string> FnSub(const std::string& text, const Json& vars) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "${") != 0) {
      out += text[i];
      continue;
    }
    if (i + 2 < text.size() && text[i + 2] == '!') {
      out += "${";
      i += 2;
      continue;
    }
    size_t end = text.find('}', i);
    if (end == std::string::npos) return std::nullopt;
    const std::string name = text.substr(i + 2, end - i - 2);
    if (!vars.contains(name)) return std::nullopt;
    out += vars[name].get<std::string>();
    i = end;
  }
  return out;
}

// The generated ASL with the Task FunctionName placeholder replaced.
std::string AslWithArn(const WorkflowSpec& spec, const std::string& arn) {
  std::string asl = EmitAsl(spec);
  const std::string from =
      "\"FunctionName\": \"${" + spec.PascalName() + "FunctionArn}\"";
  const std::string to = "\"FunctionName\": \"" + arn + "\"";
  for (size_t at = asl.find(from); at != std::string::npos;
       at = asl.find(from, at + to.size()))
    asl.replace(at, from.size(), to);
  return asl;
}

// Checks one state machine's DefinitionString against its spec's ASL.
void ExpectDefinition(const Json& stack, const WorkflowSpec& spec) {
  const std::string p = spec.PascalName();
  const Json& sub = stack["Resources"][p + "StateMachine"]["Properties"]
                         ["DefinitionString"]["Fn::Sub"];
  ASSERT_EQ(sub.size(), 2u);
  EXPECT_EQ(sub[1],
            Json::parse(R"({")" + p + R"(FunctionArn": {"Fn::GetAtt": [")" + p +
                        R"(Function", "Arn"]}})"));
  const std::string arn = "arn:aws:lambda:eu-west-1:123456789012:function:f";
  std::optional<std::string> text =
      FnSub(sub[0].get<std::string>(), {{p + "FunctionArn", arn}});
  ASSERT_TRUE(text) << p << ": an unescaped ${...} other than the ARN";
  EXPECT_EQ(*text, AslWithArn(spec, arn)) << p;
}

TEST(StackEmitterTest, ResourcesOfTheSeeds) {
  auto specs = Load(kSeeds);
  ASSERT_EQ(specs.size(), 4u);
  Json stack = Stack(specs);
  std::vector<std::string> ids;
  std::vector<std::string> types;
  for (const auto& [id, r] : stack["Resources"].items()) {
    ids.push_back(id);
    types.push_back(r["Type"].get<std::string>());
  }
  std::vector<std::string> expected_ids = {"NovaCatTable", "NovaCatEventBus"};
  std::vector<std::string> expected_types = {"AWS::DynamoDB::Table",
                                             "AWS::Events::EventBus"};
  for (const char* p : {"DiscoverSpectraProducts", "IngestNewNova",
                        "InitializeNova", "RefreshReferences"}) {
    const std::string s(p);
    for (const auto& [suffix, type] :
         std::vector<std::pair<std::string, std::string>>{
             {"Function", "AWS::Lambda::Function"},
             {"FunctionRole", "AWS::IAM::Role"},
             {"FunctionLogGroup", "AWS::Logs::LogGroup"},
             {"FunctionLogsPolicy", "AWS::IAM::Policy"},
             {"FunctionTnsSecretPolicy", "AWS::IAM::Policy"},
             {"FunctionAdsSecretPolicy", "AWS::IAM::Policy"},
             {"StateMachine", "AWS::StepFunctions::StateMachine"},
             {"StateMachineRole", "AWS::IAM::Role"},
             {"StateMachineLogGroup", "AWS::Logs::LogGroup"},
             {"FailedExecutionsAlarm", "AWS::CloudWatch::Alarm"}}) {
      // The secrets' policies: initialize_nova reads TNS's, refresh_references
      // ADS's.
      if ((suffix == "FunctionTnsSecretPolicy" && s != "InitializeNova") ||
          (suffix == "FunctionAdsSecretPolicy" && s != "RefreshReferences"))
        continue;
      expected_ids.push_back(s + suffix);
      expected_types.push_back(type);
    }
    if (s == "DiscoverSpectraProducts" || s == "RefreshReferences") {
      for (const auto& [suffix, type] :
           std::vector<std::pair<std::string, std::string>>{
               {"Schedule", "AWS::Scheduler::Schedule"},
               {"ScheduleRole", "AWS::IAM::Role"},
               {"FunctionInvokeConfig", "AWS::Lambda::EventInvokeConfig"},
               {"ScheduleRoute", "AWS::Events::Rule"},
               {"ScheduleRouteRole", "AWS::IAM::Role"}}) {
        expected_ids.push_back(s + suffix);
        expected_types.push_back(type);
      }
    }
    expected_ids.push_back(s + "Reaper");
    expected_types.push_back("AWS::Events::Rule");
    expected_ids.push_back(s + "ReaperPermission");
    expected_types.push_back("AWS::Lambda::Permission");
  }
  for (const char* route : {"RouteIngestNewNovaRefreshReferences",
                            "RouteIngestNewNovaDiscoverSpectraProducts",
                            "RouteInitializeNovaIngestNewNova"}) {
    expected_ids.push_back(route);
    expected_types.push_back("AWS::Events::Rule");
    expected_ids.push_back(std::string(route) + "Role");
    expected_types.push_back("AWS::IAM::Role");
  }
  for (const auto& [id, type] :
       std::vector<std::pair<std::string, std::string>>{
           {"NovaCatSchedules", "AWS::Scheduler::ScheduleGroup"},
           {"NovaCatUndeliveredEvents", "AWS::SQS::Queue"},
           {"NovaCatUndeliveredEventsPolicy", "AWS::SQS::QueuePolicy"},
           {"NovaCatUndeliveredEventsAlarm", "AWS::CloudWatch::Alarm"}}) {
    expected_ids.push_back(id);
    expected_types.push_back(type);
  }
  // Each way into the queue, in the order of its resource.
  for (const char* sender :
       {"DiscoverSpectraProductsFunction",
        "DiscoverSpectraProductsScheduleRoute", "DiscoverSpectraProductsReaper",
        "IngestNewNovaReaper", "InitializeNovaReaper",
        "RefreshReferencesFunction", "RefreshReferencesScheduleRoute",
        "RefreshReferencesReaper", "RouteIngestNewNovaRefreshReferences",
        "RouteIngestNewNovaDiscoverSpectraProducts",
        "RouteInitializeNovaIngestNewNova", "NovaCatSchedules"}) {
    expected_ids.push_back(std::string(sender) + "DeadLetterAlarm");
    expected_types.push_back("AWS::CloudWatch::Alarm");
  }
  EXPECT_EQ(ids, expected_ids);
  EXPECT_EQ(types, expected_types);

  std::vector<std::string> parameters;
  for (const auto& [id, p] : stack["Parameters"].items())
    parameters.push_back(id);
  EXPECT_EQ(parameters, (std::vector<std::string>{
                            "ArtifactBucket", "ArtifactKeyPrefix", "TableName",
                            "EventBusName", "AlarmTopicArn", "AdsSecretArn",
                            "TnsSecretArn"}));
  EXPECT_FALSE(stack["Parameters"]["ArtifactBucket"].contains("Default"));
  EXPECT_EQ(stack["Parameters"]["ArtifactKeyPrefix"]["Default"], "");
  EXPECT_EQ(stack["Parameters"]["TableName"]["Default"], "NovaCat");
  EXPECT_EQ(stack["Parameters"]["EventBusName"]["Default"], "novacat");
  EXPECT_EQ(stack["Parameters"]["AlarmTopicArn"]["Default"], "");
  // The alarms notify the topic only when one is given; a secret is read
  // only when its ARN is.
  EXPECT_EQ(stack["Conditions"], Json::parse(R"({"NotifyAlarms":
    {"Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmTopicArn"}, ""]}]},
    "AdsSecretGiven":
    {"Fn::Not": [{"Fn::Equals": [{"Ref": "AdsSecretArn"}, ""]}]},
    "TnsSecretGiven":
    {"Fn::Not": [{"Fn::Equals": [{"Ref": "TnsSecretArn"}, ""]}]}})"));
  std::vector<std::string> sections;
  for (const auto& [key, value] : stack.items()) sections.push_back(key);
  EXPECT_EQ(sections, (std::vector<std::string>{
                          "AWSTemplateFormatVersion", "Description",
                          "Parameters", "Conditions", "Resources", "Outputs"}));
  EXPECT_FALSE(stack.contains("Transform"));

  std::vector<std::string> outputs;
  for (const auto& [id, o] : stack["Outputs"].items()) outputs.push_back(id);
  EXPECT_EQ(
      outputs,
      (std::vector<std::string>{
          "DiscoverSpectraProductsStateMachineArn",
          "DiscoverSpectraProductsFunctionArn", "IngestNewNovaStateMachineArn",
          "IngestNewNovaFunctionArn", "InitializeNovaStateMachineArn",
          "InitializeNovaFunctionArn", "RefreshReferencesStateMachineArn",
          "RefreshReferencesFunctionArn", "NovaCatUndeliveredEventsUrl",
          "NovaCatTableName", "NovaCatEventBusName"}));
  EXPECT_EQ(EmitStack(specs), EmitStack(specs)) << "not deterministic";
}

TEST(StackEmitterTest, Table) {
  Json stack = Stack(Load(kSeeds));
  EXPECT_EQ(stack["Resources"]["NovaCatTable"], Json::parse(R"({
    "Type": "AWS::DynamoDB::Table",
    "DeletionPolicy": "Retain",
    "UpdateReplacePolicy": "Retain",
    "Properties": {
      "TableName": {"Ref": "TableName"},
      "BillingMode": "PAY_PER_REQUEST",
      "AttributeDefinitions": [
        {"AttributeName": "PK", "AttributeType": "S"},
        {"AttributeName": "SK", "AttributeType": "S"},
        {"AttributeName": "GSI1PK", "AttributeType": "S"},
        {"AttributeName": "GSI1SK", "AttributeType": "S"},
        {"AttributeName": "GSI2PK", "AttributeType": "S"},
        {"AttributeName": "GSI2SK", "AttributeType": "S"},
        {"AttributeName": "GSI3PK", "AttributeType": "S"},
        {"AttributeName": "GSI3SK", "AttributeType": "S"}],
      "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                    {"AttributeName": "SK", "KeyType": "RANGE"}],
      "GlobalSecondaryIndexes": [
        {"IndexName": "DatasetEligibilityIndex",
         "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                       {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
         "Projection": {"ProjectionType": "ALL"}},
        {"IndexName": "NameResolutionIndex",
         "KeySchema": [{"AttributeName": "GSI2PK", "KeyType": "HASH"},
                       {"AttributeName": "GSI2SK", "KeyType": "RANGE"}],
         "Projection": {"ProjectionType": "ALL"}},
        {"IndexName": "S3ObjectIndex",
         "KeySchema": [{"AttributeName": "GSI3PK", "KeyType": "HASH"},
                       {"AttributeName": "GSI3SK", "KeyType": "RANGE"}],
         "Projection": {"ProjectionType": "ALL"}}],
      "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true}
    }})"));
  EXPECT_EQ(stack["Resources"]["NovaCatEventBus"], Json::parse(R"({
    "Type": "AWS::Events::EventBus",
    "Properties": {"Name": {"Ref": "EventBusName"}}})"));
}

TEST(StackEmitterTest, InitializeNovaFunctionAndPolicies) {
  Json r = Stack(Load(kSeeds))["Resources"];
  EXPECT_EQ(r["InitializeNovaFunction"], Json::parse(R"({
    "Type": "AWS::Lambda::Function",
    "Properties": {
      "Description": "Runs every Task of initialize_nova.",
      "Runtime": "provided.al2023",
      "Handler": "initialize_nova",
      "Architectures": ["x86_64"],
      "Code": {"S3Bucket": {"Ref": "ArtifactBucket"},
               "S3Key": {"Fn::Join": ["", [{"Ref": "ArtifactKeyPrefix"}, "initialize_nova.zip"]]}},
      "Timeout": 60,
      "MemorySize": 512,
      "Role": {"Fn::GetAtt": ["InitializeNovaFunctionRole", "Arn"]},
      "Environment": {"Variables": {
        "NOVACAT_TABLE_NAME": {"Ref": "NovaCatTable"},
        "NOVACAT_EVENT_BUS_NAME": {"Fn::GetAtt": ["NovaCatEventBus", "Name"]},
        "NOVACAT_WORKFLOW": "initialize_nova",
        "NOVACAT_TNS_SECRET": {"Fn::If": ["TnsSecretGiven",
          {"Ref": "TnsSecretArn"}, {"Ref": "AWS::NoValue"}]}}}}})"));
  const Json assume = [](const char* service) {
    return Json::parse(
        std::string(
            R"({"Version": "2012-10-17", "Statement": [{"Effect": "Allow",
        "Principal": {"Service": ")") +
        service + R"("}, "Action": "sts:AssumeRole"}]})");
  }("lambda.amazonaws.com");
  const Json& role = r["InitializeNovaFunctionRole"]["Properties"];
  EXPECT_EQ(role["AssumeRolePolicyDocument"], assume);
  ASSERT_EQ(role["Policies"].size(), 1u);
  EXPECT_EQ(role["Policies"][0]["PolicyDocument"]["Statement"], Json::parse(R"([
    {"Effect": "Allow",
     "Action": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
                "dynamodb:DeleteItem", "dynamodb:Query"],
     "Resource": [
       {"Fn::GetAtt": ["NovaCatTable", "Arn"]},
       {"Fn::Sub": "${NovaCatTable.Arn}/index/DatasetEligibilityIndex"},
       {"Fn::Sub": "${NovaCatTable.Arn}/index/NameResolutionIndex"},
       {"Fn::Sub": "${NovaCatTable.Arn}/index/S3ObjectIndex"}]},
    {"Effect": "Allow", "Action": "events:PutEvents",
     "Resource": {"Fn::GetAtt": ["NovaCatEventBus", "Arn"]}}])"));
  EXPECT_EQ(r["InitializeNovaFunctionLogsPolicy"], Json::parse(R"({
    "Type": "AWS::IAM::Policy",
    "Properties": {
      "PolicyName": "Logs",
      "Roles": [{"Ref": "InitializeNovaFunctionRole"}],
      "PolicyDocument": {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow",
         "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
         "Resource": {"Fn::GetAtt": ["InitializeNovaFunctionLogGroup", "Arn"]}}]}}})"));
  EXPECT_EQ(r["InitializeNovaFunctionTnsSecretPolicy"], Json::parse(R"({
    "Type": "AWS::IAM::Policy",
    "Condition": "TnsSecretGiven",
    "Properties": {
      "PolicyName": "TnsSecret",
      "Roles": [{"Ref": "InitializeNovaFunctionRole"}],
      "PolicyDocument": {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
         "Resource": {"Ref": "TnsSecretArn"}}]}}})"));
  EXPECT_EQ(r["InitializeNovaFunctionLogGroup"], Json::parse(R"({
    "Type": "AWS::Logs::LogGroup",
    "Properties": {"LogGroupName": {"Fn::Sub": "/aws/lambda/${InitializeNovaFunction}"},
                   "RetentionInDays": 30}})"));
  const Json& sm_role = r["InitializeNovaStateMachineRole"]["Properties"];
  EXPECT_EQ(sm_role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"],
            Json::parse(R"({"Service": "states.amazonaws.com"})"));
  EXPECT_EQ(sm_role["Policies"][0]["PolicyDocument"]["Statement"],
            Json::parse(R"([
    {"Effect": "Allow", "Action": "lambda:InvokeFunction",
     "Resource": [{"Fn::GetAtt": ["InitializeNovaFunction", "Arn"]},
                  {"Fn::Sub": "${InitializeNovaFunction.Arn}:*"}]},
    {"Effect": "Allow",
     "Action": ["logs:CreateLogDelivery", "logs:GetLogDelivery",
                "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
                "logs:ListLogDeliveries", "logs:PutResourcePolicy",
                "logs:DescribeResourcePolicies", "logs:DescribeLogGroups"],
     "Resource": "*"}])"));
  const Json& sm = r["InitializeNovaStateMachine"]["Properties"];
  EXPECT_EQ(sm["StateMachineType"], "STANDARD");
  EXPECT_FALSE(sm.contains("Definition"));
  EXPECT_FALSE(sm.contains("DefinitionSubstitutions"));
  EXPECT_EQ(
      sm["RoleArn"],
      Json::parse(
          R"({"Fn::GetAtt": ["InitializeNovaStateMachineRole", "Arn"]})"));
  EXPECT_EQ(sm["LoggingConfiguration"], Json::parse(R"({
    "Level": "ERROR", "IncludeExecutionData": false,
    "Destinations": [{"CloudWatchLogsLogGroup": {"LogGroupArn":
      {"Fn::GetAtt": ["InitializeNovaStateMachineLogGroup", "Arn"]}}}]})"));
  EXPECT_EQ(r["InitializeNovaFailedExecutionsAlarm"]["Properties"],
            Json::parse(R"({
    "AlarmDescription": "An execution of initialize_nova failed.",
    "Namespace": "AWS/States", "MetricName": "ExecutionsFailed",
    "Dimensions": [{"Name": "StateMachineArn", "Value": {"Ref": "InitializeNovaStateMachine"}}],
    "Statistic": "Sum", "Period": 300, "EvaluationPeriods": 1, "Threshold": 1,
    "ComparisonOperator": "GreaterThanOrEqualToThreshold",
    "TreatMissingData": "notBreaching",
    "AlarmActions": {"Fn::If": ["NotifyAlarms", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]},
    "OKActions": {"Fn::If": ["NotifyAlarms", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}})"));
  // The only "*" of the stack is the log delivery statement, once per
  // state machine.
  const std::string text = r.dump();
  size_t stars = 0;
  for (size_t at = text.find("\"Resource\":\"*\""); at != std::string::npos;
       at = text.find("\"Resource\":\"*\"", at + 1))
    ++stars;
  EXPECT_EQ(stars, 4u);
}

TEST(StackEmitterTest, RouteFromInitializeNovaToIngestNewNova) {
  Json r = Stack(Load(kSeeds))["Resources"];
  EXPECT_EQ(r["RouteInitializeNovaIngestNewNova"], Json::parse(R"({
    "Type": "AWS::Events::Rule",
    "Properties": {
      "Description": "initialize_nova's ingest_new_nova event starts ingest_new_nova.",
      "EventBusName": {"Fn::GetAtt": ["NovaCatEventBus", "Name"]},
      "EventPattern": {"source": ["initialize_nova"], "detail-type": ["ingest_new_nova"]},
      "State": "ENABLED",
      "Targets": [{"Id": "ingest_new_nova",
                   "Arn": {"Ref": "IngestNewNovaStateMachine"},
                   "RoleArn": {"Fn::GetAtt": ["RouteInitializeNovaIngestNewNovaRole", "Arn"]},
                   "InputPath": "$.detail",
                   "RetryPolicy": {"MaximumRetryAttempts": 185,
                                   "MaximumEventAgeInSeconds": 86400},
                   "DeadLetterConfig": {"Arn": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}}]}})"));
  const Json& role = r["RouteInitializeNovaIngestNewNovaRole"]["Properties"];
  EXPECT_EQ(role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"],
            Json::parse(R"({"Service": "events.amazonaws.com"})"));
  EXPECT_EQ(role["Policies"][0]["PolicyDocument"]["Statement"], Json::parse(R"([
    {"Effect": "Allow", "Action": "states:StartExecution",
     "Resource": {"Ref": "IngestNewNovaStateMachine"}}])"));
}

// Every rule and schedule of the stack retries for 24 hours and then puts
// what it could not deliver into one queue, kept 14 days and watched by an
// alarm; the queue's policy lets exactly the stack's rules send to it (a
// schedule sends with its role, PerNovaSchedule and Schedule).
TEST(StackEmitterTest, UndeliveredEventsGoToOneQueue) {
  Json stack = Stack(Load(kSeeds));
  const Json& r = stack["Resources"];
  EXPECT_EQ(r["NovaCatUndeliveredEvents"], Json::parse(R"({
    "Type": "AWS::SQS::Queue",
    "Properties": {"MessageRetentionPeriod": 1209600,
                   "SqsManagedSseEnabled": true}})"));
  EXPECT_EQ(r["NovaCatUndeliveredEventsPolicy"], Json::parse(R"({
    "Type": "AWS::SQS::QueuePolicy",
    "Properties": {
      "Queues": [{"Ref": "NovaCatUndeliveredEvents"}],
      "PolicyDocument": {"Version": "2012-10-17", "Statement": [{
        "Effect": "Allow",
        "Principal": {"Service": "events.amazonaws.com"},
        "Action": "sqs:SendMessage",
        "Resource": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]},
        "Condition": {"ArnEquals": {"aws:SourceArn": [
          {"Fn::GetAtt": ["DiscoverSpectraProductsScheduleRoute", "Arn"]},
          {"Fn::GetAtt": ["DiscoverSpectraProductsReaper", "Arn"]},
          {"Fn::GetAtt": ["IngestNewNovaReaper", "Arn"]},
          {"Fn::GetAtt": ["InitializeNovaReaper", "Arn"]},
          {"Fn::GetAtt": ["RefreshReferencesScheduleRoute", "Arn"]},
          {"Fn::GetAtt": ["RefreshReferencesReaper", "Arn"]},
          {"Fn::GetAtt": ["RouteIngestNewNovaRefreshReferences", "Arn"]},
          {"Fn::GetAtt": ["RouteIngestNewNovaDiscoverSpectraProducts", "Arn"]},
          {"Fn::GetAtt": ["RouteInitializeNovaIngestNewNova", "Arn"]}]}}}]}}})"));
  EXPECT_EQ(r["NovaCatUndeliveredEventsAlarm"], Json::parse(R"({
    "Type": "AWS::CloudWatch::Alarm",
    "Properties": {
      "AlarmDescription": "An event or a scheduled invocation could not be delivered; it is kept in the NovaCatUndeliveredEvents queue.",
      "Namespace": "AWS/SQS",
      "MetricName": "ApproximateNumberOfMessagesVisible",
      "Dimensions": [{"Name": "QueueName",
                      "Value": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "QueueName"]}}],
      "Statistic": "Maximum", "Period": 300, "EvaluationPeriods": 1,
      "Threshold": 1, "ComparisonOperator": "GreaterThanOrEqualToThreshold",
      "TreatMissingData": "notBreaching",
      "AlarmActions": {"Fn::If": ["NotifyAlarms", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]},
      "OKActions": {"Fn::If": ["NotifyAlarms", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}}})"));
  EXPECT_EQ(stack["Outputs"]["NovaCatUndeliveredEventsUrl"]["Value"],
            Json::parse(R"({"Ref": "NovaCatUndeliveredEvents"})"));
  // Every target of every rule and schedule has both.
  const Json delivered = Json::parse(R"({
    "RetryPolicy": {"MaximumRetryAttempts": 185, "MaximumEventAgeInSeconds": 86400},
    "DeadLetterConfig": {"Arn": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}})");
  int targets = 0;
  for (const auto& [id, resource] : r.items()) {
    std::vector<Json> of;
    if (resource["Type"] == "AWS::Events::Rule")
      for (const auto& t : resource["Properties"]["Targets"]) of.push_back(t);
    if (resource["Type"] == "AWS::Scheduler::Schedule")
      of.push_back(resource["Properties"]["Target"]);
    for (const auto& t : of) {
      ++targets;
      EXPECT_EQ(t["RetryPolicy"], delivered["RetryPolicy"]) << id;
      EXPECT_EQ(t["DeadLetterConfig"], delivered["DeadLetterConfig"]) << id;
    }
  }
  EXPECT_EQ(targets, 11);  // 5 rules, 4 reapers, 2 schedules
}

// What the dead-letter queue refuses is lost: each sender's count of those
// is alarmed, with the dimensions its service publishes it under (a rule
// on our bus, the rule on the default bus, the schedules' group, a
// per-nova function's asynchronous invocation).
TEST(StackEmitterTest, DeadLettersTheQueueRefusesAreAlarmed) {
  Json r = Stack(Load(
      {"specs/discover_spectra_products.yaml",
       "specs/download_and_validate_spectra.yaml", "specs/ingest_new_nova.yaml",
       "specs/ingest_photometry_dataset.yaml", "specs/initialize_nova.yaml",
       "specs/refresh_references.yaml"}))["Resources"];
  const std::string actions = R"(
      "AlarmActions": {"Fn::If": ["NotifyAlarms", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]},
      "OKActions": {"Fn::If": ["NotifyAlarms", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}}})";
  const std::string first_occurrence = R"(
      "Statistic": "Sum", "Period": 300, "EvaluationPeriods": 1,
      "Threshold": 1, "ComparisonOperator": "GreaterThanOrEqualToThreshold",
      "TreatMissingData": "notBreaching",)";
  EXPECT_EQ(r["RouteInitializeNovaIngestNewNovaDeadLetterAlarm"],
            Json::parse(R"({
    "Type": "AWS::CloudWatch::Alarm",
    "Properties": {
      "AlarmDescription": "RouteInitializeNovaIngestNewNova: an event the rule could not deliver could not be kept in the NovaCatUndeliveredEvents queue either; it is lost.",
      "Namespace": "AWS/Events",
      "MetricName": "InvocationsFailedToBeSentToDlq",
      "Dimensions": [
        {"Name": "EventBusName", "Value": {"Fn::GetAtt": ["NovaCatEventBus", "Name"]}},
        {"Name": "RuleName", "Value": {"Fn::Select": [2, {"Fn::Split": ["/",
          {"Fn::GetAtt": ["RouteInitializeNovaIngestNewNova", "Arn"]}]}]}}],)" +
                        first_occurrence + actions));
  EXPECT_EQ(r["IngestPhotometryDatasetObjectCreatedDeadLetterAlarm"],
            Json::parse(R"({
    "Type": "AWS::CloudWatch::Alarm",
    "Properties": {
      "AlarmDescription": "IngestPhotometryDatasetObjectCreated: an event the rule could not deliver could not be kept in the NovaCatUndeliveredEvents queue either; it is lost.",
      "Namespace": "AWS/Events",
      "MetricName": "InvocationsFailedToBeSentToDlq",
      "Dimensions": [
        {"Name": "RuleName", "Value": {"Fn::Select": [1, {"Fn::Split": ["/",
          {"Fn::GetAtt": ["IngestPhotometryDatasetObjectCreated", "Arn"]}]}]}}],)" +
                        first_occurrence + actions));
  EXPECT_EQ(r["NovaCatSchedules"],
            Json::parse(R"({"Type": "AWS::Scheduler::ScheduleGroup"})"));
  EXPECT_EQ(r["NovaCatSchedulesDeadLetterAlarm"],
            Json::parse(R"({
    "Type": "AWS::CloudWatch::Alarm",
    "Properties": {
      "AlarmDescription": "A schedule's failed invocation could not be kept in the NovaCatUndeliveredEvents queue; it is lost.",
      "Namespace": "AWS/Scheduler",
      "MetricName": "InvocationsFailedToBeSentToDeadLetterCount",
      "Dimensions": [{"Name": "ScheduleGroup", "Value": {"Ref": "NovaCatSchedules"}}],)" +
                        first_occurrence + actions));
  EXPECT_EQ(r["RefreshReferencesFunctionDeadLetterAlarm"],
            Json::parse(R"({
    "Type": "AWS::CloudWatch::Alarm",
    "Properties": {
      "AlarmDescription": "RefreshReferencesFunction: the record of a failed asynchronous invocation could not be kept in the NovaCatUndeliveredEvents queue; it is lost.",
      "Namespace": "AWS/Lambda",
      "MetricName": "DestinationDeliveryFailures",
      "Dimensions": [{"Name": "FunctionName", "Value": {"Ref": "RefreshReferencesFunction"}}],)" +
                        first_occurrence + actions));
  // Every rule, the group and every function invoked asynchronously have
  // one, and nothing else does; every schedule is in the group.
  std::vector<std::string> senders, alarmed;
  for (const auto& [id, resource] : r.items()) {
    const Json& type = resource["Type"];
    if (type == "AWS::Events::Rule" || type == "AWS::Scheduler::ScheduleGroup")
      senders.push_back(id);
    if (type == "AWS::Lambda::EventInvokeConfig")
      senders.push_back(resource["Properties"]["FunctionName"]["Ref"]);
    const std::string suffix = "DeadLetterAlarm";
    if (id.size() > suffix.size() &&
        id.compare(id.size() - suffix.size(), suffix.size(), suffix) == 0)
      alarmed.push_back(id.substr(0, id.size() - suffix.size()));
    if (type == "AWS::Scheduler::Schedule") {
      EXPECT_EQ(resource["Properties"]["GroupName"],
                Json::parse(R"({"Ref": "NovaCatSchedules"})"))
          << id;
    }
  }
  EXPECT_EQ(senders.size(), 18u);  // 7 rules, 6 reapers, the group, 4 functions
  EXPECT_EQ(alarmed, senders);
}

// Each workflow's reaper (store/reaper.h): Step Functions' status changes
// of its state machine's executions that ended without finishing their run
// go to its own function, which EventBridge may invoke from that rule
// alone. A lone workflow without schedules or routes: its reaper is its
// one rule, so it has the dead-letter queue too, and no schedule group.
TEST(StackEmitterTest, EachWorkflowsReaperInvokesItsFunction) {
  Json r = Stack(Load({"specs/initialize_nova.yaml"}))["Resources"];
  const Json delivered = Json::parse(R"({
    "RetryPolicy": {"MaximumRetryAttempts": 185, "MaximumEventAgeInSeconds": 86400},
    "DeadLetterConfig": {"Arn": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}})");
  Json target = {
      {"Id", "reaper"},
      {"Arn",
       Json::parse(R"({"Fn::GetAtt": ["InitializeNovaFunction", "Arn"]})")}};
  target.update(delivered);
  EXPECT_EQ(
      r["InitializeNovaReaper"],
      Json(
          {{"Type", "AWS::Events::Rule"},
           {"Properties",
            {{"Description",
              "initialize_nova's executions stopped, timed out or failed "
              "outside "
              "its catch: its function finalizes the run and releases its lock "
              "and leases."},
             {"EventPattern", Json::parse(R"({
          "source": ["aws.states"],
          "detail-type": ["Step Functions Execution Status Change"],
          "detail": {"status": ["ABORTED", "TIMED_OUT", "FAILED"],
                     "stateMachineArn": [{"Ref": "InitializeNovaStateMachine"}]}})")},
             {"State", "ENABLED"},
             {"Targets", Json::array({target})}}}}));
  EXPECT_EQ(r["InitializeNovaReaperPermission"], Json::parse(R"({
    "Type": "AWS::Lambda::Permission",
    "Properties": {"Action": "lambda:InvokeFunction",
                   "FunctionName": {"Ref": "InitializeNovaFunction"},
                   "Principal": "events.amazonaws.com",
                   "SourceArn": {"Fn::GetAtt": ["InitializeNovaReaper", "Arn"]}}})"));
  EXPECT_FALSE(r.contains("NovaCatSchedules"));
  std::vector<std::string> ids;
  for (const auto& [id, resource] : r.items()) ids.push_back(id);
  EXPECT_EQ(
      ids,
      (std::vector<std::string>{
          "NovaCatTable", "NovaCatEventBus", "InitializeNovaFunction",
          "InitializeNovaFunctionRole", "InitializeNovaFunctionLogGroup",
          "InitializeNovaFunctionLogsPolicy",
          "InitializeNovaFunctionTnsSecretPolicy", "InitializeNovaStateMachine",
          "InitializeNovaStateMachineRole",
          "InitializeNovaStateMachineLogGroup",
          "InitializeNovaFailedExecutionsAlarm", "InitializeNovaReaper",
          "InitializeNovaReaperPermission", "NovaCatUndeliveredEvents",
          "NovaCatUndeliveredEventsPolicy", "NovaCatUndeliveredEventsAlarm",
          "InitializeNovaReaperDeadLetterAlarm"}));
}

TEST(StackEmitterTest, DefinitionIsTheGeneratedAsl) {
  auto specs = Load(kSeeds);
  Json stack = Stack(specs);
  for (const auto& spec : specs) ExpectDefinition(stack, *spec);
}

// The hostile title holds "${AWS::Region}", "${!x}" and the function's own
// placeholder "${HostileTextFunctionArn}": all three stay text.
TEST(StackEmitterTest, HostileTextIsEscaped) {
  auto specs = Load({"tests/hostile/specs/hostile_text.yaml"});
  ASSERT_EQ(specs.size(), 1u);
  Json stack = Stack(specs);
  const std::string text =
      stack["Resources"]["HostileTextStateMachine"]["Properties"]
           ["DefinitionString"]["Fn::Sub"][0];
  EXPECT_NE(text.find("${!AWS::Region} ${!!x} ${!HostileTextFunctionArn}"),
            std::string::npos);
  EXPECT_NE(text.find("\"FunctionName\": \"${HostileTextFunctionArn}\""),
            std::string::npos);
  ExpectDefinition(stack, *specs[0]);
  EXPECT_EQ(EscapeForFnSub("a ${b} $ {c} ${!d} $${e}"),
            "a ${!b} $ {c} ${!!d} $${!e}");
  EXPECT_EQ(EscapeForFnSub("${${x${"), "${!${!x${!");
  EXPECT_EQ(EscapeForFnSub("no sub $"), "no sub $");
  EXPECT_EQ(EscapeForFnSub(""), "");
}

TEST(StackEmitterTest, Schedule) {
  const std::string path = "specs/refresh_references.yaml";
  std::ifstream in(path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();
  // The seed's per-nova schedule becomes two fixed-input ones.
  const std::string trigger =
      "  - kind: scheduled\n    description: Scheduled refresh "
      "(time-bucketed).\n";
  const std::string per_nova =
      "    schedule: {expression: rate(1 day), for_each: nova}\n";
  ASSERT_NE(text.find(trigger), std::string::npos);
  ASSERT_NE(text.find(per_nova), std::string::npos);
  text.erase(text.find(per_nova), per_nova.size());
  text.replace(text.find(trigger), trigger.size(),
               trigger +
                   "    schedule:\n      expression: cron(0 3 ? * MON-FRI *)\n"
                   "      input: {nova_id: "
                   "\"4f9d3c1e-0b7a-4c55-9a57-2f0e7f6c1a2b\"}\n" +
                   trigger +
                   "    schedule: {expression: rate(1 day), input: "
                   "{nova_id: \"4f9d3c1e-0b7a-4c55-9a57-2f0e7f6c1a2b\"}}\n");
  FileReader disk = DiskFileReader();
  auto specs = Load({path}, [&](const std::string& p) {
    return p == path ? std::optional<std::string>(text) : disk(p);
  });
  ASSERT_EQ(specs.size(), 1u);
  Json r = Stack(specs)["Resources"];
  EXPECT_EQ(r["RefreshReferencesSchedule"], Json::parse(R"J({
    "Type": "AWS::Scheduler::Schedule",
    "Properties": {
      "Description": "Starts refresh_references (cron(0 3 ? * MON-FRI *)).",
      "GroupName": {"Ref": "NovaCatSchedules"},
      "ScheduleExpression": "cron(0 3 ? * MON-FRI *)",
      "FlexibleTimeWindow": {"Mode": "OFF"},
      "Target": {"Arn": {"Ref": "RefreshReferencesStateMachine"},
                 "RoleArn": {"Fn::GetAtt": ["RefreshReferencesScheduleRole", "Arn"]},
                 "Input": "{\"nova_id\":\"4f9d3c1e-0b7a-4c55-9a57-2f0e7f6c1a2b\"}",
                 "RetryPolicy": {"MaximumRetryAttempts": 185,
                                 "MaximumEventAgeInSeconds": 86400},
                 "DeadLetterConfig": {"Arn": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}}}})J"));
  EXPECT_EQ(r["RefreshReferencesSchedule2"]["Properties"]["ScheduleExpression"],
            "rate(1 day)");
  for (const char* id :
       {"RefreshReferencesScheduleRole", "RefreshReferencesSchedule2Role"}) {
    const Json& role = r[id]["Properties"];
    EXPECT_EQ(role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"],
              Json::parse(R"({"Service": "scheduler.amazonaws.com"})"));
    EXPECT_EQ(role["Policies"][0]["PolicyDocument"]["Statement"],
              Json::parse(R"([
      {"Effect": "Allow", "Action": "states:StartExecution",
       "Resource": {"Ref": "RefreshReferencesStateMachine"}},
      {"Effect": "Allow", "Action": "sqs:SendMessage",
       "Resource": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}])"));
  }
  // Fixed inputs start the state machine: no per-nova route.
  EXPECT_FALSE(r.contains("RefreshReferencesScheduleRoute"));
}

// The seeds' `for_each: nova` schedules: the schedule invokes the function
// with the sweep payload, and a rule takes the input events it publishes
// to the state machine.
TEST(StackEmitterTest, PerNovaSchedule) {
  Json r = Stack(Load(kSeeds))["Resources"];
  EXPECT_EQ(r["RefreshReferencesSchedule"], Json::parse(R"J({
    "Type": "AWS::Scheduler::Schedule",
    "Properties": {
      "Description": "Starts refresh_references once per nova (rate(1 day)).",
      "GroupName": {"Ref": "NovaCatSchedules"},
      "ScheduleExpression": "rate(1 day)",
      "FlexibleTimeWindow": {"Mode": "OFF"},
      "Target": {"Arn": {"Fn::GetAtt": ["RefreshReferencesFunction", "Arn"]},
                 "RoleArn": {"Fn::GetAtt": ["RefreshReferencesScheduleRole", "Arn"]},
                 "Input": "{\"for_each\":\"nova\",\"input\":{}}",
                 "RetryPolicy": {"MaximumRetryAttempts": 185,
                                 "MaximumEventAgeInSeconds": 86400},
                 "DeadLetterConfig": {"Arn": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}}}})J"));
  const Json& role = r["RefreshReferencesScheduleRole"]["Properties"];
  EXPECT_EQ(role["AssumeRolePolicyDocument"]["Statement"][0]["Principal"],
            Json::parse(R"({"Service": "scheduler.amazonaws.com"})"));
  EXPECT_EQ(role["Policies"][0]["PolicyDocument"]["Statement"], Json::parse(R"([
      {"Effect": "Allow", "Action": "lambda:InvokeFunction",
       "Resource": {"Fn::GetAtt": ["RefreshReferencesFunction", "Arn"]}},
      {"Effect": "Allow", "Action": "sqs:SendMessage",
       "Resource": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}])"));
  // The schedule invokes the function asynchronously: a sweep Lambda gave
  // up on (two retries, six hours) goes to the dead-letter queue, sent with
  // the function's role, which Lambda checks when the config is written:
  // the config waits for the role.
  EXPECT_EQ(r["RefreshReferencesFunctionInvokeConfig"], Json::parse(R"({
    "Type": "AWS::Lambda::EventInvokeConfig",
    "DependsOn": ["RefreshReferencesFunctionRole"],
    "Properties": {
      "FunctionName": {"Ref": "RefreshReferencesFunction"},
      "Qualifier": "$LATEST",
      "MaximumRetryAttempts": 2,
      "MaximumEventAgeInSeconds": 21600,
      "DestinationConfig": {"OnFailure": {"Destination":
        {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}}}})"));
  EXPECT_EQ(r["RefreshReferencesFunctionRole"]["Properties"]["Policies"][0]
             ["PolicyDocument"]["Statement"]
                 .back(),
            Json::parse(R"({"Effect": "Allow", "Action": "sqs:SendMessage",
       "Resource": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}})"));
  EXPECT_EQ(r["RefreshReferencesScheduleRoute"], Json::parse(R"J({
    "Type": "AWS::Events::Rule",
    "Properties": {
      "Description": "refresh_references's per-nova schedule: each refresh_references event it publishes starts refresh_references.",
      "EventBusName": {"Fn::GetAtt": ["NovaCatEventBus", "Name"]},
      "EventPattern": {"source": ["refresh_references"],
                       "detail-type": ["refresh_references"]},
      "State": "ENABLED",
      "Targets": [{"Id": "refresh_references",
                   "Arn": {"Ref": "RefreshReferencesStateMachine"},
                   "RoleArn": {"Fn::GetAtt": ["RefreshReferencesScheduleRouteRole", "Arn"]},
                   "InputPath": "$.detail",
                   "RetryPolicy": {"MaximumRetryAttempts": 185,
                                   "MaximumEventAgeInSeconds": 86400},
                   "DeadLetterConfig": {"Arn": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}}]}})J"));
  EXPECT_EQ(r["RefreshReferencesScheduleRouteRole"]["Properties"]["Policies"][0]
             ["PolicyDocument"]["Statement"],
            Json::parse(R"([
      {"Effect": "Allow", "Action": "states:StartExecution",
       "Resource": {"Ref": "RefreshReferencesStateMachine"}}])"));
  EXPECT_EQ(
      r["DiscoverSpectraProductsScheduleRoute"]["Properties"]["EventPattern"],
      Json::parse(R"({"source": ["discover_spectra_products"],
                           "detail-type": ["DiscoverSpectraProducts"]})"));
}

// A workflow with `object_store`: the catalog's bucket (private,
// encrypted, versioned, its events on EventBridge), NOVACAT_BUCKET and the
// object actions on its objects only; the seeds without it have neither
// (ResourcesOfTheSeeds lists every resource).
TEST(StackEmitterTest, ObjectStoreBucketAndPermissions) {
  Json stack = Stack(Load({"specs/download_and_validate_spectra.yaml",
                           "specs/refresh_references.yaml"}));
  const Json& r = stack["Resources"];
  EXPECT_EQ(r["NovaCatCatalogBucket"], Json::parse(R"J({
    "Type": "AWS::S3::Bucket",
    "DeletionPolicy": "Retain",
    "UpdateReplacePolicy": "Retain",
    "Properties": {
      "BucketEncryption": {"ServerSideEncryptionConfiguration": [
        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]},
      "PublicAccessBlockConfiguration": {
        "BlockPublicAcls": true, "BlockPublicPolicy": true,
        "IgnorePublicAcls": true, "RestrictPublicBuckets": true},
      "VersioningConfiguration": {"Status": "Enabled"},
      "NotificationConfiguration": {
        "EventBridgeConfiguration": {"EventBridgeEnabled": true}}}})J"));
  EXPECT_EQ(stack["Outputs"]["NovaCatCatalogBucketName"]["Value"],
            Json::parse(R"({"Ref": "NovaCatCatalogBucket"})"));
  EXPECT_EQ(r["DownloadAndValidateSpectraFunction"]["Properties"]["Environment"]
             ["Variables"]["NOVACAT_BUCKET"],
            Json::parse(R"({"Ref": "NovaCatCatalogBucket"})"));
  const Json& policy =
      r["DownloadAndValidateSpectraFunctionRole"]["Properties"]["Policies"][0];
  EXPECT_EQ(policy["PolicyName"], "TableEventsAndObjects");
  // The objects' statement, then the per-nova schedule's dead-letter queue.
  EXPECT_EQ(policy["PolicyDocument"]["Statement"].size(), 4u);
  EXPECT_EQ(policy["PolicyDocument"]["Statement"][2], Json::parse(R"({
    "Effect": "Allow", "Action": ["s3:GetObject", "s3:PutObject"],
    "Resource": {"Fn::Sub": "${NovaCatCatalogBucket.Arn}/*"}})"));
  EXPECT_FALSE(
      r["RefreshReferencesFunction"]["Properties"]["Environment"]["Variables"]
          .contains("NOVACAT_BUCKET"));
  EXPECT_EQ(r["RefreshReferencesFunctionRole"]["Properties"]["Policies"][0]
             ["PolicyName"],
            "TableAndEvents");
  EXPECT_FALSE(
      Stack(Load(kSeeds))["Resources"].contains("NovaCatCatalogBucket"));
}

// An `object_created` trigger: a rule on the default bus (no
// EventBusName: S3 sends its events nowhere else) for the bucket's Object
// Created events under the prefix, starting the state machine with the
// input event built by an InputTransformer, and a role that may start only
// that state machine.
TEST(StackEmitterTest, ObjectCreatedRuleStartsTheStateMachine) {
  Json r = Stack(Load({"specs/ingest_photometry_dataset.yaml"}))["Resources"];
  EXPECT_EQ(r["IngestPhotometryDatasetObjectCreated"], Json::parse(R"J({
    "Type": "AWS::Events::Rule",
    "Properties": {
      "Description": "Objects created under photometry/ in the catalog's bucket start ingest_photometry_dataset.",
      "EventPattern": {
        "source": ["aws.s3"],
        "detail-type": ["Object Created"],
        "detail": {
          "bucket": {"name": [{"Ref": "NovaCatCatalogBucket"}]},
          "object": {"key": [{"prefix": "photometry/"}]}}},
      "State": "ENABLED",
      "Targets": [{
        "Id": "ingest_photometry_dataset",
        "Arn": {"Ref": "IngestPhotometryDatasetStateMachine"},
        "RoleArn": {"Fn::GetAtt": ["IngestPhotometryDatasetObjectCreatedRole", "Arn"]},
        "InputTransformer": {
          "InputPathsMap": {
            "bucket": "$.detail.bucket.name",
            "key": "$.detail.object.key",
            "etag": "$.detail.object.etag",
            "size": "$.detail.object.size"},
          "InputTemplate": "{\"bucket\": <bucket>, \"key\": <key>, \"etag\": <etag>, \"byte_length\": <size>}"},
        "RetryPolicy": {"MaximumRetryAttempts": 185,
                        "MaximumEventAgeInSeconds": 86400},
        "DeadLetterConfig": {"Arn": {"Fn::GetAtt": ["NovaCatUndeliveredEvents", "Arn"]}}}]}})J"));
  EXPECT_EQ(r["IngestPhotometryDatasetObjectCreatedRole"]["Properties"]
             ["Policies"][0]["PolicyDocument"]["Statement"],
            Json::parse(R"([
      {"Effect": "Allow", "Action": "states:StartExecution",
       "Resource": {"Ref": "IngestPhotometryDatasetStateMachine"}}])"));
  EXPECT_EQ(r["IngestPhotometryDatasetObjectCreatedRole"]["Properties"]
             ["AssumeRolePolicyDocument"]["Statement"][0]["Principal"],
            Json::parse(R"({"Service": "events.amazonaws.com"})"));
  EXPECT_TRUE(r.contains("NovaCatCatalogBucket"));
}

// The secrets the specs name (the governance's `secrets`): one parameter
// each, <Id>SecretArn, a secret's ARN or "" (the default: not configured),
// and a condition that it is given; the function of each spec that names
// it gets its variable, set to the ARN, and a policy reading exactly that
// secret, both only when it is given. A function whose spec names no
// secret gets neither; a stack whose specs name none has no parameter.
TEST(StackEmitterTest, SecretsReachOnlyTheFunctionsThatReadThem) {
  Json stack = Stack(Load(kSeeds));
  const Json& r = stack["Resources"];
  const std::string pattern =
      "^(arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:[0-9]{12}:secret:.+)?$";
  EXPECT_EQ(stack["Parameters"]["TnsSecretArn"], Json::parse(R"({
    "Type": "String",
    "Default": "",
    "Description": "ARN of the Secrets Manager secret tns, which initialize_nova reads (NOVACAT_TNS_SECRET). The TNS bot's credentials (name resolution of new transients), JSON {\"api_key\": \"...\", \"bot_id\": \"...\", \"bot_name\": \"...\"}. Empty: not configured (the client that needs it is skipped).",
    "AllowedPattern": ")" + pattern + R"(",
    "ConstraintDescription": "the ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>), or empty"})"));
  EXPECT_EQ(stack["Parameters"]["AdsSecretArn"]["Description"],
            "ARN of the Secrets Manager secret ads, which refresh_references "
            "reads (NOVACAT_ADS_SECRET). The NASA ADS API token (references), "
            "JSON {\"token\": \"...\"} or the token alone. Empty: not "
            "configured (the client that needs it is skipped).");
  // What the pattern lets through: an ARN (any partition) or nothing, not
  // a secret's name (the policy's Resource must be an ARN).
  const std::regex arn(pattern);
  EXPECT_TRUE(std::regex_match("", arn));
  EXPECT_TRUE(std::regex_match(
      "arn:aws:secretsmanager:eu-west-1:123456789012:secret:novacat/tns-AbCdEf",
      arn));
  EXPECT_TRUE(std::regex_match(
      "arn:aws-us-gov:secretsmanager:us-gov-west-1:123456789012:secret:t-1",
      arn));
  EXPECT_FALSE(std::regex_match("novacat/tns", arn));
  EXPECT_FALSE(std::regex_match(
      "arn:aws:ssm:eu-west-1:123456789012:parameter/novacat/tns", arn));

  EXPECT_EQ(r["RefreshReferencesFunction"]["Properties"]["Environment"]
             ["Variables"]["NOVACAT_ADS_SECRET"],
            Json::parse(R"({"Fn::If": ["AdsSecretGiven",
              {"Ref": "AdsSecretArn"}, {"Ref": "AWS::NoValue"}]})"));
  EXPECT_EQ(r["RefreshReferencesFunctionAdsSecretPolicy"], Json::parse(R"({
    "Type": "AWS::IAM::Policy",
    "Condition": "AdsSecretGiven",
    "Properties": {
      "PolicyName": "AdsSecret",
      "Roles": [{"Ref": "RefreshReferencesFunctionRole"}],
      "PolicyDocument": {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
         "Resource": {"Ref": "AdsSecretArn"}}]}}})"));
  // The function reads its own secret only.
  EXPECT_FALSE(
      r["RefreshReferencesFunction"]["Properties"]["Environment"]["Variables"]
          .contains("NOVACAT_TNS_SECRET"));
  EXPECT_FALSE(r.contains("RefreshReferencesFunctionTnsSecretPolicy"));
  EXPECT_FALSE(r.contains("InitializeNovaFunctionAdsSecretPolicy"));
  for (const char* p : {"DiscoverSpectraProducts", "IngestNewNova"}) {
    const Json& variables = r[std::string(p) + "Function"]["Properties"]
                             ["Environment"]["Variables"];
    std::vector<std::string> names;
    for (const auto& [name, value] : variables.items()) names.push_back(name);
    EXPECT_EQ(names, (std::vector<std::string>{"NOVACAT_TABLE_NAME",
                                               "NOVACAT_EVENT_BUS_NAME",
                                               "NOVACAT_WORKFLOW"}))
        << p;
  }
  // The stack reads secrets in exactly those two statements.
  const std::string text = r.dump();
  size_t reads = 0;
  for (size_t at = text.find("secretsmanager:"); at != std::string::npos;
       at = text.find("secretsmanager:", at + 1))
    ++reads;
  EXPECT_EQ(reads, 2u);

  // A stack of specs that name no secret.
  Json plain = Stack(Load({"specs/ingest_new_nova.yaml"}));
  std::vector<std::string> parameters;
  for (const auto& [id, p] : plain["Parameters"].items())
    parameters.push_back(id);
  EXPECT_EQ(parameters, (std::vector<std::string>{
                            "ArtifactBucket", "ArtifactKeyPrefix", "TableName",
                            "EventBusName", "AlarmTopicArn"}));
  std::vector<std::string> conditions;
  for (const auto& [id, c] : plain["Conditions"].items())
    conditions.push_back(id);
  EXPECT_EQ(conditions, std::vector<std::string>{"NotifyAlarms"});
  EXPECT_EQ(plain.dump().find("Secret"), std::string::npos);

  // Two workflows reading one secret: one parameter, naming both, and a
  // policy for each function; a function reading two secrets gets both
  // variables in the spec's order.
  const std::string path = "specs/refresh_references.yaml";
  std::ifstream in(path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string refresh = buffer.str();
  ASSERT_NE(refresh.find("\nsecrets: [ads]\n"), std::string::npos);
  refresh.replace(refresh.find("\nsecrets: [ads]\n"), 16,
                  "\nsecrets: [ads, tns]\n");
  FileReader disk = DiskFileReader();
  Json both = Stack(
      Load({"specs/initialize_nova.yaml", path}, [&](const std::string& p) {
        return p == path ? std::optional<std::string>(refresh) : disk(p);
      }));
  EXPECT_EQ(both["Parameters"]["TnsSecretArn"]["Description"],
            "ARN of the Secrets Manager secret tns, which initialize_nova, "
            "refresh_references read (NOVACAT_TNS_SECRET). The TNS bot's "
            "credentials (name resolution of new transients), JSON "
            "{\"api_key\": \"...\", \"bot_id\": \"...\", \"bot_name\": "
            "\"...\"}. Empty: not configured (the client that needs it is "
            "skipped).");
  std::vector<std::string> names;
  for (const auto& [name, value] :
       both["Resources"]["RefreshReferencesFunction"]["Properties"]
           ["Environment"]["Variables"]
               .items())
    names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "NOVACAT_TABLE_NAME", "NOVACAT_EVENT_BUS_NAME",
                       "NOVACAT_WORKFLOW", "NOVACAT_ADS_SECRET",
                       "NOVACAT_TNS_SECRET"}));
  EXPECT_EQ(both["Resources"]["RefreshReferencesFunctionTnsSecretPolicy"],
            Json::parse(R"({
    "Type": "AWS::IAM::Policy",
    "Condition": "TnsSecretGiven",
    "Properties": {
      "PolicyName": "TnsSecret",
      "Roles": [{"Ref": "RefreshReferencesFunctionRole"}],
      "PolicyDocument": {"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
         "Resource": {"Ref": "TnsSecretArn"}}]}}})"));
  EXPECT_TRUE(
      both["Resources"].contains("InitializeNovaFunctionTnsSecretPolicy"));
}

}  // namespace
}  // namespace stack_emitter_test
}  // namespace novacat
