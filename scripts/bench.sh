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

# 3. The executor: initialize_nova's happy path with no-op handlers, ours
#    against aws-local-stepfunctions (same definition, same documents), and
#    the cost per transition as definitions grow.
document=$(mktemp)
trap 'rm -f "$document"' EXIT
cat >"$document" <<'JSON'
{"candidate_name": "V1500 Cyg", "correlation_id": "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c",
 "job_run_id": "j", "exists_in_db": true, "nova_id": "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6d"}
JSON
ours=$(build/release/executor_bench --benchmark_filter=InitializeNova \
  --benchmark_min_time=3 --benchmark_format=json)
theirs=$(cd tests/tools && node_modules/.bin/node bench_local_sfn.mjs \
  ../../generated/initialize_nova/statemachine.asl.json "$document" 3)
python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours = json.loads(sys.argv[1])["benchmarks"][0]
theirs = json.loads(sys.argv[2])
print(f"initialize_nova happy path: novacat {ours['items_per_second']:.0f} executions/s, "
      f"peak RSS {ours['peak_rss_kib']/1024:.1f} MiB; aws-local-stepfunctions "
      f"{theirs['per_second']:.0f} executions/s, peak RSS {theirs['peak_rss_kib']/1024:.1f} MiB; "
      f"ratio {ours['items_per_second']/theirs['per_second']:.2f}x")
PY
build/release/executor_bench --benchmark_filter='PassChain|MapItems' --benchmark_min_time=1
