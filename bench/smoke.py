#!/usr/bin/env python3
"""The CI smoke of one benchmark binary (ctest bench.smoke.<binary>).

Usage: smoke.py BINARY [BENCHMARK FLAGS...]

Lists the benchmarks BINARY would run with FLAGS (--benchmark_list_tests),
runs them once, briefly (FLAGS should hold a tiny --benchmark_min_time),
prints their figures, and fails unless the binary exits 0 and every listed
benchmark ran, reported no error (Google Benchmark 1.7 exits 0 after a
SkipWithError, so its JSON is read instead) and has a time and an iteration
count. It asserts no timing.
"""
import json
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary, flags = sys.argv[1], sys.argv[2:]
    name = os.path.basename(binary)
    listed = subprocess.run([binary, *flags, "--benchmark_list_tests"],
                            capture_output=True, text=True, check=False)
    expected = [line for line in listed.stdout.splitlines() if line.strip()]
    if listed.returncode != 0 or not expected:
        print(f"smoke: {name} lists no benchmark (exit {listed.returncode}):\n"
              f"{listed.stdout}{listed.stderr}", file=sys.stderr)
        return 1

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        sys.stdout.flush()
        run = subprocess.run([binary, *flags, f"--benchmark_out={out}",
                              "--benchmark_out_format=json"], check=False)
        if run.returncode != 0:
            print(f"smoke: {name} exited {run.returncode}", file=sys.stderr)
            return 1
        try:
            with open(out, encoding="utf-8") as f:
                runs = json.load(f)["benchmarks"]
        except (OSError, ValueError, KeyError) as e:
            print(f"smoke: {name} wrote no JSON results: {e}", file=sys.stderr)
            return 1

    by_name = {r["name"]: r for r in runs if r.get("run_type") == "iteration"}
    problems = []
    for bench in expected:
        r = by_name.get(bench)
        if r is None:
            problems.append(f"{bench}: did not run")
        elif r.get("error_occurred"):
            problems.append(f"{bench}: {r.get('error_message', 'error')}")
        elif not r.get("iterations") or not r.get("real_time", 0) > 0:
            problems.append(f"{bench}: no figures ({json.dumps(r)})")
    if problems:
        print(f"smoke: {name}: {len(problems)} of {len(expected)} benchmarks "
              "failed:", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    print(f"smoke: {name}: all {len(expected)} benchmarks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
