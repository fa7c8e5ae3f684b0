import { waitFor } from '@mediagate/shared/testing';
import { drawRunningMs, simEnvSchema, timingFromConfig } from '../src/config';
import {
  CONTROL_TOKEN,
  call,
  control,
  queryVideo,
  type RunningSim,
  startSim,
  submitVideo,
  videoBody,
} from './helpers';

const stats = async (sim: RunningSim) =>
  (await call(sim.base, 'GET', '/_control/stats', { key: CONTROL_TOKEN })).body;
const list = (sim: RunningSim, query: string, key?: string | null) =>
  call(sim.base, 'GET', `/api/v1/tasks/${query}`, key === undefined ? {} : { key });

/** `ms` as the list API's YYYYMMDDhhmmss, in UTC+8 as the vendor's other times */
const listTime = (ms: number) =>
  new Date(ms + 8 * 3_600_000).toISOString().slice(0, 19).replace(/[-T:]/g, '');

describe('running time drawn per task', () => {
  it('reads one duration or a range from SIM_VIDEO_RUNNING_MS', () => {
    expect(timingFromConfig(simEnvSchema.parse({ SIM_VIDEO_RUNNING_MS: '7000' }))).toEqual({
      pendingMs: 2000,
      runningMs: 7000,
    });
    expect(timingFromConfig(simEnvSchema.parse({ SIM_VIDEO_RUNNING_MS: '30000-180000' }))).toEqual({
      pendingMs: 2000,
      runningMs: 30000,
      runningMaxMs: 180000,
    });
    for (const bad of ['abc', '5-3', '-5', '1-2-3', '']) {
      expect(simEnvSchema.safeParse({ SIM_VIDEO_RUNNING_MS: bad }).success).toBe(false);
    }
  });

  it('draws uniformly within the range, bounds included', () => {
    const timing = { pendingMs: 0, runningMs: 100, runningMaxMs: 200 };
    expect(drawRunningMs(timing, () => 0)).toBe(100);
    expect(drawRunningMs(timing, () => 0.999999)).toBe(200);
    const draws = Array.from({ length: 2000 }, () => drawRunningMs(timing));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...draws)).toBeLessThanOrEqual(200);
    // both halves of the range are used
    expect(draws.filter((d) => d < 150).length).toBeGreaterThan(700);
    expect(draws.filter((d) => d > 150).length).toBeGreaterThan(700);
    expect(drawRunningMs({ pendingMs: 0, runningMs: 300 })).toBe(300);
  });

  it('gives tasks different end times, and the control API sets or clears the range', async () => {
    const sim = await startSim({ SIM_VIDEO_PENDING_MS: '0', SIM_VIDEO_RUNNING_MS: '1000-600000' });
    try {
      for (let i = 0; i < 20; i++) await submitVideo(sim.base);
      const runs = new Set([...sim.state.tasks.all(Date.now())].map((t) => t.endsAt - t.scheduledAt));
      expect(runs.size).toBeGreaterThan(10);
      expect((await control(sim.base, '/video-timing', { runningMaxMs: null })).body).toEqual({
        pendingMs: 0,
        runningMs: 1000,
      });
      expect((await control(sim.base, '/video-timing', { runningMs: 500, runningMaxMs: 400 })).status).toBe(
        400,
      );
    } finally {
      await sim.close();
    }
  });
});

describe('task query rate (Throttling.RateQuota)', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_DASHSCOPE_QUERY_QPS: '4', SIM_VIDEO_PENDING_MS: '60000' });
  });
  afterAll(() => sim.close());

  it('counts queries, lists and cancels against one budget per key, then answers 429', async () => {
    const id = (await submitVideo(sim.base)).body.output.task_id;
    expect((await queryVideo(sim.base, id)).status).toBe(200);
    expect((await list(sim, '')).status).toBe(200);
    expect((await call(sim.base, 'POST', `/api/v1/tasks/${id}/cancel`)).status).toBe(200);
    expect((await queryVideo(sim.base, id)).status).toBe(200);
    const over = await queryVideo(sim.base, id);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      code: 'Throttling.RateQuota',
      message: 'Requests rate limit exceeded, please try again later.',
      request_id: expect.any(String),
    });
    expect((await list(sim, '')).status).toBe(429);
    // another key has its own budget
    expect((await list(sim, '', 'sk-other')).status).toBe(200);
    expect((await stats(sim)).video.query_throttled).toBeGreaterThanOrEqual(2);
    await waitFor(async () => (await queryVideo(sim.base, id)).status === 200, {
      intervalMs: 100,
      what: 'the window to move',
    });
  });

  it("reports each key's queries, lists, refusals, queries of other keys' tasks and busiest second, by the key's last six characters", async () => {
    await call(sim.base, 'POST', '/_control/reset', { key: CONTROL_TOKEN });
    const mine = (await submitVideo(sim.base, videoBody(), 'sk-sim-key-aaaaaa')).body.output.task_id;
    const theirs = (await submitVideo(sim.base, videoBody(), 'sk-sim-key-bbbbbb')).body.output.task_id;
    const query = (id: string, key: string) => call(sim.base, 'GET', `/api/v1/tasks/${id}`, { key });
    expect((await query(mine, 'sk-sim-key-aaaaaa')).status).toBe(200);
    expect((await query(theirs, 'sk-sim-key-aaaaaa')).status).toBe(200);
    expect((await list(sim, '', 'sk-sim-key-aaaaaa')).status).toBe(200);
    expect((await query(theirs, 'sk-sim-key-bbbbbb')).status).toBe(200);
    const byKey = (await stats(sim)).video.by_key;
    expect(Object.keys(byKey).sort()).toEqual(['…aaaaaa', '…bbbbbb']);
    expect(byKey['…aaaaaa']).toMatchObject({ queried: 2, listed: 1, throttled: 0, foreign: 1 });
    expect(byKey['…aaaaaa'].peak_qps).toBeGreaterThanOrEqual(1);
    expect(byKey['…bbbbbb']).toMatchObject({ queried: 1, listed: 0, foreign: 0 });
    await call(sim.base, 'POST', '/_control/reset', { key: CONTROL_TOKEN });
    expect((await stats(sim)).video.by_key).toEqual({});
  });

  it('is off at 0 and changes through the control API', async () => {
    await control(sim.base, '/limits', { dashscopeQueryQps: 0 });
    for (let i = 0; i < 30; i++) expect((await list(sim, '')).status).toBe(200);
    await control(sim.base, '/limits', { dashscopeQueryQps: 1 });
    expect((await list(sim, '')).status).toBe(200);
    expect((await list(sim, '')).status).toBe(429);
  });
});

