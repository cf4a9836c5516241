#!/usr/bin/env python3
"""Checks docs/spec.schema.json and docs/governance.schema.json.

- both are valid JSON Schema draft 2020-12 and every property has a
  description (editors show it as help);
- every specs/*.yaml validates against spec.schema.json and
  specs/shared/governance.yaml against governance.schema.json;
- the complete spec shown in docs/spec-format.md validates;
- documents the loader rejects are rejected (at the expected place), and a
  few it accepts are accepted;
- with NOVACAT_GEN set to the novacat-gen binary, the same documents go
  through the real loader, which must agree (apart from the loader gaps the
  cases name), and the docs example must compile without diagnostics.

YAML is read the way the loader (yaml-cpp + novacat's typed readers) reads it,
not as PyYAML's YAML 1.1 SafeLoader does: only `true`/`false` are booleans
(`YES`, `no`, `on` are strings, even as keys: `on:` in a retry), integers are
decimal (`010` is 10, `0x1F` and `1_000` are strings), there are no
timestamps, and a duplicate key is an error.

Run from the repository root: python3 tests/spec_schema_test.py
Needs PyYAML and jsonschema (4.x, for draft 2020-12).
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

import jsonschema
import yaml

SPEC_SCHEMA = "docs/spec.schema.json"
GOVERNANCE_SCHEMA = "docs/governance.schema.json"
GOVERNANCE = "specs/shared/governance.yaml"
FORMAT_DOC = "docs/spec-format.md"


class LoaderYaml(yaml.SafeLoader):
    """SafeLoader with the scalar types the spec loader recognizes."""

    yaml_implicit_resolvers = {}

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


LoaderYaml.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))
LoaderYaml.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^-?[0-9]+$"), list("-0123456789"))
LoaderYaml.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^-?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][-+]?[0-9]+)?$"),
    list("-.0123456789"))
LoaderYaml.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"),
    ["~", "n", "N", ""])
LoaderYaml.add_constructor(
    "tag:yaml.org,2002:int", lambda loader, node: int(loader.construct_scalar(node), 10))
LoaderYaml.add_constructor(
    "tag:yaml.org,2002:float", lambda loader, node: float(loader.construct_scalar(node)))


def load_yaml(text):
    return yaml.load(text, Loader=LoaderYaml)


def load_yaml_file(path):
    with open(path, encoding="utf-8") as f:
        return load_yaml(f.read())


def load_schema(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


failures = []


def report(ok, label, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {label}")
    if not ok:
        failures.append(label)
        if detail:
            print(textwrap.indent(detail.rstrip(), "       "))


def errors_of(validator, document):
    return sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))


def describe(errors):
    lines = []
    for e in errors[:5]:
        where = "/".join(str(p) for p in e.absolute_path) or "(root)"
        lines.append(f"{where}: {e.message[:300]}")
    return "\n".join(lines)


def missing_descriptions(schema, path="#"):
    """Paths of properties without a description."""
    out = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                for prop, sub in value.items():
                    if not isinstance(sub, dict) or "description" not in sub:
                        out.append(f"{path}/properties/{prop}")
            out += missing_descriptions(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            out += missing_descriptions(value, f"{path}/{i}")
    return out


def check_schema(path):
    schema = load_schema(path)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        report(True, f"{path} is a valid draft 2020-12 schema")
    except jsonschema.SchemaError as e:
        report(False, f"{path} is a valid draft 2020-12 schema", str(e.message))
    missing = missing_descriptions(schema)
    report(not missing, f"{path}: every property has a description",
           "\n".join(missing))
    return jsonschema.Draft202012Validator(schema)


# A small complete spec the loader accepts. Cases below edit it.
MINIMAL = """\
workflow: minimal
governance: shared/governance.yaml
input: start_minimal
events:
  start_minimal:
    fields:
      nova_id: {type: uuid, required: true}
      correlation_id: uuid
outcomes:
  DONE:
idempotency:
  key: "Minimal:{nova_id}"
catch:
  failure: Fail
states:
  Work:
    type: Task
    timeout: 10s
    next: Finalize
    outcome: DONE
  Finalize:
    type: Task
    builtin: FinalizeJobRunSuccess
    timeout: 10s
    end: true
  Fail:
    type: Fail
