import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { getTask } from '@mediagate/shared/tasks';
import { expectContract } from '../../test/contract';
import { call, expectError, IMG, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosCreate from './videos.create';

let api: TestApi;
let key: string;
let accountId: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ key, accountId } = await api.account(10));
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const create = (json: unknown, k = key) => call(api, 'POST', '/v1/videos', { key: k, json });

describe('POST /v1/videos (JSON)', () => {
  it('stores the task pending, charges it, enqueues it with the task id as job id', async () => {
    const before = (await getAccount(api.database.db, accountId))!.balanceMicroUsd;
    const res = await create(videoBody({ metadata: { input: { img_url: IMG }, parameters: { seed: 7 } } }));
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const task = (await expectContract(res, videosCreate.contract, 200)) as Record<string, unknown>;
    expect(task).toMatchObject({
      object: 'video',
      model: 'wan2.6-i2v-flash-5s-720p',
      prompt: 'a cat walks across the frame',
      status: 'pending',
      progress: 0,
      completed_at: null,
      metadata: {
        input: { img_url: IMG },
        parameters: { resolution: '720P', duration: 5, audio: true, seed: 7 },
      },
    });
    expect(task.id).toMatch(/^task_[0-9A-Z]{26}$/);
    expect(task.task_id).toBe(task.id);
    expect(typeof task.created_at).toBe('number');
    expect(task).not.toHaveProperty('video_url');
    expect(task).not.toHaveProperty('error');

    const row = await getTask(api.database.db, task.id as string);
    expect(row?.status).toBe('pending');
    expect(row?.priceMicroUsd).toBe(250_000); // 5 s x 0.05 USD with sound at 720P
    const after = (await getAccount(api.database.db, accountId))!.balanceMicroUsd;
    expect(before - after).toBe(250_000);

    const job = await api.videoQueue.getJob(task.id as string);
    expect(job?.data).toMatchObject({ taskId: task.id });
  });

  it('prices silent wan2.6 and 1080p from the catalog', async () => {
    const res = await create(
      videoBody({
        model: 'wan2.6-i2v-flash-10s-1080p',
        metadata: {
          input: { img_url: IMG },
          parameters: { audio: false, resolution: '1080p', duration: 10 },
        },
      }),
    );
    const task = (await expectContract(res, videosCreate.contract, 200)) as {
      id: string;
      metadata: { parameters: Record<string, unknown> };
    };
    expect(task.metadata.parameters).toMatchObject({ resolution: '1080P', duration: 10, audio: false });
    expect((await getTask(api.database.db, task.id))?.priceMicroUsd).toBe(375_000);
  });

  it.each([
    'wan2.6-i2v-flash-5s-720p',
    'wan2.6-i2v-flash-10s-720p',
    'wan2.6-i2v-flash-15s-720p',
    'wan2.6-i2v-flash-5s-1080p',
    'wan2.6-i2v-flash-10s-1080p',
    'wan2.6-i2v-flash-15s-1080p',
    'wan2.5-i2v-flash-5s-720p',
    'wan2.5-i2v-flash-10s-720p',
    'wan2.5-i2v-flash-5s-1080p',
    'wan2.5-i2v-flash-10s-1080p',
  ])('accepts model %s', async (model) => {
    const res = await create(videoBody({ model }));
    expect(res.status).toBe(200);
  });

  it.each([
    'wan2.5-i2v-flash-15s-720p',
    'wan2.6-i2v-flash-7s-720p',
    'wan2.6-i2v-flash-5s-480p',
    'gpt-image-1',
    'sora-2',
  ])('answers 404 model_not_found for %s', async (model) => {
    const err = await expectError(await create(videoBody({ model })), 404, 'model_not_found');
    expect(err.message).toContain(model);
    expect(err.type).toBe('not_found_error');
  });

  it('answers 402 insufficient_quota and stores nothing when the balance is too low', async () => {
    const poor = await api.account(0.1);
    const err = await expectError(await create(videoBody(), poor.key), 402, 'insufficient_quota');
    expect(err.type).toBe('insufficient_quota');
    const { rows } = await api.database.pool.query(
      'select count(*)::int as n from tasks where account_id = $1',
      [poor.accountId],
    );
    expect(rows[0].n).toBe(0);
    expect((await getAccount(api.database.db, poor.accountId))!.balanceMicroUsd).toBe(100_000);
  });
});

