// Executions per second of a definition on aws-local-stepfunctions with
// no-op handlers that return a fixed document (the baseline scripts/bench.sh
// compares novacat's executor with), and the process's peak RSS.
// Usage: node bench_local_sfn.mjs DEFINITION.json DOCUMENT.json SECONDS
import { readFileSync } from "node:fs";
import { StateMachine } from "aws-local-stepfunctions";

const [definitionPath, documentPath, seconds] = process.argv.slice(2);
const definition = JSON.parse(readFileSync(definitionPath, "utf8"));
const document = JSON.parse(readFileSync(documentPath, "utf8"));
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
const input = { candidate_name: "V1500 Cyg", correlation_id: "3f1c2a9e-8b7d-4c6e-9a5b-1d2e3f4a5b6c" };
const deadline = performance.now() + Number(seconds) * 1000;
let runs = 0;
const start = performance.now();
while (performance.now() < deadline) {
  const execution = machine.run(input, { context, overrides: { taskResourceLocalHandlers: handlers } });
  await execution.result;
  runs++;
}
const elapsed = (performance.now() - start) / 1000;
console.log(JSON.stringify({ runs, seconds: elapsed, per_second: runs / elapsed,
                             peak_rss_kib: process.resourceUsage().maxRSS }));