"""


def edited(old, new):
    assert old in MINIMAL, old
    return MINIMAL.replace(old, new, 1)


class Case:
    """A document and what must happen to it.

    `at`: the instance path ("states/Idle") where the schema must report an
    error (an invalid case). `loader_accepts`: the loader takes the document
    without a load error; the schema rejects it on purpose (a gap in the
    loader, listed in docs/spec-format.md).
    """

    def __init__(self, label, text, at=None, loader_accepts=False):
        self.label, self.text, self.at, self.loader_accepts = label, text, at, loader_accepts


def add_state(block):
    return edited("  Fail:\n    type: Fail\n", "  Fail:\n    type: Fail\n" + block)


def choice(when, extra=""):
    return add_state("  Pick:\n    type: Choice\n    rules:\n      - when: " + when +
                     "\n        next: Work\n" + extra + "    default: Work\n")


WORK = "    timeout: 10s\n    next: Finalize"
END = "    timeout: 10s\n    end: true"

INVALID_SPECS = [
    Case("unknown top-level key", MINIMAL + "owner: someone\n", ""),
    Case("secrets not a list", MINIMAL + "secrets: tns\n", "secrets"),
    Case("a secret named twice", MINIMAL + "secrets: [tns, tns]\n", "secrets"),
    Case("job_run_output not a list", MINIMAL + "job_run_output: count\n", "job_run_output"),
    Case("a job_run_output field named twice",
         MINIMAL + "data:\n  count: integer\njob_run_output: [count, count]\n", "job_run_output"),
    Case("a job_run_output entry not a string",
         MINIMAL + "data:\n  count: integer\njob_run_output: [[count]]\n", "job_run_output/0"),
    Case("missing required top-level key (states)", MINIMAL.split("states:")[0], ""),
    Case("timeout on a Pass state",
         add_state("  Idle:\n    type: Pass\n    timeout: 10s\n    end: true\n"), "states/Idle"),
    Case("bad duration '10 seconds'", edited(WORK, WORK.replace("10s", "10 seconds")),
         "states/Work/timeout"),
    Case("duration without a unit", edited(WORK, WORK.replace("10s", "10")),
         "states/Work/timeout"),
    Case("Choice rule without next",
         add_state("  Pick:\n    type: Choice\n    rules:\n"
                   "      - when: {field: nova_id, is_present: true}\n    default: Work\n"),
         "states/Pick/rules/0"),
    Case("Choice without rules",
         add_state("  Pick:\n    type: Choice\n    default: Work\n"), "states/Pick"),
    Case("field with an unknown type", edited("correlation_id: uuid", "correlation_id: {type: guid}"),
         "events/start_minimal/fields/correlation_id"),
    Case("shorthand field with an unknown type", edited("correlation_id: uuid", "correlation_id: guid"),
         "events/start_minimal/fields/correlation_id"),
    Case("array field without items", edited("correlation_id: uuid", "correlation_id: {type: array}"),
         "events/start_minimal/fields/correlation_id"),
    Case("'required' on a data field (events only)",
         MINIMAL + "data:\n  count: {type: integer, required: true}\n", "data/count"),
    Case("unknown state type", edited("    type: Fail\n", "    type: Stop\n"), "states/Fail/type"),
    Case("state without type", edited("  Fail:\n    type: Fail\n", "  Fail:\n    error: E\n"),
         "states/Fail"),
    Case("next and end: true together", edited(END, "    timeout: 10s\n    next: Fail\n    end: true"),
         "states/Finalize"),
    Case("Task with neither next nor end", edited(END, "    timeout: 10s"), "states/Finalize"),
    Case("'yes' is not a boolean", edited(END, END.replace("true", "yes")), "states/Finalize"),
    Case("'True' is not a boolean", edited(END, END.replace("true", "True")), "states/Finalize"),
    Case("catch that is neither a mapping nor none",
         edited("catch:\n  failure: Fail\n", "catch: all\n"), "catch"),
    Case("unknown catch route", edited("  failure: Fail\n", "  failure: Fail\n  timeout: Fail\n"),
         "catch"),
    Case("unbounded retry",
         edited(WORK, "    timeout: 10s\n    retry: {max_attempts: unlimited}\n    next: Finalize"),
         "states/Work/retry"),
    Case("retry on an unknown error class",
         edited(WORK, "    timeout: 10s\n    retry: {max_attempts: 1, on: [TRANSIENT]}\n"
                "    next: Finalize"), "states/Work/retry"),
    Case("unknown builtin", edited("builtin: FinalizeJobRunSuccess", "builtin: FinalizeRun"),
         "states/Finalize/builtin"),
    Case("condition with two comparisons",
         choice("{field: nova_id, is_present: true, is_null: false}"), "states/Pick/rules/0/when"),
    Case("condition without a comparison", choice("{field: nova_id}"), "states/Pick/rules/0/when"),
    Case("'all' with an empty list", choice("{all: []}"), "states/Pick/rules/0/when"),
    Case("Map without concurrency",
         add_state("  Each:\n    type: Map\n    items: ids\n    item: {name: id}\n"
                   "    result: results\n    end: true\n"
                   "    states:\n      One:\n        type: Succeed\n"), "states/Each"),
    Case("schema_version 0", MINIMAL + "schema_version: 0\n", "schema_version"),
    Case("trigger of an unknown kind", MINIMAL + "triggers:\n  - kind: cron\n", "triggers/0/kind"),
    Case("failure class not an error class", MINIMAL + "failures:\n  broken:\n    class: FATAL\n",
         "failures/broken/class"),
    Case("outcome on an end state",
         edited(END, END + "\n    outcome: DONE"), "states/Finalize"),
    Case("condition with keys beside 'all'",
         choice("{all: [{field: nova_id, is_present: true}], field: nova_id, lt: 3}"),
         "states/Pick/rules/0/when"),
    Case("Choice with an empty rules list (ASL needs Choices)",
         add_state("  Pick:\n    type: Choice\n    rules: []\n    default: Work\n"),
         "states/Pick/rules"),
    Case("empty next in a Choice rule",
         add_state("  Pick:\n    type: Choice\n    rules:\n"
                   "      - when: {field: nova_id, is_present: true}\n"
                   "        next: \"\"\n    default: Work\n"),
         "states/Pick/rules/0/next"),
    Case("shorthand array field (no element type)",
         edited("correlation_id: uuid", "correlation_id: array"),
         "events/start_minimal/fields/correlation_id"),
    Case("duration with a leading zero", edited(WORK, WORK.replace("10s", "010s")),
         "states/Work/timeout"),
    Case("minimum: nan", MINIMAL + "data:\n  ratio: {type: number, minimum: nan}\n",
         "data/ratio"),
    Case("schedule with a plural unit for a rate of 1",
         MINIMAL + "triggers:\n  - kind: scheduled\n    schedule: {expression: rate(1 days), "
         "input: {nova_id: 4f9d3c1e-0b7a-4c55-9a57-2f0e7f6c1a2b}}\n",
         "triggers/0/schedule/expression"),
    Case("cron schedule with five fields",
         MINIMAL + "triggers:\n  - kind: scheduled\n    schedule: {expression: 'cron(0 3 * * ?)'}\n",
         "triggers/0/schedule/expression"),
    Case("schedule on a manual trigger",
         MINIMAL + "triggers:\n  - kind: manual\n    schedule: {expression: rate(1 day)}\n",
         "triggers/0"),
    Case("schedule without expression",
         MINIMAL + "triggers:\n  - kind: scheduled\n    schedule: {input: {}}\n",
         "triggers/0/schedule"),
    Case("schedule with an unknown key",
         MINIMAL + "triggers:\n  - kind: scheduled\n    schedule: {expression: rate(1 day), "
         "inputs: {}}\n", "triggers/0/schedule"),
    Case("schedule for each dataset",
         MINIMAL + "triggers:\n  - kind: scheduled\n    schedule: {expression: rate(1 day), "
         "for_each: dataset}\n", "triggers/0/schedule/for_each"),
    Case("object_created on a manual trigger",
         MINIMAL + "triggers:\n  - kind: manual\n    object_created: {prefix: photometry/}\n",
         "triggers/0"),
    Case("object_created trigger without object_created",
         MINIMAL + "object_store: read\ntriggers:\n  - kind: object_created\n", "triggers/0"),
    Case("object_created with an empty prefix",
         MINIMAL + "object_store: read\ntriggers:\n  - kind: object_created\n"
         "    object_created: {prefix: ''}\n", "triggers/0/object_created/prefix"),
]

VALID_SPECS = [
    Case("the minimal spec", MINIMAL),
    Case("secrets the governance declares", MINIMAL + "secrets: [tns, ads]\n"),
    Case("job_run_output naming data fields",
         MINIMAL + "data:\n  count: integer\n  summary: {type: object}\n"
         "job_run_output: [summary, count]\n"),
    Case("scheduled triggers with a cron and a rate schedule",
         MINIMAL + "triggers:\n  - kind: scheduled\n    schedule:\n"
         "      expression: 'cron(0 3 ? * MON-FRI *)'\n"
         "      input: {nova_id: 4f9d3c1e-0b7a-4c55-9a57-2f0e7f6c1a2b}\n"
         "  - kind: scheduled\n    schedule: {expression: rate(12 hours), "
         "input: {nova_id: 4f9d3c1e-0b7a-4c55-9a57-2f0e7f6c1a2b}}\n"),
    Case("an object_created trigger",
         MINIMAL + "object_store: read\ntriggers:\n  - kind: object_created\n"
         "    object_created: {prefix: photometry/}\n"),
    Case("a schedule with one run per nova",
         MINIMAL + "triggers:\n  - kind: scheduled\n    schedule: {expression: rate(1 day), "
         "for_each: nova}\n"),
    Case("enum values YES/NO/on/off stay strings",
         MINIMAL + "data:\n  status: {type: string, enum: [YES, NO, on, off]}\n"),
    Case("Choice with a default mapping and nested conditions",
         add_state("  Pick:\n    type: Choice\n    rules:\n"
                   "      - when:\n          all:\n"
                   "            - {field: nova_id, is_present: true}\n"
                   "            - not: {field: nova_id, equals: abc}\n"
                   "            - any:\n"
                   "                - {field: attempt_number, ge: 2}\n"
                   "                - {field: attempt_number, lt: 1.5}\n"
                   "        next: Work\n"
                   "    default: {next: Finalize, outcome: DONE}\n")),
    Case("retry as a preset name, catch none, a numeric constant",
         edited(WORK, "    timeout: 10s\n    retry: long_running_download\n    catch: none\n"
                "    next: Finalize") + "constants:\n  rule_version: 1\n"),
    Case("retry mapping with backoff, on and note",
         edited(WORK, "    timeout: 10s\n    retry:\n      preset: default\n"
                "      max_attempts: 2\n      backoff: [2s, 10s]\n      on: [RETRYABLE]\n"
                "      note: why\n    next: Finalize")),
    Case("Map state with item states",
         add_state("  Each:\n    type: Map\n    items: ids\n"
                   "    item: {name: id, type: uuid}\n    carry: [nova_id]\n"
                   "    concurrency: provider_discovery\n    max_concurrency: 1\n"
                   "    max_items: 10\n    result: results\n"
                   "    item_failure: {name: H, catch: [QUARANTINE], next: Q}\n"
                   "    data:\n      found: {type: array, items: uuid}\n"
                   "    start: One\n    next: Finalize\n    states:\n"
                   "      One:\n        type: Task\n        timeout: 1m\n        end: true\n"
                   "      Q:\n        type: Task\n        builtin: QuarantineItem\n"
                   "        timeout: 10s\n        end: true\n")),
]

GOVERNANCE_MINIMAL = """\
governance: g
error_classes:
  RETRYABLE: {error: RetryableError, also_retry: [States.Timeout]}
  TERMINAL: {error: TerminalError}
  QUARANTINE: {error: QuarantineError}
