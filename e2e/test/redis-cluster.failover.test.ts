import { queueKeyPrefix } from '@mediagate/shared/queue';
import { headersOf, processGroup, type Receiver, startReceiver, waitFor } from '@mediagate/shared/testing';
import { Webhook } from 'standardwebhooks';
import { checkNothingLost, createVideos, NOTHING_LOST, submittedCount } from './drills/checks';
import { type OwnRedisCluster, startRedisCluster } from './scale-services';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

/**
 * A Redis Cluster of 3 masters with a replica each, started for this file: the gateway's keys
 * spread over every master, and a run survives the crash of the master that holds the video
 * queue (its replica takes over) with nothing lost, charged twice or called back twice. A video
 * worker's /readyz says 503 while that master is down and 200 once the replica serves.
 */
jest.setTimeout(240_000);

const N = Number(process.env.FAILOVER_TASKS ?? 150);
// a fixed namespace: the cluster is this file's own, and the slots (so the masters) of the keys
// are then the same at every run
const NS = 'mgfail';

let cluster: OwnRedisCluster;
let stack: Stack;
let rx: Receiver;
const extra = processGroup({});

beforeAll(async () => {
  cluster = await startRedisCluster(3, { replicas: 1, nodeTimeoutMs: 2_000 });
  stack = await startStack({
    videoWorkers: 2,
    callbackWorkers: 1,
    env: {
      REDIS_URL: cluster.url,
      REDIS_CLUSTER: 'true',
      QUEUE_PREFIX: NS,
      SSRF_ALLOW_CIDRS: '127.0.0.0/8',
      VIDEO_MAX_ACTIVE_TASKS: '1000000',
      // the limiters and the poll budget keep keys of their own
      UPSTREAM_SUBMIT_RPS: '500',
      UPSTREAM_POLL_QPS: '0',
      VIDEO_POLL_INTERVAL_MS: '100',
      VIDEO_LOCK_DURATION_MS: '10000',
      CALLBACK_LOCK_DURATION_MS: '10000',
      LOG_LEVEL: 'warn',
    },
    simEnv: { SIM_VIDEO_PENDING_MS: '200', SIM_VIDEO_RUNNING_MS: '600' },
  });
  rx = await startReceiver();
}, 120_000);
afterAll(async () => {
  await extra.stopAll();
  await rx?.close();
  await stack?.stop();
  await cluster?.stop();
});

/** Every key of the namespace, by the master that holds it, read from each master. */
function keysByMaster(): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const port of cluster.masters()) {
    const keys = cluster
      .cli(port, ['--scan', '--pattern', `*${NS}*`])
      .split('\n')
      .filter(Boolean);
    out.set(port, keys);
  }
  return out;
}

