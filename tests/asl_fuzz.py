#!/usr/bin/env python3
"""Differential fuzzer of the ASL executor: random valid definitions on three engines.

Each seed makes one case (random.Random(seed) alone decides it): a random
valid ASL definition in the JSONPath query language (Pass, Task, Choice,
Wait, Succeed, Fail, Parallel, Map; InputPath, Parameters, ResultSelector,
ResultPath, OutputPath with `.$` paths, JSONPath queries and intrinsic
functions, a path that matches nothing in an intrinsic's arguments
(States.Runtime); Retry and Catch, HeartbeatSeconds; at most one loop,
bounded by a counter), a script of Task outcomes in
tests/asl_cases/'s format and a random input. Every case runs on

  novacat    `$NOVACAT simulate DEFINITION --script SCRIPT --input @INPUT`
  local-sfn  aws-local-stepfunctions (tests/tools/run_local_sfn.mjs --batch)
  moto       moto's Step Functions interpreter (moto/stepfunctions/parser, in
             this process; see MotoEngine for how its Tasks are scripted)

and the answers are compared: status, output (SUCCEEDED), error and cause
(FAILED) on all three; the states entered and the retry waits in order
between novacat and local-sfn, as a multiset with moto (which runs branches
and iterations on threads; its states come from its execution history); no
engine's states when a Parallel state failed (the other branches are stopped
wherever they are: timing). The cause of a `States.*` error is
implementation-defined text and is not compared.

The verdict: where all three agree, the case passes. Where one engine alone
answers otherwise, the other two are the majority. When that engine is
aws-local-stepfunctions or moto, novacat has the majority: the run prints a
NOTE and passes (unless --strict), since the test is of novacat; every such
finding is still settled against the ASL specification, and kept in
tests/asl_cases/ (with reference_disagrees when aws-local-stepfunctions is
the wrong one). When novacat is the odd one out, when all three differ, or
when novacat and local-sfn differ only in the order moto cannot see, the run
fails. A failure prints the seed, the odd one out, each engine's answer and
the command that reproduces it; `--minimize` shrinks the case (drops states,
fields, rules, branches, outcomes, input keys while the verdict stays the
same) and `--save DIR` writes it in tests/asl_cases/'s format.

    python3 tests/asl_fuzz.py --cases 200 --seed 1            # seeds 1..200
    python3 tests/asl_fuzz.py --seed 4711 --cases 1 --print   # one case's JSON
    python3 tests/asl_fuzz.py --seed 4711 --cases 1 --minimize --save DIR
    python3 tests/asl_fuzz.py --case CASE.json --minimize     # a case file

NOVACAT names the novacat binary (as for differential_test.py). Exit 0 when
no case failed, 1 when one did, 2 when an engine refused or crashed on a
case (a generator bug: cases are valid by construction). Standard library,
boto3 and moto only.

What the generator leaves out, and why:
- what aws-local-stepfunctions gets wrong where it is the only reference
  for the states entered: an intrinsic in a Fail state's ErrorPath or
  CausePath (it reads the call as a path: States.Runtime "Path expression
  'States.Format(...)' does not point to a value"), a Fail state without
  Error or Cause (it fills in "FailStateError" and "Execution failed
  because of a Fail state"; tests/asl_cases/fail_error_without_cause.json);
  novacat and moto agree on both, and tests/asl_cases/ keeps them;
- a path that matches nothing inside an intrinsic's arguments anywhere but
  in a Pass of the top machine: moto raises it from a Task's Parameters as
  a catchable "Exception" (Step Functions: States.Runtime, which no Catch
  takes), and in a Parallel branch or a Map iteration moto fails on it
  ("Custom Error Names MUST NOT begin with the prefix 'States.'");
- JSONPath queries that match nothing, index lists with an index out of
  range or negative, and queries on what is not an array: aws-local-
  stepfunctions fails an empty query ("does not point to a value") where
  Step Functions (Jayway's JsonPath) gives [], and the three engines part
  on the others (no majority); the queries drawn ([*], slices, [0,i],
  [*].id, ..id over the input's arrays) always match something. Queries
  only in payload templates and intrinsic arguments (InputPath and
  OutputPath change the document's schema);
- States.Base64Encode of non-ASCII text: aws-local-stepfunctions encodes
  Latin-1 code units (tests/asl_cases/intrinsic_base64_utf8.json) and moto
  fails with UnicodeEncodeError: no majority;
- Assign (workflow variables) and runs near the 25,000-event history
  quota: not drawn yet;
- what a third-party engine gets wrong where it would leave novacat
  unjudged (no majority): a field of an array element ($.objs[0].id; moto
  answers a one-element array); a failing Map iteration (aws-local-
  stepfunctions starts the next iterations after one failed, even at
  MaxConcurrency 1, so every Map iteration is "safe", see below); a Pass
  Result of null (aws-local-stepfunctions ignores a falsy Result, see
  tests/asl_cases/pass_result_falsy_values.json, and what Step Functions
  makes of `"Result": null` is not documented: no majority); null and ""
  inside a constant array (asl-validator refuses them in a payload
  template);
- TimeoutSeconds and timed-out invocations: moto's task timeout waits on
  the wall clock;
- $$.Execution.Id/Name/StartTime, $$.State.*, States.UUID,
  States.MathRandom, FULL jitter: not the same on every engine by design;
- Wait's Timestamp/SecondsPath/TimestampPath: only `Seconds` is fuzzed (no
  engine sleeps: run_local_sfn.mjs fires every sleep at once, moto's waits
  are patched out, novacat's clock is virtual).
"""

import argparse
import copy
import functools
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE = os.path.join(ROOT, "tests", "tools", "node_modules", ".bin", "node")
RUNNER = os.path.join(ROOT, "tests", "tools", "run_local_sfn.mjs")
LAMBDA_ARN = "arn:aws:lambda:us-east-1:123456789012:function:worker"
LAMBDA_INVOKE = "arn:aws:states:::lambda:invoke"
ENGINES = ("novacat", "local-sfn", "moto")

# ---------------------------------------------------------------------------
# The generator.
#
# Contract: every definition is valid ASL and terminates on every engine: it
# is acyclic but for at most one loop per machine whose back edge is a Choice
# on a counter the loop increments (at most 3 passes). Paths read only fields
# the document is known to hold: a machine's states keep the fields of its
# schema (the fields its input has, with their types) by writing results only
# to fresh fields ($.r<N>) or discarding them (ResultPath null); only a
# machine's last state may replace the document. A catcher without
# ResultPath (the error output replaces the document) goes to a state that
# reads nothing and ends.
#
# Concurrency: the Tasks of a Map iteration or of a Parallel branch other
# than the last may run concurrently (local-sfn, moto), so they are "safe":
# one outcome, a return, and nothing in them can fail; only a Parallel's last
# branch, and a Map's iterations when MaxConcurrency is 1, may fail or
# consume several outcomes of a Task.

TYPES_NUM = ("int", "float")
STRINGS = ("alpha", "beta", "Gamma", "", "a b", "x*y", "10", "z", "naïve", "alpha2")
TIMESTAMPS = ("2026-01-01T00:00:00Z", "2025-06-30T12:30:00Z", "2026-01-01T00:00:00.500Z",
              "2027-03-04T05:06:07+01:00")
