// `pnpm test` (through scripts/bootstrap.mjs): builds, runs every package's tests against real
// Postgres and Redis, and prints one summary line `N passed, N failed`. Services: see
// scripts/test-services.mjs (TEST_DATABASE_URL / TEST_REDIS_URL, else the servers `pnpm start` uses).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { withTestServices } from './test-services.mjs';

const root = path.resolve(import.meta.dirname, '..');
const say = (msg) => process.stderr.write(`[test] ${msg}\n`);
const env = await withTestServices(process.env, say).catch((err) => {
  say(err.message);
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(1);
});
process.stderr.write(
  `[test] Postgres: ${env.TEST_DATABASE_URL ?? '(testcontainers)'}; Redis: ${env.TEST_REDIS_URL ?? '(testcontainers)'}\n`,
);

rmSync(path.join(root, '.test-results'), { recursive: true, force: true });
const started = Date.now();
const filter = process.argv.slice(2);
const result = spawnSync(
  'pnpm',
  ['exec', 'turbo', 'run', 'test', '--concurrency=1', '--continue', ...filter.map((f) => `--filter=${f}`)],
  { cwd: root, env, stdio: 'inherit' },
);
process.stderr.write(`[test] finished in ${Math.round((Date.now() - started) / 1000)} s\n`);
const packages = filter.length
  ? []
  : ['shared', 'api', 'worker', 'upstream-sim', 'payment-sim', 'console', 'e2e', 'e2e-alone'];
const summary = spawnSync('node', [path.join(root, 'scripts/test-summary.mjs'), ...packages], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(result.status !== 0 ? result.status || 1 : (summary.status ?? 1));
