import { createLogger } from '@mediagate/shared/log';
import { headersOf, type Receiver, startReceiver, waitFor } from '@mediagate/shared/testing';
import { rotateWebhookSecret } from '@mediagate/shared/webhooks';
import { Webhook } from 'standardwebhooks';
import { type CallbacksHarness, startCallbacksHarness } from '../../test/callbacks-harness';
import { reconcileOnce } from '../reconciler';

let h: CallbacksHarness;
const receivers: Receiver[] = [];
const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  h = await startCallbacksHarness();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await h?.close();
});

const settled = (id: string, timeoutMs = 20_000) =>
  waitFor(
    async () => {
      const d = await h.delivery(id);
      return d && d.status !== 'pending' ? d : null;
    },
    { what: `delivery ${id} to settle`, timeoutMs },
  );

describe('callback dispatcher (real HTTP receivers)', () => {
  it('delivers a signed video.failed event that the standardwebhooks package verifies', async () => {
    const rx = await receiver();
    const dispatcher = h.startDispatcher();
    const { taskId, deliveryId } = await h.createDelivery(`${rx.url}/hooks/video?x=1`);
    const d = await settled(deliveryId);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1, last_status_code: 200 });
    expect(rx.received).toHaveLength(1);
    const [req] = rx.received;
    expect(req!.path).toBe('/hooks/video?x=1');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['webhook-id']).toBe(deliveryId);
    expect(Math.abs(Number(req!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const [payload] = rx.verifyAll(await h.secret());
    expect(payload).toMatchObject({
      type: 'video.failed',
      created_at: expect.any(Number),
      data: {
        id: taskId,
        task_id: taskId,
        object: 'video',
        status: 'failed',
        error: { code: 'DataInspectionFailed', message: 'refused upstream' },
      },
    });
    const [attempt] = await h.attempts(deliveryId);
    expect(attempt).toMatchObject({ attempt: 1, status_code: 200, error: null, response_body: 'ok' });
    expect(attempt.latency_ms).toBeGreaterThanOrEqual(0);
    await dispatcher.close();
  });

  it('retries 500, 500, then 200: three attempts with one webhook-id and the same body', async () => {
    const rx = await receiver((n) => ({ status: n <= 2 ? 500 : 200, body: `answer ${n}` }));
    const dispatcher = h.startDispatcher({ scheduleMs: [30, 30, 30] });
    const { deliveryId } = await h.createDelivery(rx.url);
    const d = await settled(deliveryId);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 3 });
    expect(rx.received).toHaveLength(3);
    expect(new Set(rx.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([deliveryId]));
    expect(new Set(rx.received.map((r) => r.body)).size).toBe(1);
    rx.verifyAll(await h.secret());
    const attempts = await h.attempts(deliveryId);
    expect(attempts.map((a) => [a.attempt, a.status_code, a.error, a.response_body])).toEqual([
      [1, 500, 'HTTP 500', 'answer 1'],
      [2, 500, 'HTTP 500', 'answer 2'],
      [3, 200, null, 'answer 3'],
    ]);
    await dispatcher.close();
  });

  it('stops at once on 410 Gone', async () => {
    const rx = await receiver(() => ({ status: 410 }));
    const dispatcher = h.startDispatcher();
    const { deliveryId } = await h.createDelivery(rx.url);
    const d = await settled(deliveryId);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 1, last_error: 'HTTP 410' });
    expect(rx.received).toHaveLength(1);
    expect(await h.queue.getJobState(deliveryId)).toBe('unknown'); // nothing left scheduled
    await dispatcher.close();
  });

  it('ends failed after the last step of the schedule, and follows no redirect', async () => {
    const rx = await receiver((_n, r) =>
      r.path === '/elsewhere' ? { status: 200 } : { status: 302, headers: { location: '/elsewhere' } },
    );
    const dispatcher = h.startDispatcher({ scheduleMs: [10, 10] });
    const { deliveryId } = await h.createDelivery(`${rx.url}/hook`);
    const d = await settled(deliveryId);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 3, last_status_code: 302 });
    expect(rx.received.map((r) => r.path)).toEqual(['/hook', '/hook', '/hook']);
    await dispatcher.close();
  });

  it('times out a hanging receiver and retries it', async () => {
    const rx = await receiver((n) => (n === 1 ? 'hang' : { status: 204 }));
    const dispatcher = h.startDispatcher({ timeoutMs: 300 });
    const { deliveryId } = await h.createDelivery(rx.url);
    const d = await settled(deliveryId);
    expect(d).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    const [first, second] = await h.attempts(deliveryId);
    expect(first).toMatchObject({ status_code: null, error: 'timed out after 300 ms' });
    expect(first.latency_ms).toBeGreaterThanOrEqual(280);
    expect(second).toMatchObject({ status_code: 204 });
    expect(rx.received[0]!.headers['webhook-id']).toBe(rx.received[1]!.headers['webhook-id']);
    await dispatcher.close();
  });

  it('does not let a slow endpoint delay deliveries to another one', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver();
    const dispatcher = h.startDispatcher({ timeoutMs: 10_000, concurrency: 4, perHost: 2, scheduleMs: [] });
    const stuck = await Promise.all(Array.from({ length: 8 }, () => h.createDelivery(slow.url)));
    await waitFor(() => slow.inFlight() === 2, { what: 'the slow host to fill its slots' });
    const started = Date.now();
    const { deliveryId } = await h.createDelivery(fast.url);
    const d = await settled(deliveryId, 8_000);
    expect(d.status).toBe('succeeded');
    expect(Date.now() - started).toBeLessThan(5_000);
    // the slow host never had more than its share of the dispatcher, and none of its deliveries ended yet
    expect(slow.maxInFlight()).toBe(2);
    for (const s of stuck) expect((await h.delivery(s.deliveryId)).status).toBe('pending');
    await dispatcher.close();
    await h.abandon(slow.url);
  });

  it('keeps hundreds of deliveries in flight at once in one process', async () => {
    const rx = await receiver(() => 'hang');
    const dispatcher = h.startDispatcher({
      timeoutMs: 20_000,
      concurrency: 1_000,
      perHost: 1_000,
      scheduleMs: [],
    });
    try {
      await Promise.all(Array.from({ length: 200 }, () => h.createDelivery(`${rx.url}/many`)));
      await waitFor(() => rx.inFlight() === 200, { what: '200 requests in flight', timeoutMs: 30_000 });
    } finally {
      // closed even when the wait fails, so its worker cannot take the next tests' deliveries
      await dispatcher.close();
      await h.abandon(`${rx.url}/many`);
    }
  });

  it('honours Retry-After on 429', async () => {
    const rx = await receiver((n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    const dispatcher = h.startDispatcher({ scheduleMs: [20, 20] });
    const { deliveryId } = await h.createDelivery(rx.url);
    await settled(deliveryId);
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]!.at - rx.received[0]!.at).toBeGreaterThanOrEqual(950);
    await dispatcher.close();
  });

  it('reads only the start of a large answer', async () => {
    const rx = await receiver(() => ({ status: 500, body: 'x'.repeat(200_000) }));
    const dispatcher = h.startDispatcher({ scheduleMs: [], maxResponseBytes: 64 });
    const { deliveryId } = await h.createDelivery(rx.url);
    await settled(deliveryId);
    const [a] = await h.attempts(deliveryId);
    expect(a.response_body).toBe('x'.repeat(64));
    await dispatcher.close();
  });

  it('sends the old and the new signature after a rotation; each verifies alone', async () => {
    const rx = await receiver();
    const oldSecret = await h.secret();
    const rotated = await rotateWebhookSecret(h.database.db, h.accountId);
    const dispatcher = h.startDispatcher();
    const { deliveryId } = await h.createDelivery(rx.url);
    await settled(deliveryId);
    const [req] = rx.received;
    expect(String(req!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(req!.body, headersOf(req!))).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(req!.body, headersOf(req!))).not.toThrow();
    await dispatcher.close();
  });

  it('refuses at connect time a name that resolves to a forbidden address (resolver injected)', async () => {
    const rx = await receiver();
    const dispatcher = h.startDispatcher({
      allowCidrs: '',
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const { deliveryId } = await h.createDelivery(`http://hooks.rebind.test:${rx.port}/`);
    const literal = await h.createDelivery(`http://[::ffff:127.0.0.1]:${rx.port}/`);
    const d = await settled(deliveryId);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: null });
    expect(d.last_error).toMatch(/non-public address \(loopback\)/);
    expect((await settled(literal.deliveryId)).status).toBe('failed');
    expect(rx.received).toHaveLength(0);
    await dispatcher.close();
  });

  it('delivers a due delivery whose job is gone once the reconciler re-enqueues it', async () => {
    const rx = await receiver();
    const dispatcher = h.startDispatcher();
    const { deliveryId } = await h.createDelivery(rx.url, { enqueue: false });
    expect(await h.queue.getJobState(deliveryId)).toBe('unknown');
    const deps = {
      database: h.database,
      redis: h.redis,
      videoQueue: h.queue, // no video tasks are active in this file
      callbacksQueue: h.queue,
      logger: createLogger({ service: 'reconciler-test', level: 'silent' }),
      config: {
        intervalMs: 1_000,
        graceMs: 0,
        imageSettleAfterMs: 15 * 60_000,
        lockKey: `${h.prefix}:reconciler-lock`,
      },
    };
    const res = await reconcileOnce(deps);
    expect(res.callbacksRequeued).toBeGreaterThanOrEqual(1);
    // the re-enqueued job may already have run and been removed by the time the sweep returns
    expect((await settled(deliveryId)).status).toBe('succeeded');
    expect(rx.received).toHaveLength(1);
    await reconcileOnce(deps);
    expect(rx.received).toHaveLength(1); // a delivered one is never enqueued again
    await dispatcher.close();
  });
});
