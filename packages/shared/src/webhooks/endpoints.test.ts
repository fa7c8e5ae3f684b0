import { createAccount } from '../accounts';
import { createDatabase, type Database } from '../db/client';
import { createTestDatabase } from '../testing/services';
import {
  claimDisabledNotice,
  countDisabledEndpoints,
  endpointDisabledMail,
  endpointUrlOf,
  recordEndpointFailure,
  releaseNotice,
} from './endpoints';

let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database;
beforeAll(async () => {
  testDb = await createTestDatabase();
  database = createDatabase(testDb.url, { max: 2 });
});
afterAll(async () => {
  await database?.close();
  await testDb?.drop();
});

const HOUR = 3_600_000;
const PERIOD = 24 * HOUR;
let n = 0;
const account = async () =>
  (
    await createAccount(database.db, {
      email: `ep${++n}-${Date.now()}@example.test`,
      initialCreditMicroUsd: 0,
    })
  ).accountId;

describe('the endpoint of a callback URL', () => {
  it('is the URL without its query and fragment, host in lower case, default port left out', () => {
    expect(endpointUrlOf('https://Hooks.Example.com:443/mg/video?task=1&t=x#frag')).toBe(
      'https://hooks.example.com/mg/video',
    );
    expect(endpointUrlOf('http://10.0.0.1:8080/a')).toBe('http://10.0.0.1:8080/a');
    expect(endpointUrlOf('https://example.com/a')).not.toBe(endpointUrlOf('https://example.com/b'));
    expect(endpointUrlOf('not a url')).toBeNull();
  });
});

describe('the disable rule (Svix): failing every delivery for longer than the period', () => {
  const fail = (accountId: string, at: number, url = 'https://hooks.example.com/cb?task=1') =>
    recordEndpointFailure(database.db, {
      accountId,
      url,
      error: `HTTP 500 at ${at}`,
      disableAfterMs: PERIOD,
      now: new Date(at),
    });

  it('disables on the first failure past the period since the run began, once', async () => {
    const a = await account();
    const t0 = Date.UTC(2026, 0, 1);
    const first = await fail(a, t0);
    expect(first).toMatchObject({
      disabledNow: false,
      endpoint: { status: 'enabled', url: 'https://hooks.example.com/cb' },
    });
    expect(first!.endpoint.failingSince).toEqual(new Date(t0));
    // failures within the period keep the run's start and disable nothing
    expect(await fail(a, t0 + PERIOD - 1)).toMatchObject({
      disabledNow: false,
      endpoint: { status: 'enabled' },
    });
    // another query string is the same endpoint
    const past = await fail(a, t0 + PERIOD + 1, 'https://HOOKS.example.com/cb?task=2');
    expect(past).toMatchObject({
      disabledNow: true,
      endpoint: { status: 'disabled', lastError: `HTTP 500 at ${t0 + PERIOD + 1}` },
    });
    expect(past!.endpoint.disabledAt).toEqual(new Date(t0 + PERIOD + 1));
    expect(past!.endpoint.disabledReason).toBe(
      `Every delivery failed for good since 2026-01-01 00:00 UTC; the last: HTTP 500 at ${t0 + PERIOD + 1}`,
    );
    // later failures change the last error, not the disable
    const later = await fail(a, t0 + PERIOD + 5);
    expect(later).toMatchObject({ disabledNow: false, endpoint: { status: 'disabled' } });
    expect(later!.endpoint.disabledAt).toEqual(new Date(t0 + PERIOD + 1));
    expect(await countDisabledEndpoints(database.db)).toBeGreaterThanOrEqual(1);
  });

  it('forgives a run older than twice the period: scattered failures never add up to a disable', async () => {
    const a = await account();
    const t0 = Date.UTC(2026, 1, 1);
    await fail(a, t0);
    const much = await fail(a, t0 + 2 * PERIOD + 1);
    expect(much).toMatchObject({ disabledNow: false, endpoint: { status: 'enabled' } });
    expect(much!.endpoint.failingSince).toEqual(new Date(t0 + 2 * PERIOD + 1));
  });

  it('keeps endpoints of different accounts and paths apart', async () => {
    const [a, b] = [await account(), await account()];
    const t0 = Date.UTC(2026, 2, 1);
    await fail(a, t0);
    expect((await fail(b, t0 + PERIOD + 1))!.disabledNow).toBe(false);
    expect((await fail(a, t0 + PERIOD + 1, 'https://hooks.example.com/other'))!.disabledNow).toBe(false);
    expect((await fail(a, t0 + PERIOD + 1))!.disabledNow).toBe(true);
  });

  it('mails the owner once for the fleet; a notice that could not be sent is claimed again', async () => {
    const a = await account();
    const t0 = Date.UTC(2026, 3, 1);
    await fail(a, t0);
    const { endpoint } = (await fail(a, t0 + PERIOD + 1))!;
    const claims = await Promise.all([1, 2, 3].map(() => claimDisabledNotice(database.db, endpoint.id)));
    const claimed = claims.filter((c) => c !== null);
    expect(claimed).toHaveLength(1);
    expect(claimed[0]!.email).toMatch(/^ep\d+-/);
    await releaseNotice(database.db, endpoint.id);
    expect(await claimDisabledNotice(database.db, endpoint.id)).not.toBeNull();
    const mail = endpointDisabledMail(claimed[0]!.email, claimed[0]!.endpoint);
    expect(mail.subject).toContain('https://hooks.example.com/cb');
    expect(mail.text).toContain('since 2026-04-01 00:00 UTC');
    expect(mail.text).toContain(`/v1/webhooks/endpoints/${endpoint.id}/enable`);
  });
});
