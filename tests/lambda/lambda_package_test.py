"""The Lambda packages (<build>/lambda/<workflow>.zip), as Lambda runs them.

  lambda_package_test.py self-contained ZIP...
      Unpacks each zip and starts its `bootstrap` against a scripted Runtime
      API on 127.0.0.1 (this file's FakeRuntimeApi). One invocation makes the
      function resolve a host name through glibc's NSS and connect to
      DynamoDB (refused); while the function then waits for
      its next invocation, every file mapped into its process must lie in
      the unpacked folder: nothing is loaded from this machine. Also checks
      the failure comes back as Lambda's error document, and that a missing
      NOVACAT_TABLE_NAME is reported on the init endpoint.

  lambda_package_test.py invoke NOVACAT ZIP
      Runs initialize_nova's zip on @vercel/fun (tests/tools/fun_invoke.mjs)
      over DynamoDB on dynalite (NOVACAT_DYNALITE_STATE, the store's ctest
      fixture), with the table made from the stack's NovaCatTable, its
      archive clients pointed at `NOVACAT sources replay` (the recorded
      answers), and invokes it with the payloads the generated ASL sends: a
      Task that succeeds, and a TERMINAL, QUARANTINE and RETRYABLE failure
      (SIMBAD's answers to two names), each a FunctionError with the
      errorType Retry and Catch match.
"""

import http.server
import json
import os
import queue
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
ZIPS = []
NOVACAT = None
MODE = None


def unpack(zip_path, into):
    with zipfile.ZipFile(zip_path) as archive:
        for info in archive.infolist():
            archive.extract(info, into)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(os.path.join(into, info.filename), mode)


class FakeRuntimeApi:
    """The Runtime API: hands out the queued invocations, records answers."""

    def __init__(self):
        self.invocations = queue.Queue()
        self.posts = queue.Queue()
        self.waiting = threading.Event()  # a `next` is waiting
        api = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path != "/2018-06-01/runtime/invocation/next":
                    self.send_error(404)
                    return
                api.waiting.set()
                while True:
                    try:
                        request_id, payload = api.invocations.get(timeout=0.1)
                        break
                    except queue.Empty:
                        if api.closing:
                            return
                api.waiting.clear()
                body = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Lambda-Runtime-Aws-Request-Id", request_id)
                self.send_header("Lambda-Runtime-Deadline-Ms",
                                 str(int(time.time() * 1000) + 300000))
                self.send_header("Lambda-Runtime-Invoked-Function-Arn",
                                 "arn:aws:lambda:us-east-1:000000000000:function:f")
                self.send_header("Lambda-Runtime-Trace-Id", "Root=1-5e1b4151-5ac6c58f5b5dbd6a2b1d7a11")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length).decode()
                api.posts.put((self.path,
                               self.headers.get("Lambda-Runtime-Function-Error-Type"),
                               json.loads(body) if body else None))
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.closing = False
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self):
        return "127.0.0.1:%d" % self.server.server_address[1]

    def close(self):
        self.closing = True
        self.server.shutdown()
        self.server.server_close()


