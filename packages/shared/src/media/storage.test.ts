import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { startTestS3Server, type TestS3Server } from '../testing/s3-server';
import { LocalMediaStorage } from './local-storage';
import { S3MediaStorage } from './s3-storage';
import { assertMp4 } from './sniff';
import { type MediaStorage, MediaTooLargeError, MediaTypeError } from './storage';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** bytes that look like an MP4 (an ftyp box first) followed by `size` random bytes */
const mp4Like = (size: number) =>
  Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypisom'), Buffer.alloc(12), randomBytes(size)]);
/** a stream of `buf` in chunks of `chunk` bytes */
const chunked = (buf: Buffer, chunk = 64 * 1024) =>
  Readable.from(
    (function* () {
      for (let i = 0; i < buf.length; i += chunk) yield buf.subarray(i, i + chunk);
    })(),
  );

let s3: TestS3Server;
let dir: string;
const drivers: Record<string, () => MediaStorage> = {};

beforeAll(async () => {
  s3 = await startTestS3Server();
  dir = await mkdtemp(path.join(os.tmpdir(), 'media-local-'));
  drivers.local = () => new LocalMediaStorage(dir);
  drivers.s3 = () =>
    new S3MediaStorage({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
      // small parts, so that a few MB make a real multipart upload
      partSizeBytes: 5 * 1024 * 1024,
    });
}, 30_000);

afterAll(async () => {
  await s3?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe.each(['local', 's3'])('%s media storage', (name) => {
  const storage = () => drivers[name]!();

  it('stores a stream whole, with its size and SHA-256, and serves it whole and by range', async () => {
    const store = storage();
    const bytes = mp4Like(12 * 1024 * 1024);
    const put = await store.put('videos/a.mp4', chunked(bytes), {
      contentType: 'video/mp4',
      maxBytes: 64 * 1024 * 1024,
      checkHead: assertMp4,
    });
    expect(put).toEqual({ bytes: bytes.length, sha256: sha(bytes) });
    expect(await store.head('videos/a.mp4')).toEqual({ size: bytes.length, contentType: 'video/mp4' });
    const whole = await store.get('videos/a.mp4');
    expect(sha(await buffer(whole!.body))).toBe(sha(bytes));
    const part = await store.get('videos/a.mp4', { start: 100, end: 1_099 });
    expect(part!.size).toBe(bytes.length);
    expect(Buffer.compare(await buffer(part!.body), bytes.subarray(100, 1_100))).toBe(0);
  }, 60_000);

  it('answers null for an absent key and deletes idempotently', async () => {
    const store = storage();
    expect(await store.head('videos/none.mp4')).toBeNull();
    expect(await store.get('videos/none.mp4')).toBeNull();
    await store.put('videos/d.mp4', chunked(mp4Like(10)), { contentType: 'video/mp4', maxBytes: 1_000 });
    await store.delete('videos/d.mp4');
    await store.delete('videos/d.mp4');
    expect(await store.head('videos/d.mp4')).toBeNull();
  });

  it('refuses a stream over the size cap and leaves nothing under the key', async () => {
    const store = storage();
    const bytes = mp4Like(7 * 1024 * 1024);
    await expect(
      store.put('videos/big.mp4', chunked(bytes), { contentType: 'video/mp4', maxBytes: 6 * 1024 * 1024 }),
    ).rejects.toBeInstanceOf(MediaTooLargeError);
    expect(await store.head('videos/big.mp4')).toBeNull();
  }, 60_000);

  it('refuses bytes that are not an MP4, whatever was claimed', async () => {
    const store = storage();
    const html = Buffer.from('<html><body>AccessDenied</body></html>');
    await expect(
      store.put('videos/html.mp4', Readable.from([html]), {
        contentType: 'video/mp4',
        maxBytes: 1_000,
        checkHead: assertMp4,
      }),
    ).rejects.toBeInstanceOf(MediaTypeError);
    expect(await store.head('videos/html.mp4')).toBeNull();
  });

  it('shows no part of an object whose source breaks mid-way, and keeps the previous one', async () => {
    const store = storage();
    const first = mp4Like(1_000);
    await store.put('videos/c.mp4', Readable.from([first]), { contentType: 'video/mp4', maxBytes: 1e9 });
    const source = new PassThrough();
    const putting = store.put('videos/c.mp4', source, { contentType: 'video/mp4', maxBytes: 1e9 });
    source.write(mp4Like(6 * 1024 * 1024));
    setImmediate(() => source.destroy(new Error('connection reset')));
    await expect(putting).rejects.toThrow();
    const now = await store.get('videos/c.mp4');
    expect(sha(await buffer(now!.body))).toBe(sha(first));
  }, 60_000);
});

describe('local media storage', () => {
  it('keeps interrupted puts out of sight and sweeps them', async () => {
    const store = new LocalMediaStorage(dir);
    const source = new PassThrough();
    const putting = store.put('videos/e.mp4', source, { contentType: 'video/mp4', maxBytes: 1e9 });
    source.write(mp4Like(100));
    setImmediate(() => source.destroy(new Error('reset')));
    await expect(putting).rejects.toThrow();
    expect(await store.head('videos/e.mp4')).toBeNull();
    expect(await store.sweepIncomplete(0)).toBe(0);
    expect(await readdir(path.join(dir, '.incomplete'))).toEqual([]);
  });

  it('refuses keys that leave its directory', async () => {
    const store = new LocalMediaStorage(dir);
    await expect(store.head('../etc/passwd')).rejects.toThrow('invalid media key');
  });
});

describe('s3 media storage', () => {
  it('presigns a link that serves the object without credentials, by range too', async () => {
    const store = drivers.s3!();
    const bytes = mp4Like(50_000);
    await store.put('videos/p.mp4', Readable.from([bytes]), { contentType: 'video/mp4', maxBytes: 1e9 });
    const url = await store.presign('videos/p.mp4', 600);
    expect(url).toContain('X-Amz-Signature=');
    const res = await fetch(url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('video/mp4');
    expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(sha(bytes));
    const ranged = await fetch(url!, { headers: { range: 'bytes=0-11' } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).toString('latin1', 4, 8)).toBe('ftyp');
  });

  it('links through MEDIA_PUBLIC_BASE_URL when a CDN is in front', async () => {
    const store = new S3MediaStorage({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      publicBaseUrl: 'https://cdn.example.com/media',
    });
    expect(await store.presign('videos/p.mp4', 600)).toBe('https://cdn.example.com/media/videos/p.mp4');
  });
});
