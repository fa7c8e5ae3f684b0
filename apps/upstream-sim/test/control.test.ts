import {
  ARK_PATH,
  CONTROL_TOKEN,
  call,
  control,
  queryVideo,
  type RunningSim,
  startSim,
  submitVideo,
  videoBody,
} from './helpers';

const get = (sim: RunningSim, path: string) =>
  call(sim.base, 'GET', `/_control${path}`, { key: CONTROL_TOKEN });

describe('control API', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({
      SIM_VIDEO_PENDING_MS: '60000',
      SIM_DASHSCOPE_SUBMIT_RPS: '50',
      SIM_ARK_RPM: '100',
    });
  });
  afterAll(() => sim.close());

  it('counts every API in /stats', async () => {
    await control(sim.base, '/reset');
    const id = (await submitVideo(sim.base)).body.output.task_id;
    await submitVideo(sim.base);
    await submitVideo(sim.base, videoBody({ parameters: { duration: 4 } }));
    await queryVideo(sim.base, id);
    await queryVideo(sim.base, 'unknown');
    await call(sim.base, 'POST', `/api/v1/tasks/${id}/cancel`);
    await call(sim.base, 'POST', ARK_PATH, {
      body: {
        model: 'doubao-seedream-4-0-250828',
        prompt: 'p',
        size: '1K',
        sequential_image_generation: 'auto',
        sequential_image_generation_options: { max_images: 3 },
      },
    });
    await call(sim.base, 'POST', ARK_PATH, { body: { prompt: 'p' } });
    const stats = await get(sim, '/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({
      video: {
        submitted: 2,
        rejected: 1,
        throttled: 0,
        queried: 2,
        listed: 0,
        query_throttled: 0,
        canceled: 1,
        running: 1,
        by_key: {
          '…m-test': { queried: 2, listed: 0, throttled: 0, foreign: 0, peak_qps: expect.any(Number) },
        },
      },
      image_edit: { calls: 0, images: 0, rejected: 0 },
      ark_images: { calls: 1, images: 3, failed_items: 0, rejected: 1 },
    });
  });

  it('reset clears counters, tasks, faults, plans and settings', async () => {
    const id = (await submitVideo(sim.base)).body.output.task_id;
    await control(sim.base, '/faults', { api: 'ark_images', outage: true });
    await control(sim.base, '/video-outcomes', { outcome: 'FAILED', count: 3 });
    await control(sim.base, '/ark-item-failures', { count: 2 });
    await control(sim.base, '/limits', { dashscopeSubmitRps: 1, dashscopeMaxRunning: 1, arkRpm: 1 });
    await control(sim.base, '/video-timing', { pendingMs: 1 });

    const reset = await control(sim.base, '/reset');
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ ok: true });
    expect((await queryVideo(sim.base, id)).body.output.task_status).toBe('UNKNOWN');
    expect((await get(sim, '/stats')).body.video).toEqual({
      submitted: 0,
      rejected: 0,
      throttled: 0,
      queried: 1,
      listed: 0,
      query_throttled: 0,
      canceled: 0,
      running: 0,
      by_key: { '…m-test': { queried: 1, listed: 0, throttled: 0, foreign: 0, peak_qps: 1 } },
    });
    expect((await get(sim, '/faults')).body).toEqual({ faults: [] });
    expect((await get(sim, '/video-outcomes')).body).toEqual({ planned: [] });
    expect((await get(sim, '/ark-item-failures')).body).toEqual({ pending: 0 });
    expect((await get(sim, '/limits')).body).toEqual({
      dashscopeSubmitRps: 50,
      dashscopeMaxRunning: 0,
      dashscopeQueryQps: 0,
      arkRpm: 100,
    });
    expect((await get(sim, '/video-timing')).body).toEqual({ pendingMs: 60000, runningMs: 5000 });
    expect(sim.state.tasks.size).toBe(0);
  });

  it('changes one limit at a time and reports all of them', async () => {
    await control(sim.base, '/reset');
    const res = await control(sim.base, '/limits', { dashscopeMaxRunning: 1 });
    expect(res.body).toEqual({
      dashscopeSubmitRps: 50,
      dashscopeMaxRunning: 1,
      dashscopeQueryQps: 0,
      arkRpm: 100,
    });
    expect((await submitVideo(sim.base)).status).toBe(200);
    expect((await submitVideo(sim.base)).body.code).toBe('Throttling.AllocationQuota');
    expect((await control(sim.base, '/limits', { arkRpm: -1 })).status).toBe(400);
  });

  it('queues outcome plans in order and can drop them', async () => {
    await control(sim.base, '/reset');
    await control(sim.base, '/video-outcomes', { outcome: 'FAILED', count: 1 });
    const both = await control(sim.base, '/video-outcomes', {
      outcome: 'CANCELED',
      code: 'Canceled',
      count: 2,
    });
    expect(both.body.planned).toEqual([
      { outcome: 'FAILED', remaining: 1 },
      { outcome: 'CANCELED', code: 'Canceled', remaining: 2 },
    ]);
    await submitVideo(sim.base);
    expect((await get(sim, '/video-outcomes')).body.planned).toEqual([
      { outcome: 'CANCELED', code: 'Canceled', remaining: 2 },
    ]);
    const dropped = await call(sim.base, 'DELETE', '/_control/video-outcomes', { key: CONTROL_TOKEN });
    expect(dropped.body).toEqual({ planned: [] });
    expect((await control(sim.base, '/video-outcomes', { outcome: 'SUCCEEDED' })).status).toBe(400);
  });

  it('shows a task as the sim sees it', async () => {
    await control(sim.base, '/reset');
    const id = (await submitVideo(sim.base, videoBody({ parameters: { seed: 9, watermark: false } }))).body
      .output.task_id;
    const res = await get(sim, `/tasks/${id}`);
    expect(res.body).toEqual({
      task_id: id,
      model: 'wan2.6-i2v-flash',
      status: 'PENDING',
      outcome: 'SUCCEEDED',
      prompt: 'a cat on a skateboard',
      parameters: { resolution: '720P', duration: 5, audio: true, seed: 9, watermark: false },
      submitted_at: expect.any(String),
      scheduled_at: expect.any(String),
      ends_at: expect.any(String),
      end_answered_at: null,
    });
    const missing = await get(sim, '/tasks/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('shows when a task query first answered that a task ended', async () => {
    await control(sim.base, '/reset');
    await control(sim.base, '/video-timing', { pendingMs: 0, runningMs: 1 });
    try {
      const id = (await submitVideo(sim.base)).body.output.task_id;
      const { ends_at } = (await get(sim, `/tasks/${id}`)).body;
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(ends_at) - Date.now() + 5)));
      const before = Date.now();
      expect((await queryVideo(sim.base, id)).body.output.task_status).toBe('SUCCEEDED');
      const first = Date.parse((await get(sim, `/tasks/${id}`)).body.end_answered_at);
      expect(first).toBeGreaterThanOrEqual(before - 1);
      await queryVideo(sim.base, id);
      expect(Date.parse((await get(sim, `/tasks/${id}`)).body.end_answered_at)).toBe(first);
    } finally {
      await control(sim.base, '/video-timing', { pendingMs: 60000, runningMs: 5000 });
    }
  });

  it('validates bodies and answers malformed JSON with 400', async () => {
    expect((await control(sim.base, '/video-timing', { pendingMs: -1 })).status).toBe(400);
    expect((await control(sim.base, '/ark-item-failures', {})).status).toBe(400);
    const bad = await call(sim.base, 'POST', '/_control/faults', { body: '{', key: CONTROL_TOKEN });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_control_request');
  });
});
