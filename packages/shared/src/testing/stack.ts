import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { type RunningProcess, startProcess } from './processes';
import { freePort } from './wait';

const ROOT = path.join(__dirname, '..', '..', '..', '..');

/** Built entry points of every process, for tests and benchmarks that run the real thing. */
export const PROCESS_ENTRIES = {
  api: path.join(ROOT, 'apps/api/dist/server.js'),
  worker: path.join(ROOT, 'apps/worker/dist/main.js'),
  sim: path.join(ROOT, 'apps/upstream-sim/dist/main.js'),
  cli: path.join(ROOT, 'packages/shared/dist/cli/main.js'),
};

export interface ProcessGroup {
  procs: RunningProcess[];
  /** starts a gateway process (`api` or a worker role) with the group's env plus `extra`; waits for /readyz */
  start: (
    name: string,
    kind: 'api' | 'worker' | 'sim',
    extra?: Record<string, string>,
    args?: string[],
  ) => Promise<RunningProcess & { port: number }>;
  stopAll: (signal?: NodeJS.Signals) => Promise<void>;
  /** the upstream simulators' control token (SIM_CONTROL_TOKEN), for `Authorization: Bearer` */
  simControlToken: string;
}

/**
 * A set of real processes sharing one environment (database, Redis, queue prefix), each on a
 * free port and started only when its health endpoint answers.
 */
export function processGroup(env: Record<string, string>, opts: { nodeArgs?: string[] } = {}): ProcessGroup {
  const procs: RunningProcess[] = [];
  const simControlToken = randomBytes(18).toString('base64url');
  return {
    procs,
    simControlToken,
    start: async (name, kind, extra = {}, args = []) => {
      const port = Number(extra.PORT ?? extra.SIM_PORT ?? (await freePort()));
      const portEnv: Record<string, string> =
        kind === 'api'
          ? { PORT: String(port), HOST: '127.0.0.1' }
          : kind === 'sim'
            ? { SIM_PORT: String(port), SIM_HOST: '127.0.0.1', SIM_CONTROL_TOKEN: simControlToken }
            : { WORKER_HTTP_PORT: String(port) };
      const p = await startProcess({
        name,
        entry: PROCESS_ENTRIES[kind],
        args,
        env: { ...env, ...portEnv, ...extra },
        readyUrl: `http://127.0.0.1:${port}/${kind === 'sim' ? 'healthz' : 'readyz'}`,
        timeoutMs: 30_000,
        nodeArgs: opts.nodeArgs,
      });
      procs.push(p);
      return Object.assign(p, { port });
    },
    stopAll: async (signal = 'SIGTERM') => {
      await Promise.all(procs.map((p) => p.stop(signal)));
    },
  };
}
