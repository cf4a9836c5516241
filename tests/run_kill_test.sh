#!/usr/bin/env bash
# A run killed at any point, then run again, completes (issue 39): one name
# followed through every seed workflow (`novacat run --follow`), the process
# killed with SIGKILL after its k-th Task invocation for every STEP-th k
# (every third by default) of the whole chain (each workflow's prologue,
# Tasks, Map items, epilogue and the moments between workflows), then the
# same command again. After the second command: exit 0; every workflow of
# the chain has a run that did the work (SUCCEEDED, not DUPLICATE_SKIPPED);
# no JobRun left STARTED, no idempotency lock HELD, no dataset IN_PROGRESS,
# nothing left in the outbox or the live runs' folder.
# The kill point is counted in Task invocations (NOVACAT_TEST_KILL_AFTER_TASKS),
# so nothing depends on the machine's speed.
# Usage: run_kill_test.sh NOVACAT [STEP] (from the repository root: the
# fixtures); STEP (default 3) is the distance between two kill points.
set -u
novacat=$1
step=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

input='{"candidate_name": "V1500 Cygni"}'
chain="discover_spectra_products download_and_validate_spectra ingest_new_nova initialize_nova refresh_references"
"$novacat" seed --db "$work/seeded.db" >/dev/null || fail "seed"

# What the store holds, summarized: the workflows whose runs did the work,
# then every JobRun, lock, dataset lease and outbox item left unfinished.
summary() {
  python3 - "$1" <<'PY'
import json, sqlite3, sys
done, left = set(), []
for pk, sk, body in sqlite3.connect(sys.argv[1]).execute("SELECT pk, sk, body FROM items"):
    d = json.loads(body)
    kind = d.get("entity")
    if kind == "JobRun" and d.get("status") == "SUCCEEDED" and d.get("outcome") != "DUPLICATE_SKIPPED":
        done.add(d["workflow"])
    if kind == "JobRun" and d.get("status") == "STARTED":
        left.append("STARTED " + d["workflow"])
    if kind == "Lock" and d.get("state") == "HELD":
        left.append("HELD " + d["idempotency_key"])
    if kind == "Dataset" and d.get("processing_status") == "IN_PROGRESS":
        left.append("IN_PROGRESS " + d["dataset_id"])
    if kind == "OutboxEvent":
        left.append("OUTBOX " + d["event_name"])
print(" ".join(sorted(done)))
print(" ".join(sorted(left)) or "nothing left")
PY
}

# The whole chain once, uninterrupted: how many Task invocations it takes.
cp "$work/seeded.db" "$work/whole.db"
"$novacat" run initialize_nova --db "$work/whole.db" --follow --verbose \
  --input "$input" >"$work/whole.json" 2>/dev/null || fail "the whole chain"
tasks=$(python3 -c "
import json; d = json.load(open('$work/whole.json'))
print(sum(1 for r in d['runs'] for e in r['history'] if e['type'] == 'TaskScheduled'))")
[ "$tasks" -gt 50 ] || fail "the chain takes $tasks Task invocations"
expect_eq "the whole chain" "$(summary "$work/whole.db")" "$chain
nothing left"

points=0
exec 3>&2 2>/dev/null  # the shell's notices of the kills
for ((k = 1; k < tasks; k += step)); do
  points=$((points + 1))
  db=$work/kill$k.db
  cp "$work/seeded.db" "$db"
  NOVACAT_TEST_KILL_AFTER_TASKS=$k "$novacat" run initialize_nova \
    --db "$db" --follow --input "$input" >/dev/null
  expect_eq "killed after $k tasks: exit" "$?" "137"
  "$novacat" run initialize_nova --db "$db" --follow --input "$input" \
    >"$work/again$k.json" 2>"$work/again$k.err"
  expect_eq "killed after $k tasks: the rerun's exit" "$?" "0"
  expect_eq "killed after $k tasks: the store" "$(summary "$db")" "$chain
nothing left"
  expect_eq "killed after $k tasks: live runs" \
    "$(ls -A "$db.runs" 2>/dev/null)" ""
done
exec 2>&3

# What the rerun says it did, at one point inside refresh_references'
# run (k = 28 lands there with either step): the dead run reaped, its
# events delivered.
k=28
expect_eq "reaped and resumed" \
  "$(python3 -c "
import json; d = json.load(open('$work/again$k.json'))
print([(r['workflow'], r['job_run'], r['lock']) for r in d.get('reaped', [])], d.get('resumed'))")" \
  "[('refresh_references', 'FINALIZED', 'RELEASED')] 2"
finish "run_kill: killed at $points points of $tasks Task invocations, every rerun completed the chain"