retry_presets:
  default: {max_attempts: 3, backoff: [2s, 10s, 30s]}
  long_running_download: {timeout: 15m, max_attempts: 3, backoff: [10s, 60s, 180s]}
default_retry: default
map_concurrency:
  provider_discovery: {max: 1}
"""

VALID_GOVERNANCE = [
    Case("the minimal governance", GOVERNANCE_MINIMAL),
    Case("secrets", GOVERNANCE_MINIMAL + "secrets:\n  tns: {variable: NOVACAT_TNS_SECRET, "
         "description: 'JSON {\"api_key\"}'}\n  ads_token: {variable: "
         "NOVACAT_ADS_SECRET, description: a token}\n"),
]

INVALID_GOVERNANCE = [
    Case("a secret's variable not NOVACAT_<NAME>_SECRET",
         GOVERNANCE_MINIMAL + "secrets:\n  tns: {variable: TNS_KEY, description: a key}\n",
         "secrets/tns/variable"),
    Case("a secret without description",
         GOVERNANCE_MINIMAL + "secrets:\n  tns: {variable: NOVACAT_TNS_SECRET}\n",
         "secrets/tns"),
    Case("a secret with an unknown key",
         GOVERNANCE_MINIMAL + "secrets:\n  tns: {variable: NOVACAT_TNS_SECRET, "
         "description: a key, arn: x}\n", "secrets/tns"),
    Case("a secret id not lower_snake_case",
         GOVERNANCE_MINIMAL + "secrets:\n  Tns: {variable: NOVACAT_TNS_SECRET, "
         "description: a key}\n", "secrets"),
    Case("missing error class QUARANTINE",
         GOVERNANCE_MINIMAL.replace("  QUARANTINE: {error: QuarantineError}\n", ""),
         "error_classes"),
    Case("also_retry on TERMINAL",
         GOVERNANCE_MINIMAL.replace("{error: TerminalError}",
                                    "{error: TerminalError, also_retry: [X]}"),
         "error_classes/TERMINAL"),
    Case("preset without backoff",
         GOVERNANCE_MINIMAL.replace(", backoff: [2s, 10s, 30s]", ""), "retry_presets/default"),
    Case("preset with a bad timeout",
         GOVERNANCE_MINIMAL.replace("{timeout: 15m,", "{timeout: 15 min,"),
         "retry_presets/long_running_download/timeout"),
    Case("unknown top-level key", GOVERNANCE_MINIMAL + "owners: [a]\n", ""),
    Case("concurrency class without max",
         GOVERNANCE_MINIMAL.replace("{max: 1}", "{description: x}"),
         "map_concurrency/provider_discovery"),
]


def expect(validator, kind, case, valid):
    label = f"{kind}: {case.label}"
    try:
        document = load_yaml(case.text)
    except yaml.YAMLError as e:
        report(False, label, f"does not parse: {e}")
        return
    errors = errors_of(validator, document)
    if valid:
        report(not errors, f"accepts {label}", describe(errors))
        return
    if not errors:
        report(False, f"rejects {label}", "the schema accepted it")
        return
    paths = ["/".join(str(p) for p in e.absolute_path) for e in errors]
    here = [p for p in paths if p == case.at or p.startswith(case.at + "/") or not case.at]
    report(bool(here), f"rejects {label}",
           f"expected an error at '{case.at}', got:\n{describe(errors)}")


# Rule ids the loader reports (the checker's rules need a complete workflow),
# and the checker's schedule and object_created trigger rules, which need no
# more than MINIMAL has. invalid-name: the loader's, of a governance secret
# id (MINIMAL's own names are valid).
LOADER_RULES = {"yaml-syntax", "unknown-key", "wrong-type", "duplicate-key", "missing-key",
                "unknown-builtin", "unknown-preset", "unbounded-retry",
                "schedule-expression", "schedule-input", "schedule-trigger-kind",
                "schedule-for-each", "object-created-missing",
                "object-created-trigger-kind", "secret-variable", "invalid-name"}


def loader_rules(generator, spec_text, governance_text):
    """The loader rule ids novacat-gen reports for a spec (and governance)."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "shared"))
        with open(os.path.join(root, "shared", "governance.yaml"), "w") as f:
            f.write(governance_text)
        with open(os.path.join(root, "case.yaml"), "w") as f:
            f.write(spec_text)
        run = subprocess.run([generator, "-q", "-o", os.path.join(root, "out"),
                              os.path.join(root, "case.yaml")],
                             capture_output=True, text=True, check=False)
        if run.returncode not in (0, 2):
            return None, run.stderr
    rules = set(re.findall(r"\[([a-z-]+)\]$", run.stderr, re.MULTILINE))
    return rules & LOADER_RULES, run.stderr


