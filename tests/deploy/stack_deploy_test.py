#!/usr/bin/env python3
"""generated/stack.template.json deploys on moto server, and what it created
is checked through the AWS API.

    stack_deploy_test.py ZIP...        (ctest: stack_deploy)

ZIP... are the Lambda packages (<build>/lambda/<workflow>.zip). The moto
server is the aws_moto ctest fixture's (tests/moto_fixture.py): its endpoint
is line 1 of $NOVACAT_MOTO_STATE.

The deploy runs the commands a user runs (README, "Deploy"), with the `aws`
CLI: scripts/deploy.sh, and (the mutated stack) by hand, with a fixed
prefix where deploy.sh's names the zips' content:

    aws s3 mb s3://BUCKET
    aws s3 cp <build>/lambda/<w>.zip s3://BUCKET/<PREFIX><w>.zip   (each zip)
    aws cloudformation deploy --template-file generated/stack.template.json \\
        --stack-name STACK --s3-bucket BUCKET --s3-prefix <PREFIX>templates \\
        --parameter-overrides ArtifactBucket=BUCKET ArtifactKeyPrefix=PREFIX \\
        --capabilities CAPABILITY_IAM

`aws cloudformation package` is not needed: the template names the zips'
S3 location through its parameters, so `package` has nothing to upload.
`deploy --s3-bucket` uploads the template (127 KB, over the 51,200-byte
inline limit) and passes its URL.

Against moto the CLI gets AWS_ENDPOINT_URL=http://localhost:PORT rather
than --endpoint-url: `deploy` makes its S3 client without --endpoint-url
(awscli/customizations/cloudformation/deploy.py), and botocore's
AWS_ENDPOINT_URL reaches every client. "localhost" rather than 127.0.0.1
(the same server): `deploy` passes the template as
`<S3 endpoint>/<bucket>/<key>`, and moto's CloudFormation reads a
TemplateURL as path-style only when it contains "localhost"
(moto/cloudformation/utils.py get_stack_from_s3_url); with 127.0.0.1 it
takes "127" for the bucket and create-change-set fails with NoSuchBucket.

Then, through the API (boto3, region us-east-1, dummy credentials), each
check a function returning the problems it finds as (logical id, aspect,
message), so that one test can show every check fail on a mutated stack:
table, functions, state machines, rules (and whether their patterns match
on moto's own matcher), IAM statements. Expectations come from the specs,
the generated ASL and schemas, and the committed template's properties, never
from what was deployed.

What moto 5.2 cannot prove (each said where it matters below):
- AWS::CloudWatch::Alarm: moto's CloudFormation does not create it ("No
  Moto CloudFormation support"). The alarms' dimensions that name a
  deployed rule or function are resolved against what moto created (a
  rule's name taken from its ARN as the template does); the rest is the
  emitter's test and cfn-lint's. AWS::Scheduler::ScheduleGroup is not
  created either.
- AWS::SQS::QueuePolicy and AWS::Lambda::EventInvokeConfig: not created
  either; the dead-letter queue's policy (each rule of the stack may send
  to it) and a per-nova function's asynchronous invocation (failures to
  the queue) are checked by the emitter's test and cfn-lint. The queue,
  every target's DeadLetterConfig and RetryPolicy and the roles'
  sqs:SendMessage are checked here; that EventBridge puts an event it
  failed to deliver into the queue is not (moto never fails a delivery).
- Point-in-time recovery: moto's CloudFormation ignores
  PointInTimeRecoverySpecification (describe_continuous_backups says
  DISABLED); not checked.
- The state machines' LoggingConfiguration is ignored (level OFF); not
  checked.
- StateMachineType is ignored too (every state machine is STANDARD), so
  the type check cannot fail on moto (all four seeds are STANDARD).
- Fn::Sub's list form is rendered with Python's string.Template, which
  turns the ASL's "$$.Execution.Id" into "$.Execution.Id": the deployed
  definition must be the generated one exactly or exactly moto's rendering
  of it (moto_fn_sub); TemplateTest renders the template's definitions by
  CloudFormation's rules and compares them with the ASL byte for byte.
- events.test_event_pattern is not implemented (an empty answer): the
  patterns are compared exactly and then run on moto's own matcher, copied
  onto a scratch bus whose rules target SQS queues.
- EventBridge does not deliver to a Step Functions target: put_events of a
  routed event on the stack's bus fails with HTTP 500 (NotImplementedError
  in moto's Rule.send_to_targets), so no execution starts; the delivery
  test is skipped when moto's log shows exactly that, and checks the
  execution's input otherwise.
- A missing zip does not fail the stack: moto creates the function with no
  code (CodeSize 0, CodeSha256 "") where CloudFormation fails with
  NoSuchKey; the function check names the missing key.
- moto returns the inline policies of AWS::IAM::Role `Policies` as a Python
  repr (single quotes), not JSON; they are read with ast.literal_eval.
- A resource whose Condition is false (a secret's policy, <W>Function<Id>
  SecretPolicy, when its <Id>SecretArn is not given) breaks moto's stack
  update: moto updates it as if it had been created (AttributeError in
  iam/models.py update_from_cloudformation_json, HTTP 500) where
  CloudFormation leaves it alone. The stacks deployed twice (RedeployTest)
  are given the secrets; the stack without them (NoSecretsTest) is
  deployed once.
"""

import ast
import base64
import copy
import functools
import hashlib
import json
import os
import re
import shutil
import socket
import string
import subprocess
import sys
import tempfile
import time
import unittest
import uuid
import zipfile

import boto3
import botocore.config
import botocore.exceptions
import botocore.parsers
import jsonschema
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = os.path.join(ROOT, "generated", "stack.template.json")
DEPLOY_SCRIPT = os.path.join(ROOT, "scripts", "deploy.sh")
REGION = "us-east-1"
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
ZIPS = {}  # workflow -> path of its zip, from the command line
BUILD_DIR = None  # the build folder holding lambda/<workflow>.zip
# What an API call can raise; moto answers some failures of a stack's
# resource with that service's JSON error where XML is expected.
API_ERRORS = (botocore.exceptions.ClientError, botocore.exceptions.BotoCoreError,
              botocore.parsers.ResponseParserError)

# The table the store needs (dynamodb_access_patterns): PK/SK and three GSIs.
TABLE_KEYS = [{"AttributeName": "PK", "KeyType": "HASH"},
              {"AttributeName": "SK", "KeyType": "RANGE"}]
TABLE_GSIS = {
    "DatasetEligibilityIndex": ("GSI1PK", "GSI1SK"),
    "NameResolutionIndex": ("GSI2PK", "GSI2SK"),
    "S3ObjectIndex": ("GSI3PK", "GSI3SK"),
}
FUNCTION_TABLE_ACTIONS = ["dynamodb:GetItem", "dynamodb:PutItem",
                          "dynamodb:UpdateItem", "dynamodb:DeleteItem",
                          "dynamodb:Query"]
# The CloudWatch Logs delivery actions a state machine's logging needs; AWS
# supports no resource-level permission for them, so Resource "*" is the
# only possibility (the one * of the stack).
LOG_DELIVERY_ACTIONS = ["logs:CreateLogDelivery", "logs:GetLogDelivery",
                        "logs:UpdateLogDelivery", "logs:DeleteLogDelivery",
                        "logs:ListLogDeliveries", "logs:PutResourcePolicy",
                        "logs:DescribeResourcePolicies",
                        "logs:DescribeLogGroups"]


# ----------------------------------------------------------------- specs

# Every rule's and schedule's dead-letter queue, and the retry policy the
# template writes out (EventBridge's defaults).
UNDELIVERED = "NovaCatUndeliveredEvents"
TARGET_RETRY_POLICY = {"MaximumRetryAttempts": 185, "MaximumEventAgeInSeconds": 86400}


def delivery(d):
    """What every rule target holds besides its own fields: the retry
    policy and the dead-letter queue."""
    return {"RetryPolicy": TARGET_RETRY_POLICY,
            "DeadLetterConfig": {"Arn": d.arn(UNDELIVERED)}}


def pascal(workflow):
    return "".join(part[:1].upper() + part[1:] for part in workflow.split("_"))


def load_specs():
    """{workflow: spec} of specs/*.yaml: the workflows of the stack."""
    specs = {}
    folder = os.path.join(ROOT, "specs")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".yaml"):
            with open(os.path.join(folder, name)) as f:
                spec = yaml.safe_load(f)
            specs[spec["workflow"]] = spec
    return specs


def governance_secrets():
    """{id: {variable, description}}: the secrets the governance declares."""
    with open(os.path.join(ROOT, "specs", "shared", "governance.yaml")) as f:
        return yaml.safe_load(f).get("secrets") or {}


def function_secrets(spec, d):
    """[(variable, ARN)]: the secrets a spec names whose stack parameter
    (<Id>SecretArn) the deployment gives, in the spec's order. The function
    gets each variable set to the ARN and may read exactly that secret; a
    secret not given, neither."""
    declared = governance_secrets()
    return [(declared[id]["variable"], d.overrides[pascal(id) + "SecretArn"])
            for id in spec.get("secrets") or []
            if d.overrides.get(pascal(id) + "SecretArn")]


def published_events(spec):
    """The events a spec's PublishEvent steps publish, at any depth."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            if node.get("builtin") == "PublishEvent" and node.get("event"):
                if node["event"] not in found:
                    found.append(node["event"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec.get("states"))
    return found


def expected_routes(specs):
    """[(publisher, event, consumer, rule logical id)]: an event A publishes
    that C (not A) takes as its input event, Route<A><C>; then each workflow
    W with a `for_each: nova` schedule, whose function publishes W's input
    event per nova for W itself, <W>ScheduleRoute."""
    routes = []
    for a, spec in specs.items():
        for event in published_events(spec):
            for c, other in specs.items():
                if c != a and other.get("input") == event:
                    routes.append((a, event, c, "Route" + pascal(a) + pascal(c)))
    for w in per_nova_workflows(specs):
        routes.append((w, specs[w]["input"], w, pascal(w) + "ScheduleRoute"))
    return routes


def per_nova_workflows(specs):
    """The workflows with a `for_each: nova` schedule."""
    return [w for w, spec in specs.items()
            if any((t.get("schedule") or {}).get("for_each") == "nova"
                   for t in spec.get("triggers") or [])]


def route_id(route):
    return route[3]


def reaper_rules(specs):
    """[(workflow, rule logical id)]: <W>Reaper for each workflow (each keeps
    a JobRun), on the default bus where Step Functions sends its status
    changes."""
    return [(w, pascal(w) + "Reaper") for w in sorted(specs)]


def object_created_rules(specs):
    """[(workflow, prefix, rule logical id)]: one rule per `object_created`
    trigger, <W>ObjectCreated, <W>ObjectCreated2, ... on the default bus."""
    rules = []
    for w, spec in sorted(specs.items()):
        n = 0
        for t in spec.get("triggers") or []:
            if t.get("kind") != "object_created":
                continue
            n += 1
            rules.append((w, t["object_created"]["prefix"],
                          pascal(w) + "ObjectCreated" + ("" if n == 1 else str(n))))
    return rules


def object_created_input(spec):
    """What the rule's InputTransformer makes of S3's event: the input
    event's bucket, key, etag, and byte_length when it declares it."""
    fields = spec["events"][spec["input"]].get("fields", {})
    paths = {"bucket": "$.detail.bucket.name", "key": "$.detail.object.key",
             "etag": "$.detail.object.etag"}
    template = '{"bucket": <bucket>, "key": <key>, "etag": <etag>'
    if "byte_length" in fields:
        paths["size"] = "$.detail.object.size"
        template += ', "byte_length": <size>'
    return {"InputPathsMap": paths, "InputTemplate": template + "}"}


