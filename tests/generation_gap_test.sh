#!/usr/bin/env bash
# The generation gap: hand-written step logic is never overwritten, a Task
# added to the spec fails the build naming the missing method, and a Task
# removed from it fails the build at the stale override. Compiles with the
# same compiler as the project. Usage: generation_gap_test.sh NOVACAT_GEN CXX
# (run from the repository root).
set -u
gen=$1
cxx=${2:-g++}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

root=$(pwd)
sed "s|^governance: .*|governance: $root/specs/shared/governance.yaml|" \
  tests/adding_a_workflow/specs/annotate_nova.yaml >"$work/annotate_nova.yaml"

generate() { "$gen" -q --out "$work/out" --steps-dir "$work/steps" "$1"; }
compile() {  # compile the step logic (it instantiates Steps in MakeSteps)
  "$cxx" -std=c++20 -fsyntax-only -I "$root/runtime/include" -I "$root/vocabulary/include" -I "$work/out" \
    -I "$work/steps" "$work/steps/annotate_nova/steps.cpp" 2>"$work/errors.txt"
}

generate "$work/annotate_nova.yaml" || fail "generation failed"
compile || { fail "the fresh scaffold does not compile"; cat "$work/errors.txt"; }
cp "$work/steps/annotate_nova/steps.hpp" "$work/steps.hpp.orig"

# A Task added to the spec: the step logic no longer compiles, and the
# compiler names the missing method.
python3 - "$work/annotate_nova.yaml" "$work/added.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
s = s.replace("    next: PublishNovaAnnotated\n    outcome: ANNOTATED",
              "    next: AuditAnnotation\n    outcome: ANNOTATED")
s = s.replace("  PublishNovaAnnotated:",
              "  AuditAnnotation: {type: Task, timeout: 5s, next: PublishNovaAnnotated}\n"
              "  PublishNovaAnnotated:", 1)
open(sys.argv[2], "w").write(s)
PY
generate "$work/added.yaml" || fail "generation of the added Task failed"
cmp -s "$work/steps.hpp.orig" "$work/steps/annotate_nova/steps.hpp" ||
  fail "regeneration changed the hand-written steps.hpp"
if compile; then
  fail "a new Task without its method still compiles"
else
  grep -q "pure" "$work/errors.txt" && grep -q "AuditAnnotation" "$work/errors.txt" ||
    { fail "the error does not name the missing method AuditAnnotation"; cat "$work/errors.txt"; }
fi

# A Task removed from the spec: its override no longer compiles.
python3 - "$work/annotate_nova.yaml" "$work/removed.yaml" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = s.replace("    default: StoreAnnotation",
              "    default: {next: PublishNovaAnnotated, outcome: ANNOTATED}")
s = re.sub(r"  StoreAnnotation:\n(    .*\n)+", "", s)
s = s.replace("    raised_by: [StoreAnnotation]\n", "")
open(sys.argv[2], "w").write(s)
PY
generate "$work/removed.yaml" || fail "generation of the removed Task failed"
if compile; then
  fail "a removed Task's method still compiles"
else
  grep -q "StoreAnnotation" "$work/errors.txt" ||
    { fail "the error does not name the stale method StoreAnnotation"; cat "$work/errors.txt"; }
fi

finish "generation gap holds"
