import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRedis, type RedisClient, redisNamespace } from '@mediagate/shared/queue';
import {
  createTestDatabase,
  freePort,
  type RunningProcess,
  startProcess,
  testQueuePrefix,
  testServiceUrls,
} from '@mediagate/shared/testing';
import type { Cluster } from 'ioredis';
import { Pool } from 'pg';

const ROOT = path.join(__dirname, '..', '..');
export const ENTRIES = {
  api: path.join(ROOT, 'apps/api/dist/server.js'),
  worker: path.join(ROOT, 'apps/worker/dist/main.js'),
  sim: path.join(ROOT, 'apps/upstream-sim/dist/main.js'),
  cli: path.join(ROOT, 'packages/shared/dist/cli/main.js'),
};

/**
 * Node flags for an API run as the manifests run it: the heap Node 24 gives it in its 768 MiB
 * container (measured in a 768 MiB memory cgroup: heap_size_limit 432 MB, i.e. 384 MB old space
 * plus the young generation). On a large test machine V8 would otherwise size the heap for the
 * machine and let garbage grow far past what the container allows before collecting it, so memory
 * ceilings measured without it measure the test machine.
 */
export const CONTAINER_HEAP: readonly string[] = ['--max-old-space-size=384'];

export interface Stack {
  apiUrl: string;
  simUrl: string;
  env: Record<string, string>;
  pool: Pool;
  redis: RedisClient;
  prefix: string;
  /** where the local media driver keeps this stack's videos (MEDIA_DIR) */
  mediaDir: string;
  /** the API process (its output holds the development mailer's e-mails) */
  apiProcess: RunningProcess;
  workers: RunningProcess[];
  /** starts one more video worker process */
  addWorker: () => Promise<RunningProcess>;
  /** the reconciler process, when the stack has one */
  reconcilerProcess?: RunningProcess;
  /** callback dispatcher processes (worker role `callbacks`) */
  callbackWorkers: RunningProcess[];
  addCallbacksWorker: () => Promise<RunningProcess>;
  /** runs the operator CLI against this stack's database */
  cli: (args: string[]) => { status: number | null; stdout: string; stderr: string };
  /** a new account with credit, through the CLI; returns its key */
  newKey: (balanceUsd?: number) => string;
  sim: (method: string, p: string, body?: unknown) => Promise<any>;
  api: (method: string, p: string, key: string, json?: unknown) => Promise<{ status: number; body: any }>;
  stop: () => Promise<void>;
}

/**
 * The whole service as real processes on free ports, with its own database and queue prefix:
 * the upstream simulator, the API, `videoWorkers` video workers, `callbackWorkers` callback
 * dispatchers (none unless asked) and a reconciler.
 */
