#!/usr/bin/env bash
# Installs whatever this machine is missing to build and test novacat-gen:
# Debian packages (apt-get) and the pinned Node tools (npm ci in tests/tools).
# Safe to run repeatedly; installs nothing that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake make python3 python3-yaml python3-jsonschema
  libyaml-cpp-dev nlohmann-json3-dev libfmt-dev libcli11-dev
  libkainjow-mustache-dev libgtest-dev libgmock-dev libbenchmark-dev
  libdtl-dev graphviz libssl-dev libsqlite3-dev libcurl4-openssl-dev
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
