import { Readable } from 'node:stream';
import { type Dispatcher, request } from 'undici';
import type { Database } from '../db/client';
import type { Logger } from '../log';
import { builtOnce } from '../lru';
import type { Metrics } from '../metrics';
import { assertMp4 } from './sniff';
import type { MediaSourceHosts } from './source-hosts';
import { type MediaStorage, MediaTooLargeError, MediaTypeError, thumbnailKey, videoKey } from './storage';
import { beginCopyAttempt, markCopyFailed, markMediaStored } from './task-media';
import { createThumbnailer } from './thumbnail';

export interface MediaCopyDeps {
  database: Database;
  storage: MediaStorage;
  hosts: MediaSourceHosts;
  /** connects to channel hosts (trusted) */
  agent: Dispatcher;
  /** connects to hosts allowed by pattern: only to addresses the SSRF policy allows */
  publicAgent: Dispatcher;
  logger: Logger;
  metrics?: Metrics;
  config: {
    maxBytes: number;
    timeoutMs: number;
    /** tries within one run before the copy is left to the reconciler */
    attempts: number;
    /** first wait between tries; doubles */
    retryBaseMs: number;
    ffmpegPath: string;
  };
}

/** one thumbnailer per ffmpeg binary in a process: concurrent copies share ffmpeg runs */
const thumbnailers = new Map<string, ReturnType<typeof createThumbnailer>>();
const thumbnailerFor = (ffmpegPath: string) =>
  builtOnce(thumbnailers, ffmpegPath, () => createThumbnailer(ffmpegPath));

/** A copy failure that no retry can fix (too large, not a video, a host not allowed). */
class PermanentCopyError extends Error {}

export type CopyOutcome = 'stored' | 'retry' | 'failed' | 'expired' | 'nothing';

/** When the reconciler tries a failed copy again: 1, 2, 4 ... minutes after the attempt, at most an hour. */
export function nextCopyAttemptAt(attempts: number, now = Date.now()): Date {
  return new Date(now + Math.min(60 * 60_000, 60_000 * 2 ** Math.max(0, attempts - 1)));
}

async function download(deps: MediaCopyDeps, url: string, signal: AbortSignal): Promise<Readable> {
  const kind = deps.hosts.classify(url);
  if (!kind) throw new PermanentCopyError(`the media host of ${new URL(url).host} is not allowed`);
  const res = await request(url, {
    method: 'GET',
    dispatcher: kind === 'trusted' ? deps.agent : deps.publicAgent,
    signal,
    headers: { accept: 'video/mp4,video/*;q=0.9,*/*;q=0.1' },
  });
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => {});
    throw new Error(`the vendor answered ${res.statusCode} for the video`);
  }
  const length = Number(res.headers['content-length']);
  if (Number.isFinite(length) && length > deps.config.maxBytes) {
    await res.body.dump().catch(() => {});
    throw new MediaTooLargeError(deps.config.maxBytes);
  }
  return res.body as unknown as Readable;
}

/**
 * Copies a succeeded task's video from the vendor's link into storage, then its first frame;
 * records key, size, SHA-256 and type. Streams (memory stays flat whatever the size), refuses
 * more than `maxBytes` and anything that is not an MP4 by its bytes, fetches only from allowed
 * hosts and never follows a redirect. Idempotent and safe to run twice at once (same key; a put
 * is all or nothing). Never throws for a failed copy: it is recorded (`retry`: the reconciler
 * tries again while the vendor's link lives; `failed`: never), and the task stays succeeded.
 */
export async function copyTaskMedia(deps: MediaCopyDeps, taskId: string): Promise<CopyOutcome> {
  const { db } = deps.database;
  const log = deps.logger.child({ taskId });
  const count = (outcome: string) => deps.metrics?.mediaCopies.inc({ outcome });
  let lastError: unknown;
  for (let attempt = 1; attempt <= deps.config.attempts; attempt += 1) {
    const row = await beginCopyAttempt(db, taskId);
    if (!row) return 'nothing';
    if (!row.sourceUrl || row.sourceExpiresAt.getTime() <= Date.now()) {
      await markCopyFailed(db, taskId, 'the vendor link expired before a copy was made', null);
      count('expired');
      return 'expired';
    }
    const started = process.hrtime.bigint();
    const signal = AbortSignal.timeout(deps.config.timeoutMs);
    try {
      const body = await download(deps, row.sourceUrl, signal);
      const key = videoKey(taskId);
      const put = await deps.storage.put(key, body, {
        contentType: 'video/mp4',
        maxBytes: deps.config.maxBytes,
        checkHead: assertMp4,
      });
      let thumb: { key: string; bytes: number } | null = null;
      try {
        const jpeg = await thumbnailerFor(deps.config.ffmpegPath)(await deps.storage.readableLocation(key));
        await deps.storage.put(thumbnailKey(taskId), Readable.from([jpeg]), {
          contentType: 'image/jpeg',
          maxBytes: jpeg.length,
        });
        thumb = { key: thumbnailKey(taskId), bytes: jpeg.length };
      } catch (err) {
        log.warn({ err }, 'no thumbnail for the video (is ffmpeg installed?)');
      }
      const recorded = await markMediaStored(db, taskId, {
        storageKey: key,
        bytes: put.bytes,
        sha256: put.sha256,
        contentType: 'video/mp4',
        thumbnailKey: thumb?.key ?? null,
        thumbnailBytes: thumb?.bytes ?? null,
      });
      if (!recorded) {
        // deleted (or expired) while this copy ran: what it stored must not outlive the row
        await Promise.all([deps.storage.delete(key), deps.storage.delete(thumbnailKey(taskId))]);
        return 'nothing';
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      deps.metrics?.mediaCopySeconds.observe(seconds);
      count('stored');
      log.info({ bytes: put.bytes, seconds: Number(seconds.toFixed(3)) }, 'video copied into storage');
      return 'stored';
    } catch (err) {
      lastError = err;
      const permanent =
        err instanceof PermanentCopyError ||
        err instanceof MediaTooLargeError ||
        err instanceof MediaTypeError;
      const message = err instanceof Error ? err.message : String(err);
      if (permanent) {
        await markCopyFailed(db, taskId, message, null);
        count('failed');
        log.error({ err: message }, 'video copy refused; the task keeps the vendor link');
        return 'failed';
      }
      log.warn({ err: message, attempt }, 'video copy failed');
      if (attempt < deps.config.attempts) {
        await new Promise((r) => setTimeout(r, deps.config.retryBaseMs * 2 ** (attempt - 1)));
        continue;
      }
      await markCopyFailed(db, taskId, message, nextCopyAttemptAt(row.copyAttempts));
    }
  }
  count('retry');
  log.warn(
    { err: lastError instanceof Error ? lastError.message : String(lastError) },
    'video copy left for the reconciler',
  );
  return 'retry';
}