ERRORS = ("ErrA", "ErrB", "ErrC")


class Gen:
    """One case's generator: everything it draws comes from random.Random(seed)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.n = 0
        self.script = {}
        self.input = None
        self.may_fail = False  # whether call() may fail the execution

    def name(self, kind):
        self.n += 1
        return f"{kind}{self.n}"

    def pick(self, seq):
        return self.rng.choice(list(seq))

    # -- values --
    def value_of(self, typ):
        r = self.rng
        if typ == "int":
            return r.randint(-5, 20)
        if typ == "float":
            return r.choice([0.5, 2.5, -1.25, 3.0, 1e3, 7.75])
        if typ == "str":
            return r.choice(STRINGS)
        if typ == "bool":
            return r.random() < 0.5
        if typ == "null":
            return None
        if typ == "ts":
            return r.choice(TIMESTAMPS)
        if typ == "arr_int":
            return [r.randint(0, 5) for _ in range(r.randint(1, 4))]
        if typ == "arr_obj":
            return [{"id": r.randint(0, 9), "tag": r.choice(STRINGS)} for _ in range(r.randint(1, 3))]
        if typ == "obj":
            return {"a": r.randint(0, 9), "b": r.choice(STRINGS)}
        if typ == "json_str":
            return json.dumps(self.value_of(r.choice(["obj", "arr_int", "int", "str"])))
        if typ == "csv":
            return ",".join(r.choice(["a", "b", "c", "dd"]) for _ in range(r.randint(1, 4)))
        raise AssertionError(typ)

    def random_json(self, depth=0):
        r = self.rng
        kinds = ["int", "float", "str", "bool", "null"] + (["list", "dict"] if depth < 2 else [])
        k = r.choice(kinds)
        if k == "list":
            # no null and no "" in an array: aws-local-stepfunctions' schema
            # (asl-validator) refuses them inside a payload template
            return [v for v in (self.random_json(depth + 1) for _ in range(r.randint(0, 3)))
                    if v is not None and v != ""]
        if k == "dict":
            return {r.choice(["k", "v", "w", "$x", "y.z"]) + str(i): self.random_json(depth + 1)
                    for i in range(r.randint(0, 3))}
        return self.value_of(k)

    def make_input(self):
        schema = {"n": "int", "m": "int", "f": "float", "s": "str", "t": "str", "b": "bool",
                  "z": "null", "ts": "ts", "arr": "arr_int", "objs": "arr_obj", "o": "obj",
                  "js": "json_str", "csv": "csv"}
        # The schema: each field's type, which every path and comparator the
        # generator writes is chosen by (ints stay small, so MathAdd stays
        # in range; js is always a JSON text, for StringToJson).
        doc = {k: self.value_of(t) for k, t in schema.items()}
        return doc, schema

    # -- paths and intrinsics --
    def fields(self, schema, types):
        return [k for k, t in schema.items() if t in types]

    def query(self, k, t):
        """A JSONPath query over the input's array `k` (of type `t`, arr_int
        or arr_obj) giving a non-empty array of the same type: aws-local-
        stepfunctions fails a query that matches nothing ("does not point
        to a value") where Step Functions (Jayway's JsonPath) gives []; see
        tests/asl_cases/jsonpath_*.json."""
        r = self.rng
        n = len(self.input[k])
        return r.choice([f"$.{k}[*]", f"$.{k}[0:{r.randint(1, n + 1)}]", f"$.{k}[:{r.randint(1, n)}]",
                         f"$.{k}[-{r.randint(1, n)}:]", f"$.{k}[{r.randint(0, n - 1)}:]",
                         f"$.{k}[0,{r.randint(0, n - 1)}]"])

    def path_to(self, schema, types):
        """A path to a known value of one of `types`, or None. An array of
        the input (the only arrays a schema holds: a Map's inner schema
        copies ints, strings and objects) may be reached by a query."""
        r = self.rng
        options = []
        for k, t in schema.items():
            if t in types and t in ("arr_int", "arr_obj") and k in self.input and r.random() < 0.3:
                options.append(self.query(k, t))
            elif t in types:
                options.append(f"$.{k}")
            if t == "arr_obj" and "arr_int" in types and k in self.input and r.random() < 0.3:
                options.append(r.choice([f"$.{k}[*].id", f"$.{k}..id"]))
            if t == "obj":
                if "int" in types:
                    options.append(f"$.{k}.a")
                if "str" in types:
                    options.append(f"$.{k}.b")
            if t == "arr_int" and "int" in types:
                options.append(f"$.{k}[0]")
            if t == "arr_obj":
                # No field of an array element ($.objs[0].id): moto answers
                # such a path with a one-element array (see the doc above).
                if "obj_item" in types:
                    options.append(f"$.{k}[0]")
        return self.pick(options) if options else None

    def str_literal(self):
        # No escapes (\' \{ \} \\): moto's parser refuses \' and
        # asl-validator refuses these literals in aws-local-stepfunctions;
        # tests/asl_cases/intrinsic_format_escapes.json covers them by hand.
        return "'" + self.pick(["x", "hello world", "a-b", "", "q", "10", "comma, too"]) + "'"

    def intrinsic(self, schema, want, depth=0):
        """An intrinsic expression (or argument) of type `want`: int, str, arr, any."""
        r = self.rng
        deep = depth < 2
        if want == "int":
            opts = ["lit", "path"]
            if deep:
                opts += ["add", "len"]
            k = r.choice(opts)
            if k == "path":
                p = self.path_to(schema, ("int",))
                if p:
                    return p
            if k == "add" and deep:
                return f"States.MathAdd({self.intrinsic(schema, 'int', depth + 1)}, {self.intrinsic(schema, 'int', depth + 1)})"
            if k == "len" and deep:
                return f"States.ArrayLength({self.intrinsic(schema, 'arr', depth + 1)})"
            return str(r.randint(-3, 12))
        if want == "str":
            opts = ["lit", "path"]
            if deep:
                opts += ["format", "tostring", "b64", "hash"]
            k = r.choice(opts)
            if k == "path":
                p = self.path_to(schema, ("str",))
                if p:
                    return p
            if k == "format":
                args = [self.intrinsic(schema, r.choice(["int", "str"]), depth + 1) for _ in range(r.randint(0, 3))]
                text = r.choice(["v=", "", "[", "a b "]) + "".join(
                    "{}" + r.choice(["", "-", " and "]) for _ in args)
                return "States.Format(" + ", ".join([f"'{text}'"] + args) + ")"
            if k == "tostring":
                p = self.path_to(schema, ("obj", "arr_int", "arr_obj", "int", "str", "bool"))
                if p:
                    return f"States.JsonToString({p})"
            if k == "b64":
                # ASCII text only: see the module's doc (Base64Encode)
                ascii_fields = [f"$.{f}" for f in self.fields(schema, ("str",))
                                if isinstance(self.input.get(f), str) and self.input[f].isascii()]
                arg = self.pick(ascii_fields) if ascii_fields and r.random() < 0.5 else self.str_literal()
                inner = f"States.Base64Encode({arg})"
                return f"States.Base64Decode({inner})" if r.random() < 0.3 else inner
            if k == "hash":
                algo = r.choice(["MD5", "SHA-1", "SHA-256"])
                return f"States.Hash({self.intrinsic(schema, 'str', depth + 1)}, '{algo}')"
            return self.str_literal()
        if want == "arr":
            opts = ["path", "array", "range"]
            if deep:
                opts += ["partition", "unique", "split"]
            k = r.choice(opts)
            if k == "path":
                p = self.path_to(schema, ("arr_int",))
                if p:
                    return p
            if k == "array":
                return "States.Array(" + ", ".join(
                    self.intrinsic(schema, r.choice(["int", "str"]), depth + 1)
                    for _ in range(r.randint(0, 3))) + ")"
            if k == "partition":
                p = self.path_to(schema, ("arr_int",))
                if p:
                    return f"States.ArrayPartition({p}, {r.randint(1, 3)})"
            if k == "unique":
                p = self.path_to(schema, ("arr_int",))
                if p:
                    return f"States.ArrayUnique({p})"
            if k == "split":
                p = self.path_to(schema, ("csv",))
                if p:
                    return f"States.StringSplit({p}, ',')"
            start = r.randint(-2, 5)
            return f"States.ArrayRange({start}, {start + r.randint(0, 6)}, {r.randint(1, 3)})"
        # any
        k = r.choice(["int", "str", "arr", "tojson", "getitem", "contains"])
        if k == "tojson":
            p = self.path_to(schema, ("json_str",))
            if p:
                return f"States.StringToJson({p})"
        if k == "getitem":
            # the only arrays of ints are the input's (a Map's inner schema
            # copies ints, strings and objects only): the index is in range
            for name, t in schema.items():
                if t == "arr_int":
                    last = len(self.input[name]) - 1
                    return f"States.ArrayGetItem($.{name}, {r.randint(0, last)})"
        if k == "contains":
            p = self.path_to(schema, ("arr_int",))
            if p:
                return f"States.ArrayContains({p}, {self.intrinsic(schema, 'int', depth + 1)})"
        return self.intrinsic(schema, k if k in ("int", "str", "arr") else "str", depth)

    def call(self, schema):
        """An intrinsic function call (a `.$` value: never a bare literal or path).
        Where a state may fail (self.may_fail), rarely one whose argument is
        a path that matches nothing: States.Runtime, which fails the
        execution whatever Retry and Catch say."""
        if self.may_fail and self.rng.random() < 0.15:
            missing = self.rng.choice(["$.nothing", "$.o.nothing", "$.n.x"])
            return self.rng.choice([f"States.Format('{{}}', {missing})", f"States.ArrayLength({missing})",
                                    f"States.JsonToString({missing})",
                                    f"States.MathAdd(States.ArrayLength(States.Array(1)), {missing})"])
        for _ in range(20):
            e = self.intrinsic(schema, self.rng.choice(["int", "str", "arr", "any"]))
            if e.startswith("States."):
                return e
        return f"States.Array({e})"

    def template(self, schema, depth=0):
        """A payload template: constants, `.$` paths and intrinsics."""
        r = self.rng
        out = {}
        for i in range(r.randint(1, 4)):
            key = r.choice(["a", "b", "c", "d", "val", "x"]) + str(i)
            k = r.choice(["const", "path", "path", "intrinsic", "intrinsic", "nested"])
            if k == "path":
                p = self.path_to(schema, ("int", "float", "str", "bool", "null", "ts", "arr_int",
                                          "arr_obj", "obj", "json_str", "csv", "obj_item"))
                if r.random() < 0.08:
                    p = "$"
                elif r.random() < 0.05 and "n" in (self.input or {}):
                    p = "$$.Execution.Input.n"
                if p:
                    out[key + ".$"] = p
                    continue
            if k == "intrinsic":
                out[key + ".$"] = self.call(schema)
                continue
            if k == "nested" and depth < 2:
                out[key] = self.template(schema, depth + 1)
                continue
            out[key] = r.choice([self.random_json(), "$.n", "States.Format('x')"])
        return out

    # -- Choice rules --
    def rule(self, schema, depth=0):
        r = self.rng
        if depth < 2 and r.random() < 0.25:
            k = r.choice(["And", "Or", "Not"])
            if k == "Not":
                return {"Not": self.rule(schema, depth + 1)}
            return {k: [self.rule(schema, depth + 1) for _ in range(r.randint(1, 3))]}
        field = r.choice(sorted(schema))
        typ = schema[field]
        var = f"$.{field}"
        if typ == "obj" and r.random() < 0.5:
            var, typ = f"$.{field}.a", "int"
        if typ == "arr_int" and r.random() < 0.5:
            var, typ = f"$.{field}[0]", "int"
        kinds = ["type"]
        mismatch = r.random() < 0.15
        if typ in TYPES_NUM or mismatch:
            kinds += ["num"] * 3
        if typ == "str" or mismatch:
            kinds += ["str"] * 3
        if typ == "bool" or mismatch:
            kinds += ["bool"] * 2
        if typ == "ts" or mismatch:
            kinds += ["ts"] * 3
        k = r.choice(kinds)
        if k == "type":
            if r.random() < 0.2:
                var = r.choice(["$.nope", "$.o.nope", var])
                return {"Variable": var, "IsPresent": r.random() < 0.5}
            op = r.choice(["IsNull", "IsNumeric", "IsString", "IsBoolean", "IsTimestamp", "IsPresent"])
            return {"Variable": var, op: r.random() < 0.7}
        if k == "num":
            op = "Numeric" + r.choice(["Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"])
            other = self.path_to(schema, ("int", "float"))
            if other and r.random() < 0.3:
                return {"Variable": var, op + "Path": other}
            return {"Variable": var, op: r.choice([r.randint(-5, 20), 2.5, 0, 10.0])}
        if k == "str":
            op = "String" + r.choice(["Equals", "LessThan", "GreaterThan", "LessThanEquals",
                                      "GreaterThanEquals", "Matches", "Matches"])
            if op == "StringMatches":
                pat = r.choice(["*", "a*", "*a", "al*a", "x\\*y", "*e*", "", "a b", "1*"])
                return {"Variable": var, op: pat}
            other = self.path_to(schema, ("str",))
            if other and r.random() < 0.3:
                return {"Variable": var, op + "Path": other}
            return {"Variable": var, op: r.choice(STRINGS)}
        if k == "bool":
            other = self.path_to(schema, ("bool",))
            if other and r.random() < 0.3:
                return {"Variable": var, "BooleanEqualsPath": other}
            return {"Variable": var, "BooleanEquals": r.random() < 0.5}
        op = "Timestamp" + r.choice(["Equals", "LessThan", "GreaterThan", "LessThanEquals", "GreaterThanEquals"])
        other = self.path_to(schema, ("ts",))
        if other and r.random() < 0.3:
            return {"Variable": var, op + "Path": other}
        return {"Variable": var, op: r.choice(TIMESTAMPS)}

    # -- Retry / Catch --
    def retry(self):
        r = self.rng
        out = []
        names = list(ERRORS) + ["States.TaskFailed", "States.ALL"]
        for _ in range(r.randint(1, 2)):
            pool = [e for e in names if e != "States.ALL"]
            eq = r.sample(pool, r.randint(1, 2)) if r.random() < 0.8 else ["States.ALL"]
            rt = {"ErrorEquals": eq}
            if r.random() < 0.7:
                rt["IntervalSeconds"] = r.randint(1, 5)
            if r.random() < 0.6:
                rt["MaxAttempts"] = r.randint(0, 3)
            if r.random() < 0.5:
                rt["BackoffRate"] = r.choice([1, 1.5, 2, 2.5, 3])
            if r.random() < 0.3:
                rt["MaxDelaySeconds"] = r.randint(1, 8)
            out.append(rt)
            if eq == ["States.ALL"]:
                break
        return out

    def catchers(self, later, sink):
        """Catchers to states in `later`; a catcher without ResultPath goes to `sink()`."""
        r = self.rng
        out = []
        for _ in range(r.randint(1, 2)):
            eq = r.sample(list(ERRORS) + ["States.TaskFailed"], r.randint(1, 2)) if r.random() < 0.75 else ["States.ALL"]
            c = {"ErrorEquals": eq}
            k = r.random()
            if k < 0.6 and later:
                c["ResultPath"] = f"$.{self.name('err')}"
                c["Next"] = r.choice(later)
            elif k < 0.75 and later:
                c["ResultPath"] = None
                c["Next"] = r.choice(later)
            else:
                c["Next"] = sink(error_output=True)
            out.append(c)
            if eq == ["States.ALL"]:
                break
        return out

    def outcomes(self, safe, result):
        """A Task's scripted outcomes: one return when `safe`."""
        r = self.rng
        if safe:
            return [{"return": result()}]
        out = []
        for _ in range(r.randint(1, 4)):
            if r.random() < 0.45:
                out.append({"throw": r.choice(ERRORS), "cause": r.choice(["boom", "busy", "it's bad", "x"])})
            else:
                out.append({"return": result()})
        return out

    # -- states --
    def machine(self, schema, depth, safe, size):
        """A state machine over documents holding `schema`: {StartAt, States}."""
        r = self.rng
        states = {}
        order = []  # main sequence of names
        extra = {}  # sinks and other side states

        def sink(error_output=False):
            """A state that ends the machine; it reads $.Error and $.Cause
            only when it receives a catcher's error output."""
            name = self.name("Sink")
            options = [{"Type": "Pass", "End": True}, {"Type": "Succeed"}]
            if error_output:
                options.append({"Type": "Pass", "Parameters": {"caught.$": "$.Error", "why.$": "$.Cause"},
                                "End": True})
            extra[name] = r.choice(options)
            return name

        kinds = ["Pass", "Pass", "Task", "Task", "Task", "Choice", "Wait"]
        # Nesting multiplies the states run (a Map of 4 items in a loop of 3
        # in a Parallel...): Parallel and Map at the top, rarely one level in.
        if depth == 0 or (depth == 1 and r.random() < 0.3):
            kinds += ["Parallel", "Map"]
        specs = [r.choice(kinds) for _ in range(size)]
        names = [self.name(k) for k in specs]
        loop = None
        if not safe and depth == 0 and size >= 2 and r.random() < 0.3:
            a = r.randint(0, size - 2)
            b = r.randint(a, size - 2)
            loop = (a, b, f"ctr{self.n}")
        # A terminal Succeed or Fail may follow the sequence; otherwise its
        # last state ends the machine (and only it may replace the document).
        tail = None
        if r.random() < 0.35:
            tail = self.name("End")
            if safe or r.random() < 0.6:
                extra[tail] = {"Type": "Succeed"}
                if r.random() < 0.3:
                    extra[tail]["OutputPath"] = self.pick([f"$.{k}" for k in schema] + ["$"])
            else:
                fail = {"Type": "Fail"}
                k = r.random()
                if k < 0.5:
                    fail["Error"] = r.choice(ERRORS)
                    fail["Cause"] = r.choice(["failed here", "nope"])
                elif k < 0.75:
                    fail["ErrorPath"] = self.path_to(schema, ("str",)) or "$.s"
                    fail["Cause"] = "from path"
                else:
                    fail["Error"] = r.choice(ERRORS)
                    fail["CausePath"] = self.path_to(schema, ("str",)) or "$.s"
                extra[tail] = fail
        for i, (kind, name) in enumerate(zip(specs, names)):
            later = names[i + 1:] + ([tail] if tail else [])
            if loop and i < loop[0]:
                # Before the loop, nothing jumps into its body but at its
                # start (which Init takes over below): the counter is set.
                later = [n for n in later if n not in names[loop[0] + 1:loop[1] + 1]]
            nxt = names[i + 1] if i + 1 < size else tail
            states[name] = self.state(kind, name, schema, depth, safe, later, nxt, sink, nxt is None)
        if loop:
            a, b, ctr = loop
            init, inc, check = self.name("Init"), self.name("Inc"), self.name("Loop")
            body_start, body_end = names[a], names[b]
            after = names[b + 1]
            passes = r.randint(1, 3)
            # Everything that pointed at the body's start enters through Init.
            for st in list(states.values()) + list(extra.values()):
                retarget(st, body_start, init)
            # The body's last state continues to Inc instead of `after`.
            retarget(states[body_end], after, inc)
            states[init] = {"Type": "Pass", "Result": {"v": 0}, "ResultPath": f"$.{ctr}", "Next": body_start}
            states[inc] = {"Type": "Pass", "Parameters": {"v.$": f"States.MathAdd($.{ctr}.v, 1)"},
                           "ResultPath": f"$.{ctr}", "Next": check}
            states[check] = {"Type": "Choice", "Choices": [
                {"Variable": f"$.{ctr}.v", "NumericLessThan": passes, "Next": body_start}], "Default": after}
            start = init if a == 0 else names[0]
        else:
            start = names[0]
        states.update(extra)
        return {"StartAt": start, "States": states}

    def io_fields(self, st, schema, terminal):
        """InputPath/OutputPath/ResultPath on state `st` (ResultPath for result-producing states)."""
        r = self.rng
        if r.random() < 0.15:
            st["InputPath"] = "$"
        if st["Type"] in ("Pass", "Task", "Parallel", "Map"):
            k = r.random()
            if terminal and k < 0.25:
                pass  # the result replaces the document: only the last state
            elif k < 0.8:
                st["ResultPath"] = f"$.{self.name('r')}"
            elif k < 0.9 and self.fields(schema, ("obj",)):
                st["ResultPath"] = f"$.{self.pick(self.fields(schema, ('obj',)))}.{self.name('r')}"
            else:
                st["ResultPath"] = None
        replaced = st["Type"] in ("Pass", "Task", "Parallel", "Map") and "ResultPath" not in st
        if terminal and r.random() < 0.3 and not replaced:
            st["OutputPath"] = self.pick([f"$.{k}" for k in schema] + ["$"] +
                                         ([st["ResultPath"]] if st.get("ResultPath") else []))
        elif r.random() < 0.1:
            st["OutputPath"] = "$"

    def state(self, kind, name, schema, depth, safe, later, nxt, sink, terminal):
        r = self.rng
        st = {"Type": kind}
        # A path that matches nothing in an intrinsic's arguments only in a
        # Pass of the top machine: moto raises it from a Task's Parameters
        # as a catchable "Exception", and fails on it in a Parallel branch
        # ("Custom Error Names MUST NOT begin with the prefix 'States.'").
        self.may_fail = kind == "Pass" and depth == 0 and not safe
        if kind == "Pass":
            k = r.random()
            if k < 0.3:
                st["Result"] = self.random_json()
                if st["Result"] is None:  # see the module's doc: Result null
                    st["Result"] = {}
            elif k < 0.8:
                st["Parameters"] = self.template(schema)
            self.io_fields(st, schema, terminal)
        elif kind == "Wait":
            st["Seconds"] = r.randint(0, 10)
            if r.random() < 0.2:
                st["InputPath"] = "$"
        elif kind == "Task":
            invoke = r.random() < 0.35
            st["Resource"] = LAMBDA_INVOKE if invoke else LAMBDA_ARN
            shaped = r.random() < 0.7

            def result():
                if shaped:
                    return {"x": r.randint(0, 9), "y": r.choice(STRINGS), "z": [r.randint(0, 3) for _ in range(r.randint(1, 3))]}
                return self.random_json()

            if invoke:
                st["Parameters"] = {"FunctionName": LAMBDA_ARN}
                if r.random() < 0.5:
                    st["Parameters"]["Payload.$"] = "$"
                else:
                    st["Parameters"]["Payload"] = self.template(schema)
            elif r.random() < 0.5:
                st["Parameters"] = self.template(schema)
            # The lambda:invoke result's fields besides Payload are the
            # engines' own (ExecutedVersion, headers): read only Payload.
            if shaped:
                sel = {"x.$": "$.x", "first.$": "$.z[0]", "n.$": "States.ArrayLength($.z)",
                       "txt.$": "States.Format('{}:{}', $.x, $.y)", "c": 1}
                keys = r.sample(sorted(sel), r.randint(1, 3))
                sel = {k: sel[k] for k in keys}
                if invoke:
                    sel = {k: v.replace("$.", "$.Payload.") if k.endswith(".$") else v for k, v in sel.items()}
                if invoke or r.random() < 0.4:
                    st["ResultSelector"] = sel
            elif invoke:
                st["ResultSelector"] = {"p.$": "$.Payload"}
            self.script[name] = self.outcomes(safe, result)
            if r.random() < 0.2:
                # recorded, never raised: no engine's invocations heartbeat
                st["HeartbeatSeconds"] = r.randint(1, 300)
            if r.random() < 0.5:
                st["Retry"] = self.retry()
            if r.random() < 0.4 and (later or True):
                st["Catch"] = self.catchers(later, sink)
            self.io_fields(st, schema, terminal)
        elif kind == "Choice":
            rules = []
            targets = later or []
            for _ in range(r.randint(1, 3)):
                rule = self.rule(schema)
                rule["Next"] = r.choice(targets) if targets else sink()
                rules.append(rule)
            st["Choices"] = rules
            if safe or r.random() < 0.8 or not nxt:
                st["Default"] = nxt or sink()
            if r.random() < 0.1:
                st["InputPath"] = "$"
            return st
        elif kind == "Parallel":
            n = r.randint(1, 3)
            st["Branches"] = [self.machine(schema, depth + 1, safe or i < n - 1, r.randint(1, 3))
                              for i in range(n)]
            if r.random() < 0.3:
                st["ResultSelector"] = {"first.$": "$[0]", "count.$": "States.ArrayLength($)"}
            if not safe and r.random() < 0.3:
                st["Retry"] = self.retry()
            if not safe and r.random() < 0.3:
                st["Catch"] = self.catchers(later, sink)
            self.io_fields(st, schema, terminal)
        elif kind == "Map":
            arrays = self.fields(schema, ("arr_int", "arr_obj"))
            if not arrays:
                st = {"Type": "Pass"}
                self.io_fields(st, schema, terminal)
                return self.link(st, nxt)
            arr = self.pick(arrays)
            st["ItemsPath"] = f"$.{arr}"
            conc = r.choice([0, 1, 1, 2, 3])
            if conc or r.random() < 0.5:
                st["MaxConcurrency"] = conc
            if schema[arr] == "arr_obj" and r.random() < 0.4:
                inner = {"id": "int", "tag": "str"}
            else:
                sel = {"v.$": "$$.Map.Item.Value", "i.$": "$$.Map.Item.Index"}
                inner = {"v": "int" if schema[arr] == "arr_int" else "obj_item", "i": "int"}
                if schema[arr] == "arr_obj":
                    sel["vid.$"] = "$$.Map.Item.Value.id"
                    inner["vid"] = "int"
                for k, t in schema.items():
                    if t in ("int", "str", "obj") and r.random() < 0.4:
                        sel[k + ".$"] = f"$.{k}"
                        inner[k] = t
                st["ItemSelector"] = sel
            # Every iteration is safe: aws-local-stepfunctions starts the
            # next iterations after one failed, even at MaxConcurrency 1.
            st["ItemProcessor"] = self.machine(inner, depth + 1, True, r.randint(1, 3))
            if r.random() < 0.2:
                st["ResultSelector"] = {"all.$": "$", "n.$": "States.ArrayLength($)"}
            if not safe and r.random() < 0.3:
                st["Catch"] = self.catchers(later, sink)
            self.io_fields(st, schema, terminal)
        return self.link(st, nxt)

    @staticmethod
    def link(st, nxt):
        if nxt:
            st["Next"] = nxt
        else:
            st["End"] = True
        return st


def retarget(st, old, new, only_next=False):
    """Points `st`'s transitions at `old` to `new` (Next, Default, Choices, Catch)."""
    if st.get("Next") == old:
        st["Next"] = new
    if only_next:
        return
    if st.get("Default") == old:
        st["Default"] = new
    for c in st.get("Choices", []) + st.get("Catch", []):
        if c.get("Next") == old:
            c["Next"] = new


def generate(seed):
    g = Gen(seed)
    doc, schema = g.make_input()
    g.input = doc
    definition = g.machine(schema, 0, False, g.rng.randint(1, 6))
    # A Choice may skip a state of the sequence: definitions with unreachable
    # states are invalid, so they are dropped (with their Tasks' scripts).
    return tidy({"definition": definition, "script": g.script, "input": doc})


# ---------------------------------------------------------------------------
# Engines. Each answers {status, output, error, cause, states, waits} or
# {"invalid": text} (refused the case) or {"crashed": text}.

def run_local_sfn(cases, tmp):
    paths = []
    for i, case in enumerate(cases):
        p = os.path.join(tmp, f"ref-{i}.json")
        with open(p, "w") as f:
            json.dump(case, f)
        paths.append(p)
    proc = subprocess.run([NODE, RUNNER, "--batch", *paths], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    got = {}
    for line in proc.stdout.splitlines():
        if line.strip():
            rec = json.loads(line)
            got[rec["case"]] = rec
    out = []
    for p in paths:
        rec = got.get(p)
        if rec is None:
            out.append({"crashed": f"no answer (exit {proc.returncode}): {proc.stderr[-500:]}"})
        elif rec["exit"] == 2:
            out.append({"invalid": rec["result"].get("invalid")})
        elif rec["exit"] != 0:
            out.append({"crashed": rec["result"].get("error")})
        else:
            res = rec["result"]
            res.pop("retries", None)
            out.append(res)
    return out


def run_novacat(novacat, case, tmp):
    d = os.path.join(tmp, "definition.asl.json")
    s = os.path.join(tmp, "script.json")
    i = os.path.join(tmp, "input.json")
    for path, value in ((d, case["definition"]), (s, case["script"]), (i, case["input"])):
        with open(path, "w") as f:
            json.dump(value, f)
    proc = subprocess.run([*novacat, "simulate", d, "--script", s, "--input", "@" + i, "--history"],
                          capture_output=True, text=True, timeout=120)
    if proc.returncode == 2:
        return {"invalid": proc.stderr.strip()[:500]}
    if proc.returncode != 0:
        return {"crashed": f"exit {proc.returncode}: {proc.stderr.strip()[:500]}"}
    out = json.loads(proc.stdout)
    # When a Parallel state fails (caught, retried or not), Step Functions
    # stops its other branches wherever they are: which of their states were
    # entered is timing (aws-local-stepfunctions and moto run branches
    # concurrently, novacat one after the other). The history says whether
    # one failed: a Parallel state's event other than entering and exiting,
    # or an entry without an exit.
    parallels = set()
    for m in machines(case["definition"]):
        parallels |= {n for n, st in m["States"].items() if st.get("Type") == "Parallel"}
    balance = {}
    for e in out.pop("history", []):
        name = e.get("state")
        if name not in parallels:
            continue
        if e["type"] == "StateEntered":
            balance[name] = balance.get(name, 0) + 1
        elif e["type"] == "StateExited":
            balance[name] = balance.get(name, 0) - 1
        else:
            out["parallel_failed"] = True
    if any(balance.values()):
        out["parallel_failed"] = True
    return out


class MotoEngine:
    """moto's Step Functions interpreter (LocalStack's, in moto/stepfunctions/parser).

    Executions go through boto3 against mock_aws with
    config {"stepfunctions": {"execute_state_machine": True}}, which makes
    moto run them. Its Tasks would call moto's Lambda (which needs Docker),
    so they are scripted through the interpreter's own mocked-response hook
    (Environment.is_mocked_mode / get_current_mocked_response, the path of
    Step Functions Local's mock configurations): a Task whose state the
    script names takes the next outcome of that state's list, the last one
    repeating, counted per state across the execution as novacat and
    run_local_sfn.mjs count (moto's own hook counts per retry of one state
    entry). A return is the Lambda response {"Payload": value} (plain
    function ARN) or {"Payload": value, "StatusCode": 200} (lambda:invoke);
    a throw is the task failure with that error and cause. Everything else,
    parameters, selectors, paths, Retry and Catch included, is moto's.
    Retry waits are recorded and not slept; Wait states do not sleep.
    """

    def __init__(self):
        import logging
        logging.getLogger("moto").setLevel(logging.CRITICAL)
        import boto3
        from moto import mock_aws
        from moto.stepfunctions.parser.asl.eval import environment
        from moto.stepfunctions.parser.asl.component.common.retry import retrier_decl
        from moto.stepfunctions.parser.asl.component.state.wait.wait_function import wait_function
        from moto.stepfunctions.parser.mocking.mock_config import (MockedResponseReturn,
                                                                    MockedResponseThrow)
        self.lock = threading.Lock()
        self.script, self.counts, self.waits, self.resources = {}, {}, [], {}
        engine = self

        def is_mocked_mode(env):
            return env.next_state_name in engine.script

        def get_current_mocked_response(env):
            name = env.next_state_name
            with engine.lock:
                n = engine.counts.get(name, 0)
                engine.counts[name] = n + 1
            outcomes = engine.script[name]
            o = outcomes[min(n, len(outcomes) - 1)]
            if "return" in o:
                payload = {"Payload": copy.deepcopy(o["return"])}
                if engine.resources.get(name) == LAMBDA_INVOKE:
                    payload["StatusCode"] = 200
                return MockedResponseReturn(0, 0, payload)
            return MockedResponseThrow(0, 0, o["throw"], o.get("cause", ""))

        class NoSleep:
            @staticmethod
            def sleep(seconds):
                with engine.lock:
                    engine.waits.append(seconds)

            def __getattr__(self, name):
                return getattr(time, name)

        # jsonpath_ng builds a PLY parser (its tables included) on every
        # parse() call, which was most of moto's time; a path's parse is a
        # pure function of its text, so it is cached.
        from moto.stepfunctions.parser.asl.utils import json_path
        from moto.stepfunctions.parser.asl.component.common.path import result_path
        json_path.parse = functools.lru_cache(maxsize=4096)(json_path.parse)
        result_path.parse = functools.lru_cache(maxsize=4096)(result_path.parse)
        # An execution runs on the calling thread (as moto's own
        # SyncExecutionWorker does for StartSyncExecution) rather than on a
        # thread of its own polled through DescribeExecution, which cost more
        # than the execution; the interpreter is the same.
        from moto.stepfunctions.parser.backend import execution_worker
        execution_worker.ExecutionWorker.start = lambda worker: worker._execution_logic()
        # A Parallel branch or Map iteration still running when its execution
        # failed stops with this error on its thread: not an answer, not noise.
        default_hook = threading.excepthook

        def excepthook(args):
            if "Could not set NextState value when in state" not in str(args.exc_value):
                default_hook(args)
        threading.excepthook = excepthook
        environment.Environment.is_mocked_mode = is_mocked_mode
        environment.Environment.get_current_mocked_response = get_current_mocked_response
        retrier_decl.time = NoSleep()
        wait_function.WaitFunction._wait_interval = lambda self, env, wait_seconds: None
        self.mock = mock_aws(config={"stepfunctions": {"execute_state_machine": True}})
        self.mock.start()
        self.client = boto3.client("stepfunctions", region_name="us-east-1",
                                   aws_access_key_id="testing", aws_secret_access_key="testing")
        self.n = 0

    def run(self, case):
        self.n += 1
        self.script = case["script"]
        self.counts, self.waits = {}, []
        self.resources = {}
        collect_tasks(case["definition"], self.resources)
        try:
            arn = self.client.create_state_machine(
                name=f"fuzz{self.n}", definition=json.dumps(case["definition"]),
                roleArn="arn:aws:iam::123456789012:role/fuzz")["stateMachineArn"]
        except Exception as e:  # noqa: BLE001 - any refusal is reported as such
            return {"invalid": str(e)[:500]}
        ex = self.client.start_execution(stateMachineArn=arn, name=f"exec{self.n}",
                                         input=json.dumps(case["input"]))["executionArn"]
        d = self.client.describe_execution(executionArn=ex)
        if d["status"] == "RUNNING":
            return {"crashed": "moto: still RUNNING after its execution returned"}
        # The states entered, from the history: moto runs branches and
        # iterations on threads, so they are compared as a multiset.
        states = []
        pages = self.client.get_paginator("get_execution_history").paginate(executionArn=ex)
        for page in pages:
            for event in page["events"]:
                if event["type"].endswith("StateEntered"):
                    states.append(event["stateEnteredEventDetails"]["name"])
        self.client.delete_state_machine(stateMachineArn=arn)
        out = {"status": d["status"], "output": None, "error": d.get("error"), "cause": d.get("cause"),
               "waits": sorted(self.waits), "states": sorted(states)}
        # moto fails a Choice that matches no rule and has no Default with
        # States.Runtime and this cause, where the ASL specification (and
        # Step Functions) names the error States.NoChoiceMatched: read as that.
        if out["error"] == "States.Runtime" and "No branching option reached" in (out["cause"] or ""):
            out["error"] = "States.NoChoiceMatched"
        if d["status"] == "SUCCEEDED":
            try:
                out["output"] = json.loads(d["output"]) if "output" in d else None
            except ValueError:
                # moto's DescribeExecution gives a string output unquoted
                # (an API serialization slip, not the interpreter's answer)
                out["output"] = d["output"]
        return out


def collect_tasks(definition, out):
    for name, st in definition.get("States", {}).items():
        if st.get("Type") == "Task":
            out[name] = st.get("Resource")
        for b in st.get("Branches", []):
            collect_tasks(b, out)
        if "ItemProcessor" in st:
            collect_tasks(st["ItemProcessor"], out)


# ---------------------------------------------------------------------------
# Comparison.

# JSON equality as the hand-written cases' comparison has it (booleans are
# not numbers, 1 equals 1.0, key order ignored).
from differential_test import json_equal  # noqa: E402


def differ(a, b, ordered, timing):
    """The fields on which answers `a` and `b` differ; `ordered`: states and
    waits in order; `timing`: the states entered depend on timing, not
    compared (a Parallel state failed: see run_novacat)."""
    diffs = []
    if a.get("status") != b.get("status"):
        return ["status"]
    if a["status"] == "SUCCEEDED" and not json_equal(a.get("output"), b.get("output")):
        diffs.append("output")
    if a["status"] == "FAILED":
        if a.get("error") != b.get("error"):
            diffs.append("error")
        elif not (a.get("error") or "").startswith("States.") and (a.get("cause") or "") != (b.get("cause") or ""):
            diffs.append("cause")
    wa = [float(w) for w in a.get("waits") or []]
    wb = [float(w) for w in b.get("waits") or []]
    sa, sb = a.get("states"), b.get("states")
    if not ordered:
        wa, wb = sorted(wa), sorted(wb)
        sa, sb = sorted(sa or []), sorted(sb or [])
    if not json_equal(wa, wb):
        diffs.append("waits")
    if not timing and sa != sb:
        diffs.append("states")
    return diffs


def verdict(answers):
    """(kind, detail): 'agree', or which engine is the odd one out and on which fields."""
    for e in ENGINES:
        if "invalid" in answers[e] or ("crashed" in answers[e] and e == "novacat"):
            return "broken", e
    # A third-party engine that crashes on a valid case answered otherwise
    # (aws-local-stepfunctions throws a TypeError for StringMatches on a
    # number, for one): its answer is the crash.
    answers = {e: {"status": "CRASHED", "cause": a["crashed"]} if "crashed" in a else a
               for e, a in answers.items()}
    timing = bool(answers["novacat"].get("parallel_failed"))
    nl = differ(answers["novacat"], answers["local-sfn"], True, timing)
    nm = differ(answers["novacat"], answers["moto"], False, timing)
    lm = differ(answers["local-sfn"], answers["moto"], False, timing)
    if not (nl or nm or lm):
        return "agree", None
    if not nm and lm:
        return "local-sfn", tuple(nl)
    if not lm and nm:
        return "novacat", tuple(nl)
    if not nl or set(nl) <= {"states", "waits"} and nm and lm:
        return "moto", tuple(nm) if not nl else tuple(sorted(set(nl) | set(nm)))
    if not nm and not lm:  # novacat and local-sfn differ only in order
        return "novacat|local-sfn", tuple(nl)
    return "all", tuple(nl)


# Where aws-local-stepfunctions or moto alone answers otherwise, novacat has
# the majority: the run says so (NOTE) and passes unless --strict. Such a
# case is still a finding: which of them is right is settled by the ASL
# specification, and each one settled is kept in tests/asl_cases/.
TOLERATED = ("local-sfn", "moto")


class Runner:
    def __init__(self, novacat, tmp):
        self.novacat = novacat
        self.tmp = tmp
        self.moto = MotoEngine()

    def run(self, cases):
        local = run_local_sfn(cases, self.tmp)
        out = []
        for case, ref in zip(cases, local):
            out.append({"novacat": run_novacat(self.novacat, case, self.tmp), "local-sfn": ref,
                        "moto": self.moto.run(case)})
        return out


# ---------------------------------------------------------------------------
# The shrinker: one-step simplifications of a case, tried in one batch; the
# first that keeps the verdict is taken, until none does.

def reachable(definition):
    states = definition["States"]
    seen, todo = set(), [definition["StartAt"]]
    while todo:
        n = todo.pop()
        if n in seen or n not in states:
            continue
        seen.add(n)
        st = states[n]
        for k in ("Next", "Default"):
            if k in st:
                todo.append(st[k])
        for c in st.get("Choices", []) + st.get("Catch", []):
            if "Next" in c:
                todo.append(c["Next"])
    return seen


def tidy(case):
    """Drops unreachable states and script entries of absent Tasks."""
    def walk(d):
        keep = reachable(d)
        d["States"] = {k: v for k, v in d["States"].items() if k in keep}
        for st in d["States"].values():
            for b in st.get("Branches", []):
                walk(b)
            if "ItemProcessor" in st:
                walk(st["ItemProcessor"])
    walk(case["definition"])
    tasks = {}
    collect_tasks(case["definition"], tasks)
    case["script"] = {k: v for k, v in case["script"].items() if k in tasks}
    return case


def machines(d):
    yield d
    for st in d["States"].values():
        for b in st.get("Branches", []):
            yield from machines(b)
        if "ItemProcessor" in st:
            yield from machines(st["ItemProcessor"])


def candidates(case):
    """Every one-step simplification of `case` (copies)."""
    out = []

    def variant(edit):
        c = copy.deepcopy(case)
        try:
            if edit(c) is False:
                return
        except (KeyError, IndexError, StopIteration):
            return
        out.append(tidy(c))

    ms = list(machines(case["definition"]))
    for mi, m in enumerate(ms):
        for name, st in m["States"].items():
            def nth(c, mi=mi):
                return list(machines(c["definition"]))[mi]

            # remove a state with one successor: its predecessors skip it
            if "Next" in st and "Choices" not in st:
                def skip(c, name=name, nth=nth):
                    mm = nth(c)
                    nxt = mm["States"][name]["Next"]
                    for other in mm["States"].values():
                        retarget(other, name, nxt)
                    if mm["StartAt"] == name:
                        mm["StartAt"] = nxt
                    del mm["States"][name]
                variant(skip)
            # a state ends where it was
            if "Next" in st and "Choices" not in st:
                def end(c, name=name, nth=nth):
                    s = nth(c)["States"][name]
                    del s["Next"]
                    s["End"] = True
                variant(end)
            for key in ("InputPath", "OutputPath", "ResultPath", "Parameters", "ResultSelector", "Retry",
                        "Catch", "Result", "ItemSelector", "MaxConcurrency", "Default"):
                if key in st:
                    def drop(c, name=name, key=key, nth=nth):
                        del nth(c)["States"][name][key]
                    variant(drop)
            for key in ("Parameters", "ResultSelector", "ItemSelector"):
                if isinstance(st.get(key), dict):
                    for k in st[key]:
                        if k in ("FunctionName",):
                            continue
                        def dropk(c, name=name, key=key, k=k, nth=nth):
                            del nth(c)["States"][name][key][k]
                        variant(dropk)
            for key in ("Retry", "Catch", "Choices", "Branches"):
                if len(st.get(key, [])) > 1:
                    for i in range(len(st[key])):
                        def dropi(c, name=name, key=key, i=i, nth=nth):
                            del nth(c)["States"][name][key][i]
                        variant(dropi)
            for i, rule in enumerate(st.get("Choices", [])):
                for op in ("And", "Or"):
                    for sub in rule.get(op, []):
                        def flat(c, name=name, i=i, op=op, sub=sub, nth=nth):
                            r = nth(c)["States"][name]["Choices"][i]
                            nxt = r["Next"]
                            r.clear()
                            r.update(copy.deepcopy(sub))
                            r["Next"] = nxt
                        variant(flat)
    for m_i, m in enumerate(ms):
        start = m["States"].get(m["StartAt"], {})
        for t in sorted({c["Next"] for c in start.get("Choices", [])} | ({start["Default"]} if "Default" in start else set())):
            def restart(c, m_i=m_i, t=t):
                list(machines(c["definition"]))[m_i]["StartAt"] = t
            variant(restart)
    for name, outs in case["script"].items():
        if len(outs) > 1:
            for i in range(len(outs)):
                def dropo(c, name=name, i=i):
                    del c["script"][name][i]
                variant(dropo)
    if isinstance(case["input"], dict):
        for k in case["input"]:
            def dropin(c, k=k):
                del c["input"][k]
            variant(dropin)
    return out


def size(case):
    return len(json.dumps(case))


def minimize(runner, case, target, log):
    """The smallest case reachable by one-step simplifications with verdict `target`.

    Candidates are tried smallest first; aws-local-stepfunctions answers a
    chunk of them in one Node process, then novacat and moto answer them one
    by one until one keeps the verdict (most rounds stop at the first)."""
    rounds = 0
    while True:
        rounds += 1
        cands = sorted(candidates(case), key=size)
        found = None
        for start in range(0, len(cands), 25):
            chunk = cands[start:start + 25]
            for cand, ref in zip(chunk, run_local_sfn(chunk, runner.tmp)):
                answers = {"local-sfn": ref, "novacat": run_novacat(runner.novacat, cand, runner.tmp),
                           "moto": runner.moto.run(cand)}
                if verdict(answers) == target:
                    found = cand
                    break
            if found:
                break
        if not found:
            log(f"  minimized in {rounds} rounds to {size(case)} bytes")
            return case
        case = found


# ---------------------------------------------------------------------------

def describe(answers):
    lines = []
    for e in ENGINES:
        a = {k: v for k, v in answers[e].items() if k != "history"}
        lines.append(f"    {e:9} {json.dumps(a, sort_keys=True)[:1500]}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    parser.add_argument("--cases", type=int, default=100, help="how many seeds from --seed (default 100)")
    parser.add_argument("--batch", type=int, default=100, help="cases per aws-local-stepfunctions process")
    parser.add_argument("--print", action="store_true", help="print each case's JSON and stop")
    parser.add_argument("--case", metavar="FILE", help="run (and --minimize) this case instead of seeds")
    parser.add_argument("--minimize", action="store_true", help="shrink each disagreeing case")
    parser.add_argument("--save", metavar="DIR", help="write each (minimized) disagreeing case there")
    parser.add_argument("--strict", action="store_true",
                        help="fail on every disagreement, also where novacat sides with the other two")
    parser.add_argument("-v", dest="verbose", action="store_true", help="a line per case")
    args = parser.parse_args()

    seeds = range(args.seed, args.seed + (1 if args.case else args.cases))
    if args.print:
        for s in seeds:
            print(json.dumps(generate(s), indent=2))
        return 0
    novacat = shlex.split(os.environ.get("NOVACAT", ""))
    if not novacat:
        raise SystemExit("set NOVACAT to the novacat binary (e.g. build/debug/workflows/novacat)")

    t0 = time.monotonic()
    counts = {}
    bad = []
    with tempfile.TemporaryDirectory(prefix="novacat-fuzz-") as tmp:
        runner = Runner(novacat, tmp)
        seeds = list(seeds)
        for start in range(0, len(seeds), args.batch):
            chunk = seeds[start:start + args.batch]
            if args.case:
                with open(args.case) as f:
                    given = json.load(f)
                cases = [{k: given[k] for k in ("definition", "script", "input")}]
            else:
                cases = [generate(s) for s in chunk]
            for seed, case, answers in zip(chunk, cases, runner.run(cases)):
                seed = args.case or seed  # what the lines below name the case by
                kind, detail = verdict(answers)
                counts[kind] = counts.get(kind, 0) + 1
                status = answers["novacat"].get("status")
                if args.verbose:
                    print(f"seed {seed}: {kind} {detail or ''} ({status})")
                if kind == "agree":
                    continue
                if kind in TOLERATED and not args.strict:
                    print(f"NOTE     seed {seed}: {kind} alone answers otherwise ({detail}); "
                          "novacat sides with the other two")
                    if not (args.verbose or args.minimize or args.save):
                        continue
                else:
                    bad.append(seed)
                    print(f"DISAGREE seed {seed}: odd one out {kind}, fields {detail}")
                print(describe(answers))
                which = f"--case {args.case}" if args.case else f"--seed {seed} --cases 1"
                print(f"  reproduce: NOVACAT=... python3 tests/asl_fuzz.py {which} --minimize [--save DIR]")
                if args.minimize and kind != "broken":
                    case = minimize(runner, case, (kind, detail), print)
                    answers = runner.run([case])[0]
                    print("  minimized case:\n" + json.dumps(case, indent=1))
                    print(describe(answers))
                if args.save:
                    os.makedirs(args.save, exist_ok=True)
                    saved = dict(case)
                    saved["note"] = f"asl_fuzz.py {seed}: odd one out {kind} on {detail}; " + \
                        "; ".join(f"{e}: {json.dumps({k: answers[e].get(k) for k in ('status', 'output', 'error', 'cause')})}"
                                  for e in ENGINES)
                    base = os.path.basename(args.case)[:-5] if args.case else f"seed{seed}"
                    with open(os.path.join(args.save, f"fuzz_{base}.json"), "w") as f:
                        json.dump(saved, f, indent=2)
                        f.write("\n")
        runner.moto.mock.stop()
    took = time.monotonic() - t0
    n = len(seeds)
    print(f"{n} cases (seeds {args.seed}..{args.seed + n - 1}) in {took:.1f}s, {n / took:.1f} cases/s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if "broken" in counts:
        return 2
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
