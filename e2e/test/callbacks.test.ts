import { createCallbacksQueue } from '@mediagate/shared/queue';
import { headersOf, type Reply, startReceiver, waitFor } from '@mediagate/shared/testing';
import { Webhook } from 'standardwebhooks';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

/**
 * Callbacks end to end, with real processes: the API, a video worker, a callbacks dispatcher,
 * the reconciler and the upstream simulator; the receiver is a real HTTP server in the test,
 * on loopback, which the stack's SSRF allow-list opens.
 */
let stack: Stack;
let key: string;
let secret: string;
let reply: (n: number) => Reply = () => ({ status: 200 });
let rx: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  stack = await startStack({
    callbackWorkers: 1,
    env: {
      SSRF_ALLOW_CIDRS: '127.0.0.0/8',
      CALLBACK_RETRY_SCHEDULE: '100ms,200ms,300ms',
      CALLBACK_TIMEOUT_MS: '3000',
      CALLBACK_LOCK_DURATION_MS: '1000',
    },
  });
  key = stack.newKey(50);
  rx = await startReceiver((n) => reply(n));
  const res = await stack.api('GET', '/v1/webhooks/secret', key);
  secret = res.body.secret;
});
afterAll(async () => {
  await rx?.close();
  await stack?.stop();
});
beforeEach(async () => {
  await stack.sim('POST', '/reset');
  reply = () => ({ status: 200 });
  rx.received.length = 0;
});

const create = async (callbackPath: string) => {
  const res = await stack.api('POST', '/v1/videos', key, {
    ...VIDEO_REQUEST,
    metadata: { ...VIDEO_REQUEST.metadata, callback_url: `${rx.url}${callbackPath}` },
  });
  expect(res.status).toBe(200);
  return res.body.id as string;
};
const forPath = (p: string) => rx.received.filter((r) => r.path === p);
const deliveryOf = async (taskId: string) =>
  (await stack.pool.query('select * from callback_deliveries where task_id = $1', [taskId])).rows;

