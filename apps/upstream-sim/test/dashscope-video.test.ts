import { waitFor } from '@mediagate/shared/testing';
import {
  CONTROL_TOKEN,
  call,
  control,
  KEY,
  pngDataUrl,
  queryVideo,
  type RunningSim,
  startSim,
  submitVideo,
  VIDEO_PATH,
  videoBody,
} from './helpers';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VENDOR_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/;

describe('DashScope video create', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_VIDEO_PENDING_MS: '60000' });
  });
  afterAll(() => sim.close());

  it('accepts a valid task and answers PENDING with a task id and request id', async () => {
    const res = await submitVideo(sim.base);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      output: { task_id: expect.stringMatching(UUID), task_status: 'PENDING' },
      request_id: expect.stringMatching(UUID),
    });
  });

  it('answers 401 InvalidApiKey without a key', async () => {
    const res = await submitVideo(sim.base, videoBody(), null);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      code: 'InvalidApiKey',
      message: 'No API-key provided.',
      request_id: expect.any(String),
    });
  });

  it('refuses a synchronous call (no X-DashScope-Async: enable) with 403 AccessDenied', async () => {
    for (const headers of [{}, { 'X-DashScope-Async': 'disable' }] as Record<string, string>[]) {
      const res = await call(sim.base, 'POST', VIDEO_PATH, { body: videoBody(), headers });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        code: 'AccessDenied',
        message: 'current user api does not support synchronous calls',
      });
    }
  });

  it('answers malformed JSON with a flat 400 InvalidParameter', async () => {
    const res = await call(sim.base, 'POST', VIDEO_PATH, {
      body: '{"model":',
      headers: { 'X-DashScope-Async': 'enable' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'InvalidParameter',
      message: expect.any(String),
      request_id: expect.any(String),
    });
  });

  const long = (n: number) => 'x'.repeat(n);
  it.each([
    ['a body that is not an object', [1, 2], 'InvalidParameter'],
    ['no model', { ...videoBody(), model: undefined }, 'InvalidParameter'],
    ['an unknown model', videoBody({ model: 'wan2.6-t2v' }), 'InvalidParameter'],
    ['no input', { model: 'wan2.6-i2v-flash', parameters: {} }, 'InvalidParameter'],
    ['no img_url', videoBody({ input: { img_url: undefined } }), 'InvalidParameter'],
    ['an empty img_url', videoBody({ input: { img_url: '' } }), 'InvalidParameter'],
    ['an ftp img_url', videoBody({ input: { img_url: 'ftp://example.com/a.png' } }), 'InvalidURL'],
    ['a non-URL img_url', videoBody({ input: { img_url: 'cat.png' } }), 'InvalidURL'],
    [
      'a data URL that is not an image',
      videoBody({ input: { img_url: 'data:text/plain;base64,AAAA' } }),
      'InvalidURL',
    ],
    [
      'an image smaller than 360 px',
      videoBody({ input: { img_url: pngDataUrl(300, 800) } }),
      'InvalidParameter',
    ],
    [
      'an image larger than 2000 px',
      videoBody({ input: { img_url: pngDataUrl(2400, 1200) } }),
      'InvalidParameter',
    ],
    ['a prompt that is not a string', videoBody({ input: { prompt: 42 } }), 'InvalidParameter'],
    [
      'a negative_prompt over 500 chars',
      videoBody({ input: { negative_prompt: long(501) } }),
      'InvalidParameter',
    ],
    ['an invalid audio_url', videoBody({ input: { audio_url: 'not-a-url' } }), 'InvalidURL'],
    ['resolution 480P', videoBody({ parameters: { resolution: '480P' } }), 'InvalidParameter'],
    ['resolution in lower case', videoBody({ parameters: { resolution: '720p' } }), 'InvalidParameter'],
    ['duration 7 on wan2.6', videoBody({ parameters: { duration: 7 } }), 'InvalidParameter'],
    ['duration as a string', videoBody({ parameters: { duration: '5' } }), 'InvalidParameter'],
    [
      'duration 15 on wan2.5',
      videoBody({ model: 'wan2.5-i2v-preview', parameters: { duration: 15 } }),
      'InvalidParameter',
    ],
    [
      'a silent wan2.5 video',
      videoBody({ model: 'wan2.5-i2v-preview', parameters: { audio: false } }),
      'InvalidParameter',
    ],
    ['audio that is not a boolean', videoBody({ parameters: { audio: 'yes' } }), 'InvalidParameter'],
    ['watermark that is not a boolean', videoBody({ parameters: { watermark: 'true' } }), 'InvalidParameter'],
    [
      'prompt_extend that is not a boolean',
      videoBody({ parameters: { prompt_extend: 1 } }),
      'InvalidParameter',
    ],
    ['a negative seed', videoBody({ parameters: { seed: -1 } }), 'InvalidParameter'],
    ['a fractional seed', videoBody({ parameters: { seed: 1.5 } }), 'InvalidParameter'],
    ['a seed over 2^31-1', videoBody({ parameters: { seed: 2 ** 31 } }), 'InvalidParameter'],
    ['parameters that are not an object', { ...videoBody(), parameters: 'fast' }, 'InvalidParameter'],
  ])('rejects %s with 400 %s', async (_what, body, code) => {
    const res = await submitVideo(sim.base, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code, message: expect.any(String), request_id: expect.any(String) });
  });

  it.each([
    ['wan2.6 5 s', videoBody({ parameters: { duration: 5 } })],
    ['wan2.6 10 s 1080P', videoBody({ parameters: { duration: 10, resolution: '1080P' } })],
    ['wan2.6 15 s silent', videoBody({ parameters: { duration: 15, audio: false } })],
    ['wan2.5 5 s', videoBody({ model: 'wan2.5-i2v-preview', parameters: { duration: 5 } })],
    [
      'wan2.5 10 s with audio true',
      videoBody({ model: 'wan2.5-i2v-preview', parameters: { duration: 10, audio: true } }),
    ],
    ['no prompt', videoBody({ input: { prompt: undefined } })],
    [
      'no parameters (defaults)',
      { model: 'wan2.6-i2v-flash', input: { img_url: 'https://example.com/a.jpg' } },
    ],
    ['a PNG data URL of 1280x720', videoBody({ input: { img_url: pngDataUrl(1280, 720) } })],
    ['a negative_prompt of exactly 500 chars', videoBody({ input: { negative_prompt: long(500) } })],
    ['all optional fields', videoBody({ parameters: { seed: 0, watermark: false, prompt_extend: true } })],
    ['an audio_url', videoBody({ input: { audio_url: 'https://example.com/a.mp3' } })],
  ])('accepts %s', async (_what, body) => {
    const res = await submitVideo(sim.base, body);
    expect(res.status).toBe(200);
    expect(res.body.output.task_status).toBe('PENDING');
  });

  it('truncates a prompt over 1500 characters silently', async () => {
    const res = await submitVideo(sim.base, videoBody({ input: { prompt: `${'é'.repeat(1499)}XYZ` } }));
    expect(res.status).toBe(200);
    const task = await call(sim.base, 'GET', `/_control/tasks/${res.body.output.task_id}`, {
      key: CONTROL_TOKEN,
    });
    expect(task.body.prompt).toBe(`${'é'.repeat(1499)}X`);
  });

  it('records the parameters it was sent, defaults filled in', async () => {
    const res = await submitVideo(sim.base, {
      model: 'wan2.6-i2v-flash',
      input: { img_url: 'https://example.com/a.jpg' },
    });
    const task = await call(sim.base, 'GET', `/_control/tasks/${res.body.output.task_id}`, {
      key: CONTROL_TOKEN,
    });
    expect(task.body).toMatchObject({
      model: 'wan2.6-i2v-flash',
      status: 'PENDING',
      parameters: { resolution: '1080P', duration: 5, audio: true },
    });
  });
});

