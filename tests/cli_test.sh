#!/usr/bin/env bash
# End-to-end tests of the novacat-gen command line: exit codes, --check
# diffs, atomic and deterministic writes, nothing written on errors, and
# never overwriting a file a person wrote. Usage: cli_test.sh NOVACAT_GEN
# (run from the repository root).
set -u
gen=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"


# --version and --help.
expect_eq "--version" "$("$gen" --version)" "novacat-gen 0.1.0"
"$gen" --help >"$work/help" 2>&1 || fail "--help exits non-zero"
grep -q -- "--check" "$work/help" || fail "--help does not document --check"
grep -q -- "--out" "$work/help" || fail "--help does not document --out"

# Generation into a fresh folder, then --check is clean and a second run
# changes nothing (byte-identical).
"$gen" -q --out "$work/out" --steps-dir "$work/steps" specs/*.yaml ||
  fail "generation failed"
cp -r "$work/out" "$work/first"
"$gen" --out "$work/out" --steps-dir "$work/steps" specs/*.yaml \
  2>"$work/second.log" || fail "second run failed"
expect_eq "second run summary" "$(tail -n 1 "$work/second.log")" \
  "0 written, 57 unchanged, 0 removed"

# Step logic is scaffolded once and is the developer's from then on.
[ -f "$work/steps/initialize_nova/steps.cpp" ] || fail "steps.cpp not scaffolded"
grep -q "NormalizeCandidateName is not implemented yet" \
  "$work/steps/initialize_nova/steps.cpp" || fail "scaffold has no stub"
echo "// mine" >"$work/steps/initialize_nova/steps.cpp"
"$gen" -q --out "$work/out" --steps-dir "$work/steps" specs/*.yaml ||
  fail "regeneration over step logic failed"
expect_eq "step logic kept" "$(cat "$work/steps/initialize_nova/steps.cpp")" "// mine"
grep -q "initialize_nova/steps" "$work/out/MANIFEST" && fail "step logic in the manifest"
diff -r "$work/first" "$work/out" >/dev/null || fail "second run changed files"
"$gen" --check --out "$work/out" specs/*.yaml >"$work/check.out" 2>&1
expect_eq "--check in sync exit" "$?" "0"
ls "$work/out"/*/*.tmp.* >/dev/null 2>&1 && fail "temporary files left behind"

# A stale file: --check prints a unified diff, exits 1 and writes nothing.
sed -i 's/"TimeoutSeconds": 20/"TimeoutSeconds": 21/' \
  "$work/out/initialize_nova/statemachine.asl.json"
