// Preloaded into a gateway process (`NODE_OPTIONS=--require <this file>`, with
// BENCH_STATEMENT_COUNT_FILE set): counts the statements its pg clients send to Postgres
// (transaction control included: each is a round trip) and writes the count to that file every
// 100 ms, so the bench reads Postgres statements per request without pg_stat_statements.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = process.env.BENCH_STATEMENT_COUNT_FILE;
if (file) {
  // the pg module the process itself loads: resolved from its entry script
  const entry = process.argv[1];
  const requireFromEntry = createRequire(entry ?? __filename);
  try {
    // pg as the shared package (which opens every pool) resolves it
    const shared = requireFromEntry.resolve('@mediagate/shared/db');
    const pg = createRequire(shared)('pg') as {
      Client: { prototype: { query: (...a: unknown[]) => unknown } };
    };
    const original = pg.Client.prototype.query;
    let count = 0;
    pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
      count += 1;
      return original.apply(this, args);
    };
    let written = -1;
    setInterval(() => {
      if (count === written) return;
      written = count;
      writeFileSync(file, String(count));
    }, 100).unref();
  } catch {
    // no pg in this process: nothing to count
  }
}
