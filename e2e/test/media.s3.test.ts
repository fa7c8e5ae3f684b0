import { createHash } from 'node:crypto';
import { buffer } from 'node:stream/consumers';
import { videoKey } from '@mediagate/shared/media';
import { startTestS3Server, type TestS3Server, waitFor } from '@mediagate/shared/testing';
import { type Stack, startStack, VIDEO_REQUEST } from './stack';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let s3: TestS3Server;
let stack: Stack;
let key: string;
beforeAll(async () => {
  s3 = await startTestS3Server('mediagate-e2e');
  stack = await startStack({ env: s3.env });
  key = stack.newKey();
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await s3?.stop();
});

describe('the S3 driver (against a real S3-protocol server)', () => {
  it('copies the video into the bucket; the API streams it, the signed link redirects to a presigned URL', async () => {
    const { body } = await stack.api('POST', '/v1/videos', key, VIDEO_REQUEST);
    const id = body.id as string;
    const stored = await waitFor(
      async () => {
        const { rows } = await stack.pool.query('select * from task_media where task_id = $1', [id]);
        return rows[0]?.status === 'stored' ? rows[0] : null;
      },
      { what: 'the copy into S3', timeoutMs: 30_000 },
    );
    const vendorBytes = Buffer.from(
      await (await fetch(`${stack.simUrl}/media/videos/any.mp4`)).arrayBuffer(),
    );
    expect(stored.sha256).toBe(sha(vendorBytes));
    expect(stored.thumbnail_key).toBe(`videos/${id}.jpg`);

    // the object is in the bucket, read with the SDK
    const bucket = s3.storage();
    const object = await bucket.get(videoKey(id));
    expect(sha(await buffer(object!.body))).toBe(sha(vendorBytes));
    bucket.close();

    await stack.sim('POST', '/video-media', { linksExpired: true });
    const content = await fetch(`${stack.apiUrl}/v1/videos/${id}/content`, {
      headers: { authorization: `Bearer ${key}`, range: 'bytes=0-15' },
    });
    expect(content.status).toBe(206);
    expect(Buffer.from(await content.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');

    const task = (await stack.api('GET', `/v1/videos/${id}`, key)).body;
    const redirect = await fetch(task.video_url, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toContain(`${s3.endpoint}/${s3.bucket}/videos/${id}.mp4?`);
    expect(redirect.headers.get('location')).toContain('X-Amz-Signature=');
    const followed = await fetch(task.video_url);
    expect(followed.status).toBe(200);
    expect(sha(Buffer.from(await followed.arrayBuffer()))).toBe(sha(vendorBytes));
    const thumb = await fetch(task.thumbnail_url);
    expect(Buffer.from(await thumb.arrayBuffer()).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    const deleted = await stack.api('DELETE', `/v1/videos/${id}`, key);
    expect(deleted.body).toEqual({ id, object: 'video.deleted', deleted: true });
    expect((await fetch(task.video_url)).status).toBe(404);
  });
});
