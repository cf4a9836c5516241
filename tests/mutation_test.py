#!/usr/bin/env python3
"""Mutation test of the generated conformance tests: each generated
definition is mutated (drop a retrier, change an interval, point a Catch
elsewhere, swap two Choice branches, remove a ResultPath, change the Result
of an outcome or quarantine-reason mark (plan-mode cases alone), change
MaxConcurrency, rename a state) and the workflow's conformance binary must
fail on every mutant. Prints each mutant's verdict and the mutation score.

Usage (from the build tree's root): mutation_test.py BUILD_DIR
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

# The workflows: one per spec in specs/ (its file name is its workflow's
# name), the list CMake builds too.
SPECS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "specs")
WORKFLOWS = sorted(f[:-len(".yaml")] for f in os.listdir(SPECS) if f.endswith(".yaml"))


# A mutant whose description starts so runs the plan-mode cases alone
# (NOVACAT_CONFORMANCE_PLAN_ONLY: the host-mode runs are skipped).
PLAN_MODE = "[plan mode] "


def states_of(machine):
    """Every (states dict, name, state) in a definition, Map items included."""
    for name, state in machine["States"].items():
        yield machine["States"], name, state
        if "ItemProcessor" in state:
            yield from states_of(state["ItemProcessor"])


def mutants(definition):
    """Yields (description, mutated definition), a few of each kind."""
    def first(pred):
        for states, name, state in states_of(definition):
            if pred(state):
                return name
        return None

    def mutate(name, fn):
        d = copy.deepcopy(definition)
        for states, n, state in states_of(d):
            if n == name:
                fn(states, state)
                return d
        raise KeyError(name)

    tasks = [n for _, n, s in states_of(definition) if s.get("Retry")]
    for name in tasks[:3]:
        yield f"drop the retrier of {name}", mutate(name, lambda st, s: s.pop("Retry"))
        yield f"change the interval of {name}", mutate(
            name, lambda st, s: s["Retry"][0].update(IntervalSeconds=s["Retry"][0]["IntervalSeconds"] + 1))
    def point_elsewhere(st, s):
        targets = [n for n in st if n != s["Catch"][-1]["Next"] and st[n]["Type"] == "Task"]
        s["Catch"][-1]["Next"] = targets[0]
    caught = first(lambda s: len(s.get("Catch", [])) >= 1 and s["Type"] == "Task")
    if caught:
        yield f"point the last Catch of {caught} elsewhere", mutate(caught, point_elsewhere)
    def swap(st, s):
        if len(s["Choices"]) >= 2:
            a, b = s["Choices"][0], s["Choices"][1]
            a["Next"], b["Next"] = b["Next"], a["Next"]
        else:
            s["Choices"][0]["Next"], s["Default"] = s["Default"], s["Choices"][0]["Next"]
    for _, name, state in states_of(definition):
        if state["Type"] == "Choice" and "Default" in state:
            yield f"swap branches of {name}", mutate(name, swap)
    with_catch_path = first(lambda s: any("ResultPath" in c for c in s.get("Catch", [])))
    if with_catch_path:
        yield f"remove a Catch ResultPath of {with_catch_path}", mutate(
            with_catch_path, lambda st, s: s["Catch"][0].pop("ResultPath"))
    outcome_pass = first(lambda s: s["Type"] == "Pass" and s.get("ResultPath") == "$.outcome")
    if outcome_pass:
        yield f"remove the ResultPath of {outcome_pass}", mutate(
            outcome_pass, lambda st, s: s.pop("ResultPath"))
    # The marks' Results, run in plan mode alone (PLAN_MODE): the scripted
    # Tasks never return an outcome or a quarantine reason, so only the
    # definition can give the one a case expects.
    for field in ("outcome", "quarantine_reason"):
        for _, name, state in states_of(definition):
            if state["Type"] == "Pass" and state.get("ResultPath") == "$." + field:
                yield f"{PLAN_MODE}change the Result of {name}", mutate(
                    name, lambda st, s: s.update(Result=s["Result"] + "_MUTANT"))
    mapped = first(lambda s: s["Type"] == "Map")
    if mapped:
        yield f"change MaxConcurrency of {mapped}", mutate(
            mapped, lambda st, s: s.update(MaxConcurrency=s["MaxConcurrency"] + 1))
    def rename(st, s):
        pass
    d = copy.deepcopy(definition)
    victim = next(n for n, s in d["States"].items() if s["Type"] == "Task")
    d["States"][victim + "Renamed"] = d["States"].pop(victim)
    for _, _, s in states_of(d):
        for key in ("Next", "Default"):
            if s.get(key) == victim:
                s[key] = victim + "Renamed"
        for c in s.get("Choices", []) + s.get("Catch", []):
            if c.get("Next") == victim:
                c["Next"] = victim + "Renamed"
    if d.get("StartAt") == victim:
        d["StartAt"] = victim + "Renamed"
    yield f"rename state {victim}", d


def main():
    build = sys.argv[1]
    killed = total = 0
    survivors = []
    for workflow in WORKFLOWS:
        binary = None
        for root, _, files in os.walk(build):
            if f"conformance_{workflow}" in files:
                binary = os.path.join(root, f"conformance_{workflow}")
        asl = os.path.join(build, "novacat", workflow, workflow, "statemachine.asl.json")
        if not binary or not os.path.exists(asl):
            print(f"FAIL {workflow}: no conformance binary or definition in {build}")
            return 1
        definition = json.load(open(asl))
        base = subprocess.run([binary], capture_output=True)
        if base.returncode != 0:
            print(f"FAIL {workflow}: the conformance tests fail on the unmutated definition")
            return 1
        with tempfile.TemporaryDirectory() as tmp:
            for description, mutant in mutants(definition):
                path = os.path.join(tmp, "mutant.json")
                json.dump(mutant, open(path, "w"))
                env = dict(os.environ, NOVACAT_CONFORMANCE_ASL=path)
                if description.startswith(PLAN_MODE):
                    env["NOVACAT_CONFORMANCE_PLAN_ONLY"] = "1"
                run = subprocess.run([binary], capture_output=True, env=env)
                total += 1
                if run.returncode != 0:
                    killed += 1
                    print(f"killed    {workflow}: {description}")
                else:
                    survivors.append(f"{workflow}: {description}")
                    print(f"SURVIVED  {workflow}: {description}")
    print(f"mutation score: {killed}/{total} killed")
    # Every kind must be killed: the host-mode cases see a Catch that drops
    # the run's document (a lost correlation_id), and the Map cases see
    # MaxConcurrency on the virtual clock.
    for s in survivors:
        print(f"FAIL a mutant survived: {s}")
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