describe('POST /v1/videos validation', () => {
  const cases: Array<[string, unknown, string]> = [
    [
      'a missing prompt',
      { model: 'wan2.6-i2v-flash-5s-720p', metadata: { input: { img_url: IMG } } },
      'prompt',
    ],
    ['an empty prompt', videoBody({ prompt: '   ' }), 'prompt'],
    ['a prompt over 1500 characters', videoBody({ prompt: 'x'.repeat(1501) }), 'prompt'],
    ['a prompt of the wrong type', videoBody({ prompt: 42 }), 'prompt'],
    ['a missing model', { prompt: 'p', metadata: { input: { img_url: IMG } } }, 'model'],
    ['a model of the wrong type', videoBody({ model: 5 }), 'model'],
    ['a missing metadata', { model: 'wan2.6-i2v-flash-5s-720p', prompt: 'p' }, 'metadata'],
    ['metadata of the wrong type', videoBody({ metadata: 'x' }), 'metadata'],
    ['a missing metadata.input', videoBody({ metadata: {} }), 'metadata.input'],
    ['a missing img_url', videoBody({ metadata: { input: {} } }), 'metadata.input.img_url'],
    [
      'an img_url that is not a URL',
      videoBody({ metadata: { input: { img_url: 'cat.png' } } }),
      'metadata.input.img_url',
    ],
    [
      'an ftp img_url',
      videoBody({ metadata: { input: { img_url: 'ftp://example.com/a.png' } } }),
      'metadata.input.img_url',
    ],
    [
      'a data: img_url',
      videoBody({ metadata: { input: { img_url: 'data:image/png;base64,AAAA' } } }),
      'metadata.input.img_url',
    ],
    [
      'an img_url of the wrong type',
      videoBody({ metadata: { input: { img_url: ['a'] } } }),
      'metadata.input.img_url',
    ],
    ['a top-level field other than model, prompt, metadata', videoBody({ seconds: '5' }), 'seconds'],
    ['a top-level size', videoBody({ size: '1280x720' }), 'size'],
    [
      'an unknown metadata field',
      videoBody({ metadata: { input: { img_url: IMG }, foo: 1 } }),
      'metadata.foo',
    ],
    [
      'an unknown input field',
      videoBody({ metadata: { input: { img_url: IMG, bar: 1 } } }),
      'metadata.input.bar',
    ],
    [
      'an unknown parameter',
      videoBody({ metadata: { input: { img_url: IMG }, parameters: { fps: 30 } } }),
      'metadata.parameters.fps',
    ],
    [
      'a duration that contradicts the model',
      videoBody({ metadata: { input: { img_url: IMG }, parameters: { duration: 10 } } }),
      'metadata.parameters.duration',
    ],
    [
      'a resolution that contradicts the model',
      videoBody({ metadata: { input: { img_url: IMG }, parameters: { resolution: '1080P' } } }),
      'metadata.parameters.resolution',
    ],
    [
      'an unknown resolution',
      videoBody({ metadata: { input: { img_url: IMG }, parameters: { resolution: '4K' } } }),
      'metadata.parameters.resolution',
    ],
    [
      'a duration of the wrong type',
      videoBody({ metadata: { input: { img_url: IMG }, parameters: { duration: '5' } } }),
      'metadata.parameters.duration',
    ],
    [
      'audio of the wrong type',
      videoBody({ metadata: { input: { img_url: IMG }, parameters: { audio: 'yes' } } }),
      'metadata.parameters.audio',
    ],
    [
      'a silent wan2.5 video',
      videoBody({
        model: 'wan2.5-i2v-flash-5s-720p',
        metadata: { input: { img_url: IMG }, parameters: { audio: false } },
      }),
      'metadata.parameters.audio',
    ],
    [
      'a negative seed',
      videoBody({ metadata: { input: { img_url: IMG }, parameters: { seed: -1 } } }),
      'metadata.parameters.seed',
    ],
    [
      'a callback_url that is not http(s)',
      videoBody({ metadata: { input: { img_url: IMG }, callback_url: 'javascript:alert(1)' } }),
      'metadata.callback_url',
    ],
  ];

  it.each(cases)('answers 400 invalid_request naming the field for %s', async (_name, body, field) => {
    const err = await expectError(await create(body), 400, 'invalid_request');
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toContain(field);
    expect(err.param).toBe(field);
  });

  it.each([
    ['an array body', []],
    ['a string body', 'hello'],
    ['a null body', null],
  ])('answers 400 for %s', async (_n, json) => {
    await expectError(await create(json), 400, 'invalid_request');
  });

  it('answers 400 for a body that is not valid JSON', async () => {
    const res = await call(api, 'POST', '/v1/videos', {
      key,
      body: '{"model": "wan',
      headers: { 'content-type': 'application/json' },
    });
    const err = await expectError(res, 400, 'invalid_request');
    expect(err.message).toMatch(/JSON/);
  });

  it('answers 413 for a body over the size limit', async () => {
    const res = await create(videoBody({ prompt: 'x'.repeat(100 * 1024) }));
    await expectError(res, 413, 'request_too_large');
  });

  it('answers 415 for an unsupported content type', async () => {
    const res = await call(api, 'POST', '/v1/videos', {
      key,
      body: 'model=x',
      headers: { 'content-type': 'text/plain' },
    });
    await expectError(res, 415, 'unsupported_media_type');
  });

  it('answers 400 for an empty body', async () => {
    const res = await call(api, 'POST', '/v1/videos', { key });
    await expectError(res, 400, 'invalid_request');
  });

  it('stores nothing for a rejected request', async () => {
    const { rows: before } = await api.database.pool.query('select count(*)::int as n from tasks');
    await create(videoBody({ seconds: 5 }));
    const { rows: after } = await api.database.pool.query('select count(*)::int as n from tasks');
    expect(after[0].n).toBe(before[0].n);
  });
});

