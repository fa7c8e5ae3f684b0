import type { Job, Queue } from 'bullmq';
import type { QueueFacts } from '../metrics';

/** When a job became (or becomes) ready: a job re-scheduled by its run, its delay after that run started. */
const readyAt = (job: Job) => (job.processedOn ?? job.timestamp) + (job.delay ?? 0);

/**
 * A queue's depth by state and the age of its oldest job waiting (ready to run: the next one in
 * the wait list since it became ready, or a delayed job past its due time that no worker has
 * promoted yet) and running (since it started). A few Redis reads, whatever the queue's length.
 */
export async function queueFacts(queue: Queue, now = Date.now()): Promise<QueueFacts> {
  const [counts, [next], [delayed], [active]] = await Promise.all([
    queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'),
    queue.getJobs(['wait'], 0, 0, true),
    queue.getJobs(['delayed'], 0, 0, true),
    queue.getJobs(['active'], 0, 0, true),
  ]);
  const ages = [0, ...[next, delayed].filter((j): j is Job => !!j).map((j) => now - readyAt(j))];
  return {
    name: queue.name,
    counts,
    oldestWaitingSeconds: Math.max(...ages) / 1000,
    oldestActiveSeconds: active?.processedOn ? Math.max(0, now - active.processedOn) / 1000 : 0,
  };
}
