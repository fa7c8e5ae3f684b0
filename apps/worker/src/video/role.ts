import { loadCatalog } from '@mediagate/shared/catalog';
import type { Database } from '@mediagate/shared/db';
import { createHttpAgent } from '@mediagate/shared/http';
import type { Logger } from '@mediagate/shared/log';
import type { Metrics } from '@mediagate/shared/metrics';
import { QUEUE_NAMES, type RedisClient, UPSTREAM_QUERY_HEADROOM } from '@mediagate/shared/queue';
import { TaskDurations, type TaskLifecycle } from '@mediagate/shared/tasks';
import { ChannelPool, channelsFromEnv, DashScopeVideoClient } from '@mediagate/shared/upstream';
import type { Queue, Telemetry } from 'bullmq';
import type { WorkerConfig } from '../config';
import { startQueueWorker } from '../queue-worker';
import { PollBudget } from './poll-budget';
import { AdaptivePollScheduler } from './poll-scheduler';
import { createPollSweeper } from './poll-sweeper';
import { createVideoProcessor } from './processor';
import { UpstreamLimiter } from './upstream-limiter';

/**
 * the query spacing keeps UPSTREAM_QUERY_HEADROOM (15 %) of UPSTREAM_POLL_QPS unused: any
 * UPSTREAM_POLL_QPS + 1 queries span 1.176 s, so a query may go up to POLL_TOLERANCE_MS after its
 * slot and still arrive up to 126 ms later than the query a second after it (the network, a
 * vendor's busy front end) before a sliding second at the vendor holds one too many
 */
/** how late after its slot a query may still go (a busy event loop, a slow answer from Redis) */
const POLL_TOLERANCE_MS = 50;
/** a query slot further away than this is waited for as a delayed job, not in the worker */
const MAX_ADMIT_WAIT_MS = 10_000;
/** pages one batch-query sweep reads at most, per channel and status */
const SWEEP_MAX_PAGES = 50;

export interface VideoRoleDeps {
  config: WorkerConfig;
  logger: Logger;
  database: Database;
  /** the process's Redis connection: upstream limits, poll budget, learned durations */
  redis: RedisClient;
  /** the video queue (the sweeper runs the jobs of tasks it found finished) */
  queue: Queue;
  /** every move of a task, with what follows it (see createWorkerLifecycle) */
  lifecycle: TaskLifecycle;
  metrics?: Metrics;
  telemetry?: Telemetry;
}

export interface VideoRole {
  /**
   * Stops the sweeps and the worker (`force`: without waiting for the runs under way), then closes
   * its connections. Idempotent.
   */
  close(opts?: { force?: boolean }): Promise<void>;
}

/**
 * The video role of a worker process: the video queue's worker running the processor, over the
 * configured upstream channels, with the fleet-wide submit and poll limits, the poll scheduler
 * (fixed, or adaptive with the batch-query sweeper), moving tasks through `lifecycle`. Opens its
 * own worker connection and HTTP agent; `close` releases them.
 */
export function startVideoRole(deps: VideoRoleDeps): VideoRole {
  const { config, logger, redis } = deps;
  const prefix = config.QUEUE_PREFIX;
  const channels = new ChannelPool(channelsFromEnv(config), {
    failureThreshold: config.UPSTREAM_BREAKER_FAILURES,
    cooldownMs: config.UPSTREAM_BREAKER_COOLDOWN_MS,
    logger,
  });
  deps.metrics?.watchChannels(channels);
  const agent = createHttpAgent({
    connectMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersMs: config.UPSTREAM_TIMEOUT_MS,
    bodyMs: config.UPSTREAM_TIMEOUT_MS,
  });
  const client = new DashScopeVideoClient(agent);
  const adaptive = config.VIDEO_POLL_SCHEDULER === 'adaptive';
  const sweeping = adaptive && config.VIDEO_POLL_SWEEP_INTERVAL_MS > 0;
  const budget = new PollBudget(
    redis,
    prefix,
    {
      queriesPerSecond: config.UPSTREAM_POLL_QPS,
      plannedShare: config.VIDEO_POLL_PLANNED_SHARE ?? (sweeping ? 0.25 : 1),
      headroom: UPSTREAM_QUERY_HEADROOM,
      toleranceMs: POLL_TOLERANCE_MS,
    },
    { metrics: deps.metrics },
  );
  const durations = new TaskDurations(redis, prefix);
  const polls = adaptive
    ? new AdaptivePollScheduler(
        budget,
        durations,
        {
          fallbackMs: sweeping ? config.VIDEO_POLL_MAX_INTERVAL_MS : config.VIDEO_POLL_INTERVAL_MS,
          minIntervalMs: config.VIDEO_POLL_MIN_INTERVAL_MS,
          maxIntervalMs: config.VIDEO_POLL_MAX_INTERVAL_MS,
          pollsPerSpread: config.VIDEO_POLL_SPREAD_POLLS,
          firstQuantile: sweeping ? 0.95 : 0.05,
          maxAdmitWaitMs: MAX_ADMIT_WAIT_MS,
        },
        logger,
      )
    : undefined;
  const catalog = loadCatalog(config.MODEL_CATALOG_FILE);
  const processor = createVideoProcessor({
    database: deps.database,
    client,
    polls,
    catalog,
    channels,
    limiter: new UpstreamLimiter(redis, prefix, {
      submitPerSecond: config.UPSTREAM_SUBMIT_RPS,
      pollPerSecond: config.UPSTREAM_POLL_QPS,
    }),
    lifecycle: deps.lifecycle,
    logger,
    metrics: deps.metrics,
    config: {
      pollIntervalMs: config.VIDEO_POLL_INTERVAL_MS,
      retryBaseMs: config.UPSTREAM_RETRY_BASE_MS,
      retryMaxMs: config.UPSTREAM_RETRY_MAX_MS,
    },
  });
  const { close: closeWorker } = startQueueWorker(QUEUE_NAMES.video, processor, {
    config,
    logger,
    label: 'video',
    idField: 'taskId',
    concurrency: config.VIDEO_CONCURRENCY,
    lockDurationMs: config.VIDEO_LOCK_DURATION_MS,
    telemetry: deps.telemetry,
  });
  const sweeper = sweeping
    ? createPollSweeper({
        database: deps.database,
        redis,
        queue: deps.queue,
        client,
        channels,
        budget,
        logger,
        config: {
          intervalMs: config.VIDEO_POLL_SWEEP_INTERVAL_MS,
          pageSize: config.VIDEO_POLL_SWEEP_PAGE_SIZE,
          maxPages: SWEEP_MAX_PAGES,
          prefix,
        },
      })
    : undefined;
  sweeper?.start();
  logger.info({ concurrency: config.VIDEO_CONCURRENCY }, 'video worker started');

  let closing: Promise<void> | undefined;
  return {
    close(opts = {}) {
      closing ??= (async () => {
        await sweeper?.stop();
        await closeWorker(opts.force);
        await agent.close();
      })();
      return closing;
    },
  };
}
