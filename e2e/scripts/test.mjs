// The e2e package's test run: every file but two, two files at a time; then those two, one after
// the other, each with the machine to itself:
// - test/k8s-cluster.test.ts starts a pod per Deployment twice over (its rollout) with Postgres,
//   PgBouncer, Redis and Prometheus of its own, a cluster's worth of processes: next to another e2e
//   stack on two cores it measures the machine, not the manifests;
// - test/console.browser.test.ts holds the console to its budgets (a change on a page within a
//   second, pages interactive within 1.5 s), which another stack's load beside Chromium would break.
// Both runs always run; the exit code is non-zero when either failed. Arguments go to both runs
// (e.g. `pnpm test -- -t rollout`).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '..');
const ALONE = 'test/(k8s-cluster|console\\.browser)\\.test\\.ts';
const args = process.argv.slice(2);
const jest = (extra, env = {}) =>
  spawnSync(path.join(dir, 'node_modules', '.bin', 'jest'), [...extra, ...args], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  }).status ?? 1;

const rest = jest(['--testPathIgnorePatterns', '/node_modules/', ALONE]);
const alone = jest(['--runInBand', '--passWithNoTests', ALONE], { JEST_RESULTS_NAME: 'e2e-alone' });
process.exit(rest || alone);
