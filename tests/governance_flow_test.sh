#!/usr/bin/env bash
# One source of truth: the governance edited in a copy (RETRYABLE's error
# renamed TransientError, a required log field `note` added), annotate_nova
# regenerated against it and built with this build's runtime, then run on
# the executor through the host with its domain Tasks failing RETRYABLE. The
# ASL's retriers, the errors the host reports, the Attempts and the log
# lines all follow the edit; the runtime lists none of it. Usage:
# governance_flow_test.sh NOVACAT_GEN CXX "CXX_FLAGS" RUNTIME_LIB EXECUTOR_LIB
# STORE_LIB
# (run from the repository root).
set -u
gen=$1 cxx=$2 flags=$3 runtime_lib=$4 executor_lib=$5 store_lib=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
root=$(pwd)

mkdir -p "$work/specs/shared"
python3 - specs/shared/governance.yaml "$work/specs/shared/governance.yaml" <<'PY'
import sys
s = open(sys.argv[1]).read()
for old, new in (("    error: RetryableError\n", "    error: TransientError\n"),
                 ("    - correlation_id\n", "    - correlation_id\n    - note\n")):
    assert s.count(old) == 1, old
    s = s.replace(old, new)
open(sys.argv[2], "w").write(s)
PY
sed "s|^governance: .*|governance: shared/governance.yaml|" \
  tests/adding_a_workflow/specs/annotate_nova.yaml >"$work/specs/annotate_nova.yaml"
"$gen" -q --out "$work/out" --steps-dir "$work/steps" \
  "$work/specs/annotate_nova.yaml" || fail "generation failed"

asl=$work/out/annotate_nova/statemachine.asl.json
expect_eq "the ASL retries the renamed error" "$(python3 -c '
import json, sys
states = json.load(open(sys.argv[1]))["States"]
print(states["StoreAnnotation"]["Retry"][0]["ErrorEquals"][0])' "$asl")" \
  "TransientError"

# shellcheck disable=SC2086 # the flags are words
"$cxx" -std=c++20 $flags -I "$root/runtime/include" -I "$root/vocabulary/include" -I "$work/out" \
  tests/governance_flow/driver.cc "$work/out/annotate_nova/annotate_nova.cpp" \
  "$executor_lib" "$store_lib" "$runtime_lib" -lcrypto -o "$work/driver" \
  2>"$work/errors.txt" || { fail "the driver does not build"; cat "$work/errors.txt"; }

expect_eq "what the runtime did" "$("$work/driver" "$asl" 2>&1)" \
"invocation LoadNova TransientError
invocation LoadNova TransientError
invocation LoadNova TransientError
invocation LoadNova TransientError
attempt LoadNova TransientError RETRYABLE
attempt LoadNova TransientError RETRYABLE
attempt LoadNova TransientError RETRYABLE
attempt LoadNova TransientError RETRYABLE
lines 8, with note 8
run FAILED TerminalError"

finish "the runtime follows the edited governance"
