import { createHash } from 'node:crypto';
import { waitFor } from '@mediagate/shared/testing';
import OpenAI from 'openai';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let stack: Stack;
let client: OpenAI;
beforeAll(async () => {
  stack = await startStack();
  client = new OpenAI({ apiKey: stack.newKey(), baseURL: `${stack.apiUrl}/v1`, maxRetries: 0 });
});
afterAll(() => stack?.stop());

type Task = { id: string; status: string; video_url?: string; thumbnail_url?: string; expires_at?: number };

const finished = (id: string) =>
  waitFor(
    async () => {
      const t = (await client.videos.retrieve(id)) as unknown as Task;
      return t.status === 'succeeded' || t.status === 'failed' ? t : null;
    },
    { what: 'the task to finish', timeoutMs: 30_000, intervalMs: 100 },
  );
const stored = (id: string) =>
  waitFor(
    async () => {
      const { rows } = await stack.pool.query(
        'select status, sha256, bytes from task_media where task_id = $1',
        [id],
      );
      return rows[0]?.status === 'stored' ? rows[0] : null;
    },
    { what: 'the video to be copied into storage', timeoutMs: 30_000 },
  );
const create = async () =>
  (await client.videos.create(VIDEO_REQUEST as unknown as OpenAI.VideoCreateParams)) as unknown as Task;
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
  );

describe('every client.videos method of the current openai major', () => {
  it('create, retrieve, list, downloadContent (after the vendor link expired), delete; remix, edit, extend and characters refused clearly', async () => {
    const task = await create();
    expect(task.status).toBe('pending');
    const done = await finished(task.id);
    expect(done.status).toBe('succeeded');
    expect(done.expires_at).toBeGreaterThan(Date.now() / 1000 + 6 * 24 * 3600);

    const page = await client.videos.list({ limit: 10 });
    expect(page.data.map((v) => v.id)).toContain(task.id);

    // the bytes the vendor (the simulator) produced, then the vendor's link dies
    const vendorBytes = Buffer.from(
      await (await fetch(`${stack.simUrl}/media/videos/any.mp4`)).arrayBuffer(),
    );
    const kept = await stored(task.id);
    expect(kept.sha256).toBe(sha(vendorBytes));
    await stack.sim('POST', '/video-media', { linksExpired: true });
    expect((await fetch(`${stack.simUrl}/media/videos/${task.id}.mp4`)).status).toBe(403);

    const content = await client.videos.downloadContent(task.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    expect(sha(Buffer.from(await content.arrayBuffer()))).toBe(sha(vendorBytes));
    const thumbnail = await client.videos.downloadContent(task.id, { variant: 'thumbnail' });
    expect(thumbnail.headers.get('content-type')).toBe('image/jpeg');
    const sprite = await errorOf(client.videos.downloadContent(task.id, { variant: 'spritesheet' }));
    expect(sprite).toBeInstanceOf(OpenAI.BadRequestError);

    // a late read of the task still gets a working link, usable without a key (a <video> tag)
    const late = (await client.videos.retrieve(task.id)) as unknown as Task;
    const viaLink = await fetch(late.video_url!);
    expect(viaLink.status).toBe(200);
    expect(sha(Buffer.from(await viaLink.arrayBuffer()))).toBe(sha(vendorBytes));
    expect((await fetch(late.thumbnail_url!)).headers.get('content-type')).toBe('image/jpeg');

    for (const [name, call] of [
      ['remix', () => client.videos.remix(task.id, { prompt: 'make it rain' })],
      ['edit', () => client.videos.edit({ prompt: 'make it rain', video: { id: task.id } })],
      ['extend', () => client.videos.extend({ prompt: 'go on', seconds: '4', video: { id: task.id } })],
      [
        'createCharacter',
        () => client.videos.createCharacter({ name: 'cat', video: new File([vendorBytes], 'cat.mp4') }),
      ],
      ['getCharacter', () => client.videos.getCharacter('char_123')],
    ] as const) {
      const err = await errorOf((call as () => Promise<unknown>)());
      expect({ name, err: err?.constructor.name }).toEqual({ name, err: 'BadRequestError' });
      expect(err!.code).toBe('unsupported_operation');
      expect(err!.message).toContain('wan2.6-i2v-flash-*');
    }

    const deleted = await client.videos.delete(task.id);
    expect(deleted).toEqual({ id: task.id, object: 'video.deleted', deleted: true });
    const gone = await errorOf(client.videos.downloadContent(task.id));
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gone!.code).toBe('video_deleted');
    expect((await fetch(late.video_url!)).status).toBe(404);
  });

  it('refuses to delete a task that is still pending', async () => {
    await stack.sim('POST', '/video-timing', { pendingMs: 60_000 });
    const task = await create();
    const err = await errorOf(client.videos.delete(task.id));
    expect(err).toBeInstanceOf(OpenAI.ConflictError);
    expect(err!.message).toContain('Cancel it first');
    // the worker may be submitting it right now: the cancel then answers 409 and asks for a retry
    await waitFor(
      async () => {
        const refused = await errorOf(client.post(`/videos/${task.id}/cancel`));
        if (refused instanceof OpenAI.ConflictError && refused.message.includes('being submitted'))
          return false;
        if (refused) throw refused;
        return true;
      },
      { what: `the cancel of ${task.id}` },
    );
    await stack.sim('POST', '/reset');
  });

  it('answers 404 for another account’s video on every route', async () => {
    await stack.sim('POST', '/reset');
    const task = await create();
    await finished(task.id);
    const intruder = new OpenAI({ apiKey: stack.newKey(), baseURL: `${stack.apiUrl}/v1`, maxRetries: 0 });
    for (const call of [
      () => intruder.videos.retrieve(task.id),
      () => intruder.videos.downloadContent(task.id),
      () => intruder.videos.delete(task.id),
      () => intruder.videos.remix(task.id, { prompt: 'x' }),
    ]) {
      expect(await errorOf(call())).toBeInstanceOf(OpenAI.NotFoundError);
    }
    expect((await client.videos.downloadContent(task.id)).status).toBe(200);
  });
});
