#!/usr/bin/env bash
# Installs whatever this machine is missing to build and test novacat-gen:
# Debian packages (apt-get) and the pinned Node tools (npm ci in tests/tools).
# Safe to run repeatedly; installs nothing that is already there. Then checks
# (never installs) the Python tools of the AWS tests, which come with the
# machine's Python: it names what is missing and exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake make python3 python3-yaml python3-jsonschema
  libyaml-cpp-dev libmimalloc-dev pkg-config nlohmann-json3-dev libfmt-dev libcli11-dev
  libkainjow-mustache-dev libgtest-dev libgmock-dev libbenchmark-dev
  libdtl-dev graphviz libssl-dev libsqlite3-dev libcurl4-openssl-dev
  libcfitsio-dev zlib1g-dev libpugixml-dev libcpp-httplib-dev zip binutils
  ccache lld ninja-build
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

# The pinned Node tools, reinstalled when the lockfile changed.
stamp=tests/tools/node_modules/.novacat-lock
if ! cmp -s tests/tools/package-lock.json "$stamp" 2>/dev/null; then
  echo "setup: npm ci in tests/tools"
  (cd tests/tools && npm ci --no-audit --no-fund --loglevel=error)
  cp tests/tools/package-lock.json "$stamp"
fi

# The Python tools of the AWS tests (cfn-lint on the stack, moto_server as
# the AWS emulator, the aws CLI and boto3 that drive it). They come with the
# machine's Python (pyenv); no Python package registry is reachable from
# here, so this only checks and never runs pip.
python=$(scripts/python.sh 2>/dev/null || command -v python3 || echo python3)
py_missing=()
command -v cfn-lint >/dev/null 2>&1 && cfn-lint --version >/dev/null 2>&1 ||
  py_missing+=("cfn-lint: no working cfn-lint command on PATH (the stack's lint test)")
if ! command -v moto_server >/dev/null 2>&1; then
  py_missing+=("moto_server: no moto_server command on PATH (the aws_moto ctest fixture, tests/moto_fixture.py)")
elif ! "$python" -c 'import moto, moto.server, flask, flask_cors' 2>/dev/null; then
  py_missing+=("moto[server]: $python cannot import moto with its server extra (moto.server, flask, flask_cors)")
fi
command -v aws >/dev/null 2>&1 && aws --version >/dev/null 2>&1 ||
  py_missing+=("aws: no working aws CLI on PATH (the stack deploy test)")
"$python" -c 'import boto3' 2>/dev/null ||
  py_missing+=("boto3: $python cannot import boto3 (the moto tests' setup and checks)")
# asl_fuzz.py runs moto's Step Functions interpreter in process and scripts
# its Tasks through these (tests/asl_fuzz.py, MotoEngine).
"$python" -c 'from moto.stepfunctions.parser.asl.eval.environment import Environment
from moto.stepfunctions.parser.mocking.mock_config import MockedResponseReturn, MockedResponseThrow
from moto.stepfunctions.parser.asl.utils import json_path
from moto.stepfunctions.parser.backend import execution_worker
assert hasattr(Environment, "get_current_mocked_response")' 2>/dev/null ||
  py_missing+=("moto's Step Functions interpreter: $python cannot import moto.stepfunctions.parser as tests/asl_fuzz.py uses it (moto 5.2)")
if [ ${#py_missing[@]} -gt 0 ]; then
  echo "setup: missing Python tools the AWS tests need:" >&2
  printf '  - %s\n' "${py_missing[@]}" >&2
  echo "setup: they come with this machine's Python (pyenv: cfn-lint 1.51," \
    "moto 5.2 with its server, aws CLI 1.x, boto3); no Python package" \
    "registry is reachable from here, so setup cannot install them." \
    "Use a machine whose Python has them, or install them there." >&2
  exit 1
fi
