import { Queue } from 'bullmq';
import { testQueuePrefix, testServiceUrls } from '../testing';
import { JOB_CATALOG, QUEUE_NAMES } from './catalog';
import { createRedis, type RedisClient } from './connection';
import { legacyQueueKeyPrefix, redisNamespace } from './keys';
import { moveLegacyJobs } from './legacy';
import { createMediaQueue } from './media-queue';
import { createVideoQueue } from './video-queue';

let redis: RedisClient;
beforeAll(async () => {
  redis = createRedis((await testServiceUrls()).redisUrl, 'worker');
});
afterAll(() => redis.disconnect());

describe('moveLegacyJobs (upgrade from one hash tag for every queue)', () => {
  it('moves waiting and delayed jobs into the new queues under the same ids, then deletes the old queues', async () => {
    const prefix = testQueuePrefix();
    const video = createVideoQueue(redis, prefix);
    const media = createMediaQueue(redis, prefix);
    // what an older version left: every queue under `{<namespace>}`
    const old = new Queue(QUEUE_NAMES.video, { connection: redis, prefix: legacyQueueKeyPrefix(prefix) });
    const spec = JOB_CATALOG['video.run'];
    await old.add('video.run', { taskId: 'task-now' }, { ...spec.options, jobId: 'task-now' });
    await old.add(
      'video.run',
      { taskId: 'task-later' },
      { ...spec.options, jobId: 'task-later', delay: 60_000 },
    );
    try {
      const r = await moveLegacyJobs(redis, prefix, [video, media]);
      expect(r).toEqual({ moved: 2, removedQueues: [`{${redisNamespace(prefix)}}:video-tasks`] });
      expect(await video.getJobState('task-now')).toBe('waiting');
      expect(await video.getJobState('task-later')).toBe('delayed');
      const later = await video.getJob('task-later');
      expect(later!.data).toEqual({ taskId: 'task-later' });
      // the remaining delay is kept, not restarted
      expect(later!.timestamp + later!.delay).toBeGreaterThan(Date.now() + 50_000);
      expect(later!.timestamp + later!.delay).toBeLessThanOrEqual(Date.now() + 60_000);
      expect(await redis.keys(`${legacyQueueKeyPrefix(prefix)}:*`)).toEqual([]);
      // nothing left: a second pass only looks
      expect(await moveLegacyJobs(redis, prefix, [video, media])).toEqual({ moved: 0, removedQueues: [] });
    } finally {
      await old.obliterate({ force: true }).catch(() => {});
      await old.close();
      await video.obliterate({ force: true });
      await media.obliterate({ force: true });
      await video.close();
      await media.close();
    }
  });

  it('leaves a running job of an older worker where it is, and the old queue with it', async () => {
    const prefix = testQueuePrefix();
    const video = createVideoQueue(redis, prefix);
    const old = new Queue(QUEUE_NAMES.video, { connection: redis, prefix: legacyQueueKeyPrefix(prefix) });
    await old.add('video.run', { taskId: 'running' }, { jobId: 'running' });
    await old.add('video.run', { taskId: 'waiting' }, { jobId: 'waiting' });
    const { Worker } = await import('bullmq');
    const conn = createRedis((await testServiceUrls()).redisUrl, 'worker');
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let started!: () => void;
    const running = new Promise<void>((r) => {
      started = r;
    });
    const olderWorker = new Worker(
      QUEUE_NAMES.video,
      async () => {
        started();
        await held;
      },
      { connection: conn, prefix: legacyQueueKeyPrefix(prefix), concurrency: 1 },
    );
    try {
      await running;
      const r = await moveLegacyJobs(redis, prefix, [video]);
      expect(r.removedQueues).toEqual([]);
      expect(await old.getJobState('running')).toBe('active');
      // the waiting one went over (unless the older worker took it first, once the first finished)
      expect(await video.getJobState('waiting')).toBe('waiting');
    } finally {
      release();
      await olderWorker.close();
      conn.disconnect();
      await old.obliterate({ force: true }).catch(() => {});
      await old.close();
      await video.obliterate({ force: true });
      await video.close();
    }
  });
});
