import { type Job, Queue } from 'bullmq';
import { JOB_CATALOG, type JobName, type QueueName } from './catalog';
import type { RedisClient } from './connection';
import { legacyQueueKeyPrefix } from './keys';

const LIVE_STATES = ['wait', 'prioritized', 'delayed'] as const;
const BATCH = 500;

export interface LegacyMoveResult {
  /** jobs taken out of the old queues and added to the new ones */
  moved: number;
  /** old queues deleted (no job left waiting, delayed or running in them) */
  removedQueues: string[];
}

/**
 * Moves what an older version left in its queues (every queue under the one hash tag
 * `{<namespace>}`) into today's (a hash tag per queue): each waiting or delayed job is removed
 * from the old queue and added to the new one under the same job id, its remaining delay kept,
 * with today's retry options. A job that is running (an older worker holds its lock) is left
 * where it is: it finishes there, or comes back to waiting and is moved by a later pass. Once an
 * old queue holds nothing waiting, delayed or running, it is deleted (its history of failed jobs
 * too). Cheap when there is nothing to move: one EXISTS per queue.
 *
 * A job removed but not yet added (the process died in between) is not lost: its row in Postgres
 * is the source of truth, and the reconciler enqueues what has no job.
 */
export async function moveLegacyJobs(
  connection: RedisClient,
  queuePrefix: string,
  queues: ReadonlyArray<Queue>,
): Promise<LegacyMoveResult> {
  const prefix = legacyQueueKeyPrefix(queuePrefix);
  const result: LegacyMoveResult = { moved: 0, removedQueues: [] };
  for (const target of queues) {
    const name = target.name as QueueName;
    if ((await connection.exists(`${prefix}:${name}:meta`, `${prefix}:${name}:id`)) === 0) continue;
    const legacy = new Queue(name, { connection, prefix });
    legacy.on('error', () => {});
    try {
      for (;;) {
        const jobs = (await legacy.getJobs([...LIVE_STATES], 0, BATCH - 1, true)).filter((j): j is Job =>
          Boolean(j),
        );
        let movedNow = 0;
        for (const job of jobs) {
          if (await moveOne(job, target)) movedNow += 1;
        }
        result.moved += movedNow;
        if (jobs.length < BATCH || movedNow === 0) break;
      }
      const counts = await legacy.getJobCounts(...LIVE_STATES, 'active', 'waiting-children');
      if (Object.values(counts).every((n) => n === 0)) {
        await legacy.obliterate({ force: true });
        result.removedQueues.push(`${prefix}:${name}`);
      }
    } finally {
      await legacy.close();
    }
  }
  return result;
}

async function moveOne(job: Job, target: Queue): Promise<boolean> {
  const spec = JOB_CATALOG[job.name as JobName];
  if (!spec || !job.id) return false;
  const dueAt = job.timestamp + (job.delay ?? 0);
  try {
    // fails while a worker holds the job's lock: then it is running and stays where it is
    await job.remove();
  } catch {
    return false;
  }
  const delay = Math.max(0, dueAt - Date.now());
  await target.add(job.name, job.data, {
    ...spec.options,
    jobId: job.id,
    delay: delay > 0 ? delay : undefined,
  });
  return true;
}
