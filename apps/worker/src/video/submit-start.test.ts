import { getTask } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';

let sim: Sim;
let h: WorkerHarness;

beforeAll(async () => {
  sim = await startSim();
  h = await startWorkerHarness(sim);
  // one submit per second, fleet-wide: the tasks below wait for their turn
  h.startWorker({ env: { UPSTREAM_SUBMIT_RPS: '1' } });
});
afterAll(async () => {
  await h?.close();
  await sim?.stop();
});

describe('a task waiting for its turn to submit', () => {
  it('stays pending until its submit is sent, then starts with the submit mark', async () => {
    const ids = await Promise.all([1, 2, 3].map(() => h.createTask()));
    const rows = await Promise.all(
      ids.map((id) =>
        waitFor(
          async () => {
            const row = await getTask(h.database.db, id);
            return row?.status === 'succeeded' ? row : null;
          },
          { what: `task ${id} to succeed`, timeoutMs: 20_000 },
        ),
      ),
    );
    // each was started by the write that marked its submit, never processing while it waited
    for (const row of rows) expect(row.startedAt).toEqual(row.submitStartedAt);
    // and the limit spread the submits over at least two seconds
    const seconds = new Set(rows.map((r) => Math.floor(r.submitStartedAt!.getTime() / 1000)));
    expect(seconds.size).toBeGreaterThanOrEqual(2);
    expect((await sim.stats()).video.submitted).toBe(3);
  });
});
