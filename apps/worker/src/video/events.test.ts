import { createRedis, type RedisClient } from '@mediagate/shared/queue';
import { decodeTaskEvent, taskEventsChannels } from '@mediagate/shared/tasks';
import { testServiceUrls, waitFor } from '@mediagate/shared/testing';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';

let sim: Sim;
let h: WorkerHarness;
let subscriber: RedisClient;

beforeAll(async () => {
  sim = await startSim();
  h = await startWorkerHarness(sim);
  h.startWorker();
  subscriber = createRedis((await testServiceUrls()).redisUrl, 'worker');
});
afterAll(async () => {
  subscriber?.disconnect();
  await h?.close();
  await sim?.stop();
});

describe('task moves published by the video worker', () => {
  it('publishes the start, the progress and the end of a task, in order, with the task object', async () => {
    const seen: Array<{ status: string; progress: number; eventId: number }> = [];
    subscriber.on('smessage', (_channel: string, message: string) => {
      const event = decodeTaskEvent(message);
      if (!event) return;
      const task = JSON.parse(event.json) as { status: string; progress: number };
      seen.push({ status: task.status, progress: task.progress, eventId: event.eventId });
    });
    await Promise.all(taskEventsChannels(h.prefix).map((c) => subscriber.ssubscribe(c)));
    await h.createTask();
    await waitFor(() => seen.some((e) => e.status === 'succeeded'), { what: 'the terminal event' });
    expect(seen[0]!.status).toBe('processing');
    expect(seen[seen.length - 1]).toMatchObject({ status: 'succeeded', progress: 100 });
    const ids = seen.map((e) => e.eventId);
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
  });
});
