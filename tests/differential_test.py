#!/usr/bin/env python3
"""Differential test of `novacat simulate` against aws-local-stepfunctions.

Runs every case in tests/asl_cases/*.json through the reference
(tests/tools/run_local_sfn.mjs, all cases in one Node process) and, when the
NOVACAT environment variable names the novacat binary, through

    $NOVACAT simulate DEFINITION --script SCRIPT --input @INPUT

and compares status, states, waits, and output (SUCCEEDED) or error and
cause (FAILED). A case marked "reference_disagrees" (the reference is wrong
there per the ASL spec) is compared with its hand-written "expected" instead.
Without NOVACAT only the reference side runs: every case must run on it.

Run from the repository root:

    python3 tests/differential_test.py                  # reference only
    NOVACAT=build/runtime/novacat python3 tests/differential_test.py
    ... [-k SUBSTRING] [-v]

Case fields: definition | definition_file (repo-relative), script, input,
note, context (reference only: extra context-object fields), compare_cause
(false: the cause text is implementation-defined), reference_disagrees and
expected {status, output | error, cause, states, waits}. A cause of null and
"" are the same (absent) cause. Standard library only.
"""

import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES_DIR = os.path.join(ROOT, "tests", "asl_cases")
NODE = os.path.join(ROOT, "tests", "tools", "node_modules", ".bin", "node")
RUNNER = os.path.join(ROOT, "tests", "tools", "run_local_sfn.mjs")
CASE_KEYS = {"definition", "definition_file", "script", "input", "note", "context",
             "compare_cause", "reference_disagrees", "expected"}


