import { createToken } from '@mediagate/shared/accounts';
import { adjustBalance } from '@mediagate/shared/billing';
import { sendStreamedBody } from '@mediagate/shared/testing';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import { BodyBudget } from './body-admission';

const MB = 1024 * 1024;
let api: TestApi;
beforeAll(async () => {
  // the production body limits; 12 MB of bodies in flight per account, 20 MB per replica
  api = await startTestApi({
    BODY_LIMIT_BYTES: MB,
    IMAGE_BODY_LIMIT_BYTES: 50 * MB,
    BODY_IN_FLIGHT_BYTES_PER_ACCOUNT: 12 * MB,
    BODY_IN_FLIGHT_BYTES: 20 * MB,
  });
});
afterAll(() => api?.close());

const parse = (body: string) =>
  JSON.parse(body) as { error: { code: string; message: string; param?: string } };

/** A JSON image request of `bytes`, generated while sent, that the server never answers before reading it all unless refused. */
const bigImageJson = (key: string, bytes: number, declareLength = true) =>
  sendStreamedBody(`${api.url}/v1/images/generations`, {
    contentType: 'application/json',
    headers: { authorization: `Bearer ${key}` },
    declareLength,
    pieces: ['{"model":"seedream-4.0","prompt":"p","image":"data:image/png;base64,', { bytes }, '"}'],
    timeoutMs: 30_000,
  });

describe('checks before a large body is read', () => {
  it('answers 402 to an account at 0 before reading an image body, with the charge message', async () => {
    const { key } = await api.account(0);
    for (const declareLength of [true, false]) {
      const r = await bigImageJson(key, 40 * MB, declareLength);
      expect(r.status).toBe(402);
      expect(parse(r.body).error.code).toBe('insufficient_quota');
      expect(r.headers.connection).toBe('close');
      expect(r.sentBytes).toBeLessThan(16 * MB);
    }
  });

  it("answers 402 when the key's quota left is below the cheapest image, before the body", async () => {
    const { accountId } = await api.account(10);
    const { key } = await createToken(api.database.db, accountId, { name: 'tight', quotaMicroUsd: 1_000 });
    const r = await bigImageJson(key.key, 40 * MB);
    expect(r.status).toBe(402);
    expect(parse(r.body).error.message).toMatch(/key's quota/);
    expect(r.sentBytes).toBeLessThan(16 * MB);
  });

  it('answers 403 before the body to a key that may use no image model', async () => {
    const { accountId } = await api.account(10);
    const { key } = await createToken(api.database.db, accountId, {
      name: 'videos only',
      allowedModels: ['wan2.6-i2v-flash-5s-720p'],
    });
    const r = await bigImageJson(key.key, 40 * MB);
    expect(r.status).toBe(403);
    expect(parse(r.body).error).toMatchObject({ code: 'permission_denied', param: 'model' });
    expect(r.sentBytes).toBeLessThan(16 * MB);
    // its video creates are not affected
    expect((await call(api, 'POST', '/v1/videos', { key: key.key, json: videoBody() })).status).toBe(200);
  });

  it('answers 402 to a video create at 0 before the body, but replays an earlier create', async () => {
    const { key, accountId } = await api.account(10);
    const headers = { 'idempotency-key': 'replay-at-zero' };
    const first = await call(api, 'POST', '/v1/videos', { key, json: videoBody(), headers });
    expect(first.status).toBe(200);
    const task = (await first.json()) as { id: string };
    const { rows } = await api.database.pool.query<{ b: string }>(
      'select balance_micro_usd as b from accounts where id = $1',
      [accountId],
    );
    await adjustBalance(api.database.db, {
      accountId,
      amountMicroUsd: -Number(rows[0]!.b),
      reason: 'test: spend it all',
    });
    // padded past 64 KiB with white space (the same request): refused before it is read, but a
    // replay of the earlier create is answered whatever the balance is now
    const padded = (extra: Record<string, string>) =>
      call(api, 'POST', '/v1/videos', {
        key,
        body: JSON.stringify(videoBody()) + ' '.repeat(100_000),
        headers: { 'content-type': 'application/json', ...extra },
      });
    const refused = await padded({});
    await expectError(refused, 402, 'insufficient_quota');
    expect(refused.headers.get('connection')).toBe('close');
    await expectError(
      await call(api, 'POST', '/v1/videos', { key, json: videoBody() }),
      402,
      'insufficient_quota',
    );
    const replay = await padded(headers);
    expect(replay.status).toBe(200);
    expect(((await replay.json()) as { id: string }).id).toBe(task.id);
  });
});

describe('bodies in flight per account and per replica', () => {
  it('answers 429 with Retry-After once the account holds its share, and takes bodies again after', async () => {
    const { key, accountId } = await api.account(10);
    const budget = api.deps.bodyBudget;
    // hold 8 MB of the account's 12 MB, as a body still arriving would
    const held = budget.take(accountId, 8 * MB);
    if (typeof held === 'string') throw new Error(`could not hold the test's bytes: ${held}`);
    try {
      const r = await bigImageJson(key, 6 * MB);
      expect(r.status).toBe(429);
      expect(parse(r.body).error.code).toBe('rate_limit_exceeded');
      expect(parse(r.body).error.message).toMatch(/This account's requests in progress/);
      expect(r.headers['retry-after']).toBe('5');
      expect(r.sentBytes).toBeLessThan(6 * MB);
      // sent chunked, it is refused as soon as what arrived passes the share
      const chunked = await bigImageJson(key, 30 * MB, false);
      expect(chunked.status).toBe(429);
      expect(chunked.sentBytes).toBeLessThan(20 * MB);
    } finally {
      held.release();
    }
    // the share is back: the same body is read (and refused for what it is, not for its size)
    const r = await bigImageJson(key, 6 * MB);
    expect(r.status).toBe(400);
    expect(budget.held()).toBe(0);
  });

  it("answers 429 naming the server when the replica's bodies in flight are at their cap", async () => {
    const { key } = await api.account(10);
    // two other accounts hold 9 MB each of the replica's 20 MB
    const held = ['someone', 'someone-else'].map((id) => api.deps.bodyBudget.take(id, 9 * MB));
    try {
      expect(held.map((h) => typeof h)).toEqual(['object', 'object']);
      const r = await bigImageJson(key, 6 * MB);
      expect(r.status).toBe(429);
      expect(parse(r.body).error.message).toMatch(/This server is receiving/);
    } finally {
      for (const h of held) if (typeof h === 'object') h.release();
    }
  });

  it('counts each body until its answer is sent', () => {
    const budget = new BodyBudget({ perAccountBytes: 10, totalBytes: 15 });
    const a = budget.take('a', 6);
    expect(typeof a).toBe('object');
    expect(budget.take('a', 5)).toBe('account');
    const b = budget.take('b', 9);
    expect(typeof b).toBe('object');
    expect(budget.take('c', 1)).toBe('replica');
    if (typeof a === 'string' || typeof b === 'string') throw new Error('unreachable');
    expect(a.grow(7)).toBe('replica');
    b.release();
    b.release();
    expect(a.grow(10)).toBeUndefined();
    expect(a.grow(11)).toBe('account');
    expect(budget.held('a')).toBe(10);
    a.release();
    expect(budget.held()).toBe(0);
  });
});
