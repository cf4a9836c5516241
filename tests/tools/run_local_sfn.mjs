#!/usr/bin/env node
// Runs an ASL test case through aws-local-stepfunctions (the reference
// implementation for tests/differential_test.py) and prints what happened in
// the same JSON shape as `novacat simulate` (without "history").
//
//   node run_local_sfn.mjs CASE.json             one case, one JSON document
//   node run_local_sfn.mjs --batch CASE.json...  one JSON line per case:
//                                                {"case": PATH, "exit": N, "result": {...}}
//
// Run it with Node 22 (tests/tools/node_modules/.bin/node). CASE.json:
//   {"definition": {...ASL...}, "script": {"TaskName": [outcome, ...]},
//    "input": <JSON>, "context"?: {...}}
// or "definition_file": a path relative to the repository root instead of
// "definition" (used for generated/*/statemachine.asl.json). "context" is
// merged into the default context object (Execution/StateMachine fields
// shared with novacat simulate); the library does not compute $$.State, so
// cases whose definitions read it supply it here (it must not decide the
// result).
// An outcome is {"return": <JSON>} or {"throw": "<error>", "cause": "<text>"};
// each invocation of the Task uses the next outcome, the last one repeats.
// For "arn:aws:states:::lambda:invoke" resources a return value is wrapped as
// {"Payload": value, "StatusCode": 200}. {"throw": "States.Timeout"} makes the
// library time the task out for real (its own States.Timeout error, which
// States.TaskFailed does not match), without waiting; so does an outcome
// with "seconds" greater than the state's TimeoutSeconds (otherwise
// "seconds", the invocation's duration for novacat's virtual clock, is
// ignored here).
//
// Output: {"status": "SUCCEEDED"|"FAILED", "output", "error", "cause",
//          "states", "waits", "retries"}; "retries" is reference-only.
// Exit: 0 the execution ran; 2 the case, definition or script is invalid;
//       3 the library crashed (an internal exception, not a States error).
//
// How it observes the library (nothing here changes what it computes):
// - states: StateMachine.prototype.execute is wrapped so every execution
//   (the root, each Parallel branch, each Map iteration) gets a node in a
//   tree, linked to the Map/Parallel state entry that started it through
//   AsyncLocalStorage; each execution's event logger's StateEntered dispatch
//   is recorded into its node. The library runs branches and iterations
//   concurrently, so the tree is flattened depth-first, branches in
//   definition order and iterations in index order (what a sequential
//   executor would record), each retry attempt's children kept together.
// - waits: the library's internal sleep() calls setTimeout; setTimeout is
//   wrapped to record the delay of every sleep() called from the retry path
//   (StateExecutor.execute) and to fire every sleep immediately.
//   The delay is the library's own computation (IntervalSeconds,
//   BackoffRate, MaxDelaySeconds), recorded in seconds.
// - $$.Execution.StartTime: the library overwrites it with the wall clock;
//   it is pinned to the context's value for every execution it starts.
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { StateMachine } from 'aws-local-stepfunctions';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAMBDA_INVOKE = 'arn:aws:states:::lambda:invoke';

export const DEFAULT_CONTEXT = {
  Execution: {
    Id: 'arn:aws:states:us-east-1:123456789012:execution:test:exec-1',
    Name: 'exec-1',
    StartTime: '2026-01-01T00:00:00.000Z',
  },
  StateMachine: {
    Id: 'arn:aws:states:us-east-1:123456789012:stateMachine:test',
    Name: 'test',
  },
};

class CaseError extends Error {} // invalid case/definition/script: exit 2

class ScriptedError extends Error {
  constructor(name, cause) {
    super(cause ?? '');
    this.name = name;
  }
}

const als = new AsyncLocalStorage();

