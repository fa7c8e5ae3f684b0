// The e2e package's test run: every file but the cluster run, two at a time; then the cluster run
// (test/k8s-cluster.test.ts) on its own. The cluster run starts a pod per Deployment twice over
// (its rollout) with Postgres, PgBouncer, Redis and Prometheus of its own, which is a cluster's
// worth of processes: next to another e2e stack on two cores it measures the machine, not the
// manifests. Both runs always run; the exit code is non-zero when either failed. Arguments go to
// both runs (e.g. `pnpm test -- -t rollout`).
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const dir = path.resolve(import.meta.dirname, '..');
const CLUSTER = 'test/k8s-cluster\\.test\\.ts';
const args = process.argv.slice(2);
const jest = (extra, env = {}) =>
  spawnSync(path.join(dir, 'node_modules', '.bin', 'jest'), [...extra, ...args], {
    cwd: dir,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  }).status ?? 1;

const rest = jest(['--testPathIgnorePatterns', '/node_modules/', CLUSTER]);
const cluster = jest(['--runInBand', '--passWithNoTests', CLUSTER], { JEST_RESULTS_NAME: 'e2e-cluster' });
process.exit(rest || cluster);
