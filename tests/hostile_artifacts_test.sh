#!/usr/bin/env bash
# Generates tests/hostile/specs/hostile_text.yaml (text full of quotes,
# backslashes, newlines, */, {{ }}, -->, non-ASCII, 5,000 characters) and
# checks that every artifact is well-formed for its consumer: the ASL passes
# asl-validator, every JSON file parses and every schema is a valid 2020-12
# schema, the DOT diagram renders with Graphviz, and the hostile text
# reaches the outputs intact. (The C++ compiles: the build compiles it with
# novacat_add_workflow.) Usage: hostile_artifacts_test.sh NOVACAT_GEN PYTHON
set -u
gen=$1
python=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$gen" -q --out "$work/out" --steps-dir "$work/steps" \
  tests/hostile/specs/hostile_text.yaml || fail "generation failed"
tests/tools/node_modules/.bin/asl-validator --silent \
  --json-path "$work/out/hostile_text/statemachine.asl.json" ||
  fail "asl-validator rejects the hostile definition"
"$python" - "$work/out" <<'PY' || fail "JSON artifacts"
import glob, json, sys
import jsonschema
out = sys.argv[1]
asl = json.load(open(f"{out}/hostile_text/statemachine.asl.json", encoding="utf-8"))
choice = 'Is it "ok"? --> {{x}} | ; # : Δ'
assert choice in asl["States"], "the hostile state name is lost"
assert asl["States"][choice]["Choices"][0]["StringEquals"] == 'he said "no"'
assert asl["Comment"].startswith('Hostile "text" \\ */ {{ }} -->'), asl["Comment"][:60]
for path in glob.glob(f"{out}/schemas/events/*/*.json"):
    schema = json.load(open(path, encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
label = json.load(open(f"{out}/schemas/events/hostile_input/latest.json",
                       encoding="utf-8"))["properties"]["label"]["enum"]
assert label == ['say "hi"', "back\\slash", "it's", "{{x}}", "a-->b", "Δ"], label
print("json ok")
PY
# The stack embeds the definition through Fn::Sub with the hostile "${"
# text escaped; cfn-lint must accept it.
if command -v cfn-lint >/dev/null; then
  cfn-lint "$work/out/stack.template.json" ||
    fail "cfn-lint rejects the hostile stack"
else
  fail "cfn-lint not found"
fi
if [ -f "$work/out/hostile_text/statemachine.dot" ]; then
  dot -Tsvg "$work/out/hostile_text/statemachine.dot" -o "$work/graph.svg" ||
    fail "dot cannot render the hostile diagram"
fi
if [ -f "$work/out/hostile_text/README.md" ]; then
  grep -q "Nova Cygni 1975" "$work/out/hostile_text/README.md" ||
    fail "the docs lost the non-ASCII title"
fi

finish "hostile artifacts are well-formed"
