import {
  ARK_PATH,
  CONTROL_TOKEN,
  call,
  control,
  EDIT_PATH,
  queryVideo,
  type RunningSim,
  startSim,
  submitVideo,
} from './helpers';

const ark = (sim: RunningSim) =>
  call(sim.base, 'POST', ARK_PATH, { body: { model: 'doubao-seedream-3-0-t2i-250415', prompt: 'p' } });
const edit = (sim: RunningSim) =>
  call(sim.base, 'POST', EDIT_PATH, {
    body: {
      model: 'qwen-image-edit',
      input: { messages: [{ role: 'user', content: [{ image: 'https://e.com/a.png' }, { text: 'x' }] }] },
    },
  });

describe('fault injection', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_VIDEO_PENDING_MS: '60000' });
  });
  afterAll(() => sim.close());
  beforeEach(() => control(sim.base, '/reset'));

  it('fails the next N submissions with the given status and code, then recovers', async () => {
    const added = await control(sim.base, '/faults', {
      api: 'video.submit',
      status: 500,
      code: 'InternalError.Timeout',
      message: 'timed out',
      count: 2,
      retryAfterSeconds: 3,
    });
    expect(added.status).toBe(200);
    expect(added.body.fault).toMatchObject({
      id: expect.any(Number),
      api: 'video.submit',
      count: 2,
      remaining: 2,
      triggered: 0,
    });
    for (let i = 0; i < 2; i++) {
      const res = await submitVideo(sim.base);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        code: 'InternalError.Timeout',
        message: 'timed out',
        request_id: expect.any(String),
      });
      expect(res.headers.get('retry-after')).toBe('3');
    }
    expect((await submitVideo(sim.base)).status).toBe(200);
    expect((await call(sim.base, 'GET', '/_control/faults', { key: CONTROL_TOKEN })).body).toEqual({
      faults: [],
    });
    const stats = await call(sim.base, 'GET', '/_control/stats', { key: CONTROL_TOKEN });
    expect(stats.body.video).toMatchObject({ submitted: 1, rejected: 2 });
  });

  it('answers every request during an outage with a vendor-shaped 503 until cleared', async () => {
    await control(sim.base, '/faults', { api: 'video.query', outage: true });
    await control(sim.base, '/faults', { api: 'ark_images', outage: true });
    const id = (await submitVideo(sim.base)).body.output.task_id;
    for (let i = 0; i < 3; i++) {
      const res = await queryVideo(sim.base, id);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({
        code: 'ServiceUnavailable',
        message: expect.any(String),
        request_id: expect.any(String),
      });
    }
    const arkRes = await ark(sim);
    expect(arkRes.status).toBe(503);
    expect(arkRes.body.error).toMatchObject({ code: 'InternalServiceError', type: 'ServiceUnavailable' });
    expect((await edit(sim)).status).toBe(200);

    const cleared = await call(sim.base, 'DELETE', '/_control/faults?api=video.query', {
      key: CONTROL_TOKEN,
    });
    expect(cleared.body.faults).toHaveLength(1);
    expect((await queryVideo(sim.base, id)).status).toBe(200);
    expect((await ark(sim)).status).toBe(503);
    await call(sim.base, 'DELETE', '/_control/faults', { key: CONTROL_TOKEN });
    expect((await ark(sim)).status).toBe(200);
  });

  it('adds latency without failing', async () => {
    await control(sim.base, '/faults', { api: 'image_edit', latencyMs: 1_500 });
    const start = Date.now();
    const res = await edit(sim);
    expect(res.status).toBe(200);
    expect(Date.now() - start).toBeGreaterThanOrEqual(1_490);
    // another API is not slowed: its answer comes while the slowed one is still waiting
    const slowed = edit(sim).then(() => 'image_edit');
    const other = ark(sim).then((r) => (r.status === 200 ? 'ark' : `ark ${r.status}`));
    expect(await Promise.race([slowed, other])).toBe('ark');
    await slowed;
  });

  it('fails a fraction of requests with rate', async () => {
    await control(sim.base, '/faults', { api: 'ark_images', rate: 1, status: 429, code: 'ServerOverloaded' });
    const res = await ark(sim);
    expect(res.status).toBe(429);
    expect(res.body.error).toMatchObject({ code: 'ServerOverloaded', type: 'TooManyRequests' });
    await call(sim.base, 'DELETE', '/_control/faults', { key: CONTROL_TOKEN });
    await control(sim.base, '/faults', { api: 'ark_images', rate: 0 });
    expect((await ark(sim)).status).toBe(200);
  });

  it('fails roughly `rate` of requests', async () => {
    await control(sim.base, '/faults', { api: 'video.query', rate: 0.5 });
    let failed = 0;
    for (let i = 0; i < 200; i++) if ((await queryVideo(sim.base, 'x')).status === 500) failed += 1;
    expect(failed).toBeGreaterThan(40);
    expect(failed).toBeLessThan(160);
  });

  it('uses vendor defaults for the code of each API', async () => {
    await control(sim.base, '/faults', { api: 'video.cancel', count: 1 });
    await control(sim.base, '/faults', { api: 'image_edit', count: 1, status: 429 });
    await control(sim.base, '/faults', { api: 'ark_images', count: 1 });
    const cancel = await call(sim.base, 'POST', '/api/v1/tasks/x/cancel');
    expect(cancel.status).toBe(500);
    expect(cancel.body.code).toBe('InternalError');
    const e = await edit(sim);
    expect(e.status).toBe(429);
    expect(e.body.code).toBe('Throttling');
    const a = await ark(sim);
    expect(a.status).toBe(500);
    expect(a.body.error).toMatchObject({ code: 'InternalServiceError', type: 'InternalServerError' });
  });

  it('combines faults in order: the first that fires decides, latencies add up', async () => {
    await control(sim.base, '/faults', { api: 'video.submit', latencyMs: 100 });
    await control(sim.base, '/faults', { api: 'video.submit', count: 1, status: 502, latencyMs: 100 });
    const start = Date.now();
    const res = await submitVideo(sim.base);
    expect(res.status).toBe(502);
    expect(Date.now() - start).toBeGreaterThanOrEqual(190);
    const listed = await call(sim.base, 'GET', '/_control/faults', { key: CONTROL_TOKEN });
    expect(listed.body.faults).toEqual([
      expect.objectContaining({ api: 'video.submit', latencyMs: 100, triggered: 0 }),
    ]);
    expect((await submitVideo(sim.base)).status).toBe(200);
  });

  it('counts an injected failure before checking the key', async () => {
    await control(sim.base, '/faults', { api: 'video.submit', outage: true, status: 500 });
    const res = await submitVideo(sim.base, undefined, null);
    expect(res.status).toBe(500);
  });

  it.each([
    [{ api: 'video.nope', count: 1 }],
    [{ api: 'video.submit' }],
    [{ api: 'video.submit', count: 0 }],
    [{ api: 'video.submit', rate: 1.5 }],
    [{ api: 'video.submit', count: 1, status: 200 }],
    [{ api: 'video.submit', count: 1, extra: true }],
  ])('rejects an invalid fault %j with 400', async (body) => {
    const res = await control(sim.base, '/faults', body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_control_request', message: expect.any(String) });
  });
});
