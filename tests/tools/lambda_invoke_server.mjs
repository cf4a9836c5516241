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
//          "secret_access_key", "ready_file": <path>}
// Each function runs warm in its own fun instance. When listening, the
// server writes its port to ready_file; it stops on SIGTERM.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { createFunction } from '@vercel/fun';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const functions = new Map();
for (const [name, directory] of Object.entries(config.functions)) {
  functions.set(name, await createFunction({
    FunctionName: name,
    Code: { Directory: directory },
    Handler: name,
    Runtime: 'provided',
    Environment: { Variables: config.environment },
    MemorySize: 512,
    Timeout: 60,
    Region: config.region,
    AccessKeyId: config.access_key_id,
    SecretAccessKey: config.secret_access_key,
  }));
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
    const current = previous.then(() => fn.invoke({
      InvocationType: 'RequestResponse',
      Payload: Buffer.concat(chunks).toString('utf8'),
    }));
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
