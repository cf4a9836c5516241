#!/usr/bin/env bash
# The developer's loop, timed (scripts/bench.sh's part 5): one retry changed
# in one spec (LOOP_SPEC, default ingest_new_nova), then generated, rebuilt
# and that workflow's conformance tests run, from a warm Debug build tree
# (build/debug, the one scripts/test.sh makes; brought up to date first,
# untimed), with JOBS (default: every core) jobs. Prints the total and where
# it goes: generation, compiling (and which objects), linking, the tests.
# LOOP_RUNS (default 3) runs, the medians reported. The spec is restored,
# and the build with it, when the script ends, whatever the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench_lib.sh  # quietly
loop_spec=${LOOP_SPEC:-ingest_new_nova}
loop_runs=${LOOP_RUNS:-3}
echo "== 5. The developer's loop: one retry changed in specs/$loop_spec.yaml, generated, rebuilt, its conformance tests run (median of $loop_runs)"
python=$(scripts/python.sh)
scripts/configure.sh build/debug -DCMAKE_BUILD_TYPE=Debug -DNOVACAT_WERROR=ON \
  -DPython3_EXECUTABLE="$python"
# What a developer builds: everything that depends on the spec (the
# workflow's library, its conformance test, its Lambda, novacat).
loop_targets=(all)
quietly cmake --build build/debug -j "${JOBS:-$(nproc)}" --target "${loop_targets[@]}"
spec_file=specs/$loop_spec.yaml
original=$(mktemp)
loop_log=$(mktemp)
cp "$spec_file" "$original"
restore_spec() {
  cp "$original" "$spec_file"
  cmake --build build/debug -j "${JOBS:-$(nproc)}" --target "${loop_targets[@]}" >/dev/null 2>&1 || true
  rm -f "$original" "$loop_log"
}
trap restore_spec EXIT
# Prints each line of "$@"'s output with the microseconds since $1's start.
stamped() {
  local start=$EPOCHREALTIME line
  "$@" 2>&1 | while IFS= read -r line; do
    printf '%s %s\n' "$(( ${EPOCHREALTIME//[.,]/} - ${start//[.,]/} ))" "$line"
  done
  return "${PIPESTATUS[0]}"
}
for i in $(seq "$loop_runs"); do
  # Every run changes the retry (2 -> 3 -> 2 ...), so that each regenerates.
  python3 - "$spec_file" "$i" <<'PY'
import re, sys
path, run = sys.argv[1], int(sys.argv[2])
text = open(path).read()
attempts = 3 if run % 2 else 2
new, n = re.subn(r"retry: \{max_attempts: \d+\}", f"retry: {{max_attempts: {attempts}}}", text, count=1)
if n != 1:
    sys.exit(f"{path}: no 'retry: {{max_attempts: N}}' line to change")
open(path, "w").write(new)
PY
  begin=$EPOCHREALTIME
  stamped cmake --build build/debug -j "${JOBS:-$(nproc)}" --target "${loop_targets[@]}" >"$loop_log.build" ||
    { cat "$loop_log.build" >&2; echo "bench_loop.sh: the loop's build failed" >&2; exit 1; }
  built=$EPOCHREALTIME
  ctest --test-dir build/debug -j "${JOBS:-$(nproc)}" -R "conformance_$loop_spec\\." >"$loop_log.test" 2>&1 ||
    { cat "$loop_log.test" >&2; echo "bench_loop.sh: the loop's tests failed" >&2; exit 1; }
  done_at=$EPOCHREALTIME
  python3 - "$loop_log.build" "$loop_log.test" "$begin" "$built" "$done_at" >>"$loop_log" <<'PY'
import json, re, sys
build = [l.rstrip("\n").split(" ", 1) for l in open(sys.argv[1]) if " " in l]
us = lambda t: int(t.replace(".", "").replace(",", ""))
begin, built, done = (us(t) for t in sys.argv[3:6])
def first(pattern):
    return next((int(t) for t, l in build if re.search(pattern, l)), None)
compiled = [re.sub(r".*Building CXX object ", "", l) for t, l in build if "Building CXX object" in l]
gen_end = first(r"Building CXX object|Linking") or (built - begin)
link_start = first(r"Linking") or (built - begin)
tests = re.search(r"tests passed, \d+ tests failed out of (\d+)", open(sys.argv[2]).read())
print(json.dumps({"total": (done - begin) / 1e6, "generation": gen_end / 1e6,
                  "compile": max(0, link_start - gen_end) / 1e6,
                  "link": max(0, (built - begin) - link_start) / 1e6,
                  "test": (done - built) / 1e6, "objects": compiled,
                  "tests": int(tests.group(1)) if tests else 0}))
PY
done
rm -f "$loop_log.build" "$loop_log.test"
python3 - "$loop_log" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
med = lambda k: statistics.median(r[k] for r in runs)
print(f"total {med('total'):.1f} s (goal 15 s): generation {med('generation'):.1f} s, "
      f"compiling {med('compile'):.1f} s, linking {med('link'):.1f} s, "
      f"{runs[0]['tests']} conformance tests {med('test'):.1f} s")
print("objects rebuilt: " + ", ".join(o.split("/")[-1] for o in runs[0]["objects"]))
PY
