import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';

let api: TestApi;
let key: string;
let other: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ key } = await api.account(1));
  ({ key: other } = await api.account(1));
});
afterAll(() => api.close());

type SecretObject = { object: string; secret: string; previous_secret_expires_at: number | null };
const getSecret = async (k: string) => {
  const res = await call(api, 'GET', '/v1/webhooks/secret', { key: k });
  return (await expectContract(res, contractFor('get /v1/webhooks/secret'), 200)) as SecretObject;
};

describe('webhook secret', () => {
  it('creates one whsec_ secret per account on first read and keeps it', async () => {
    const first = await getSecret(key);
    expect(first).toMatchObject({ object: 'webhook_secret', previous_secret_expires_at: null });
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect((await getSecret(key)).secret).toBe(first.secret);
    expect((await getSecret(other)).secret).not.toBe(first.secret);
  });

  it('rotates: a new secret, the old one still signing for 24 hours', async () => {
    const before = await getSecret(key);
    const res = await call(api, 'POST', '/v1/webhooks/secret/rotate', { key });
    const rotated = (await expectContract(
      res,
      contractFor('post /v1/webhooks/secret/rotate'),
      200,
    )) as SecretObject;
    expect(rotated.secret).not.toBe(before.secret);
    expect(rotated.previous_secret_expires_at! - Date.now() / 1000).toBeGreaterThan(24 * 3600 - 60);
    expect((await getSecret(key)).secret).toBe(rotated.secret);
  });

  it('answers 401 without a valid key', async () => {
    await expectError(await call(api, 'GET', '/v1/webhooks/secret'), 401, 'invalid_api_key');
    await expectError(
      await call(api, 'POST', '/v1/webhooks/secret/rotate', { key: 'sk-nope' }),
      401,
      'invalid_api_key',
    );
  });
});

describe('webhook settings', () => {
  it('sends succeeded and failed by default; video.processing is opt-in', async () => {
    const res = await call(api, 'GET', '/v1/webhooks/settings', { key: other });
    expect(await expectContract(res, contractFor('get /v1/webhooks/settings'), 200)).toEqual({
      object: 'webhook_settings',
      video_processing: false,
      events: ['video.succeeded', 'video.failed'],
    });
    const on = await call(api, 'POST', '/v1/webhooks/settings', {
      key: other,
      json: { video_processing: true },
    });
    expect(await expectContract(on, contractFor('post /v1/webhooks/settings'), 200)).toMatchObject({
      video_processing: true,
      events: expect.arrayContaining(['video.processing']),
    });
    const off = await call(api, 'POST', '/v1/webhooks/settings', {
      key: other,
      json: { video_processing: false },
    });
    expect(((await off.json()) as { video_processing: boolean }).video_processing).toBe(false);
  });

  it.each([
    [{}, 'video_processing'],
    [{ video_processing: 'yes' }, 'video_processing'],
    [{ video_processing: true, events: [] }, undefined],
  ])('answers 400 invalid_request for %j', async (json, param) => {
    const err = await expectError(
      await call(api, 'POST', '/v1/webhooks/settings', { key, json }),
      400,
      'invalid_request',
    );
    if (param) expect(err.param).toBe(param);
  });

  it('answers 401 without a key', async () => {
    await expectError(await call(api, 'GET', '/v1/webhooks/settings'), 401, 'invalid_api_key');
  });
});
