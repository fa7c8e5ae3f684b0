import type { AddressInfo } from 'node:net';
import { getAccount, setAccountLimits } from '@mediagate/shared/accounts';
import { chargeForCall, findLedgerMismatches, refundCall } from '@mediagate/shared/billing';
import { failTask } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import { buildApp } from '../app';
import { RateLimits, rateLimitConfig } from '../middleware/rate-limit';

// Billing and rate-limit behaviour through the HTTP API. After every test, every account's
// balance must equal the sum of its ledger.
const apis: TestApi[] = [];
const start = async (overrides: Parameters<typeof startTestApi>[0] = {}) => {
  const api = await startTestApi(overrides);
  apis.push(api);
  return api;
};
afterEach(async () => {
  for (const api of apis) expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});
afterAll(async () => {
  await Promise.all(apis.map((a) => a.close()));
});

let defaultApi: Promise<TestApi> | undefined;
/** One app with the default configuration, shared by the tests that need nothing special. */
const shared = () => {
  defaultApi ??= start();
  return defaultApi;
};

const balance = async (api: TestApi, accountId: string) =>
  (await getAccount(api.database.db, accountId))!.balanceMicroUsd;

describe('per-call billing', () => {
  it('lets exactly 10 of 100 concurrent calls through a balance that covers 10; the rest get 402 and the balance ends at 0', async () => {
    const api = await start({ RATE_LIMIT_RPM: 1_000 });
    const { key, accountId } = await api.account(2.5); // 10 x 0.25 USD
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => call(api, 'POST', '/v1/videos', { key, json: videoBody() })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(90);
    for (const r of answers.filter((a) => a.status === 402)) {
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    }
    expect(await balance(api, accountId)).toBe(0);
    const { rows } = await api.database.pool.query(
      `select count(*)::int as n from tasks where account_id = $1`,
      [accountId],
    );
    expect(rows[0].n).toBe(10);
  });

  it('refunds a failed video task in full, once, and shows it in the ledger and the usage log', async () => {
    const api = await shared();
    const { session, key, accountId } = await consoleAccount(api, 1);
    const res = await call(api, 'POST', '/v1/videos', { key, json: videoBody() });
    const task = (await res.json()) as { id: string };
    expect(await balance(api, accountId)).toBe(750_000);
    await failTask(api.database.db, task.id, { code: 'DataInspectionFailed', message: 'unsafe' });
    await failTask(api.database.db, task.id, { code: 'timeout', message: 'again' });
    expect(await balance(api, accountId)).toBe(1_000_000);

    const ledger = (await expectContract(
      await consoleCall(api, 'GET', '/console/api/ledger', session),
      contractFor('get /console/api/ledger'),
      200,
    )) as { data: Array<{ kind: string; amount_usd: number; ref: string | null; details: unknown }> };
    expect(ledger.data.map((e) => [e.kind, e.amount_usd])).toEqual([
      ['refund', 0.25],
      ['charge', -0.25],
      ['grant', 1],
    ]);
    // what each entry is, in fields: the console words them in the reader's language
    const model = 'wan2.6-i2v-flash-5s-720p';
    expect(ledger.data.map((e) => [e.ref, e.details])).toEqual([
      [task.id, { cause: 'task_failed', error_code: 'DataInspectionFailed', model }],
      [task.id, { cause: 'video_task', model }],
      [null, { cause: 'initial_credit' }],
    ]);
    // the create call's latency reaches its usage row after the recorder's linger
    const usage = await waitFor(
      async () => {
        const read = (await (await consoleCall(api, 'GET', '/console/api/usage', session)).json()) as {
          data: Array<Record<string, unknown>>;
        };
        return read.data.every((row) => typeof row.latency_ms === 'number') ? read : undefined;
      },
      { what: 'the usage row with its latency', timeoutMs: 5_000 },
    );
    expect(usage.data).toEqual([
      expect.objectContaining({
        ref: task.id,
        model: 'wan2.6-i2v-flash-5s-720p',
        units: 1,
        cost_usd: 0.25,
        refunded_usd: 0.25,
        outcome: 'failed',
        token: expect.objectContaining({ name: 'default' }),
        latency_ms: expect.any(Number),
        // what the row stands for: the video, and the task's run (it never started)
        video: { duration_s: 5, resolution: '720P', processing_ms: null },
      }),
    ]);
    // a task that ran: from its start to its end
    await api.database.pool.query(
      "update tasks set started_at = completed_at - interval '42.5 seconds' where id = $1",
      [task.id],
    );
    const ran = (await (await consoleCall(api, 'GET', '/console/api/usage', session)).json()) as {
      data: Array<{ video: { processing_ms: number | null } | null }>;
    };
    expect(ran.data[0]?.video?.processing_ms).toBe(42_500);
  });

  it('refunds the undelivered images of a partial batch once (ledger level; the image endpoint is covered in billing.images.test.ts)', async () => {
    const api = await shared();
    const { session, keyId, accountId } = await consoleAccount(api, 1);
    // What the image endpoint does: charge 4 images at acceptance, deliver 3, refund 1.
    await api.database.db.transaction((tx) =>
      chargeForCall(tx, {
        accountId,
        keyId,
        amountMicroUsd: 160_000,
        ref: 'img_batch_1',
        model: 'seedream-4.0',
        units: 4,
      }),
    );
    const refund = () =>
      api.database.db.transaction((tx) =>
        refundCall(tx, {
          accountId,
          amountMicroUsd: 40_000,
          ref: 'img_batch_1',
          reason: '1 of 4 images not delivered',
          details: { cause: 'images_not_delivered', missing: 1, requested: 4 },
        }),
      );
    expect(await refund()).toBe(true);
    expect(await refund()).toBe(false);
    expect(await balance(api, accountId)).toBe(880_000);
    const ledger = (await (await consoleCall(api, 'GET', '/console/api/ledger', session)).json()) as {
      data: Array<{ kind: string; details: unknown }>;
    };
    expect(ledger.data.slice(0, 2).map((e) => [e.kind, e.details])).toEqual([
      ['refund', { cause: 'images_not_delivered', missing: 1, requested: 4, model: 'seedream-4.0' }],
      ['charge', { cause: 'image_call', model: 'seedream-4.0', units: 4 }],
    ]);
    const usage = (await (await consoleCall(api, 'GET', '/console/api/usage', session)).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(usage.data[0]).toMatchObject({
      ref: 'img_batch_1',
      units: 4,
      cost_usd: 0.16,
      refunded_usd: 0.04,
      outcome: 'partial',
    });
    const tokens = (await (await consoleCall(api, 'GET', '/console/api/tokens', session)).json()) as {
      data: Array<{ id: string; used_usd: number }>;
    };
    expect(tokens.data.find((t) => t.id === keyId)?.used_usd).toBe(0.12);
  });

  it('shows the balance and pages the ledger and the usage log', async () => {
    const api = await shared();
    const { session, key } = await consoleAccount(api, 5);
    for (let i = 0; i < 3; i++) {
      expect((await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).status).toBe(200);
    }
    const bal = await expectContract(
      await consoleCall(api, 'GET', '/console/api/balance', session),
      contractFor('get /console/api/balance'),
      200,
    );
    expect(bal).toEqual({ object: 'balance', balance_usd: 4.25, balance_micro_usd: 4_250_000 });

    const page1 = (await expectContract(
      await consoleCall(api, 'GET', '/console/api/usage?limit=2', session),
      contractFor('get /console/api/usage'),
      200,
    )) as {
      data: Array<{ id: string; outcome: string }>;
      has_more: boolean;
      next_cursor: string;
    };
    expect(page1.data).toHaveLength(2);
    expect(page1.has_more).toBe(true);
    expect(page1.data[0]!.outcome).toBe('pending');
    const page2 = (await (
      await consoleCall(api, 'GET', `/console/api/usage?limit=2&before=${page1.next_cursor}`, session)
    ).json()) as { data: unknown[]; has_more: boolean; next_cursor: string | null };
    expect(page2).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.data).toHaveLength(1);

    const ledger = (await expectContract(
      await consoleCall(api, 'GET', '/console/api/ledger?limit=3', session),
      contractFor('get /console/api/ledger'),
      200,
    )) as {
      data: Array<{ kind: string }>;
      has_more: boolean;
    };
    expect(ledger.data.map((e) => e.kind)).toEqual(['charge', 'charge', 'charge']);
    expect(ledger.has_more).toBe(true);
    await expectError(
      await consoleCall(api, 'GET', '/console/api/ledger?limit=0', session),
      400,
      'invalid_request',
    );
    await expectError(
      await consoleCall(api, 'GET', '/console/api/usage?before=abc', session),
      400,
      'invalid_request',
    );
  });
});

