import type { Db } from '../db/client';
import { endTaskMediaLinks } from '../tasks/task-links-sql';
import type { MediaStorage } from './storage';
import { getTaskMedia, markMediaGone } from './task-media';

/**
 * Deletes a succeeded task's kept media at its owner's request: the stored objects first, then the
 * row is marked `deleted` and the task's links end, so a crash in between leaves a state that a
 * repeated delete completes. Idempotent. The task itself (and its billing) stays.
 */
export async function deleteTaskMedia(db: Db, storage: MediaStorage, taskId: string): Promise<void> {
  const media = await getTaskMedia(db, taskId);
  if (!media) {
    await endTaskMediaLinks(db, taskId, new Date());
    return;
  }
  for (const key of [media.storageKey, media.thumbnailKey]) if (key) await storage.delete(key);
  await markMediaGone(db, taskId, 'deleted');
}
