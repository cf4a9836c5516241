#!/usr/bin/env python3
"""The Lambda Invoke server the end-to-end test runs its functions on
(tests/tools/lambda_invoke_server.mjs) ends an invocation at the function's
timeout, as Lambda does: the caller gets the Unhandled Sandbox.Timedout
error, the server's log names the function and the state, and the next
invocation is answered by a new instance.

The function is a Runtime API client written here (a Python `bootstrap`):
it answers {"echo": <payload>}, and never answers a payload with
"hang": true. The timeout is 20 s: long enough for any machine to answer
the quick invocations, which are what must not time out.

  invoke_server_test.py
"""
import json
import os
import stat
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import invoke_server  # noqa: E402

TIMEOUT_S = 20

BOOTSTRAP = r'''#!/usr/bin/env python3
import json, os, time, urllib.request
api = "http://" + os.environ["AWS_LAMBDA_RUNTIME_API"] + "/2018-06-01/runtime/"
while True:
    with urllib.request.urlopen(api + "invocation/next") as r:
        request_id = r.headers["Lambda-Runtime-Aws-Request-Id"]
        payload = json.loads(r.read())
    if payload.get("hang"):
        while True:
            time.sleep(3600)
    body = json.dumps({"echo": payload}).encode()
    urllib.request.urlopen(urllib.request.Request(
        api + "invocation/" + request_id + "/response", data=body,
        headers={"Content-Type": "application/json"})).read()
'''


class InvokeServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        function = os.path.join(cls.tmp.name, "echo")
        os.mkdir(function)
        bootstrap = os.path.join(function, "bootstrap")
        with open(bootstrap, "w") as f:
            f.write(BOOTSTRAP)
        os.chmod(bootstrap, stat.S_IRWXU)
        config = {"functions": {"echo": function}, "region": "us-east-1",
                  "access_key_id": "AKIDEXAMPLE", "secret_access_key": "secret",
                  "environment": {}, "timeout_seconds": TIMEOUT_S}
        cls.log = open(os.path.join(cls.tmp.name, "server.log"), "w+")
        cls.server, endpoint = invoke_server.start(cls.tmp.name, config, cls.log)
        cls.url = endpoint + "/2015-03-31/functions/echo/invocations"

    @classmethod
    def tearDownClass(cls):
        invoke_server.stop(cls.server)
        cls.log.close()
        cls.tmp.cleanup()

    def invoke(self, payload):
        request = urllib.request.Request(self.url, data=json.dumps(payload).encode(),
                                         method="POST")
        # A bound on a stuck server: six times the functions' timeout.
        with urllib.request.urlopen(request, timeout=6 * TIMEOUT_S) as r:
            return r.status, r.headers.get("X-Amz-Function-Error"), json.loads(r.read())

    def test_a_stuck_invocation_ends_at_the_timeout_and_the_next_is_answered(self):
        self.assertEqual(self.invoke({"n": 1}), (200, None, {"echo": {"n": 1}}))
        began = time.monotonic()
        self.assertEqual(
            self.invoke({"state_name": "FetchReferenceCandidates", "hang": True}),
            (200, "Unhandled",
             {"errorType": "Sandbox.Timedout",
              "errorMessage": "Task timed out after %d.00 seconds" % TIMEOUT_S}))
        # Not before the timeout (an order, not a bound on the machine).
        self.assertGreaterEqual(time.monotonic() - began, TIMEOUT_S)
        self.log.flush()
        self.log.seek(0)
        self.assertIn("lambda_invoke_server: echo (FetchReferenceCandidates) did "
                      "not answer in %d s: Sandbox.Timedout; instance replaced\n"
                      % TIMEOUT_S, self.log.read())
        self.assertEqual(self.invoke({"n": 2}), (200, None, {"echo": {"n": 2}}))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
