import { pipeline } from 'node:stream/promises';
import type { TaskMediaRow } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import type { MediaStorage, MediaVariant } from '@mediagate/shared/media';
import type { Request, Response } from 'express';

/** Longest a client may cache a media answer. */
const MAX_CACHE_SECONDS = 24 * 3600;

export interface MediaAnswerOptions {
  storage: MediaStorage;
  /** the task's media row (null for a task that never had one) */
  media: TaskMediaRow | null;
  variant: MediaVariant;
  /**
   * With an S3 driver, answer with a redirect to a presigned (or CDN) link instead of streaming
   * the bytes through the API.
   */
  redirectToStorage: boolean;
  /** `attachment` for downloads; inline (for <video> and <img>) otherwise */
  disposition?: 'inline' | 'attachment';
}

/** The answers of `sendTaskMedia` other than its errors (the bytes, or not modified), as a contract gives them. */
export const taskMediaAnswers = {
  200: { description: 'the bytes (Range requests answer 206)', contentType: 'video/mp4' },
  206: { description: 'the bytes of the requested Range', contentType: 'video/mp4' },
  304: 'not modified (If-None-Match matches the ETag)',
} as const;

/**
 * Answers with a task's video or first frame: the stored copy (Range requests, ETag and
 * If-None-Match, caching headers, HEAD without a body), or while no copy exists yet a redirect to
 * the vendor's link as long as it lives. Throws ApiError 404 with its own code for media that is
 * past retention (`video_expired`), deleted (`video_deleted`) or never made (`thumbnail_unavailable`).
 */
export async function sendTaskMedia(req: Request, res: Response, opts: MediaAnswerOptions): Promise<void> {
  const { media, variant } = opts;
  const now = Date.now();
  if (!media) {
    throw new ApiError('video_expired', 'This video is no longer available.', 'video_id');
  }
  if (media.status === 'deleted') throw new ApiError('video_deleted', 'This video was deleted.', 'video_id');
  if (media.status === 'expired' || media.expiresAt.getTime() <= now) {
    throw new ApiError(
      'video_expired',
      `This video expired at ${media.expiresAt.toISOString()} and is no longer kept.`,
      'video_id',
    );
  }
  const expiresInSeconds = Math.floor((media.expiresAt.getTime() - now) / 1000);
  const maxAge = Math.max(0, Math.min(expiresInSeconds, MAX_CACHE_SECONDS));
  if (media.status !== 'stored') {
    if (variant === 'thumbnail') {
      throw new ApiError(
        'thumbnail_unavailable',
        'The first frame of this video is not ready yet; try again shortly.',
        'variant',
      );
    }
    if (media.sourceUrl && media.sourceExpiresAt.getTime() > now) {
      // not copied yet (or the copy keeps failing): the vendor's own link still works
      res.set('cache-control', 'no-store');
      return void res.redirect(302, media.sourceUrl);
    }
    throw new ApiError('video_expired', 'This video is no longer available.', 'video_id');
  }
  const key = variant === 'video' ? media.storageKey : media.thumbnailKey;
  if (!key) {
    throw new ApiError('thumbnail_unavailable', 'No first frame could be made for this video.', 'variant');
  }
  if (opts.redirectToStorage && opts.storage.driver === 's3') {
    const url = await opts.storage.presign(key, expiresInSeconds, {
      contentDisposition:
        opts.disposition === 'attachment' ? `attachment; filename="${fileName(media, variant)}"` : undefined,
    });
    if (url) {
      res.set('cache-control', `private, max-age=${Math.min(maxAge, 3600)}`);
      return void res.redirect(302, url);
    }
  }
  const contentType = variant === 'video' ? (media.contentType ?? 'video/mp4') : 'image/jpeg';
  const etag = `"${variant === 'video' ? '' : 't-'}${media.sha256 ?? media.taskId}"`;
  const cacheControl = `private, max-age=${maxAge}`;
  const ifNoneMatch = req.get('if-none-match');
  if (ifNoneMatch?.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) {
    res.set({ etag, 'cache-control': cacheControl });
    return void res.status(304).end();
  }
  const size = variant === 'video' ? media.bytes : media.thumbnailBytes;
  let range: { start: number; end: number } | undefined;
  const ifRange = req.get('if-range');
  if (size != null && req.get('range') && (!ifRange || ifRange === etag)) {
    const parsed = req.range(size, { combine: true });
    if (parsed === -1) {
      throw new ApiError('range_not_satisfiable', 'The requested range is outside the file.', 'range', {
        'content-range': `bytes */${size}`,
      });
    }
    // a malformed Range (-2) or several ranges: answer the whole file, as HTTP allows
    if (Array.isArray(parsed) && parsed.length === 1) range = parsed[0];
  }
  const object = await opts.storage.get(key, range);
  if (!object) {
    req.log.error({ key }, 'stored media is missing from storage');
    throw new ApiError('video_expired', 'This video is no longer available.', 'video_id');
  }
  res.set({
    'accept-ranges': 'bytes',
    'cache-control': cacheControl,
    etag,
    'content-type': contentType,
    'content-disposition': `${opts.disposition ?? 'inline'}; filename="${fileName(media, variant)}"`,
    'x-content-type-options': 'nosniff',
  });
  if (range) {
    res.status(206);
    res.set('content-range', `bytes ${range.start}-${range.end}/${object.size}`);
    res.set('content-length', String(range.end - range.start + 1));
  } else {
    res.status(200);
    res.set('content-length', String(object.size));
  }
  if (req.method === 'HEAD') {
    object.body.destroy();
    return void res.end();
  }
  await pipeline(object.body, res).catch((err: unknown) => {
    // the client went away mid-file; nothing to answer
    req.log.debug({ err }, 'media response ended early');
  });
}

function fileName(media: TaskMediaRow, variant: MediaVariant): string {
  return `${media.taskId}${variant === 'video' ? '.mp4' : '.jpg'}`;
}