describe('DashScope video with a fixed key list', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_API_KEYS: `other, ${KEY}` });
  });
  afterAll(() => sim.close());

  it('accepts listed keys and answers 401 InvalidApiKey to others, on create and query', async () => {
    expect((await submitVideo(sim.base, videoBody(), KEY)).status).toBe(200);
    expect((await submitVideo(sim.base, videoBody(), 'other')).status).toBe(200);
    const bad = await submitVideo(sim.base, videoBody(), 'sk-wrong');
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ code: 'InvalidApiKey', message: 'Invalid API-key provided.' });
    const query = await call(sim.base, 'GET', '/api/v1/tasks/x', { key: 'sk-wrong' });
    expect(query.status).toBe(401);
    expect(query.body.code).toBe('InvalidApiKey');
  });
});

describe('DashScope video query', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_VIDEO_PENDING_MS: '150', SIM_VIDEO_RUNNING_MS: '150' });
  });
  afterAll(() => sim.close());

  it('moves PENDING -> RUNNING -> SUCCEEDED by elapsed time, with vendor fields at each step', async () => {
    const created = await submitVideo(sim.base);
    const id = created.body.output.task_id;
    const seen = new Set<string>();
    const done = await waitFor(
      async () => {
        const res = await queryVideo(sim.base, id);
        expect(res.status).toBe(200);
        const out = res.body.output;
        seen.add(out.task_status);
        if (out.task_status === 'PENDING')
          expect(Object.keys(out).sort()).toEqual(['submit_time', 'task_id', 'task_status']);
        if (out.task_status === 'RUNNING') {
          expect(out.scheduled_time).toMatch(VENDOR_TIME);
          expect(out.end_time).toBeUndefined();
          expect(res.body.usage).toBeUndefined();
        }
        return out.task_status === 'SUCCEEDED' ? res : null;
      },
      { intervalMs: 20, what: 'the task to succeed' },
    );
    expect([...seen]).toEqual(expect.arrayContaining(['PENDING', 'RUNNING', 'SUCCEEDED']));
    expect(done.body).toEqual({
      request_id: expect.stringMatching(UUID),
      output: {
        task_id: id,
        task_status: 'SUCCEEDED',
        submit_time: expect.stringMatching(VENDOR_TIME),
        scheduled_time: expect.stringMatching(VENDOR_TIME),
        end_time: expect.stringMatching(VENDOR_TIME),
        orig_prompt: 'a cat on a skateboard',
        video_url: `${sim.base}/media/videos/${id}.mp4`,
      },
      usage: {
        duration: 5,
        input_video_duration: 0,
        output_video_duration: 5,
        video_count: 1,
        SR: '720',
        size: '1280*720',
        audio: true,
      },
    });
  });

  it('reports 1080P, the duration and a silent video in usage', async () => {
    const created = await submitVideo(
      sim.base,
      videoBody({ parameters: { resolution: '1080P', duration: 10, audio: false } }),
    );
    const id = created.body.output.task_id;
    const done = await waitFor(async () => {
      const res = await queryVideo(sim.base, id);
      return res.body.output.task_status === 'SUCCEEDED' ? res : null;
    });
    expect(done.body.usage).toMatchObject({ duration: 10, SR: '1080', size: '1920*1080', audio: false });
    expect(Number(done.body.usage.SR)).toBe(1080);
  });

  it('reports a shorter duration in usage when told to (control video-usage)', async () => {
    expect((await control(sim.base, '/video-usage', { reportedDuration: 3 })).body).toEqual({
      reportedDuration: 3,
    });
    const created = await submitVideo(
      sim.base,
      videoBody({ parameters: { resolution: '720P', duration: 5 } }),
    );
    const id = created.body.output.task_id;
    const done = await waitFor(async () => {
      const res = await queryVideo(sim.base, id);
      return res.body.output.task_status === 'SUCCEEDED' ? res : null;
    });
    expect(done.body.usage).toMatchObject({ duration: 3, output_video_duration: 3 });
    expect((await control(sim.base, '/video-usage', { reportedDuration: -1 })).status).toBe(400);
    await control(sim.base, '/video-usage', { reportedDuration: null });
  });

  it('answers 200 UNKNOWN for an id it never issued', async () => {
    const res = await queryVideo(sim.base, 'no-such-task');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      request_id: expect.any(String),
      output: { task_id: 'no-such-task', task_status: 'UNKNOWN' },
    });
  });

  it('needs a key', async () => {
    const res = await call(sim.base, 'GET', '/api/v1/tasks/abc', { key: null });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('InvalidApiKey');
  });
});