def sample_value(schema, name):
    if schema.get("format") == "uuid":
        return str(uuid.uuid5(uuid.NAMESPACE_URL, "novacat-deploy/" + name))
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind == "string":
        return "V1500 Cygni"
    if kind == "integer":
        return schema.get("minimum", 0)
    if kind == "number":
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    return {}


def sample_detail(event):
    """A valid `event` (its required fields), per its latest schema."""
    with open(os.path.join(ROOT, "generated", "schemas", "events", event,
                           "latest.json")) as f:
        schema = json.load(f)
    detail = {name: sample_value(schema["properties"][name], name)
              for name in schema.get("required", [])}
    jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.FormatChecker()).validate(detail)
    return detail


def publisher_entry(publisher, event, bus):
    """The entry a workflow's Lambda sends (runtime/src/aws/
    eventbridge_bus.cc): Source = the workflow, DetailType = the event,
    Detail = the event JSON."""
    return {"Source": publisher, "DetailType": event,
            "Detail": json.dumps(sample_detail(event)), "EventBusName": bus}


def first_difference(got, want, path="$"):
    """Where two JSON values first differ, or None."""
    if type(got) is not type(want):
        return f"{path}: deployed {json.dumps(got)[:200]}, expected {json.dumps(want)[:200]}"
    if isinstance(got, dict):
        if set(got) != set(want):
            return (f"{path}: keys only deployed {sorted(set(got) - set(want))}, "
                    f"only expected {sorted(set(want) - set(got))}")
        for key in sorted(got):
            found = first_difference(got[key], want[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(got, list):
        if len(got) != len(want):
            return f"{path}: {len(got)} items deployed, {len(want)} expected"
        for i, (g, w) in enumerate(zip(got, want)):
            found = first_difference(g, w, f"{path}[{i}]")
            if found:
                return found
        return None
    if got != want:
        return f"{path}: deployed {json.dumps(got)[:200]}, expected {json.dumps(want)[:200]}"
    return None


def policy_document(document):
    """A policy document as the API gives it: a dict (boto3 decodes JSON),
    or, for AWS::IAM::Role `Policies` created by moto's CloudFormation, the
    Python repr of one."""
    if isinstance(document, dict):
        return document
    try:
        return json.loads(document)
    except ValueError:
        return ast.literal_eval(document)


def canonical(statement):
    """A statement with Action/Resource as sorted lists, comparable."""
    out = {}
    for key, value in statement.items():
        if key in ("Action", "Resource", "NotAction", "NotResource"):
            value = sorted([value] if isinstance(value, str) else value)
        out[key] = value
    return json.dumps(out, sort_keys=True)


def render(problems):
    return "\n".join(f"  {logical} [{aspect}]: {message}"
                     for logical, aspect, message in problems)


# -------------------------------------------------------------- deployment

def moto_endpoint():
    state = os.environ.get("NOVACAT_MOTO_STATE")
    if not state:
        raise unittest.SkipTest("NOVACAT_MOTO_STATE is not set: run through "
                                "ctest (fixture aws_moto)")
    with open(state) as f:
        return f.readline().strip()


class Deployment:
    """One stack on moto: its names, the CLI and boto3 clients, what it
    created (logical id -> physical id)."""

    def __init__(self, endpoint, stack, bucket, prefix, template=TEMPLATE,
                 table=None, bus=None):
        self.endpoint = endpoint
        self.stack, self.bucket, self.prefix = stack, bucket, prefix
        self.template = template
        # Parameters left out take the template's defaults.
        self.overrides = {"ArtifactBucket": bucket, "ArtifactKeyPrefix": prefix}
        if table:
            self.overrides["TableName"] = table
        if bus:
            self.overrides["EventBusName"] = bus
        with open(TEMPLATE) as f:
            defaults = json.load(f)["Parameters"]
        self.table = table or defaults["TableName"]["Default"]
        self.bus = bus or defaults["EventBusName"]["Default"]
        self.cli_endpoint = endpoint.replace("127.0.0.1", "localhost")
        self.deploy_seconds = None
        self.deploy_output = ""
        self._clients = {}
        self.physical = {}

    def client(self, service, **config):
        key = (service, repr(sorted(config.items())))
        if key not in self._clients:
            self._clients[key] = boto3.client(
                service, endpoint_url=self.endpoint, region_name=REGION,
                config=botocore.config.Config(**config) if config else None,
                **CREDENTIALS)
        return self._clients[key]

    def cli_env(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("AWS_")}
        env.update(AWS_ENDPOINT_URL=self.cli_endpoint,
                   AWS_ACCESS_KEY_ID=CREDENTIALS["aws_access_key_id"],
                   AWS_SECRET_ACCESS_KEY=CREDENTIALS["aws_secret_access_key"],
                   AWS_DEFAULT_REGION=REGION, AWS_CONFIG_FILE=os.devnull,
                   AWS_SHARED_CREDENTIALS_FILE=os.devnull,
                   AWS_EC2_METADATA_DISABLED="true")
        return env

    def aws(self, *args):
        """Runs the `aws` CLI; returns (exit status, stdout + stderr)."""
        cli = shutil.which("aws")
        command = [cli] if cli else [sys.executable, "-m", "awscli"]
        done = subprocess.run(command + list(args), env=self.cli_env(),
                              stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=180)
        return done.returncode, done.stdout + done.stderr

    def aws_ok(self, *args):
        status, output = self.aws(*args)
        if status != 0:
            raise AssertionError(f"aws {' '.join(args)}: exit {status}\n{output}")
        return output

    def deploy(self):
        """`aws cloudformation deploy`; returns its exit status. The stack
        must then be CREATE_COMPLETE (assert_created)."""
        params = [f"{k}={v}" for k, v in self.overrides.items()]
        start = time.monotonic()
        status, self.deploy_output = self.aws(
            "cloudformation", "deploy", "--template-file", self.template,
            "--stack-name", self.stack, "--s3-bucket", self.bucket,
            "--s3-prefix", self.prefix + "templates",
            "--parameter-overrides", *params,
            "--capabilities", "CAPABILITY_IAM")
        self.deploy_seconds = time.monotonic() - start
        self.read_physical()
        return status

    def read_physical(self):
        """What the stack created: logical id -> physical id."""
        self.physical = {}
        cf = self.client("cloudformation")
        try:
            for page in cf.get_paginator("list_stack_resources").paginate(
                    StackName=self.stack):
                for r in page["StackResourceSummaries"]:
                    # moto lists the alarms it cannot create with no
                    # logical id.
                    if r.get("LogicalResourceId"):
                        self.physical[r["LogicalResourceId"]] = r.get(
                            "PhysicalResourceId", "")
        except API_ERRORS:
            pass  # no stack, or moto answering with another service's error

    def deploy_script(self, build_dir):
        """scripts/deploy.sh (the zips' upload and the same deploy); returns
        its exit status, like deploy()."""
        args = ["--bucket", self.bucket, "--stack-name", self.stack,
                "--prefix", self.prefix, "--build-dir", build_dir]
        if "TableName" in self.overrides:
            args += ["--table-name", self.overrides["TableName"]]
        if "EventBusName" in self.overrides:
            args += ["--event-bus-name", self.overrides["EventBusName"]]
        if "AlarmTopicArn" in self.overrides:
            args += ["--alarm-topic", self.overrides["AlarmTopicArn"]]
        for option, parameter in (("--tns-secret", "TnsSecretArn"),
                                  ("--ads-secret", "AdsSecretArn")):
            if parameter in self.overrides:
                args += [option, self.overrides[parameter]]
        start = time.monotonic()
        done = subprocess.run(["bash", DEPLOY_SCRIPT] + args, env=self.cli_env(),
                              stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=300)
        self.deploy_seconds = time.monotonic() - start
        self.deploy_output = done.stdout + done.stderr
        self.read_physical()
        return done.returncode

    def status(self):
        try:
            stack = self.client("cloudformation").describe_stacks(
                StackName=self.stack)["Stacks"][0]
        except API_ERRORS as e:
            return f"(no stack: {e})", None
        return stack["StackStatus"], stack.get("StackStatusReason")

    def explain_failure(self):
        """Why the stack is not CREATE_COMPLETE: the deploy's own output,
        then every stack event with its ResourceStatusReason."""
        status, reason = self.status()
        lines = [f"stack {self.stack}: {status}" + (f" ({reason})" if reason else ""),
                 "aws cloudformation deploy said:",
                 self.deploy_output.strip()]
        try:
            events = self.client("cloudformation").describe_stack_events(
                StackName=self.stack)["StackEvents"]
        except API_ERRORS as e:
            events = []
            lines.append(f"(no stack events: {e})")
        for e in reversed(events):
            lines.append(f"  {e.get('LogicalResourceId', '?')} "
                         f"{e.get('ResourceStatus', '?')}: "
                         f"{e.get('ResourceStatusReason', '')}")
        return "\n".join(lines)

    def assert_created(self, deploy_status):
        status, _ = self.status()
        if deploy_status != 0 or status != "CREATE_COMPLETE":
            raise AssertionError(self.explain_failure())

    def arn(self, logical):
        """The ARN of a resource the stack created."""
        physical = self.physical[logical]
        kind = self.resource_types()[logical]
        if kind == "AWS::Lambda::Function":
            return self.client("lambda").get_function_configuration(
                FunctionName=physical)["FunctionArn"]
        if kind == "AWS::IAM::Role":
            return self.client("iam").get_role(RoleName=physical)["Role"]["Arn"]
        if kind == "AWS::StepFunctions::StateMachine":
            return physical
        if kind == "AWS::DynamoDB::Table":
            return self.client("dynamodb").describe_table(
                TableName=physical)["Table"]["TableArn"]
        if kind == "AWS::SQS::Queue":
            return self.queue_attributes(logical)["QueueArn"]
        raise KeyError(kind)

    def queue_attributes(self, logical):
        """Every attribute of a queue the stack created (its physical id is
        the queue's URL or, on some versions of moto, its name)."""
        sqs = self.client("sqs")
        url = self.physical[logical]
        if not url.startswith("http"):
            url = sqs.get_queue_url(QueueName=url)["QueueUrl"]
        return sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["All"])["Attributes"]

    def artifact_key_prefix(self):
        """The deployed stack's ArtifactKeyPrefix (deploy.sh's names the
        zips' content)."""
        stack = self.client("cloudformation").describe_stacks(
            StackName=self.stack)["Stacks"][0]
        return {p["ParameterKey"]: p["ParameterValue"]
                for p in stack["Parameters"]}["ArtifactKeyPrefix"]

    def code_sha256(self):
        """Each deployed function's CodeSha256, by logical id."""
        lam = self.client("lambda")
        return {k: lam.get_function(FunctionName=v)["Configuration"]["CodeSha256"]
                for k, v in self.physical.items()
                if self.resource_types().get(k) == "AWS::Lambda::Function"}

    def bus_arn(self):
        return self.client("events").describe_event_bus(Name=self.bus)["Arn"]

    def resource_types(self):
        if not hasattr(self, "_types"):
            with open(self.template) as f:
                self._types = {k: v["Type"] for k, v in
                               json.load(f)["Resources"].items()}
        return self._types


# ------------------------------------------------------------------ checks

def table_problems(d):
    problems = []
    if d.physical.get("NovaCatTable") != d.table:
        problems.append(("NovaCatTable", "name",
                         f"the stack's table is {d.physical.get('NovaCatTable')!r}, "
                         f"the TableName parameter {d.table!r}"))
        return problems
    t = d.client("dynamodb").describe_table(TableName=d.table)["Table"]
    if t["KeySchema"] != TABLE_KEYS:
        problems.append(("NovaCatTable", "keys",
                         f"KeySchema {t['KeySchema']}, expected {TABLE_KEYS}"))
    got = {g["IndexName"]: (g["KeySchema"], g["Projection"])
           for g in t.get("GlobalSecondaryIndexes", [])}
    want = {name: ([{"AttributeName": pk, "KeyType": "HASH"},
                    {"AttributeName": sk, "KeyType": "RANGE"}],
                   {"ProjectionType": "ALL"})
            for name, (pk, sk) in TABLE_GSIS.items()}
    if got != want:
        problems.append(("NovaCatTable", "gsis",
                         f"GSIs {sorted(got)}, expected {sorted(want)}: "
                         f"{first_difference(got, want)}"))
    if t.get("LocalSecondaryIndexes"):
        problems.append(("NovaCatTable", "lsis",
                         f"unexpected LSIs {t['LocalSecondaryIndexes']}"))
    billing = t.get("BillingModeSummary", {}).get("BillingMode")
    if billing != "PAY_PER_REQUEST":
        problems.append(("NovaCatTable", "billing",
                         f"BillingMode {billing!r}, expected PAY_PER_REQUEST"))
    # Point-in-time recovery: moto's CloudFormation ignores
    # PointInTimeRecoverySpecification (describe_continuous_backups says
    # DISABLED for this table); cfn-lint and the emitter's tests cover it.
    return problems


CATALOG_BUCKET = "NovaCatCatalogBucket"


def zip_sha256(path):
    with open(path, "rb") as f:
        return base64.b64encode(hashlib.sha256(f.read()).digest()).decode()


def function_problems(d, specs):
    problems = []
    with open(TEMPLATE) as f:
        committed = json.load(f)["Resources"]
    lam, logs, s3 = d.client("lambda"), d.client("logs"), d.client("s3")
    functions = sorted(k for k, t in d.resource_types().items()
                       if t == "AWS::Lambda::Function" and k in d.physical)
    want_functions = sorted(pascal(w) + "Function" for w in specs)
    if functions != want_functions:
        problems.append(("(stack)", "functions",
                         f"functions {functions}, expected {want_functions}"))
    for w in specs:
        logical = pascal(w) + "Function"
        if logical not in d.physical:
            continue
        props = committed[logical]["Properties"]
        c = lam.get_function(FunctionName=d.physical[logical])["Configuration"]
        if c["Runtime"] != "provided.al2023":
            problems.append((logical, "runtime",
                             f"Runtime {c['Runtime']!r}, expected provided.al2023"))
        if (c["Handler"], c.get("Architectures")) != (w, ["x86_64"]):
            problems.append((logical, "handler",
                             f"Handler {c['Handler']!r} on {c.get('Architectures')}, "
                             f"expected {w!r} on ['x86_64']"))
        if c["Timeout"] != props["Timeout"] or c["MemorySize"] != props["MemorySize"]:
            problems.append((logical, "timeout",
                             f"Timeout {c['Timeout']} s / {c['MemorySize']} MB, the "
                             f"template says {props['Timeout']} s / {props['MemorySize']} MB"))
        want_sha = zip_sha256(ZIPS[w])
        if c["CodeSha256"] != want_sha:
            key = f"{d.artifact_key_prefix()}{w}.zip"
            try:
                s3.head_object(Bucket=d.bucket, Key=key)
                where = f"s3://{d.bucket}/{key} exists"
            except botocore.exceptions.ClientError as e:
                where = (f"s3://{d.bucket}/{key} is missing from the bucket "
                         f"({e.response['Error'].get('Code')})")
            problems.append((logical, "code",
                             f"CodeSha256 {c['CodeSha256']!r} (CodeSize "
                             f"{c['CodeSize']}) is not {ZIPS[w]}'s {want_sha}: {where}"))
        env = c.get("Environment", {}).get("Variables", {})
        want_env = {"NOVACAT_TABLE_NAME": d.table,
                    "NOVACAT_EVENT_BUS_NAME": d.bus, "NOVACAT_WORKFLOW": w}
        if specs[w].get("object_store"):
            want_env["NOVACAT_BUCKET"] = d.physical.get(CATALOG_BUCKET)
        want_env.update(function_secrets(specs[w], d))
        if env != want_env:
            problems.append((logical, "environment",
                             f"environment {env}, expected {want_env}"))
        role_arn = d.arn(logical + "Role")
        if c["Role"] != role_arn:
            problems.append((logical, "role",
                             f"role {c['Role']}, expected {role_arn}"))
        group = f"/aws/lambda/{c['FunctionName']}"
        groups = [g for g in logs.describe_log_groups(
            logGroupNamePrefix=group)["logGroups"] if g["logGroupName"] == group]
        if len(groups) != 1 or groups[0].get("retentionInDays") != 30:
            problems.append((logical, "logs",
                             f"log group {group}: {groups}, expected one kept 30 days"))
    return problems


def state_machine_problems(d, specs):
    problems = []
    sfn = d.client("stepfunctions")
    for w, spec in specs.items():
        p = pascal(w)
        logical = p + "StateMachine"
        if logical not in d.physical:
            problems.append((logical, "missing", "not created"))
            continue
        m = sfn.describe_state_machine(stateMachineArn=d.physical[logical])
        if m["type"] != spec["type"]:
            problems.append((logical, "type",
                             f"type {m['type']}, the spec says {spec['type']}"))
        role_arn = d.arn(logical + "Role")
        if m["roleArn"] != role_arn:
            problems.append((logical, "role",
                             f"role {m['roleArn']}, expected {role_arn}"))
        definition = m["definition"]
        left = sorted(set(re.findall(r"\$\{[^}]*\}?", definition)))
        if left:
            problems.append((logical, "placeholder",
                             f"the deployed definition still holds {left}"))
        function_arn = d.arn(p + "Function")
        with open(os.path.join(ROOT, "generated", w, "statemachine.asl.json")) as f:
            asl = f.read()
        placeholder = "${%sFunctionArn}" % p
        if placeholder not in asl:
            problems.append((logical, "asl",
                             f"generated/{w}/statemachine.asl.json has no {placeholder}"))
        want = json.loads(asl.replace(placeholder, function_arn))
        deployed = json.loads(definition)
        difference = first_difference(deployed, want)
        if difference:
            # moto renders the list form of Fn::Sub with Python's
            # string.Template, which also turns the ASL's "$$" (context
            # object paths, "$$.Execution.Id") into "$"; CloudFormation
            # does not (TemplateTest checks the template's own rendering).
            # Exactly moto's rendering is accepted; otherwise the difference
            # shown is against it, so it names the real fault.
            difference = first_difference(
                deployed, moto_fn_sub(asl, p + "FunctionArn", function_arn))
            if difference:
                difference += " (against moto's Fn::Sub rendering, $$ as $)"
        if difference:
            problems.append((logical, "definition",
                             f"not the generated ASL with {placeholder} = "
                             f"{function_arn}: {difference}"))
    return problems


def moto_fn_sub(text, name, value):
    """The definition moto 5.2's CloudFormation makes of
    {"Fn::Sub": [text, {name: value}]} (moto/cloudformation/parsing.py:
    string.Template(text).safe_substitute, then "${!" -> "${")."""
    rendered = string.Template(text).safe_substitute(**{name: value})
    return json.loads(rendered.replace("${!", "${"))


def cloudformation_fn_sub(text, variables):
    """Fn::Sub as CloudFormation documents it: "${Name}" is the variable
    (or, here, an error if not given), "${!" is a literal "${", nothing
    else is special."""
    def one(match):
        if match.group(1).startswith("!"):
            return "${" + match.group(1)[1:] + "}"
        return variables[match.group(1)]
    return re.sub(r"\$\{([^}]*)\}", one, text)


def matching_problems(d, routes, rules):
    """Each route rule's pattern, as moto stores it, on moto's own matcher
    (events.test_event_pattern is not implemented in moto 5.2): a scratch
    bus holds a copy of each rule targeting an SQS queue, every workflow
    publishes every routed event, and each queue must receive exactly the
    publisher's event. (The stack's own bus cannot be used: moto fails
    put_events when a matching rule targets a state machine.)"""
    problems = []
    events, sqs = d.client("events"), d.client("sqs")
    scratch = f"{d.stack}-patterns-{uuid.uuid4().hex[:8]}"
    events.create_event_bus(Name=scratch)
    queues = {}
    for route in routes:
        logical = route_id(route)
        if logical not in rules:
            continue
        name = f"{scratch}-{len(queues)}"
        url = sqs.create_queue(QueueName=name)["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.put_rule(Name=name, EventBusName=scratch,
                        EventPattern=rules[logical]["EventPattern"])
        events.put_targets(Rule=name, EventBusName=scratch,
                           Targets=[{"Id": "queue", "Arn": queue_arn}])
        queues[logical] = (route, url)
    workflows = sorted({r[0] for r in routes} | {r[2] for r in routes})
    entries = [publisher_entry(w, event, scratch)
               for w in workflows for event in sorted({r[1] for r in routes})]
    for i in range(0, len(entries), 10):
        answer = events.put_events(Entries=entries[i:i + 10])
        if answer["FailedEntryCount"]:
            raise AssertionError(f"put_events on {scratch}: {answer['Entries']}")
    for logical, ((a, event, c, _), url) in sorted(queues.items()):
        got = []
        while True:
            messages = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10,
                                           WaitTimeSeconds=0).get("Messages", [])
            if not messages:
                break
            for m in messages:
                body = json.loads(m["Body"])
                got.append((body["source"], body["detail-type"], body["detail"]))
                sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        want = [(a, event, sample_detail(event))]
        if sorted(got, key=json.dumps) != want:
            problems.append((logical, "matching",
                             f"of every workflow publishing every routed event, "
                             f"the pattern matched {[(s, t) for s, t, _ in got]}, "
                             f"expected only {[(a, event)]}"))
    return problems


