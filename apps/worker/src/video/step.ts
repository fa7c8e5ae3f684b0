import type { ModelCatalog } from '@mediagate/shared/catalog';
import { type Db, databaseFaultOf, databaseRetryLogLevel, type TaskRow } from '@mediagate/shared/db';
import type { UpstreamError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { JobPayload } from '@mediagate/shared/queue';
import type { TaskLifecycle } from '@mediagate/shared/tasks';
import type { ChannelPool, DashScopeVideoClient } from '@mediagate/shared/upstream';
import { DelayedError, type Job, UnrecoverableError } from 'bullmq';
import { backoffDelay } from '../backoff';
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
 * move this run made, or null; `elsewhere`: another process ended the task, or moved it on, first). `retryDatabase`: a
 * database call met a fault of the moment (see isTransientDbError); run again after a backoff
 * (`submitted`: the upstream accepted a submit whose id could not be stored; the next run stores it).
 * `reject`: the job can never run (a malformed payload, a task whose stored request cannot be
 * read): it fails for good, without a retry.
 */
export type Step =
  | { kind: 'wait'; ms: number; answered?: boolean }
  | { kind: 'retry'; err: UpstreamError }
  | { kind: 'retryDatabase'; err: unknown; submitted?: SubmittedUpstream }
  | { kind: 'ended'; row: TaskRow | null; elsewhere?: boolean }
  | { kind: 'reject'; reason: string };

export const wait = (ms: number, answered?: boolean): Step => ({ kind: 'wait', ms, answered });
export const retry = (err: UpstreamError): Step => ({ kind: 'retry', err });
export const retryDatabase = (err: unknown, submitted?: SubmittedUpstream): Step => ({
  kind: 'retryDatabase',
  err,
  submitted,
});

/** An upstream task a run submitted, with the time of the submit mark it was sent under (ISO). */
export interface SubmittedUpstream {
  upstreamTaskId: string;
  markedAt: string;
}
export const ended = (row: TaskRow | null): Step => ({ kind: 'ended', row });
export const endedElsewhere = (): Step => ({ kind: 'ended', row: null, elsewhere: true });
export const reject = (reason: string): Step => ({ kind: 'reject', reason });

/**
 * A video job: its payload, and the counts of failed tries in a row that its backoffs grow with
 * (upstream calls, database calls), kept across its delayed runs.
 */
export type VideoJob = Job<
  JobPayload<'video.run'> & {
    upstreamRetries?: number;
    databaseRetries?: number;
    /** a submit the upstream accepted whose id the database did not take: stored by the next run */
    submitted?: SubmittedUpstream;
  }
>;

export interface StepDriverConfig {
  retryBaseMs: number;
  retryMaxMs: number;
}

/**
 * Turns a phase's step into what BullMQ does with the job: returning completes it; a wait or a
 * retry (upstream or database) re-schedules it as a delayed job (moveToDelayed, then
 * DelayedError), so waiting holds no worker slot and a retry uses none of the job's attempts. A
 * delay never reaches past the task's deadline (the run then fails it as timed out; see
 * runAgainAt for a job already past it). A rejection
 * throws BullMQ's UnrecoverableError: the job fails at once, whatever attempts it has left.
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
    case 'wait': {
      // the tries in a row start over: the database answered this run, the upstream too when `answered`
      const answeredAfterRetries = step.answered && Boolean(job.data.upstreamRetries);
      if (answeredAfterRetries || job.data.databaseRetries) {
        await job.updateData({
          ...job.data,
          ...(answeredAfterRetries ? { upstreamRetries: 0 } : {}),
          databaseRetries: 0,
        });
      }
      return later(job, token, step.ms, ctx.deadline);
    }
    case 'retryDatabase': {
      const attempt = (job.data.databaseRetries ?? 0) + 1;
      await job.updateData({
        ...job.data,
        databaseRetries: attempt,
        ...(step.submitted ? { submitted: step.submitted } : {}),
      });
      const ms = backoffDelay(attempt, { baseMs: ctx.config.retryBaseMs, maxMs: ctx.config.retryMaxMs });
      ctx.log[databaseRetryLogLevel(attempt)](
        { fault: databaseFaultOf(step.err), attempt, wait: ms },
        'database call failed; retrying',
      );
      return later(job, token, ms, ctx.deadline);
    }
    case 'retry': {
      const { details } = step.err;
      const attempt = (job.data.upstreamRetries ?? 0) + 1;
      await job.updateData({ ...job.data, upstreamRetries: attempt, databaseRetries: 0 });
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
  await job.moveToDelayed(runAgainAt(Date.now(), ms, deadline), token);
  throw new DelayedError();
}

/**
 * When a job delayed by `ms` at `now` runs again: at the task's deadline if that comes first (the
 * run then times the task out). Once the deadline has passed the delay is kept whole: a run that
 * failed to time the task out (a database fault) waits its backoff instead of running again at
 * once, over and over.
 */
export function runAgainAt(now: number, ms: number, deadline: Date | undefined): number {
  const cut = deadline === undefined ? Number.POSITIVE_INFINITY : deadline.getTime() + 10;
  return cut > now ? Math.min(now + ms, cut) : now + ms;
}
