#!/usr/bin/env bash
# Generation that is killed, or runs twice at once into one folder: a run
# killed at any point is completed by running it again (and leaves nothing
# --check calls in sync before that); two runs at once never mix their
# outputs; a run waits, and says so, while another holds the folder.
# Usage: generation_interrupt_test.sh NOVACAT_GEN PYTHON (from the
# repository root). Every assertion holds whatever the timing: the kill
# delays only choose which point is tested.
set -u
gen=$1
python=$2
work=$(mktemp -d)
trap '[ -n "${holder:-}" ] && kill "$holder" 2>/dev/null; rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

spec=specs/initialize_nova.yaml
# Killed at many points (from before the first file to after the last),
# then run again: the second run succeeds and the folder is in sync.
for delay in 0 0.001 0.002 0.004 0.006 0.008 0.01 0.015 0.02 0.03 0.05 0.08; do
  out=$work/killed-$delay
  "$gen" -q -o "$out" --steps-dir "$work/steps" "$spec" 2>/dev/null &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  "$gen" -q -o "$out" --steps-dir "$work/steps" "$spec" >"$work/out" 2>&1
  expect_eq "killed after ${delay}s, run again" "$?:$(cat "$work/out")" "0:"
  "$gen" --check -q -o "$out" "$spec" >"$work/out" 2>&1
  expect_eq "killed after ${delay}s, then checked" "$?:$(cat "$work/out")" "0:"
done

# Two runs at once into one folder, of two versions of one workflow: the
# folder ends as one run's output, whole (in sync with one of the two).
mkdir -p "$work/a" "$work/b"
cp -r specs/shared "$work/a/" && cp -r specs/shared "$work/b/"
cp "$spec" "$work/a/initialize_nova.yaml"
sed 's/timeout: 10s/timeout: 11s/' "$spec" >"$work/b/initialize_nova.yaml"
for round in 1 2 3 4 5 6; do
  out=$work/both-$round
  "$gen" -q -o "$out" --steps-dir "$work/steps" "$work/a/initialize_nova.yaml" 2>/dev/null &
  first=$!
  "$gen" -q -o "$out" --steps-dir "$work/steps" "$work/b/initialize_nova.yaml" 2>/dev/null &
  second=$!
  wait "$first"
  a=$?
  wait "$second"
  b=$?
  expect_eq "round $round: both runs succeed" "$a $b" "0 0"
  in_sync=0
  for version in a b; do
    "$gen" --check -q -o "$out" "$work/$version/initialize_nova.yaml" \
      >/dev/null 2>&1 && in_sync=$((in_sync + 1))
  done
  expect_eq "round $round: the folder is one run's output" "$in_sync" 1
done

# A run waits while another holds the folder, says so, writes nothing
# meanwhile, and completes when it is free. The holder is a Python process
# holding the same lock (flock on the folder); the waits below bound a
# stuck process, not the machine's speed.
out=$work/held
mkdir -p "$out"
"$python" - "$out" "$work/holding" "$work/release" <<'PY' &
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
fcntl.flock(fd, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
while not os.path.exists(sys.argv[3]):
    time.sleep(0.01)
PY
holder=$!
until [ -e "$work/holding" ]; do sleep 0.01; done
"$gen" -q -o "$out" --steps-dir "$work/steps" "$spec" >"$work/held.out" 2>&1 &
waiting=$!
# As long as the waiting run lives (the holder lets go only when told).
while ! grep -q "waiting" "$work/held.out" && kill -0 $waiting 2>/dev/null; do
  sleep 0.01
done
expect_eq "the second run says it waits" "$(cat "$work/held.out")" \
  "novacat-gen: waiting for another novacat-gen using $out"
expect_eq "nothing written while it waits" "$(ls -A "$out")" ""
touch "$work/release"
wait "$holder"
wait "$waiting"
expect_eq "it completes once the folder is free" "$?" 0
"$gen" --check -q -o "$out" "$spec" >/dev/null 2>&1
expect_eq "and the folder is in sync" "$?" 0

finish "generation interrupted and concurrent: all checks passed"