def rule_problems(d, specs):
    problems = []
    events = d.client("events")
    routes = expected_routes(specs)
    on_bus = {r["Name"]: r for r in events.list_rules(EventBusName=d.bus)["Rules"]}
    stack_rules = {k: v for k, v in d.physical.items()
                   if d.resource_types().get(k) == "AWS::Events::Rule"}
    object_rules = {r[2] for r in object_created_rules(specs)}
    reapers = {r[1] for r in reaper_rules(specs)}
    want_ids = sorted([route_id(r) for r in routes] + list(object_rules) +
                      list(reapers))
    if sorted(stack_rules) != want_ids:
        problems.append(("(stack)", "rules",
                         f"rules {sorted(stack_rules)}, expected {want_ids} "
                         f"(from the specs' PublishEvent steps and input events)"))
    bus_rules = sorted(v for k, v in stack_rules.items()
                       if k not in object_rules and k not in reapers)
    if sorted(on_bus) != bus_rules:
        problems.append(("(stack)", "bus",
                         f"rules on bus {d.bus}: {sorted(on_bus)}, expected the "
                         f"stack's {bus_rules}"))
    rules = {}
    for route in routes:
        a, event, c, logical = route
        name = stack_rules.get(logical)
        if name not in on_bus:
            continue
        rule = rules[logical] = on_bus[name]
        pattern = json.loads(rule.get("EventPattern") or "null")
        want_pattern = {"source": [a], "detail-type": [event]}
        if pattern != want_pattern or rule.get("State") != "ENABLED":
            problems.append((logical, "pattern",
                             f"{rule.get('State')} with pattern {pattern}, expected "
                             f"ENABLED with {want_pattern}"))
        targets = events.list_targets_by_rule(Rule=name, EventBusName=d.bus)["Targets"]
        want_targets = [{**delivery(d), "Id": c, "Arn": d.arn(pascal(c) + "StateMachine"),
                         "RoleArn": d.arn(logical + "Role"), "InputPath": "$.detail"}]
        if targets != want_targets:
            problems.append((logical, "targets",
                             f"targets {targets}, expected {want_targets}"))
    return problems + matching_problems(d, routes, rules)


