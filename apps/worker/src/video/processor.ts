import {
  type ChannelPool,
  callbackUrlOf,
  clearSubmitStarted,
  type DashScopeVideoClient,
  type Database,
  failTask,
  getTask,
  inSpan,
  isTerminal,
  type JobPayload,
  type Logger,
  type Metrics,
  type ModelCatalog,
  markSubmitStarted,
  recordUpstreamTask,
  shouldFailOver,
  startTask,
  succeedTask,
  type TaskMediaLinks,
  type TaskRow,
  type TaskTransition,
  UpstreamError,
  updateProgress,
  type VideoModel,
  type VideoSubmission,
} from '@mediagate/shared';
import { DelayedError, type Job } from 'bullmq';
import { backoffDelay } from './backoff';
import { observedVideoClient, observeTransition } from './observe';
import { FixedPollScheduler, type PollScheduler } from './poll-scheduler';
import { usageRefund } from './settle-usage';
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
  logger: Logger;
  config: { pollIntervalMs: number; retryBaseMs: number; retryMaxMs: number };
  /**
   * Hands a task's committed callback deliveries to the dispatcher (commit, then enqueue). Optional:
   * without it (or when it fails) the reconciler enqueues them.
   */
  callbacks?: {
    /** reads the task's pending deliveries and enqueues them (for a move another process made) */
    enqueueForTask: (taskId: string) => Promise<unknown>;
    /** enqueues deliveries this process has just committed */
    enqueueNew: (deliveryIds: string[]) => Promise<unknown>;
  };
  /** transitions, their timings and upstream calls are counted here when given */
  metrics?: Metrics;
  /** every move of a task is published here (the API's event streams and caches) */
  events?: { publish: (row: TaskRow) => void };
  /**
   * The media of a success: the gateway's signed links go into the task object (the vendor's
   * link is kept, to copy from), and `copy` enqueues the copy once the move has committed (the
   * reconciler enqueues what this misses). Without it a task keeps the vendor's link.
   */
  media?: {
    linksFor: (taskId: string, completedAt: Date) => TaskMediaLinks;
    copy: (taskId: string) => Promise<unknown>;
  };
}

/** tries at storing an upstream id, about 26 s of backoff in all */
const STORE_UPSTREAM_ID_ATTEMPTS = 10;

type VideoJob = Job<JobPayload<'video.run'> & { upstreamRetries?: number }>;

/** Re-schedules the job `ms` from now without holding a worker slot (BullMQ delayed job). */
async function later(job: VideoJob, token: string | undefined, ms: number, deadline: Date): Promise<never> {
  const at = Math.min(Date.now() + ms, deadline.getTime() + 10);
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}

function submissionFor(row: TaskRow, model: VideoModel): VideoSubmission {
  const meta = row.metadata as {
    input: VideoSubmission['input'];
    parameters: Omit<VideoSubmission['parameters'], 'resolution' | 'duration'> & { audio?: boolean };
  };
  const { audio, ...rest } = meta.parameters ?? {};
  return {
    model: model.upstreamModel,
    input: { ...meta.input, prompt: row.prompt },
    parameters: {
      ...rest,
      resolution: model.resolution,
      duration: model.durationSeconds,
      ...(model.audioOptional ? { audio: audio ?? true } : {}),
    },
  };
}

/**
 * One run of a video task: start it, submit it upstream once, or poll it; between polls the job
 * waits as a delayed job. Every run reads the task row first, so a job that runs again after a
 * crash, a Redis loss or a duplicate enqueue resumes from what Postgres says and never submits
 * a task that already has (or may have) an upstream id.
 */
