import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { waitFor } from '@mediagate/shared/testing';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const SIZE = 12 * 1024 * 1024;

let stack: Stack;
let key: string;
beforeAll(async () => {
  stack = await startStack();
  key = stack.newKey();
});
afterAll(() => stack?.stop());

const incomplete = () => readdir(path.join(stack.mediaDir, '.incomplete')).catch(() => [] as string[]);
const mediaRow = async (id: string) =>
  (await stack.pool.query('select * from task_media where task_id = $1', [id])).rows[0];

describe('a video worker killed mid-copy', () => {
  it('leaves no half object and no lost task; the copy completes after a restart', async () => {
    // a 12 MB video served at 2 MB/s: the copy takes about 6 s
    await stack.sim('POST', '/video-media', { sizeBytes: SIZE, bytesPerSecond: 2 * 1024 * 1024 });
    const { body } = await stack.api('POST', '/v1/videos', key, VIDEO_REQUEST);
    const id = body.id as string;

    // mid-copy: the task has succeeded, part of the file is in a temporary file
    await waitFor(async () => (await incomplete()).length > 0, {
      what: 'the copy to start',
      timeoutMs: 30_000,
    });
    const worker = stack.workers[0]!;
    await worker.stop('SIGKILL');

    const task = (await stack.api('GET', `/v1/videos/${id}`, key)).body;
    expect(task.status).toBe('succeeded');
    expect(task.video_url).toContain(`/media/${id}/video.mp4?`);
    expect((await mediaRow(id)).status).toBe('pending');
    // nothing under the video's key: only the temporary file of the interrupted put
    expect(await readdir(path.join(stack.mediaDir, 'videos')).catch(() => [])).toEqual([]);
    // meanwhile the link serves the vendor's file (a redirect)
    const meanwhile = await fetch(task.video_url, { redirect: 'manual' });
    expect(meanwhile.status).toBe(302);

    await stack.sim('POST', '/video-media', { bytesPerSecond: null });
    await stack.addWorker();
    const stored = await waitFor(
      async () => {
        const m = await mediaRow(id);
        return m?.status === 'stored' ? m : null;
      },
      { what: 'the copy to complete after the restart', timeoutMs: 60_000 },
    );
    const vendorBytes = Buffer.from(
      await (await fetch(`${stack.simUrl}/media/videos/any.mp4`)).arrayBuffer(),
    );
    expect(vendorBytes.length).toBe(SIZE);
    expect(stored.sha256).toBe(sha(vendorBytes));
    expect(Number(stored.bytes)).toBe(SIZE);
    expect(sha(await readFile(path.join(stack.mediaDir, 'videos', `${id}.mp4`)))).toBe(sha(vendorBytes));
    const served = await fetch(task.video_url);
    expect(served.status).toBe(200);
    expect(sha(Buffer.from(await served.arrayBuffer()))).toBe(sha(vendorBytes));
  });
});