def object_created_problems(d, specs):
    """Each `object_created` rule on the default bus (where S3 sends the
    catalog bucket's events): its pattern (the deployed bucket's name, the
    key prefix), its one target (the state machine, the rule's role, the
    InputTransformer); then, on moto's own matcher (a copy of the rule on a
    scratch bus, targeting an SQS queue, as matching_problems does), an S3
    event under the prefix is delivered and one outside it is not, and what
    the transformer's paths take from the delivered event is a valid input
    event. moto's transformer writes string values unquoted into a JSON
    template (AWS writes them as JSON strings), so the delivery is checked
    without it and the paths are read from the delivered event here."""
    problems = []
    events, sqs = d.client("events"), d.client("sqs")
    bucket = d.physical.get(CATALOG_BUCKET)
    on_default = {r["Name"]: r for r in
                  events.list_rules(EventBusName="default")["Rules"]}
    for w, prefix, logical in object_created_rules(specs):
        name = d.physical.get(logical)
        if name not in on_default:
            problems.append((logical, "missing",
                             f"no rule {name} on the default bus"))
            continue
        rule = on_default[name]
        pattern = json.loads(rule.get("EventPattern") or "null")
        want_pattern = {"source": ["aws.s3"], "detail-type": ["Object Created"],
                        "detail": {"bucket": {"name": [bucket]},
                                   "object": {"key": [{"prefix": prefix}]}}}
        if pattern != want_pattern or rule.get("State") != "ENABLED":
            problems.append((logical, "pattern",
                             f"{rule.get('State')} with pattern {pattern}, expected "
                             f"ENABLED with {want_pattern}"))
        transformer = object_created_input(specs[w])
        targets = events.list_targets_by_rule(Rule=name, EventBusName="default")["Targets"]
        want_targets = [{**delivery(d), "Id": w, "Arn": d.arn(pascal(w) + "StateMachine"),
                         "RoleArn": d.arn(logical + "Role"),
                         "InputTransformer": transformer}]
        if targets != want_targets:
            problems.append((logical, "targets",
                             f"targets {targets}, expected {want_targets}"))
            continue
        scratch = f"{d.stack}-objects-{uuid.uuid4().hex[:8]}"
        events.create_event_bus(Name=scratch)
        url = sqs.create_queue(QueueName=scratch)["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.put_rule(Name=scratch, EventBusName=scratch,
                        EventPattern=rule["EventPattern"])
        events.put_targets(Rule=scratch, EventBusName=scratch,
                           Targets=[{"Id": "queue", "Arn": queue_arn}])
        key = prefix + "5f0c1d9e-8a3b-4c7d-9e2f-1a2b3c4d5e6f/light curve.csv"

        def s3_event(object_key):
            return {"Source": "aws.s3", "DetailType": "Object Created",
                    "EventBusName": scratch,
                    "Detail": json.dumps({
                        "version": "0", "bucket": {"name": bucket},
                        "object": {"key": object_key, "size": 587,
                                   "etag": "9b2cf535f27731c974343645a3985328",
                                   "sequencer": "0064D3901D00059242"},
                        "reason": "PutObject"})}
        answer = events.put_events(Entries=[s3_event(key),
                                            s3_event("raw/" + key)])
        if answer["FailedEntryCount"]:
            raise AssertionError(f"put_events on {scratch}: {answer['Entries']}")
        delivered = [json.loads(m["Body"]) for m in sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])]

        def path_value(event, path):
            for part in path[2:].split("."):
                event = event.get(part) if isinstance(event, dict) else None
            return event
        names = {"bucket": "bucket", "key": "key", "etag": "etag",
                 "size": "byte_length"}
        got = [{names[n]: path_value(e, p)
                for n, p in transformer["InputPathsMap"].items()}
               for e in delivered]
        want = {"bucket": bucket, "key": key,
                "etag": "9b2cf535f27731c974343645a3985328"}
        if "size" in transformer["InputPathsMap"]:
            want["byte_length"] = 587
        if got != [want]:
            problems.append((logical, "transform",
                             f"S3 events under and outside {prefix} became {got}, "
                             f"expected [{want}]"))
            continue
        with open(os.path.join(ROOT, "generated", "schemas", "events",
                               specs[w]["input"], "latest.json")) as f:
            errors = list(jsonschema.Draft202012Validator(json.load(f)).iter_errors(want))
        if errors:
            problems.append((logical, "input", f"the input is not a valid "
                             f"{specs[w]['input']}: {errors[0].message}"))
    return problems


def object_statements(d, object_store):
    """A function's statement on the catalog's objects (spec object_store)."""
    if not object_store:
        return []
    actions = {"read": "s3:GetObject",
               "read_write": ["s3:GetObject", "s3:PutObject"]}[object_store]
    return [{"Effect": "Allow", "Action": actions,
             "Resource": f"arn:aws:s3:::{d.physical.get(CATALOG_BUCKET)}/*"}]


def bucket_problems(d, specs):
    """The catalog's bucket: there when a spec uses it, private, encrypted,
    versioned, its object events on EventBridge."""
    wanted = any(s.get("object_store") for s in specs.values())
    name = d.physical.get(CATALOG_BUCKET)
    if not wanted:
        return [] if name is None else [(CATALOG_BUCKET, "exists",
                                         "a bucket no spec uses")]
    if name is None:
        return [(CATALOG_BUCKET, "missing", "no catalog bucket")]
    s3 = d.client("s3")
    problems = []
    rules = s3.get_bucket_encryption(Bucket=name)[
        "ServerSideEncryptionConfiguration"]["Rules"]
    algorithms = [r["ApplyServerSideEncryptionByDefault"]["SSEAlgorithm"] for r in rules]
    if algorithms != ["AES256"]:
        problems.append((CATALOG_BUCKET, "encryption", f"encryption {algorithms}"))
    # moto's CloudFormation applies neither a bucket's public access block,
    # nor its versioning, nor its notification configuration (the API
    # answers none of them), so for these the template is what is checked.
    with open(TEMPLATE) as f:
        props = json.load(f)["Resources"][CATALOG_BUCKET]["Properties"]
    block = props.get("PublicAccessBlockConfiguration", {})
    if not all(block.get(k) for k in ("BlockPublicAcls", "BlockPublicPolicy",
                                      "IgnorePublicAcls", "RestrictPublicBuckets")):
        problems.append((CATALOG_BUCKET, "public", f"public access block {block}"))
    versioning = props.get("VersioningConfiguration", {}).get("Status")
    if versioning != "Enabled":
        problems.append((CATALOG_BUCKET, "versioning", f"versioning {versioning}"))
    notification = props.get("NotificationConfiguration", {})
    if notification.get("EventBridgeConfiguration") != {"EventBridgeEnabled": True}:
        problems.append((CATALOG_BUCKET, "events",
                         f"no EventBridge notification: {notification}"))
    return problems


