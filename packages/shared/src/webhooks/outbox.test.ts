import { createAccount, getAccount } from '../accounts';
import { findLedgerMismatches } from '../billing/ledger';
import type { Database } from '../db/client';
import { newTaskId } from '../ids';
import { createVideoTask, failTask, startTask, succeedTask } from '../tasks/tasks';
import { openTestDatabase } from '../testing/services';
import {
  getDelivery,
  listDueDeliveries,
  listTaskDeliveries,
  recordDeliveryAttempt,
  redeliverDelivery,
  redeliverFailedSince,
} from './outbox';
import {
  activeSigningSecrets,
  getWebhookSettings,
  processingEventsEnabled,
  rotateWebhookSecret,
  updateWebhookEvents,
} from './settings';

let database: Database;
let accountId: string;
let keyId: string;
beforeAll(async () => {
  database = await openTestDatabase({ max: 10 });
  const account = await createAccount(database.db, {
    email: 'outbox@example.test',
    initialCreditMicroUsd: 100_000_000,
  });
  accountId = account.accountId;
  keyId = account.key.id;
});
afterAll(() => database.close());
afterEach(async () => {
  expect(await findLedgerMismatches(database.db)).toEqual([]);
});

const CALLBACK = 'https://hooks.example.test/video';
async function newTask(opts: { callback?: boolean; account?: string; key?: string } = {}): Promise<string> {
  const id = newTaskId();
  await createVideoTask(database.db, {
    id,
    accountId: opts.account ?? accountId,
    apiKeyId: opts.key ?? keyId,
    model: 'wan2.6-i2v-flash-5s-720p',
    prompt: 'a cat',
    metadata: {
      input: { img_url: 'https://example.com/cat.png' },
      ...(opts.callback === false ? {} : { callback_url: CALLBACK }),
    },
    priceMicroUsd: 250_000,
    deadlineAt: new Date(Date.now() + 60_000),
  });
  return id;
}