describe('batch task query GET /api/v1/tasks/', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_VIDEO_PENDING_MS: '0', SIM_VIDEO_RUNNING_MS: '1' });
  });
  afterAll(() => sim.close());

  it('lists the key’s tasks newest first, by page, with the vendor’s fields', async () => {
    await control(sim.base, '/reset');
    await control(sim.base, '/video-outcomes', { outcome: 'FAILED', count: 1 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await submitVideo(sim.base)).body.output.task_id);
    await submitVideo(sim.base, videoBody(), 'sk-other');
    await waitFor(async () => (await queryVideo(sim.base, ids[4]!)).body.output.task_status === 'SUCCEEDED');

    const page1 = await list(sim, '?page_size=2');
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ total: 5, total_page: 3, page_no: 1, page_size: 2 });
    expect(page1.body.request_id).toEqual(expect.any(String));
    expect(page1.body.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[4], ids[3]]);
    expect(page1.body.data[0]).toEqual({
      api_key_id: expect.any(String),
      caller_parent_id: expect.any(String),
      caller_uid: expect.any(String),
      gmt_create: expect.any(Number),
      start_time: expect.any(Number),
      end_time: expect.any(Number),
      model_name: 'wan2.6-i2v-flash',
      region: expect.any(String),
      request_id: expect.any(String),
      status: 'SUCCEEDED',
      task_id: ids[4],
      user_api_unique_key: expect.stringContaining('wan2.6-i2v-flash'),
    });
    const page3 = await list(sim, '?page_size=2&page_no=3');
    expect(page3.body.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[0]]);
    expect((await list(sim, '?page_size=2&page_no=9')).body.data).toEqual([]);

    const failed = await list(sim, '?status=FAILED');
    expect(failed.body.data.map((t: { task_id: string }) => t.task_id)).toEqual([ids[0]]);
    expect((await list(sim, '?status=RUNNING')).body).toMatchObject({ total: 0, data: [] });
    expect(
      (await list(sim, `?task_id=${ids[2]}`)).body.data.map((t: { task_id: string }) => t.task_id),
    ).toEqual([ids[2]]);
    expect((await list(sim, '?model_name=wan2.5-i2v-preview')).body.total).toBe(0);
    expect((await list(sim, '?page_size=100')).body.data).toHaveLength(5);
  });

  it('filters on the creation time window, at most 24 hours wide', async () => {
    const now = Date.now();
    const before = await list(sim, `?end_time=${listTime(now - 60_000)}`);
    expect(before.body.total).toBe(0);
    const around = await list(sim, `?start_time=${listTime(now - 60_000)}&end_time=${listTime(now)}`);
    expect(around.body.total).toBe(5);
    const after = await list(sim, `?start_time=${listTime(now + 60_000)}`);
    expect(after.body.total).toBe(0);
    const wide = await list(sim, `?start_time=${listTime(now - 25 * 3_600_000)}&end_time=${listTime(now)}`);
    expect(wide.status).toBe(400);
    expect(wide.body.code).toBe('InvalidParameter');
  });

  it('refuses malformed parameters with InvalidParameter', async () => {
    for (const q of [
      '?start_time=2024-01-01',
      '?end_time=20241301000000',
      '?page_no=0',
      '?page_size=x',
      '?status=DONE',
    ]) {
      const res = await list(sim, q);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        code: 'InvalidParameter',
        message: expect.any(String),
        request_id: expect.any(String),
      });
    }
    expect((await list(sim, '', null)).status).toBe(401);
  });
});
