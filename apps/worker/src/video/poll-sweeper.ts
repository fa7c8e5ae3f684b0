import { randomUUID } from 'node:crypto';
import type { Database } from '@mediagate/shared/db';
import { UpstreamError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import { type RedisClient, redisKey } from '@mediagate/shared/queue';
import { listInFlightUpstreamTasks } from '@mediagate/shared/tasks';
import type { ChannelPool, DashScopeVideoClient, UpstreamVideoStatus } from '@mediagate/shared/upstream';
import type { Queue } from 'bullmq';
import type { PollBudget } from './poll-budget';

export interface PollSweeperDeps {
  database: Database;
  redis: RedisClient;
  /** the video queue: a task found finished has its waiting job run now */
  queue: Queue;
  client: Pick<DashScopeVideoClient, 'list'>;
  channels: ChannelPool;
  budget: PollBudget;
  logger: Logger;
  config: {
    /** one sweep per interval, fleet-wide */
    intervalMs: number;
    pageSize: number;
    /** pages one sweep reads at most, per channel and status */
    maxPages: number;
    /** Redis key prefix (the queue prefix) */
    prefix: string;
  };
}

export interface SweepResult {
  skipped: boolean;
  inFlight: number;
  queries: number;
  found: number;
  promoted: number;
}

/** Finished states the sweep looks for: successes every sweep, the rare others every RARE_EVERY sweeps. */
const FINISHED: UpstreamVideoStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELED'];
const RARE_EVERY = 5;
/** the window starts this long before the oldest task in flight (clock differences with the vendor) */
const WINDOW_MARGIN_MS = 60_000;
const DAY_MS = 24 * 3_600_000;

/**
 * Finds finished upstream tasks in bulk with the vendor's batch task query and runs their waiting
 * jobs at once, so a completion is seen within about one sweep interval whatever the number of
 * tasks in flight. One worker sweeps per interval (a Redis lock); every page takes a slot of the
 * fleet-wide query budget like any query. The job still queries its task (the list carries no
 * video URL), records the outcome and learns the duration.
 */
export function createPollSweeper(deps: PollSweeperDeps) {
  const { config } = deps;
  const lockKey = redisKey(config.prefix, 'upstream-poll-sweep');

  const promote = async (taskId: string): Promise<boolean> => {
    const job = await deps.queue.getJob(taskId);
    if (!job || !(await job.isDelayed())) return false;
    try {
      await job.promote();
      return true;
    } catch {
      return false; // it started meanwhile
    }
  };

  let sweeps = 0;
  async function sweepOnce(): Promise<SweepResult> {
    const result: SweepResult = { skipped: false, inFlight: 0, queries: 0, found: 0, promoted: 0 };
    const got = await deps.redis.set(lockKey, randomUUID(), 'PX', Math.max(config.intervalMs, 1), 'NX');
    if (got !== 'OK') return { ...result, skipped: true };

    const statuses = sweeps++ % RARE_EVERY === 0 ? FINISHED : FINISHED.slice(0, 1);
    const inFlight = await listInFlightUpstreamTasks(deps.database.db);
    result.inFlight = inFlight.length;
    const byChannel = new Map<string, Map<string, { id: string; since: number }>>();
    for (const t of inFlight) {
      let tasks = byChannel.get(t.upstreamChannel);
      if (!tasks) {
        tasks = new Map();
        byChannel.set(t.upstreamChannel, tasks);
      }
      tasks.set(t.upstreamTaskId, { id: t.id, since: t.submitStartedAt?.getTime() ?? Date.now() });
    }
    for (const [channelName, tasks] of byChannel) {
      const channel = deps.channels.get(channelName);
      if (!channel) continue;
      let oldest = Number.POSITIVE_INFINITY;
      for (const t of tasks.values()) oldest = Math.min(oldest, t.since);
      const startTime = new Date(Math.max(oldest - WINDOW_MARGIN_MS, Date.now() - DAY_MS + WINDOW_MARGIN_MS));
      for (const status of statuses) {
        for (let pageNo = 1; pageNo <= config.maxPages; pageNo += 1) {
          if ((await deps.budget.acquire(channelName, config.intervalMs)) > 0) return result;
          result.queries += 1;
          let page: Awaited<ReturnType<DashScopeVideoClient['list']>>;
          try {
            page = await deps.client.list(channel, { startTime, status, pageNo, pageSize: config.pageSize });
          } catch (err) {
            if (!(err instanceof UpstreamError)) throw err;
            deps.logger.warn(
              { channel: channelName, code: err.details.code, status: err.details.status },
              'batch task query failed; the planned polls go on',
            );
            return result;
          }
          for (const listed of page.tasks) {
            const ours = tasks.get(listed.taskId);
            if (!ours || listed.status !== status) continue;
            tasks.delete(listed.taskId);
            result.found += 1;
            if (await promote(ours.id)) result.promoted += 1;
          }
          if (pageNo >= page.totalPages || page.tasks.length === 0) break;
        }
      }
    }
    return result;
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = sweepOnce()
      .then((r) => {
        if (!r.skipped && r.found > 0) deps.logger.debug(r, 'batch task query found finished tasks');
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'poll sweep failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, config.intervalMs);
      });
  };
  return {
    sweepOnce,
    start() {
      stopped = false;
      timer = setTimeout(tick, Math.floor(Math.random() * config.intervalMs));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
