// Preloaded into a gateway process (`NODE_OPTIONS=--require <this file>`, with
// BENCH_STATEMENT_COUNT_FILE set): counts the statements its pg clients send to Postgres
// (transaction control included: each is a round trip), and on SIGUSR2 writes `<n> <count>` to
// that file (n counts the writes), so the bench reads Postgres statements per request without
// pg_stat_statements and without costing the process anything between two readings.
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
    let written = 0;
    // the file exists once the handler does: the bench signals only a process that has one
    writeFileSync(file, '0 0');
    process.on('SIGUSR2', () => {
      written += 1;
      writeFileSync(file, `${written} ${count}`);
    });
  } catch {
    // no pg in this process: nothing to count
  }
}

/** Asks the process `pid` for its count and reads it from `file` (0 when it does not answer). */
export async function readStatementCount(pid: number, file: string): Promise<number> {
  const { existsSync, readFileSync } = await import('node:fs');
  if (!existsSync(file)) return 0;
  const read = () => {
    try {
      const [n, count] = readFileSync(file, 'utf8').split(' ').map(Number);
      return { n: n ?? 0, count: count ?? 0 };
    } catch {
      return { n: 0, count: 0 };
    }
  };
  const before = read().n;
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return 0;
  }
  for (let i = 0; i < 200; i++) {
    const now = read();
    if (now.n > before) return now.count;
    await new Promise((r) => setTimeout(r, 5));
  }
  return 0;
}
