import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { LruCache } from '@mediagate/shared/lru';
import {
  firstFrameJpeg,
  getTaskMedia,
  markMediaStored,
  mediaRetentionMs,
  thumbnailKey,
  videoKey,
} from '@mediagate/shared/media';
import { failTask, getTask, startTask, succeedTask, TaskEventPublisher } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import { firstFrameWaiters } from '../media/first-frame';
import * as videosDelete from './videos.delete';

const SAMPLE = path.resolve(__dirname, '../../../upstream-sim/assets/sample.mp4');
const sampleBytes = readFileSync(SAMPLE);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const VENDOR_URL = 'https://dashscope-result.oss-cn-beijing.aliyuncs.com/x/video.mp4?Expires=1';

let api: TestApi;
let owner: { key: string; accountId: string };
let other: { key: string; accountId: string };

beforeAll(async () => {
  api = await startTestApi();
  // answers of finished tasks from memory, as the server runs (the routes read deps per request)
  api.deps.taskCache = new LruCache(1_000);
  owner = await api.account(50);
  other = await api.account(50);
});
afterAll(async () => {
  await api?.close();
});
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const create = async (key = owner.key) =>
  ((await (await call(api, 'POST', '/v1/videos', { key, json: videoBody() })).json()) as { id: string }).id;

/** A task moved to succeeded the way the worker does it: signed links, and the media row to copy from. */
async function succeeded(opts: { stored?: boolean } = {}): Promise<string> {
  const id = await create();
  await startTask(api.database.db, id);
  const expiresAt = new Date(Date.now() + mediaRetentionMs({ MEDIA_RETENTION_DAYS: 7 }));
  await succeedTask(
    api.database.db,
    id,
    { videoUrl: VENDOR_URL },
    {
      media: api.deps.media.signer.linksFor(id, expiresAt),
    },
  );
  if (opts.stored !== false) await storeCopy(id);
  return id;
}

/** The media copy as the worker makes it: the video and its first frame stored, the row marked. */
async function storeCopy(id: string): Promise<void> {
  const { storage } = api.deps.media;
  const put = await storage.put(videoKey(id), Readable.from([sampleBytes]), {
    contentType: 'video/mp4',
    maxBytes: 1e9,
  });
  const jpeg = await firstFrameJpeg('ffmpeg', await storage.readableLocation(videoKey(id)));
  await storage.put(thumbnailKey(id), Readable.from([jpeg]), { contentType: 'image/jpeg', maxBytes: 1e9 });
  await markMediaStored(api.database.db, id, {
    storageKey: videoKey(id),
    bytes: put.bytes,
    sha256: put.sha256,
    contentType: 'video/mp4',
    thumbnailKey: thumbnailKey(id),
    thumbnailBytes: jpeg.length,
  });
}

const taskObject = async (id: string, key = owner.key) =>
  (await (await call(api, 'GET', `/v1/videos/${id}`, { key })).json()) as Record<string, unknown>;
const content = (id: string, query = '', headers: Record<string, string> = {}, key = owner.key) =>
  call(api, 'GET', `/v1/videos/${id}/content${query}`, { key, headers });
const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());

describe('the task object of a succeeded task', () => {
  it('carries signed links of the gateway and expires_at, not the vendor link', async () => {
    const id = await succeeded();
    const task = await taskObject(id);
    expect(task.video_url).toMatch(
      new RegExp(`^http://127.0.0.1:8080/media/${id}/video.mp4\\?exp=\\d+&sig=`),
    );
    expect(task.thumbnail_url).toMatch(new RegExp(`/media/${id}/thumbnail.jpg\\?exp=\\d+&sig=`));
    expect(task.expires_at).toBe(Number(new URL(String(task.video_url)).searchParams.get('exp')));
    expect(JSON.stringify(task)).not.toContain('aliyuncs');
  });
});

