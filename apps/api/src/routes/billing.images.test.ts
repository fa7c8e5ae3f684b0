import { findLedgerMismatches } from '@mediagate/shared/billing';
import { type RunningSim, waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, type TestApi } from '../../test/harness';
import { balanceOf, startImagesApi } from '../../test/images';

// Billing of image calls through the real endpoint (simulator upstream): partial refunds in the
// usage log and against the key quota, and the key's model allow-list.
let api: TestApi;
let sim: RunningSim;
let close: () => Promise<void>;
beforeAll(async () => {
  const started = await startImagesApi();
  ({ api, close } = started);
  sim = started.sims[0]!;
});
afterAll(() => close());
beforeEach(() => sim.control('POST', '/reset'));
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

describe('image calls in the billing', () => {
  it('a partial batch refunds the undelivered images: usage outcome partial, key used amount net of the refund', async () => {
    const { session, accountId } = await consoleAccount(api, 1);
    const token = (await (
      await consoleCall(api, 'POST', '/console/api/tokens', session, { name: 'images', quota_usd: 0.2 })
    ).json()) as { id: string; key: string };
    await sim.control('POST', '/ark-item-failures', { count: 1 });
    const res = await call(api, 'POST', '/v1/images/generations', {
      key: token.key,
      json: { model: 'seedream-4.0', prompt: 'four kites', n: 4, size: '1K' },
    });
    expect(await expectContract(res, contractFor('post /v1/images/generations'), 200)).toMatchObject({
      requested: 4,
      delivered: 3,
    });
    expect(await balanceOf(api, accountId)).toBe(1_000_000 - 3 * 30_000);

    const usage = (await (await consoleCall(api, 'GET', '/console/api/usage', session)).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(usage.data[0]).toMatchObject({
      model: 'seedream-4.0',
      units: 4,
      cost_micro_usd: 120_000,
      refunded_micro_usd: 30_000,
      outcome: 'partial',
      token: expect.objectContaining({ id: token.id, name: 'images' }),
    });
    // the latency is written once the answer has gone out
    await waitFor(
      async () => {
        const again = (await (await consoleCall(api, 'GET', '/console/api/usage', session)).json()) as {
          data: Array<{ latency_ms: number | null }>;
        };
        return typeof again.data[0]!.latency_ms === 'number';
      },
      { timeoutMs: 5_000, what: 'the call latency in the usage log' },
    );
    const tokens = (await (await consoleCall(api, 'GET', '/console/api/tokens', session)).json()) as {
      data: Array<{ id: string; used_micro_usd: number }>;
    };
    expect(tokens.data.find((t) => t.id === token.id)?.used_micro_usd).toBe(90_000);

    // 0.11 USD of quota left: 4 more images (0.12) are refused before any upstream call
    const refused = await call(api, 'POST', '/v1/images/generations', {
      key: token.key,
      json: { model: 'seedream-4.0', prompt: 'more kites', n: 4, size: '1K' },
    });
    await expectError(refused, 402, 'insufficient_quota');
    expect(await balanceOf(api, accountId)).toBe(910_000);
  });

  it('answers 403 for an image model outside the key allow-list, charging nothing', async () => {
    const { accountId, key } = await api.account(1);
    await api.database.pool.query(
      `update api_keys set allowed_models = '{seedream-4.5}' where account_id = $1`,
      [accountId],
    );
    await expectError(
      await call(api, 'POST', '/v1/images/generations', {
        key,
        json: { model: 'seedream-4.0', prompt: 'x', size: '1K' },
      }),
      403,
      'permission_denied',
    );
    expect(await balanceOf(api, accountId)).toBe(1_000_000);
  });
});