def undelivered_queue_problems(d):
    """The dead-letter queue of every rule and schedule: it keeps a message
    14 days (SQS's longest) and is encrypted."""
    attributes = d.queue_attributes(UNDELIVERED)
    got = {k: attributes.get(k) for k in ("MessageRetentionPeriod",
                                         "SqsManagedSseEnabled")}
    want = {"MessageRetentionPeriod": "1209600", "SqsManagedSseEnabled": "true"}
    if got != want:
        return [(UNDELIVERED, "attributes", f"{got}, expected {want}")]
    return []


def reaper_problems(d, specs):
    """Each <W>Reaper rule on the default bus: its pattern (Step Functions'
    status changes ABORTED, TIMED_OUT, FAILED of the deployed state machine),
    its one target (the workflow's function, with the retry policy and the
    dead-letter queue), EventBridge's permission on the function for that
    rule; then, on moto's own matcher (a copy of the rule on a scratch bus
    targeting an SQS queue, as matching_problems does), the status change of
    an aborted execution of that state machine is delivered, whole, and
    neither a succeeded one nor another state machine's is."""
    problems = []
    events, sqs, lam = d.client("events"), d.client("sqs"), d.client("lambda")
    on_default = {r["Name"]: r for r in
                  events.list_rules(EventBusName="default")["Rules"]}
    scratch = f"{d.stack}-reapers-{uuid.uuid4().hex[:8]}"
    events.create_event_bus(Name=scratch)
    for w, logical in reaper_rules(specs):
        name = d.physical.get(logical)
        if name not in on_default:
            problems.append((logical, "missing", f"no rule {name} on the default bus"))
            continue
        rule = on_default[name]
        machine = d.arn(pascal(w) + "StateMachine")
        pattern = json.loads(rule.get("EventPattern") or "null")
        want_pattern = {"source": ["aws.states"],
                        "detail-type": ["Step Functions Execution Status Change"],
                        "detail": {"status": ["ABORTED", "TIMED_OUT", "FAILED"],
                                   "stateMachineArn": [machine]}}
        if pattern != want_pattern or rule.get("State") != "ENABLED":
            problems.append((logical, "pattern",
                             f"{rule.get('State')} with pattern {pattern}, expected "
                             f"ENABLED with {want_pattern}"))
        function = d.arn(pascal(w) + "Function")
        targets = events.list_targets_by_rule(Rule=name, EventBusName="default")["Targets"]
        want_targets = [{**delivery(d), "Id": "reaper", "Arn": function}]
        if targets != want_targets:
            problems.append((logical, "targets",
                             f"targets {targets}, expected {want_targets}"))
        try:
            policy = json.loads(lam.get_policy(
                FunctionName=d.physical[pascal(w) + "Function"])["Policy"])
        except botocore.exceptions.ClientError:
            policy = {"Statement": []}
        allowed = [st for st in policy["Statement"]
                   if st.get("Principal", {}).get("Service") == "events.amazonaws.com"
                   and st.get("Action") == "lambda:InvokeFunction"
                   and st.get("Condition", {}).get("ArnLike", {}).get(
                       "AWS:SourceArn") == rule["Arn"]]
        if len(allowed) != 1:
            problems.append((logical, "permission",
                             f"the function's policy {policy['Statement']} does "
                             f"not let EventBridge invoke it from {rule['Arn']}"))
        # Delivery on moto's matcher.
        url = sqs.create_queue(QueueName=f"{scratch}-{w}"[:80])["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.put_rule(Name=name, EventBusName=scratch,
                        EventPattern=rule["EventPattern"])
        events.put_targets(Rule=name, EventBusName=scratch,
                           Targets=[{"Id": "queue", "Arn": queue_arn}])

        def change(status, state_machine):
            return {"Source": "aws.states", "EventBusName": scratch,
                    "DetailType": "Step Functions Execution Status Change",
                    "Detail": json.dumps({
                        "executionArn": state_machine.replace(
                            ":stateMachine:", ":execution:") + ":run-1",
                        "stateMachineArn": state_machine, "status": status,
                        "input": "{}"})}
        other = machine + "-other"
        answer = events.put_events(Entries=[change("ABORTED", machine),
                                            change("SUCCEEDED", machine),
                                            change("FAILED", other)])
        if answer["FailedEntryCount"]:
            raise AssertionError(f"put_events on {scratch}: {answer['Entries']}")
        got = [json.loads(m["Body"])["detail"] for m in sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0).get("Messages", [])]
        want = [json.loads(change("ABORTED", machine)["Detail"])]
        if got != want:
            problems.append((logical, "matching",
                             f"delivered {got}, expected {want}"))
        events.remove_targets(Rule=name, EventBusName=scratch, Ids=["queue"])
        events.delete_rule(Name=name, EventBusName=scratch)
        sqs.delete_queue(QueueUrl=url)
    events.delete_event_bus(Name=scratch)
    return problems


def dead_letter_alarm_problems(d):
    """Each <sender>DeadLetterAlarm of a rule or a function: its dimensions,
    resolved on the deployed stack, are the ones the service publishes the
    sender's metric under: a rule's RuleName (the template takes it from
    the rule's ARN, with Fn::Select and Fn::Split) is the deployed rule's
    name, with EventBusName the rule's bus when not the default one; a
    function's FunctionName is the deployed function's."""
    with open(d.template) as f:
        resources = json.load(f)["Resources"]
    events = d.client("events")

    @functools.cache  # a rule is read once, for its dimensions and its ARN's
    def deployed_rule(rule):
        bus = resources[rule]["Properties"].get("EventBusName")
        return events.describe_rule(Name=d.physical[rule],
                                    EventBusName=resolve(bus) if bus else "default")

    def resolve(value):
        if value == {"Fn::GetAtt": ["NovaCatEventBus", "Name"]}:
            return d.bus
        if "Ref" in value:
            return d.physical[value["Ref"]]
        index, (separator, of) = value["Fn::Select"][0], value["Fn::Select"][1]["Fn::Split"]
        return deployed_rule(of["Fn::GetAtt"][0])["Arn"].split(separator)[index]

    problems, checked = [], 0
    for id, alarm in resources.items():
        sender = id[:-len("DeadLetterAlarm")] if id.endswith("DeadLetterAlarm") else None
        kind = resources.get(sender, {}).get("Type")
        if kind not in ("AWS::Events::Rule", "AWS::Lambda::Function"):
            continue
        checked += 1
        got = {dim["Name"]: resolve(dim["Value"])
               for dim in alarm["Properties"]["Dimensions"]}
        if kind == "AWS::Lambda::Function":
            want = {"FunctionName": d.physical[sender]}
        else:
            rule = deployed_rule(sender)
            want = {"RuleName": rule["Name"]}
            if rule.get("EventBusName", "default") != "default":
                want = {"EventBusName": rule["EventBusName"], **want}
        if got != want:
            problems.append((id, "dimensions", f"{got}, expected {want}"))
    if checked != 17:  # 7 rules, 6 reapers, 4 per-nova functions
        problems.append(("(stack)", "alarms",
                         f"{checked} dead-letter alarms of rules and functions, "
                         f"expected 17"))
    return problems


def iam_problems(d, specs):
    problems = []
    iam = d.client("iam")
    table_arn = d.arn("NovaCatTable")
    bus_arn = d.bus_arn()
    want = {}  # role logical id -> (trusted service, statements)
    for w in specs:
        p = pascal(w)
        function_arn = d.arn(p + "Function")
        account = function_arn.split(":")[4]
        function = d.physical[p + "Function"]
        want[p + "FunctionRole"] = ("lambda.amazonaws.com", [
            {"Effect": "Allow", "Action": FUNCTION_TABLE_ACTIONS,
             "Resource": [table_arn] + [f"{table_arn}/index/{i}" for i in TABLE_GSIS]},
            {"Effect": "Allow", "Action": "events:PutEvents", "Resource": bus_arn}] +
            object_statements(d, specs[w].get("object_store")) + (
            # A per-nova schedule's sweep Lambda gave up on goes to the
            # dead-letter queue, sent with the function's role.
            [{"Effect": "Allow", "Action": "sqs:SendMessage",
              "Resource": d.arn(UNDELIVERED)}]
            if w in per_nova_workflows(specs) else []) + [
            # Each secret given: exactly that secret, nothing else of
            # Secrets Manager.
            {"Effect": "Allow", "Action": "secretsmanager:GetSecretValue",
             "Resource": arn} for _, arn in function_secrets(specs[w], d)] + [
            {"Effect": "Allow",
             "Action": ["logs:CreateLogStream", "logs:PutLogEvents"],
             "Resource": (f"arn:aws:logs:{REGION}:{account}:log-group:"
                          f"/aws/lambda/{function}")}])
        want[p + "StateMachineRole"] = ("states.amazonaws.com", [
            {"Effect": "Allow", "Action": "lambda:InvokeFunction",
             "Resource": [function_arn, function_arn + ":*"]},
            {"Effect": "Allow", "Action": LOG_DELIVERY_ACTIONS, "Resource": "*"}])
    for route in expected_routes(specs):
        want[route_id(route) + "Role"] = ("events.amazonaws.com", [
            {"Effect": "Allow", "Action": "states:StartExecution",
             "Resource": d.arn(pascal(route[2]) + "StateMachine")}])
    for w, _, logical in object_created_rules(specs):
        want[logical + "Role"] = ("events.amazonaws.com", [
            {"Effect": "Allow", "Action": "states:StartExecution",
             "Resource": d.arn(pascal(w) + "StateMachine")}])
    # A per-nova schedule may invoke only its workflow's function (moto's
    # CloudFormation creates the role, not the AWS::Scheduler::Schedule).
    for w in per_nova_workflows(specs):
        want[pascal(w) + "ScheduleRole"] = ("scheduler.amazonaws.com", [
            {"Effect": "Allow", "Action": "lambda:InvokeFunction",
             "Resource": d.arn(pascal(w) + "Function")},
            {"Effect": "Allow", "Action": "sqs:SendMessage",
             "Resource": d.arn(UNDELIVERED)}])
    roles = sorted(k for k, t in d.resource_types().items()
                   if t == "AWS::IAM::Role" and k in d.physical)
    if roles != sorted(want):
        problems.append(("(stack)", "roles",
                         f"roles {roles}, expected {sorted(want)}"))
    for logical in roles:
        if logical not in want:
            continue
        service, statements = want[logical]
        name = d.physical[logical]
        role = iam.get_role(RoleName=name)["Role"]
        trust = policy_document(role["AssumeRolePolicyDocument"])["Statement"]
        want_trust = [{"Effect": "Allow", "Principal": {"Service": service},
                       "Action": "sts:AssumeRole"}]
        if trust != want_trust:
            problems.append((logical, "trust",
                             f"trust {trust}, expected {want_trust}"))
        attached = iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]
        if attached:
            problems.append((logical, "attached",
                             f"managed policies {attached}, expected none"))
        got = []
        for policy in iam.list_role_policies(RoleName=name)["PolicyNames"]:
            document = policy_document(iam.get_role_policy(
                RoleName=name, PolicyName=policy)["PolicyDocument"])
            got += document["Statement"]
        # moto's GetAtt of a log group's Arn has no ":*" (AWS's has it): the
        # same group either way.
        for s in got:
            if isinstance(s.get("Resource"), str) and s["Resource"].startswith(
                    "arn:aws:logs:") and s["Resource"].endswith(":*"):
                s["Resource"] = s["Resource"][:-2]
        got_c, want_c = sorted(map(canonical, got)), sorted(map(canonical, statements))
        if got_c != want_c:
            extra = [x for x in got_c if x not in want_c]
            missing = [x for x in want_c if x not in got_c]
            problems.append((logical, "statements",
                             f"statements not expected: [{', '.join(extra)}]; "
                             f"expected, missing: [{', '.join(missing)}] "
                             f"({len(got_c)} statements, {len(want_c)} expected)"))
    return problems