// ---- setTimeout hook: record retry sleeps, make every sleep instant ----
const realSetTimeout = globalThis.setTimeout;
let forceTaskTimeout = 0; // number of pending scripted States.Timeout
globalThis.setTimeout = function patchedSetTimeout(fn, ms, ...args) {
  const node = als.getStore(); // the execution whose code set this timer
  if (node) {
    const stack = new Error().stack ?? '';
    const frames = stack.split('\n').map((l) => l.trim());
    const sleepAt = frames.findIndex((l) => l.startsWith('at sleep ('));
    if (sleepAt >= 0) {
      const caller = frames.slice(sleepAt + 1).find((l) => !l.startsWith('at new Promise'));
      if (caller && caller.startsWith('at StateExecutor.execute')) {
        recordWait(node, ms / 1000);
      }
      return realSetTimeout(fn, 0, ...args);
    }
    if (forceTaskTimeout > 0 && frames.some((l) => l.startsWith('at TaskStateAction.execute'))) {
      forceTaskTimeout--;
      return realSetTimeout(fn, 0, ...args);
    }
  }
  return realSetTimeout(fn, ms, ...args);
};

function recordWait(node, seconds) {
  const entry = node.entries[node.entries.length - 1];
  if (!entry) throw new Error('retry wait outside of any state');
  entry.items.push({ kind: 'wait', seconds });
  node.run.rawWaits.push(seconds);
}

// ---- execution tree through StateMachine.prototype.execute ----
const realExecute = StateMachine.prototype.execute;
if (typeof realExecute !== 'function') {
  throw new Error('aws-local-stepfunctions: StateMachine.prototype.execute not found (version changed?)');
}
StateMachine.prototype.execute = function wrappedExecute(input, options, cleanupFn) {
  const parent = als.getStore();
  if (!parent) return realExecute.call(this, input, options, cleanupFn);
  const run = parent.run;
  const node = { run, entries: [] };
  if (parent.pending) {
    // the root execution of a case
    parent.pending = false;
    run.root = node;
  } else {
    const entry = parent.entries[parent.entries.length - 1];
    if (!entry) throw new Error('nested execution outside of any state');
    let index;
    if (entry.type === 'Parallel') {
      index = entry.def.Branches.indexOf(this.definition);
    } else {
      // Map: iterations start in index order (p-limit is FIFO); count them
      // within the current attempt (a retry wait starts a new attempt).
      let n = 0;
      for (let i = entry.items.length - 1; i >= 0 && entry.items[i].kind === 'child'; i--) n++;
      index = n;
    }
    entry.items.push({ kind: 'child', index, node });
  }
  const logger = options.eventLogger;
  const enter = logger.dispatchStateEnteredEvent;
  logger.dispatchStateEnteredEvent = function (stateName, stateType, stateInput) {
    const def = node.def.States[stateName];
    node.entries.push({ name: stateName, type: stateType, def, items: [] });
    run.rawStates.push(stateName);
    return enter.call(this, stateName, stateType, stateInput);
  };
  const retried = logger.dispatchStateRetriedEvent;
  logger.dispatchStateRetriedEvent = function (stateName, stateType, stateInput, retrier, attempt) {
    const entry = node.entries[node.entries.length - 1];
    entry.items.push({ kind: 'retry', state: stateName, retrier: entry.def.Retry.indexOf(retrier), attempt });
    return retried.call(this, stateName, stateType, stateInput, retrier, attempt);
  };
  node.def = this.definition;
  // Pin $$.Execution.StartTime: execute() builds its context synchronously
  // with `new Date().toISOString()` before its first await.
  const startTime = run.startTime;
  const realToISO = Date.prototype.toISOString;
  let pinned = startTime === undefined;
  Date.prototype.toISOString = function () {
    if (!pinned) {
      pinned = true;
      return startTime;
    }
    return realToISO.call(this);
  };
  try {
    return als.run(node, () => realExecute.call(this, input, options, cleanupFn));
  } finally {
    Date.prototype.toISOString = realToISO;
  }
};

