import { sendStreamedForm } from '@mediagate/shared/testing';
import { call, expectError, IMG, startTestApi, type TestApi, videoBody } from '../../test/harness';

const MB = 1024 * 1024;
let api: TestApi;
let key: string;
beforeAll(async () => {
  // the production limits: 1 MB for JSON and video forms, 50 MB for image edits
  api = await startTestApi({ BODY_LIMIT_BYTES: MB, IMAGE_BODY_LIMIT_BYTES: 50 * MB });
  ({ key } = await api.account(10));
});
afterAll(() => api?.close());

const auth = () => ({ authorization: `Bearer ${key}` });
const errorCode = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

describe('multipart limits', () => {
  it('refuses image-edit text fields over the field limit as soon as one ends, reading nothing more', async () => {
    const r = await sendStreamedForm(`${api.url}/v1/images/edits`, {
      headers: auth(),
      parts: [0, 1, 2].map((i) => ({ name: `pad${i}`, bytes: 30 * MB })),
    });
    expect(r.status).toBe(413);
    expect(errorCode(r.body)).toBe('request_too_large');
    // the first 30 MB field is the most the server read (plus what the sockets buffer)
    expect(r.sentBytes).toBeLessThan(40 * MB);
  });

  it('refuses a body whose declared length is over the limit before reading it', async () => {
    const r = await sendStreamedForm(`${api.url}/v1/images/edits`, {
      headers: auth(),
      declareLength: true,
      parts: [{ name: 'image', filename: 'a.png', bytes: 90 * MB }],
    });
    expect(r.status).toBe(413);
    expect(errorCode(r.body)).toBe('request_too_large');
    expect(r.sentBytes).toBeLessThan(16 * MB);
  });

  it('stops reading a chunked body the moment it passes the total limit', async () => {
    // files within the per-file limit, but six of them are over 50 MB together
    const r = await sendStreamedForm(`${api.url}/v1/images/edits`, {
      headers: auth(),
      parts: Array.from({ length: 12 }, (_, i) => ({ name: 'image[]', filename: `${i}.png`, bytes: 9 * MB })),
    });
    expect(r.status).toBe(413);
    expect(errorCode(r.body)).toBe('request_too_large');
    expect(r.sentBytes).toBeLessThan(80 * MB);
  });

  it('refuses a file over the per-file limit when it passes it', async () => {
    const r = await sendStreamedForm(`${api.url}/v1/images/edits`, {
      headers: auth(),
      parts: [{ name: 'image', filename: 'a.png', bytes: 30 * MB }],
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.message).toMatch(/file in 'image' is over 10485760 bytes/);
    expect(r.sentBytes).toBeLessThan(20 * MB);
  });

  it('refuses oversized video form fields with 413 (not a 400 after reading them)', async () => {
    const r = await sendStreamedForm(`${api.url}/v1/videos`, {
      headers: auth(),
      parts: [0, 1, 2].map((i) => ({ name: `pad${i}`, bytes: MB })),
    });
    expect(r.status).toBe(413);
    expect(errorCode(r.body)).toBe('request_too_large');
  });

  it('stops reading a video form once past the body limit', async () => {
    const r = await sendStreamedForm(`${api.url}/v1/videos`, {
      headers: auth(),
      parts: [{ name: 'metadata[input][img_url]', bytes: 200 * MB }],
    });
    expect(r.status).toBe(413);
    // the limit plus what the sockets hold, nowhere near the 200 MB sent at it
    expect(r.sentBytes).toBeLessThan(32 * MB);
  });

  it('refuses a video form field over 64 KiB within the body limit', async () => {
    const r = await sendStreamedForm(`${api.url}/v1/videos`, {
      headers: auth(),
      parts: [{ name: 'prompt', bytes: 65 * 1024 }],
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.message).toMatch(/form field 'prompt' is over 65536 bytes/);
  });

  it('refuses a form with too many fields, on both routes', async () => {
    for (const path of ['/v1/videos', '/v1/images/edits']) {
      const r = await sendStreamedForm(api.url + path, {
        headers: auth(),
        parts: Array.from({ length: 60 }, (_, i) => ({ name: `f${i}`, bytes: 10 })),
      });
      expect({ path, status: r.status }).toEqual({ path, status: 413 });
      expect(JSON.parse(r.body).error.message).toMatch(/more than 48 fields/);
    }
  });

  it('refuses more image files than a model takes', async () => {
    const r = await sendStreamedForm(`${api.url}/v1/images/edits`, {
      headers: auth(),
      parts: Array.from({ length: 20 }, (_, i) => ({ name: 'image[]', filename: `${i}.png`, bytes: 100 })),
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.message).toMatch(/more than 15 files/);
  });

  it('refuses a JSON body over the limit with 413 and keeps serving', async () => {
    const res = await call(api, 'POST', '/v1/videos', {
      key,
      json: videoBody({ prompt: 'x'.repeat(MB) }),
    });
    await expectError(res, 413, 'request_too_large');
    expect((await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).status).toBe(200);
  });

  it('still accepts a normal form', async () => {
    const fd = new FormData();
    fd.append('model', 'wan2.6-i2v-flash-5s-720p');
    fd.append('prompt', 'p'.repeat(1500));
    fd.append('metadata[input][img_url]', IMG);
    expect((await call(api, 'POST', '/v1/videos', { key, body: fd })).status).toBe(200);
  });
});

describe('unpaired UTF-16 surrogates', () => {
  const bad = ['a\ud800', '\udc00b', '\udc00\ud800', 'x\ud83d'];
  it.each(bad)('refuses %j in any string field of a video create with 400 naming it', async (text) => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        videoBody({ metadata: { input: { img_url: IMG, negative_prompt: text } } }),
        'metadata.input.negative_prompt',
      ],
      [
        videoBody({ metadata: { input: { img_url: `https://example.com/${text}.png` } } }),
        'metadata.input.img_url',
      ],
      [
        videoBody({ metadata: { input: { img_url: IMG, audio_url: `https://example.com/${text}` } } }),
        'metadata.input.audio_url',
      ],
      [
        videoBody({ metadata: { input: { img_url: IMG }, callback_url: `https://example.com/${text}` } }),
        'metadata.callback_url',
      ],
      [videoBody({ prompt: text }), 'prompt'],
      [videoBody({ metadata: { input: { img_url: IMG }, [text]: 1 } }), 'metadata'],
    ];
    for (const [json, param] of cases) {
      const err = await expectError(
        await call(api, 'POST', '/v1/videos', { key, json }),
        400,
        'invalid_request',
      );
      expect(err.param).toBe(param);
    }
  });

  it('refuses them on image, console and key routes too', async () => {
    const json = { model: 'seedream-4.0', prompt: 'a\ud800' };
    await expectError(
      await call(api, 'POST', '/v1/images/generations', { key, json }),
      400,
      'invalid_request',
    );
    await expectError(
      await call(api, 'POST', '/console/api/login', {
        json: { email: 'a@example.com', password: 'pw\udfff' },
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await call(api, 'POST', '/v1/webhooks/settings', {
        key,
        json: { video_processing: true, x: '\ud800' },
      }),
      400,
      'invalid_request',
    );
  });

  it('accepts paired surrogates (emoji)', async () => {
    const res = await call(api, 'POST', '/v1/videos', { key, json: videoBody({ prompt: 'a cat 🐈 walks' }) });
    expect(res.status).toBe(200);
  });
});