def json_equal(a, b):
    """JSON equality: booleans are not numbers, 1 equals 1.0, key order ignored."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or (isinstance(a, float) and isinstance(b, float) and math.isclose(a, b, rel_tol=1e-12))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def compact(v, limit=300):
    text = json.dumps(v, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + "..."


def compare(actual, target, compare_cause=True):
    """Differences between a run (`actual`) and what it should be (`target`)."""
    diffs = []
    if actual.get("status") != target.get("status"):
        diffs.append(f"status {actual.get('status')!r} != {target.get('status')!r}")
    if not json_equal(actual.get("states"), target.get("states")):
        diffs.append(f"states {compact(actual.get('states'))} != {compact(target.get('states'))}")
    if not json_equal([float(w) for w in actual.get("waits") or []],
                      [float(w) for w in target.get("waits") or []]):
        diffs.append(f"waits {actual.get('waits')} != {target.get('waits')}")
    if target.get("status") == "SUCCEEDED" and actual.get("status") == "SUCCEEDED":
        if not json_equal(actual.get("output"), target.get("output")):
            diffs.append(f"output {compact(actual.get('output'))} != {compact(target.get('output'))}")
    if target.get("status") == "FAILED" and actual.get("status") == "FAILED":
        if actual.get("error") != target.get("error"):
            diffs.append(f"error {actual.get('error')!r} != {target.get('error')!r}")
        if compare_cause and (actual.get("cause") or "") != (target.get("cause") or ""):
            diffs.append(f"cause {actual.get('cause')!r} != {target.get('cause')!r}")
    return diffs


def check_case(name, case):
    problems = []
    if not isinstance(case, dict):
        return ["not a JSON object"]
    unknown = set(case) - CASE_KEYS
    if unknown:
        problems.append(f"unknown keys {sorted(unknown)}")
    if ("definition" in case) == ("definition_file" in case):
        problems.append("needs exactly one of definition and definition_file")
    for key in ("script", "input"):
        if key not in case:
            problems.append(f"missing {key}")
    if "reference_disagrees" in case:
        exp = case.get("expected")
        if not isinstance(exp, dict) or not {"status", "states", "waits"} <= exp.keys():
            problems.append("reference_disagrees needs expected {status, states, waits, output|error}")
        elif exp["status"] == "SUCCEEDED" and "output" not in exp:
            problems.append("expected SUCCEEDED needs output")
        elif exp["status"] == "FAILED" and "error" not in exp:
            problems.append("expected FAILED needs error")
    elif "expected" in case:
        problems.append("expected is only for reference_disagrees cases")
    return problems


def run_reference(paths):
    """All cases in one Node process: {path: (exit, result)}."""
    proc = subprocess.run([NODE, RUNNER, "--batch", *paths], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    results = {}
    for line in proc.stdout.splitlines():
        if line.strip():
            rec = json.loads(line)
            results[rec["case"]] = (rec["exit"], rec["result"])
    if len(results) != len(paths):
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"reference runner answered {len(results)} of {len(paths)} cases "
                         f"(exit {proc.returncode})")
    return results


def run_novacat(novacat, name, case, tmp):
    workdir = os.path.join(tmp, name)
    os.makedirs(workdir)
    if "definition_file" in case:
        definition = os.path.join(ROOT, case["definition_file"])
    else:
        definition = os.path.join(workdir, "definition.asl.json")
        with open(definition, "w") as f:
            json.dump(case["definition"], f, indent=2)
    script = os.path.join(workdir, "script.json")
    with open(script, "w") as f:
        json.dump(case["script"], f, indent=2)
    input_file = os.path.join(workdir, "input.json")
    with open(input_file, "w") as f:
        json.dump(case["input"], f, indent=2)
    cmd = [*novacat, "simulate", definition, "--script", script, "--input", "@" + input_file]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return None, f"novacat exited {proc.returncode}: {proc.stderr.strip()[:500]}"
    try:
        return json.loads(proc.stdout), None
    except json.JSONDecodeError as e:
        return None, f"novacat printed no JSON ({e})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-k", dest="filter", default="", help="only cases whose name contains this")
    parser.add_argument("-v", dest="verbose", action="store_true", help="print both results on a mismatch")
    args = parser.parse_args()

    names = sorted(f[:-5] for f in os.listdir(CASES_DIR) if f.endswith(".json") and args.filter in f[:-5])
    if not names:
        raise SystemExit(f"no cases in {CASES_DIR}")
    cases = {}
    failures = 0
    for name in names:
        with open(os.path.join(CASES_DIR, name + ".json")) as f:
            cases[name] = json.load(f)
        for problem in check_case(name, cases[name]):
            print(f"BAD   {name}: {problem}")
            failures += 1

    novacat = shlex.split(os.environ.get("NOVACAT", ""))
    t0 = time.monotonic()
    paths = [os.path.relpath(os.path.join(CASES_DIR, n + ".json"), ROOT) for n in names]
    reference = run_reference(paths)
    t_ref = time.monotonic() - t0

    t1 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="novacat-diff-") as tmp:
        for name, path in zip(names, paths):
            case = cases[name]
            ref_exit, ref = reference[path]
            disagrees = "reference_disagrees" in case
            notes = []
            if ref_exit == 2:
                print(f"FAIL  {name}: the reference rejects the case: {ref.get('invalid')}")
                failures += 1
                continue
            if disagrees:
                target = case["expected"]
                if ref_exit == 0 and not compare(ref, target, case.get("compare_cause", True)):
                    notes.append("the reference now matches expected; drop reference_disagrees?")
            else:
                if ref_exit != 0:
                    print(f"FAIL  {name}: the reference crashed: {ref.get('error')}")
                    failures += 1
                    continue
                if ref.get("waits_incomplete"):
                    # run_local_sfn.mjs relies on aws-local-stepfunctions 3.0.0 internals
                    print(f"FAIL  {name}: the reference's retry waits could not all be observed")
                    failures += 1
                    continue
                target = ref
            label = "expected" if disagrees else "reference"
            if not novacat:
                word = "REF  " if not disagrees else "REF* "
                summary = f"{ref.get('status')} {ref.get('error') or ''}".strip() if ref_exit == 0 else "crashed"
                print(f"{word} {name}: {summary}" + ("".join(f" [{n}]" for n in notes)))
                continue
            actual, err = run_novacat(novacat, name, case, tmp)
            if err:
                print(f"FAIL  {name}: {err}")
                failures += 1
                continue
            diffs = compare(actual, target, case.get("compare_cause", True))
            if diffs:
                failures += 1
                print(f"FAIL  {name} (vs {label}): " + "; ".join(diffs))
                if args.verbose:
                    shown = {k: v for k, v in actual.items() if k != "history"}
                    print(f"      novacat:  {json.dumps(shown, sort_keys=True)}")
                    print(f"      {label}: {json.dumps(target, sort_keys=True)}")
            else:
                print(f"PASS  {name} (vs {label})" + "".join(f" [{n}]" for n in notes))
    t_nc = time.monotonic() - t1

    n_dis = sum("reference_disagrees" in c for c in cases.values())
    side = "reference + novacat" if novacat else "reference only (set NOVACAT to compare)"
    print(f"{len(names)} cases ({n_dis} reference_disagrees), {side}: {failures} failing; "
          f"reference {t_ref:.1f}s" + (f", novacat {t_nc:.1f}s" if novacat else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
