import { findLedgerMismatches } from '@mediagate/shared/billing';
import { getTask } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { type Sim, simChannel, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';
import type { VideoRole } from './role';

// Three vendor accounts (three keys) as three channels of one simulator that allows each key 4 task
// queries a second, as DashScope does per account; the workers' budget is 3 a second per channel.
const SIM_QPS_PER_KEY = 4;
const BUDGET_PER_CHANNEL = 3;
const KEYS = ['sk-vendor-account-one', 'sk-vendor-account-two', 'sk-vendor-account-six'];
const TASKS = 45;

let sim: Sim;
let h: WorkerHarness;
let role: VideoRole;

beforeAll(async () => {
  sim = await startSim({
    SIM_DASHSCOPE_QUERY_QPS: String(SIM_QPS_PER_KEY),
    SIM_VIDEO_PENDING_MS: '0',
    SIM_VIDEO_RUNNING_MS: '3000',
  });
  h = await startWorkerHarness(sim);
  role = h.startWorker({
    channels: KEYS.map((apiKey, i) => ({ ...simChannel(`account-${i + 1}`, sim), apiKey })),
    env: {
      UPSTREAM_POLL_QPS: String(BUDGET_PER_CHANNEL),
      // every task asks to be polled every 100 ms: far more than the budgets allow
      VIDEO_POLL_INTERVAL_MS: '100',
      VIDEO_CONCURRENCY: '50',
    },
  });
});
afterAll(async () => {
  await role?.close();
  await h?.close();
  await sim?.stop();
});

interface KeyQueries {
  queried: number;
  listed: number;
  throttled: number;
  foreign: number;
  peak_qps: number;
}
const videoStats = async () =>
  (await sim.stats()).video as { queried: number; listed: number; by_key: Record<string, KeyQueries> };

describe('query budgets per channel', () => {
  it('add up: three vendor accounts answer three times one account’s queries, each key within its own limit and only for its own tasks', async () => {
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) ids.push(await h.createTask());
    // the fleet's query rate over sliding two-second windows, read from the simulator's counters
    const samples: Array<{ at: number; queries: number }> = [];
    const sampler = setInterval(() => {
      videoStats().then(
        (v) => samples.push({ at: Date.now(), queries: v.queried + v.listed }),
        () => {},
      );
    }, 250);
    try {
      await waitFor(
        async () => {
          for (const id of ids) {
            const row = await getTask(h.database.db, id);
            if (row?.status !== 'succeeded' && row?.status !== 'failed') return false;
          }
          return true;
        },
        { what: `${TASKS} tasks to finish`, timeoutMs: 90_000, intervalMs: 500 },
      );
    } finally {
      clearInterval(sampler);
    }
    const rows = await Promise.all(ids.map((id) => getTask(h.database.db, id)));
    expect(rows.filter((r) => r?.status !== 'succeeded')).toEqual([]);
    // the submits spread over the three accounts (equal weights)
    const perChannel = new Map<string, number>();
    for (const r of rows) perChannel.set(r!.upstreamChannel!, (perChannel.get(r!.upstreamChannel!) ?? 0) + 1);
    expect([...perChannel.keys()].sort()).toEqual(['account-1', 'account-2', 'account-3']);

    const byKey = (await videoStats()).by_key;
    expect(Object.keys(byKey).sort()).toEqual(KEYS.map((k) => `…${k.slice(-6)}`).sort());
    for (const [key, q] of Object.entries(byKey)) {
      // never over the vendor's limit, and never a query of another account's task
      expect({ key, throttled: q.throttled, foreign: q.foreign }).toEqual({ key, throttled: 0, foreign: 0 });
      expect(q.peak_qps).toBeLessThanOrEqual(SIM_QPS_PER_KEY);
      expect(q.queried).toBeGreaterThan(0);
    }
    // the budgets add up: over some two seconds the fleet queried faster than one account may
    let fastest = 0;
    for (const s of samples) {
      const from = samples.find((x) => x.at >= s.at - 2_000 - 50);
      if (!from || s.at - from.at < 1_900) continue;
      fastest = Math.max(fastest, ((s.queries - from.queries) * 1000) / (s.at - from.at));
    }
    expect(fastest).toBeGreaterThan(SIM_QPS_PER_KEY * 1.5);
    expect(await findLedgerMismatches(h.database.db)).toEqual([]);
  });
});
