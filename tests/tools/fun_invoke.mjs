// Invokes a packaged Lambda (an unpacked zip) on @vercel/fun, a Lambda
// Runtime API emulator that runs the package's `bootstrap` as Lambda's
// provided runtime does. Reads one JSON document on stdin:
//   {"directory", "handler", "environment": {...}, "region",
//    "access_key_id", "secret_access_key", "payloads": [<event>...],
//    "output": <file>}
// and writes one JSON array to the output file (the function's own log
// lines share this process's stdout): per payload {"function_error", "payload"},
// the fields of Lambda's Invoke answer (the payload parsed as JSON). All
// payloads go to one function instance, in order, as warm invocations.
import { writeFileSync } from 'node:fs';

import { createFunction } from '@vercel/fun';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const request = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const fn = await createFunction({
  Code: { Directory: request.directory },
  Handler: request.handler,
  Runtime: 'provided',
  Environment: { Variables: request.environment },
  MemorySize: 512,
  Timeout: 30,
  Region: request.region,
  AccessKeyId: request.access_key_id,
  SecretAccessKey: request.secret_access_key,
});
const results = [];
try {
  for (const payload of request.payloads) {
    const answer = await fn.invoke({
      InvocationType: 'RequestResponse',
      Payload: JSON.stringify(payload),
    });
    results.push({
      function_error: answer.FunctionError ?? null,
      payload: JSON.parse(String(answer.Payload)),
    });
  }
} finally {
  await fn.destroy();
}
writeFileSync(request.output, JSON.stringify(results) + '\n');
