import { spawnSync } from 'node:child_process';
import { waitFor } from '@mediagate/shared/testing';
import { ENTRIES, loseQueueData, type Stack, startStack, VIDEO_REQUEST } from './stack';

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  key = stack.newKey(50);
});
afterAll(() => stack?.stop());
beforeEach(async () => {
  await stack.sim('POST', '/reset');
});

const create = async () => {
  const res = await stack.api('POST', '/v1/videos', key, VIDEO_REQUEST);
  expect(res.status).toBe(200);
  return res.body.id as string;
};
const poll = (id: string) => stack.api('GET', `/v1/videos/${id}`, key).then((r) => r.body);
const finished = (id: string, timeoutMs = 30_000) =>
  waitFor(
    async () => {
      const t = await poll(id);
      return t.status === 'succeeded' || t.status === 'failed' ? t : null;
    },
    { what: `task ${id} to finish`, timeoutMs, intervalMs: 50 },
  );
const upstreamIdOf = async (id: string) =>
  (await stack.pool.query('select upstream_task_id from tasks where id = $1', [id])).rows[0]
    ?.upstream_task_id as string | null;

describe('video tasks end to end (real processes)', () => {
  it('moves pending → processing → succeeded, as seen by a polling client', async () => {
    await stack.sim('POST', '/video-timing', { pendingMs: 300, runningMs: 600 });
    const id = await create();
    const seen = new Set<string>();
    const done = await waitFor(
      async () => {
        const t = await poll(id);
        seen.add(t.status);
        return t.status === 'succeeded' || t.status === 'failed' ? t : null;
      },
      { intervalMs: 20, timeoutMs: 30_000 },
    );
    expect(done).toMatchObject({ status: 'succeeded', progress: 100 });
    // a link of the gateway's own (signed, no key needed), never the vendor's short-lived one
    expect(done.video_url).toMatch(new RegExp(`^${stack.apiUrl}/media/${id}/video\\.mp4\\?exp=\\d+&sig=`));
    expect(done.completed_at).toEqual(expect.any(Number));
    expect([...seen]).toEqual(expect.arrayContaining(['processing', 'succeeded']));
    const video = await fetch(done.video_url);
    expect(video.status).toBe(200);
    expect(
      Buffer.from(await video.arrayBuffer())
        .subarray(4, 8)
        .toString(),
    ).toBe('ftyp');
  });

  it('ends failed with the upstream code when the upstream task fails', async () => {
    await stack.sim('POST', '/video-outcomes', {
      outcome: 'FAILED',
      code: 'IPInfringementSuspect',
      message: 'Input data is suspected of being involved in IP infringement.',
      count: 1,
    });
    const t = await finished(await create());
    expect(t.status).toBe('failed');
    expect(t.error).toEqual({
      code: 'IPInfringementSuspect',
      message: expect.stringContaining('infringement'),
    });
    expect(t).not.toHaveProperty('video_url');
  });

  it('survives a worker killed with SIGKILL while polling: a new worker finishes the task, one submission', async () => {
    await stack.sim('POST', '/video-timing', { pendingMs: 1_000, runningMs: 3_000 });
    const id = await create();
    await waitFor(() => upstreamIdOf(id), { what: 'the upstream id to be stored' });
    const [victim] = stack.workers;
    await victim!.stop('SIGKILL');
    await stack.addWorker();
    const t = await finished(id);
    expect(t.status).toBe('succeeded');
    expect((await stack.sim('GET', '/stats')).video.submitted).toBe(1);
  });

  it('loses no task when Redis loses the queues mid-run: the reconciler enqueues them again', async () => {
    await stack.sim('POST', '/video-timing', { pendingMs: 500, runningMs: 1_500 });
    const ids = await Promise.all(Array.from({ length: 8 }, create));
    await waitFor(async () => (await Promise.all(ids.map(upstreamIdOf))).every(Boolean), {
      what: 'all submitted',
    });
    expect(await loseQueueData(stack)).toBeGreaterThan(0);
    const tasks = await Promise.all(ids.map((id) => finished(id)));
    expect(tasks.map((t) => t.status)).toEqual(ids.map(() => 'succeeded'));
    expect((await stack.sim('GET', '/stats')).video.submitted).toBe(8);
  });

  it('keeps the books: balance equals the sum of the ledger', async () => {
    const { rows } = await stack.pool.query(`
      select a.id from accounts a left join ledger_entries l on l.account_id = a.id
      group by a.id having a.balance_micro_usd <> coalesce(sum(l.amount_micro_usd), 0)`);
    expect(rows).toEqual([]);
  });
});

describe('process lifecycle', () => {
  it('a worker stops cleanly on SIGTERM', async () => {
    const w = await stack.addWorker();
    expect(await w.stop('SIGTERM')).toBe(0);
    expect(w.output()).toMatch(/shut down cleanly/);
  });

  it.each([
    ['api', ENTRIES.api, { PORT: 'eighty' }, 'PORT'],
    ['worker', ENTRIES.worker, { VIDEO_CONCURRENCY: '0' }, 'VIDEO_CONCURRENCY'],
    ['worker role', ENTRIES.worker, { WORKER_ROLE: 'painter' }, 'WORKER_ROLE'],
    ['api database', ENTRIES.api, { DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
  ])('the %s refuses to start on a wrong variable and names it', (_n, entry, env, name) => {
    const r = spawnSync(process.execPath, [entry], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(name);
  });
});