def all_problems(d, specs):
    return {"table": table_problems(d),
            "functions": function_problems(d, specs),
            "state machines": state_machine_problems(d, specs),
            "rules": rule_problems(d, specs),
            "object rules": object_created_problems(d, specs),
            "reapers": reaper_problems(d, specs),
            "iam": iam_problems(d, specs),
            "undelivered": undelivered_queue_problems(d),
            "dead-letter alarms": dead_letter_alarm_problems(d)}


# ------------------------------------------------------------------- tests

class Fixture:
    """The moto endpoint, the specs and one bucket holding the zips,
    uploaded once with `aws s3 cp` (as the README says)."""
    endpoint = None
    specs = None
    bucket = None
    prefix = "lambda/"

    @classmethod
    def get(cls):
        if cls.endpoint is None:
            cls.endpoint = moto_endpoint()
            cls.specs = load_specs()
            missing = sorted(set(cls.specs) - set(ZIPS))
            if missing:
                raise AssertionError(
                    f"no zip given for {missing}: build the lambda_zips target "
                    f"and pass <build>/lambda/<workflow>.zip")
            host = socket.getaddrinfo("localhost", None, socket.AF_INET)
            if not any(a[4][0] == "127.0.0.1" for a in host):
                raise AssertionError("localhost does not resolve to 127.0.0.1; "
                                     "the CLI reaches moto as localhost")
            cls.bucket = f"novacat-deploy-{os.getpid()}"
            d = Deployment(cls.endpoint, cls.bucket, cls.bucket, cls.prefix)
            d.aws_ok("s3", "mb", f"s3://{cls.bucket}")
            for w, path in sorted(ZIPS.items()):
                d.aws_ok("s3", "cp", "--only-show-errors", path,
                         f"s3://{cls.bucket}/{cls.prefix}{w}.zip")
        return cls


class StackDeployTest(unittest.TestCase):
    """The committed stack, deployed by scripts/deploy.sh (`aws s3 cp` and
    `aws cloudformation deploy`), the
    table and bus names left at their defaults, the alarms given a topic,
    and the secrets of TNS and ADS given (made in moto's Secrets Manager
    with the JSON the README shows)."""

    @classmethod
    def setUpClass(cls):
        f = Fixture.get()
        cls.specs = f.specs
        cls.d = Deployment(f.endpoint, f"novacat-deploy-{os.getpid()}",
                           f.bucket, f.prefix)
        cls.alarm_topic = cls.d.client("sns").create_topic(
            Name=f"novacat-alarms-{os.getpid()}")["TopicArn"]
        cls.d.overrides["AlarmTopicArn"] = cls.alarm_topic
        cls.secrets = make_secrets(cls.d, cls.d.stack)
        cls.d.overrides.update(cls.secrets)
        # Through scripts/deploy.sh, the README's one way to deploy: it
        # uploads the zips again (the same bytes) and runs the same deploy.
        cls.d.assert_created(cls.d.deploy_script(BUILD_DIR))
        with open(TEMPLATE) as t:
            count = len(json.load(t)["Resources"])
        print(f"\nstack {cls.d.stack}: {count} resources in the template, "
              f"{len(cls.d.physical)} created with a logical id by moto, "
              f"CREATE_COMPLETE; aws cloudformation deploy took "
              f"{cls.d.deploy_seconds:.1f} s", file=sys.stderr)

    def check(self, problems):
        if problems:
            self.fail("\n" + render(problems))

    def test_resources(self):
        with open(TEMPLATE) as t:
            types = {k: v["Type"] for k, v in json.load(t)["Resources"].items()}
        # moto's CloudFormation creates no AWS::CloudWatch::Alarm and no
        # AWS::Scheduler::Schedule (cfn-lint checks their properties).
        # Nor AWS::SQS::QueuePolicy and AWS::Lambda::EventInvokeConfig
        # (cfn-lint and the emitter's test check the dead-letter queue's
        # policy and the per-nova functions' asynchronous invocation).
        want = sorted(k for k, v in types.items()
                      if v not in ("AWS::CloudWatch::Alarm", "AWS::Scheduler::Schedule",
                                   "AWS::Scheduler::ScheduleGroup",
                                   "AWS::SQS::QueuePolicy",
                                   "AWS::Lambda::EventInvokeConfig"))
        self.assertEqual(sorted(self.d.physical), want)

    def test_table(self):
        self.check(table_problems(self.d))

    def test_alarm_topic_is_the_stacks_parameter(self):
        # deploy.sh --alarm-topic reaches the stack; moto creates no alarm,
        # so the alarms' actions (Fn::If on NotifyAlarms) are checked by
        # cfn-lint and the emitter's test.
        stack = self.d.client("cloudformation").describe_stacks(
            StackName=self.d.stack)["Stacks"][0]
        given = {p["ParameterKey"]: p["ParameterValue"]
                 for p in stack["Parameters"]}
        self.assertEqual(given["AlarmTopicArn"], self.alarm_topic)
        self.assertEqual(sorted(given), ["AdsSecretArn", "AlarmTopicArn",
                                         "ArtifactBucket", "ArtifactKeyPrefix",
                                         "EventBusName", "TableName",
                                         "TnsSecretArn"])

    def test_secrets_reach_exactly_the_functions_that_read_them(self):
        """deploy.sh --tns-secret / --ads-secret: initialize_nova's function
        gets NOVACAT_TNS_SECRET and may read that secret, refresh_references's
        NOVACAT_ADS_SECRET and that one; no other function gets either.
        (test_functions and test_iam check every function's whole
        environment and every role's statements; this says it in so many
        words.)"""
        stack = self.d.client("cloudformation").describe_stacks(
            StackName=self.d.stack)["Stacks"][0]
        given = {p["ParameterKey"]: p["ParameterValue"] for p in stack["Parameters"]}
        self.assertEqual({k: given[k] for k in self.secrets}, self.secrets)
        lam, iam = self.d.client("lambda"), self.d.client("iam")
        readers = {"InitializeNova": ("NOVACAT_TNS_SECRET", "TnsSecretArn"),
                   "RefreshReferences": ("NOVACAT_ADS_SECRET", "AdsSecretArn")}
        for w in self.specs:
            p = pascal(w)
            with self.subTest(workflow=w):
                env = lam.get_function_configuration(
                    FunctionName=self.d.physical[p + "Function"])[
                        "Environment"]["Variables"]
                role = self.d.physical[p + "FunctionRole"]
                reads = []
                for name in iam.list_role_policies(RoleName=role)["PolicyNames"]:
                    for st in policy_document(iam.get_role_policy(
                            RoleName=role, PolicyName=name)["PolicyDocument"])[
                                "Statement"]:
                        if "secretsmanager" in json.dumps(st):
                            reads.append(st)
                got = ({k: v for k, v in env.items() if k.endswith("_SECRET")},
                       reads)
                if p in readers:
                    variable, parameter = readers[p]
                    arn = self.secrets[parameter]
                    self.assertEqual(got, ({variable: arn}, [
                        {"Effect": "Allow",
                         "Action": "secretsmanager:GetSecretValue",
                         "Resource": arn}]))
                else:
                    self.assertEqual(got, ({}, []))

    def test_functions(self):
        self.check(function_problems(self.d, self.specs))

    def test_state_machines(self):
        self.check(state_machine_problems(self.d, self.specs))

    def test_rules(self):
        self.check(rule_problems(self.d, self.specs))

    def test_undelivered_queue(self):
        self.check(undelivered_queue_problems(self.d))

    def test_dead_letter_alarms_name_the_deployed_senders(self):
        self.check(dead_letter_alarm_problems(self.d))

    def test_iam(self):
        self.check(iam_problems(self.d, self.specs))

    def test_catalog_bucket(self):
        self.check(bucket_problems(self.d, self.specs))

    def test_object_created_rules(self):
        self.check(object_created_problems(self.d, self.specs))

    def test_reapers(self):
        self.check(reaper_problems(self.d, self.specs))

    def test_initialize_nova_event_starts_ingest_new_nova(self):
        """The entry initialize_nova's Lambda sends for ingest_new_nova, on
        the stack's bus: on AWS, the rule starts IngestNewNova with the
        detail as its input. moto 5.2's EventBridge cannot deliver to a
        Step Functions target (Rule.send_to_targets raises
        NotImplementedError: HTTP 500); the test is skipped when moto's log
        shows that, and checks the execution otherwise."""
        entry = publisher_entry("initialize_nova", "ingest_new_nova", self.d.bus)
        events = self.d.client("events", retries={"total_max_attempts": 1})
        log = os.environ["NOVACAT_MOTO_STATE"] + ".log"
        with open(log) as f:
            f.seek(0, os.SEEK_END)
            before = f.tell()
        try:
            answer = events.put_events(Entries=[entry])
        except botocore.exceptions.ClientError as e:
            said = ""
            # The server writes its log after answering: waited for, at most
            # a minute (a bound on a stuck server, not on a slow one).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and "NotImplementedError" not in said:
                time.sleep(0.1)
                with open(log) as f:
                    f.seek(before)
                    said = f.read()
            if ("NotImplementedError" in said and "send_to_targets" in said
                    and e.response["ResponseMetadata"]["HTTPStatusCode"] == 500):
                self.skipTest("moto's EventBridge does not deliver to Step "
                              "Functions targets (NotImplementedError in "
                              "Rule.send_to_targets)")
            raise
        self.assertEqual(answer["FailedEntryCount"], 0, answer["Entries"])
        sfn = self.d.client("stepfunctions")
        machine = self.d.physical["IngestNewNovaStateMachine"]
        runs = sfn.list_executions(stateMachineArn=machine)["executions"]
        self.assertEqual(len(runs), 1, runs)
        started = sfn.describe_execution(executionArn=runs[0]["executionArn"])
        self.assertEqual(json.loads(started["input"]), json.loads(entry["Detail"]))