describe('callback outbox', () => {
  it('commits a success that refunds overcharge with its outbox row and its refund, once', async () => {
    const id = await newTask();
    await startTask(database.db, id);
    const before = (await getAccount(database.db, accountId))!.balanceMicroUsd;
    const refund = { amountMicroUsd: 100_000, reason: 'the vendor billed 3 s of 5' };
    const row = await succeedTask(
      database.db,
      id,
      { videoUrl: 'https://cdn.example.test/v.mp4' },
      { refund },
    );
    expect(row).toMatchObject({ id, status: 'succeeded', videoUrl: 'https://cdn.example.test/v.mp4' });
    expect(row!.deliveryIds).toHaveLength(1);
    expect((await getDelivery(database.db, row!.deliveryIds[0]!))!.eventType).toBe('video.succeeded');
    expect((await getAccount(database.db, accountId))!.balanceMicroUsd).toBe(before + 100_000);
    const usage = await database.pool.query(
      `select refunded_micro_usd::int as refunded, outcome from usage_records where ref = $1`,
      [id],
    );
    expect(usage.rows).toEqual([{ refunded: 100_000, outcome: 'partial' }]);
    // a second success of the same task moves nothing and refunds nothing
    expect(await succeedTask(database.db, id, { videoUrl: 'https://other' }, { refund })).toBeNull();
    expect((await getAccount(database.db, accountId))!.balanceMicroUsd).toBe(before + 100_000);
  });

  it('refunds at most the price of a task whose success reports a larger overcharge', async () => {
    const id = await newTask({ callback: false });
    await startTask(database.db, id);
    const before = (await getAccount(database.db, accountId))!.balanceMicroUsd;
    const row = await succeedTask(
      database.db,
      id,
      { videoUrl: 'https://cdn.example.test/v.mp4' },
      { refund: { amountMicroUsd: 10_000_000, reason: 'nothing billed' } },
    );
    expect(row).toMatchObject({ status: 'succeeded', deliveryIds: [] });
    expect((await getAccount(database.db, accountId))!.balanceMicroUsd).toBe(before + 250_000);
  });

  it('writes video.succeeded with the task object in the transaction of the transition', async () => {
    const id = await newTask();
    await startTask(database.db, id);
    expect(await listTaskDeliveries(database.db, id)).toEqual([]); // processing is opt-in
    const row = await succeedTask(database.db, id, { videoUrl: 'https://cdn.example.test/v.mp4' });
    const [d, ...rest] = await listTaskDeliveries(database.db, id);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({
      id: expect.stringMatching(/^msg_[0-9A-Z]{26}$/),
      accountId,
      taskId: id,
      eventType: 'video.succeeded',
      url: CALLBACK,
      status: 'pending',
      attemptCount: 0,
      attempts: [],
    });
    const body = JSON.parse(d!.payload);
    expect(body).toEqual({
      type: 'video.succeeded',
      created_at: expect.any(Number),
      data: expect.objectContaining({
        id,
        task_id: id,
        object: 'video',
        status: 'succeeded',
        video_url: 'https://cdn.example.test/v.mp4',
        completed_at: Math.floor(row!.completedAt!.getTime() / 1000),
      }),
    });
    // a repeated transition changes nothing and writes nothing
    expect(await succeedTask(database.db, id, { videoUrl: 'https://other' })).toBeNull();
    expect(await listTaskDeliveries(database.db, id)).toHaveLength(1);
  });

  it('writes video.failed with the error, and nothing for a task without callback_url', async () => {
    const id = await newTask();
    await failTask(database.db, id, { code: 'DataInspectionFailed', message: 'bad input' });
    const [d] = await listTaskDeliveries(database.db, id);
    expect(JSON.parse(d!.payload)).toMatchObject({
      type: 'video.failed',
      data: { status: 'failed', error: { code: 'DataInspectionFailed', message: 'bad input' } },
    });
    const quiet = await newTask({ callback: false });
    await startTask(database.db, quiet);
    await failTask(database.db, quiet, { code: 'x', message: 'y' });
    expect(await listTaskDeliveries(database.db, quiet)).toEqual([]);
  });

  it('writes video.processing only for an account that opted in', async () => {
    const other = await createAccount(database.db, {
      email: 'optin@example.test',
      initialCreditMicroUsd: 10_000_000,
    });
    expect(await processingEventsEnabled(database.db, other.accountId)).toBe(false);
    await updateWebhookEvents(database.db, other.accountId, { sendProcessing: true });
    const id = await newTask({ account: other.accountId, key: other.key.id });
    await startTask(database.db, id);
    await succeedTask(database.db, id, { videoUrl: 'https://cdn.example.test/v.mp4' });
    const types = (await listTaskDeliveries(database.db, id)).map((d) => d.eventType);
    expect(types).toEqual(['video.processing', 'video.succeeded']);
    const processing = (await listTaskDeliveries(database.db, id))[0]!;
    expect(JSON.parse(processing.payload).data.status).toBe('processing');
  });

  it('records attempts as a compare-and-set: a second writer of the same attempt writes nothing', async () => {
    const id = await newTask();
    await failTask(database.db, id, { code: 'x', message: 'y' });
    const [d] = await listTaskDeliveries(database.db, id);
    const attempt = {
      startedAt: new Date(),
      latencyMs: 12,
      statusCode: 500,
      error: null,
      responseBody: 'no',
    };
    const first = await recordDeliveryAttempt(database.db, d!, attempt, { kind: 'retry', delayMs: 60_000 });
    expect(first).toMatchObject({
      status: 'pending',
      attemptCount: 1,
      roundAttempts: 1,
      lastStatusCode: 500,
    });
    expect(first!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect(await recordDeliveryAttempt(database.db, d!, attempt, { kind: 'succeeded' })).toBeNull();
    const due = await listDueDeliveries(database.db, { dueBefore: new Date(), limit: 1000 });
    expect(due.map((x) => x.id)).not.toContain(d!.id);
    const done = await recordDeliveryAttempt(
      database.db,
      first!,
      { ...attempt, statusCode: 410 },
      { kind: 'failed', reason: 'endpoint answered 410 Gone' },
    );
    expect(done).toMatchObject({
      status: 'failed',
      attemptCount: 2,
      lastError: 'endpoint answered 410 Gone',
    });
    const [listed] = await listTaskDeliveries(database.db, id);
    expect(listed!.attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 410],
    ]);
  });

  it('redelivers one delivery of the account, and every failed one since a time', async () => {
    const id = await newTask();
    await failTask(database.db, id, { code: 'x', message: 'y' });
    const [d] = await listTaskDeliveries(database.db, id);
    const attempt = { startedAt: new Date(), latencyMs: 1, statusCode: 410, error: null, responseBody: null };
    await recordDeliveryAttempt(database.db, d!, attempt, { kind: 'failed', reason: 'gone' });
    const stranger = await createAccount(database.db, { email: 'stranger@example.test' });
    expect(await redeliverDelivery(database.db, d!.id, stranger.accountId)).toBeNull();
    expect(await redeliverDelivery(database.db, d!.id, accountId)).toMatchObject({
      status: 'pending',
      roundAttempts: 0,
      attemptCount: 1,
      completedAt: null,
    });
    await recordDeliveryAttempt(database.db, (await getDelivery(database.db, d!.id))!, attempt, {
      kind: 'failed',
      reason: 'gone',
    });
    expect(await redeliverFailedSince(database.db, accountId, new Date(Date.now() + 60_000))).toEqual([]);
    const ids = await redeliverFailedSince(database.db, accountId, new Date(Date.now() - 60_000));
    expect(ids).toContain(d!.id);
    expect((await getDelivery(database.db, d!.id))!.status).toBe('pending');
  });
});

describe('webhook settings', () => {
  it('creates one secret on first use and rotates it with a 24 h overlap', async () => {
    const { accountId: acct } = await createAccount(database.db, { email: 'secret@example.test' });
    const [a, b] = await Promise.all([
      getWebhookSettings(database.db, acct),
      getWebhookSettings(database.db, acct),
    ]);
    expect(a.secret).toBe(b.secret);
    expect(activeSigningSecrets(a)).toEqual([a.secret]);
    const now = new Date();
    const rotated = await rotateWebhookSecret(database.db, acct, { now });
    expect(rotated.secret).not.toBe(a.secret);
    expect(rotated.previousSecret).toBe(a.secret);
    expect(rotated.previousSecretExpiresAt!.getTime()).toBe(now.getTime() + 24 * 3_600_000);
    expect(activeSigningSecrets(rotated, now)).toEqual([rotated.secret, a.secret]);
    expect(activeSigningSecrets(rotated, new Date(now.getTime() + 24 * 3_600_000 + 1))).toEqual([
      rotated.secret,
    ]);
  });
});
