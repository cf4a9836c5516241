"""Starts and stops tests/tools/lambda_invoke_server.mjs, the Lambda Invoke
endpoint on 127.0.0.1 that the Lambda tests run packaged functions on."""
import json
import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def start(folder, config, log):
    """Writes `config` (the server's CONFIG, without ready_file) into
    `folder`, starts the server with its output to the open file `log`, and
    returns (the process, "http://127.0.0.1:<port>") once it listens."""
    ready = os.path.join(folder, "ready")
    path = os.path.join(folder, "config.json")
    with open(path, "w") as f:
        json.dump(dict(config, ready_file=ready), f)
    node = os.path.join(ROOT, "tests", "tools", "node_modules", ".bin", "node")
    server = subprocess.Popen(
        [node if os.path.exists(node) else "node",
         os.path.join(ROOT, "tests", "tools", "lambda_invoke_server.mjs"), path],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 180  # a stuck start, not a slow one
    port = ""
    while not port:
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the Lambda Invoke server did not start")
        time.sleep(0.1)
        if os.path.exists(ready):
            with open(ready) as f:
                port = f.read().strip()
    return server, "http://127.0.0.1:%s" % port


def stop(server):
    """Stops the server; a function still running keeps it from stopping (a
    test failed on it already): it is killed."""
    server.terminate()
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
