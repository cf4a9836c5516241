#!/usr/bin/env python3
"""Checks the event JSON Schemas in generated/schemas/events/.

- the events the specs declare, the schema folders and the corpus folders
  (tests/events/<event>/) are the same set;
- every latest.json and v<N>.json is a valid draft 2020-12 schema for Python
  jsonschema and compiles with the pinned ajv-cli (+ ajv-formats);
- latest.json is byte-identical to the highest v<N>.json;
- no schema mentions an internal-only field (governance internal_fields);
  every event but the input events requires correlation_id; ingest_new_nova
  carries UUIDs only;
- every document of tests/events/<event>/{valid,invalid}/ gets the verdict of
  its folder from Python jsonschema (with format checking) and from ajv-cli;
- with NOVACAT_EVENT_VALIDATOR set to a binary run as
  `<binary> <event> <document.json>` (exit 0 accepted, 1 rejected), the C++
  parser gives the same verdicts.

Folders of tests/events/ starting with `_` are not verdict tests.

Run from the repository root: python3 tests/event_schemas_test.py
Needs jsonschema (4.x, for draft 2020-12), PyYAML and the Node tools of
tests/tools (`npm ci`, done by scripts/setup.sh).
"""

import glob
import json
import os
import re
import subprocess
import sys
import textwrap

import jsonschema
import yaml

SCHEMA_DIR = "generated/schemas/events"
CORPUS_DIR = "tests/events"
SPECS = "specs/*.yaml"
GOVERNANCE = "specs/shared/governance.yaml"
AJV = "tests/tools/node_modules/.bin/ajv"
AJV_OPTS = ["--spec=draft2020", "-c", "ajv-formats"]

# Input events start a workflow; the workflow generates correlation_id when
# they lack one. Every other event must carry it.
INPUT_EVENTS = {"initialize_nova", "DiscoverSpectraProducts", "refresh_references",
                "DownloadAndValidateSpectra", "PhotometryObjectCreated"}
INTERNAL_FIELDS = {"idempotency_key", "workflow_idempotency_key", "step_dedupe_key"}
UUID_ONLY_EVENTS = {"ingest_new_nova"}
VERDICTS = ("valid", "invalid")

failures = 0
checks = 0


def report(ok, label, detail=""):
    global failures, checks
    checks += 1
    print(f"{'ok  ' if ok else 'FAIL'} {label}")
    if not ok:
        failures += 1
        if detail:
            print(textwrap.indent(detail.rstrip(), "       "))


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def version_of(path):
    m = re.fullmatch(r"v([0-9]+)\.json", os.path.basename(path))
    return int(m.group(1)) if m else None


def declared_events():
    events = set()
    for spec in sorted(glob.glob(SPECS)):
        with open(spec, encoding="utf-8") as f:
            doc = yaml.safe_load(f)
        events.update((doc or {}).get("events") or {})
    return events


