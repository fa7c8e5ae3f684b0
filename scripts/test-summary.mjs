// Prints one line, `N passed, N failed`, summed over every package's jest run.
// A suite that failed to run (syntax error, crash in beforeAll) counts as one failure. Only the
// .json files count (the browser tests keep their screenshots under .test-results/screenshots).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const dir = path.join(import.meta.dirname, '..', '.test-results');
let passed = 0;
let failed = 0;
const expected = process.argv.slice(2);
for (const name of expected) {
  if (!existsSync(path.join(dir, `${name}.json`))) {
    console.error(`no test results from ${name}`);
    failed += 1;
  }
}
for (const f of existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.json')) : []) {
  let r;
  try {
    r = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
  } catch (err) {
    console.error(`unreadable test results ${f}: ${err.message}`);
    failed += 1;
    continue;
  }
  passed += r.passed;
  failed += r.failed + (r.failed === 0 ? r.failedSuites : 0);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