describe('DashScope video retention and public URL', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({
      SIM_TASK_TTL_MS: '300',
      SIM_VIDEO_PENDING_MS: '0',
      SIM_VIDEO_RUNNING_MS: '0',
      SIM_PUBLIC_URL: 'https://cdn.example.test/sim/',
    });
  });
  afterAll(() => sim.close());

  it('uses SIM_PUBLIC_URL in video URLs', async () => {
    const id = (await submitVideo(sim.base)).body.output.task_id;
    const res = await queryVideo(sim.base, id);
    expect(res.body.output.video_url).toBe(`https://cdn.example.test/sim/media/videos/${id}.mp4`);
  });

  it('answers UNKNOWN once a task is older than the retention, and forgets it', async () => {
    const id = (await submitVideo(sim.base)).body.output.task_id;
    expect((await queryVideo(sim.base, id)).body.output.task_status).toBe('SUCCEEDED');
    await waitFor(async () => (await queryVideo(sim.base, id)).body.output.task_status === 'UNKNOWN', {
      what: 'the task to expire',
    });
    await submitVideo(sim.base);
    expect(sim.state.tasks.size).toBe(1);
  });
});

describe('DashScope video cancel', () => {
  let sim: RunningSim;
  beforeAll(async () => {
    sim = await startSim({ SIM_VIDEO_PENDING_MS: '60000' });
  });
  afterAll(() => sim.close());

  it('cancels a PENDING task, which then reads CANCELED without usage', async () => {
    const id = (await submitVideo(sim.base)).body.output.task_id;
    const res = await call(sim.base, 'POST', `/api/v1/tasks/${id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ request_id: expect.stringMatching(UUID) });
    const after = await queryVideo(sim.base, id);
    expect(after.body.output).toMatchObject({
      task_id: id,
      task_status: 'CANCELED',
      end_time: expect.any(String),
    });
    expect(after.body.output.video_url).toBeUndefined();
    expect(after.body.usage).toBeUndefined();
    expect((await call(sim.base, 'GET', '/_control/stats', { key: CONTROL_TOKEN })).body.video.canceled).toBe(
      1,
    );
  });

  it('refuses to cancel a task that is not PENDING, or unknown, with 400 UnsupportedOperation', async () => {
    const id = (await submitVideo(sim.base)).body.output.task_id;
    expect((await call(sim.base, 'POST', `/api/v1/tasks/${id}/cancel`)).status).toBe(200);
    await control(sim.base, '/video-timing', { pendingMs: 0, runningMs: 60_000 });
    const running = (await submitVideo(sim.base)).body.output.task_id;
    for (const target of [id, running, 'no-such-task']) {
      const res = await call(sim.base, 'POST', `/api/v1/tasks/${target}/cancel`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        code: 'UnsupportedOperation',
        message: 'Failed to cancel the task, please confirm if the task is in PENDING status.',
        request_id: expect.any(String),
      });
    }
    expect((await queryVideo(sim.base, running)).body.output.task_status).toBe('RUNNING');
  });
});
