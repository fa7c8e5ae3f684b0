import { waitFor } from '@mediagate/shared/testing';
import { benchEnv } from '../env';
import { percentiles, round } from '../load';
import { type Row, ratioRow } from '../report';
import { seedVideoTasks } from './seed';

const QPS = 20;

interface KeyQueries {
  queried: number;
  listed: number;
  throttled: number;
  foreign: number;
  peak_qps: number;
}

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
  /** each vendor account's use of its query budget (the simulator's per-key counters) */
  byKey: Record<string, KeyQueries>;
  /**
   * the delay split in two: from the upstream's end to the first task query answering it ended
   * (finding it), and from there to `completed_at` (recording it)
   */
  split: { askP50ms: number; askP99ms: number; recordP50ms: number; recordP99ms: number };
}

/**
 * `n` video tasks in flight at once, each running 30 to 180 s upstream (drawn per task), the
 * simulator enforcing the vendor's 20 task queries per second per key (429 Throttling.RateQuota
 * over it) and two video workers sharing UPSTREAM_POLL_QPS=20 per channel. With `accounts` > 1
 * the tasks are spread over that many DashScope channels, each a vendor account with its own key.
 * Detection delay: from the moment the upstream finished a task (the sim's own end time) to its
 * `completed_at` in Postgres.
 */
export async function runFleet(n: number, workerEnv: Record<string, string>, accounts = 1): Promise<Run> {
  const channels = (simUrl: string): Record<string, string> =>
    accounts > 1
      ? {
          UPSTREAM_CHANNELS: JSON.stringify(
            Array.from({ length: accounts }, (_, i) => ({
              name: `dashscope-account-${i + 1}`,
              vendor: 'dashscope',
              baseUrl: simUrl,
              apiKey: `sk-bench-account-${i + 1}`,
            })),
          ),
        }
      : {};
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
      await e.group.start(`video-${i}`, 'worker', { DASHSCOPE_BASE_URL: simUrl, ...channels(simUrl) }, [
        '--role=video',
      ]);
    }
    await seedVideoTasks(e, n);
    const stats = async () =>
      (
        (await (await fetch(`${simUrl}/_control/stats`, simControl)).json()) as {
          video: {
            queried: number;
            listed: number;
            query_throttled: number;
            canceled: number;
            by_key: Record<string, KeyQueries>;
          };
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
    const asks: number[] = [];
    const records: number[] = [];
    for (const row of rows) {
      const t = (await (
        await fetch(`${simUrl}/_control/tasks/${row.upstream_task_id}`, simControl)
      ).json()) as {
        ends_at: string;
        end_answered_at: string | null;
      };
      delays.push(row.completed_at.getTime() - Date.parse(t.ends_at));
      if (t.end_answered_at) {
        asks.push(Date.parse(t.end_answered_at) - Date.parse(t.ends_at));
        records.push(row.completed_at.getTime() - Date.parse(t.end_answered_at));
      }
    }
    const v = await stats();
    const { p50ms, p99ms } = percentiles(delays);
    const ask = percentiles(asks);
    const record = percentiles(records);
    return {
      p50ms,
      p99ms,
      maxMs: Math.max(...delays),
      peakQps,
      throttled: v.query_throttled,
      queries: v.queried,
      lists: v.listed,
      seconds,
      byKey: v.by_key,
      split: {
        askP50ms: ask.p50ms,
        askP99ms: ask.p99ms,
        recordP50ms: record.p50ms,
        recordP99ms: record.p99ms,
      },
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
  const rows: Row[] = [
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
  return rows;
}

/** `--only=accounts`: freshness over 3 vendor accounts (1,000 tasks quick, 5,000 in a full run). */
export function accountsScenario(opts: { quick: boolean }): Promise<Row[]> {
  return accountsRows(opts.quick ? 1_000 : 5_000, 3);
}

/**
 * The adaptive scheduler with `n` tasks over `accounts` vendor accounts (channels), against the
 * same scheduler on one account as the baseline, in the same run: the budgets must add up (each
 * account's 20 queries a second used by its own tasks only, no 429).
 */
async function accountsRows(n: number, accounts: number): Promise<Row[]> {
  const one = await runFleet(n, { VIDEO_POLL_SCHEDULER: 'adaptive' });
  const many = await runFleet(n, { VIDEO_POLL_SCHEDULER: 'adaptive' }, accounts);
  const s = (ms: number) => round(ms / 1000, 1);
  const split = (r: Run) =>
    `end to first answer p50 ${s(r.split.askP50ms)} s, p99 ${s(r.split.askP99ms)} s; answer to completed_at p50 ${s(r.split.recordP50ms)} s, p99 ${s(r.split.recordP99ms)} s`;
  const keys = Object.entries(many.byKey);
  const perKey = keys
    .map(
      ([k, q]) =>
        `${k}: ${q.queried} + ${q.listed} lists, peak ${q.peak_qps} q/s, ${q.throttled} 429, ${q.foreign} foreign`,
    )
    .join('; ');
  const withinOwn =
    keys.length === accounts &&
    keys.every(([, q]) => q.throttled === 0 && q.foreign === 0 && q.peak_qps <= QPS);
  const label = `${accounts} accounts`;
  return [
    {
      ...ratioRow({
        scenario: 'freshness',
        metric: `detection delay p50, ${n} in flight over ${label}`,
        value: s(many.p50ms),
        unit: 's',
        baseline: s(one.p50ms),
        baselineLabel: 'adaptive, 1 account',
        target: '<= 2 s',
        higherIsBetter: false,
        note: `max ${s(many.maxMs)} s in ${Math.round(many.seconds)} s; ${split(many)}`,
      }),
      pass: many.p50ms <= 2_000,
    },
    {
      ...ratioRow({
        scenario: 'freshness',
        metric: `detection delay p99, ${label}`,
        value: s(many.p99ms),
        unit: 's',
        baseline: s(one.p99ms),
        baselineLabel: 'adaptive, 1 account',
        target: '<= 10 s',
        higherIsBetter: false,
        note: `baseline: p50 ${s(one.p50ms)} s, ${one.throttled} answered 429`,
      }),
      pass: many.p99ms <= 10_000,
    },
    {
      scenario: 'freshness',
      metric: `each account's queries: own tasks only, within ${QPS} q/s`,
      value: many.peakQps,
      unit: 'q/s (all accounts, peak)',
      baseline: one.peakQps,
      baselineLabel: '1 account',
      target: `<= ${QPS} per account, no 429, 0 foreign`,
      note: perKey,
      pass: withinOwn,
    },
  ];
}