it(`${N} tasks survive the crash of the master that holds the video queue`, async () => {
  const key = stack.newKey(N);
  const body = JSON.stringify({
    ...VIDEO_REQUEST,
    metadata: { ...VIDEO_REQUEST.metadata, callback_url: `${rx.url}/hook` },
  });
  // a video worker whose readiness is watched through the failover
  const group = processGroup(stack.env);
  const watched = await group.start('video-watched', 'worker', {}, ['--role=video']);
  extra.procs.push(...group.procs);
  const readyz = async () =>
    fetch(`http://127.0.0.1:${watched.port}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => r.status,
      () => 0,
    );

  // accepted (a task row) even while the cluster fails over
  const creating = createVideos({ urls: [stack.apiUrl], key, body, n: N, batch: 10 });

  await waitFor(async () => (await submittedCount(stack.pool)) >= N / 4, {
    timeoutMs: 120_000,
    what: 'a quarter of the tasks submitted',
  });

  // the keys spread: held by every one of the 3 masters, the three queues in slots of their own
  const spread = keysByMaster();
  const holding = [...spread.entries()].filter(([, keys]) => keys.length > 0).map(([port]) => port);
  expect(holding).toHaveLength(3);
  const queueTags = ['video-tasks', 'callbacks', 'media-copy'].map((q) => queueKeyPrefix(NS, q));
  const slotsOf = (k: string) => Number(cluster.cli(cluster.ports[0]!, ['cluster', 'keyslot', k]).trim());
  expect(new Set(queueTags.map(slotsOf)).size).toBe(3);
  process.stderr.write(
    `[redis-cluster] keys per master: ${[...spread.entries()].map(([p, k]) => `${p}: ${k.length}`).join(', ')}\n`,
  );

  // crash the master of the video queue; its replica takes over
  const victim = cluster.masterOf(`${queueKeyPrefix(NS, 'video-tasks')}:video-tasks:meta`);
  expect(await readyz()).toBe(200);
  const killedAt = Date.now();
  await cluster.kill(victim);
  await waitFor(async () => (await readyz()) === 503, {
    what: "the watched worker's /readyz to say 503 while the master of its queue is down",
    timeoutMs: 20_000,
    intervalMs: 100,
  });
  await waitFor(() => !cluster.masters().includes(victim), {
    what: 'a replica to take over the slots',
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  await waitFor(async () => (await readyz()) === 200, {
    what: "the watched worker's /readyz to say 200 once the replica serves",
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  process.stderr.write(
    `[redis-cluster] failover of ${victim}: ready again after ${Date.now() - killedAt} ms\n`,
  );
  const ids = await creating;

  await waitFor(
    async () => {
      const { rows } = await stack.pool.query(
        `select count(*)::int as n from tasks where status in ('succeeded', 'failed')`,
      );
      return rows[0].n === N;
    },
    { timeoutMs: 150_000, intervalMs: 250, what: 'every task to end' },
  ).catch(async (err: Error) => {
    const { rows } = await stack.pool.query(
      `select status, (upstream_task_id is not null) as submitted, count(*)::int as n
         from tasks group by 1, 2 order by 1, 2`,
    );
    const logs = [...stack.workers, ...extra.procs, stack.apiProcess]
      .map((p) => `--- ${p.name} ---\n${p.output().slice(-3000)}`)
      .join('\n');
    throw new Error(`${err.message}\ntasks: ${JSON.stringify(rows)}\n${logs}`);
  });
  const sim = await stack.sim('GET', '/stats');
  const books = await checkNothingLost(stack.pool, sim.video.submitted);
  process.stderr.write(`[redis-cluster] ${cluster.describe}: ${JSON.stringify(books)}\n`);
  expect(books).toMatchObject(NOTHING_LOST);
  // a submit cut off by the crash is the only acceptable failure (refunded, never resubmitted)
  for (const code of Object.keys(books.failedCodes)) expect(code).toBe('upstream_submit_interrupted');

  // one callback per finished task, each under one webhook-id: none twice
  const ended = Number(books.counts.succeeded ?? 0) + Number(books.counts.failed ?? 0);
  await waitFor(() => new Set(rx.received.map((r) => r.headers['webhook-id'])).size >= ended, {
    timeoutMs: 90_000,
    intervalMs: 250,
    what: 'a callback per task',
  });
  const secret = (await stack.api('GET', '/v1/webhooks/secret', key)).body.secret as string;
  const tasksByHook = new Map<string, string>();
  const hooksByTask = new Map<string, Set<string>>();
  for (const r of rx.received) {
    const event = new Webhook(secret).verify(r.body, headersOf(r)) as { data: { id: string } };
    const webhookId = String(r.headers['webhook-id']);
    expect(tasksByHook.get(webhookId) ?? event.data.id).toBe(event.data.id);
    tasksByHook.set(webhookId, event.data.id);
    hooksByTask.set(event.data.id, (hooksByTask.get(event.data.id) ?? new Set()).add(webhookId));
  }
  expect(new Set(hooksByTask.keys())).toEqual(new Set(ids));
  for (const hooks of hooksByTask.values()) expect(hooks.size).toBe(1);
  process.stderr.write(
    `[redis-cluster] ${N} tasks, ${rx.received.length} deliveries (${rx.received.length - tasksByHook.size} repeated sends of one webhook-id)\n`,
  );
});
