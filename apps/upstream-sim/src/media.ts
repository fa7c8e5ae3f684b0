import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Router } from 'express';
import type { PngCache } from './png';
import type { SimState } from './state';
import { controlError } from './vendor-errors';

/** The 2 s H.264/AAC clip served for every video task. */
export const SAMPLE_MP4 = path.resolve(__dirname, '..', 'assets', 'sample.mp4');

/** Largest image the sim renders: the vendors' own ceiling of 16,777,216 pixels (4096x4096). */
const MAX_PIXELS = 16_777_216;

/** Path of a generated image; the size is part of the name, so serving it needs no stored state. */
export function imagePath(id: string, width: number, height: number): string {
  return `/media/images/${id}-${width}x${height}.png`;
}

let sample: Buffer | undefined;
const sampleBytes = () => {
  sample ??= readFileSync(SAMPLE_MP4);
  return sample;
};

/**
 * The sample clip padded to `size` bytes with a trailing MP4 `free` box (players skip it), so
 * a large video is still a valid MP4. Yields chunks, never holding the whole file.
 */
function* paddedVideo(size: number): Generator<Buffer> {
  const clip = sampleBytes();
  yield clip;
  let left = size - clip.length;
  if (left < 8) return;
  const header = Buffer.alloc(8);
  header.writeUInt32BE(left, 0);
  header.write('free', 4, 'latin1');
  yield header;
  left -= 8;
  const zeros = Buffer.alloc(64 * 1024);
  while (left > 0) {
    const n = Math.min(left, zeros.length);
    yield n === zeros.length ? zeros : zeros.subarray(0, n);
    left -= n;
  }
}

/** `source` at about `bytesPerSecond`. */
async function* throttled(source: Iterable<Buffer>, bytesPerSecond: number): AsyncGenerator<Buffer> {
  const slice = Math.max(1, Math.floor(bytesPerSecond / 20));
  for (const chunk of source) {
    for (let i = 0; i < chunk.length; i += slice) {
      yield chunk.subarray(i, i + slice);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Media the vendors would host on their CDN: `GET /media/videos/<id>.mp4` (the sample clip, with Range
 * support) and `GET /media/images/<id>-<W>x<H>.png` (a PNG of that size). No key needed, like a signed URL.
 * The control API `video-media` makes video links expire, grow or slow down.
 */
export function register(router: Router, pngs: PngCache, state: SimState): void {
  router.get('/media/videos/:name', (req, res, next) => {
    if (!/^[\w-]+\.mp4$/.test(req.params.name)) return next(controlError(404, 'NotFound', 'No such video.'));
    const { linksExpired, sizeBytes, bytesPerSecond } = state.videoMedia;
    if (linksExpired) {
      // what the vendor's object store answers once a result link is past its 24 h
      res.status(403).type('application/xml');
      return void res.send(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Request has expired.</Message></Error>',
      );
    }
    if (sizeBytes !== null || bytesPerSecond !== null) {
      const size = Math.max(sizeBytes ?? 0, sampleBytes().length);
      res.status(200).set({ 'content-type': 'video/mp4', 'content-length': String(size) });
      const body = paddedVideo(size);
      Readable.from(bytesPerSecond ? throttled(body, bytesPerSecond) : body)
        .on('error', () => res.destroy())
        .pipe(res);
      return;
    }
    res.sendFile(SAMPLE_MP4, { maxAge: '1d', headers: { 'content-type': 'video/mp4' } }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  });

  router.get('/media/images/:name', (req, res, next) => {
    const match = /^[\w-]+-(\d{1,5})x(\d{1,5})\.png$/.exec(req.params.name);
    const width = Number(match?.[1]);
    const height = Number(match?.[2]);
    if (!match || width < 1 || height < 1 || width * height > MAX_PIXELS) {
      return next(controlError(404, 'NotFound', 'No such image.'));
    }
    res.set({ 'content-type': 'image/png', 'cache-control': 'public, max-age=86400' });
    res.send(pngs.get(width, height));
  });
}
