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
# --check's records of what it found in sync, this run's own.
export XDG_CACHE_HOME="$work/cache"


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
grep -q '^  key: "AnnotateThing:{nova_id}:{schema_version}"$' \
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

# --check keeps a record of what it found in sync (support/check_record.h):
# the next check of the same specs and folder by the same binary trusts it
# while no input and no generated file changed, and only then.
records="$XDG_CACHE_HOME/novacat-gen"
rm -rf "$records"
mkdir -p "$work/rspecs"
cp -r specs/shared specs/*.yaml "$work/rspecs/"
rspecs=("$work/rspecs"/*.yaml)
"$gen" -q --out "$work/rec" --steps-dir "$work/rsteps" "${rspecs[@]}" ||
  fail "generation for the record failed"
full="58 files in $work/rec are in sync with 6 specs"
trusted="$full (unchanged since the last check; --no-cache checks them again)"
check_rec() {  # check_rec NAME EXIT STDERR-LAST-LINE [ARGS...]
  local name=$1 exit=$2 line=$3
  shift 3
  "$gen" --check --out "$work/rec" "$@" "${rspecs[@]}" >"$work/rec.out" \
    2>"$work/rec.err"
  expect_eq "$name: exit" "$?" "$exit"
  expect_eq "$name: says" "$(tail -n 1 "$work/rec.err")" "$line"
}
check_rec "record: first check" 0 "$full"
expect_eq "record: one file" "$(ls "$records" | grep -c '^check-[0-9a-f]*\.json$')" "1"
record=$(ls "$records"/check-*.json)
# The generator's identity opens with its binary's build id, as readelf
# reads it, then the shared objects' and the version.
expect_eq "record: the binary's build id" \
  "$(grep -o '"generator": "[0-9a-f]*' "$record" | cut -d'"' -f4)" \
  "$(readelf -n "$gen" | sed -n 's/^ *Build ID: //p')"
grep -q '"generator": "[0-9a-f,]* 0\.1\.0",$' "$record" ||
  fail "record: the generator's identity"
check_rec "record: trusted" 0 "$trusted"
cp "$record" "$work/record.before"
check_rec "record: --no-cache" 0 "$full" --no-cache
cmp -s "$work/record.before" "$record" || fail "--no-cache rewrote the record"
# A generated file edited (its size kept): stale, whatever the record says.
sed -i 's/"TimeoutSeconds": 20/"TimeoutSeconds": 29/' \
  "$work/rec/initialize_nova/statemachine.asl.json"
check_rec "record: output edited" 1 "1 generated file is out of date in $work/rec; run novacat-gen ${rspecs[*]} to regenerate"
grep -c '^[-+] ' "$work/rec.out" | grep -qx 6 || fail "record: no diff of the edited file"
sed -i 's/"TimeoutSeconds": 29/"TimeoutSeconds": 20/' \
  "$work/rec/initialize_nova/statemachine.asl.json"
check_rec "record: output restored" 0 "$trusted"
# A generated file removed, and the manifest edited.
mv "$work/rec/refresh_references/README.md" "$work/readme.kept"
check_rec "record: output removed" 1 "1 generated file is out of date in $work/rec; run novacat-gen ${rspecs[*]} to regenerate"
mv "$work/readme.kept" "$work/rec/refresh_references/README.md"
echo "extra.txt	initialize_nova" >>"$work/rec/MANIFEST"
check_rec "record: manifest edited" 1 "1 generated file is out of date in $work/rec; run novacat-gen ${rspecs[*]} to regenerate"
sed -i '$d' "$work/rec/MANIFEST"
check_rec "record: manifest restored" 0 "$trusted"
# A spec edited so that what it makes changes: stale; a comment, which
# changes no file, is checked in full once and then trusted again.
sed -i 's/timeout: 20s/timeout: 21s/' "$work/rspecs/initialize_nova.yaml"
check_rec "record: spec edited" 1 "6 generated files are out of date in $work/rec; run novacat-gen ${rspecs[*]} to regenerate"
sed -i 's/timeout: 21s/timeout: 20s/' "$work/rspecs/initialize_nova.yaml"
echo "# a comment" >>"$work/rspecs/initialize_nova.yaml"
check_rec "record: spec comment" 0 "$full"
check_rec "record: spec comment again" 0 "$trusted"
# An input no argument names: the governance the specs share.
echo "# a comment" >>"$work/rspecs/shared/governance.yaml"
check_rec "record: governance edited" 0 "$full"
check_rec "record: governance again" 0 "$trusted"
# Another generator's record, a broken one, and one for other specs.
sed -i 's/"generator": "[0-9a-f]*/"generator": "0123/' "$record"
check_rec "record: another generator" 0 "$full"
grep -q '"generator": "0123' "$record" && fail "record: not saved again"
printf '{' >"$record"
check_rec "record: broken record" 0 "$full"
expect_eq "record: broken record, stderr" "$(cat "$work/rec.err")" "$full"
check_rec "record: saved again" 0 "$trusted"
"$gen" --check -q --out "$work/rec" "${rspecs[@]:1}" >/dev/null 2>&1
expect_eq "record: other specs exit" "$?" "1"
expect_eq "record: none kept of a stale check" \
  "$(ls "$records" | grep -c '^check-[0-9a-f]*\.json$')" "1"
