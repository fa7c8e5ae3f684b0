import { startRedisServer, testQueuePrefix, waitFor } from '../testing';
import { createRedis } from './connection';
import { PendingEnqueues } from './pending-enqueues';
import { createVideoQueue, enqueueVideoTask } from './video-queue';

describe('PendingEnqueues', () => {
  it('makes the enqueues that failed while Redis was away as soon as it answers again', async () => {
    const server = await startRedisServer();
    // the API's connection: commands fail fast while Redis is away
    const redis = createRedis(server.url, 'producer');
    const queue = createVideoQueue(redis, testQueuePrefix());
    // no periodic retry within the test: only Redis coming back may trigger the flush
    const made: Array<{ key: string; waitedMs: number }> = [];
    const pending = new PendingEnqueues(redis, {
      retryMs: 60_000,
      onEnqueued: (key, waitedMs) => made.push({ key, waitedMs }),
    });
    const enqueue = (taskId: string) => () => enqueueVideoTask(queue, { taskId }, { timeoutMs: 500 });
    try {
      expect(await pending.run('t-0', enqueue('t-0'))).toBe(true);
      await server.stop('SIGKILL');
      await waitFor(() => redis.status !== 'ready', { what: 'the connection to notice' });
      const ids = Array.from({ length: 50 }, (_, i) => `t-${i + 1}`);
      for (const id of ids) expect(await pending.run(id, enqueue(id))).toBe(false);
      expect(pending.size).toBe(50);
      await server.start();
      const back = Date.now();
      await waitFor(() => pending.size === 0, { what: 'every kept enqueue made', timeoutMs: 10_000 });
      // the connection's retry strategy reconnects within 2 s; the enqueues leave right after
      expect(Date.now() - back).toBeLessThan(4_000);
      expect(made.map((m) => m.key).sort()).toEqual([...ids].sort());
      const states = await Promise.all(ids.map((id) => queue.getJobState(id)));
      expect(states.every((s) => s === 'waiting')).toBe(true);
    } finally {
      pending.close();
      await queue.close();
      redis.disconnect();
      await server.stop('SIGKILL');
    }
  });

  it('keeps at most maxEntries, the newest, and one per key', async () => {
    const server = await startRedisServer();
    const redis = createRedis(server.url, 'producer');
    const pending = new PendingEnqueues(redis, { retryMs: 60_000, maxEntries: 3 });
    const fail = () => Promise.reject(new Error('redis is unavailable'));
    try {
      for (const k of ['a', 'b', 'c', 'b', 'd']) await pending.run(k, fail);
      expect(pending.size).toBe(3);
    } finally {
      pending.close();
      redis.disconnect();
      await server.stop('SIGKILL');
    }
  });
});
