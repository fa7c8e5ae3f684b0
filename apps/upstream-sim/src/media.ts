import path from 'node:path';
import type { Router } from 'express';
import type { PngCache } from './png';
import { controlError } from './vendor-errors';

/** The 2 s H.264/AAC clip served for every video task. */
export const SAMPLE_MP4 = path.resolve(__dirname, '..', 'assets', 'sample.mp4');

/** Largest image the sim renders: the vendors' own ceiling of 16,777,216 pixels (4096x4096). */
const MAX_PIXELS = 16_777_216;

/** Path of a generated image; the size is part of the name, so serving it needs no stored state. */
export function imagePath(id: string, width: number, height: number): string {
  return `/media/images/${id}-${width}x${height}.png`;
}

/**
 * Media the vendors would host on their CDN: `GET /media/videos/<id>.mp4` (the sample clip, with Range
 * support) and `GET /media/images/<id>-<W>x<H>.png` (a PNG of that size). No key needed, like a signed URL.
 */
export function register(router: Router, pngs: PngCache): void {
  router.get('/media/videos/:name', (req, res, next) => {
    if (!/^[\w-]+\.mp4$/.test(req.params.name)) return next(controlError(404, 'NotFound', 'No such video.'));
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