check_rec "record: still trusted" 0 "$trusted"
# The folder named otherwise: a record of its own.
"$gen" --check --out "$work/./rec" "${rspecs[@]}" 2>"$work/rec.err"
expect_eq "record: the folder named otherwise" "$(cat "$work/rec.err")" \
  "58 files in $work/./rec are in sync with 6 specs"
expect_eq "record: a record per folder as named" \
  "$(ls "$records" | grep -c '^check-[0-9a-f]*\.json$')" "2"
# An input gone: the specs' error, not the record's word.
mv "$work/rspecs/shared/governance.yaml" "$work/governance.kept"
check_rec "record: governance gone" 2 "147 errors, 0 warnings"
expect_eq "record: governance gone, the error" \
  "$(grep -c "error: cannot read governance file '$work/rspecs/shared/governance.yaml' \[governance-not-found\]$" "$work/rec.err")" "1"
mv "$work/governance.kept" "$work/rspecs/shared/governance.yaml"
check_rec "record: governance back" 0 "$trusted"
# The machine formats say the same of a trusted check as of a full one.
"$gen" --check --no-cache --format sarif --out "$work/rec" "${rspecs[@]}" \
  >"$work/full.sarif" 2>/dev/null
"$gen" --check --format sarif --out "$work/rec" "${rspecs[@]}" \
  >"$work/trusted.sarif" 2>"$work/rec.err"
expect_eq "record: trusted sarif" "$(cat "$work/trusted.sarif")" "$(cat "$work/full.sarif")"
expect_eq "record: trusted sarif, stderr" "$(cat "$work/rec.err")" "$trusted"
# A cache folder that cannot be written costs the speed, not the result.
XDG_CACHE_HOME="$work/rspecs/initialize_nova.yaml" check_rec \
  "record: unwritable cache" 0 "$full"
expect_eq "record: unwritable cache, stderr" "$(cat "$work/rec.err")" "$full"
XDG_CACHE_HOME="$work/rspecs/initialize_nova.yaml" check_rec \
  "record: unwritable cache again" 0 "$full"
# A trusted check prints the specs' diagnostics as a full one does.
"$gen" -q --out "$work/warn" --steps-dir "$work/wsteps" \
  tests/malformed/retry-budget.yaml 2>/dev/null || fail "warning spec failed"
for run in full trusted; do
  "$gen" --check --out "$work/warn" tests/malformed/retry-budget.yaml \
    >/dev/null 2>"$work/warn.err"
  expect_eq "record: $run check of a spec with a warning" \
    "$(head -n -1 "$work/warn.err")" "$(cat tests/malformed/retry-budget.expected)"
done
expect_eq "record: trusted with a warning" "$(tail -n 1 "$work/warn.err")" \
  "10 files in $work/warn are in sync with 1 spec (unchanged since the last check; --no-cache checks them again)"

finish "all CLI tests passed"
