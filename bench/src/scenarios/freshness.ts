import { waitFor } from '@mediagate/shared/testing';
import { benchEnv } from '../env';
import { percentiles, round } from '../load';
import { type Row, ratioRow } from '../report';
import { seedVideoTasks } from './seed';

const QPS = 20;

interface Run {
  p50ms: number;
  p99ms: number;
  maxMs: number;
  /** the most queries the sim answered in one second (sampled each second) */
  peakQps: number;
  throttled: number;
  queries: number;
  lists: number;
  seconds: number;
}

/**
 * `n` video tasks in flight at once, each running 30 to 180 s upstream (drawn per task), the
 * simulator enforcing the vendor's 20 task queries per second (429 Throttling.RateQuota over it)
 * and two video workers sharing UPSTREAM_POLL_QPS=20. Detection delay: from the moment the
 * upstream finished a task (the sim's own end time) to its `completed_at` in Postgres.
 */
async function runFleet(n: number, workerEnv: Record<string, string>): Promise<Run> {
  const e = await benchEnv({
    DASHSCOPE_API_KEY: 'sk-bench',
    UPSTREAM_SUBMIT_RPS: '0',
    UPSTREAM_POLL_QPS: String(QPS),
    VIDEO_CONCURRENCY: '50',
    ...workerEnv,
  });
  try {
    const sim = await e.group.start('sim', 'sim', {
      SIM_VIDEO_PENDING_MS: '0',
      SIM_VIDEO_RUNNING_MS: '30000-180000',
      SIM_DASHSCOPE_SUBMIT_RPS: '0',
      SIM_DASHSCOPE_MAX_RUNNING: '0',
      SIM_DASHSCOPE_QUERY_QPS: String(QPS),
    });
    const simUrl = `http://127.0.0.1:${sim.port}`;
    const simControl = { headers: { authorization: `Bearer ${e.group.simControlToken}` } };
    for (let i = 1; i <= 2; i++) {
      await e.group.start(`video-${i}`, 'worker', { DASHSCOPE_BASE_URL: simUrl }, ['--role=video']);
    }
    await seedVideoTasks(e, n);
    const stats = async () =>
      (
        (await (await fetch(`${simUrl}/_control/stats`, simControl)).json()) as {
          video: { queried: number; listed: number; query_throttled: number; canceled: number };
        }
      ).video;
    const count = (v: Awaited<ReturnType<typeof stats>>) => v.queried + v.listed + v.query_throttled;
    let peakQps = 0;
    let last = count(await stats());
    const t0 = Date.now();
    const sampler = setInterval(() => {
      stats().then(
        (v) => {
          const c = count(v);
          peakQps = Math.max(peakQps, c - last);
          last = c;
        },
        () => {},
      );
    }, 1_000);
    try {
      await waitFor(
        async () => {
          const { rows } = await e.database.pool.query(
            `select count(*)::int as n from tasks where status in ('succeeded', 'failed')`,
          );
          return rows[0].n >= n;
        },
        { timeoutMs: 900_000, intervalMs: 1_000, what: 'every task to finish' },
      );
    } finally {
      clearInterval(sampler);
    }
    const seconds = (Date.now() - t0) / 1000;
    const { rows } = await e.database.pool.query<{
      upstream_task_id: string;
      completed_at: Date;
      status: string;
    }>(`select upstream_task_id, completed_at, status from tasks`);
    const delays: number[] = [];
    for (const row of rows) {
      const t = (await (
        await fetch(`${simUrl}/_control/tasks/${row.upstream_task_id}`, simControl)
      ).json()) as {
        ends_at: string;
      };
      delays.push(row.completed_at.getTime() - Date.parse(t.ends_at));
    }
    const v = await stats();
    const { p50ms, p99ms } = percentiles(delays);
    return {
      p50ms,
      p99ms,
      maxMs: Math.max(...delays),
      peakQps,
      throttled: v.query_throttled,
      queries: v.queried,
      lists: v.listed,
      seconds,
    };
  } finally {
    await e.close();
  }
}

export async function freshnessScenario(opts: { quick: boolean }): Promise<Row[]> {
  const n = opts.quick ? 1_000 : 5_000;
  const fixed = await runFleet(n, { VIDEO_POLL_SCHEDULER: 'fixed', VIDEO_POLL_INTERVAL_MS: '15000' });
  const adaptive = await runFleet(n, { VIDEO_POLL_SCHEDULER: 'adaptive' });
  const s = (ms: number) => round(ms / 1000, 1);
  const detail = (r: Run) =>
    `max ${s(r.maxMs)} s; ${r.queries} task queries + ${r.lists} batch queries in ${Math.round(r.seconds)} s; peak ${r.peakQps} q/s; ${r.throttled} answered 429`;
  return [
    ratioRow({
      scenario: 'freshness',
      metric: `detection delay p50, ${n} in flight (30-180 s)`,
      value: s(adaptive.p50ms),
      unit: 's',
      baseline: s(fixed.p50ms),
      baselineLabel: 'fixed 15 s poller',
      target: '<= 2 s',
      higherIsBetter: false,
      note: detail(adaptive),
    }),
    ratioRow({
      scenario: 'freshness',
      metric: 'detection delay p99',
      value: s(adaptive.p99ms),
      unit: 's',
      baseline: s(fixed.p99ms),
      baselineLabel: 'fixed 15 s poller',
      target: '<= 10 s',
      higherIsBetter: false,
      note: `baseline: ${detail(fixed)}`,
    }),
    {
      scenario: 'freshness',
      metric: 'peak queries per second / 429 answers',
      value: adaptive.peakQps,
      unit: 'q/s',
      baseline: fixed.peakQps,
      baselineLabel: 'fixed poller',
      target: `<= ${QPS}, no 429`,
      note: `429: ${adaptive.throttled} (baseline ${fixed.throttled})`,
    },
  ].map((r) => {
    if (r.metric.startsWith('detection delay p50')) return { ...r, pass: adaptive.p50ms <= 2_000 };
    if (r.metric.startsWith('detection delay p99')) return { ...r, pass: adaptive.p99ms <= 10_000 };
    return { ...r, pass: adaptive.peakQps <= QPS && adaptive.throttled === 0 };
  });
}
