import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { expectContract } from '../../test/contract';
import { call, expectError, IMG, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosCreate from './videos.create';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const create = (key: string, idem: string | undefined, json: unknown) =>
  call(api, 'POST', '/v1/videos', {
    key,
    json,
    headers: idem === undefined ? {} : { 'idempotency-key': idem },
  });
const balance = async (id: string) => (await getAccount(api.database.db, id))!.balanceMicroUsd;
const taskCount = async (accountId: string) =>
  (await api.database.pool.query('select count(*)::int as n from tasks where account_id = $1', [accountId]))
    .rows[0].n;

describe('POST /v1/videos with Idempotency-Key', () => {
  it('returns the first task for the same key and body, charging once', async () => {
    const { key, accountId } = await api.account(10);
    const first = await create(key, 'order-42', videoBody());
    const a = (await expectContract(first, videosCreate.contract, 200)) as { id: string };
    const again = await create(key, 'order-42', videoBody());
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as { id: string }).id).toBe(a.id);
    expect(await taskCount(accountId)).toBe(1);
    expect(await balance(accountId)).toBe(10_000_000 - 250_000);
  });

  it('treats the same body in another key order as the same request', async () => {
    const { key } = await api.account(10);
    const body = videoBody();
    const reordered = { metadata: body.metadata, prompt: body.prompt, model: body.model };
    const a = (await (await create(key, 'k-order', body)).json()) as { id: string };
    const b = (await (await create(key, 'k-order', reordered)).json()) as { id: string };
    expect(b.id).toBe(a.id);
  });

  it('answers 409 for the same key with another body, and charges nothing', async () => {
    const { key, accountId } = await api.account(10);
    await create(key, 'k-1', videoBody());
    const before = await balance(accountId);
    const err = await expectError(
      await create(key, 'k-1', videoBody({ prompt: 'something else' })),
      409,
      'conflict',
    );
    expect(err.param).toBe('Idempotency-Key');
    expect(await balance(accountId)).toBe(before);
  });

  it('scopes keys to the account', async () => {
    const one = await api.account(10);
    const two = await api.account(10);
    const a = (await (await create(one.key, 'shared-key', videoBody())).json()) as { id: string };
    const b = (await (await create(two.key, 'shared-key', videoBody())).json()) as { id: string };
    expect(b.id).not.toBe(a.id);
  });

  it('creates exactly one task for concurrent requests with the same key', async () => {
    const { key, accountId } = await api.account(10);
    const results = await Promise.all(Array.from({ length: 10 }, () => create(key, 'burst', videoBody())));
    const ids = new Set<string>();
    for (const r of results) {
      expect(r.status).toBe(200);
      ids.add(((await r.json()) as { id: string }).id);
    }
    expect(ids.size).toBe(1);
    expect(await taskCount(accountId)).toBe(1);
    expect(await balance(accountId)).toBe(10_000_000 - 250_000);
  });

  it('creates a new task once the 24-hour window has passed', async () => {
    const { key, accountId } = await api.account(10);
    const a = (await (await create(key, 'old-key', videoBody())).json()) as { id: string };
    await api.database.pool.query(
      `update idempotency_keys set created_at = now() - interval '25 hours' where key = 'old-key'`,
    );
    const b = (await (
      await create(key, 'old-key', videoBody({ metadata: { input: { img_url: IMG } } }))
    ).json()) as { id: string };
    expect(b.id).not.toBe(a.id);
    expect(await taskCount(accountId)).toBe(2);
  });

  it.each([['a'.repeat(256)], ['has space'], ['']])('answers 400 for a malformed key %#', async (idem) => {
    const { key } = await api.account(10);
    await expectError(await create(key, idem, videoBody()), 400, 'invalid_request');
  });
});