describe('POST /v1/videos (multipart form, as the openai client sends it)', () => {
  const form = (fields: Record<string, string>) => {
    const fd = new FormData();
    for (const [k, v] of Object.entries(fields)) fd.append(k, v);
    return fd;
  };

  it('decodes bracket keys into metadata and coerces numbers and booleans', async () => {
    const res = await call(api, 'POST', '/v1/videos', {
      key,
      body: form({
        model: 'wan2.6-i2v-flash-5s-720p',
        prompt: 'a dog',
        'metadata[input][img_url]': IMG,
        'metadata[parameters][duration]': '5',
        'metadata[parameters][audio]': 'false',
        'metadata[parameters][seed]': '12',
        'metadata[parameters][resolution]': '720P',
      }),
    });
    const task = (await expectContract(res, videosCreate.contract, 200)) as { metadata: unknown; id: string };
    expect(task.metadata).toEqual({
      input: { img_url: IMG },
      parameters: { duration: 5, audio: false, seed: 12, resolution: '720P' },
    });
    expect((await getTask(api.database.db, task.id))?.priceMicroUsd).toBe(125_000);
  });

  it('applies the same validation to forms', async () => {
    const res = await call(api, 'POST', '/v1/videos', {
      key,
      body: form({
        model: 'wan2.6-i2v-flash-5s-720p',
        prompt: 'a dog',
        seconds: '5',
        'metadata[input][img_url]': IMG,
      }),
    });
    const err = await expectError(res, 400, 'invalid_request');
    expect(err.param).toBe('seconds');
  });

  it('refuses files on the video endpoint', async () => {
    const fd = form({ model: 'wan2.6-i2v-flash-5s-720p', prompt: 'a dog', 'metadata[input][img_url]': IMG });
    fd.append('input_reference', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'a.png');
    const res = await call(api, 'POST', '/v1/videos', { key, body: fd });
    await expectError(res, 400, 'invalid_request');
  });

  it('answers 400 for a broken multipart body', async () => {
    const res = await call(api, 'POST', '/v1/videos', {
      key,
      body: '--xyz\r\nContent-Disposition: form-data; name="model"\r\n\r\nwan',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
    });
    await expectError(res, 400, 'invalid_request');
  });
});

describe('enqueue failure', () => {
  it('still accepts the task when Redis does not answer (the reconciler enqueues it later)', async () => {
    const deadRedisApi = await startTestApi({ redisUrl: 'redis://127.0.0.1:1', ENQUEUE_TIMEOUT_MS: 200 });
    try {
      const acct = await deadRedisApi.account(10);
      const started = Date.now();
      const res = await call(deadRedisApi, 'POST', '/v1/videos', { key: acct.key, json: videoBody() });
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(5_000);
      const task = (await res.json()) as { id: string };
      expect((await getTask(deadRedisApi.database.db, task.id))?.status).toBe('pending');
    } finally {
      await deadRedisApi.close();
    }
  });
});
