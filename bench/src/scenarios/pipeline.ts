import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QUEUE_NAMES } from '@mediagate/shared';
import { waitFor } from '@mediagate/shared/testing';
import { Queue, Worker } from 'bullmq';
import { cpuBetween, cpuSnapshot } from '../cpu';
import { benchEnv, VIDEO_BODY } from '../env';
import { httpLoad, percentiles, round } from '../load';
import { ratioRow, type Row } from '../report';
import type { Redis } from 'ioredis';

/**
 * Tasks per second from create to succeeded to callback delivered, with a zero-latency simulator
 * (2 video workers, 1 callbacks dispatcher, a receiver in this process), with p50/p99 of each stage
 * from the rows' timestamps, against a bare BullMQ no-op worker carrying the same number of jobs.
 */
export async function pipelineScenario(opts: { quick: boolean }): Promise<Row[]> {
  const n = opts.quick ? 2_000 : 10_000;
  const e = await benchEnv({
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
  });
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
    const procs = () => e.group.procs.map((p) => ({ name: p.name, pid: p.child.pid ?? 0 }));
    const cpuBefore = await cpuSnapshot(procs(), e.database);
    const started = Date.now();
    const load = await httpLoad({
      url: `http://127.0.0.1:${api.port}/v1/videos`,
      method: 'POST',
      headers: { authorization: `Bearer ${e.key}`, 'content-type': 'application/json' },
      body,
      connections: 50,
      amount: n,
    });
    // on a crowded machine a create may time out on the client's side: count what was created
    const created = Number(
      (await e.database.pool.query(`select count(*)::int as n from tasks`)).rows[0].n,
    );
    await waitFor(
      async () => {
        const { rows } = await e.database.pool.query(
          `select count(*)::int as n from tasks where status in ('succeeded', 'failed')`,
        );
        return rows[0].n >= created;
      },
      { timeoutMs: 600_000, intervalMs: 200, what: 'every task to finish' },
    );
    await waitFor(() => received >= created, { timeoutMs: 600_000, intervalMs: 200, what: 'every callback' });
    const cpu = await cpuBetween(cpuBefore, procs(), e.database);
    const cpuTotal = [...cpu.values()].reduce((a, b) => a + b, 0);
    const cpuDetail = [...cpu.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([group, ms]) => `${group} ${round(ms / created, 2)}`)
      .join(', ');
    const { rows } = await e.database.pool.query(`
      select t.status, extract(epoch from t.created_at) * 1000 as created, extract(epoch from t.started_at) * 1000 as started,
             extract(epoch from t.completed_at) * 1000 as completed,
             (select extract(epoch from max(d.completed_at)) * 1000 from callback_deliveries d where d.task_id = t.id) as delivered
      from tasks t`);
    const ok = rows.filter((r) => r.status === 'succeeded');
    const first = Math.min(...rows.map((r) => Number(r.created)));
    const last = Math.max(...rows.map((r) => Number(r.delivered ?? r.completed)));
    const rate = rows.length / ((last - first) / 1000);
    const pickup = percentiles(ok.map((r) => Number(r.started) - Number(r.created)));
    const run = percentiles(ok.map((r) => Number(r.completed) - Number(r.started)));
    const total = percentiles(ok.map((r) => Number(r.completed) - Number(r.created)));
    const callback = percentiles(
      ok.filter((r) => r.delivered).map((r) => Number(r.delivered) - Number(r.completed)),
    );
    const endToEnd = percentiles(
      ok.filter((r) => r.delivered).map((r) => Number(r.delivered) - Number(r.created)),
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
        note: `${ok.length}/${rows.length} succeeded, ${received} callbacks received; wall ${round(wall, 1)} s; ${load.non2xx + load.errors} creates not answered 2xx`,
      }),
      {
        scenario: 'pipeline',
        metric: 'CPU per task, every process (Redis excluded)',
        value: round(cpuTotal / created, 2),
        unit: 'ms',
        target: '<= 7 ms',
        note: `ms per task: ${cpuDetail}`,
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
        : r.metric.startsWith('CPU per task')
          ? r.value <= 7
          : undefined,
    }));
  } finally {
    await e.close();
  }
}