describe('rate limits', () => {
  it('counts requests per minute per key: x-ratelimit-* on every answer, 429 with Retry-After past the limit', async () => {
    const api = await start({ RATE_LIMIT_RPM: 3 });
    const { key } = await api.account();
    const seen: Array<[number, string | null]> = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(api, 'GET', '/v1/videos', { key });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
      seen.push([res.status, res.headers.get('x-ratelimit-remaining')]);
    }
    expect(seen.map((s) => s[1])).toEqual(['2', '1', '0']);
    const limited = await call(api, 'POST', '/v1/videos', { key, json: videoBody() });
    const err = await expectError(limited, 429, 'rate_limit_exceeded');
    expect(err.type).toBe('rate_limit_error');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    // another key of the same account has its own budget
    const other = await api.account();
    expect((await call(api, 'GET', '/v1/videos', { key: other.key })).status).toBe(200);
  });

  it('counts console requests per minute per account (429 + Retry-After past the limit)', async () => {
    const api = await start({ CONSOLE_RATE_LIMIT_RPM: 2 });
    const { session } = await consoleAccount(api);
    for (const remaining of ['1', '0']) {
      const res = await consoleCall(api, 'GET', '/console/api/balance', session);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(remaining);
    }
    const limited = await consoleCall(api, 'GET', '/console/api/tokens', session);
    await expectError(limited, 429, 'rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('applies a per-account override of the per-key limit', async () => {
    const api = await start({ RATE_LIMIT_RPM: 2 });
    const { key, accountId } = await api.account();
    await setAccountLimits(api.database.db, accountId, { rpmLimit: 4 });
    for (let i = 0; i < 4; i++) expect((await call(api, 'GET', '/v1/videos', { key })).status).toBe(200);
    await expectError(await call(api, 'GET', '/v1/videos', { key }), 429, 'rate_limit_exceeded');
  });

  it('shares the count between API replicas (Redis)', async () => {
    const a = await start({ RATE_LIMIT_RPM: 2 });
    const { key } = await a.account();
    expect((await call(a, 'GET', '/v1/videos', { key })).status).toBe(200);
    expect((await call(a, 'GET', '/v1/videos', { key })).status).toBe(200);
    // a second app on the same database and the same Redis counters
    const second = await startSecondReplica(a, { RATE_LIMIT_RPM: 2 });
    try {
      await expectError(await call(second, 'GET', '/v1/videos', { key }), 429, 'rate_limit_exceeded');
    } finally {
      await second.close();
    }
  });

  it('limits unfinished video tasks per account (429 + Retry-After) and frees a slot when a task fails', async () => {
    const api = await start({ VIDEO_MAX_ACTIVE_TASKS: 2 });
    const { key, accountId } = await api.account(10);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await call(api, 'POST', '/v1/videos', { key, json: videoBody() });
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { id: string }).id);
    }
    const limited = await call(api, 'POST', '/v1/videos', { key, json: videoBody() });
    const err = await expectError(limited, 429, 'rate_limit_exceeded');
    expect(err.message).toMatch(/unfinished video task/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await balance(api, accountId)).toBe(9_500_000); // the refused call was not charged

    await failTask(api.database.db, ids[0]!, { code: 'upstream_error', message: 'boom' });
    expect((await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).status).toBe(200);
    await setAccountLimits(api.database.db, accountId, { maxActiveVideoTasks: 3 });
    expect((await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).status).toBe(200);
    await expectError(
      await call(api, 'POST', '/v1/videos', { key, json: videoBody() }),
      429,
      'rate_limit_exceeded',
    );
  });

  it('holds the video limit exactly under concurrent creates', async () => {
    const api = await start({ VIDEO_MAX_ACTIVE_TASKS: 3, RATE_LIMIT_RPM: 1_000 });
    const { key, accountId } = await api.account(10);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => call(api, 'POST', '/v1/videos', { key, json: videoBody() })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(3);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(9);
    expect(await balance(api, accountId)).toBe(9_250_000);
  });
});

/** Another API app over the same database and Redis namespace as `api` (a second replica). */
async function startSecondReplica(api: TestApi, overrides: { RATE_LIMIT_RPM: number }): Promise<TestApi> {
  const config = { ...api.deps.config, ...overrides };
  const app = buildApp({
    ...api.deps,
    config,
    rateLimits: new RateLimits(
      api.redis,
      rateLimitConfig({ ...config, QUEUE_PREFIX: api.prefix }),
      api.deps.logger,
    ),
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { port } = server.address() as AddressInfo;
  return {
    ...api,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closed;
    },
  };
}
