#!/usr/bin/env bash
# Benchmarks, reported as ratios against a baseline measured in the same run:
# 1. `novacat-gen --check specs/*.yaml` wall time against asl-validator
#    validating the same three generated definitions (one invocation each).
# 2. Generation time for synthetic specs of 100, 1,000 and 10,000 states
#    (Google Benchmark; per-state throughput must stay flat).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DNOVACAT_BUILD_TESTS=OFF \
  >/dev/null
cmake --build build/release -j "$(nproc)" >/dev/null
runs=${RUNS:-20}
gen=build/release/generator/novacat-gen
validator=tests/tools/node_modules/.bin/asl-validator
args=()
for f in generated/*/statemachine.asl.json; do args+=(--json-path "$f"); done

time_runs() {  # prints total nanoseconds for $runs runs of "$@"
  local start end
  start=$(date +%s%N)
  for _ in $(seq "$runs"); do "$@" >/dev/null 2>&1; done
  end=$(date +%s%N)
  echo $((end - start))
}
check_ns=$(time_runs "$gen" --check -q specs/*.yaml)
validator_ns=$(time_runs "$validator" "${args[@]}")
awk -v c="$check_ns" -v v="$validator_ns" -v n="$runs" 'BEGIN {
  printf "novacat-gen --check specs/*.yaml: %.1f ms per run\n", c / n / 1e6
  printf "asl-validator on the 3 definitions: %.1f ms per run\n", v / n / 1e6
  printf "ratio (asl-validator / novacat-gen --check): %.1fx\n", v / c
}'
build/release/generation_bench --benchmark_min_time=1