cp "$work/out/initialize_nova/statemachine.asl.json" "$work/stale.json"
"$gen" --check --out "$work/out" specs/*.yaml >"$work/diff.out" 2>"$work/diff.err"
expect_eq "--check stale exit" "$?" "1"
expect_eq "--check diff header" "$(head -n 2 "$work/diff.out")" \
"--- a/initialize_nova/statemachine.asl.json
+++ b/initialize_nova/statemachine.asl.json"
# Three Tasks have a 20s timeout: three lines out, three in.
expect_eq "--check diff lines" "$(grep -c '^[-+] ' "$work/diff.out")" "6"
expect_eq "--check message" "$(tail -n 1 "$work/diff.err")" \
  "1 generated file is out of date in $work/out; run novacat-gen specs/discover_spectra_products.yaml specs/download_and_validate_spectra.yaml specs/ingest_new_nova.yaml specs/ingest_photometry_dataset.yaml specs/initialize_nova.yaml specs/refresh_references.yaml to regenerate"
cmp -s "$work/stale.json" "$work/out/initialize_nova/statemachine.asl.json" ||
  fail "--check modified a file"

# An orphan: a workflow whose spec is gone is reported and then removed;
# a file a person wrote next to it is kept.
echo "notes" >"$work/out/refresh_references/NOTES.md"
"$gen" --check --out "$work/out" specs/initialize_nova.yaml \
  specs/discover_spectra_products.yaml >"$work/orphan.out" 2>/dev/null
expect_eq "--check orphan exit" "$?" "1"
grep -q '^+++ /dev/null' "$work/orphan.out" || fail "orphan not shown as deleted"
expect_eq "--check compares the stack" \
  "$(grep -c '^+++ b/stack.template.json$' "$work/orphan.out")" "1"
# The stack belongs to the whole set: a run given only some of the
# manifest's workflows leaves it as it is and says why.
"$gen" -q --out "$work/out" --steps-dir "$work/steps" specs/initialize_nova.yaml \
  specs/discover_spectra_products.yaml 2>"$work/partial.err" ||
  fail "regeneration failed"
expect_eq "partial run note" "$(grep '^note:' "$work/partial.err")" \
  "note: $work/out/stack.template.json not rewritten: it also deploys download_and_validate_spectra, ingest_new_nova, ingest_photometry_dataset, refresh_references; pass every spec (or --prune)"
cmp -s "$work/first/stack.template.json" "$work/out/stack.template.json" ||
  fail "a partial run rewrote the stack"
expect_eq "stack in the manifest" "$(grep '^stack' "$work/out/MANIFEST")" \
  "$(printf 'stack.template.json\t*')"
[ -e "$work/out/refresh_references/statemachine.asl.json" ] ||
  fail "a run without --prune removed another workflow's files"
"$gen" -q --prune --out "$work/out" --steps-dir "$work/steps" specs/initialize_nova.yaml \
  specs/discover_spectra_products.yaml 2>"$work/prune.err" || fail "pruning failed"
expect_eq "pruning run note" "$(grep -c '^note:' "$work/prune.err")" "0"
expect_eq "pruned stack" \
  "$(grep -o '"Description": "Nova Cat: [^"]*"' "$work/out/stack.template.json")" \
  '"Description": "Nova Cat: the table, the event bus and the workflows discover_spectra_products, initialize_nova. Generated by novacat-gen; do not edit."'
"$gen" -q --out "$work/out" --steps-dir "$work/steps" specs/initialize_nova.yaml \
  2>"$work/one.err" || fail "one-workflow run failed"
expect_eq "one-workflow run note" "$(grep '^note:' "$work/one.err")" \
  "note: $work/out/stack.template.json not rewritten: it also deploys discover_spectra_products; pass every spec (or --prune)"
# A fresh folder has no manifest: a run with one spec writes its stack.
"$gen" -q --out "$work/single" --steps-dir "$work/steps" specs/ingest_new_nova.yaml \
  2>"$work/single.err" || fail "single-spec run failed"
expect_eq "single-spec run stderr" "$(cat "$work/single.err")" ""
grep -q '"IngestNewNovaStateMachine"' "$work/single/stack.template.json" ||
  fail "a fresh single-spec run wrote no stack"
[ -e "$work/out/refresh_references/statemachine.asl.json" ] &&
  fail "orphan not removed"
[ -e "$work/out/schemas/events/refresh_references/latest.json" ] &&
  fail "orphan schema not removed"
[ -e "$work/out/refresh_references/NOTES.md" ] || fail "person's file removed"

# A spec with errors: exit 2, diagnostics on stderr, nothing written.
mkdir -p "$work/specs"
cp -r specs/shared "$work/specs/"
sed 's/timeout: 60s/tiemout: 60s/' specs/initialize_nova.yaml \
  >"$work/specs/initialize_nova.yaml"
"$gen" --out "$work/none" --steps-dir "$work/none-steps" \
  "$work/specs/initialize_nova.yaml" 2>"$work/err.txt"
expect_eq "error exit" "$?" "2"
[ -e "$work/none" ] && fail "output written despite errors"
[ -e "$work/none-steps" ] && fail "step logic scaffolded despite errors"
state_line=$(grep -n '^  ResolveCandidateAgainstPublicArchives:' specs/initialize_nova.yaml | cut -d: -f1)
key_line=$((state_line + 2))
expect_eq "error diagnostics" "$(cat "$work/err.txt")" \
"$work/specs/initialize_nova.yaml:$state_line:3: error: Task 'ResolveCandidateAgainstPublicArchives' has no timeout; add 'timeout:' (e.g. 10s) or use a retry preset that sets one [task-timeout]
$(printf '%5d' "$state_line") |   ResolveCandidateAgainstPublicArchives:
      |   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
$work/specs/initialize_nova.yaml:$key_line:5: error: unknown key 'tiemout' in Task state 'ResolveCandidateAgainstPublicArchives'; did you mean 'timeout'? [unknown-key]
$(printf '%5d' "$key_line") |     tiemout: 60s
      |     ^~~~~~~
2 errors, 0 warnings"

# Refuses to overwrite a file that is not in the manifest.
mkdir -p "$work/hand/initialize_nova"
echo "{}" >"$work/hand/initialize_nova/statemachine.asl.json"
"$gen" -q --out "$work/hand" --steps-dir "$work/steps" specs/initialize_nova.yaml \
  2>"$work/hand.err"
expect_eq "overwrite refusal exit" "$?" "2"
expect_eq "overwrite kept" "$(cat "$work/hand/initialize_nova/statemachine.asl.json")" "{}"

# A missing spec file is a usage error.
"$gen" specs/does_not_exist.yaml >/dev/null 2>&1
expect_eq "missing spec exit" "$?" "105"

# A frozen event schema version: the issue's own example, a required field
# added to ingest_new_nova (once, in the event catalog) without a bump.
# Generation and --check both refuse at the field, nothing is written; the
# bump writes v2 beside the untouched v1.
mkdir -p "$work/frozen"
cp -r specs "$work/frozen/specs"
python3 - "$work/frozen/specs/shared/events.yaml" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
start = text.index("  ingest_new_nova:\n")
fields = "      correlation_id: {type: uuid, required: true}\n"
at = text.index(fields, start) + len(fields)
open(path, "w").write(text[:at] + "      discovered_by: {type: string, required: true}\n" + text[at:])
PY
"$gen" -q --out "$work/frozen/out" --steps-dir "$work/steps" specs/*.yaml ||
  fail "frozen: first generation failed"
cp "$work/frozen/out/schemas/events/ingest_new_nova/v1.json" "$work/frozen/v1.before"
frozen_message="$work/frozen/specs/shared/events.yaml:14:7: error: event 'ingest_new_nova' version 1 is frozen ($work/frozen/out/schemas/events/ingest_new_nova/v1.json): field 'discovered_by' was added as required: breaking for producers (their events lack it); bump its schema_version to 2 (the event's or the workflow's) to change it [schema-frozen]"
for mode in "" "--check"; do
  "$gen" -q $mode --out "$work/frozen/out" --steps-dir "$work/steps" \
    "$work"/frozen/specs/*.yaml >/dev/null 2>"$work/frozen.err"
  expect_eq "frozen $mode exit" "$?" "2"
  expect_eq "frozen $mode message" "$(head -n 1 "$work/frozen.err")" "$frozen_message"
done
cmp -s "$work/frozen/v1.before" "$work/frozen/out/schemas/events/ingest_new_nova/v1.json" ||
  fail "frozen: v1.json was rewritten"
sed -i 's/^  ingest_new_nova:$/  ingest_new_nova:\n    schema_version: 2/' \
  "$work"/frozen/specs/shared/events.yaml
"$gen" -q --out "$work/frozen/out" --steps-dir "$work/steps" \
  "$work"/frozen/specs/*.yaml 2>"$work/frozen.err" || fail "frozen: the bump failed: $(cat "$work/frozen.err")"
cmp -s "$work/frozen/v1.before" "$work/frozen/out/schemas/events/ingest_new_nova/v1.json" ||
  fail "frozen: v1.json changed with the bump"
cmp -s "$work/frozen/out/schemas/events/ingest_new_nova/v2.json" \
  "$work/frozen/out/schemas/events/ingest_new_nova/latest.json" ||
  fail "frozen: latest.json is not v2.json"
grep -q '"discovered_by"' "$work/frozen/out/schemas/events/ingest_new_nova/v2.json" ||
  fail "frozen: v2.json lacks the new field"

# `new`: the smallest spec of a new workflow, which compiles as it is with
# no diagnostic; never over an existing file; a bad name is refused.
mkdir -p "$work/newspecs"
cp -r specs/shared "$work/newspecs/shared"
"$gen" new annotate_thing --specs-dir "$work/newspecs" 2>"$work/new.err"
expect_eq "new exit" "$?" "0"
expect_eq "new message" "$(cat "$work/new.err")" \
  "created $work/newspecs/annotate_thing.yaml; next: novacat-gen $work/newspecs/*.yaml, then fill in the step logic it scaffolds"
grep -q '^event_catalog: shared/events.yaml$' "$work/newspecs/annotate_thing.yaml" ||
  fail "new: no event_catalog line although the catalog is there"
grep -q '^  key: "AnnotateThing:{nova_id}:{schema_version}:{time_bucket}"$' \
  "$work/newspecs/annotate_thing.yaml" || fail "new: the key's prefix"
"$gen" --out "$work/newout" --steps-dir "$work/newsteps" \
  "$work/newspecs/annotate_thing.yaml" 2>"$work/new.log"
expect_eq "new spec compiles" "$?" "0"
grep -E "error|warning" "$work/new.log" && fail "new spec has diagnostics"
[ -f "$work/newsteps/annotate_thing/steps.cpp" ] || fail "new: no step logic scaffolded"
echo "# mine" >>"$work/newspecs/annotate_thing.yaml"
cp "$work/newspecs/annotate_thing.yaml" "$work/new.before"
"$gen" new annotate_thing --specs-dir "$work/newspecs" 2>"$work/new.err"
expect_eq "new over a spec exit" "$?" "2"
expect_eq "new over a spec message" "$(cat "$work/new.err")" \
  "novacat-gen new: $work/newspecs/annotate_thing.yaml exists; nothing written"
cmp -s "$work/new.before" "$work/newspecs/annotate_thing.yaml" || fail "new overwrote a spec"
"$gen" new Annotate-Thing --specs-dir "$work/newspecs" 2>"$work/new.err"
expect_eq "new bad name exit" "$?" "2"
expect_eq "new bad name message" "$(cat "$work/new.err")" \
  "novacat-gen new: 'Annotate-Thing': a workflow name starts with a lower-case letter"
"$gen" >/dev/null 2>"$work/new.err"
expect_eq "no SPEC exit" "$?" "106"
expect_eq "no SPEC message" "$(head -n 1 "$work/new.err")" "SPEC is required"

# --check compares every generated file with what the specs make, every
# time: a generated file edited (its size kept), removed, or the manifest
# edited is stale; each restored, the folder is in sync again.
mkdir -p "$work/rspecs"
cp -r specs/shared specs/*.yaml "$work/rspecs/"
rspecs=("$work/rspecs"/*.yaml)
"$gen" -q --out "$work/rec" --steps-dir "$work/rsteps" "${rspecs[@]}" ||
  fail "generation for the check failed"
full="58 files in $work/rec are in sync with 6 specs"
stale="1 generated file is out of date in $work/rec; run novacat-gen ${rspecs[*]} to regenerate"
check_rec() {  # check_rec NAME EXIT STDERR-LAST-LINE [ARGS...]
  local name=$1 exit=$2 line=$3
  shift 3
  "$gen" --check --out "$work/rec" "$@" "${rspecs[@]}" >"$work/rec.out" \
    2>"$work/rec.err"
  expect_eq "$name: exit" "$?" "$exit"
  expect_eq "$name: says" "$(tail -n 1 "$work/rec.err")" "$line"
}
check_rec "check: in sync" 0 "$full"
check_rec "check: again" 0 "$full"
sed -i 's/"TimeoutSeconds": 20/"TimeoutSeconds": 29/' \
  "$work/rec/initialize_nova/statemachine.asl.json"
check_rec "check: output edited" 1 "$stale"
grep -c '^[-+] ' "$work/rec.out" | grep -qx 6 || fail "check: no diff of the edited file"
sed -i 's/"TimeoutSeconds": 29/"TimeoutSeconds": 20/' \
  "$work/rec/initialize_nova/statemachine.asl.json"
check_rec "check: output restored" 0 "$full"
mv "$work/rec/refresh_references/README.md" "$work/readme.kept"
check_rec "check: output removed" 1 "$stale"
mv "$work/readme.kept" "$work/rec/refresh_references/README.md"
echo "extra.txt	initialize_nova" >>"$work/rec/MANIFEST"
check_rec "check: manifest edited" 1 "$stale"
sed -i '$d' "$work/rec/MANIFEST"
check_rec "check: manifest restored" 0 "$full"
sed -i 's/timeout: 20s/timeout: 21s/' "$work/rspecs/initialize_nova.yaml"
check_rec "check: spec edited" 1 "6 generated files are out of date in $work/rec; run novacat-gen ${rspecs[*]} to regenerate"
sed -i 's/timeout: 21s/timeout: 20s/' "$work/rspecs/initialize_nova.yaml"
check_rec "check: spec restored" 0 "$full"
# --no-cache and --cache-dir governed a record --check no longer keeps:
# accepted for one release, without effect, and saying so.
check_rec "check: --no-cache" 0 "$full" --no-cache
expect_eq "check: --no-cache says" "$(head -n 1 "$work/rec.err")" \
  "note: --no-cache has no effect: --check compares every file; it will be removed"
check_rec "check: --cache-dir" 0 "$full" --cache-dir "$work/cachedir"
expect_eq "check: --cache-dir says" "$(head -n 1 "$work/rec.err")" \
  "note: --cache-dir has no effect: --check compares every file; it will be removed"
[ -e "$work/cachedir" ] && fail "check: --cache-dir made a folder"
# A check prints the specs' diagnostics as generation does.
"$gen" -q --out "$work/warn" --steps-dir "$work/wsteps" \
  tests/malformed/retry-budget.yaml 2>/dev/null || fail "warning spec failed"
"$gen" --check --out "$work/warn" tests/malformed/retry-budget.yaml \
  >/dev/null 2>"$work/warn.err"
expect_eq "check: a spec with a warning" \
  "$(head -n -1 "$work/warn.err")" "$(cat tests/malformed/retry-budget.expected)"
expect_eq "check: a spec with a warning, in sync" "$(tail -n 1 "$work/warn.err")" \
  "10 files in $work/warn are in sync with 1 spec"

finish "all CLI tests passed"