def internal_fields():
    with open(GOVERNANCE, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    return INTERNAL_FIELDS | set(doc.get("internal_fields") or [])


def mentions(node, names, where="#"):
    """JSON pointers of the keys and strings of node that contain a name."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            at = f"{where}/{key}"
            if any(n in key for n in names):
                found.append(at + " (key)")
            found += mentions(value, names, at)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += mentions(value, names, f"{where}/{i}")
    elif isinstance(node, str) and any(n in node for n in names):
        found.append(where)
    return found


def subschemas(node, where="#"):
    """Every schema object below node (properties, items, $defs, ...)."""
    if not isinstance(node, dict):
        return
    yield where, node
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        for name, sub in (node.get(key) or {}).items():
            yield from subschemas(sub, f"{where}/{key}/{name}")
    for key in ("items", "additionalProperties", "contains", "not", "if", "then", "else"):
        if isinstance(node.get(key), dict):
            yield from subschemas(node[key], f"{where}/{key}")
    for key in ("prefixItems", "allOf", "anyOf", "oneOf"):
        for i, sub in enumerate(node.get(key) or []):
            yield from subschemas(sub, f"{where}/{key}/{i}")


def non_uuid_strings(schema):
    """Places of schema that let a non-UUID string (or anything) through."""
    bad = []
    if schema.get("additionalProperties") is not False:
        bad.append("#: additionalProperties is not false")
    for where, sub in subschemas(schema):
        if where != "#" and "/properties/" in where and "type" not in sub \
                and "const" not in sub and "enum" not in sub:
            bad.append(f"{where}: no type")
        types = sub.get("type")
        types = types if isinstance(types, list) else [types]
        if "string" in types and sub.get("format") != "uuid":
            bad.append(f"{where}: string without format uuid")
    return bad


def corpus_documents(event):
    """[(path, expected verdict)] of tests/events/<event>/{valid,invalid}/."""
    docs = []
    for verdict in VERDICTS:
        for path in sorted(glob.glob(os.path.join(CORPUS_DIR, event, verdict, "*.json"))):
            docs.append((path, verdict))
    return docs


def doc_label(path):
    return os.path.relpath(path, CORPUS_DIR)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# --- schemas ---------------------------------------------------------------

def check_event_sets(schema_events, corpus_events):
    declared = declared_events()
    report(declared == schema_events,
           f"schema folders match the events of {SPECS} ({len(declared)})",
           f"declared only: {sorted(declared - schema_events)}\n"
           f"schema only: {sorted(schema_events - declared)}")
    report(schema_events == corpus_events,
           f"corpus folders match the schema folders ({len(schema_events)})",
           f"schema without corpus: {sorted(schema_events - corpus_events)}\n"
           f"corpus without schema: {sorted(corpus_events - schema_events)}")
    for event in sorted(corpus_events):
        counts = {v: sum(1 for _, w in corpus_documents(event) if w == v) for v in VERDICTS}
        report(all(counts.values()),
               f"corpus {event}: {counts['valid']} valid, {counts['invalid']} invalid",
               "each event needs valid and invalid documents")


def check_schema_files(event):
    """Checks one event's schema files; returns the path of latest.json."""
    folder = os.path.join(SCHEMA_DIR, event)
    versions = sorted((version_of(p), p) for p in glob.glob(os.path.join(folder, "v*.json"))
                      if version_of(p) is not None)
    latest = os.path.join(folder, "latest.json")
    files = ([latest] if os.path.exists(latest) else []) + [p for _, p in versions]
    report(os.path.exists(latest) and versions,
           f"{event}: latest.json and v<N>.json exist",
           f"found: {sorted(os.listdir(folder))}")
    if versions and os.path.exists(latest):
        with open(latest, "rb") as a, open(versions[-1][1], "rb") as b:
            same = a.read() == b.read()
        report(same, f"{event}: latest.json is byte-identical to v{versions[-1][0]}.json")
    names = internal_fields()
    for path in files:
        try:
            schema = read_json(path)
            jsonschema.Draft202012Validator.check_schema(schema)
            report(True, f"python check_schema {path}")
        except (ValueError, jsonschema.SchemaError) as e:
            where = "/".join(map(str, getattr(e, "path", []))) or "(root)"
            report(False, f"python check_schema {path}",
                   f"{where}: {getattr(e, 'message', e)}")
            continue
        found = mentions(schema, names)
        report(not found, f"{path}: no internal-only field ({', '.join(sorted(names))})",
               "\n".join(found))
        required = schema.get("required") or []
        if event in INPUT_EVENTS:
            report("correlation_id" in (schema.get("properties") or {}),
                   f"{path}: input event accepts correlation_id")
        else:
            report("correlation_id" in required, f"{path}: requires correlation_id",
                   f"required: {required}")
        if event in UUID_ONLY_EVENTS:
            bad = non_uuid_strings(schema)
            report(not bad, f"{path}: carries UUIDs only", "\n".join(bad))
    return latest if os.path.exists(latest) else None, files


def check_ajv_compile(all_files):
    """ajv compile, batched: one call per round of files with distinct $id
    (ajv refuses a second schema with the same $id in one instance, and
    latest.json shares its $id with the highest v<N>.json)."""
    rounds = []
    for path in all_files:
        try:
            sid = read_json(path).get("$id", path)
        except (ValueError, AttributeError):
            sid = path
        for r in rounds:
            if sid not in r:
                r[sid] = path
                break
        else:
            rounds.append({sid: path})
    for r in rounds:
        paths = list(r.values())
        cmd = [AJV, "compile", *AJV_OPTS]
        for p in paths:
            cmd += ["-s", p]
        proc = run(cmd)
        # ajv-cli prints `schema <file> is valid` on stdout, or `schema <file>
        # is invalid` and an `error: ...` line on stderr; it exits 1 when any
        # schema is invalid.
        valid = set(proc.stdout.splitlines())
        errors = proc.stderr.splitlines()
        for p in paths:
            ok = f"schema {p} is valid" in valid
            detail = [line for i, line in enumerate(errors)
                      if line == f"schema {p} is invalid"
                      or (i and errors[i - 1] == f"schema {p} is invalid")]
            report(ok, f"ajv compile {p}", "\n".join(detail) or proc.stderr)
        all_valid = all(f"schema {p} is valid" in valid for p in paths)
        if all_valid and proc.returncode != 0:
            report(False, f"ajv compile: exit {proc.returncode}", proc.stdout + proc.stderr)


# --- verdicts --------------------------------------------------------------

def check_python_verdicts(event, schema_path, docs):
    validator = jsonschema.Draft202012Validator(
        read_json(schema_path),
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for path, expected in docs:
        try:
            errors = sorted(validator.iter_errors(read_json(path)), key=lambda e: list(e.path))
        except ValueError as e:
            report(False, f"python {doc_label(path)}", f"not JSON: {e}")
            continue
        got = "invalid" if errors else "valid"
        detail = "\n".join(f"{'/'.join(map(str, e.path)) or '(root)'}: {e.message}"
                           for e in errors) or "no errors"
        report(got == expected, f"python {doc_label(path)}: {got}",
               f"expected {expected}; {detail}")


def check_ajv_verdicts(event, schema_path, docs):
    """One ajv-cli call for all of the event's documents. ajv-cli prints
    `<file> valid` on stdout, `<file> invalid` and then the errors (one line
    with --errors=line) on stderr; it exits 0 when all are valid, 1 when some
    are invalid, 2 on a usage or file error."""
    cmd = [AJV, "validate", *AJV_OPTS, "--errors=line", "-s", schema_path]
    for path, _ in docs:
        cmd += ["-d", path]
    proc = run(cmd)
    verdicts, errors = {}, {}
    for line in proc.stdout.splitlines():
        if line.endswith(" valid"):
            verdicts.setdefault(line[:-len(" valid")], []).append("valid")
    lines = proc.stderr.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(" invalid"):
            name = line[:-len(" invalid")]
            verdicts.setdefault(name, []).append("invalid")
            errors[name] = lines[i + 1] if i + 1 < len(lines) else ""
    any_invalid = any("invalid" in v for v in verdicts.values())
    exit_ok = proc.returncode == (1 if any_invalid else 0)
    report(exit_ok, f"ajv validate {event}: exit {proc.returncode}",
           f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    for path, expected in docs:
        got = verdicts.get(path, [])
        ok = got == [expected]
        shown = got[0] if len(got) == 1 else f"{len(got)} verdicts {got}"
        report(ok, f"ajv {doc_label(path)}: {shown}",
               f"expected {expected}; {errors.get(path, 'no errors')}")
    unknown = sorted(set(verdicts) - {p for p, _ in docs})
    if unknown:
        report(False, f"ajv validate {event}: verdicts only for known documents",
               "\n".join(unknown))


def check_cpp_verdicts(binary, event, docs):
    for path, expected in docs:
        try:
            proc = run([binary, event, path], timeout=60)
        except (OSError, subprocess.TimeoutExpired) as e:
            report(False, f"cpp {doc_label(path)}", str(e))
            continue
        got = {0: "valid", 1: "invalid"}.get(proc.returncode)
        out = (proc.stdout + proc.stderr).strip() or "no output"
        if got is None:
            report(False, f"cpp {doc_label(path)}: exit {proc.returncode}",
                   f"expected exit 0 or 1; {out}")
        else:
            report(got == expected, f"cpp {doc_label(path)}: {got}",
                   f"expected {expected}; {out}")


def main():
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    schema_events = {e for e in os.listdir(SCHEMA_DIR)
                     if os.path.isdir(os.path.join(SCHEMA_DIR, e))}
    corpus_events = {e for e in os.listdir(CORPUS_DIR)
                     if os.path.isdir(os.path.join(CORPUS_DIR, e)) and not e.startswith("_")}
    check_event_sets(schema_events, corpus_events)

    latest, all_files = {}, []
    for event in sorted(schema_events):
        latest[event], files = check_schema_files(event)
        all_files += files

    if not os.access(AJV, os.X_OK):
        report(False, f"{AJV} exists", "run scripts/setup.sh (npm ci in tests/tools)")
        ajv = False
    else:
        ajv = True
        check_ajv_compile(all_files)

    binary = os.environ.get("NOVACAT_EVENT_VALIDATOR")
    if binary and not os.access(binary, os.X_OK):
        report(False, f"NOVACAT_EVENT_VALIDATOR={binary} is executable")
        binary = None
    for event in sorted(schema_events & corpus_events):
        if not latest[event]:
            continue
        docs = corpus_documents(event)
        check_python_verdicts(event, latest[event], docs)
        if ajv:
            check_ajv_verdicts(event, latest[event], docs)
        if binary:
            check_cpp_verdicts(binary, event, docs)
    if "NOVACAT_EVENT_VALIDATOR" not in os.environ:
        print("skip cpp verdicts (NOVACAT_EVENT_VALIDATOR not set)")
    for extra in sorted(e for e in os.listdir(CORPUS_DIR) if e.startswith("_")):
        print(f"skip {os.path.join(CORPUS_DIR, extra)} (not a verdict test; see its README)")

    print(f"{checks - failures}/{checks} checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
