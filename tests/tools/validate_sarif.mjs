// Validates SARIF logs against the official SARIF 2.1.0 JSON Schema, the copy
// Microsoft ships in @microsoft/jest-sarif (sarif-2.1.0-rtm.5.json, draft-04),
// with the ajv that package itself uses (ajv 6 speaks draft-04).
//
// usage: node validate_sarif.mjs LOG.sarif...
// Prints "<file>: valid" or every schema error, and exits 1 when any log is
// invalid, 2 when a file cannot be read or parsed.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';

const require = createRequire(import.meta.url);
const sarifPackage = require.resolve('@microsoft/jest-sarif/package.json');
const fromSarifPackage = createRequire(sarifPackage);
const Ajv = fromSarifPackage('ajv');
const schema = fromSarifPackage('./lib/schemas/sarif-2.1.0-rtm.5.json');

const ajv = new Ajv({ allErrors: true, schemaId: 'auto', logger: false });
ajv.addMetaSchema(fromSarifPackage('ajv/lib/refs/json-schema-draft-04.json'));
const validate = ajv.compile(schema);

let status = 0;
for (const file of process.argv.slice(2)) {
  let log;
  try {
    log = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    console.log(`${file}: ${e.message}`);
    status = 2;
    continue;
  }
  if (validate(log)) {
    console.log(`${file}: valid`);
  } else {
    for (const e of validate.errors) {
      console.log(`${file}: ${e.dataPath || '/'} ${e.message}`);
    }
    if (status === 0) status = 1;
  }
}
process.exit(status);
