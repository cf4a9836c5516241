#!/usr/bin/env bash
# The CI smoke of scripts/bench.sh's baselines (ctest bench.smoke.local_sfn):
# aws-local-stepfunctions runs initialize_nova's happy path and the chain
# `executor_bench --print-chain` writes, each briefly, through
# tests/tools/bench_local_sfn.mjs, which fails unless every run succeeded
# through the scenario's path. It asserts no timing.
# Usage: local_sfn_smoke.sh EXECUTOR_BENCH
set -euo pipefail
bench=$1
cd "$(dirname "$0")/.."
root=$PWD
chain=$(mktemp)
trap 'rm -f "$chain"' EXIT
"$bench" --print-chain 10 >"$chain"
cd tests/tools
for scenario in "$chain" "$root/bench/initialize_nova_happy_path.json"; do
  node_modules/.bin/node bench_local_sfn.mjs "$scenario" 0.05
done
