import { createLogger } from '@mediagate/shared/log';
import { createMailer } from '@mediagate/shared/mail';
import { enqueueDelivery } from '@mediagate/shared/queue';
import {
  type Receiver,
  startReceiver,
  startTestSmtp,
  type TestSmtp,
  waitFor,
} from '@mediagate/shared/testing';
import { enableWebhookEndpoint, endpointUrlOf } from '@mediagate/shared/webhooks';
import { type CallbacksHarness, startCallbacksHarness } from '../../test/callbacks-harness';

let h: CallbacksHarness;
let smtp: TestSmtp;
const receivers: Receiver[] = [];
beforeAll(async () => {
  h = await startCallbacksHarness();
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
  await h?.close();
  await smtp?.close();
});

const DISABLE_AFTER_MS = 1_500;

const settled = (id: string, status: string) =>
  waitFor(
    async () => {
      const d = await h.delivery(id);
      return d?.status === status ? d : null;
    },
    { what: `delivery ${id} to be ${status}`, timeoutMs: 30_000 },
  );
const endpointOf = async (url: string) =>
  (
    await h.database.pool.query('select * from webhook_endpoints where account_id = $1 and url = $2', [
      h.accountId,
      endpointUrlOf(url),
    ])
  ).rows[0];

describe('failing webhook endpoints (a real failing receiver, Postgres, Redis and SMTP)', () => {
  it('disables an endpoint that failed every delivery for the period, mails its owner, holds what follows, and sends everything it missed once enabled', async () => {
    let up = false;
    const rx = await startReceiver(() => (up ? { status: 200 } : { status: 500, body: 'receiver broken' }));
    receivers.push(rx);
    const dispatcher = h.startDispatcher({
      scheduleMs: [20, 20],
      disableAfterMs: DISABLE_AFTER_MS,
      mailer: createMailer({
        smtpUrl: smtp.url,
        from: 'mediagate <no-reply@example.test>',
        logger: createLogger({ service: 'test', level: 'silent' }),
      }),
    });
    const url = (n: number) => `${rx.url}/hooks/video?task=${n}`;

    // the first delivery to fail for good starts the endpoint's run of failures
    const first = await h.createDelivery(url(1));
    await settled(first.deliveryId, 'failed');
    const failing = await waitFor(async () => (await endpointOf(url(1)))?.failing_since ?? null, {
      what: 'the endpoint to be failing',
    });
    expect(await endpointOf(url(1))).toMatchObject({ status: 'enabled', last_error: 'HTTP 500' });
    // all three attempts of it reached the receiver
    expect(rx.received.filter((r) => r.headers['webhook-id'] === first.deliveryId)).toHaveLength(3);

    // another one, failing for good before the period is over, disables nothing
    const second = await h.createDelivery(url(2));
    await settled(second.deliveryId, 'failed');
    if (Date.now() - new Date(failing).getTime() < DISABLE_AFTER_MS) {
      expect((await endpointOf(url(2))).status).toBe('enabled');
    }

    // once the period is over, the next failure disables it and its owner is mailed why
    await waitFor(async () => Date.now() - new Date(failing).getTime() > DISABLE_AFTER_MS + 100, {
      what: 'the disable period to pass',
    });
    const third = await h.createDelivery(url(3));
    await settled(third.deliveryId, 'failed');
    const disabled = await waitFor(
      async () => {
        const e = await endpointOf(url(3));
        return e?.status === 'disabled' ? e : null;
      },
      { what: 'the endpoint to be disabled' },
    );
    expect(disabled.disabled_reason).toMatch(/^Every delivery failed for good since .*; the last: HTTP 500$/);
    expect(new Date(disabled.failing_since).getTime()).toBe(new Date(failing).getTime());
    const mail = await smtp.nextMail(h.email);
    expect(mail.raw).toContain('webhook endpoint disabled');
    expect(mail.raw).toContain(endpointUrlOf(url(1)));
    expect(mail.raw).toContain('HTTP 500');
    await waitFor(async () => (await endpointOf(url(1))).notified_at !== null, {
      what: 'the notice recorded',
    });

    // while disabled, deliveries are held, not sent and not dropped; no second mail
    const seen = rx.received.length;
    const fourth = await h.createDelivery(url(4));
    const held = await settled(fourth.deliveryId, 'held');
    expect(held).toMatchObject({ attempt_count: 0, held_for: disabled.id });
    expect(rx.received.length).toBe(seen);
    expect(smtp.count(h.email)).toBe(1);

    // the receiver is fixed and the endpoint enabled: the held delivery and those that failed while
    // it was failing are all sent, with their own webhook ids
    up = true;
    const enabled = await enableWebhookEndpoint(h.database.db, {
      accountId: h.accountId,
      endpointId: disabled.id,
      by: h.accountId,
    });
    expect(enabled?.redelivered.sort()).toEqual(
      [first.deliveryId, second.deliveryId, third.deliveryId, fourth.deliveryId].sort(),
    );
    for (const id of enabled!.redelivered) await enqueueDelivery(h.queue, id, { promote: true });
    for (const d of [first, second, third, fourth]) await settled(d.deliveryId, 'succeeded');
    expect(await endpointOf(url(1))).toMatchObject({ status: 'enabled', failing_since: null });
    const delivered = new Set(rx.received.filter((r) => r.n > seen).map((r) => r.headers['webhook-id']));
    expect(delivered).toEqual(new Set([first, second, third, fourth].map((d) => d.deliveryId)));
    await dispatcher.close();
  }, 120_000);

  it('forgives an endpoint whose delivery arrives: failures with successes between them never disable it', async () => {
    let answer = 500;
    const rx = await startReceiver(() => ({ status: answer }));
    receivers.push(rx);
    h.startDispatcher({ scheduleMs: [20], disableAfterMs: 800 });
    const url = `${rx.url}/hook`;
    const failed = await h.createDelivery(url);
    await settled(failed.deliveryId, 'failed');
    await waitFor(async () => (await endpointOf(url))?.failing_since ?? null, { what: 'a run of failures' });
    // one delivery arrives: the run of failures is over
    answer = 204;
    const ok = await h.createDelivery(url);
    await settled(ok.deliveryId, 'succeeded');
    expect((await endpointOf(url)).failing_since).toBeNull();
    // a failure after the period starts a new run instead of disabling the endpoint
    const since = Date.now();
    await waitFor(async () => Date.now() - since > 900, { what: 'the disable period to pass' });
    answer = 503;
    const failedFrom = Date.now();
    const later = await h.createDelivery(url);
    await settled(later.deliveryId, 'failed');
    // the failure is recorded with the delivery's end: the run it starts begins with this failure
    const e = await waitFor(
      async () => {
        const row = await endpointOf(url);
        return row?.failing_since ? row : null;
      },
      { what: 'a new run of failures' },
    );
    expect(e.status).toBe('enabled');
    expect(new Date(e.failing_since).getTime()).toBeGreaterThanOrEqual(failedFrom);
    expect(new Date(e.failing_since).getTime()).toBeLessThanOrEqual(Date.now());
  }, 60_000);
});
