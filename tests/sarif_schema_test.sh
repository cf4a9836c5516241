#!/usr/bin/env bash
# novacat-gen --format sarif against the official SARIF 2.1.0 JSON Schema
# (tests/tools/validate_sarif.mjs): a log of errors, one of --check's stale
# files, and an empty one. A log broken on purpose must be refused, so the
# validator is known to have teeth. Usage: sarif_schema_test.sh NOVACAT_GEN
# (run from the repository root).
set -u
gen=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
validator=$(pwd)/tests/tools/validate_sarif.mjs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export XDG_CACHE_HOME="$work/cache"  # --check's records, this run's own
validate() { node "$validator" "$@" 2>&1; }

"$gen" --format sarif --out "$work/out" tests/malformed/unknown-state-suggestion.yaml \
  >"$work/errors.sarif"
expect_eq "errors exit" "$?" "2"
expect_eq "errors rules" "$(python3 -c '
import json, sys
log = json.load(open(sys.argv[1]))
print(" ".join(r["ruleId"] for r in log["runs"][0]["results"]))' \
  "$work/errors.sarif")" "outcome-unreachable unknown-state unreachable-state"

cp -r specs generated "$work/"
echo "stale" >>"$work/generated/initialize_nova/README.md"
(cd "$work" && "$gen" --check -q --format sarif specs/*.yaml) \
  >"$work/stale.sarif" 2>/dev/null
expect_eq "stale exit" "$?" "1"
expect_eq "stale results" "$(python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["runs"][0]["results"]:
    print(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])' \
  "$work/stale.sarif")" "stale-file generated/initialize_nova/README.md"

"$gen" --check -q --format sarif specs/*.yaml >"$work/clean.sarif"
expect_eq "clean exit" "$?" "0"

expect_eq "official schema" "$(cd "$work" && validate errors.sarif stale.sarif clean.sarif)" \
  "errors.sarif: valid
stale.sarif: valid
clean.sarif: valid"

# The mutant: a level SARIF does not know, and a relative informationUri.
python3 - "$work/errors.sarif" "$work/mutant.sarif" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
log["runs"][0]["results"][0]["level"] = "fatal"
log["runs"][0]["tool"]["driver"]["informationUri"] = "docs/spec-format.md"
json.dump(log, open(sys.argv[2], "w"))
PY
out=$(cd "$work" && validate mutant.sarif)
expect_eq "mutant exit" "$?" "1"
expect_eq "mutant refused" "$out" \
  "mutant.sarif: .runs[0].tool.driver.informationUri should match format \"uri\"
mutant.sarif: .runs[0].results[0].level should be equal to one of the allowed values"

finish "SARIF logs match the official schema"