export function createVideoProcessor(deps: VideoProcessorDeps) {
  const { db } = deps.database;
  const client = observedVideoClient(deps.client, deps.metrics);
  const polls = deps.polls ?? new FixedPollScheduler(deps.limiter, deps.config.pollIntervalMs);
  const observed = <T extends TaskRow>(row: T | null) => {
    observeTransition(deps.metrics, row);
    if (row) deps.events?.publish(row);
    return row;
  };
  const start = async (row: TaskRow) => observed(await startTask(db, row));

  /**
   * Hands callback deliveries to the dispatcher: those `made` by this process's own move, as
   * they are, or, when another process made the move, whatever the task has pending.
   */
  const notifyCallbacks = async (taskId: string, made: TaskTransition | null, log: Logger) => {
    if (!deps.callbacks || made?.deliveryIds.length === 0) return;
    await (made ? deps.callbacks.enqueueNew(made.deliveryIds) : deps.callbacks.enqueueForTask(taskId)).catch(
      (err: unknown) => log.warn({ err }, 'callback enqueue failed; the reconciler will enqueue it'),
    );
  };

  /**
   * Stores the upstream id a submit just returned. Until it is stored the id exists only here,
   * and a task whose submit mark has no id is failed as interrupted (never submitted again), so
   * a database error here is retried for about half a minute before giving up.
   */
  const storeUpstreamId = async (taskId: string, upstreamTaskId: string, channel: string, log: Logger) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await recordUpstreamTask(db, taskId, upstreamTaskId);
      } catch (err) {
        if (attempt >= STORE_UPSTREAM_ID_ATTEMPTS) {
          log.error(
            { err, upstreamTaskId, channel },
            'could not store the upstream task id; the task will fail as an interrupted submit',
          );
          throw err;
        }
        log.warn({ err, attempt }, 'storing the upstream task id failed; retrying');
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5_000)));
      }
    }
  };

  /** Runs the task one step; returns the terminal move it made, if it made one. */
  const run = async (
    job: VideoJob,
    token: string | undefined,
    log: Logger,
  ): Promise<TaskTransition | null> => {
    const { taskId } = job.data;
    let ended: TaskTransition | null = null;
    // the terminal move: its state change, refund and callback rows commit in one transaction
    const fail = async (id: string, error: { code: string; message: string }) => {
      const attributes = { 'mediagate.task_id': id, 'mediagate.error_code': error.code };
      ended = observed(await inSpan('task.fail', attributes, () => failTask(db, id, error)));
      return ended;
    };
    const succeed = async (row: TaskRow, result: { videoUrl: string; usage?: unknown }) => {
      const settle = {
        media: deps.media?.linksFor(row.id, new Date()),
        refund: usageRefund(deps.catalog, row, result.usage, log),
      };
      const attributes = { 'mediagate.task_id': row.id };
      ended = observed(await inSpan('task.succeed', attributes, () => succeedTask(db, row, result, settle)));
      return ended;
    };
    let row = await getTask(db, taskId);
    if (!row || isTerminal(row.status)) return null;

    if (row.deadlineAt.getTime() <= Date.now()) {
      await fail(taskId, {
        code: 'timeout',
        message: 'The task did not finish before its deadline.',
      });
      log.warn('task failed: deadline passed');
      return ended;
    }
    if (row.status === 'pending') {
      const started = await start(row);
      row = started ?? (await getTask(db, taskId));
      if (!row || isTerminal(row.status)) return null;
      log.info('task processing');
      if (callbackUrlOf(row.metadata)) await notifyCallbacks(taskId, started, log);
    }

    const retry = async (err: UpstreamError): Promise<never> => {
      const attempt = (job.data.upstreamRetries ?? 0) + 1;
      await job.updateData({ ...job.data, upstreamRetries: attempt });
      const wait = backoffDelay(attempt, {
        baseMs: deps.config.retryBaseMs,
        maxMs: deps.config.retryMaxMs,
        retryAfterMs: err.details.retryAfterMs,
      });
      log.warn(
        { code: err.details.code, status: err.details.status, attempt, wait },
        'upstream call failed; retrying',
      );
      return later(job, token, wait, row!.deadlineAt);
    };
    const succeeded = async () => {
      if (job.data.upstreamRetries) await job.updateData({ ...job.data, upstreamRetries: 0 });
    };

    if (!row.upstreamTaskId) {
      if (row.submitStartedAt) {
        // A submit was sent and its answer never recorded (crash mid-call): the upstream may hold
        // a task for it. Sending another could run and bill it twice, so the task fails and is refunded.
        await fail(taskId, {
          code: 'upstream_submit_interrupted',
          message:
            'The upstream submission was interrupted and its outcome is unknown; the task was refunded. Please retry.',
        });
        log.error('submit outcome unknown after a crash; task failed without resubmitting');
        return ended;
      }
      // The submission is built before anything is marked, so a model that has left the catalog
      // fails the task as such (refunded) rather than as an interrupted submit.
      const model = deps.catalog.video(row.model);
      if (!model) {
        await fail(taskId, {
          code: 'model_unavailable',
          message: `The model '${row.model}' is no longer available; the task was refunded.`,
        });
        log.error({ model: row.model }, 'the task model is no longer in the catalog; task failed');
        return ended;
      }
      const submission = submissionFor(row, model);
      // At most one submit per channel, and a fail-over only after an answer that proves the
      // channel created nothing (an HTTP error status, a refused connection): never a second task.
      let lastErr: UpstreamError | undefined;
      for (const channel of deps.channels.candidates('dashscope')) {
        const wait = await deps.limiter.take('submit', channel.name);
        if (wait > 0) {
          if (lastErr) break;
          return later(job, token, wait, row.deadlineAt);
        }
        if (!deps.channels.acquire(channel.name)) continue;
        if (!(await markSubmitStarted(db, taskId, channel.name))) {
          deps.channels.release(channel.name);
          return ended;
        }
        let upstreamTaskId: string;
        try {
          ({ taskId: upstreamTaskId } = await client.submit(channel, submission));
        } catch (err) {
          if (!(err instanceof UpstreamError)) {
            deps.channels.release(channel.name);
            throw err;
          }
          deps.channels.failed(channel.name, err);
          if (err.details.notCreated) await clearSubmitStarted(db, taskId);
          if (err.details.notCreated && shouldFailOver(err)) {
            lastErr = err;
            log.warn(
              { channel: channel.name, code: err.details.code, status: err.details.status },
              'submit failed on this channel; trying the next one',
            );
            continue;
          }
          if (err.retryable) {
            await fail(taskId, {
              code: 'upstream_submit_uncertain',
              message:
                'The upstream did not confirm the submission in time; the task was refunded. Please retry.',
            });
            log.error(
              { code: err.details.code },
              'submit outcome uncertain; task failed without resubmitting',
            );
            return ended;
          }
          await fail(taskId, { code: err.details.code ?? 'upstream_error', message: err.message });
          log.warn({ code: err.details.code, status: err.details.status }, 'upstream refused the task');
          return ended;
        }
        deps.channels.succeeded(channel.name);
        await storeUpstreamId(taskId, upstreamTaskId, channel.name, log);
        await succeeded();
        log.info({ upstreamTaskId, channel: channel.name }, 'submitted upstream');
        return later(job, token, await polls.first(row, channel.name), row.deadlineAt);
      }
      if (lastErr && !lastErr.retryable) {
        // Every channel refused the gateway itself (key, permission, model access).
        await fail(taskId, {
          code: lastErr.details.code ?? 'upstream_error',
          message: lastErr.message,
        });
        log.error(
          { code: lastErr.details.code, status: lastErr.details.status },
          'every channel refused the task',
        );
        return ended;
      }
      return retry(lastErr ?? deps.channels.unavailableError('dashscope'));
    }

    const channel = row.upstreamChannel ? deps.channels.get(row.upstreamChannel) : undefined;
    if (!channel) {
      await fail(taskId, {
        code: 'upstream_channel_missing',
        message: 'The upstream channel that accepted this task is no longer configured.',
      });
      log.error({ channel: row.upstreamChannel }, 'task channel missing from configuration');
      return ended;
    }
    const wait = await polls.admit(channel.name);
    if (wait > 0) return later(job, token, wait, row.deadlineAt);
    let state: Awaited<ReturnType<DashScopeVideoClient['query']>>;
    try {
      state = await client.query(channel, row.upstreamTaskId);
      deps.channels.succeeded(channel.name);
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      deps.channels.failed(channel.name, err);
      // Every failed query is retried until the deadline, 4xx included: a 4xx on a query is the
      // gateway's fault (a rotated key, a path), while the paid upstream task may be fine.
      return retry(err);
    }
    await succeeded();
    switch (state.status) {
      case 'PENDING':
      case 'RUNNING': {
        const progress = state.status === 'RUNNING' ? 50 : 5;
        if (row.progress < progress) {
          await updateProgress(db, taskId, progress);
          deps.events?.publish({ ...row, progress, updatedAt: new Date() });
        }
        return later(job, token, await polls.next(row, channel.name), row.deadlineAt);
      }
      case 'SUCCEEDED': {
        polls.finished(row, state);
        if (!state.videoUrl) {
          await fail(taskId, {
            code: 'upstream_no_video',
            message: 'The upstream reported success without a video.',
          });
          return ended;
        }
        await succeed(row, { videoUrl: state.videoUrl, usage: state.usage });
        log.info('task succeeded');
        return ended;
      }
      default: {
        const code = state.code ?? `upstream_${state.status.toLowerCase()}`;
        const message =
          state.message ??
          (state.status === 'UNKNOWN'
            ? 'The upstream no longer knows this task.'
            : `The upstream task ended ${state.status}.`);
        await fail(taskId, { code, message });
        log.warn({ code, upstreamStatus: state.status }, 'task failed upstream');
        return ended;
      }
    }
  };

  return async function processVideoJob(job: VideoJob, token?: string): Promise<void> {
    const log = deps.logger.child({ taskId: job.data.taskId, requestId: job.data.requestId });
    const ended = await run(job, token, log);
    // A run that returns (rather than waiting as a delayed job) has ended the task, or found it
    // ended: its callback deliveries are committed by now, so hand them to the dispatcher.
    await notifyCallbacks(job.data.taskId, ended, log);
    if (ended?.status === 'succeeded' && deps.media) {
      await deps.media
        .copy(ended.id)
        .catch((err: unknown) =>
          log.warn({ err }, 'media copy enqueue failed; the reconciler will enqueue it'),
        );
    }
  };
}
