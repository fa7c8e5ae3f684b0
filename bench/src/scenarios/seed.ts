import { newTaskId } from '@mediagate/shared/ids';
import { QUEUE_NAMES, queueKeyPrefix } from '@mediagate/shared/queue';
import { Queue } from 'bullmq';
import type { BenchEnv } from '../env';

/**
 * `n` pending video tasks of the bench account written straight into Postgres (free: no charge)
 * and their jobs queued in thousands, as the create route would leave them: the scenarios that
 * measure what happens after the create start from here. Returns the task ids.
 */
export async function seedVideoTasks(e: BenchEnv, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newTaskId());
  await e.database.pool.query(
    `insert into tasks (id, account_id, api_key_id, model, status, prompt, metadata, price_micro_usd, deadline_at)
     select id, $2, $3, 'wan2.6-i2v-flash-5s-720p', 'pending', 'a boat', $4::jsonb, 0, now() + interval '1 hour'
     from unnest($1::text[]) as id`,
    [
      ids,
      e.accountId,
      e.keyId,
      JSON.stringify({ input: { img_url: 'https://example.com/a.png' }, parameters: {} }),
    ],
  );
  const queue = new Queue(QUEUE_NAMES.video, {
    connection: e.redis,
    prefix: queueKeyPrefix(e.prefix, QUEUE_NAMES.video),
  });
  try {
    for (let i = 0; i < n; i += 1000) {
      await queue.addBulk(
        ids.slice(i, i + 1000).map((taskId) => ({
          name: 'video.run',
          data: { taskId },
          opts: { jobId: taskId, removeOnComplete: true },
        })),
      );
    }
  } finally {
    await queue.close();
  }
  return ids;
}
