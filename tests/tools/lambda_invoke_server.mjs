// A Lambda Invoke endpoint on 127.0.0.1 over @vercel/fun: what Step
// Functions' lambda:invoke and `novacat run --function` talk to, serving
// packaged functions (unpacked zips) as Lambda's API does:
//
//   POST /2015-03-31/functions/{FunctionName}/invocations   body: the event
//   -> 200, the function's result; with X-Amz-Function-Error: Unhandled and
//      {"errorType", "errorMessage"} when it failed
//
//   node lambda_invoke_server.mjs CONFIG.json
//
// CONFIG: {"functions": {"<name>": "<unpacked zip folder>", ...},
//          "environment": {...}, "region", "access_key_id",
//          "secret_access_key", "ready_file": <path>,
//          "timeout_seconds": <the functions' timeout; 60 when absent>}
// Each function runs warm in its own fun instance. When listening, the
// server writes its port to ready_file; it stops on SIGTERM.
//
// As Lambda does, an invocation ends at the function's timeout (fun itself
// never ends one: an instance that stopped answering would hold its queue
// forever): the caller gets Lambda's Unhandled error, Sandbox.Timedout,
// which the ASL's retriers retry; the instance is replaced; and the log
// says which function and state it was.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { createFunction } from '@vercel/fun';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const TIMEOUT_S = config.timeout_seconds ?? 60;
const functions = new Map();

async function start(name) {
  functions.set(name, await createFunction({
    FunctionName: name,
    Code: { Directory: config.functions[name] },
    Handler: name,
    Runtime: 'provided',
    Environment: { Variables: config.environment },
    MemorySize: 512,
    Timeout: TIMEOUT_S,
    Region: config.region,
    AccessKeyId: config.access_key_id,
    SecretAccessKey: config.secret_access_key,
  }));
}
for (const name of Object.keys(config.functions)) await start(name);

// The function's answer, or Lambda's timeout error after TIMEOUT_S.
async function invokeWithin(name, payload) {
  const fn = functions.get(name);
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve(null), TIMEOUT_S * 1000);
  });
  const answer = await Promise.race([
    fn.invoke({ InvocationType: 'RequestResponse', Payload: payload }),
    timedOut]);
  clearTimeout(timer);
  if (answer) return answer;
  let state = '';
  try { state = JSON.parse(payload).state_name ?? ''; } catch { /* not JSON */ }
  process.stderr.write(`lambda_invoke_server: ${name} (${state || 'no state'}) ` +
    `did not answer in ${TIMEOUT_S} s: Sandbox.Timedout; instance replaced\n`);
  fn.destroy().catch(() => {});
  await start(name);
  return {
    FunctionError: 'Unhandled',
    Payload: JSON.stringify({ errorType: 'Sandbox.Timedout',
      errorMessage: `Task timed out after ${TIMEOUT_S}.00 seconds` }),
  };
}

const route = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;
// One invocation at a time per function, as one warm Lambda instance.
const queues = new Map();

const server = createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    const match = request.method === 'POST' && route.exec(request.url);
    const name = match && decodeURIComponent(match[1]).split(':').pop();
    const fn = name && functions.get(name);
    if (!fn) {
      response.writeHead(404, { 'Content-Type': 'application/json',
        'X-Amzn-ErrorType': 'ResourceNotFoundException' });
      response.end(JSON.stringify({ Type: 'User',
        message: `Function not found: ${match ? match[1] : request.url}` }));
      return;
    }
    const previous = queues.get(name) ?? Promise.resolve();
    const current = previous.then(() =>
      invokeWithin(name, Buffer.concat(chunks).toString('utf8')));
    queues.set(name, current.catch(() => {}));
    try {
      const answer = await current;
      const headers = { 'Content-Type': 'application/json' };
      if (answer.FunctionError) headers['X-Amz-Function-Error'] = 'Unhandled';
      response.writeHead(200, headers);
      response.end(String(answer.Payload));
    } catch (error) {
      response.writeHead(500, { 'Content-Type': 'application/json',
        'X-Amzn-ErrorType': 'ServiceException' });
      response.end(JSON.stringify({ Type: 'Service', message: String(error) }));
    }
  });
});

async function stop() {
  server.close();
  for (const fn of functions.values()) await fn.destroy();
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

server.listen(0, '127.0.0.1', () => {
  writeFileSync(config.ready_file, String(server.address().port) + '\n');
});
