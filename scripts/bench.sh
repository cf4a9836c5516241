#!/usr/bin/env bash
# Benchmarks, reported as ratios against a baseline measured in the same run:
# 1. `novacat-gen --check specs/*.yaml` wall time against asl-validator
#    validating the same generated definitions (one invocation each): the
#    median of RUNS (default 20) runs of each, taken in turns so that both
#    see the same machine (its speed drifts by a third from one minute to
#    the next). `--check` makes and compares every file.
# 2. Generation time for synthetic specs of 100, 1,000 and 10,000 states
#    (Google Benchmark), the time per state as a ratio to the 100-state
#    spec's (linear generation keeps it at 1x). GEN_STATES (default
#    "100 1000 10000") picks the sizes; each is the median of
#    GEN_REPETITIONS (default 5) runs, the sizes' runs in a random order
#    (Google Benchmark's random interleaving): one run of the largest spec
#    moves by a third with the machine's load, and the machine's speed
#    drifts from one minute to the next, which runs taken size after size
#    read as a size's cost. Then the instructions per state of the
#    1,000- and 10,000-state specs under callgrind (when valgrind is
#    installed; GEN_CALLGRIND=0 skips it), which the machine's load and
#    memory system do not move.
# 3. The executor: initialize_nova's happy path against aws-local-
#    stepfunctions (bench/initialize_nova_happy_path.json; both sides stop
#    unless every run succeeds through its path), EXEC_SECONDS (default 3)
#    each, the medians of EXEC_REPETITIONS (default 5) alternated runs of
#    each side, ours with each RunOptions::history (none, events, full;
#    aws-local-stepfunctions keeps every event with references to its
#    documents); then the time per transition of Pass chains and Maps as they
#    grow, as a ratio to the smallest of each (flat is 1x; each the median of
#    SIZE_REPETITIONS (default 3) runs, interleaved as above); then chains of
#    2,000 and 20,000 Pass and Choice states against aws-local-stepfunctions
#    on the same definitions (transitions per second), and the 20,000-state
#    chain from the command line (`novacat simulate`, with and without
#    --history: wall time and bytes printed).
# 4. The single-table store: operations per second of every access pattern
#    on SQLite (memory and file) and DynamoDB (dynalite) against MemoryTable,
#    and lease acquisition under contention with 2, 8 and 32 workers.
#    STORE_MIN_TIME (seconds, default 0.3) is the local backends' minimum run
#    time per benchmark; dynalite runs a fixed number of iterations
#    (STORE_DYNAMO_ITERATIONS, default 250).
# 5. The developer's loop: scripts/bench_loop.sh (its header says what it
#    times); SKIP_LOOP=1 skips it.
# Builds only the benchmarks, novacat-gen and novacat in build/release, with JOBS
# (default: every core) jobs. ctest -R bench.smoke is the CI's quick run of
# every benchmark (it asserts no timing).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/configure.sh build/release -DCMAKE_BUILD_TYPE=Release \
  -DNOVACAT_BUILD_TESTS=OFF -DNOVACAT_BUILD_BENCHMARKS=ON
cmake --build build/release -j "${JOBS:-$(nproc)}" --target novacat-gen \
  novacat generation_bench executor_bench store_bench >/dev/null
