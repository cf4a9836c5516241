"""The seed example on the deployable pieces, against `novacat run` on SQLite.

  end_to_end_test.py NOVACAT ZIP...

The packaged Lambda functions (the zips, unpacked) run on @vercel/fun behind
a Lambda Invoke endpoint on 127.0.0.1 (tests/tools/lambda_invoke_server.mjs),
over DynamoDB on dynalite (the table made as the stack's NovaCatTable) and
EventBridge on moto (a bus with the stack's rules, each targeting an SQS
queue in place of the consumer's state machine, so the test sees what was
routed, and one more rule sending every published event to a second
queue). The local executor runs the generated definitions and every Task
invokes the function (`novacat run --function`, what Step Functions'
lambda:invoke does); the test then plays EventBridge's targets: each routed
event starts its consumer the same way, until no event is left.

The same name then runs through `novacat run --follow` on SQLite. Both must
end with the same runs (workflow, status, outcome), the same JobRuns and
Attempts (ids and times aside) and the same events. Then the event that
started ingest_new_nova is delivered a second time (EventBridge delivers at
least once): the second run ends DUPLICATE_SKIPPED by its idempotency key.
Last, refresh_references' per-nova schedule: its function, invoked with the
stack's schedule Input, publishes one event per nova, which the stack's rule
routes back to refresh_references.
Fixtures: store_dynalite (NOVACAT_DYNALITE_STATE), aws_moto
(NOVACAT_MOTO_STATE).
"""

import faulthandler
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import invoke_server  # noqa: E402
from lambda_package_test import (ROOT, create_table, dynalite_endpoint,  # noqa: E402
                                 start_replay, stop_replay, unpack)

NOVACAT = None
ZIPS = []
REGION = "us-east-1"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret",
               "AWS_REGION": REGION}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")
INPUT = {"candidate_name": "V1500 Cygni"}


def moto_endpoint():
    state = os.environ.get("NOVACAT_MOTO_STATE")
    if not state:
        raise SystemExit("NOVACAT_MOTO_STATE is not set (ctest fixture aws_moto)")
    with open(state) as f:
        return f.readline().strip()


def stack():
    with open(os.path.join(ROOT, "generated", "stack.template.json")) as f:
        return json.load(f)


def consumers_by_route(template):
    """Route logical id -> (publisher, event, consumer workflow)."""
    by_logical_id = {}
    for name, resource in template["Resources"].items():
        if resource["Type"] == "AWS::Lambda::Function":
            workflow = resource["Properties"]["Environment"]["Variables"]["NOVACAT_WORKFLOW"]
            by_logical_id[name.removesuffix("Function") + "StateMachine"] = workflow
    routes = {}
    for name, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Events::Rule":
            continue
        pattern = resource["Properties"]["EventPattern"]
        target = resource["Properties"]["Targets"][0]["Arn"]
        if "Ref" not in target:
            continue  # a reaper: it invokes a function (test_reaper)
        routes[name] = (pattern, by_logical_id[target["Ref"]])
    return routes


def normalized(value):
    """Ids and times replaced by placeholders, for comparing two runs."""
    text = json.dumps(value, sort_keys=True)
    text = UUID.sub("<uuid>", text)
    text = TIME.sub("<time>", text)
    return json.loads(text)


class EndToEndTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import boto3
        cls.tmp = tempfile.TemporaryDirectory()
        tmp = cls.tmp.name
        cls.table = "NovaCatE2E%d" % os.getpid()
        cls.bus = "novacat-e2e-%d" % os.getpid()
        cls.dynalite = dynalite_endpoint()
        cls.moto = moto_endpoint()
        create_table(cls.dynalite, cls.table)
        session = dict(region_name=REGION, aws_access_key_id="AKIDEXAMPLE",
                       aws_secret_access_key="secret", endpoint_url=cls.moto)
        events = boto3.client("events", **session)
        # The catalog's bucket (the stack's NovaCatCatalogBucket) on moto's S3.
        cls.bucket = "novacat-e2e-%d" % os.getpid()
        cls.s3 = boto3.client("s3", **session)
        cls.s3.create_bucket(Bucket=cls.bucket)
        cls.sqs = boto3.client("sqs", **session)
        cls.queue = cls.sqs.create_queue(QueueName=cls.bus)["QueueUrl"]
        queue_arn = cls.sqs.get_queue_attributes(
            QueueUrl=cls.queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.create_event_bus(Name=cls.bus)
        cls.routes = consumers_by_route(stack())
        for name, (pattern, _) in cls.routes.items():
            events.put_rule(Name=name, EventBusName=cls.bus,
                            EventPattern=json.dumps(pattern))
            events.put_targets(Rule=name, EventBusName=cls.bus,
                               Targets=[{"Id": "queue", "Arn": queue_arn}])
        # Every event any workflow publishes, routed or not (a second queue).
        cls.published = cls.sqs.create_queue(QueueName=cls.bus + "-all")["QueueUrl"]
        published_arn = cls.sqs.get_queue_attributes(
            QueueUrl=cls.published, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        workflows = sorted(os.path.basename(z)[:-len(".zip")] for z in ZIPS)
        events.put_rule(Name="Everything", EventBusName=cls.bus,
                        EventPattern=json.dumps({"source": workflows}))
        events.put_targets(Rule="Everything", EventBusName=cls.bus,
                           Targets=[{"Id": "queue", "Arn": published_arn}])
        functions = {}
        for zip_path in ZIPS:
            workflow = os.path.basename(zip_path)[:-len(".zip")]
            folder = os.path.join(tmp, workflow)
            os.mkdir(folder)
            unpack(zip_path, folder)
            functions[workflow] = folder
        # The functions ask the archives' recorded answers through the same
        # clients as the real services: a replay server's URLs.
        cls.replay, archives = start_replay(NOVACAT)
        config = {"functions": functions, "region": REGION,
                  "access_key_id": "AKIDEXAMPLE", "secret_access_key": "secret",
                  "environment": {**archives,
                                  "NOVACAT_TABLE_NAME": cls.table,
                                  "NOVACAT_EVENT_BUS_NAME": cls.bus,
                                  "AWS_ENDPOINT_URL_DYNAMODB": cls.dynalite,
                                  "AWS_ENDPOINT_URL_EVENTS": cls.moto,
                                  "NOVACAT_BUCKET": cls.bucket,
                                  "AWS_ENDPOINT_URL_S3": cls.moto}}
        cls.functions_log = open(os.path.join(tmp, "functions.log"), "w")
        cls.server, cls.invoke = invoke_server.start(tmp, config,
                                                     cls.functions_log)
        cls.env = dict(os.environ, **CREDENTIALS,
                       AWS_ENDPOINT_URL_DYNAMODB=cls.dynalite,
                       AWS_ENDPOINT_URL_LAMBDA=cls.invoke)
        try:
            cls.remote = cls.run_chain()
            cls.local = cls.run_local()
        except BaseException:
            cls.tearDownClass()  # unittest skips it when setUpClass fails
            raise

    @classmethod
    def tearDownClass(cls):
        invoke_server.stop(cls.server)
        cls.functions_log.close()
        cls.tmp.cleanup()
        # Every question the functions asked had its recorded answer (an
        # error here fails the run, as unittest reports tearDownClass's).
        unmatched = stop_replay(cls.replay)
        if unmatched:
            raise AssertionError("requests without a recording:\n" +
                                 "\n".join(unmatched))

    @classmethod
    def functions_log_tail(cls):
        cls.functions_log.flush()
        with open(cls.functions_log.name) as log:
            return log.read()[-6000:]

    @classmethod
    def novacat(cls, *args):
        try:
            return subprocess.run([NOVACAT, *args], cwd=ROOT, env=cls.env,
                                  capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired as e:
            # The folder goes with the test: what the functions printed is
            # the only trace of where the invocation waited.
            tail = cls.functions_log_tail()
            err = e.stderr
            if isinstance(err, bytes):
                err = err.decode("utf-8", "replace")
            raise AssertionError(
                "novacat %s did not end in 300 s; its stderr:\n%s\n"
                "the functions' log (last 6,000 characters):\n%s"
                % (" ".join(args), err or "", tail)) from e

    @classmethod
    def run_remote(cls, workflow, event):
        answer = cls.novacat("run", workflow, "--dynamodb", cls.table,
                             "--function", workflow, "--input", json.dumps(event))
        if answer.returncode != 0:
            raise AssertionError("novacat run %s --function: exit %d\n%s\n%s" % (
                workflow, answer.returncode, answer.stdout, answer.stderr))
        (run,) = json.loads(answer.stdout)["runs"]
        return run

    @classmethod
    def routed_events(cls, queue=None):
        """Every event the rules delivered to the queue since the last call."""
        queue = queue or cls.queue
        events = []
        while True:
            answer = cls.sqs.receive_message(QueueUrl=queue,
                                             MaxNumberOfMessages=10, WaitTimeSeconds=1)
            messages = answer.get("Messages", [])
            if not messages:
                return events
            for m in messages:
                events.append(json.loads(m["Body"]))
                cls.sqs.delete_message(QueueUrl=queue, ReceiptHandle=m["ReceiptHandle"])

    @classmethod
    def consumer_of(cls, envelope):
        matches = [consumer for pattern, consumer in cls.routes.values()
                   if envelope["source"] in pattern["source"]
                   and envelope["detail-type"] in pattern["detail-type"]]
        assert len(matches) == 1, (envelope, matches)
        return matches[0]

    @classmethod
    def run_chain(cls):
        seeded = cls.novacat("seed", "--dynamodb", cls.table)
        assert seeded.returncode == 0, seeded.stderr
        runs = [dict(cls.run_remote("initialize_nova", INPUT), events=[])]
        pending = [runs[0]]
        cls.ingest_event = None
        while pending:
            run = pending.pop(0)
            for envelope in cls.routed_events(cls.published):
                producer = next(r for r in runs if r["workflow"] == envelope["source"])
                producer["events"].append(
                    {"event": envelope["detail-type"], "detail": envelope["detail"]})
            for envelope in cls.routed_events():
                consumer = cls.consumer_of(envelope)
                if consumer == "ingest_new_nova":
                    cls.ingest_event = envelope["detail"]
                started = dict(cls.run_remote(consumer, envelope["detail"]), events=[],
                               started_by=envelope["source"])
                runs.append(started)
                pending.append(started)
        return runs

    @classmethod
    def run_local(cls):
        db = os.path.join(cls.tmp.name, "local.db")
        seeded = cls.novacat("seed", "--db", db)
        assert seeded.returncode == 0, seeded.stderr
        answer = cls.novacat("run", "initialize_nova", "--db", db, "--follow",
                             "--input", json.dumps(INPUT))
        assert answer.returncode == 0, answer.stderr
        cls.local_db = db
        return json.loads(answer.stdout)["runs"]

    def summary(self, runs):
        return sorted((r["workflow"], r["status"], r.get("outcome")) for r in runs)

    def test_same_runs(self):
        self.assertEqual(self.summary(self.remote), self.summary(self.local))
        self.assertEqual(self.summary(self.remote), [
            ("discover_spectra_products", "SUCCEEDED", "DISCOVERED"),
            ("download_and_validate_spectra", "SUCCEEDED", "VALIDATED"),
            ("ingest_new_nova", "SUCCEEDED", "LAUNCHED"),
            ("initialize_nova", "SUCCEEDED", "EXISTS_AND_LAUNCHED"),
            ("refresh_references", "SUCCEEDED", "REFRESHED"),
        ])

    def test_same_job_runs(self):
        def job_runs(runs):
            return sorted((normalized({k: v for k, v in r["job_run"].items()
                                      if k not in ("PK", "SK", "execution_arn")})
                           for r in runs), key=json.dumps)
        self.assertEqual(job_runs(self.remote), job_runs(self.local))

    def test_same_events(self):
        def events(runs):
            return sorted((r["workflow"], e["event"], json.dumps(normalized(e["detail"]),
                                                                 sort_keys=True))
                          for r in runs for e in r["events"])
        remote, local = events(self.remote), events(self.local)
        self.assertEqual(remote, local)
        self.assertEqual(len(local), 10)

    def test_downloads_land_in_the_bucket(self):
        # The VALID datasets' files (the products the recorded ESO and MAST
        # answers name, fixtures/archives/), put by the function on S3 under
        # their SHA-256, with the bytes of the files the mirrors name.
        import hashlib
        keys = sorted(o["Key"] for o in
                      self.s3.list_objects_v2(Bucket=self.bucket).get("Contents", []))
        self.assertEqual([k.rsplit("/", 1)[0] for k in keys], [
            "raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/326baf4c-1981-5d3e-a9c2-55908a6c93b6",
            "raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/475cb1a5-dbc4-5b30-b5e2-fabfd76e9d50",
            "raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/7f45e844-3d27-5d6c-a36b-e3f21dbd146f",
            "raw/d4bbdda3-6824-4e82-b1ce-1b781190fbec/972ca194-26e0-5628-91be-4579aac67555"])
        bodies = []
        for key in keys:
            body = self.s3.get_object(Bucket=self.bucket, Key=key)["Body"].read()
            self.assertEqual(key.rsplit("/", 1)[1],
                             hashlib.sha256(body).hexdigest() + ".fits")
            bodies.append(body)
        expected = []
        # fixtures/spectra/mirrors.json: ESO's two (by URL, by dp_id), MAST's
        # SWP and LWR spectra (the LWR one gzip-compressed, as MAST serves
        # IUE's, and stored as served).
        for fixture in ["valid_image_wcs.fits", "valid_table.fits",
                        "valid_table.fits", "iue_swp_mxlo.fits.gz"]:
            with open(os.path.join(ROOT, "fixtures", "spectra", fixture), "rb") as f:
                expected.append(f.read())
        self.assertEqual(sorted(bodies), sorted(expected))

    def attempts_remote(self):
        import boto3
        client = boto3.client("dynamodb", endpoint_url=self.dynalite, region_name=REGION,
                              aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
        from boto3.dynamodb.types import TypeDeserializer
        d = TypeDeserializer()
        items = []
        for page in client.get_paginator("scan").paginate(TableName=self.table):
            items += [{k: d.deserialize(v) for k, v in i.items()} for i in page["Items"]]
        return items

    def test_same_attempts(self):
        def key(item):
            return (item["state_name"], int(item["attempt_number"]), item["status"],
                    int(item.get("map_item_index", -1)))
        remote_runs = {r["job_run"]["job_run_id"]: r["workflow"] for r in self.remote}
        local_runs = {r["job_run"]["job_run_id"]: r["workflow"] for r in self.local}
        remote = sorted((remote_runs[i["job_run_id"]],) + key(i)
                        for i in self.attempts_remote()
                        if i.get("entity") == "Attempt" and i["job_run_id"] in remote_runs)
        with sqlite3.connect(self.local_db) as db:
            bodies = [json.loads(b) for (b,) in db.execute("SELECT body FROM items")]
        local = sorted((local_runs[i["job_run_id"]],) + key(i) for i in bodies
                       if i.get("entity") == "Attempt" and i["job_run_id"] in local_runs)
        self.assertEqual(remote, local)
        self.assertGreater(len(local), 20)

    def test_a_second_delivery_is_a_duplicate(self):
        self.assertIsNotNone(self.ingest_event)
        again = self.run_remote("ingest_new_nova", self.ingest_event)
        self.assertEqual((again["status"], again["outcome"]),
                         ("SUCCEEDED", "DUPLICATE_SKIPPED"))
        # No side effect repeated: nothing published, nothing routed.
        self.assertEqual(self.routed_events(self.published), [])
        self.assertEqual(self.routed_events(), [])

    def call_function(self, workflow, payload):
        import boto3
        import botocore.config
        client = boto3.client("lambda", endpoint_url=self.invoke, region_name=REGION,
                              aws_access_key_id="AKIDEXAMPLE",
                              aws_secret_access_key="secret",
                              config=botocore.config.Config(
                                  read_timeout=300,
                                  retries={"total_max_attempts": 1}))
        answer = client.invoke(FunctionName=workflow,
                               Payload=json.dumps(payload).encode())
        body = json.loads(answer["Payload"].read())
        self.assertNotIn("FunctionError", answer, body)
        return body

    def test_reaper(self):
        """An execution stopped on AWS after its run took the lock: Step
        Functions' status change, matched by the stack's IngestNewNovaReaper
        pattern on moto's EventBridge (a copy on the test's bus, its target
        an SQS queue, as the routes'), is delivered to the function, which
        finalizes the run ABORTED and releases its lock; a second delivery
        changes nothing."""
        import boto3
        gk_per = "86cb14e8-2bf7-4bec-9837-df4287f58a01"
        arn = ("arn:aws:states:%s:123456789012:execution:ingest_new_nova:"
               "stopped-%d" % (REGION, os.getpid()))
        machine = "arn:aws:states:%s:123456789012:stateMachine:ingest_new_nova" % REGION

        def task(state_name, state):
            return self.call_function("ingest_new_nova", {
                "workflow": "ingest_new_nova", "state_name": state_name,
                "execution_arn": arn, "retry_count": 0, "state": state})
        begun = task("BeginJobRun", {
            "nova_id": gk_per, "correlation_id": "0e6f1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c"})
        locked = task("AcquireIdempotencyLock", begun)
        self.assertEqual(locked["idempotency_status"], "ACQUIRED")
        run, key = begun["job_run_id"], locked["workflow_idempotency_key"]

        session = dict(region_name=REGION, aws_access_key_id="AKIDEXAMPLE",
                       aws_secret_access_key="secret", endpoint_url=self.moto)
        events = boto3.client("events", **session)
        pattern = stack()["Resources"]["IngestNewNovaReaper"]["Properties"]["EventPattern"]
        pattern["detail"]["stateMachineArn"] = [machine]
        queue = self.sqs.create_queue(QueueName=self.bus + "-reaper")["QueueUrl"]
        queue_arn = self.sqs.get_queue_attributes(
            QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        events.put_rule(Name="IngestNewNovaReaper", EventBusName=self.bus,
                        EventPattern=json.dumps(pattern))
        events.put_targets(Rule="IngestNewNovaReaper", EventBusName=self.bus,
                           Targets=[{"Id": "queue", "Arn": queue_arn}])
        events.put_events(Entries=[{
            "Source": "aws.states", "EventBusName": self.bus,
            "DetailType": "Step Functions Execution Status Change",
            "Detail": json.dumps({"executionArn": arn, "stateMachineArn": machine,
                                  "status": "ABORTED", "input": "{}"})}])
        delivered = self.routed_events(queue)
        self.assertEqual(len(delivered), 1, delivered)

        answer = self.call_function("ingest_new_nova", delivered[0])
        self.assertEqual(answer, {"reaped": arn, "status": "ABORTED",
                                  "job_run": "FINALIZED", "lock": "RELEASED",
                                  "leases_released": []})
        items = self.attempts_remote()
        job_run = [i for i in items if i.get("entity") == "JobRun"
                   and i["job_run_id"] == run]
        self.assertEqual([(r["status"], r["error_classification"]) for r in job_run],
                         [("FAILED", "ABORTED")])
        self.assertEqual([i for i in items if i.get("entity") == "Lock"
                          and i["idempotency_key"] == key], [])
        again = self.call_function("ingest_new_nova", delivered[0])
        self.assertEqual((again["job_run"], again["lock"]), ("ALREADY_FINAL", "NOT_HELD"))

    def test_the_per_nova_schedule(self):
        """refresh_references' schedule, as EventBridge Scheduler runs it: the
        function gets the stack's Input, publishes one refresh_references
        event per nova, and the stack's RefreshReferencesScheduleRoute takes
        each to the state machine. V1500 Cyg was refreshed by the chain
        today: its run is a duplicate; GK Per's refreshes."""
        import boto3
        import botocore.config
        import botocore.exceptions
        schedule = stack()["Resources"]["RefreshReferencesSchedule"]["Properties"]
        self.assertEqual(schedule["Target"]["Arn"],
                         {"Fn::GetAtt": ["RefreshReferencesFunction", "Arn"]})
        # One attempt (a second would publish again), as long as novacat's.
        client = boto3.client("lambda", endpoint_url=self.invoke, region_name=REGION,
                              aws_access_key_id="AKIDEXAMPLE",
                              aws_secret_access_key="secret",
                              config=botocore.config.Config(
                                  read_timeout=300,
                                  retries={"total_max_attempts": 1}))
        try:
            answer = client.invoke(FunctionName="refresh_references",
                                   Payload=schedule["Target"]["Input"].encode())
        except botocore.exceptions.ReadTimeoutError as e:
            raise AssertionError(
                "refresh_references' schedule did not answer in 300 s; the "
                "functions' log (last 6,000 characters):\n%s"
                % self.functions_log_tail()) from e
        self.assertNotIn("FunctionError", answer)
        self.assertEqual(json.loads(answer["Payload"].read()),
                         {"for_each": "nova", "published": 2})
        gk_per = "86cb14e8-2bf7-4bec-9837-df4287f58a01"
        v1500 = "d4bbdda3-6824-4e82-b1ce-1b781190fbec"
        published = self.routed_events(self.published)
        self.assertEqual(sorted((e["source"], e["detail-type"], json.dumps(e["detail"]))
                                for e in published),
                         [("refresh_references", "refresh_references",
                           json.dumps({"nova_id": n})) for n in (gk_per, v1500)])
        routed = self.routed_events()
        self.assertEqual(sorted(self.consumer_of(e) for e in routed),
                         ["refresh_references", "refresh_references"])
        outcomes = sorted((e["detail"]["nova_id"],
                           self.run_remote("refresh_references", e["detail"])["outcome"])
                          for e in routed)
        self.assertEqual(outcomes, [(gk_per, "REFRESHED"), (v1500, "DUPLICATE_SKIPPED")])
        # What GK Per's refresh published starts nothing.
        self.routed_events(self.published)
        self.assertEqual(self.routed_events(), [])


# Under ctest's TIMEOUT (600 s): a run that hangs says where, with every
# thread's stack and the functions' log, before ctest would kill it silently
# (NOVACAT_E2E_WATCHDOG_SECONDS sets it, to see it work).
WATCHDOG_SECONDS = int(os.environ.get("NOVACAT_E2E_WATCHDOG_SECONDS", "540"))


def watchdog():
    sys.stderr.write("end_to_end_test: still running after %d s; the stacks:\n"
                     % WATCHDOG_SECONDS)
    faulthandler.dump_traceback(all_threads=True)
    log = getattr(EndToEndTest, "functions_log", None)
    if log is not None and not log.closed:
        sys.stderr.write("the functions' log (its end):\n" +
                         EndToEndTest.functions_log_tail() + "\n")
    sys.stderr.flush()
    os._exit(1)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    NOVACAT = os.path.realpath(sys.argv[1])
    ZIPS = [os.path.realpath(z) for z in sys.argv[2:]]
    timer = threading.Timer(WATCHDOG_SECONDS, watchdog)
    timer.daemon = True
    timer.start()
    result = unittest.TextTestRunner(verbosity=2).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(EndToEndTest))
    sys.exit(0 if result.wasSuccessful() else 1)
