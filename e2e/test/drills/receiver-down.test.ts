import { freePort, headersOf, type Receiver, startReceiver, waitFor } from '@mediagate/shared/testing';
import { Webhook } from 'standardwebhooks';
import { type Stack, startStack, VIDEO_REQUEST } from '../stack';
import { checkNothingLost } from './checks';

/**
 * Drill: the webhook receiver is down for the whole run, then comes up. Every task still ends,
 * and every callback is then delivered (verified), each webhook-id once.
 */
const TASKS = Math.min(Number(process.env.DRILL_TASKS ?? 300), 1_000);
jest.setTimeout(600_000);

let stack: Stack;
let rx: Receiver | undefined;

beforeAll(async () => {
  stack = await startStack({
    videoWorkers: 2,
    callbackWorkers: 1,
    env: {
      SSRF_ALLOW_CIDRS: '127.0.0.0/8',
      VIDEO_MAX_ACTIVE_TASKS: '10000000',
      UPSTREAM_SUBMIT_RPS: '0',
      UPSTREAM_POLL_QPS: '0',
      // short steps so the drill sees several refused attempts, then the delivery once the receiver is up
      CALLBACK_RETRY_SCHEDULE: '200ms,500ms,1s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s,2s',
      CALLBACK_RETRY_JITTER: '0.1',
    },
    simEnv: { SIM_VIDEO_PENDING_MS: '100', SIM_VIDEO_RUNNING_MS: '300' },
  });
});
afterAll(async () => {
  await rx?.close();
  await stack?.stop();
});

it(`delivers every callback of a ${TASKS}-task run once a receiver that was down the whole run comes up`, async () => {
  const port = await freePort();
  const key = stack.newKey(TASKS);
  const body = {
    ...VIDEO_REQUEST,
    metadata: { ...VIDEO_REQUEST.metadata, callback_url: `http://127.0.0.1:${port}/hook` },
  };
  for (let i = 0; i < TASKS; i += 25) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(25, TASKS - i) }, () => stack.api('POST', '/v1/videos', key, body)),
    );
    for (const r of batch) expect(r.status).toBe(200);
  }
  await waitFor(
    async () => {
      const { rows } = await stack.pool.query(
        `select count(*)::int as n from tasks where status = 'succeeded'`,
      );
      return rows[0].n === TASKS;
    },
    { timeoutMs: 300_000, intervalMs: 250, what: 'every task to succeed' },
  );
  // nothing answered so far: every delivery is still pending, with refused attempts on record
  await waitFor(
    async () => {
      const { rows } = await stack.pool.query(
        `select count(*)::int as n from callback_deliveries where status = 'pending' and attempt_count >= 2`,
      );
      return rows[0].n === TASKS;
    },
    { timeoutMs: 120_000, intervalMs: 250, what: 'two refused attempts per delivery' },
  );

  rx = await startReceiver(undefined, port);
  await waitFor(
    async () => {
      const { rows } = await stack.pool.query(
        `select count(*)::int as n from callback_deliveries where status = 'succeeded'`,
      );
      return rows[0].n === TASKS;
    },
    { timeoutMs: 300_000, intervalMs: 250, what: 'every delivery to succeed' },
  );
  const secret = (await stack.api('GET', '/v1/webhooks/secret', key)).body.secret as string;
  const ids = new Set<string>();
  for (const r of rx.received) {
    new Webhook(secret).verify(r.body, headersOf(r));
    ids.add(String(r.headers['webhook-id']));
  }
  expect(ids.size).toBe(TASKS);
  const sim = await stack.sim('GET', '/stats');
  const books = await checkNothingLost(stack.pool, sim.video.submitted);
  process.stderr.write(`[drill receiver] ${JSON.stringify(books)} deliveries ${rx.received.length}\n`);
  expect(books).toMatchObject({
    stuck: 0,
    doubleCharges: 0,
    booksOff: 0,
    extraSubmissions: 0,
    unknownSubmissions: 0,
  });
});
