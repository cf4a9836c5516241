#!/usr/bin/env bash
# Benchmarks, reported as ratios against a baseline measured in the same run:
# 1. `novacat-gen --check specs/*.yaml` wall time against asl-validator
#    validating the same three generated definitions (one invocation each).
# 2. Generation time for synthetic specs of 100, 1,000 and 10,000 states
#    (Google Benchmark; per-state throughput must stay flat).
# 3. The executor against aws-local-stepfunctions.
# 4. The single-table store: operations per second of every access pattern
#    on SQLite (memory and file) and DynamoDB (dynalite) against MemoryTable,
#    and lease acquisition under contention with 2, 8 and 32 workers.
#    STORE_MIN_TIME (seconds, default 0.3) is the local backends' minimum run
#    time per benchmark; dynalite runs a fixed number of iterations.
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
store_json=$(mktemp)
trap 'rm -f "$document" "$store_json"' EXIT
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

# 4. The store (see the header): the console shows progress, the JSON feeds
#    the summary tables.
build/release/store_bench --benchmark_min_time="${STORE_MIN_TIME:-0.3}" \
  --benchmark_out="$store_json" --benchmark_out_format=json
python3 - "$store_json" <<'PY'
import json, sys
# Names are "<AP>:<Operation>/<backend>[/suffixes]" and
# "Lease:Contention/<backend>[/suffixes]"; items_per_second is operations
# (or leases acquired) per second of wall time.
runs = json.load(open(sys.argv[1]))["benchmarks"]
patterns, backends, ops, lease = [], [], {}, {}
for run in runs:
    name, backend = run["name"].split("/")[:2]
    value = None if run.get("error_occurred") else run.get("items_per_second")
    if backend not in backends:
        backends.append(backend)
    if name.startswith("Lease:"):
        lease[(backend, run["threads"])] = run
        continue
    if name not in patterns:
        patterns.append(name)
    ops[(name, backend)] = value
base = "memory"
others = [b for b in backends if b != base and any((p, b) in ops for p in patterns)]

def rate(v):
    return f"{v:,.0f}" if v is not None else "n/a"

def ratio(v, b):
    return f"{v / b:.3g}x" if v is not None and b else "n/a"

print("\nStore access patterns: ops/s, and ratio to memory (the baseline)")
width = max(len(p) for p in patterns) + 2
head = f"{'access pattern':<{width}}{'memory':>12}"
for b in others:
    head += f"{b:>16}{'ratio':>10}"
print(head)
for p in patterns:
    b0 = ops.get((p, base))
    line = f"{p.replace(':', ' '):<{width}}{rate(b0):>12}"
    for b in others:
        v = ops.get((p, b))
        line += f"{rate(v):>16}{ratio(v, b0):>10}"
    print(line)

print("\nLease acquisition under contention (AcquireDatasetLease + release, "
      "4 datasets): leases/s, ratio to memory at the same worker count, "
      "condition failures per lease acquired")
print(f"{'backend':<26}{'workers':>8}{'leases/s':>12}{'ratio':>10}"
      f"{'failures/lease':>16}{'retryable errors':>18}")
for (b, threads), run in sorted(
        lease.items(), key=lambda kv: (backends.index(kv[0][0]), kv[0][1])):
    if run.get("error_occurred"):
        print(f"{b:<26}{threads:>8}  error: {run.get('error_message', '')}")
        continue
    v = run["items_per_second"]
    b0 = lease.get((base, threads), {}).get("items_per_second")
    failures = run["condition_failures"] / v if v else float("nan")
    errors = run["retryable_errors"] * run["real_time"] * 1e-9 * run["iterations"]
    print(f"{b:<26}{threads:>8}{rate(v):>12}{ratio(v, b0):>10}"
          f"{failures:>16.2f}{errors:>18.0f}")
PY