describe('callbacks end to end (real processes)', () => {
  it('sends a verified video.succeeded callback when a task ends, visible in its callbacks list', async () => {
    const id = await create('/ok');
    await waitFor(() => forPath('/ok').length === 1, { what: 'the callback', timeoutMs: 30_000 });
    const [req] = forPath('/ok');
    const event = new Webhook(secret).verify(req!.body, headersOf(req!)) as Record<string, any>;
    expect(event).toMatchObject({ type: 'video.succeeded', data: { id, task_id: id, status: 'succeeded' } });
    // the gateway's own signed link, which outlives the vendor's
    expect(event.data.video_url).toMatch(new RegExp(`^${stack.apiUrl}/media/${id}/video\\.mp4\\?exp=`));
    const task = await stack.api('GET', `/v1/videos/${id}`, key);
    expect(event.data).toEqual(task.body);
    const list = await waitFor(async () => {
      const r = await stack.api('GET', `/v1/videos/${id}/callbacks`, key);
      return r.body.data[0]?.status === 'succeeded' ? r.body : null;
    });
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ id: req!.headers['webhook-id'], event_type: 'video.succeeded' });
    expect(list.data[0].attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 200 })]);
  });

  it('sends video.processing to an account that opted in, and video.failed with the error', async () => {
    const optIn = await stack.api('POST', '/v1/webhooks/settings', key, { video_processing: true });
    expect(optIn.status).toBe(200);
    await stack.sim('POST', '/video-outcomes', {
      outcome: 'FAILED',
      code: 'DataInspectionFailed',
      message: 'Input data may contain inappropriate content.',
      count: 1,
    });
    const id = await create('/both');
    await waitFor(() => forPath('/both').length === 2, { what: 'two callbacks', timeoutMs: 30_000 });
    const events = forPath('/both').map((r) => new Webhook(secret).verify(r.body, headersOf(r)) as any);
    const byType = Object.fromEntries(events.map((e) => [e.type, e]));
    expect(Object.keys(byType).sort()).toEqual(['video.failed', 'video.processing']);
    expect(byType['video.processing'].data).toMatchObject({ id, status: 'processing' });
    expect(byType['video.failed'].data).toMatchObject({
      id,
      status: 'failed',
      error: { code: 'DataInspectionFailed' },
    });
    await stack.api('POST', '/v1/webhooks/settings', key, { video_processing: false });
  });

  it('still delivers when the video worker dies between the terminal move and the enqueue', async () => {
    // No dispatcher runs while the crash window is set up.
    for (const w of stack.callbackWorkers.splice(0)) await w.stop('SIGKILL');
    const id = await create('/crash');
    const [delivery] = await waitFor(
      async () => {
        const rows = await deliveryOf(id);
        return rows.length ? rows : null;
      },
      { what: 'the outbox row, committed with the terminal move', timeoutMs: 30_000 },
    );
    const queue = createCallbacksQueue(stack.redis, stack.prefix);
    try {
      // The video worker enqueued the delivery after its commit; take the job away and kill the
      // worker, which is the state a SIGKILL between the commit and the enqueue leaves behind.
      await waitFor(async () => (await queue.getJobState(delivery.id)) === 'waiting', { what: 'the job' });
      const [video] = stack.workers.splice(0);
      await video!.stop('SIGKILL');
      await queue.remove(delivery.id);
      expect(await queue.getJobState(delivery.id)).toBe('unknown');
    } finally {
      await queue.close();
    }
    await stack.addWorker();
    await stack.addCallbacksWorker();
    await waitFor(() => forPath('/crash').length >= 1, {
      what: 'the callback after the crash',
      timeoutMs: 30_000,
    });
    const [req] = forPath('/crash');
    expect(req!.headers['webhook-id']).toBe(delivery.id);
    expect(new Webhook(secret).verify(req!.body, headersOf(req!))).toMatchObject({ type: 'video.succeeded' });
  });

  it('a dispatcher killed in the middle of an attempt: another one sends it again, same webhook-id', async () => {
    let calls = 0;
    reply = () => (++calls === 1 ? 'hang' : { status: 200 });
    const id = await create('/midway');
    await waitFor(() => forPath('/midway').length === 1, { what: 'the first attempt', timeoutMs: 30_000 });
    for (const w of stack.callbackWorkers.splice(0)) await w.stop('SIGKILL');
    await stack.addCallbacksWorker();
    await waitFor(async () => (await deliveryOf(id))[0]?.status === 'succeeded', {
      what: 'the delivery to succeed',
      timeoutMs: 30_000,
    });
    const reqs = forPath('/midway');
    expect(reqs.length).toBeGreaterThanOrEqual(2);
    expect(new Set(reqs.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('an operator redelivers the failed deliveries of an account since a time (CLI)', async () => {
    const since = new Date(Date.now() - 1_000).toISOString();
    reply = () => ({ status: 410 });
    const id = await create('/gone');
    await waitFor(async () => (await deliveryOf(id))[0]?.status === 'failed', {
      what: 'the delivery to fail on 410',
      timeoutMs: 30_000,
    });
    expect(forPath('/gone')).toHaveLength(1);
    reply = () => ({ status: 200 });
    const [d] = await deliveryOf(id);
    const r = stack.cli(['callbacks:redeliver', '--account', d.account_id, '--since', since]);
    expect(r.status).toBe(0);
    expect(Number(r.stdout.trim())).toBeGreaterThanOrEqual(1);
    await waitFor(async () => (await deliveryOf(id))[0]?.status === 'succeeded', { what: 'the redelivery' });
    expect(forPath('/gone')).toHaveLength(2);
    expect(stack.cli(['callbacks:redeliver', '--account', d.account_id]).status).toBe(2);
  });

  it('refuses a callback_url on a private address at creation (only loopback is opened here)', async () => {
    const res = await stack.api('POST', '/v1/videos', key, {
      ...VIDEO_REQUEST,
      metadata: { ...VIDEO_REQUEST.metadata, callback_url: 'http://10.0.0.1/hook' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', param: 'metadata.callback_url' });
  });
});
