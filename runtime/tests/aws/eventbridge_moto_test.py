#!/usr/bin/env python3
"""EventBridgeBus on moto (ctest aws.moto.eventbridge_to_sqs, fixture
aws_moto): boto3 creates a bus, a rule matching {"source": [<workflow>],
"detail-type": [<event>]} as the stack's rules do, and an SQS queue as the
rule's target; `aws_publish_event` (EventBridgeBus) publishes; boto3 reads
back exactly one message whose source, detail-type and detail are exact.
Events of another workflow or another event name must not reach the queue.
Then 23 events through PublishAll (PutEvents calls of 10, 10 and 3 entries:
moto refuses a call of more than 10) all come back, each once.

    eventbridge_moto_test.py <aws_publish_event binary>
    (NOVACAT_MOTO_STATE names the fixture's state file)
"""
import json
import os
import subprocess
import sys

try:
    import boto3
except ImportError as e:
    sys.exit(f"boto3 is missing from {sys.executable} ({e}); "
             "scripts/setup.sh says what the tests need")

WORKFLOW = "initialize_nova"
EVENT = "ingest_new_nova"
DOCUMENT = {
    "nova_id": "4a9f6e3c-0c38-4d8e-9f51-2b0c8f3d1e77",
    "primary_name": "V1500 Cyg",
    "correlation_id": "c-1",
    "ra_deg": 315.25,
    "aliases": ["Nova Cygni 1975", "\u4e2d"],
    "flags": {"quarantined": False, "note": None},
}
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


def main(publisher):
    state = os.environ.get("NOVACAT_MOTO_STATE")
    if not state:
        sys.exit("NOVACAT_MOTO_STATE is not set (needs the aws_moto fixture)")
    with open(state) as f:
        endpoint = f.readline().strip()
    region = "eu-west-1"
    credentials = {"aws_access_key_id": "testing",
                   "aws_secret_access_key": "testing"}
    events = boto3.client("events", endpoint_url=endpoint, region_name=region,
                          **credentials)
    sqs = boto3.client("sqs", endpoint_url=endpoint, region_name=region,
                       **credentials)
    unique = f"novacat-{os.getpid()}"
    bus = f"{unique}-bus"
    events.create_event_bus(Name=bus)
    queue = sqs.create_queue(QueueName=f"{unique}-queue")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(
        QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name=f"{unique}-rule", EventBusName=bus,
                    EventPattern=json.dumps({"source": [WORKFLOW],
                                             "detail-type": [EVENT]}))
    events.put_targets(Rule=f"{unique}-rule", EventBusName=bus,
                       Targets=[{"Id": "queue", "Arn": queue_arn}])

    env = dict(os.environ, AWS_ENDPOINT_URL_EVENTS=endpoint,
               AWS_REGION=region, AWS_ACCESS_KEY_ID="testing",
               AWS_SECRET_ACCESS_KEY="testing")
    env.pop("AWS_SESSION_TOKEN", None)

    def publish(source, event, document):
        run = subprocess.run([publisher, bus, source, event,
                              json.dumps(document)], env=env,
                             capture_output=True, text=True, timeout=30)
        check(run.returncode == 0,
              f"publish {source}/{event} exited {run.returncode}: "
              f"{run.stderr.strip()}")

    # Neither of these matches the rule; then the one that does.
    publish("refresh_references", EVENT, {"other": 1})
    publish(WORKFLOW, "refresh_references", {"other": 2})
    publish(WORKFLOW, EVENT, DOCUMENT)

    messages = []
    for _ in range(3):
        got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10,
                                  WaitTimeSeconds=1).get("Messages", [])
        messages += got
        if messages and not got:
            break
    check(len(messages) == 1,
          f"one message on the queue, got {len(messages)}: "
          f"{[m['Body'] for m in messages]}")
    if messages:
        delivered = json.loads(messages[0]["Body"])
        check(delivered.get("source") == WORKFLOW,
              f"source {delivered.get('source')!r} == {WORKFLOW!r}")
        check(delivered.get("detail-type") == EVENT,
              f"detail-type {delivered.get('detail-type')!r} == {EVENT!r}")
        check(delivered.get("detail") == DOCUMENT,
              f"detail {delivered.get('detail')!r} == {DOCUMENT!r}")
        print("delivered:", messages[0]["Body"])

    # A sweep's batch: 23 events, each delivered once.
    batch = [dict(DOCUMENT, nova_id=f"nova-{n:02d}") for n in range(23)]
    run = subprocess.run([publisher, bus, WORKFLOW, EVENT]
                         + [json.dumps(d) for d in batch], env=env,
                         capture_output=True, text=True, timeout=60)
    check(run.returncode == 0,
          f"PublishAll of 23 exited {run.returncode}: {run.stderr.strip()}")
    received = []
    for _ in range(10):
        got = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10,
                                  WaitTimeSeconds=1).get("Messages", [])
        received += [json.loads(m["Body"])["detail"] for m in got]
        if len(received) >= len(batch) and not got:
            break
    received.sort(key=lambda d: d.get("nova_id", ""))
    check(received == batch,
          f"the 23 events came back once each: got {len(received)}: "
          f"{[d.get('nova_id') for d in received]}")

    # A bus that does not exist: TERMINAL, with moto's words.
    run = subprocess.run([publisher, f"{unique}-missing", WORKFLOW, EVENT,
                          json.dumps(DOCUMENT)], env=env,
                         capture_output=True, text=True, timeout=30)
    expected = (f"TERMINAL: PutEvents {EVENT} to {unique}-missing: "
                f"EventBridge ResourceNotFoundException: Event bus "
                f"{unique}-missing does not exist.")
    check(run.returncode == 2 and run.stderr.strip() == expected,
          f"a missing bus is TERMINAL: exit {run.returncode}, "
          f"{run.stderr.strip()!r} == {expected!r}")

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("EventBridgeBus -> moto EventBridge -> rule -> SQS: exact")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} <aws_publish_event binary>")
    sys.exit(main(sys.argv[1]))
