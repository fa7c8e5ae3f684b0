import type { ModelCatalog } from '@mediagate/shared/catalog';
import { type Database, isTransientDbError, type TaskRow } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import type { Metrics } from '@mediagate/shared/metrics';
import { JOB_CATALOG } from '@mediagate/shared/queue';
import { getTask, isTerminal, recordUpstreamTask, type TaskLifecycle } from '@mediagate/shared/tasks';
import type { ChannelPool, DashScopeVideoClient } from '@mediagate/shared/upstream';
import { observedVideoClient } from './observe';
import { pollPhase } from './poll';
import { FixedPollScheduler, type PollScheduler } from './poll-scheduler';
import {
  driveStep,
  ended,
  endedElsewhere,
  type PhaseDeps,
  reject,
  retryDatabase,
  type Step,
  type SubmittedUpstream,
  type VideoJob,
} from './step';
import { submitPhase } from './submit';
import type { UpstreamLimiter } from './upstream-limiter';

export interface VideoProcessorDeps {
  database: Database;
  client: DashScopeVideoClient;
  catalog: ModelCatalog;
  /**
   * The upstream channels: a new task is submitted on the first available DashScope channel (the
   * next one when a submit certainly created nothing), a running one stays on the channel that
   * accepted it (tasks.upstream_channel).
   */
  channels: ChannelPool;
  limiter: UpstreamLimiter;
  /** when running tasks are polled; default: every `config.pollIntervalMs` within `limiter` */
  polls?: PollScheduler;
  /** every move of a task, with what follows it (callback deliveries, events, metrics, media copy) */
  lifecycle: TaskLifecycle;
  logger: Logger;
  config: { pollIntervalMs: number; retryBaseMs: number; retryMaxMs: number };
  /** upstream calls are timed and counted here when given */
  metrics?: Metrics;
}

/**
 * One run of a video job: reads the task row, runs the phase its state calls for (start and
 * submit once, or poll once), and hands the phase's step to the driver (wait as a delayed job, retry after a
 * backoff, end, or reject the job for good). Every run reads the row first, so a job that runs again
 * after a crash, a Redis loss or a duplicate enqueue resumes from what Postgres says and never
 * submits a task that already has (or may have) an upstream id. A database fault of the moment
 * (isTransientDbError) anywhere in a run is retried after a backoff as a delayed job, using none
 * of the job's attempts; any other error fails the attempt (BullMQ's backoff and attempts).
 */
export function createVideoProcessor(deps: VideoProcessorDeps) {
  const { db } = deps.database;
  const phases: PhaseDeps = {
    db,
    client: observedVideoClient(deps.client, deps.metrics),
    catalog: deps.catalog,
    channels: deps.channels,
    limiter: deps.limiter,
    polls: deps.polls ?? new FixedPollScheduler(deps.limiter, deps.config.pollIntervalMs),
    lifecycle: deps.lifecycle,
  };

  /** Runs the phase the task's state calls for (a pending task is started by its submit's mark). */
  const phase = (row: TaskRow, log: Logger): Promise<Step> =>
    row.upstreamTaskId ? pollPhase(phases, row, row.upstreamTaskId, log) : submitPhase(phases, row, log);

  const run = async (row: TaskRow | null, log: Logger): Promise<Step> => {
    if (!row) return ended(null);
    if (isTerminal(row.status)) return endedElsewhere();
    if (row.deadlineAt.getTime() <= Date.now()) {
      log.warn('task failed: deadline passed');
      return ended(await deps.lifecycle.timeOut(row.id));
    }
    return phase(row, log);
  };

  /**
   * Stores the upstream id an earlier run was given but could not store, when the task still
   * holds that run's submit mark and no id: the task then polls the upstream task it paid for
   * instead of failing as an interrupted submit. The row as it now is.
   */
  const storeSubmitted = async (
    row: TaskRow,
    submitted: SubmittedUpstream,
    log: Logger,
  ): Promise<TaskRow | null> => {
    if (row.upstreamTaskId || row.submitStartedAt?.toISOString() !== submitted.markedAt) return row;
    await recordUpstreamTask(db, row.id, submitted.upstreamTaskId);
    log.info(
      { upstreamTaskId: submitted.upstreamTaskId },
      'stored the upstream task id an earlier run was given',
    );
    return getTask(db, row.id);
  };

  return async function processVideoJob(job: VideoJob, token?: string): Promise<void> {
    const payload = JOB_CATALOG['video.run'].schema.safeParse(job.data);
    if (!payload.success) {
      const log = deps.logger.child({ jobId: job.id });
      const step = reject(`malformed video.run payload: ${payload.error.message}`);
      return driveStep(job, token, step, { config: deps.config, log });
    }
    const { taskId, requestId } = payload.data;
    const log = deps.logger.child({ taskId, requestId });
    let row: TaskRow | null | undefined;
    let step: Step;
    try {
      row = await getTask(db, taskId);
      if (row && job.data.submitted) row = await storeSubmitted(row, job.data.submitted, log);
      step = await run(row, log);
      // another process ended the task: should its enqueue have failed, its deliveries wait
      if (step.kind === 'ended' && step.elsewhere) await deps.lifecycle.enqueuePendingCallbacks(taskId);
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      step = retryDatabase(err);
    }
    await driveStep(job, token, step, { deadline: row?.deadlineAt, config: deps.config, log });
  };
}
