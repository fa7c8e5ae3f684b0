import { type CopyOutcome, copyTaskMedia, type MediaCopyDeps } from '@mediagate/shared/media';
import type { JobPayload } from '@mediagate/shared/queue';
import type { Job } from 'bullmq';

/**
 * The media-copy job: copies a succeeded task's video (and first frame) into storage. A failed
 * copy is recorded on the task's media row, not thrown: the reconciler enqueues it again when due.
 * A worker killed mid-copy leaves an invisible temporary object; the job runs again once its lock
 * lapses, and the copy starts over.
 */
export function createMediaCopyProcessor(deps: MediaCopyDeps) {
  return async function processMediaCopy(job: Job<JobPayload<'media.copy'>>): Promise<CopyOutcome> {
    return copyTaskMedia(deps, job.data.taskId);
  };
}
