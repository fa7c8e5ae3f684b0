import { waitFor } from '@mediagate/shared/testing';
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

describe('DashScope submission rate (Throttling.RateQuota)', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_DASHSCOPE_SUBMIT_RPS: '3', SIM_VIDEO_PENDING_MS: '60000' });
  });
  afterAll(() => sim.close());

  it('allows N submissions per second per key, then answers 429 until the window moves', async () => {
    for (let i = 0; i < 3; i++) expect((await submitVideo(sim.base)).status).toBe(200);
    const throttled = await submitVideo(sim.base);
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({
      code: 'Throttling.RateQuota',
      message: 'Requests rate limit exceeded, please try again later.',
      request_id: expect.any(String),
    });
    // another key has its own budget
    expect((await submitVideo(sim.base, videoBody(), 'sk-other')).status).toBe(200);
    await waitFor(async () => (await submitVideo(sim.base)).status === 200, {
      intervalMs: 100,
      what: 'the window to move',
    });
    const s = await stats(sim);
    expect(s.video.throttled).toBeGreaterThanOrEqual(1);
    expect(s.video.rejected).toBe(s.video.throttled);
    expect(s.video.submitted).toBe(5);
  });

  it('does not count invalid submissions against the rate', async () => {
    await control(sim.base, '/reset');
    for (let i = 0; i < 5; i++)
      expect((await submitVideo(sim.base, videoBody({ parameters: { duration: 3 } }))).status).toBe(400);
    expect((await submitVideo(sim.base)).status).toBe(200);
  });

  it('takes a new limit from the control API', async () => {
    await control(sim.base, '/reset');
    const limits = await control(sim.base, '/limits', { dashscopeSubmitRps: 1 });
    expect(limits.body).toEqual({
      dashscopeSubmitRps: 1,
      dashscopeMaxRunning: 0,
      dashscopeQueryQps: 0,
      arkRpm: 0,
    });
    expect((await submitVideo(sim.base)).status).toBe(200);
    expect((await submitVideo(sim.base)).body.code).toBe('Throttling.RateQuota');
    await control(sim.base, '/limits', { dashscopeSubmitRps: 0 });
    for (let i = 0; i < 10; i++) expect((await submitVideo(sim.base)).status).toBe(200);
  });
});

describe('DashScope running tasks per key and model (Throttling.AllocationQuota)', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_DASHSCOPE_MAX_RUNNING: '2', SIM_VIDEO_PENDING_MS: '60000' });
  });
  afterAll(() => sim.close());

  it('refuses a task over the limit until one finishes or is canceled', async () => {
    const first = (await submitVideo(sim.base)).body.output.task_id;
    expect((await submitVideo(sim.base)).status).toBe(200);
    const over = await submitVideo(sim.base);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      code: 'Throttling.AllocationQuota',
      message: 'Allocated quota exceeded, please increase your quota limit.',
      request_id: expect.any(String),
    });
    // per model and per key
    expect((await submitVideo(sim.base, videoBody({ model: 'wan2.5-i2v-preview' }))).status).toBe(200);
    expect((await submitVideo(sim.base, videoBody(), 'sk-other')).status).toBe(200);
    expect((await stats(sim)).video.running).toBe(4);

    expect((await call(sim.base, 'POST', `/api/v1/tasks/${first}/cancel`)).status).toBe(200);
    expect((await submitVideo(sim.base)).status).toBe(200);
    expect((await submitVideo(sim.base)).status).toBe(429);
  });

  it('frees the slots as tasks finish', async () => {
    await control(sim.base, '/reset');
    await control(sim.base, '/video-timing', { pendingMs: 50, runningMs: 100 });
    const ids = [
      (await submitVideo(sim.base)).body.output.task_id,
      (await submitVideo(sim.base)).body.output.task_id,
    ];
    expect((await submitVideo(sim.base)).status).toBe(429);
    await waitFor(async () => {
      const states = await Promise.all(
        ids.map(async (id) => (await queryVideo(sim.base, id)).body.output.task_status),
      );
      return states.every((s) => s === 'SUCCEEDED');
    });
    expect((await submitVideo(sim.base)).status).toBe(200);
    expect((await stats(sim)).video.running).toBe(1);
  });

  it('counts FAILED tasks as finished too', async () => {
    await control(sim.base, '/reset');
    await control(sim.base, '/video-timing', { pendingMs: 0, runningMs: 50 });
    await control(sim.base, '/video-outcomes', { outcome: 'FAILED', count: 2 });
    const ids = [
      (await submitVideo(sim.base)).body.output.task_id,
      (await submitVideo(sim.base)).body.output.task_id,
    ];
    await waitFor(async () => {
      const states = await Promise.all(
        ids.map(async (id) => (await queryVideo(sim.base, id)).body.output.task_status),
      );
      return states.every((s) => s === 'FAILED');
    });
    expect((await submitVideo(sim.base)).status).toBe(200);
  });
});

