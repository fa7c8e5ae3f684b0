import { type CopyOutcome, copyTaskMedia, type MediaCopyDeps } from '@mediagate/shared/media';
import type { JobPayload } from '@mediagate/shared/queue';
import type { Job } from 'bullmq';

/**
 * The media-copy job: copies a succeeded task's video (and first frame) into storage. A failed
 * copy is recorded on the task's media row, not thrown: the reconciler enqueues it again when due.
 * A worker killed mid-copy leaves an invisible temporary object; the job runs again once its lock
 * lapses, and the copy starts over. `announceStored` publishes the task once its copy is stored
 * (its first frame now answers), for the console's live pages; its failure is only logged.
 */
export function createMediaCopyProcessor(
  deps: MediaCopyDeps,
  announceStored?: (taskId: string) => Promise<void>,
) {
  return async function processMediaCopy(job: Job<JobPayload<'media.copy'>>): Promise<CopyOutcome> {
    const outcome = await copyTaskMedia(deps, job.data.taskId);
    if (outcome === 'stored' && announceStored) {
      await announceStored(job.data.taskId).catch((err: unknown) =>
        deps.logger.warn({ err, taskId: job.data.taskId }, 'could not announce the stored media'),
      );
    }
    return outcome;
  };
}
