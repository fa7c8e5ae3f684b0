import type { Database } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import {
  expireUncopied,
  listCopiesDue,
  listExpiredMedia,
  listExpiredUploads,
  type MediaStorage,
  markMediaGone,
  markUploadGone,
  storedMediaTotals,
} from '@mediagate/shared/media';
import type { Metrics } from '@mediagate/shared/metrics';
import { enqueueMediaCopy } from '@mediagate/shared/queue';
import type { Queue } from 'bullmq';

export interface MediaSweepDeps {
  database: Database;
  storage: MediaStorage;
  mediaQueue: Queue;
  logger: Logger;
  metrics?: Metrics;
  /** copies pending longer than this are enqueued again (their enqueue may have been lost) */
  graceMs: number;
}

export interface MediaSweepResult {
  /** copies due (never enqueued, or failed and due again) enqueued */
  copiesRequeued: number;
  /** videos whose vendor link died before any copy was made */
  lost: number;
  /** stored media past retention, deleted */
  expired: number;
  /** playground uploads past their lifetime, deleted */
  uploadsExpired: number;
}

const BATCH = 200;

/**
 * The reconciler's media pass: enqueues the copies that are due while the vendor's link lives,
 * gives up on those whose link has died, deletes media and playground uploads past retention
 * (objects first, then the row, so a crash in between only repeats the deletion), removes leftovers of interrupted puts,
 * and sets the storage gauges. Idempotent.
 */
export async function sweepMedia(deps: MediaSweepDeps): Promise<MediaSweepResult> {
  const { db } = deps.database;
  let copiesRequeued = 0;
  for (const taskId of await listCopiesDue(db, new Date(Date.now() - deps.graceMs), BATCH)) {
    const state = await deps.mediaQueue.getJobState(`media.${taskId}`);
    if (state !== 'unknown' && state !== 'failed' && state !== 'completed') continue;
    if (state !== 'unknown') await deps.mediaQueue.remove(`media.${taskId}`).catch(() => 0);
    await enqueueMediaCopy(deps.mediaQueue, taskId);
    copiesRequeued += 1;
  }
  const lost = (await expireUncopied(db, BATCH)).length;
  if (lost) deps.metrics?.mediaCopies.inc({ outcome: 'expired' }, lost);

  let expired = 0;
  for (const row of await listExpiredMedia(db, new Date(), BATCH)) {
    for (const key of [row.storageKey, row.thumbnailKey]) if (key) await deps.storage.delete(key);
    if (await markMediaGone(db, row.taskId, 'expired')) expired += 1;
  }
  if (expired) deps.metrics?.mediaExpired.inc(expired);
  let uploadsExpired = 0;
  for (const row of await listExpiredUploads(db, new Date(), BATCH)) {
    await deps.storage.delete(row.storageKey);
    if (await markUploadGone(db, row.id)) uploadsExpired += 1;
  }
  // a put interrupted a day ago will never complete
  await deps.storage
    .sweepIncomplete(24 * 3600 * 1000)
    .catch((err: unknown) => deps.logger.warn({ err }, 'could not sweep interrupted media uploads'));
  if (deps.metrics) {
    const totals = await storedMediaTotals(db);
    deps.metrics.mediaStoredBytes.set(totals.bytes);
    deps.metrics.mediaStoredObjects.set(totals.objects);
  }
  if (copiesRequeued || lost || expired || uploadsExpired) {
    deps.logger.info({ copiesRequeued, lost, expired, uploadsExpired }, 'reconciler media sweep');
  }
  return { copiesRequeued, lost, expired, uploadsExpired };
}
