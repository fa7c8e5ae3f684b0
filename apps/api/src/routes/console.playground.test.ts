import { getAccount, PLAYGROUND_KEY_NAME } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';

const PATH = '/console/api/playground/videos';
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ RATE_LIMIT_RPM: 3 });
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const play = (session: string | undefined, json: unknown = videoBody()) =>
  consoleCall(api, 'POST', PATH, session, json);
const balance = async (accountId: string) => (await getAccount(api.database.db, accountId))!.balanceMicroUsd;

describe('the console playground', () => {
  it('creates a video task on the session, billed like POST /v1/videos, as the account’s playground key', async () => {
    const a = await consoleAccount(api, 10);
    const before = await balance(a.accountId);
    const task = (await expectContract(await play(a.session), contractFor(`post ${PATH}`), 200)) as {
      id: string;
      status: string;
    };
    expect(task.status).toBe('pending');
    // the same price a key pays for the same call
    const viaKey = (await (
      await call(api, 'POST', '/v1/videos', { key: a.key, json: videoBody() })
    ).json()) as {
      id: string;
    };
    const charged = before - (await balance(a.accountId));
    const { rows } = await api.database.pool.query(
      'select t.id, t.price_micro_usd, k.name from tasks t join api_keys k on k.id = t.api_key_id where t.id = any($1)',
      [[task.id, viaKey.id]],
    );
    const byId = new Map(rows.map((r) => [r.id as string, r as { price_micro_usd: string; name: string }]));
    expect(Number(byId.get(task.id)!.price_micro_usd)).toBe(Number(byId.get(viaKey.id)!.price_micro_usd));
    expect(charged).toBe(2 * Number(byId.get(task.id)!.price_micro_usd));
    expect(byId.get(task.id)!.name).toBe(PLAYGROUND_KEY_NAME);
    // the customer reads it like any task, and sees the key among its keys (no secret anywhere)
    const own = await consoleCall(api, 'GET', `/console/api/videos/${task.id}`, a.session);
    expect(own.status).toBe(200);
    const keys = (await (await consoleCall(api, 'GET', '/console/api/tokens', a.session)).json()) as {
      data: Array<{ name: string; key?: string }>;
    };
    expect(keys.data.filter((k) => k.name === PLAYGROUND_KEY_NAME)).toHaveLength(1);
    expect(keys.data.every((k) => k.key === undefined)).toBe(true);
    // a second call uses the same key
    await play(a.session);
    const again = (await (await consoleCall(api, 'GET', '/console/api/tokens', a.session)).json()) as {
      data: Array<{ name: string }>;
    };
    expect(again.data.filter((k) => k.name === PLAYGROUND_KEY_NAME)).toHaveLength(1);
  });

  it('refuses without a session, and refuses an API key in place of one', async () => {
    await expectError(await play(undefined), 401, 'invalid_session');
    const a = await consoleAccount(api);
    await expectError(
      await call(api, 'POST', PATH, { key: a.key, json: videoBody() }),
      401,
      'invalid_session',
    );
  });

  it('answers bad input with a 4xx in the error shape and charges nothing', async () => {
    const a = await consoleAccount(api, 10);
    const before = await balance(a.accountId);
    await expectError(await play(a.session, videoBody({ model: 'no-such-model' })), 404, 'model_not_found');
    await expectError(await play(a.session, videoBody({ prompt: '' })), 400, 'invalid_request');
    await expectError(
      await play(a.session, videoBody({ metadata: { input: { img_url: 'ftp://example.com/x.png' } } })),
      400,
      'invalid_request',
    );
    expect(await balance(a.accountId)).toBe(before);
  });

  it('refuses a call the balance cannot pay (402), like a key’s', async () => {
    const poor = await consoleAccount(api, 0.01);
    await expectError(await play(poor.session), 402, 'insufficient_quota');
  });

  it('counts the playground key’s requests per minute (429 with Retry-After past the limit)', async () => {
    const a = await consoleAccount(api, 10);
    for (let i = 0; i < 3; i++) {
      const res = await play(a.session, videoBody({ model: 'no-such-model' }));
      expect(res.status).toBe(404);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
    }
    const limited = await play(a.session);
    await expectError(limited, 429, 'rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('refuses while its owner has the playground key disabled', async () => {
    const a = await consoleAccount(api, 10);
    await play(a.session, videoBody({ model: 'no-such-model' }));
    const keys = (await (await consoleCall(api, 'GET', '/console/api/tokens', a.session)).json()) as {
      data: Array<{ id: string; name: string }>;
    };
    const id = keys.data.find((k) => k.name === PLAYGROUND_KEY_NAME)!.id;
    await consoleCall(api, 'PATCH', `/console/api/tokens/${id}`, a.session, { status: 'disabled' });
    await expectError(await play(a.session), 403, 'permission_denied');
  });

  it("streams one of the account's tasks on the session, and not another account's", async () => {
    const a = await consoleAccount(api, 10);
    const b = await consoleAccount(api, 10);
    const task = (await (await play(a.session)).json()) as { id: string };
    const stream = await consoleCall(api, 'GET', `${PATH}/${task.id}/events`, a.session);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('data: ')) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toContain(`"id":"${task.id}"`);
    await expectError(
      await consoleCall(api, 'GET', `${PATH}/${task.id}/events`, b.session),
      404,
      'not_found',
    );
    await expectError(
      await consoleCall(api, 'GET', `${PATH}/${task.id}/events`, undefined),
      401,
      'invalid_session',
    );
  });
});
