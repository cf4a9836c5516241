#!/usr/bin/env python3
"""A moto server (the machine's Python `moto` 5 with its server extra) for
the tests that need AWS APIs: one server for the whole ctest run.

    moto_fixture.py start STATEFILE     (ctest: aws.moto.start)
    moto_fixture.py stop STATEFILE      (ctest: aws.moto.stop)
    moto_fixture.py endpoint STATEFILE  prints the endpoint (for shell tests)

`start` runs `moto_server -H 127.0.0.1 -p <free port>` in its own session
(process group), in the background, waits until it answers HTTP, and writes
STATEFILE: line 1 the endpoint (http://127.0.0.1:PORT), line 2 the process
group id (the same two lines as the dynalite fixture). The server's output
goes to STATEFILE.log. A stale state file (a run interrupted before `stop`)
is cleaned up first. `stop` kills the process group and removes the file.

In CMake (runtime/tests/aws/CMakeLists.txt defines the fixture and the
cache variable NOVACAT_MOTO_STATE), a test that needs moto says

    set_tests_properties(my.test PROPERTIES FIXTURES_REQUIRED aws_moto
      ENVIRONMENT "NOVACAT_MOTO_STATE=${NOVACAT_MOTO_STATE}")

and reads the endpoint from the first line of $NOVACAT_MOTO_STATE. All the
tests of a run share the one server (and ctest -j runs them at once): give
every resource a name of its own (e.g. with the test's name and pid) and
never POST /moto-api/reset. Credentials and region are not checked: any
AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and region do.

The server is `moto_server` from PATH, else `<this python> -m moto.server`;
MOTO_SERVER in the environment names another command. scripts/setup.sh
says what is missing when moto is not installed.
"""
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

START_TIMEOUT_S = 60


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command():
    if os.environ.get("MOTO_SERVER"):
        return shlex.split(os.environ["MOTO_SERVER"])
    found = shutil.which("moto_server")
    if found:
        return [found]
    return [sys.executable, "-m", "moto.server"]


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except (OSError, IndexError):
        return False


def kill_group(pgid):
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if not alive(pgid):
                return
            time.sleep(0.05)


def read_state(state):
    try:
        with open(state) as f:
            lines = f.read().split("\n")
        return lines[0], int(lines[1])
    except (OSError, ValueError, IndexError):
        return None, None


def stop(state):
    _, pgid = read_state(state)
    if pgid and pgid > 0:
        kill_group(pgid)
    try:
        os.remove(state)
    except FileNotFoundError:
        pass


def answers(endpoint):
    try:
        urllib.request.urlopen(endpoint + "/moto-api/", timeout=1).read()
        return True
    except urllib.error.HTTPError:
        return True  # any HTTP answer: it is up
    except (urllib.error.URLError, OSError):
        return False


def start(state):
    stop(state)
    log_path = state + ".log"
    for attempt in range(3):  # the free port may be taken meanwhile
        port = free_port()
        endpoint = f"http://127.0.0.1:{port}"
        command = server_command() + ["-H", "127.0.0.1", "-p", str(port)]
        with open(log_path, "w") as log:
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                       stdout=log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline and process.poll() is None:
            if answers(endpoint):
                with open(state, "w") as f:
                    f.write(f"{endpoint}\n{process.pid}\n")
                print(f"moto_server at {endpoint} (process group "
                      f"{process.pid}, log {log_path})")
                return 0
            time.sleep(0.1)
        if process.poll() is None:
            kill_group(process.pid)
            process.wait()
            sys.stderr.write(f"aws.moto.start: {' '.join(command)} did not "
                             f"answer within {START_TIMEOUT_S} s\n")
        else:
            sys.stderr.write(f"aws.moto.start: {' '.join(command)} exited "
                             f"with {process.returncode} (attempt "
                             f"{attempt + 1})\n")
    with open(log_path) as log:
        sys.stderr.write(log.read()[-4000:])
    sys.stderr.write("aws.moto.start: moto_server does not run here; "
                     "scripts/setup.sh checks the Python tools\n")
    return 1


def main(argv):
    if len(argv) != 3 or argv[1] not in ("start", "stop", "endpoint"):
        sys.stderr.write(f"usage: {argv[0]} start|stop|endpoint STATEFILE\n")
        return 2
    command, state = argv[1], argv[2]
    if command == "start":
        return start(state)
    if command == "stop":
        stop(state)
        return 0
    endpoint, _ = read_state(state)
    if not endpoint:
        sys.stderr.write(f"no moto endpoint in {state} (is the aws_moto "
                         "fixture running?)\n")
        return 1
    print(endpoint)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
