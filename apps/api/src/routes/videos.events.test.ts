import { createToken, ensureAdminAccount } from '@mediagate/shared/accounts';
import {
  getTask,
  startTask,
  succeedTask,
  TaskDurations,
  TaskEventPublisher,
  updateProgress,
} from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosEvents from './videos.events';
import * as videosGet from './videos.get';

let api: TestApi;
let publisher: TaskEventPublisher;
beforeAll(async () => {
  api = await startTestApi({
    SSE_HEARTBEAT_MS: 200,
    SSE_MAX_STREAMS_PER_KEY: 2,
    SSE_MAX_STREAMS_PER_ACCOUNT: 3,
    SSE_MAX_STREAMS: 6,
    SSE_RETRY_MS: 1500,
  });
  publisher = new TaskEventPublisher(api.redis, api.prefix);
});
afterAll(() => api.close());

interface SseEvent {
  id?: string;
  data?: string;
  comment?: boolean;
  retry?: string;
}

/** An event stream read by hand, as an EventSource would: one parsed block at a time. */
async function openStream(base: string, taskId: string, key: string, lastEventId?: string) {
  const controller = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const res = await fetch(`${base}/v1/videos/${taskId}/events`, { headers, signal: controller.signal });
  const blocks: SseEvent[] = [];
  let ended = false;
  let buffer = '';
  const pump = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const block: SseEvent = {};
          for (const line of buffer.slice(0, i).split('\n')) {
            if (line.startsWith(':')) block.comment = true;
            else if (line.startsWith('id: ')) block.id = line.slice(4);
            else if (line.startsWith('data: ')) block.data = line.slice(6);
            else if (line.startsWith('retry: ')) block.retry = line.slice(7);
          }
          blocks.push(block);
          buffer = buffer.slice(i + 2);
        }
      }
    } catch {
      // aborted
    }
    ended = true;
  })();
  const events = () => blocks.filter((b) => b.data !== undefined);
  return {
    res,
    blocks,
    events,
    tasks: () => events().map((e) => JSON.parse(e.data!) as { status: string; progress: number }),
    ended: () => ended,
    next: (n: number) =>
      waitFor(() => (events().length >= n ? events()[n - 1]! : null), {
        what: `event ${n}`,
        timeoutMs: 10_000,
      }),
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

const create = async (key: string) =>
  ((await (await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).json()) as { id: string }).id;
const publish = async (taskId: string) => publisher.publish((await getTask(api.database.db, taskId))!);

describe('GET /v1/videos/:task_id/events', () => {
  it('streams every move across replicas, resumes with Last-Event-ID, and ends at the terminal state', async () => {
    const { key } = await api.account();
    const id = await create(key); // through replica A
    const b = await api.replica();
    const first = await openStream(b.url, id, key); // served by replica B
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(videosEvents.contract.responses[200]?.contentType).toBe('text/event-stream');
    expect(first.res.headers.get('cache-control')).toMatch(/no-cache/);
    const pending = await first.next(1);
    expect(JSON.parse(pending.data!)).toMatchObject({ id, status: 'pending', object: 'video' });
    expect(first.blocks[0]!.retry).toBe('1500');

    await startTask(api.database.db, id);
    await publish(id); // what the worker does after each move
    const processing = await first.next(2);
    expect(JSON.parse(processing.data!)).toMatchObject({ status: 'processing', progress: 0 });
    expect(Number(processing.id)).toBeGreaterThan(Number(pending.id));
    // heartbeats keep the idle stream open
    await waitFor(() => first.blocks.some((block) => block.comment), { what: 'a heartbeat' });
    await first.close();

    // a move while the client is away, then a reconnect to the other replica
    await updateProgress(api.database.db, id, 50);
    await publish(id);
    const second = await openStream(api.url, id, key, processing.id);
    const resumed = await second.next(1);
    expect(JSON.parse(resumed.data!)).toMatchObject({ status: 'processing', progress: 50 });
    expect(Number(resumed.id)).toBeGreaterThan(Number(processing.id));

    await succeedTask(api.database.db, id, { videoUrl: 'https://cdn.example/v.mp4' });
    await publish(id);
    const done = await second.next(2);
    expect(JSON.parse(done.data!)).toMatchObject({
      status: 'succeeded',
      video_url: 'https://cdn.example/v.mp4',
    });
    await waitFor(() => second.ended(), { what: 'the stream to end after the terminal state' });
    expect(second.tasks().map((t) => t.status)).toEqual(['processing', 'succeeded']);

    // resuming after the end: the terminal state once, then the end
    const third = await openStream(b.url, id, key, processing.id);
    await waitFor(() => third.ended(), { what: 'the stream of a finished task to end' });
    expect(third.tasks().map((t) => t.status)).toEqual(['succeeded']);
    // resuming with the terminal id: nothing more to say
    const fourth = await openStream(b.url, id, key, done.id);
    await waitFor(() => fourth.ended(), { what: 'the stream to end at once' });
    expect(fourth.events()).toEqual([]);
    await b.close();
  });

  it('catches up by re-reading the task when a move was not published', async () => {
    const quiet = await startTestApi({ SSE_RESYNC_MS: 200 });
    try {
      const { key } = await quiet.account();
      const id = (
        (await (await call(quiet, 'POST', '/v1/videos', { key, json: videoBody() })).json()) as { id: string }
      ).id;
      const stream = await openStream(quiet.url, id, key);
      await stream.next(1);
      await startTask(quiet.database.db, id); // no publish
      expect(JSON.parse((await stream.next(2)).data!)).toMatchObject({ status: 'processing' });
      await stream.close();
    } finally {
      await quiet.close();
    }
  });

  it('answers 404 for a task of another account, an unknown task and a malformed id; 401 without a key', async () => {
    const owner = await api.account();
    const other = await api.account();
    const id = await create(owner.key);
    for (const path of [
      `/v1/videos/${id}/events`,
      '/v1/videos/task_01ARZ3NDEKTSV4RRFFQ69G5FAV/events',
      '/v1/videos/nope/events',
    ]) {
      await expectError(await call(api, 'GET', path, { key: other.key }), 404, 'not_found');
    }
    await expectError(await call(api, 'GET', `/v1/videos/${id}/events`), 401, 'invalid_api_key');
  });

  it('bounds the streams one key holds open, and frees a slot when a stream closes', async () => {
    const { key } = await api.account();
    const id = await create(key);
    const a = await openStream(api.url, id, key);
    const b = await openStream(api.url, id, key);
    await a.next(1);
    await b.next(1);
    const refused = await call(api, 'GET', `/v1/videos/${id}/events`, { key });
    const err = await expectError(refused, 429, 'rate_limit_exceeded');
    expect(err.message).toMatch(/event streams/);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    // another key of another account is not affected
    const other = await api.account();
    const otherStream = await openStream(api.url, await create(other.key), other.key);
    expect(otherStream.res.status).toBe(200);
    await otherStream.close();
    await a.close();
    await waitFor(
      async () => {
        const again = await openStream(api.url, id, key);
        const ok = again.res.status === 200;
        await again.close();
        return ok;
      },
      { what: 'the closed stream to free its slot' },
    );
    await b.close();
  });
});

describe('event streams end when their key stops authenticating, on every replica', () => {
  let admin: string;
  beforeAll(async () => {
    await ensureAdminAccount(api.database.db, { email: 'ops@example.test', password: 'operator-password' });
    const res = await call(api, 'POST', '/console/api/login', {
      json: { email: 'ops@example.test', password: 'operator-password' },
    });
    admin = ((await res.json()) as { token: string }).token;
  });

  /**
   * A stream of the key's task on each of two replicas, open and past its first event. Each replica
   * re-reads its streams' keys only every 30 s (SSE_RESYNC_MS): ending within 2 s is the
   * announcement's doing.
   */
  async function streamsOnTwoReplicas(key: string) {
    const id = await create(key);
    const other = await api.replica();
    const streams = [await openStream(api.url, id, key), await openStream(other.url, id, key)];
    for (const s of streams) await s.next(1);
    return { id, other, streams };
  }
  const endSoon = (s: { ended: () => boolean }, what: string) =>
    waitFor(() => s.ended(), { what, timeoutMs: 2_000, intervalMs: 20 });

  it('ends them when the key is disabled, and a reconnect is refused', async () => {
    const user = await consoleAccount(api);
    const { id, other, streams } = await streamsOnTwoReplicas(user.key);
    const res = await consoleCall(api, 'PATCH', `/console/api/tokens/${user.keyId}`, user.session, {
      status: 'disabled',
    });
    expect(res.status).toBe(200);
    for (const [i, s] of streams.entries()) await endSoon(s, `the stream on replica ${i} to end`);
    await expectError(
      await call(other, 'GET', `/v1/videos/${id}/events`, { key: user.key }),
      401,
      'invalid_api_key',
    );
    // a move after the revocation reaches nobody
    await startTask(api.database.db, id);
    await publish(id);
    for (const s of streams) expect(s.tasks().map((t) => t.status)).toEqual(['pending']);
    await other.close();
  });

  it('ends them when the key is deleted', async () => {
    const user = await consoleAccount(api);
    const { other, streams } = await streamsOnTwoReplicas(user.key);
    expect(
      (await consoleCall(other, 'DELETE', `/console/api/tokens/${user.keyId}`, user.session)).status,
    ).toBe(200);
    for (const [i, s] of streams.entries()) await endSoon(s, `the stream on replica ${i} to end`);
    await other.close();
  });

  it("ends every key's streams when an operator disables the account", async () => {
    const user = await consoleAccount(api);
    const second = await createToken(api.database.db, user.accountId, { name: 'second' });
    const { other, streams } = await streamsOnTwoReplicas(user.key);
    const more = await openStream(other.url, await create(second.key.key), second.key.key);
    await more.next(1);
    const res = await consoleCall(api, 'POST', `/admin/api/accounts/${user.accountId}/disable`, admin);
    expect(res.status).toBe(200);
    for (const [i, s] of [...streams, more].entries()) await endSoon(s, `stream ${i} to end`);
    await other.close();
  });

  it('keeps them open through a change that leaves the key working', async () => {
    const user = await consoleAccount(api);
    const { id, other, streams } = await streamsOnTwoReplicas(user.key);
    const res = await consoleCall(api, 'PATCH', `/console/api/tokens/${user.keyId}`, user.session, {
      name: 'renamed',
    });
    expect(res.status).toBe(200);
    await startTask(api.database.db, id);
    await publish(id);
    for (const s of streams) {
      await s.next(2);
      expect(s.ended()).toBe(false);
      await s.close();
    }
    await other.close();
  });
});

describe('caps on open event streams', () => {
  it('bounds the streams of one account across its keys (on this replica), with a 429 naming it', async () => {
    const { key, accountId } = await api.account();
    const second = (await createToken(api.database.db, accountId, { name: 'second' })).key.key;
    const id = await create(key);
    const id2 = await create(second);
    const open = [
      await openStream(api.url, id, key),
      await openStream(api.url, id, key),
      await openStream(api.url, id2, second),
    ];
    for (const s of open) await s.next(1);
    const refused = await call(api, 'GET', `/v1/videos/${id2}/events`, { key: second });
    const err = await expectError(refused, 429, 'rate_limit_exceeded');
    expect(err.message).toMatch(/for this account \(at most 3/);
    expect(refused.headers.get('retry-after')).toBe('5');
    // another replica counts its own
    const other = await api.replica();
    const elsewhere = await openStream(other.url, id2, second);
    expect(elsewhere.res.status).toBe(200);
    await elsewhere.close();
    await other.close();
    for (const s of open) await s.close();
  });

  it('bounds the streams one replica holds in all, whoever opens them', async () => {
    const held = [];
    for (let i = 0; i < 3; i++) {
      const { key } = await api.account();
      const id = await create(key);
      for (let j = 0; j < 2; j++) held.push(await openStream(api.url, id, key));
    }
    for (const s of held) await s.next(1);
    expect(api.deps.taskEvents?.openStreams()).toBe(6);
    const { key } = await api.account();
    const id = await create(key);
    const refused = await call(api, 'GET', `/v1/videos/${id}/events`, { key });
    const err = await expectError(refused, 429, 'rate_limit_exceeded');
    expect(err.message).toMatch(/This server holds as many event streams as it takes/);
    await held.pop()!.close();
    await waitFor(() => api.deps.taskEvents?.openStreams() === 5, {
      what: 'a closed stream to free its place',
    });
    const taken = await openStream(api.url, id, key);
    expect(taken.res.status).toBe(200);
    await taken.close();
    for (const s of held) await s.close();
  });
});

describe('polling an unfinished task', () => {
  it('is served from memory, replaced by each published move at once on every replica', async () => {
    const { key } = await api.account();
    const id = await create(key);
    const b = await api.replica();
    const get = async (base: string) =>
      (await expectContract(
        await fetch(`${base}/v1/videos/${id}`, { headers: { authorization: `Bearer ${key}` } }),
        videosGet.contract,
        200,
      )) as {
        status: string;
        progress: number;
      };
    expect((await get(b.url)).status).toBe('pending');
    await startTask(api.database.db, id);
    // a published move replaces it at once, on both replicas
    await updateProgress(api.database.db, id, 50);
    await publish(id);
    await waitFor(async () => (await get(b.url)).progress === 50, {
      what: 'replica B to see the move',
      timeoutMs: 1_000,
    });
    expect(await get(api.url)).toMatchObject({ status: 'processing', progress: 50 });
    // the terminal move goes to the finished-task cache
    await succeedTask(api.database.db, id, { videoUrl: 'https://cdn.example/v.mp4' });
    await publish(id);
    await waitFor(async () => (await get(b.url)).status === 'succeeded', {
      what: 'the terminal state',
      timeoutMs: 1_000,
    });
    await b.close();
  });

  it('carries estimated_completion_at once durations are learned for its model', async () => {
    const { key } = await api.account();
    const durations = new TaskDurations(api.redis, api.prefix);
    for (let s = 30; s <= 60; s++) await durations.record('wan2.6-i2v-flash-5s-720p', s * 1_000);
    api.deps.durations?.forget();
    const id = await create(key);
    const res = await call(api, 'GET', `/v1/videos/${id}`, { key });
    const body = (await expectContract(res, videosGet.contract, 200)) as {
      estimated_completion_at: number;
      created_at: number;
    };
    expect(body.estimated_completion_at).toBeGreaterThanOrEqual(body.created_at + 30);
    expect(body.estimated_completion_at).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);
  });
});