describe('planned video outcomes and timing', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_VIDEO_PENDING_MS: '20', SIM_VIDEO_RUNNING_MS: '40' });
  });
  afterAll(() => sim.close());
  beforeEach(() => control(sim.base, '/reset'));

  const finalState = (id: string) =>
    waitFor(async () => {
      const res = await queryVideo(sim.base, id);
      return ['SUCCEEDED', 'FAILED', 'CANCELED'].includes(res.body.output.task_status) ? res.body : null;
    });

  it('ends the next N tasks FAILED with the given code and message, then succeeds again', async () => {
    const planned = await control(sim.base, '/video-outcomes', {
      outcome: 'FAILED',
      code: 'DataInspectionFailed',
      message: 'Output data may contain inappropriate content.',
      count: 2,
    });
    expect(planned.body).toEqual({
      planned: [
        {
          outcome: 'FAILED',
          code: 'DataInspectionFailed',
          message: 'Output data may contain inappropriate content.',
          remaining: 2,
        },
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await submitVideo(sim.base)).body.output.task_id);
    const [a, b, c] = await Promise.all(ids.map(finalState));
    for (const failed of [a, b]) {
      expect(failed.output).toMatchObject({
        task_status: 'FAILED',
        code: 'DataInspectionFailed',
        message: 'Output data may contain inappropriate content.',
        end_time: expect.any(String),
      });
      expect(failed.output.video_url).toBeUndefined();
      expect(failed.usage).toBeUndefined();
    }
    expect(c.output.task_status).toBe('SUCCEEDED');
  });

  it('uses a vendor internal error when FAILED has no code', async () => {
    await control(sim.base, '/video-outcomes', { outcome: 'FAILED' });
    const done = await finalState((await submitVideo(sim.base)).body.output.task_id);
    expect(done.output).toMatchObject({
      task_status: 'FAILED',
      code: 'InternalError',
      message: expect.any(String),
    });
  });

  it('ends a task CANCELED without it ever running', async () => {
    await control(sim.base, '/video-outcomes', { outcome: 'CANCELED', count: 1 });
    const id = (await submitVideo(sim.base)).body.output.task_id;
    const seen = new Set<string>();
    await waitFor(
      async () => {
        const s = (await queryVideo(sim.base, id)).body.output.task_status;
        seen.add(s);
        return s === 'CANCELED';
      },
      { intervalMs: 5 },
    );
    expect(seen.has('RUNNING')).toBe(false);
    expect((await finalState(id)).usage).toBeUndefined();
  });

  it('does not spend planned outcomes on rejected submissions', async () => {
    await control(sim.base, '/video-outcomes', { outcome: 'FAILED', count: 1 });
    expect((await submitVideo(sim.base, videoBody({ parameters: { duration: 6 } }))).status).toBe(400);
    const done = await finalState((await submitVideo(sim.base)).body.output.task_id);
    expect(done.output.task_status).toBe('FAILED');
  });

  it('applies new timing to tasks created afterwards only', async () => {
    await control(sim.base, '/video-timing', { pendingMs: 60_000 });
    const slow = (await submitVideo(sim.base)).body.output.task_id;
    const timing = await control(sim.base, '/video-timing', { pendingMs: 0, runningMs: 0 });
    expect(timing.body).toEqual({ pendingMs: 0, runningMs: 0 });
    const fast = (await submitVideo(sim.base)).body.output.task_id;
    expect((await queryVideo(sim.base, fast)).body.output.task_status).toBe('SUCCEEDED');
    expect((await queryVideo(sim.base, slow)).body.output.task_status).toBe('PENDING');
  });

  it('reset restores the configured timing', async () => {
    await control(sim.base, '/video-timing', { pendingMs: 1, runningMs: 2 });
    await control(sim.base, '/reset');
    expect((await call(sim.base, 'GET', '/_control/video-timing', { key: CONTROL_TOKEN })).body).toEqual({
      pendingMs: 20,
      runningMs: 40,
    });
  });
});