def start_bootstrap(folder, api, environment, handler):
    env = {"PATH": "/usr/bin:/bin", "LAMBDA_TASK_ROOT": folder,
           "AWS_LAMBDA_RUNTIME_API": api.endpoint, "_HANDLER": handler,
           "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE",
           "AWS_SECRET_ACCESS_KEY": "secret"}
    env.update(environment)
    return subprocess.Popen([os.path.join(folder, "bootstrap")], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def mapped_files(pid):
    files = set()
    with open("/proc/%d/maps" % pid) as maps:
        for line in maps:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/"):
                files.add(parts[5].strip())
    return files


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SelfContainedTest(unittest.TestCase):
    def test_every_zip_loads_only_what_it_ships(self):
        for zip_path in ZIPS:
            workflow = os.path.basename(zip_path)[:-len(".zip")]
            with self.subTest(workflow=workflow), tempfile.TemporaryDirectory() as tmp:
                folder = os.path.realpath(tmp)
                unpack(zip_path, folder)
                self.assertEqual(
                    sorted(os.listdir(folder))[:3], ["bin", "bootstrap", "lib"])
                api = FakeRuntimeApi()
                process = start_bootstrap(folder, api, {
                    "NOVACAT_TABLE_NAME": "NovaCat",
                    "AWS_ENDPOINT_URL": "http://127.0.0.1:%d" % free_port(),
                }, workflow)
                try:
                    api.invocations.put(("req-1", {
                        "workflow": workflow, "state_name": "BeginJobRun",
                        "execution_arn": "arn:aws:states:us-east-1:000000000000:execution:x:1",
                        "retry_count": 0, "state": {}}))
                    path, error_type, body = api.posts.get(timeout=60)
                    self.assertEqual(path, "/2018-06-01/runtime/invocation/req-1/error")
                    self.assertIn(error_type, ("TerminalError", "RetryableError"))
                    self.assertEqual(sorted(body), ["errorMessage", "errorType"])
                    self.assertEqual(body["errorType"], error_type)
                    self.assertTrue(api.waiting.wait(30), "no second `next`")
                    mapped = mapped_files(process.pid)
                    outside = sorted(f for f in mapped if not f.startswith(folder + "/"))
                    self.assertEqual(outside, [], "loaded from outside the package")
                    self.assertIn(folder + "/bin/" + workflow, mapped)
                    self.assertIn(folder + "/lib/libc.so.6", mapped)
                    self.assertIn(folder + "/lib/ld-linux-x86-64.so.2", mapped)
                finally:
                    process.kill()
                    process.communicate()
                    api.close()

    def test_the_connection_failure_is_retryable(self):
        # BeginJobRun's JobRun write reaches no DynamoDB: RETRYABLE, so the
        # generated Retry retries it.
        zip_path = next(z for z in ZIPS if z.endswith("/initialize_nova.zip"))
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.realpath(tmp)
            unpack(zip_path, folder)
            api = FakeRuntimeApi()
            # This machine's name, which glibc resolves through NSS (curl
            # answers "localhost" itself).
            host = socket.gethostname()
            socket.getaddrinfo(host, 80)
            process = start_bootstrap(folder, api, {
                "NOVACAT_TABLE_NAME": "NovaCat",
                "AWS_ENDPOINT_URL": "http://%s:%d" % (host, free_port())},
                "initialize_nova")
            try:
                api.invocations.put(("req-2", {
                    "workflow": "initialize_nova", "state_name": "BeginJobRun",
                    "execution_arn": "arn:aws:states:us-east-1:000000000000:execution:x:2",
                    "retry_count": 0, "state": {"candidate_name": "V1500 Cygni"}}))
                path, error_type, body = api.posts.get(timeout=60)
                self.assertEqual(path, "/2018-06-01/runtime/invocation/req-2/error")
                self.assertEqual(error_type, "RetryableError")
                self.assertEqual(body["errorType"], "RetryableError")
                # Resolved (through the packaged libc's NSS), then refused.
                self.assertIn("Couldn't connect to server", body["errorMessage"])
                self.assertTrue(api.waiting.wait(30), "no second `next`")
                mapped = mapped_files(process.pid)
                outside = sorted(f for f in mapped if not f.startswith(folder + "/"))
                self.assertEqual(outside, [], "loaded from outside the package")
            finally:
                process.kill()
                process.communicate()
                api.close()

    def init_error(self, environment, handler):
        """What a package reports on init/error with `environment`."""
        zip_path = next(z for z in ZIPS if z.endswith("/initialize_nova.zip"))
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.realpath(tmp)
            unpack(zip_path, folder)
            api = FakeRuntimeApi()
            process = start_bootstrap(folder, api, environment, handler)
            try:
                path, error_type, body = api.posts.get(timeout=60)
                self.assertEqual(path, "/2018-06-01/runtime/init/error")
                self.assertEqual(error_type, body["errorType"])
                self.assertEqual(process.wait(timeout=30), 1)
                return body
            finally:
                process.kill()
                process.communicate()
                api.close()

    def test_missing_table_name_is_an_init_error(self):
        self.assertEqual(self.init_error({}, "initialize_nova"), {
            "errorType": "TerminalError",
            "errorMessage": "NOVACAT_TABLE_NAME is not set: it names "
                            "the NovaCat table (the stack sets it)"})

    def test_another_workflows_handler_is_an_init_error(self):
        self.assertEqual(self.init_error({"NOVACAT_TABLE_NAME": "NovaCat"},
                                         "ingest_new_nova"), {
            "errorType": "TerminalError",
            "errorMessage": "_HANDLER is 'ingest_new_nova' but this package "
                            "runs initialize_nova: the function has another "
                            "workflow's zip"})


def dynalite_endpoint():
    state = os.environ.get("NOVACAT_DYNALITE_STATE")
    if not state:
        raise SystemExit("NOVACAT_DYNALITE_STATE is not set (ctest fixture store_dynalite)")
    with open(state) as f:
        return f.readline().strip()


def create_table(endpoint, name):
    """The table exactly as the stack declares NovaCatTable."""
    import boto3
    with open(os.path.join(ROOT, "generated", "stack.template.json")) as f:
        table = json.load(f)["Resources"]["NovaCatTable"]["Properties"]
    client = boto3.client("dynamodb", endpoint_url=endpoint, region_name="us-east-1",
                          aws_access_key_id="AKIDEXAMPLE", aws_secret_access_key="secret")
    client.create_table(TableName=name, KeySchema=table["KeySchema"],
                        AttributeDefinitions=table["AttributeDefinitions"],
                        GlobalSecondaryIndexes=table["GlobalSecondaryIndexes"],
                        BillingMode=table["BillingMode"])
    client.get_waiter("table_exists").wait(TableName=name)


def start_replay(novacat):
    """`novacat sources replay` over fixtures/archives on a free port.

    Returns the process and the environment that points a function's
    archive clients at it: every NOVACAT_*_URL, NOVACAT_SOURCES=recorded
    (placeholder secrets, no pace) and the spectra mirrors.
    """
    process = subprocess.Popen(
        [novacat, "sources", "replay", "--fixtures", os.path.join(ROOT, "fixtures")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    environment = {"NOVACAT_SOURCES": "recorded",
                   "NOVACAT_MIRRORS": os.path.join(ROOT, "fixtures", "spectra",
                                                   "mirrors.json")}
    for _ in range(6):
        line = process.stdout.readline().strip()
        name, equals, url = line.partition("=")
        if not equals or not name.startswith("NOVACAT_"):
            process.kill()
            raise RuntimeError("novacat sources replay did not start: %r %s"
                               % (line, process.stderr.read()))
        environment[name] = url
    return process, environment


def stop_replay(process):
    """Stops the replay server; the requests it had no recording for."""
    process.terminate()
    _, errors = process.communicate(timeout=30)
    return [l for l in errors.splitlines() if "no recording for" in l]


def payload(state_name, state, retry_count=0):
    return {"workflow": "initialize_nova", "state_name": state_name,
            "execution_arn": "arn:aws:states:us-east-1:000000000000:execution:InitializeNova:e1",
            "retry_count": retry_count, "state": state}


class FunTest(unittest.TestCase):
    def test_invocations_on_vercel_fun(self):
        zip_path = next(z for z in ZIPS if z.endswith("/initialize_nova.zip"))
        endpoint = dynalite_endpoint()
        table = "NovaCatFun%d" % os.getpid()
        create_table(endpoint, table)
        correlation = "0f0e0d0c-0b0a-4908-8706-050403020100"
        job_run = "1a2b3c4d-1111-4222-8333-444455556666"
        resolved = {"candidate_name": "x", "correlation_id": correlation,
                    "job_run_id": job_run}
        replay, archives = start_replay(NOVACAT)
        self.addCleanup(lambda: replay.poll() is None and replay.kill())
        with tempfile.TemporaryDirectory() as tmp:
            folder = os.path.realpath(tmp)
            unpack(zip_path, folder)
            request = {
                "directory": folder, "handler": "initialize_nova",
                "environment": dict(archives, NOVACAT_TABLE_NAME=table,
                                    AWS_ENDPOINT_URL_DYNAMODB=endpoint,
                                    AWS_ENDPOINT_URL_EVENTS="http://127.0.0.1:9"),
                "region": "us-east-1", "access_key_id": "AKIDEXAMPLE",
                "secret_access_key": "secret",
                "payloads": [
                    payload("BeginJobRun", {"candidate_name": "V1500 Cygni"}),
                    payload("BeginJobRun", {"candidate_name": 42}),
                    payload("ResolveCandidateAgainstPublicArchives",
                            dict(resolved, normalized_candidate_name="NOVA SGR 2015")),
                    payload("ResolveCandidateAgainstPublicArchives",
                            dict(resolved, normalized_candidate_name="V339 DEL")),
                    payload("NoSuchState", {}),
                ],
                "output": os.path.join(tmp, "results.json")}
            node = os.path.join(ROOT, "tests", "tools", "node_modules", ".bin", "node")
            if not os.path.exists(node):
                node = "node"
            answer = subprocess.run(
                [node, os.path.join(ROOT, "tests", "tools", "fun_invoke.mjs")],
                input=json.dumps(request), capture_output=True, text=True, timeout=180)
            self.assertEqual(answer.returncode, 0, answer.stderr)
            with open(request["output"]) as f:
                results = json.load(f)
            # The function's log lines: one JSON document per line.
            lines = [l for l in answer.stdout.splitlines() if l.startswith("{")]
            self.assertGreater(len(lines), 0)
            for line in lines:
                self.assertIsInstance(json.loads(line), dict)
        # Every question the function asked had its recorded answer.
        self.assertEqual(stop_replay(replay), [])
        begun, invalid, quarantined, throttled, unknown = results
        # Success: the state document comes back with the run's ids added.
        self.assertIsNone(begun["function_error"])
        state = begun["payload"]
        self.assertEqual(state["candidate_name"], "V1500 Cygni")
        self.assertRegex(state["job_run_id"], UUID)
        self.assertRegex(state["correlation_id"], UUID)
        # Each failure class as the errorType the generated Retry/Catch match.
        # (fun calls a reported error "Handled", Lambda "Unhandled"; Step
        # Functions routes on errorType alone.)
        self.assertEqual(invalid["function_error"], "Handled")
        self.assertEqual(invalid["payload"]["errorType"], "TerminalError")
        self.assertEqual(quarantined["function_error"], "Handled")
        self.assertEqual(quarantined["payload"]["errorType"], "QuarantineError",
                         quarantined["payload"])
        self.assertTrue(quarantined["payload"]["errorMessage"].startswith(
            "ambiguous_resolver_result: "), quarantined["payload"])
        self.assertEqual(throttled["function_error"], "Handled")
        self.assertEqual(throttled["payload"]["errorType"], "RetryableError")
        self.assertEqual(unknown["function_error"], "Handled")
        self.assertEqual(unknown["payload"], {
            "errorType": "TerminalError",
            "errorMessage": "'NoSuchState' is not a Task of initialize_nova"})
        print(json.dumps(results, indent=1))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("self-contained", "invoke"):
        raise SystemExit(__doc__)
    MODE = sys.argv[1]
    if MODE == "invoke":
        NOVACAT = os.path.realpath(sys.argv[2])
        del sys.argv[2]
    ZIPS = [os.path.realpath(z) for z in sys.argv[2:]]
    suite = SelfContainedTest if MODE == "self-contained" else FunTest
    result = unittest.TextTestRunner(verbosity=2).run(
        unittest.defaultTestLoader.loadTestsFromTestCase(suite))
    sys.exit(0 if result.wasSuccessful() else 1)
