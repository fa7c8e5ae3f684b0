import { deleteTaskMedia, markMediaStored } from '@mediagate/shared/media';
import { failTask, getTask, startTask, succeedTask, TaskEventPublisher } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';

// The console's task pages: the searchable list, a task with its media state, cost and key, and
// the account's live stream on the session.
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ SSE_HEARTBEAT_MS: 200, SSE_RESYNC_MS: 300, SSE_MAX_STREAMS_PER_ACCOUNT: 2 });
});
afterAll(() => api.close());

const get = (p: string, session?: string) => consoleCall(api, 'GET', `/console/api${p}`, session);
type View = {
  id: string;
  status: string;
  media_status: string | null;
  thumbnail_url?: string;
  video_url?: string;
  charged_micro_usd: number | null;
  refunded_micro_usd: number;
  api_key: { id: string; name: string; prefix: string } | null;
};
const create = async (key: string, model?: string) =>
  (
    (await (
      await call(api, 'POST', '/v1/videos', { key, json: videoBody(model ? { model } : {}) })
    ).json()) as {
      id: string;
    }
  ).id;

/** The account's live stream, read by hand as an EventSource would. */
async function openLive(session: string) {
  const controller = new AbortController();
  const res = await fetch(`${api.url}/console/api/videos/events`, {
    headers: { authorization: `Bearer ${session}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const events: Array<{ event: string; data: string }> = [];
  let ended = false;
  const pump = (async () => {
    let buffer = '';
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let i = buffer.indexOf('\n\n'); i >= 0; i = buffer.indexOf('\n\n')) {
          const lines = buffer.slice(0, i).split('\n');
          const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
          const data = lines.find((l) => l.startsWith('data: '))?.slice(6);
          if (event && data !== undefined) events.push({ event, data });
          buffer = buffer.slice(i + 2);
        }
      }
    } catch {
      // aborted
    }
    ended = true;
  })();
  const tasks = () =>
    events.filter((e) => e.event === 'task').map((e) => JSON.parse(e.data) as { id: string; status: string });
  return {
    res,
    tasks,
    ended: () => ended,
    seen: (id: string, status: string) =>
      waitFor(() => tasks().some((t) => t.id === id && t.status === status), {
        what: `${id} ${status} on the live stream`,
        timeoutMs: 5_000,
        intervalMs: 20,
      }),
    close: async () => {
      controller.abort();
      await pump;
    },
  };
}

describe('GET /console/api/videos/events', () => {
  it("streams every move of the account's tasks, and none of another account's", async () => {
    const a = await consoleAccount(api);
    const b = await consoleAccount(api);
    const live = await openLive(a.session);
    expect(live.res.status).toBe(200);
    expect(live.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const other = await openLive(b.session);
    const id = await create(a.key);
    await live.seen(id, 'pending');
    const row = (await getTask(api.database.db, id))!;
    // a worker's move, published through Redis as the workers publish theirs
    new TaskEventPublisher(api.redis, api.prefix).publish({ ...row, status: 'processing', progress: 40 });
    await live.seen(id, 'processing');
    await failTask(api.database.db, id, { code: 'InternalError', message: 'boom' });
    new TaskEventPublisher(api.redis, api.prefix).publish((await getTask(api.database.db, id))!);
    await live.seen(id, 'failed');
    await waitFor(() => other.tasks().length === 0 && live.tasks().length >= 3, { what: 'settled' });
    expect(other.tasks()).toEqual([]);
    await live.close();
    await other.close();
  });

  it('ends when the session ends, refuses a key and caps the open streams of an account', async () => {
    const a = await consoleAccount(api);
    await expectError(
      await call(api, 'GET', '/console/api/videos/events', { key: a.key }),
      401,
      'invalid_session',
    );
    const first = await openLive(a.session);
    const second = await openLive(a.session);
    const third = await get('/videos/events', a.session);
    await expectError(third, 429, 'rate_limit_exceeded');
    await second.close();
    expect((await consoleCall(api, 'POST', '/console/api/logout', a.session)).status).toBe(200);
    await waitFor(() => first.ended(), { what: 'the stream of an ended session to end', timeoutMs: 5_000 });
  });
});

describe('GET /console/api/videos', () => {
  it('finds tasks by the start of their id, key, model and day, with cost and key', async () => {
    const a = await consoleAccount(api);
    const first = await create(a.key);
    const second = await create(a.key);
    const list = (await expectContract(
      await get('/videos', a.session),
      contractFor('get /console/api/videos'),
      200,
    )) as { data: View[] };
    expect(list.data.map((t) => t.id)).toEqual([second, first]);
    expect(list.data[0]).toMatchObject({
      charged_micro_usd: expect.any(Number),
      refunded_micro_usd: 0,
      api_key: { id: a.keyId, name: expect.any(String), prefix: expect.stringMatching(/^sk-/) },
      media_status: null,
    });
    expect(list.data[0]!.charged_micro_usd).toBeGreaterThan(0);
    const ids = async (q: string) =>
      ((await (await get(`/videos?${q}`, a.session)).json()) as { data: View[] }).data.map((t) => t.id);
    expect(await ids(`id=${first}`)).toEqual([first]);
    expect(await ids(`id=${first.slice(0, 20)}`)).toContain(first);
    expect(await ids(`key_id=${a.keyId}`)).toEqual([second, first]);
    expect(await ids('key_id=key_none')).toEqual([]);
    expect(await ids('model=no-such-model')).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    expect(await ids(`created_from=${today}&created_to=${today}`)).toEqual([second, first]);
    expect(await ids('created_to=2020-01-01')).toEqual([]);
    // the `_` of a task id is a character, not a LIKE wildcard
    expect(await ids('id=task%5F')).toEqual([second, first]);
    expect(await ids('id=tas_')).toEqual([]);
    await expectError(await get('/videos?created_from=yesterday', a.session), 400, 'invalid_request');
    await expectError(await get('/videos?id=a%25b', a.session), 400, 'invalid_request');
  });

  it('links a first frame only once it is stored, and says when the video was deleted', async () => {
    const a = await consoleAccount(api);
    const id = await create(a.key);
    await startTask(api.database.db, id);
    await succeedTask(
      api.database.db,
      id,
      { videoUrl: 'https://vendor.example/v.mp4' },
      { media: api.deps.media.signer.linksFor(id, new Date(Date.now() + 86_400_000)) },
    );
    const view = async () => (await (await get(`/videos/${id}`, a.session)).json()) as View;
    const copying = await view();
    expect(copying).toMatchObject({ status: 'succeeded', media_status: 'pending' });
    expect(copying.video_url).toBeDefined();
    // the first frame does not exist until the copy is stored: no link that answers 404
    expect(copying.thumbnail_url).toBeUndefined();
    await markMediaStored(api.database.db, id, {
      storageKey: `videos/${id}.mp4`,
      bytes: 10,
      sha256: 'x'.repeat(64),
      contentType: 'video/mp4',
      thumbnailKey: `videos/${id}.jpg`,
      thumbnailBytes: 5,
    });
    expect((await view()).thumbnail_url).toBeDefined();
    await deleteTaskMedia(api.database.db, api.deps.media.storage, id);
    const deleted = await view();
    expect(deleted).toMatchObject({ status: 'succeeded', media_status: 'deleted' });
    expect(deleted.video_url).toBeUndefined();
    expect(deleted.thumbnail_url).toBeUndefined();
  });
});