def cross_check(generator, kind, case, valid, spec_text, governance_text):
    """The loader agrees with the schema (apart from the listed loader gaps)."""
    label = f"loader agrees: {kind}: {case.label}"
    rules, stderr = loader_rules(generator, spec_text, governance_text)
    if rules is None:
        report(False, label, f"novacat-gen crashed:\n{stderr[-600:]}")
    elif case.loader_accepts and not rules:
        print(f"note {label}: the loader accepts it (a known loader gap)")
    elif valid:
        report(not rules, label, stderr)
    else:
        report(bool(rules), label, "the loader reported no load error")


def doc_examples():
    """The complete specs shown in docs/spec-format.md (```yaml blocks with
    the schema line)."""
    with open(FORMAT_DOC, encoding="utf-8") as f:
        blocks = re.findall(r"^```yaml\n(.*?)^```", f.read(), re.MULTILINE | re.DOTALL)
    return [b for b in blocks if "$schema=../docs/spec.schema.json" in b]


def main():
    spec_validator = check_schema(SPEC_SCHEMA)
    governance_validator = check_schema(GOVERNANCE_SCHEMA)

    specs = sorted(glob.glob("specs/*.yaml"))
    report(bool(specs), "specs/*.yaml exist (run from the repository root)")
    for path in specs:
        errors = errors_of(spec_validator, load_yaml_file(path))
        report(not errors, f"{path} matches {SPEC_SCHEMA}", describe(errors))
    errors = errors_of(governance_validator, load_yaml_file(GOVERNANCE))
    report(not errors, f"{GOVERNANCE} matches {GOVERNANCE_SCHEMA}", describe(errors))

    examples = doc_examples()
    report(bool(examples), f"{FORMAT_DOC} shows a complete spec")
    for i, text in enumerate(examples):
        errors = errors_of(spec_validator, load_yaml(text))
        report(not errors, f"{FORMAT_DOC} example {i + 1} matches {SPEC_SCHEMA}",
               describe(errors))

    for case in VALID_SPECS:
        expect(spec_validator, "spec", case, True)
    for case in INVALID_SPECS:
        expect(spec_validator, "spec", case, False)
    for case in VALID_GOVERNANCE:
        expect(governance_validator, "governance", case, True)
    for case in INVALID_GOVERNANCE:
        expect(governance_validator, "governance", case, False)

    # With NOVACAT_GEN=path/to/novacat-gen the same documents go through the
    # real loader, which must agree with the schema.
    generator = os.environ.get("NOVACAT_GEN")
    if generator:
        with open(GOVERNANCE, encoding="utf-8") as f:
            governance = f.read()
        for valid, cases in ((True, VALID_SPECS), (False, INVALID_SPECS)):
            for case in cases:
                cross_check(generator, "spec", case, valid, case.text, governance)
        for valid, cases in ((True, VALID_GOVERNANCE), (False, INVALID_GOVERNANCE)):
            for case in cases:
                cross_check(generator, "governance", case, valid, MINIMAL, case.text)
        for i, text in enumerate(examples):
            with tempfile.TemporaryDirectory() as root:
                os.makedirs(os.path.join(root, "shared"))
                with open(os.path.join(root, "shared", "governance.yaml"), "w") as f:
                    f.write(governance)
                with open(os.path.join(root, "example.yaml"), "w") as f:
                    f.write(text)
                # The step scaffolds go to the temporary folder too, never
                # into the checkout.
                run = subprocess.run([generator, "-q", "-o", os.path.join(root, "out"),
                                      "--steps-dir", os.path.join(root, "steps"),
                                      os.path.join(root, "example.yaml")],
                                     capture_output=True, text=True, check=False)
            report(run.returncode == 0 and not run.stderr.strip(),
                   f"{FORMAT_DOC} example {i + 1} compiles without diagnostics",
                   run.stderr)
    else:
        print("skip the loader cross-check (set NOVACAT_GEN to the novacat-gen binary)")

    try:
        load_yaml("a: 1\na: 2\n")
        report(False, "the test's YAML loader rejects duplicate keys")
    except yaml.YAMLError:
        report(True, "the test's YAML loader rejects duplicate keys")
    scalars = load_yaml("[YES, no, on, true, false, 010, 0x1F, 1_000, 1.5, 2024-01-01, ~]")
    expected = ["YES", "no", "on", True, False, 10, "0x1F", "1_000", 1.5, "2024-01-01", None]
    report(scalars == expected, "the test's YAML loader types scalars like the spec loader",
           f"got {scalars!r}")

    print(f"\n{len(failures)} failure(s)" if failures else "\nall passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