function flatten(node, out) {
  for (const entry of node.entries) {
    out.states.push(entry.name);
    let group = [];
    const flush = () => {
      group.sort((a, b) => a.index - b.index);
      for (const c of group) flatten(c.node, out);
      group = [];
    };
    for (const item of entry.items) {
      if (item.kind === 'child') {
        group.push(item);
        continue;
      }
      flush();
      if (item.kind === 'wait') out.waits.push(item.seconds);
      else out.retries.push({ state: item.state, retrier: item.retrier, attempt: item.attempt });
    }
    flush();
  }
  return out;
}

// ---- case loading and validation ----
function collectTasks(def, where, tasks) {
  if (!def || typeof def !== 'object' || typeof def.States !== 'object' || def.States === null) {
    throw new CaseError(`${where}: no States object`);
  }
  for (const [name, st] of Object.entries(def.States)) {
    if (!st || typeof st !== 'object') throw new CaseError(`${where}: state ${name} is not an object`);
    if (st.Type === 'Task') {
      if (tasks.has(name) && tasks.get(name).Resource !== st.Resource) {
        throw new CaseError(`Task state name ${name} is used twice with different resources`);
      }
      tasks.set(name, st);
    } else if (st.Type === 'Parallel') {
      (st.Branches ?? []).forEach((b, i) => collectTasks(b, `${name}.Branches[${i}]`, tasks));
    } else if (st.Type === 'Map') {
      collectTasks(st.ItemProcessor ?? st.Iterator, `${name}.ItemProcessor`, tasks);
    }
  }
  return tasks;
}

function deepMerge(a, b) {
  if (b === null || typeof b !== 'object' || Array.isArray(b)) return b;
  const out = { ...(a && typeof a === 'object' && !Array.isArray(a) ? a : {}) };
  for (const [k, v] of Object.entries(b)) out[k] = deepMerge(out[k], v);
  return out;
}

function checkScript(script, tasks) {
  if (script === null || typeof script !== 'object' || Array.isArray(script)) {
    throw new CaseError('script must be an object mapping Task state names to outcome lists');
  }
  for (const [name, outcomes] of Object.entries(script)) {
    if (!tasks.has(name)) throw new CaseError(`script names ${name}, which is not a Task state`);
    if (!Array.isArray(outcomes) || outcomes.length === 0) {
      throw new CaseError(`script for ${name} must be a non-empty list of outcomes`);
    }
    outcomes.forEach((o, i) => {
      const ok =
        o && typeof o === 'object' && !Array.isArray(o) &&
        (o.seconds === undefined || (typeof o.seconds === 'number' && o.seconds >= 0)) &&
        (('return' in o && Object.keys(o).every((k) => k === 'return' || k === 'seconds')) ||
          (typeof o.throw === 'string' && Object.keys(o).every((k) => k === 'throw' || k === 'cause' || k === 'seconds') &&
            (o.cause === undefined || typeof o.cause === 'string')));
      if (!ok) throw new CaseError(`script for ${name}[${i}]: expected {"return": v} or {"throw": name, "cause": text}, with an optional "seconds"`);
    });
  }
}

