import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createThumbnailer, firstFrameJpeg, firstFramesJpeg } from './thumbnail';

/** the simulator's sample clip: a 2 s H.264/AAC MP4 */
const SAMPLE = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  '..',
  'apps',
  'upstream-sim',
  'assets',
  'sample.mp4',
);
const isJpeg = (b: Buffer) =>
  b[0] === 0xff && b[1] === 0xd8 && b[b.length - 2] === 0xff && b[b.length - 1] === 0xd9;

describe('thumbnails', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'thumbnail-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes the same JPEG for videos asked for together as for one alone', async () => {
    const alone = await firstFrameJpeg('ffmpeg', SAMPLE);
    expect(isJpeg(alone)).toBe(true);
    const oneRun = await firstFramesJpeg('ffmpeg', [SAMPLE, SAMPLE], {
      timeoutMs: 60_000,
      maxBytes: 1 << 20,
    });
    expect(oneRun).toHaveLength(2);
    for (const jpeg of oneRun) expect(jpeg.equals(alone)).toBe(true);
    const thumbnail = createThumbnailer('ffmpeg', { windowMs: 50, maxBatch: 8 });
    const together = await Promise.all([thumbnail(SAMPLE), thumbnail(SAMPLE), thumbnail(SAMPLE)]);
    for (const jpeg of together) expect(jpeg.equals(alone)).toBe(true);
  });

  it('answers each video of a failed run on its own: an unreadable one fails, the others succeed', async () => {
    const broken = path.join(dir, 'broken.mp4');
    await writeFile(broken, Buffer.from('not a video at all'));
    const thumbnail = createThumbnailer('ffmpeg', { windowMs: 50, maxBatch: 8 });
    const outcomes = await Promise.allSettled([thumbnail(SAMPLE), thumbnail(broken), thumbnail(SAMPLE)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    for (const o of outcomes) if (o.status === 'fulfilled') expect(isJpeg(o.value)).toBe(true);
  });

  it('starts a run as soon as a batch is full', async () => {
    const thumbnail = createThumbnailer('ffmpeg', { windowMs: 60_000, maxBatch: 2 });
    const jpegs = await Promise.all([thumbnail(SAMPLE), thumbnail(SAMPLE)]);
    expect(jpegs.every(isJpeg)).toBe(true);
  });
});
