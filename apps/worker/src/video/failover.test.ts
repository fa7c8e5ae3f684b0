import { findLedgerMismatches } from '@mediagate/shared/billing';
import { getTask } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { type Sim, simChannel, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';
import type { VideoRole } from './role';

// Two simulators behind two DashScope channels: 'a' is tried first, 'b' is the fall-back.
let a: Sim;
let b: Sim;
let h: WorkerHarness;
let role: VideoRole;
const channels = () => [simChannel('a', a, 0), simChannel('b', b, 1)];

beforeAll(async () => {
  [a, b] = await Promise.all([startSim(), startSim()]);
  // a short upstream timeout, so a silent channel shows up quickly
  h = await startWorkerHarness(a, { upstreamTimeoutMs: 700 });
  role = h.startWorker({ channels: channels() });
});
afterAll(async () => {
  await h?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});
beforeEach(() => Promise.all([a.control('POST', '/reset'), b.control('POST', '/reset')]));
afterEach(async () => {
  expect(await findLedgerMismatches(h.database.db)).toEqual([]);
});

const settled = (id: string) =>
  waitFor(
    async () => {
      const row = await getTask(h.database.db, id);
      return row && (row.status === 'succeeded' || row.status === 'failed') ? row : null;
    },
    { what: `task ${id} to finish`, timeoutMs: 20_000 },
  );
const submitted = async (sim: Sim) => (await sim.stats()).video.submitted as number;

describe('video submit across channels', () => {
  it.each([
    [429, 'Throttling.RateQuota'],
    [503, 'ServiceUnavailable'],
  ])(
    'a %i on the first channel moves the submit to the second, where the task stays',
    async (status, code) => {
      await a.fault({ api: 'video.submit', status, code, count: 1 });
      const row = await settled(await h.createTask());
      expect(row.status).toBe('succeeded');
      expect(row.upstreamChannel).toBe('b');
      expect({ a: await submitted(a), b: await submitted(b) }).toEqual({ a: 0, b: 1 });
      // every poll went to b: a never saw a query for it
      expect((await a.stats()).video.queried).toBe(0);
      expect((await b.stats()).video.queried).toBeGreaterThan(0);
    },
  );

  it('never fails over a submit whose outcome is unknown (timeout): the task fails, nothing is sent twice', async () => {
    await a.fault({ api: 'video.submit', latencyMs: 3_000, count: 1 });
    const row = await settled(await h.createTask());
    expect(row.status).toBe('failed');
    expect(row.errorCode).toBe('upstream_submit_uncertain');
    expect(await submitted(b)).toBe(0);
  });

  it('with both channels down, waits and submits once one comes back', async () => {
    await a.fault({ api: 'video.submit', outage: true });
    await b.fault({ api: 'video.submit', outage: true });
    const id = await h.createTask();
    await waitFor(async () => ((await h.queue.getJob(id))?.data.upstreamRetries ?? 0) >= 1, {
      what: 'a retry after both channels failed',
    });
    expect((await getTask(h.database.db, id))?.status).toBe('processing');
    await b.control('DELETE', '/faults');
    const row = await settled(id);
    expect(row.status).toBe('succeeded');
    expect(row.upstreamChannel).toBe('b');
    expect({ a: await submitted(a), b: await submitted(b) }).toEqual({ a: 0, b: 1 });
  });

  it("waits for a channel's own submit limit rather than failing over to the next channel", async () => {
    await role.close();
    role = h.startWorker({ channels: channels(), env: { UPSTREAM_SUBMIT_RPS: '1' } });
    const rows = await Promise.all(
      [h.createTask(), h.createTask(), h.createTask()].map(async (id) => settled(await id)),
    );
    expect(rows.map((r) => [r.status, r.upstreamChannel])).toEqual([
      ['succeeded', 'a'],
      ['succeeded', 'a'],
      ['succeeded', 'a'],
    ]);
    expect({ a: await submitted(a), b: await submitted(b) }).toEqual({ a: 3, b: 0 });
  });
});
