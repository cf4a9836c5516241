// Executions per second of a scenario on aws-local-stepfunctions with no-op
// handlers that return a fixed document (the baseline scripts/bench.sh
// compares novacat's executor with), and the process's peak RSS.
// Usage: node bench_local_sfn.mjs SCENARIO.json SECONDS
// SCENARIO (bench/initialize_nova_happy_path.json, shared with
// bench/executor_bench.cc, or what `executor_bench --print-chain N` prints):
// "definition" (a path from the repository's root, or the definition),
// "input", "task_result" (what every Task returns) and "path" (the states
// the execution must enter). A first, untimed execution must SUCCEED through
// exactly that path, and every timed one must SUCCEED, or the script exits 1:
// it never measures a failing run.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { StateMachine } from "aws-local-stepfunctions";

const [scenarioPath, seconds] = process.argv.slice(2);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));
const definition = typeof scenario.definition === "string"
  ? JSON.parse(readFileSync(resolve(root, scenario.definition), "utf8"))
  : scenario.definition;
const { input, task_result: document, path } = scenario;
const handlers = {};
(function bind(states) {
  for (const [name, state] of Object.entries(states)) {
    if (state.Type === "Task") handlers[name] = async () => ({ Payload: document, StatusCode: 200 });
    if (state.ItemProcessor) bind(state.ItemProcessor.States);
    if (state.Iterator) bind(state.Iterator.States);
  }
})(definition.States);

const machine = new StateMachine(definition);
const context = {
  Execution: { Id: "arn:aws:states:us-east-1:123456789012:execution:test:exec-1", Name: "exec-1",
               StartTime: "2026-01-01T00:00:00.000Z" },
  StateMachine: { Id: "arn:aws:states:us-east-1:123456789012:stateMachine:test", Name: "test" },
  State: { RetryCount: 0 },
};
const options = { context, overrides: { taskResourceLocalHandlers: handlers } };

// The untimed check: the states entered, in order, and the execution's end.
{
  const execution = machine.run(input, options);
  const entered = [];
  let end = "no end event";
  for await (const event of execution.eventLogs) {
    if (event.type === "StateEntered") entered.push(event.state.name);
    if (event.type === "ExecutionSucceeded") end = "SUCCEEDED";
    if (event.type === "ExecutionFailed") end = `FAILED (${event.Error}: ${event.Cause})`;
  }
  await execution.result.catch(() => {});
  if (end !== "SUCCEEDED" || JSON.stringify(entered) !== JSON.stringify(path)) {
    console.error(`bench_local_sfn: not the scenario's path: ${end} through ${entered.join(" ")}; ` +
                  `expected SUCCEEDED through ${path.join(" ")}`);
    process.exit(1);
  }
}

const deadline = performance.now() + Number(seconds) * 1000;
let runs = 0;
const start = performance.now();
while (performance.now() < deadline) {
  const execution = machine.run(input, options);
  await execution.result;  // throws (and the script exits 1) if it failed
  runs++;
}
const elapsed = (performance.now() - start) / 1000;
console.log(JSON.stringify({ runs, seconds: elapsed, per_second: runs / elapsed,
                             peak_rss_kib: process.resourceUsage().maxRSS }));
