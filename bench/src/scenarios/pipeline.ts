import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccount } from '@mediagate/shared/accounts';
import { usdToMicro } from '@mediagate/shared/billing';
import { QUEUE_NAMES, queueKeyPrefix } from '@mediagate/shared/queue';
import { startRedisServer, waitFor } from '@mediagate/shared/testing';
import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  type CpuSnapshot,
  countsBetween,
  cpuBetween,
  cpuSnapshot,
  postgresCounts,
  processCpuMs,
  redisCommandCounts,
  syscallCounts,
  writesBetween,
} from '../cpu';
import { benchEnv, VIDEO_BODY } from '../env';
import { httpLoad, percentiles, round } from '../load';
import { type Row, ratioRow } from '../report';

/** seconds the fleet idles before the load, to measure each process's CPU at rest */
const IDLE_WINDOW_MS = 5_000;
/** Postgres backends flush their statistics within about 10 s of going idle */
const PG_STATS_FLUSH_MS = 11_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Tasks per second from create to succeeded to callback delivered, with a zero-latency simulator
 * (2 video workers, 1 callbacks dispatcher, a receiver in this process), with p50/p99 of each stage
 * from the rows' timestamps, against a bare BullMQ no-op worker carrying the same number of jobs.
 *
 * CPU per task: the creates are offered at a fixed rate below saturation (`BENCH_PIPELINE_RATE`
 * tasks/s, default 50; `0` for as fast as 50 connections go), so that contention for the cores does
 * not inflate every process's share. Each process's CPU at rest is measured first, with the whole
 * fleet up and no load; the marginal figure subtracts that rate over the load's window. The fleet
 * runs on a redis-server of its own (`BENCH_SHARED_REDIS=1`: the machine's), so Redis's CPU and
 * its commands per task (`INFO commandstats`) belong to the scenario alone; Postgres commits and
 * row counters per task come from `pg_stat_database` of the scenario's database.
 *
 * The creates come from one account (`BENCH_PIPELINE_ACCOUNTS`, default 1: one busy customer, whose
 * account row every create and every terminal move updates); with N, they go round-robin over the
 * keys of N accounts.
 */
export async function pipelineScenario(opts: { quick: boolean }): Promise<Row[]> {
  const n = Number(process.env.BENCH_PIPELINE_TASKS ?? (opts.quick ? 2_000 : 10_000));
  const offered = Number(process.env.BENCH_PIPELINE_RATE ?? 50);
  const warmup = Number(process.env.BENCH_PIPELINE_WARMUP ?? 500);
  const accounts = Math.max(1, Number(process.env.BENCH_PIPELINE_ACCOUNTS ?? 1));
  const ownRedis = process.env.BENCH_SHARED_REDIS === '1' ? undefined : await startRedisServer();
  const e = await benchEnv(
    {
      DASHSCOPE_API_KEY: 'sk-bench',
      // a zero-latency upstream: poll at once (the adaptive scheduler's floors are for real durations)
      VIDEO_POLL_SCHEDULER: 'fixed',
      VIDEO_POLL_INTERVAL_MS: '10',
      UPSTREAM_SUBMIT_RPS: '0',
      UPSTREAM_POLL_QPS: '0',
      VIDEO_CONCURRENCY: '100',
      SSRF_ALLOW_CIDRS: '127.0.0.0/8',
      // every callback goes to the one receiver below, which answers at once: let the dispatcher
      // hold 100 requests open to it (default 10, which makes the rest wait as delayed jobs)
      CALLBACK_PER_HOST_CONCURRENCY: '100',
    },
    { redisUrl: ownRedis?.url },
  );
  let received = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    const sim = await e.group.start('sim', 'sim', {
      SIM_VIDEO_PENDING_MS: '0',
      SIM_VIDEO_RUNNING_MS: '0',
      SIM_DASHSCOPE_SUBMIT_RPS: '0',
      SIM_DASHSCOPE_MAX_RUNNING: '0',
      SIM_DASHSCOPE_QUERY_QPS: '0',
    });
    e.env.DASHSCOPE_BASE_URL = `http://127.0.0.1:${sim.port}`;
    const api = await e.group.start('api', 'api', { DASHSCOPE_BASE_URL: e.env.DASHSCOPE_BASE_URL });
    for (const i of [1, 2]) {
      await e.group.start(`video-${i}`, 'worker', { DASHSCOPE_BASE_URL: e.env.DASHSCOPE_BASE_URL }, [
        '--role=video',
      ]);
    }
    await e.group.start('callbacks', 'worker', {}, ['--role=callbacks']);
    const video = JSON.parse(VIDEO_BODY) as { metadata: Record<string, unknown> };
    const body = JSON.stringify({ ...video, metadata: { ...video.metadata, callback_url: callbackUrl } });
    const keys = [e.key];
    for (let i = 1; i < accounts; i++) {
      const made = await createAccount(e.database.db, {
        email: `bench-${i}-${e.accountId}@example.test`,
        initialCreditMicroUsd: usdToMicro(10_000_000),
      });
      keys.push(made.key.key);
    }
    let nextKey = 0;
    const procs = () => e.group.procs.map((p) => ({ name: p.name, pid: p.child.pid ?? 0 }));
    const redisPid = ownRedis?.pid ?? Number(/process_id:(\d+)/.exec(await e.redis.info('server'))?.[1] ?? 0);
    const measure = async () => ({
      cpu: await cpuSnapshot(procs(), e.database),
      redisCpu: processCpuMs(redisPid),
      redisWrites: syscallCounts(redisPid).writes,
      redisCommands: await redisCommandCounts(e.redis),
      at: Date.now(),
    });
    const between = async (before: {
      cpu: CpuSnapshot;
      redisCpu: number;
      redisWrites: number;
      redisCommands: Map<string, number>;
      at: number;
    }) => {
      const after = await measure();
      const cpu = cpuBetween(before.cpu, after.cpu);
      cpu.set('redis', after.redisCpu - before.redisCpu);
      const writes = writesBetween(before.cpu, after.cpu);
      writes.set('redis', after.redisWrites - before.redisWrites);
      return {
        cpu,
        writes,
        commands: countsBetween(before.redisCommands, after.redisCommands),
        ms: after.at - before.at,
      };
    };
    // BENCH_REDIS_MONITOR=<file>: every Redis command of the load, to see what a task costs
    const monitorFile = process.env.BENCH_REDIS_MONITOR;
    const monitor = monitorFile ? await (e.redis as Redis).monitor() : undefined;
    const monitored: string[] = [];
    monitor?.on('monitor', (_time: string, args: string[]) => {
      monitored.push(args.map((a) => (a.length > 60 ? `${a.slice(0, 57)}...` : a)).join(' '));
    });
    // The copies of the videos into storage (download, store, a thumbnail by ffmpeg) wait until
    // the task path has been measured, then run in a window of their own.
    const mediaQueue = new Queue(QUEUE_NAMES.media, {
      connection: e.redis,
      prefix: queueKeyPrefix(e.prefix, QUEUE_NAMES.media),
    });
    await mediaQueue.pause();
    const createLoad = (amount: number) =>
      httpLoad({
        overallRate: offered > 0 ? offered : undefined,
        url: `http://127.0.0.1:${api.port}/v1/videos`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        headersFor: () => ({ authorization: `Bearer ${keys[nextKey++ % keys.length]}` }),
        body,
        connections: 50,
        amount,
      });
    const taskCount = async () =>
      Number((await e.database.pool.query(`select count(*)::int as n from tasks`)).rows[0].n);
    // Warm-up (BENCH_PIPELINE_WARMUP tasks, default 500, through the whole path) before anything is
    // measured: the first tasks pay once per process for compiling the code, opening the
    // connections of the pools and preparing the statements, which a long-running fleet does not.
    if (warmup > 0) {
      await createLoad(warmup);
      const warmed = await taskCount();
      await waitFor(() => received >= warmed, { timeoutMs: 300_000, intervalMs: 100, what: 'the warm-up' });
    }
    const before = await taskCount();
    const receivedBefore = received;
    // the fleet at rest: timers, BullMQ's polling of delayed jobs and lock renewals, Redis's cron
    await sleep(2_000);
    const idleStart = await measure();
    await sleep(IDLE_WINDOW_MS);
    const idle = await between(idleStart);
    const pgBefore = await postgresCounts(e.database);
    const loadStart = await measure();
    const started = Date.now();
    const load = await createLoad(n);
    // on a crowded machine a create may time out on the client's side: count what was created
    const created = (await taskCount()) - before;
    // one callback per task: wait on the receiver's count (in memory), not on Postgres, whose
    // backends count in the figures, then check once that every task has ended
    await waitFor(() => received - receivedBefore >= created, {
      timeoutMs: 600_000,
      intervalMs: 100,
      what: 'every callback',
    });
    await waitFor(
      async () => {
        const { rows } = await e.database.pool.query(
          `select count(*)::int as n from tasks where status in ('succeeded', 'failed')`,
        );
        return rows[0].n >= before + created;
      },
      { timeoutMs: 600_000, intervalMs: 200, what: 'every task to finish' },
    );
    const ok = Number(
      (await e.database.pool.query(`select count(*)::int as n from tasks where status = 'succeeded'`)).rows[0]
        .n,
    );
    const loaded = await between(loadStart);
    if (monitor) {
      monitor.disconnect();
      writeFileSync(monitorFile!, `${monitored.join('\n')}\n`);
    }
    // BENCH_PIPELINE_COPIES=0: leave the copies out (they are dropped with the scenario's Redis keys)
    const measureCopies = process.env.BENCH_PIPELINE_COPIES !== '0';
    // Postgres backends report their counters some seconds after going idle
    await sleep(PG_STATS_FLUSH_MS);
    const pg = countsBetween(pgBefore, await postgresCounts(e.database));
    const copyStart = await measure();
    if (measureCopies) await mediaQueue.resume();
    await waitFor(
      async () => {
        const { rows } = await e.database.pool.query(
          `select count(*)::int as n from task_media where status in ('stored', 'failed')`,
        );
        return !measureCopies || rows[0].n >= ok;
      },
      { timeoutMs: 900_000, intervalMs: 500, what: 'every media copy' },
    );
    const copies = await between(copyStart);
    await mediaQueue.close();
    const perTask = (v: number) => round(v / created, 2);
    /** what the fleet spends at rest, in `m`'s unit, over `ms` */
    const atRest = (m: Map<string, number>, key: string, ms: number) => ((m.get(key) ?? 0) / idle.ms) * ms;
    const groups = [...loaded.cpu.keys()].sort((a, b) => loaded.cpu.get(b)! - loaded.cpu.get(a)!);
    const gross = new Map(groups.map((g) => [g, loaded.cpu.get(g)!]));
    const marginal = new Map(groups.map((g) => [g, gross.get(g)! - atRest(idle.cpu, g, loaded.ms)]));
    const sum = (m: Map<string, number>, skip?: string) =>
      [...m.entries()].filter(([k]) => k !== skip).reduce((a, [, v]) => a + v, 0);
    const detail = (m: Map<string, number>) => groups.map((g) => `${g} ${perTask(m.get(g)!)}`).join(', ');
    const idleDetail = groups
      .map((g) => `${g} ${round(((idle.cpu.get(g) ?? 0) / idle.ms) * 100, 1)}%`)
      .join(', ');
    const writesDetail = groups
      .map((g) => `${g} ${perTask((loaded.writes.get(g) ?? 0) - atRest(idle.writes, g, loaded.ms))}`)
      .join(', ');
    const commandsPerTask = (sum(loaded.commands) - (sum(idle.commands) / idle.ms) * loaded.ms) / created;
    const topCommands = [...loaded.commands.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([c, k]) => `${c} ${perTask(k - atRest(idle.commands, c, loaded.ms))}`)
      .join(', ');
    const copyGroups = [...copies.cpu.entries()].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
    const copyMarginal = copyGroups.map(([g, v]) => [g, v - atRest(idle.cpu, g, copies.ms)] as const);
    const copyTotal = copyMarginal.reduce((a, [g, v]) => a + (g === 'redis' ? 0 : v), 0);
    // every succeeded task's video is copied, the warm-up's too
    const perCopy = (v: number) => round(v / Math.max(1, ok), 2);
    const copyDetail = copyMarginal.map(([g, v]) => `${g} ${perCopy(v)}`).join(', ');
    const pgDetail = [...pg.entries()].map(([k, v]) => `${k} ${perTask(v)}`).join(', ');
    process.stderr.write(
      `[bench] pipeline: ${created} tasks offered at ${offered || 'max'}/s over ${round(loaded.ms / 1000, 1)} s\n` +
        `[bench]   CPU ms/task gross:    ${detail(gross)}\n` +
        `[bench]   CPU ms/task marginal: ${detail(marginal)}\n` +
        `[bench]   CPU at rest (% of a core): ${idleDetail}\n` +
        `[bench]   write system calls/task, marginal: ${writesDetail}\n` +
        `[bench]   Redis commands/task ${round(commandsPerTask, 1)}: ${topCommands}\n` +
        `[bench]   Postgres per task: ${pgDetail}\n` +
        `[bench]   media copies afterwards, ${round(copies.ms / 1000, 1)} s, CPU ms/task marginal: ${copyDetail}\n`,
    );
    const { rows } = await e.database.pool.query(
      `
      select t.status, extract(epoch from t.created_at) * 1000 as created, extract(epoch from t.started_at) * 1000 as started,
             extract(epoch from t.completed_at) * 1000 as completed,
             (select extract(epoch from max(d.completed_at)) * 1000 from callback_deliveries d where d.task_id = t.id) as delivered
      from tasks t where t.created_at >= to_timestamp($1::double precision / 1000)`,
      [started],
    );
    const succeeded = rows.filter((r) => r.status === 'succeeded');
    const first = Math.min(...rows.map((r) => Number(r.created)));
    const last = Math.max(...rows.map((r) => Number(r.delivered ?? r.completed)));
    const rate = rows.length / ((last - first) / 1000);
    const pickup = percentiles(succeeded.map((r) => Number(r.started) - Number(r.created)));
    const run = percentiles(succeeded.map((r) => Number(r.completed) - Number(r.started)));
    const total = percentiles(succeeded.map((r) => Number(r.completed) - Number(r.created)));
    const callback = percentiles(
      succeeded.filter((r) => r.delivered).map((r) => Number(r.delivered) - Number(r.completed)),
    );
    const endToEnd = percentiles(
      succeeded.filter((r) => r.delivered).map((r) => Number(r.delivered) - Number(r.created)),
    );
    receiver.close();
    const wall = (Date.now() - started) / 1000;

    // Baseline: the same number of jobs through a bare BullMQ queue and a no-op worker.
    const prefix = `${e.prefix}-bare`;
    const queue = new Queue(`${QUEUE_NAMES.video}-bare`, { connection: e.redis, prefix });
    const t0 = Date.now();
    let done = 0;
    const worker = new Worker(`${QUEUE_NAMES.video}-bare`, async () => {}, {
      // the bench's own Redis is a single server (not a cluster)
      connection: (e.redis as Redis).duplicate(),
      prefix,
      concurrency: 100,
    });
    worker.on('completed', () => {
      done += 1;
    });
    for (let i = 0; i < n; i += 1000) {
      await queue.addBulk(
        Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
          name: 'noop',
          data: { i: i + j },
          opts: { removeOnComplete: true },
        })),
      );
    }
    await waitFor(() => done >= n, { timeoutMs: 300_000, intervalMs: 20 });
    const bareRate = n / ((Date.now() - t0) / 1000);
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();

    return [
      ratioRow({
        scenario: 'pipeline',
        metric: `tasks/s create→succeeded→callback delivered (${n} tasks)`,
        value: round(rate, 0),
        unit: 'tasks/s',
        baseline: round(bareRate, 0),
        baselineLabel: 'bare BullMQ no-op',
        target: '>= 1000 tasks/s',
        higherIsBetter: true,
        note: `${succeeded.length}/${rows.length} succeeded, ${received} callbacks received; wall ${round(wall, 1)} s; ${load.non2xx + load.errors} creates not answered 2xx`,
      }),
      {
        scenario: 'pipeline',
        metric: `CPU per task, every process but Redis, marginal (${offered || 'max'} tasks/s offered${accounts > 1 ? `, ${accounts} accounts` : ''})`,
        value: perTask(sum(marginal, 'redis')),
        unit: 'ms',
        target: '<= 7 ms',
        note: `ms per task: ${detail(marginal)}; at rest, % of a core: ${idleDetail}`,
      },
      {
        scenario: 'pipeline',
        metric: 'CPU per task, every process but Redis, gross',
        value: perTask(sum(gross, 'redis')),
        unit: 'ms',
        note: `ms per task: ${detail(gross)}; load window ${round(loaded.ms / 1000, 1)} s`,
      },
      ...(measureCopies
        ? [
            {
              scenario: 'pipeline',
              metric: 'CPU per task of the media copy (download, store, ffmpeg thumbnail), marginal',
              value: perCopy(copyTotal),
              unit: 'ms',
              note: `after the task path, in ${round(copies.ms / 1000, 1)} s; ms per task: ${copyDetail}`,
            },
          ]
        : []),
      {
        scenario: 'pipeline',
        metric: 'Redis commands per task (INFO commandstats, marginal)',
        value: round(commandsPerTask, 1),
        unit: '',
        note: `${ownRedis ? "the scenario's own redis-server" : "the machine's Redis, shared"}: ${topCommands}`,
      },
      {
        scenario: 'pipeline',
        metric: 'Postgres commits per task (pg_stat_database)',
        value: perTask((pg.get('xact_commit') ?? 0) + (pg.get('xact_rollback') ?? 0)),
        unit: '',
        note: pgDetail,
      },
      {
        scenario: 'pipeline',
        metric: 'create→pickup p50 / p99',
        value: pickup.p50ms,
        unit: 'ms',
        note: `p99 ${pickup.p99ms} ms`,
      },
      {
        scenario: 'pipeline',
        metric: 'pickup→succeeded p50 / p99',
        value: run.p50ms,
        unit: 'ms',
        note: `p99 ${run.p99ms} ms`,
      },
      {
        scenario: 'pipeline',
        metric: 'create→succeeded p50 / p99',
        value: total.p50ms,
        unit: 'ms',
        note: `p99 ${total.p99ms} ms`,
      },
      {
        scenario: 'pipeline',
        metric: 'succeeded→callback delivered p50 / p99',
        value: callback.p50ms,
        unit: 'ms',
        note: `p99 ${callback.p99ms} ms`,
      },
      {
        scenario: 'pipeline',
        metric: 'create→callback delivered p50 / p99',
        value: endToEnd.p50ms,
        unit: 'ms',
        note: `p99 ${endToEnd.p99ms} ms`,
      },
    ].map((r) => ({
      ...r,
      pass: r.metric.startsWith('tasks/s')
        ? r.value >= 1000
        : r.target === '<= 7 ms'
          ? r.value <= 7
          : undefined,
    }));
  } finally {
    await e.close();
    await ownRedis?.stop();
  }
}