runs=${RUNS:-20}
exec_seconds=${EXEC_SECONDS:-3}
exec_repetitions=${EXEC_REPETITIONS:-5}
gen=build/release/generator/novacat-gen
validator=tests/tools/node_modules/.bin/asl-validator
args=()
for f in generated/*/statemachine.asl.json; do args+=(--json-path "$f"); done

time_run() {  # prints the wall time of one run of "$@", in microseconds
  local start=$EPOCHREALTIME end
  "$@" >/dev/null 2>&1
  end=$EPOCHREALTIME
  echo $((${end//[.,]/} - ${start//[.,]/}))
}
median() {  # of the numbers on stdin, one per line, as the Python below
  python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.stdin))'
}
source scripts/bench_lib.sh  # quietly
# Both must succeed (a failing run is no figure): once, untimed, checked.
quietly "$gen" --check -q specs/*.yaml
quietly "$validator" "${args[@]}"
check_us=() validator_us=()
for _ in $(seq "$runs"); do
  check_us+=("$(time_run "$gen" --check -q specs/*.yaml)")
  validator_us+=("$(time_run "$validator" "${args[@]}")")
done
check_median=$(printf '%s\n' "${check_us[@]}" | median)
validator_median=$(printf '%s\n' "${validator_us[@]}" | median)
echo "== 1. novacat-gen --check against asl-validator (median of $runs alternated runs each)"
awk -v c="$check_median" -v v="$validator_median" \
  -v d="${#args[@]}" 'BEGIN {
  printf "asl-validator on the %d definitions: %.1f ms per run\n", d / 2, v / 1e3
  printf "novacat-gen --check specs/*.yaml (every file made and compared): %.1f ms per run, %.1fx faster\n", c / 1e3, v / c
}'

# Prints a Google Benchmark JSON's figures per family ("BM_X/<size>"): the
# time per item (items_per_second) and its ratio to the family's first size.
summarize_sizes() {  # $1: JSON results, $2: what an item is
  python3 - "$1" "$2" <<'PY'
import json, sys
runs = json.load(open(sys.argv[1]))["benchmarks"]
unit = sys.argv[2]
base = {}
print(f"{'benchmark':<28}{'time/run':>14}{unit + 's/s':>18}{'us/' + unit:>14}"
      f"{'ratio':>10}")
# Of repeated runs only the median is reported. Interleaved runs come in
# any order: the families by name, each from its smallest size up.
runs = [r for r in runs if r.get("run_type") != "aggregate"
        or r.get("aggregate_name") == "median"]
runs.sort(key=lambda r: (r["name"].split("/")[0],
                         int(r["name"].split("/")[1].split("_")[0])))
for r in runs:
    family = r["name"].split("/")[0]
    if r.get("error_occurred"):
        sys.exit(f"{r['name']}: {r.get('error_message')}")
    per_item = 1e6 / r["items_per_second"]
    base.setdefault(family, per_item)
    ms = r["real_time"] * {"ns": 1e-6, "us": 1e-3, "ms": 1, "s": 1e3}[r["time_unit"]]
    print(f"{r['name']:<28}{ms:>11.2f} ms{r['items_per_second']:>18,.0f}"
          f"{per_item:>14.3f}{per_item / base[family]:>9.2f}x")
print(f"(ratio: the time per {unit} over the first size's; flat is 1x)")
PY
}

echo
echo "== 2. Generation of synthetic specs (sizes: ${GEN_STATES:-100 1000 10000})"
gen_json=$(mktemp)
exec_json=$(mktemp)
store_json=$(mktemp)
chain=$(mktemp)
happy_runs=$(mktemp)
trap 'rm -rf "$gen_json" "$exec_json" "$store_json" "$chain" "$happy_runs"' EXIT
gen_filter="BM_Generate/($(echo ${GEN_STATES:-100 1000 10000} | tr ' ' '|'))/"
quietly build/release/generation_bench --benchmark_min_time=0.5 \
  --benchmark_repetitions="${GEN_REPETITIONS:-5}" \
  --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true \
  --benchmark_filter="$gen_filter" --benchmark_out="$gen_json" \
  --benchmark_out_format=json
summarize_sizes "$gen_json" state
# The same sizes counted in instructions (callgrind, one run each; when
# valgrind is installed, GEN_CALLGRIND=0 skips it): what the machine's
# memory system and load do not move, so it says whether the work per state
# grows. The 10,000-state run takes a minute or two under callgrind.
if [ "${GEN_CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
  instructions=()
  for n in 1000 10000; do
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" \
      build/release/generation_bench --benchmark_filter="BM_Generate/$n/" \
      --benchmark_min_time=0 >/dev/null 2>&1
    instructions+=("$n:$(sed -n 's/^summary: //p' "$out")")
    rm -f "$out"
  done
  python3 - "${instructions[@]}" <<'PY'
import sys
sizes = [tuple(int(x) for x in a.split(":")) for a in sys.argv[1:]]
(n0, i0), (n1, i1) = sizes
print(f"instructions (callgrind, one run each): {n0:,} states {i0:,} "
      f"({i0 / n0:,.0f} a state), {n1:,} states {i1:,} ({i1 / n1:,.0f} a "
      f"state): {(i1 / n1) / (i0 / n0):.2f}x the instructions per state")
PY
else
  echo "(instructions per state: skipped, valgrind not installed or GEN_CALLGRIND=0)"
fi

# 3. The executor: initialize_nova's happy path with no-op handlers, ours
#    against aws-local-stepfunctions (same definition, same documents), and
#    the cost per transition as definitions grow.
echo
echo "== 3. The executor ($exec_repetitions alternated runs of each side, medians)"
# Ours and aws-local-stepfunctions take turns, EXEC_REPETITIONS (default 5)
# times: one run of either moves by a third with the machine's load.
for _ in $(seq "$exec_repetitions"); do
  ours=$(build/release/executor_bench --benchmark_filter=InitializeNova \
    --benchmark_min_time="$exec_seconds" --benchmark_format=json 2>/dev/null)
  theirs=$(cd tests/tools && node_modules/.bin/node bench_local_sfn.mjs \
    ../../bench/initialize_nova_happy_path.json "$exec_seconds")
  python3 -c 'import json, sys; print(json.dumps({"ours": json.loads(sys.argv[1]), "theirs": json.loads(sys.argv[2])}))' \
    "$ours" "$theirs" >>"$happy_runs"
done
python3 - "$happy_runs" <<'PY'
import json, statistics, sys
runs = [json.loads(line) for line in open(sys.argv[1])]
for r in runs:
    for run in r["ours"]["benchmarks"]:
        if run.get("error_occurred"):
            sys.exit(f"executor_bench: {run['name']}: {run.get('error_message')}")
theirs = [r["theirs"]["per_second"] for r in runs]
print(f"aws-local-stepfunctions: {statistics.median(theirs):.0f} executions/s "
      f"(runs: {', '.join(f'{t:.0f}' for t in theirs)}), peak RSS "
      f"{max(r['theirs']['peak_rss_kib'] for r in runs)/1024:.1f} MiB (the baseline)")
what = {"no_history": "no history (the interpreter alone)",
        "events": "every event, no document",
        "full_history": "every event with copies of its documents"}
for i, first in enumerate(runs[0]["ours"]["benchmarks"]):
    kind = first["name"].split("/")[-1]
    ours = [r["ours"]["benchmarks"][i]["items_per_second"] for r in runs]
    ratios = [o / t for o, t in zip(ours, theirs)]
    rss = max(r["ours"]["benchmarks"][i]["peak_rss_kib"] for r in runs)
    print(f"novacat, {what.get(kind, kind)}: {statistics.median(ours):.0f} "
          f"executions/s, peak RSS {rss/1024:.1f} MiB; ratio "
          f"{statistics.median(ours)/statistics.median(theirs):.2f}x (each run's: "
          f"{', '.join(f'{x:.1f}x' for x in ratios)})")
PY
quietly build/release/executor_bench --benchmark_filter='^BM_(PassChain|PassChoiceChain|MapItems)/' \
  --benchmark_min_time=0.5 --benchmark_repetitions="${SIZE_REPETITIONS:-3}" \
  --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_out="$exec_json" \
  --benchmark_out_format=json
summarize_sizes "$exec_json" transition
# The chains of Pass and Choice states on aws-local-stepfunctions: the same
# definitions (executor_bench --print-chain writes them), transitions per
# second against ours from the run above. Our peak RSS for a chain comes
# from a process that runs that chain alone, as aws-local-stepfunctions'
# does: in the interleaved run above the process's peak is the largest
# chain's, whatever the size.
for n in 2000 20000; do
  build/release/executor_bench --print-chain "$n" >"$chain"
  theirs=$(cd tests/tools && node_modules/.bin/node bench_local_sfn.mjs \
    "$chain" "$exec_seconds")
  alone=$(build/release/executor_bench --benchmark_filter="^BM_PassChoiceChain/$n\$" \
    --benchmark_min_time=0.1 --benchmark_format=json 2>/dev/null)
  python3 - "$exec_json" "$theirs" "$n" "$alone" <<'PY'
import json, sys
n = int(sys.argv[3])
ours = next(r for r in json.load(open(sys.argv[1]))["benchmarks"]
            if r.get("run_name") == f"BM_PassChoiceChain/{n}"
            and r.get("aggregate_name") == "median")
rss_kib = json.loads(sys.argv[4])["benchmarks"][0]["peak_rss_kib"]
theirs = json.loads(sys.argv[2])["per_second"] * n
print(f"chain of {n:,} Pass and Choice states: novacat {ours['items_per_second']:,.0f} "
      f"transitions/s, peak RSS {rss_kib/1024:.1f} MiB; "
      f"aws-local-stepfunctions {theirs:,.0f}/s, peak RSS "
      f"{json.loads(sys.argv[2])['peak_rss_kib']/1024:.1f} MiB; ratio "
      f"{ours['items_per_second'] / theirs:.1f}x")
PY
done

# The same 20,000-state chain from the command line, as a user runs it:
# `novacat simulate` (one process: start, load, run, print), without the
# history and with it (--history), against aws-local-stepfunctions' time
# per execution from the run above.
build/release/executor_bench --print-chain 20000 >"$chain"
python3 - "$chain" "$chain.asl.json" "$chain.input.json" <<'PY'
import json, sys
scenario = json.load(open(sys.argv[1]))
json.dump(scenario["definition"], open(sys.argv[2], "w"))
json.dump(scenario.get("input", {}), open(sys.argv[3], "w"))
PY
echo '{}' >"$chain.script.json"
# The chain is larger than Step Functions' history quota allows an
# execution: --max-history-events lifts it.
simulate=(build/release/workflows/novacat simulate "$chain.asl.json"
  --script "$chain.script.json" --input "@$chain.input.json"
  --max-history-events 1000000)
quietly "${simulate[@]}"
plain_us=() history_us=()
for _ in $(seq 5); do
  plain_us+=("$(time_run "${simulate[@]}")")
  history_us+=("$(time_run "${simulate[@]}" --history)")
done
plain_bytes=$("${simulate[@]}" | wc -c)
history_bytes=$("${simulate[@]}" --history | wc -c)
theirs=$(cd tests/tools && node_modules/.bin/node bench_local_sfn.mjs \
  "$chain" "$exec_seconds")
python3 - "$(printf '%s\n' "${plain_us[@]}" | median)" \
  "$(printf '%s\n' "${history_us[@]}" | median)" "$plain_bytes" \
  "$history_bytes" "$theirs" <<'PY'
import json, sys
plain, history = float(sys.argv[1]) / 1e6, float(sys.argv[2]) / 1e6
theirs = 1 / json.loads(sys.argv[5])["per_second"]
print(f"novacat simulate, chain of 20,000 (median of 5 processes): "
      f"{plain * 1e3:.1f} ms, {int(sys.argv[3]):,} bytes out; with --history "
      f"{history * 1e3:.1f} ms, {int(sys.argv[4]):,} bytes; "
      f"aws-local-stepfunctions {theirs * 1e3:.1f} ms an execution in process: "
      f"{theirs / plain:.1f}x and {theirs / history:.1f}x")
PY
rm -f "$chain".*

# 4. The store (see the header): the JSON feeds the summary tables.
echo
echo "== 4. The store"
quietly build/release/store_bench \
  --benchmark_min_time="${STORE_MIN_TIME:-0.3}" \
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
failed = [r for r in runs if r.get("error_occurred")]
for r in failed:
    print(f"store_bench: {r['name']}: {r.get('error_message', '')}",
          file=sys.stderr)
sys.exit(1 if failed else 0)
PY


# 5. The developer's loop (see the header).
[ "${SKIP_LOOP:-0}" = 1 ] || scripts/bench_loop.sh