class TemplateTest(unittest.TestCase):
    """What moto cannot render faithfully (see moto_fn_sub): each
    DefinitionString, rendered by CloudFormation's Fn::Sub rules, is the
    generated ASL byte for byte with the function's ARN in place of its
    placeholder, the only variable bound to that function's Arn."""

    def test_definition_strings_render_to_the_generated_asl(self):
        with open(TEMPLATE) as t:
            resources = json.load(t)["Resources"]
        for w in load_specs():
            p = pascal(w)
            with self.subTest(workflow=w):
                sub = resources[p + "StateMachine"]["Properties"][
                    "DefinitionString"]["Fn::Sub"]
                self.assertEqual(len(sub), 2, "Fn::Sub [text, variables]")
                text, variables = sub
                self.assertEqual(variables, {p + "FunctionArn": {
                    "Fn::GetAtt": [p + "Function", "Arn"]}})
                arn = f"arn:aws:lambda:{REGION}:123456789012:function:{p}"
                with open(os.path.join(ROOT, "generated", w,
                                       "statemachine.asl.json")) as f:
                    asl = f.read()
                self.assertEqual(
                    cloudformation_fn_sub(text, {p + "FunctionArn": arn}),
                    asl.replace("${%sFunctionArn}" % p, arn))


class DeployScriptTest(unittest.TestCase):
    """scripts/deploy.sh stops before touching AWS when a zip is not built
    or the bucket is missing, and says how to fix it (exit 2)."""

    def run_script(self, *args):
        f = Fixture.get()
        d = Deployment(f.endpoint, "unused", "unused", "p/")
        done = subprocess.run(["bash", DEPLOY_SCRIPT, *args], env=d.cli_env(),
                              stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr

    def test_a_zip_not_built(self):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "lambda"))
            for w in ["discover_spectra_products",
                      "download_and_validate_spectra", "ingest_new_nova",
                      "ingest_photometry_dataset", "initialize_nova"]:
                shutil.copy(ZIPS[w], os.path.join(build, "lambda", w + ".zip"))
            status, out, err = self.run_script(
                "--bucket", Fixture.get().bucket, "--build-dir", build)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, (
            f"deploy: missing {build}/lambda/refresh_references.zip: build "
            f"them first with\n  cmake --build {build} --target lambda_zips\n"))

    def test_a_missing_bucket(self):
        status, out, err = self.run_script(
            "--bucket", f"no-such-bucket-{os.getpid()}", "--build-dir", BUILD_DIR)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, (
            f"deploy: bucket 'no-such-bucket-{os.getpid()}' is not there or not "
            f"yours (make it: aws s3 mb s3://no-such-bucket-{os.getpid()})\n"))

    def test_no_bucket(self):
        status, out, err = self.run_script("--build-dir", BUILD_DIR)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, (
            "deploy: --bucket is required: the S3 bucket for the zips and the "
            "template\n"
            "usage: scripts/deploy.sh --bucket BUCKET [--stack-name NAME] "
            "[--prefix PREFIX]\n"
            "                         [--build-dir DIR] [--table-name NAME]\n"
            "                         [--event-bus-name NAME] "
            "[--alarm-topic ARN]\n"
            "                         [--tns-secret ARN] [--ads-secret ARN]\n"))

    def test_a_secret_given_by_name(self):
        status, out, err = self.run_script(
            "--bucket", Fixture.get().bucket, "--build-dir", BUILD_DIR,
            "--tns-secret", "novacat/tns")
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, (
            "deploy: --tns-secret takes a Secrets Manager secret's ARN "
            "(arn:aws:secretsmanager:<region>:<account>:secret:<name>), got "
            "'novacat/tns'\n"))

    def test_a_missing_secret(self):
        arn = ("arn:aws:secretsmanager:us-east-1:123456789012:secret:"
               f"novacat-none-{os.getpid()}/ads-AbCdEf")
        status, out, err = self.run_script(
            "--bucket", Fixture.get().bucket, "--build-dir", BUILD_DIR,
            "--ads-secret", arn)
        self.assertEqual((status, out), (2, ""))
        self.assertEqual(err, (
            f"deploy: --ads-secret: secret '{arn}' is not there or not yours "
            "(make it: aws secretsmanager create-secret --name <name> "
            "--secret-string <JSON>)\n"))


class MissingZipTest(unittest.TestCase):
    """A zip missing from the bucket. CloudFormation fails the function
    (NoSuchKey) and explain_failure prints that reason; moto 5.2 instead
    creates the function with no code (CodeSize 0), so there the function
    check must name the missing key."""

    def test_missing_zip_is_named(self):
        f = Fixture.get()
        stack = f"novacat-missing-{os.getpid()}"
        prefix = f"{stack}/"
        s3 = boto3.client("s3", endpoint_url=f.endpoint, region_name=REGION,
                          **CREDENTIALS)
        absent = "refresh_references"
        for w in f.specs:
            if w != absent:
                s3.copy_object(Bucket=f.bucket, Key=f"{prefix}{w}.zip",
                               CopySource={"Bucket": f.bucket,
                                           "Key": f"{f.prefix}{w}.zip"})
        d = Deployment(f.endpoint, stack, f.bucket, prefix,
                       table=f"{stack}-table", bus=f"{stack}-bus")
        key = f"s3://{f.bucket}/{prefix}{absent}.zip"
        status = d.deploy()
        if status != 0 or d.status()[0] != "CREATE_COMPLETE":
            explanation = d.explain_failure()
            self.assertIn("RefreshReferencesFunction CREATE_FAILED", explanation)
            self.assertIn(f"{prefix}{absent}.zip", explanation)
            return
        # moto: the stack completes; the function has no code.
        problems = function_problems(d, f.specs)
        self.assertEqual([(p[0], p[1]) for p in problems],
                         [("RefreshReferencesFunction", "code")], render(problems))
        self.assertIn(f"{key} is missing from the bucket", problems[0][2])
        self.assertIn("CodeSize 0", problems[0][2])