export async function runCase(kase) {
  if (kase === null || typeof kase !== 'object') throw new CaseError('case must be a JSON object');
  const { script = {}, input = {} } = kase;
  let definition = kase.definition;
  if (kase.definition_file !== undefined) {
    if (definition !== undefined) throw new CaseError('give either definition or definition_file');
    try {
      definition = JSON.parse(readFileSync(REPO_ROOT + kase.definition_file, 'utf8'));
    } catch (e) {
      throw new CaseError(`cannot read definition_file: ${e.message}`);
    }
  }
  const tasks = collectTasks(definition, 'definition', new Map());
  checkScript(script, tasks);
  const context = deepMerge(deepMerge(DEFAULT_CONTEXT, { Execution: { Input: input } }), kase.context ?? {});

  let sm;
  try {
    sm = new StateMachine(definition);
  } catch (e) {
    throw new CaseError(`definition rejected: ${e.message}`);
  }

  const run = { root: null, rawStates: [], rawWaits: [], startTime: context.Execution?.StartTime, invalid: null };
  const calls = new Map();
  const handlers = {};
  for (const [name, state] of tasks) {
    const resource = state.Resource;
    handlers[name] = () => {
      const outcomes = script[name];
      if (!outcomes) {
        // thrown into the library it would be a catchable task error; flag it
        run.invalid ??= `Task ${name} was invoked but the script has no outcomes for it`;
        throw new Error(run.invalid);
      }
      const n = calls.get(name) ?? 0;
      calls.set(name, n + 1);
      const o = outcomes[Math.min(n, outcomes.length - 1)];
      const timedOut = typeof state.TimeoutSeconds === 'number' && o.seconds > state.TimeoutSeconds;
      if (timedOut || o.throw === 'States.Timeout') {
        forceTaskTimeout++;
        return new Promise(() => {}); // the library's own timeout fires at once
      }
      if ('return' in o) {
        return resource === LAMBDA_INVOKE ? { Payload: o.return, StatusCode: 200 } : o.return;
      }
      throw new ScriptedError(o.throw, o.cause);
    };
  }

  const top = { run, pending: true, entries: [] };
  let status, output = null, error = null, cause = null;
  await als.run(top, async () => {
    const execution = sm.run(input, { context, overrides: { taskResourceLocalHandlers: handlers } });
    try {
      output = await execution.result;
      status = 'SUCCEEDED';
    } catch (e) {
      const inner = e?.cause;
      const isStatesError = inner instanceof ScriptedError || typeof inner?.isRetryable === 'boolean';
      if (e?.name !== 'ExecutionError' || !isStatesError) {
        const err = new Error(`${inner?.name ?? e?.name}: ${inner?.message ?? e?.message}`);
        err.crash = true;
        err.stackText = (inner ?? e)?.stack;
        throw err;
      }
      status = 'FAILED';
      error = inner.name;
      cause = inner.message;
    }
  });
  if (run.invalid) throw new CaseError(run.invalid);
  const flat = flatten(run.root, { states: [], waits: [], retries: [] });
  if (flat.retries.length !== flat.waits.length) {
    // a sleep(0) would not reach setTimeout; say so rather than guess
    flat.waits_incomplete = true;
  }
  return {
    status,
    output: status === 'SUCCEEDED' ? output : null,
    error,
    cause,
    states: flat.states,
    waits: flat.waits,
    retries: flat.retries,
    ...(flat.waits_incomplete ? { waits_incomplete: true } : {}),
  };
}

async function runFile(path) {
  let kase;
  try {
    kase = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    return { exit: 2, result: { invalid: `cannot read case: ${e.message}` } };
  }
  try {
    return { exit: 0, result: await runCase(kase) };
  } catch (e) {
    if (e instanceof CaseError) return { exit: 2, result: { invalid: e.message } };
    return { exit: 3, result: { status: 'CRASHED', error: e.message, stack: e.stackText ?? e.stack } };
  }
}

async function main(argv) {
  process.on('unhandledRejection', (e) => {
    process.stderr.write(`run_local_sfn: unhandled rejection (ignored): ${e?.stack ?? e}\n`);
  });
  if (argv[0] === '--batch') {
    let worst = 0;
    for (const path of argv.slice(1)) {
      const { exit, result } = await runFile(path);
      worst = Math.max(worst, exit);
      process.stdout.write(JSON.stringify({ case: path, exit, result }) + '\n');
    }
    return worst;
  }
  if (argv.length !== 1) {
    process.stderr.write('usage: run_local_sfn.mjs CASE.json | --batch CASE.json...\n');
    return 2;
  }
  const { exit, result } = await runFile(argv[0]);
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
  if (exit === 2) process.stderr.write(`run_local_sfn: ${result.invalid}\n`);
  return exit;
}

const code = await main(process.argv.slice(2));
// stray timers or aborted iterations must not keep the process alive
process.stdout.write('', () => process.exit(code));