export async function startStack(
  opts: {
    videoWorkers?: number;
    callbackWorkers?: number;
    reconciler?: boolean;
    env?: Record<string, string>;
    simEnv?: Record<string, string>;
    /** the URL the processes reach the stack's database by (e.g. through a pooler); checks stay direct */
    databaseUrl?: (direct: string) => string;
    /** flags for the API's node besides the shipped ones (e.g. the heap size of a memory-limited container) */
    apiNodeArgs?: string[];
  } = {},
): Promise<Stack> {
  const redisUrl = opts.env?.REDIS_URL ?? (await testServiceUrls()).redisUrl;
  const redisCluster = opts.env?.REDIS_CLUSTER === 'true';
  const testDb = await createTestDatabase();
  const prefix = testQueuePrefix();
  const [apiPort, simPort] = [await freePort(), await freePort()];
  const simUrl = `http://127.0.0.1:${simPort}`;
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'e2e-media-'));
  const env: Record<string, string> = {
    MEDIA_DIR: mediaDir,
    // signed media links point at this stack's API
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    DATABASE_URL: opts.databaseUrl?.(testDb.url) ?? testDb.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    DASHSCOPE_BASE_URL: simUrl,
    // where QR payment providers (the payment simulator, when a test configures it) notify
    PAYMENT_NOTIFY_BASE_URL: `http://127.0.0.1:${apiPort}`,
    ARK_BASE_URL: simUrl,
    VIDEO_POLL_INTERVAL_MS: '50',
    UPSTREAM_RETRY_BASE_MS: '50',
    UPSTREAM_RETRY_MAX_MS: '500',
    VIDEO_LOCK_DURATION_MS: '2000',
    // up to 9 processes per stack share the test server's 100 connections with other test files
    DATABASE_POOL_MAX: '8',
    RECONCILER_INTERVAL_MS: '300',
    RECONCILER_GRACE_MS: '0',
    // tests poll tasks many times a second with one key; rate limits have their own tests
    RATE_LIMIT_RPM: '1000000',
    LOG_LEVEL: 'info',
    ...opts.env,
  };
  const procs: RunningProcess[] = [];
  const workers: RunningProcess[] = [];
  const start = async (
    name: string,
    entry: string,
    extra: Record<string, string>,
    args: string[] = [],
    ready = true,
    nodeArgs: string[] = [],
  ) => {
    const port = extra.PORT ?? extra.SIM_PORT ?? String(await freePort());
    const p = await startProcess({
      name,
      entry,
      args,
      env: { ...env, WORKER_HTTP_PORT: port, ...extra },
      readyUrl: ready ? `http://127.0.0.1:${port}/${name === 'sim' ? 'healthz' : 'readyz'}` : undefined,
      nodeArgs,
    });
    procs.push(p);
    return p;
  };
  const simControlToken = randomBytes(18).toString('base64url');
  await start('sim', ENTRIES.sim, {
    SIM_PORT: String(simPort),
    SIM_CONTROL_TOKEN: simControlToken,
    SIM_HOST: '127.0.0.1',
    SIM_PUBLIC_URL: simUrl,
    SIM_VIDEO_PENDING_MS: '100',
    SIM_VIDEO_RUNNING_MS: '200',
    SIM_DASHSCOPE_SUBMIT_RPS: '0',
    SIM_DASHSCOPE_MAX_RUNNING: '0',
    SIM_DASHSCOPE_QUERY_QPS: '0',
    LOG_LEVEL: 'warn',
    ...opts.simEnv,
  });
  const apiProcess = await start(
    'api',
    ENTRIES.api,
    { PORT: String(apiPort), HOST: '127.0.0.1' },
    [],
    true,
    opts.apiNodeArgs,
  );
  const addWorker = async () => {
    const w = await start(`video-${workers.length + 1}`, ENTRIES.worker, {}, ['--role=video']);
    workers.push(w);
    return w;
  };
  for (let i = 0; i < (opts.videoWorkers ?? 1); i++) await addWorker();
  const callbackWorkers: RunningProcess[] = [];
  const addCallbacksWorker = async () => {
    const w = await start(`callbacks-${callbackWorkers.length + 1}`, ENTRIES.worker, {}, [
      '--role=callbacks',
    ]);
    callbackWorkers.push(w);
    return w;
  };
  for (let i = 0; i < (opts.callbackWorkers ?? 0); i++) await addCallbacksWorker();
  const reconcilerProcess =
    (opts.reconciler ?? true)
      ? await start('reconciler', ENTRIES.worker, {}, ['--role=reconciler'])
      : undefined;

  const pool = new Pool({ connectionString: testDb.url, max: 3 });
  pool.on('error', () => {}); // idle clients die when a drill restarts Postgres
  const redis = createRedis(redisUrl, 'producer', { cluster: redisCluster });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const cli = (args: string[]) => {
    const r = spawnSync(process.execPath, [ENTRIES.cli, ...args], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  let n = 0;
  return {
    apiUrl,
    simUrl,
    env,
    mediaDir,
    pool,
    redis,
    prefix,
    apiProcess,
    reconcilerProcess,
    workers,
    addWorker,
    callbackWorkers,
    addCallbacksWorker,
    cli,
    newKey: (balanceUsd = 20) => {
      n += 1;
      const r = cli([
        'account:create',
        '--email',
        `e2e-${n}-${Date.now()}@example.test`,
        '--balance-usd',
        String(balanceUsd),
      ]);
      if (r.status !== 0) throw new Error(`cli failed: ${r.stderr}`);
      return r.stdout.trim();
    },
    sim: async (method, p, body) => {
      const res = await fetch(`${simUrl}/_control${p}`, {
        method,
        headers: {
          authorization: `Bearer ${simControlToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`sim control ${p}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    api: async (method, p, key, json) => {
      const res = await fetch(apiUrl + p, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
      return { status: res.status, body: await res.json() };
    },
    stop: async () => {
      await Promise.all(procs.map((p) => p.stop('SIGTERM')));
      await pool.end();
      await deleteKeys(redis, stackKeys(prefix));
      redis.disconnect();
      await testDb.drop();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}

export const VIDEO_REQUEST = {
  model: 'wan2.6-i2v-flash-5s-720p',
  prompt: 'a paper boat drifts down a rainy street',
  metadata: { input: { img_url: 'https://example.com/boat.png' } },
};

/** Deletes every key of the stack's queues: what the gateway sees when Redis restarts empty. */
export function loseQueueData(stack: Stack): Promise<number> {
  return deleteKeys(stack.redis, [`{${redisNamespace(stack.prefix)}:*`]);
}

/** Every key of a stack: its queues (`{<ns>:<queue>}...`), its other keys and its rate limits. */
const stackKeys = (prefix: string): string[] => {
  const ns = redisNamespace(prefix);
  return [`{${ns}:*`, `${ns}:*`, `rl:${ns}:*`];
};

async function deleteKeys(redis: RedisClient, patterns: string[]): Promise<number> {
  // a cluster is scanned node by node: the keys spread over its masters (a master a test killed
  // stays listed until the topology refreshes; it holds nothing to delete and answers nothing)
  const nodes = redis.isCluster
    ? (redis as Cluster).nodes('master').filter((n) => n.status === 'ready')
    : [redis];
  let deleted = 0;
  for (const node of nodes) {
    for (const pattern of patterns) {
      let cursor = '0';
      do {
        const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
        cursor = next;
        // one DEL per key: on a cluster node, keys of different slots cannot share a command
        for (const k of keys) deleted += await node.del(k);
      } while (cursor !== '0');
    }
  }
  return deleted;
}