describe('the finished-task cache', () => {
  it('never answers a link past its expiry', async () => {
    const id = await create();
    await startTask(api.database.db, id);
    const expiresAt = new Date(Date.now() + 1_500);
    await succeedTask(
      api.database.db,
      id,
      { videoUrl: VENDOR_URL },
      {
        media: api.deps.media.signer.linksFor(id, expiresAt),
      },
    );
    expect((await taskObject(id)).video_url).toBeDefined(); // now cached
    expect(api.deps.taskCache?.get(id)).toBeDefined();
    // a read that began before the expiry may rightly carry the link: only one begun after it counts
    const after = await waitFor(async () => {
      const begun = Date.now();
      const task = await taskObject(id);
      return begun >= expiresAt.getTime() ? task : null;
    });
    expect(after.video_url).toBeUndefined();
    expect(after.expires_at).toBe(Math.floor(expiresAt.getTime() / 1000));
  });
});

describe('GET /v1/videos/:id/content', () => {
  it('serves the stored video whole, with type, length, ETag and caching headers', async () => {
    const id = await succeeded();
    const res = await content(id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-length')).toBe(String(sampleBytes.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('etag')).toBe(`"${sha(sampleBytes)}"`);
    expect(res.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(sha(await bytesOf(res))).toBe(sha(sampleBytes));
  });

  it('answers a byte range with 206, a matching ETag with 304, a range outside the file with 416', async () => {
    const id = await succeeded();
    const part = await content(id, '', { range: 'bytes=4-11' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 4-11/${sampleBytes.length}`);
    expect((await bytesOf(part)).toString('latin1')).toBe(sampleBytes.subarray(4, 12).toString('latin1'));
    const tail = await content(id, '', { range: 'bytes=-100' });
    expect(tail.status).toBe(206);
    expect(tail.headers.get('content-type')).toBe(
      contractFor('get /v1/videos/:taskId/content').responses[206]?.contentType,
    );
    expect(Buffer.compare(await bytesOf(tail), sampleBytes.subarray(-100))).toBe(0);
    const whole = await content(id);
    await whole.arrayBuffer();
    const etag = whole.headers.get('etag')!;
    const cached = await content(id, '', { 'if-none-match': etag });
    await expectContract(cached, contractFor('get /v1/videos/:taskId/content'), 304);
    const outside = await content(id, '', { range: `bytes=${sampleBytes.length + 10}-` });
    await expectError(outside, 416, 'range_not_satisfiable');
    expect(outside.headers.get('content-range')).toBe(`bytes */${sampleBytes.length}`);
  });

  it('serves the first frame as a JPEG with variant=thumbnail, and refuses spritesheet and unknown variants', async () => {
    const id = await succeeded();
    const thumb = await content(id, '?variant=thumbnail');
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
    expect((await bytesOf(thumb)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    const sprite = await expectError(await content(id, '?variant=spritesheet'), 400, 'invalid_request');
    expect(sprite.message).toContain('spritesheet');
    expect(sprite.param).toBe('variant');
    await expectError(await content(id, '?variant=poster'), 400, 'invalid_request');
  });

  it('redirects to the vendor link while no copy exists yet; no first frame until then', async () => {
    const id = await succeeded({ stored: false });
    const res = await fetch(`${api.url}/v1/videos/${id}/content`, {
      headers: { authorization: `Bearer ${owner.key}` },
      redirect: 'manual',
    });
    await expectContract(res, contractFor('get /v1/videos/:taskId/content'), 302);
    expect(res.headers.get('location')).toBe(VENDOR_URL);
    // a first frame waits for the copy, and is a 404 when it does not come in time
    api.deps.media.firstFrameWaitMs = 200;
    try {
      await expectError(await content(id, '?variant=thumbnail'), 404, 'thumbnail_unavailable');
    } finally {
      delete api.deps.media.firstFrameWaitMs;
    }
  });

  it('answers a first frame asked for while the copy runs once the copy is in, by link and by /content', async () => {
    const id = await succeeded({ stored: false });
    const link = new URL(String((await taskObject(id)).thumbnail_url));
    const byLink = fetch(`${api.url}${link.pathname}${link.search}`);
    const byContent = content(id, '?variant=thumbnail');
    await waitFor(() => firstFrameWaiters() >= 2, { what: 'both requests to wait for the copy' });
    await storeCopy(id);
    // announced as the worker announces a stored copy
    new TaskEventPublisher(api.redis, api.prefix).publish((await getTask(api.database.db, id))!);
    for (const res of await Promise.all([byLink, byContent])) {
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/jpeg');
      expect((await bytesOf(res)).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }
    expect(firstFrameWaiters()).toBe(0);
  });

  it('answers 404 video_not_ready for a task that has no video', async () => {
    const pending = await create();
    await expectError(await content(pending), 404, 'video_not_ready');
    const failed = await create();
    await failTask(api.database.db, failed, { code: 'DataInspectionFailed', message: 'no' });
    const err = await expectError(await content(failed), 404, 'video_not_ready');
    expect(err.message).toContain('failed');
  });

  it('answers 404 video_expired past retention, and the task object drops its links', async () => {
    const id = await succeeded();
    const past = new Date(Date.now() - 1_000);
    await api.database.pool.query('update task_media set expires_at = $2 where task_id = $1', [id, past]);
    await api.database.pool.query('update tasks set expires_at = $2 where id = $1', [id, past]);
    await expectError(await content(id), 404, 'video_expired');
    const task = await taskObject(id);
    expect(task.video_url).toBeUndefined();
    expect(task.thumbnail_url).toBeUndefined();
    expect(task.expires_at).toBe(Math.floor(past.getTime() / 1000));
  });
});

describe('GET /media/:id/:file (signed links)', () => {
  it('serves the video and the first frame without an Authorization header, HEAD included', async () => {
    const id = await succeeded();
    const task = await taskObject(id);
    const link = String(task.video_url).replace('http://127.0.0.1:8080', api.url);
    const res = await fetch(link);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(res.headers.get('content-disposition')).toMatch(/^inline/);
    expect(sha(await bytesOf(res))).toBe(sha(sampleBytes));
    // the console's download button: the same bytes as an attachment named after the task
    const download = await fetch(`${link}&download=1`);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename="[^"]+\.mp4"$/);
    expect(sha(await bytesOf(download))).toBe(sha(sampleBytes));
    const ranged = await fetch(link, { headers: { range: 'bytes=0-99' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-type')).toBe(
      contractFor('get /media/:taskId/:file').responses[206]?.contentType,
    );
    expect((await bytesOf(ranged)).length).toBe(100);
    const head = await fetch(link, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(sampleBytes.length));
    const thumb = await fetch(String(task.thumbnail_url).replace('http://127.0.0.1:8080', api.url));
    expect(thumb.headers.get('content-type')).toBe('image/jpeg');
  });

  it('refuses a link whose signature does not match, or that names another task or file', async () => {
    const id = await succeeded();
    const link = new URL(String((await taskObject(id)).video_url).replace('http://127.0.0.1:8080', api.url));
    const sig = link.searchParams.get('sig')!;
    link.searchParams.set('sig', `${sig[0] === 'A' ? 'B' : 'A'}${sig.slice(1)}`);
    await expectError(await fetch(link), 403, 'invalid_media_link');
    const longer = new URL(link);
    longer.searchParams.set('sig', sig);
    longer.searchParams.set('exp', String(Number(longer.searchParams.get('exp')) + 3600));
    await expectError(await fetch(longer), 403, 'invalid_media_link');
    const otherFile = String((await taskObject(id)).video_url)
      .replace('http://127.0.0.1:8080', api.url)
      .replace('video.mp4', 'thumbnail.jpg');
    await expectError(await fetch(otherFile), 403, 'invalid_media_link');
    await expectError(await fetch(`${api.url}/media/${id}/video.mp4`), 404, 'not_found');
    await expectError(await fetch(`${api.url}/media/${id}/passwd?exp=1&sig=x`), 404, 'not_found');
  });

  it('answers 404 video_expired for a signed link past its expiry', async () => {
    const id = await succeeded();
    const link = api.deps.media.signer.link(id, 'video', new Date(Date.now() - 60_000));
    await expectError(await fetch(link.replace('http://127.0.0.1:8080', api.url)), 404, 'video_expired');
  });
});

describe('DELETE /v1/videos/:id', () => {
  it('deletes the stored video and first frame and answers what the openai client expects', async () => {
    const id = await succeeded();
    const link = String((await taskObject(id)).video_url).replace('http://127.0.0.1:8080', api.url);
    const res = await call(api, 'DELETE', `/v1/videos/${id}`, { key: owner.key });
    expect(await expectContract(res, videosDelete.contract, 200)).toEqual({
      id,
      object: 'video.deleted',
      deleted: true,
    });
    expect(await api.deps.media.storage.head(videoKey(id))).toBeNull();
    expect(await api.deps.media.storage.head(thumbnailKey(id))).toBeNull();
    expect((await getTaskMedia(api.database.db, id))!.status).toBe('deleted');
    await expectError(await content(id), 404, 'video_deleted');
    await expectError(await fetch(link), 404, 'video_deleted');
    const task = await taskObject(id);
    expect(task.status).toBe('succeeded');
    expect(task.video_url).toBeUndefined();
    // again: the same answer
    const again = await call(api, 'DELETE', `/v1/videos/${id}`, { key: owner.key });
    expect(await again.json()).toEqual({ id, object: 'video.deleted', deleted: true });
  });

  it('refuses a pending or processing task with 409, and deletes a failed one (nothing kept)', async () => {
    const pending = await create();
    const err = await expectError(
      await call(api, 'DELETE', `/v1/videos/${pending}`, { key: owner.key }),
      409,
      'conflict',
    );
    expect(err.message).toContain('pending');
    await startTask(api.database.db, pending);
    await expectError(
      await call(api, 'DELETE', `/v1/videos/${pending}`, { key: owner.key }),
      409,
      'conflict',
    );
    const failed = await create();
    await failTask(api.database.db, failed, { code: 'x', message: 'y' });
    const res = await call(api, 'DELETE', `/v1/videos/${failed}`, { key: owner.key });
    expect(await res.json()).toEqual({ id: failed, object: 'video.deleted', deleted: true });
  });
});

describe('remix, edit, extend, characters', () => {
  it('answer 400 unsupported_operation naming what the models do', async () => {
    const id = await succeeded({ stored: false });
    for (const [method, p] of [
      ['POST', `/v1/videos/${id}/remix`],
      ['POST', '/v1/videos/edits'],
      ['POST', '/v1/videos/extensions'],
      ['POST', '/v1/videos/characters'],
      ['GET', '/v1/videos/characters/char_123'],
    ] as const) {
      const err = await expectError(
        await call(api, method, p, { key: owner.key, json: method === 'POST' ? { prompt: 'x' } : undefined }),
        400,
        'unsupported_operation',
      );
      expect(err.message).toContain('wan2.6-i2v-flash-*');
      expect(err.message).toContain('POST /v1/videos');
    }
  });
});

describe('ownership and authentication', () => {
  it('answers 404 not_found on every new route for another account’s task or none, 401 without a key', async () => {
    const id = await succeeded();
    const missing = 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const routes: Array<[string, (i: string) => string]> = [
      ['GET', (i) => `/v1/videos/${i}/content`],
      ['GET', (i) => `/v1/videos/${i}/content?variant=thumbnail`],
      ['GET', (i) => `/v1/videos/${i}/content?variant=spritesheet`],
      ['DELETE', (i) => `/v1/videos/${i}`],
      ['POST', (i) => `/v1/videos/${i}/remix`],
    ];
    for (const [method, p] of routes) {
      await expectError(await call(api, method, p(id), { key: other.key }), 404, 'not_found');
      await expectError(await call(api, method, p(missing), { key: owner.key }), 404, 'not_found');
      await expectError(await call(api, method, p('not-a-task-id'), { key: owner.key }), 404, 'not_found');
      await expectError(await call(api, method, p(id)), 401, 'invalid_api_key');
    }
    // the other account's attempt changed nothing
    expect((await content(id)).status).toBe(200);
  });
});