def mutate(template):
    """A copy of the template with one fault per aspect a check compares;
    returns (template, {check: {(logical id, aspect)}}) the checks must
    report, exactly."""
    t = copy.deepcopy(template)
    r = t["Resources"]
    # table: an index renamed.
    r["NovaCatTable"]["Properties"]["GlobalSecondaryIndexes"][1]["IndexName"] = "NameIndex"
    # functions: runtime, code, environment, timeout.
    r["IngestNewNovaFunction"]["Properties"]["Runtime"] = "provided.al2"
    r["RefreshReferencesFunction"]["Properties"]["Code"]["S3Key"] = {
        "Fn::Join": ["", [{"Ref": "ArtifactKeyPrefix"}, "initialize_nova.zip"]]}
    r["InitializeNovaFunction"]["Properties"]["Environment"]["Variables"][
        "NOVACAT_EVENT_BUS_NAME"] = "another-bus"
    r["DiscoverSpectraProductsFunction"]["Properties"]["Timeout"] += 1
    # state machines: a placeholder left, another function's ARN.
    sub = r["InitializeNovaStateMachine"]["Properties"]["DefinitionString"]["Fn::Sub"]
    sub[0] = sub[0].replace("${InitializeNovaFunctionArn}",
                            "${!InitializeNovaFunctionArn}", 1)
    r["IngestNewNovaStateMachine"]["Properties"]["DefinitionString"]["Fn::Sub"][1][
        "IngestNewNovaFunctionArn"] = {"Fn::GetAtt": ["RefreshReferencesFunction", "Arn"]}
    # (No StateMachineType mutation: moto's CloudFormation ignores the
    # property and makes every state machine STANDARD, so the type check
    # cannot fail on moto.)
    # rules: the event name, a second source, the InputPath.
    r["RouteInitializeNovaIngestNewNova"]["Properties"]["EventPattern"][
        "detail-type"] = ["IngestNewNova"]
    r["RouteIngestNewNovaDiscoverSpectraProducts"]["Properties"]["EventPattern"][
        "source"].append("initialize_nova")
    del r["RouteIngestNewNovaRefreshReferences"]["Properties"]["Targets"][0]["InputPath"]
    r["RefreshReferencesScheduleRoute"]["Properties"]["EventPattern"][
        "source"] = ["ingest_new_nova"]
    del r["RouteDiscoverSpectraProductsDownloadAndValidateSpectra"]["Properties"][
        "Targets"][0]["DeadLetterConfig"]
    # the dead-letter queue: kept 4 days (SQS's default).
    r[UNDELIVERED]["Properties"]["MessageRetentionPeriod"] = 345600
    # object rules: the key prefix (so a raw/ object would start it).
    r["IngestPhotometryDatasetObjectCreated"]["Properties"]["EventPattern"][
        "detail"]["object"]["key"] = [{"prefix": "raw/"}]
    # reapers: SUCCEEDED among the statuses, another function as the
    # target, no permission.
    r["RefreshReferencesReaper"]["Properties"]["EventPattern"]["detail"][
        "status"].append("SUCCEEDED")
    r["IngestNewNovaReaper"]["Properties"]["Targets"][0]["Arn"] = {
        "Fn::GetAtt": ["InitializeNovaFunction", "Arn"]}
    del r["DiscoverSpectraProductsReaperPermission"]
    # IAM: an extra * resource, another function, a * target.
    r["IngestNewNovaFunctionRole"]["Properties"]["Policies"][0]["PolicyDocument"][
        "Statement"].append({"Effect": "Allow", "Action": "dynamodb:Scan",
                             "Resource": "*"})
    r["InitializeNovaStateMachineRole"]["Properties"]["Policies"][0]["PolicyDocument"][
        "Statement"][0]["Resource"].append(
            {"Fn::GetAtt": ["RefreshReferencesFunction", "Arn"]})
    r["RouteIngestNewNovaRefreshReferencesRole"]["Properties"]["Policies"][0][
        "PolicyDocument"]["Statement"][0]["Resource"] = "*"
    r["DiscoverSpectraProductsScheduleRole"]["Properties"]["Policies"][0][
        "PolicyDocument"]["Statement"][0]["Action"] = "lambda:*"
    # ... and a per-nova function that may not send its failed sweep to the
    # dead-letter queue.
    r["RefreshReferencesFunctionRole"]["Properties"]["Policies"][0][
        "PolicyDocument"]["Statement"].pop()
    # secrets (none given to the mutant): refresh_references's variable set
    # whether or not its secret is given; initialize_nova's policy without
    # its condition, on every secret of the account.
    r["RefreshReferencesFunction"]["Properties"]["Environment"]["Variables"][
        "NOVACAT_ADS_SECRET"] = {"Ref": "AdsSecretArn"}
    tns = r["InitializeNovaFunctionTnsSecretPolicy"]
    del tns["Condition"]
    tns["Properties"]["PolicyDocument"]["Statement"][0]["Resource"] = {
        "Fn::Sub": "arn:aws:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:*"}
    # dead-letter alarms: a rule on the bus named by the wrong part of its
    # ARN (the bus's name), the bus given to the rule on the default bus,
    # another function.
    dimensions = lambda id: r[id]["Properties"]["Dimensions"]
    dimensions("RouteInitializeNovaIngestNewNovaDeadLetterAlarm")[1]["Value"][
        "Fn::Select"][0] = 1
    dimensions("IngestPhotometryDatasetObjectCreatedDeadLetterAlarm").insert(
        0, {"Name": "EventBusName",
            "Value": {"Fn::GetAtt": ["NovaCatEventBus", "Name"]}})
    dimensions("RefreshReferencesFunctionDeadLetterAlarm")[0]["Value"] = {
        "Ref": "DiscoverSpectraProductsFunction"}
    want = {
        "table": {("NovaCatTable", "gsis")},
        "functions": {("IngestNewNovaFunction", "runtime"),
                      ("RefreshReferencesFunction", "code"),
                      ("InitializeNovaFunction", "environment"),
                      ("DiscoverSpectraProductsFunction", "timeout"),
                      ("RefreshReferencesFunction", "environment")},
        "state machines": {("InitializeNovaStateMachine", "placeholder"),
                           ("InitializeNovaStateMachine", "definition"),
                           ("IngestNewNovaStateMachine", "definition")},
        "rules": {("RouteInitializeNovaIngestNewNova", "pattern"),
                  ("RouteInitializeNovaIngestNewNova", "matching"),
                  ("RouteIngestNewNovaDiscoverSpectraProducts", "pattern"),
                  ("RouteIngestNewNovaDiscoverSpectraProducts", "matching"),
                  ("RouteIngestNewNovaRefreshReferences", "targets"),
                  ("RefreshReferencesScheduleRoute", "pattern"),
                  ("RefreshReferencesScheduleRoute", "matching"),
                  ("RouteDiscoverSpectraProductsDownloadAndValidateSpectra", "targets")},
        "object rules": {("IngestPhotometryDatasetObjectCreated", "pattern"),
                         ("IngestPhotometryDatasetObjectCreated", "transform")},
        "reapers": {("RefreshReferencesReaper", "pattern"),
                    ("RefreshReferencesReaper", "matching"),
                    ("IngestNewNovaReaper", "targets"),
                    ("DiscoverSpectraProductsReaper", "permission")},
        "iam": {("IngestNewNovaFunctionRole", "statements"),
                ("InitializeNovaStateMachineRole", "statements"),
                ("RouteIngestNewNovaRefreshReferencesRole", "statements"),
                ("DiscoverSpectraProductsScheduleRole", "statements"),
                ("RefreshReferencesFunctionRole", "statements"),
                ("InitializeNovaFunctionRole", "statements")},
        "undelivered": {(UNDELIVERED, "attributes")},
        "dead-letter alarms": {
            ("RouteInitializeNovaIngestNewNovaDeadLetterAlarm", "dimensions"),
            ("IngestPhotometryDatasetObjectCreatedDeadLetterAlarm", "dimensions"),
            ("RefreshReferencesFunctionDeadLetterAlarm", "dimensions")},
    }
    return t, want


def make_secrets(d, name):
    """{parameter: ARN}: a TNS and an ADS secret made in moto's Secrets
    Manager, with the JSON the README shows, named after `name`."""
    secrets = d.client("secretsmanager")
    return {
        "TnsSecretArn": secrets.create_secret(
            Name=f"{name}/tns",
            SecretString=json.dumps({"api_key": "k", "bot_id": "1",
                                     "bot_name": "novacat"}))["ARN"],
        "AdsSecretArn": secrets.create_secret(
            Name=f"{name}/ads", SecretString=json.dumps({"token": "t"}))["ARN"]}


class NoSecretsTest(unittest.TestCase):
    """The stack deployed without the secrets' parameters: no function has
    a secret's variable, no role may read a secret (the policies'
    condition is false), and the rest is as with them."""

    def test_no_secret_variable_and_no_secret_policy(self):
        f = Fixture.get()
        stack = f"novacat-nosecrets-{os.getpid()}"
        d = Deployment(f.endpoint, stack, f.bucket, f.prefix,
                       table=f"{stack}-table", bus=f"{stack}-bus")
        d.assert_created(d.deploy())
        lam = d.client("lambda")
        for w in f.specs:
            env = lam.get_function_configuration(
                FunctionName=d.physical[pascal(w) + "Function"])[
                    "Environment"]["Variables"]
            self.assertEqual([k for k in env if k.endswith("_SECRET")], [], w)
        self.assertEqual([k for k in d.physical if "Secret" in k], [])
        self.assertEqual(function_problems(d, f.specs), [])
        self.assertEqual(iam_problems(d, f.specs), [])


class RedeployTest(unittest.TestCase):
    """scripts/deploy.sh run again: CloudFormation updates a function's code
    only when its S3 key changes, so deploy.sh puts the zips under a prefix
    named by their content. New step logic in one zip is deployed (every
    function then runs its zip); the same zips are the same keys."""

    def test_new_step_logic_is_deployed_and_the_same_zips_change_nothing(self):
        f = Fixture.get()
        stack = f"novacat-redeploy-{os.getpid()}"
        d = Deployment(f.endpoint, stack, f.bucket, f.prefix,
                       table=f"{stack}-table", bus=f"{stack}-bus")
        with tempfile.TemporaryDirectory() as build:
            os.mkdir(os.path.join(build, "lambda"))
            zips = {w: os.path.join(build, "lambda", f"{w}.zip") for w in f.specs}
            for w, path in zips.items():
                shutil.copyfile(ZIPS[w], path)
            # The secrets given (moto cannot update a stack holding a
            # resource whose condition is false: see the module's notes).
            d.overrides.update(make_secrets(d, stack))
            d.assert_created(d.deploy_script(build))
            want = {pascal(w) + "Function": zip_sha256(z) for w, z in zips.items()}
            self.assertEqual(d.code_sha256(), want)
            first_prefix = d.artifact_key_prefix()

            # initialize_nova's step logic changes: its zip gains a file.
            with zipfile.ZipFile(zips["initialize_nova"], "a") as z:
                z.writestr("CHANGED", "new step logic\n")
            status = d.deploy_script(build)
            self.assertEqual(status, 0, d.deploy_output)
            self.assertEqual(d.status()[0], "UPDATE_COMPLETE", d.explain_failure())
            want["InitializeNovaFunction"] = zip_sha256(zips["initialize_nova"])
            self.assertNotEqual(want["InitializeNovaFunction"],
                                zip_sha256(ZIPS["initialize_nova"]))
            self.assertEqual(d.code_sha256(), want)
            second_prefix = d.artifact_key_prefix()
            self.assertNotEqual(second_prefix, first_prefix)
            self.assertRegex(second_prefix, "^" + re.escape(f.prefix) + "[0-9a-f]{16}/$")

            # The same zips again: the same prefix, exit 0. (On AWS the
            # change set is empty: "No changes to deploy", which
            # --no-fail-on-empty-changeset makes exit 0; moto runs an
            # empty one.)
            status = d.deploy_script(build)
            self.assertEqual(status, 0, d.deploy_output)
            self.assertEqual(d.artifact_key_prefix(), second_prefix)
            # ... and nothing uploaded again.
            self.assertEqual(
                [line for line in d.deploy_output.splitlines()
                 if line.startswith("deploy: ")],
                [f"deploy: s3://{f.bucket}/{second_prefix}{w}.zip (already there)"
                 for w in sorted(zips)])
            self.assertEqual(d.code_sha256(), want)


class MutatedStackTest(unittest.TestCase):
    """Every check can fail: a mutated template deploys, and each check
    reports exactly the faults put in for it."""

    def test_each_check_reports_its_faults(self):
        f = Fixture.get()
        stack = f"novacat-mutant-{os.getpid()}"
        with open(TEMPLATE) as t:
            mutant, want = mutate(json.load(t))
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mutant.template.json")
            with open(path, "w") as out:
                json.dump(mutant, out, indent=2)
            d = Deployment(f.endpoint, stack, f.bucket, f.prefix, template=path,
                           table=f"{stack}-table", bus=f"{stack}-bus")
            d.assert_created(d.deploy())
            for check, problems in all_problems(d, f.specs).items():
                with self.subTest(check=check):
                    got = {(p[0], p[1]) for p in problems}
                    self.assertEqual(got, want[check],
                                     f"{check} reported:\n{render(problems)}")


if __name__ == "__main__":
    rest = [sys.argv[0]]
    for arg in sys.argv[1:]:
        if not arg.endswith(".zip"):
            rest.append(arg)  # unittest's own (a test name, -k ...)
            continue
        if not os.path.isfile(arg):
            sys.exit(f"{arg}: no such zip (build the lambda_zips target)")
        ZIPS[os.path.basename(arg)[:-len(".zip")]] = os.path.abspath(arg)
        BUILD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(arg)))
    unittest.main(argv=rest, verbosity=2)
