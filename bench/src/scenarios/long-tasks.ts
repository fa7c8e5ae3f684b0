import { readFileSync } from 'node:fs';
import { waitFor } from '@mediagate/shared/testing';
import { benchEnv } from '../env';
import { round } from '../load';
import { type Row, ratioRow } from '../report';
import { seedVideoTasks } from './seed';

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
};

const metricValue = (text: string, name: string) => {
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
};

/**
 * 10,000 video tasks in flight at once (each running 60 s upstream) in one worker process:
 * resident memory against the same process idle, event-loop delay, and upstream polls per
 * second against the configured limit.
 */
export async function longTasksScenario(opts: { quick: boolean }): Promise<Row[]> {
  const n = opts.quick ? 3_000 : 10_000;
  const runningMs = opts.quick ? 30_000 : 60_000;
  const pollQps = 100;
  const e = await benchEnv({
    DASHSCOPE_API_KEY: 'sk-bench',
    VIDEO_POLL_INTERVAL_MS: '15000',
    UPSTREAM_SUBMIT_RPS: '0',
    UPSTREAM_POLL_QPS: String(pollQps),
    VIDEO_CONCURRENCY: '50',
  });
  try {
    const sim = await e.group.start('sim', 'sim', {
      SIM_VIDEO_PENDING_MS: '0',
      SIM_VIDEO_RUNNING_MS: String(runningMs),
      SIM_DASHSCOPE_SUBMIT_RPS: '0',
      SIM_DASHSCOPE_MAX_RUNNING: '0',
      SIM_DASHSCOPE_QUERY_QPS: '0',
    });
    const simUrl = `http://127.0.0.1:${sim.port}`;
    const simControl = { headers: { authorization: `Bearer ${e.group.simControlToken}` } };
    const worker = await e.group.start('video', 'worker', { DASHSCOPE_BASE_URL: simUrl }, ['--role=video']);
    const pid = worker.child.pid!;
    const idleRss = rssMb(pid);

    await seedVideoTasks(e, n);
    const t0 = Date.now();
    await waitFor(
      async () => {
        const { rows } = await e.database.pool.query(
          `select count(*)::int as n from tasks where upstream_task_id is not null`,
        );
        return rows[0].n >= n;
      },
      { timeoutMs: 300_000, intervalMs: 250, what: 'all tasks submitted' },
    );
    const submitSeconds = (Date.now() - t0) / 1000;
    const stats = async () =>
      (await (await fetch(`${simUrl}/_control/stats`, simControl)).json()) as {
        video: { queried: number; running: number };
      };
    await fetch(`http://127.0.0.1:${worker.port}/metrics`); // reset the event-loop delay window
    const before = await stats();
    const windowMs = opts.quick ? 15_000 : 40_000;
    let peakRss = rssMb(pid);
    const tw = Date.now();
    while (Date.now() - tw < windowMs) {
      await new Promise((r) => setTimeout(r, 500));
      peakRss = Math.max(peakRss, rssMb(pid));
    }
    const after = await stats();
    const pollsPerSecond = (after.video.queried - before.video.queried) / ((Date.now() - tw) / 1000);
    const metrics = await (await fetch(`http://127.0.0.1:${worker.port}/metrics`)).text();
    const eldP99 = metricValue(metrics, 'mediagate_process_nodejs_eventloop_lag_p99_seconds') * 1000;
    const eldMax = metricValue(metrics, 'mediagate_process_nodejs_eventloop_lag_max_seconds') * 1000;
    return [
      ratioRow({
        scenario: 'long tasks',
        metric: `peak RSS, ${n} in flight`,
        value: round(peakRss, 0),
        unit: 'MB',
        baseline: round(idleRss, 0),
        baselineLabel: 'same worker idle',
        target: '< 300 MB',
        higherIsBetter: false,
        note: `${after.video.running} running upstream; all submitted in ${round(submitSeconds, 1)} s`,
      }),
      {
        scenario: 'long tasks',
        metric: 'event-loop delay p99 / max',
        value: round(eldP99, 1),
        unit: 'ms',
        note: `max ${round(eldMax, 1)} ms`,
      },
      ratioRow({
        scenario: 'long tasks',
        metric: 'upstream polls per second',
        value: round(pollsPerSecond, 1),
        unit: 'polls/s',
        baseline: pollQps,
        baselineLabel: 'configured QPS',
        target: '<= 1.00',
        higherIsBetter: false,
        maxRatio: 1,
      }),
    ].map((r) => (r.metric.startsWith('peak RSS') ? { ...r, pass: r.value < 300 } : r));
  } finally {
    await e.close();
  }
}
