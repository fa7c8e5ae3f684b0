import type { ModelCatalog } from '@mediagate/shared/catalog';
import type { Db, TaskRow } from '@mediagate/shared/db';
import type { UpstreamError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { JobPayload } from '@mediagate/shared/queue';
import type { TaskLifecycle } from '@mediagate/shared/tasks';
import type { ChannelPool, DashScopeVideoClient } from '@mediagate/shared/upstream';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { backoffDelay } from './backoff';
import type { PollScheduler } from './poll-scheduler';
import type { UpstreamLimiter } from './upstream-limiter';

/** What the phases of a run work with. */
export interface PhaseDeps {
  db: Db;
  client: Pick<DashScopeVideoClient, 'submit' | 'query'>;
  catalog: ModelCatalog;
  channels: ChannelPool;
  limiter: UpstreamLimiter;
  polls: PollScheduler;
  lifecycle: TaskLifecycle;
}

/**
 * What one phase of a video run decided. `wait`: run the job again in `ms` (`answered`: the
 * upstream answered this run, so the count of failed upstream calls starts over). `retry`: an
 * upstream call failed; run again after a backoff. `ended`: the job is done (`row`: the terminal
 * move this run made, or null; `elsewhere`: another process ended the task, or moved it on, first). `reject`: the job can never
 * run (a malformed payload, a task row that cannot be read): it fails for good, without a retry.
 */
export type Step =
  | { kind: 'wait'; ms: number; answered?: boolean }
  | { kind: 'retry'; err: UpstreamError }
  | { kind: 'ended'; row: TaskRow | null; elsewhere?: boolean }
  | { kind: 'reject'; reason: string };

export const wait = (ms: number, answered?: boolean): Step => ({ kind: 'wait', ms, answered });
export const retry = (err: UpstreamError): Step => ({ kind: 'retry', err });
export const ended = (row: TaskRow | null): Step => ({ kind: 'ended', row });
export const endedElsewhere = (): Step => ({ kind: 'ended', row: null, elsewhere: true });
export const reject = (reason: string): Step => ({ kind: 'reject', reason });

export type VideoJob = Job<JobPayload<'video.run'> & { upstreamRetries?: number }>;

export interface StepDriverConfig {
  retryBaseMs: number;
  retryMaxMs: number;
}

/**
 * Turns a phase's step into what BullMQ does with the job: returning completes it; a wait or a
 * retry re-schedules it as a delayed job (moveToDelayed, then DelayedError), so waiting holds no
 * worker slot. A delay never reaches past the task's deadline (the run then fails it as timed out).
 * A rejection throws BullMQ's UnrecoverableError: the job fails at once, whatever attempts it has left.
 */
export async function driveStep(
  job: VideoJob,
  token: string | undefined,
  step: Step,
  ctx: { deadline?: Date; config: StepDriverConfig; log: Logger },
): Promise<void> {
  switch (step.kind) {
    case 'ended':
      return;
    case 'reject':
      throw new UnrecoverableError(step.reason);
    case 'wait':
      if (step.answered && job.data.upstreamRetries)
        await job.updateData({ ...job.data, upstreamRetries: 0 });
      return later(job, token, step.ms, ctx.deadline);
    case 'retry': {
      const { details } = step.err;
      const attempt = (job.data.upstreamRetries ?? 0) + 1;
      await job.updateData({ ...job.data, upstreamRetries: attempt });
      const ms = backoffDelay(attempt, {
        baseMs: ctx.config.retryBaseMs,
        maxMs: ctx.config.retryMaxMs,
        retryAfterMs: details.retryAfterMs,
      });
      ctx.log.warn(
        { code: details.code, status: details.status, attempt, wait: ms },
        'upstream call failed; retrying',
      );
      return later(job, token, ms, ctx.deadline);
    }
  }
}

async function later(
  job: VideoJob,
  token: string | undefined,
  ms: number,
  deadline: Date | undefined,
): Promise<never> {
  const at = Math.min(Date.now() + ms, (deadline?.getTime() ?? Number.POSITIVE_INFINITY) + 10);
  await job.moveToDelayed(at, token);
  throw new DelayedError();
}
