import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { upstreamQueryKey } from '@mediagate/shared/queue';
import { getTask, markSubmitStarted, recordUpstreamTask, startTask } from '@mediagate/shared/tasks';
import { type RunningSim, startUpstreamSim, submitSimVideo } from '@mediagate/shared/testing';
import { expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosCancel from './videos.cancel';

let sim: RunningSim;
let api: TestApi;
beforeAll(async () => {
  sim = await startUpstreamSim({ SIM_VIDEO_PENDING_MS: '60000', SIM_VIDEO_RUNNING_MS: '60000' });
  api = await startTestApi({ DASHSCOPE_BASE_URL: sim.url });
});
afterAll(async () => {
  await api?.close();
  await sim?.stop();
});
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const create = async (key: string) =>
  ((await (await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).json()) as { id: string }).id;
const cancel = (key: string, id: string) => call(api, 'POST', `/v1/videos/${id}/cancel`, { key });
const balance = async (id: string) => (await getAccount(api.database.db, id))!.balanceMicroUsd;

/** Puts a task where a worker would after submitting it to the simulator. */
async function submitUpstream(id: string): Promise<string> {
  const upstreamId = await submitSimVideo(sim.url);
  await startTask(api.database.db, id);
  await markSubmitStarted(api.database.db, id, 'dashscope-default');
  await recordUpstreamTask(api.database.db, id, upstreamId);
  return upstreamId;
}

describe('POST /v1/videos/:task_id/cancel', () => {
  it('cancels a pending task with a full refund', async () => {
    const { key, accountId } = await api.account(10);
    const before = await balance(accountId);
    const id = await create(key);
    const res = await cancel(key, id);
    expect(await expectContract(res, videosCancel.contract, 200)).toMatchObject({
      id,
      status: 'failed',
      error: { code: 'canceled' },
    });
    expect(await balance(accountId)).toBe(before);
  });

  it('cancels a task pending upstream by asking the upstream first', async () => {
    const { key } = await api.account(10);
    const id = await create(key);
    const upstreamId = await submitUpstream(id);
    const res = await cancel(key, id);
    expect(await expectContract(res, videosCancel.contract, 200)).toMatchObject({
      status: 'failed',
      error: { code: 'canceled' },
    });
    const upstream = await sim.control('GET', `/tasks/${upstreamId}`);
    expect(upstream.status).toBe('CANCELED');
  });

  describe('the query budget the vendor counts a cancel against', () => {
    const slots = () => upstreamQueryKey(api.prefix, 'dashscope-default');
    /** Redis's clock, in microseconds (the slots' clock) */
    const redisNowUs = async () => {
      const [s, us] = await api.redis.time();
      return Number(s) * 1_000_000 + Number(us);
    };
    afterEach(async () => {
      await api.redis.del(slots());
    });

    it('takes a query slot of the task’s channel, after those already taken', async () => {
      const { key } = await api.account(10);
      const id = await create(key);
      await submitUpstream(id);
      // the workers' queries have taken the slots of the next 2.5 s
      const bookedUntil = (await redisNowUs()) + 2_500_000;
      await api.redis.set(slots(), String(bookedUntil), 'PX', 60_000);
      expect((await cancel(key, id)).status).toBe(200);
      // the cancel took the first free slot after them (1 s / (20 x 0.85) long), or, woken late on
      // a busy machine, one of the next two
      const slot = Math.ceil(1_000_000 / 17);
      const next = Number(await api.redis.get(slots()));
      expect(next).toBeGreaterThanOrEqual(bookedUntil + slot);
      expect(next).toBeLessThanOrEqual(bookedUntil + 3 * slot);
    });

    it('answers 429 with the wait when no slot is free within 3 s, and leaves the task running', async () => {
      const { key, accountId } = await api.account(10);
      const before = await balance(accountId);
      const id = await create(key);
      const upstreamId = await submitUpstream(id);
      await api.redis.set(slots(), String((await redisNowUs()) + 10_000_000), 'PX', 60_000);
      const res = await cancel(key, id);
      const err = await expectError(res, 429, 'rate_limit_exceeded');
      expect(err.message).toMatch(/retry the cancel/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(6);
      expect((await getTask(api.database.db, id))?.status).toBe('processing');
      expect((await sim.control('GET', `/tasks/${upstreamId}`)).status).toBe('PENDING');
      expect(await balance(accountId)).toBe(before - (await getTask(api.database.db, id))!.priceMicroUsd);
      // once the slots free up, the same cancel goes through
      await api.redis.del(slots());
      expect((await cancel(key, id)).status).toBe(200);
    });
  });

  it('answers 409 when the upstream is already running the task, and leaves it alone', async () => {
    const { key } = await api.account(10);
    const id = await create(key);
    await sim.control('POST', '/video-timing', { pendingMs: 0, runningMs: 60_000 });
    try {
      await submitUpstream(id);
    } finally {
      await sim.control('POST', '/video-timing', { pendingMs: 60_000, runningMs: 60_000 });
    }
    const err = await expectError(await cancel(key, id), 409, 'conflict');
    expect(err.message).toMatch(/running upstream/);
    expect((await getTask(api.database.db, id))?.status).toBe('processing');
  });

  it('answers 409 while a submit is under way, without cutting it off', async () => {
    const { key } = await api.account(10);
    const id = await create(key);
    await startTask(api.database.db, id);
    await markSubmitStarted(api.database.db, id, 'dashscope-default');
    await expectError(await cancel(key, id), 409, 'conflict');
    expect((await getTask(api.database.db, id))?.status).toBe('processing');
  });

  it('answers 409 for a finished task and 404 for a missing or foreign one', async () => {
    const owner = await api.account(10);
    const other = await api.account(10);
    const id = await create(owner.key);
    expect((await cancel(owner.key, id)).status).toBe(200);
    const err = await expectError(await cancel(owner.key, id), 409, 'conflict');
    expect(err.message).toMatch(/already failed/);
    await expectError(await cancel(other.key, id), 404, 'not_found');
    await expectError(await cancel(owner.key, 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 404, 'not_found');
    await expectError(await cancel(owner.key, 'nope'), 404, 'not_found');
    await expectError(await call(api, 'POST', `/v1/videos/${id}/cancel`), 401, 'invalid_api_key');
  });
});
