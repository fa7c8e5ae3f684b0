import type { TaskMediaRow } from '@mediagate/shared/db';
import { getTaskMedia } from '@mediagate/shared/media';
import type { Response } from 'express';
import type { ApiDeps } from '../deps';

/** How long a request for a first frame waits for the copy of a video that has just succeeded. */
export const FIRST_FRAME_WAIT_MS = 10_000;
/** Requests of one process waiting so at once; past that they are answered at once. */
const MAX_WAITING = 200;
let waiting = 0;

/**
 * The media row to answer a first frame from. A task's links go out the moment it succeeds, and
 * its first frame is made by the copy a moment later (seconds): a request for it while the copy is
 * pending waits for the copy to be announced (the task-events hub), at most `waitMs`, instead of
 * a 404 that an `<img>` or a callback handler fetching it at once would meet. Answers the row as it
 * then is (still pending after the wait: the caller answers 404 `thumbnail_unavailable`).
 */
export async function awaitFirstFrame(
  deps: Pick<ApiDeps, 'database' | 'taskEvents'>,
  res: Response,
  taskId: string,
  media: TaskMediaRow | null,
  waitMs = FIRST_FRAME_WAIT_MS,
): Promise<TaskMediaRow | null> {
  const hub = deps.taskEvents;
  if (!hub || media?.status !== 'pending' || waitMs <= 0 || waiting >= MAX_WAITING) return media;
  waiting += 1;
  try {
    return await new Promise<TaskMediaRow | null>((resolve) => {
      let settled = false;
      const finish = (row: TaskMediaRow | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unsubscribe();
        res.off('close', gone);
        resolve(row);
      };
      const reread = () =>
        getTaskMedia(deps.database.db, taskId).then(
          (row) => {
            if (row?.status !== 'pending') finish(row);
          },
          () => {},
        );
      const unsubscribe = hub.subscribe(taskId, () => void reread());
      const timer = setTimeout(() => finish(media), waitMs);
      // the client went away: nothing to answer
      const gone = () => finish(media);
      res.once('close', gone);
      // stored between the first read and the subscription
      void reread();
    });
  } finally {
    waiting -= 1;
  }
}

/** How many requests of this process wait for a first frame now (tests). */
export function firstFrameWaiters(): number {
  return waiting;
}

/** The media row of `taskId` to answer `variant` from: for a first frame, once the copy is in (see awaitFirstFrame). */
export async function firstFrameOrMedia(
  deps: Pick<ApiDeps, 'database' | 'taskEvents' | 'media'>,
  res: Response,
  taskId: string,
  variant: 'video' | 'thumbnail',
): Promise<TaskMediaRow | null> {
  const media = await getTaskMedia(deps.database.db, taskId);
  if (variant !== 'thumbnail') return media;
  return awaitFirstFrame(deps, res, taskId, media, deps.media.firstFrameWaitMs ?? FIRST_FRAME_WAIT_MS);
}
