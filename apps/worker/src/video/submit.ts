import type { VideoModel } from '@mediagate/shared/catalog';
import { isTransientDbError, type TaskRow } from '@mediagate/shared/db';
import { UpstreamError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import { clearSubmitStarted, getTask, markSubmitStarted, recordUpstreamTask } from '@mediagate/shared/tasks';
import { type ChannelConfig, shouldFailOver, type VideoSubmission } from '@mediagate/shared/upstream';
import { z } from 'zod';
import { ended, endedElsewhere, type PhaseDeps, reject, retry, retryDatabase, type Step, wait } from './step';

/** tries at a write whose loss fails the task (the upstream id, clearing a mark), about 26 s of backoff in all */
const STORE_ATTEMPTS = 10;

/** The request a task stored at creation, as far as its submission reads it. */
const storedRequest = z.object({
  input: z.looseObject({ img_url: z.string() }),
  parameters: z.looseObject({ audio: z.boolean().optional() }).optional(),
});

/** The DashScope body of a task on `model`, or null when the task's stored request cannot be read. */
export function submissionFor(row: TaskRow, model: VideoModel): VideoSubmission | null {
  const stored = storedRequest.safeParse(row.metadata);
  if (!stored.success) return null;
  const { audio, ...rest } = stored.data.parameters ?? {};
  return {
    model: model.upstreamModel,
    input: { ...(stored.data.input as Omit<VideoSubmission['input'], 'prompt'>), prompt: row.prompt },
    parameters: {
      ...(rest as Omit<VideoSubmission['parameters'], 'resolution' | 'duration'>),
      resolution: model.resolution,
      duration: model.durationSeconds,
      ...(model.audioOptional ? { audio: audio ?? true } : {}),
    },
  };
}

/**
 * A submit may move to the next channel only after an answer proving this channel created nothing
 * (an HTTP error status, a refused connection), and only for a failure another channel may not
 * have (see shouldFailOver): never a second paid task.
 */
const mayFailOver = (err: UpstreamError) => err.details.notCreated === true && shouldFailOver(err);

/** Ends the channel loop without a verdict on the channel (the run waits, or the task moved). */
class SubmitHalted extends Error {
  constructor(readonly step: Step) {
    super('submit halted');
  }
}

/**
 * The submit phase of a task with no upstream id (pending, or processing): builds the submission,
 * then sends it at most once per channel through the channel pool's fail-over, marking the task
 * before each send (a pending task is started by the same statement), and stores the upstream id
 * the accepting channel returned. A task whose earlier submit left a mark and no id fails rather
 * than risk a second upstream task.
 */
export async function submitPhase(deps: PhaseDeps, row: TaskRow, log: Logger): Promise<Step> {
  if (row.submitStartedAt) {
    // A submit was sent and its answer never recorded (crash mid-call): the upstream may hold
    // a task for it. Sending another could run and bill it twice, so the task fails and is refunded.
    log.error('submit outcome unknown after a crash; task failed without resubmitting');
    return ended(
      await deps.lifecycle.fail(row.id, {
        code: 'upstream_submit_interrupted',
        message:
          'The upstream submission was interrupted and its outcome is unknown; the task was refunded. Please retry.',
      }),
    );
  }
  // The submission is built before anything is marked, so a model that has left the catalog
  // fails the task as such (refunded) rather than as an interrupted submit.
  const model = deps.catalog.video(row.model);
  if (!model) {
    log.error({ model: row.model }, 'the task model is no longer in the catalog; task failed');
    return ended(
      await deps.lifecycle.fail(row.id, {
        code: 'model_unavailable',
        message: `The model '${row.model}' is no longer available; the task was refunded.`,
      }),
    );
  }
  const submission = submissionFor(row, model);
  if (!submission) {
    log.error('the task request stored at creation cannot be read; task failed');
    await deps.lifecycle.fail(row.id, {
      code: 'invalid_task',
      message: 'The task request stored at creation cannot be read; the task was refunded.',
    });
    return reject(`task ${row.id}: its stored request cannot be read`);
  }

  // what the pool's fail-over saw: the last failure it moved on from, and one it stopped at
  let failedOver: UpstreamError | undefined;
  let refusedBy: UpstreamError | undefined;
  // the task as this run last moved it: a pending task is started by its first submit mark
  let current = row;
  const mark = async (channel: string, at: Date): Promise<boolean> => {
    if (current.status === 'pending') {
      const started = await deps.lifecycle.start(current, { submitOn: channel, at });
      if (started) {
        current = started;
        return true;
      }
      // another run started it first (it is submitting, or it left the mark to this run), or it ended
      const now = await getTask(deps.db, current.id);
      if (now?.status !== 'processing') return false;
      current = now;
    }
    return markSubmitStarted(deps.db, current.id, channel, at);
  };
  const submitOn = async (channel: ChannelConfig) => {
    const ms = await deps.limiter.take('submit', channel.name);
    if (ms > 0) throw new SubmitHalted(wait(ms));
    const markedAt = new Date();
    let marked: boolean;
    try {
      marked = await mark(channel.name, markedAt);
    } catch (err) {
      // The mark may have committed with its answer lost (a connection cut as it committed);
      // nothing was sent, so this run's mark (by its time) is cleared: else the next run would
      // fail the task as interrupted.
      await unmark(deps, row.id, markedAt, log).catch(() => undefined);
      throw err;
    }
    if (!marked) throw new SubmitHalted(endedElsewhere());
    try {
      return { channel: channel.name, markedAt, ...(await deps.client.submit(channel, submission)) };
    } catch (err) {
      if (err instanceof UpstreamError && err.details.notCreated) await unmark(deps, row.id, markedAt, log);
      throw err;
    }
  };
  const failOver = (err: UpstreamError) => {
    if (mayFailOver(err)) failedOver = err;
    else refusedBy = err;
    return err === failedOver;
  };
  let accepted: { channel: string; markedAt: Date; taskId: string };
  try {
    accepted = await deps.channels.call('dashscope', submitOn, failOver);
  } catch (err) {
    if (refusedBy && err === refusedBy) return refused(deps, row, refusedBy, log);
    if (err instanceof SubmitHalted) {
      // a channel whose turn must wait ends the loop; the failures before it decide
      return err.step.kind === 'wait' && failedOver
        ? everyChannelFailed(deps, row, failedOver, log)
        : err.step;
    }
    if (!(err instanceof UpstreamError)) throw err;
    return everyChannelFailed(deps, row, failedOver ?? err, log);
  }
  try {
    await storeUpstreamId(deps, row.id, accepted.taskId, accepted.channel, log);
  } catch (err) {
    if (!isTransientDbError(err)) throw err;
    // the database is away longer than the tries: the id goes with the job, the next run stores it
    return retryDatabase(err, { upstreamTaskId: accepted.taskId, markedAt: accepted.markedAt.toISOString() });
  }
  log.info({ upstreamTaskId: accepted.taskId, channel: accepted.channel }, 'submitted upstream');
  return wait(await deps.polls.first(current, accepted.channel), true);
}

/** A channel answered in a way that ends the submit there (no fail-over). */
async function refused(deps: PhaseDeps, row: TaskRow, err: UpstreamError, log: Logger): Promise<Step> {
  if (err.retryable) {
    log.error({ code: err.details.code }, 'submit outcome uncertain; task failed without resubmitting');
    return ended(
      await deps.lifecycle.fail(row.id, {
        code: 'upstream_submit_uncertain',
        message: 'The upstream did not confirm the submission in time; the task was refunded. Please retry.',
      }),
    );
  }
  log.warn({ code: err.details.code, status: err.details.status }, 'upstream refused the task');
  return failWithUpstreamError(deps, row, err);
}

/** Fails the task with the upstream's own code and message. */
async function failWithUpstreamError(deps: PhaseDeps, row: TaskRow, err: UpstreamError): Promise<Step> {
  return ended(
    await deps.lifecycle.fail(row.id, { code: err.details.code ?? 'upstream_error', message: err.message }),
  );
}

/**
 * Every channel tried failed in a way that created nothing (or none could be tried): the last
 * failure decides. Retryable, the submit runs again after a backoff; otherwise every channel
 * refused the gateway itself (key, permission, model access) and the task fails.
 */
async function everyChannelFailed(
  deps: PhaseDeps,
  row: TaskRow,
  last: UpstreamError,
  log: Logger,
): Promise<Step> {
  if (last.retryable) return retry(last);
  log.error({ code: last.details.code, status: last.details.status }, 'every channel refused the task');
  return failWithUpstreamError(deps, row, last);
}

/**
 * Stores the upstream id a submit just returned. Until it is stored the id exists only here (and,
 * after a fault of the moment, in the job's data), and a task whose submit mark has no id is
 * failed as interrupted (never submitted again), so a database error here is retried for about
 * half a minute before giving up.
 */
async function storeUpstreamId(
  deps: PhaseDeps,
  taskId: string,
  upstreamTaskId: string,
  channel: string,
  log: Logger,
): Promise<void> {
  await persistently(() => recordUpstreamTask(deps.db, taskId, upstreamTaskId), {
    log: log.child({ upstreamTaskId, channel }),
    what: 'storing the upstream task id',
    lost: 'could not store the upstream task id; the task will fail as an interrupted submit',
  });
}

/**
 * Clears the submit mark this run set at `markedAt` for a submit that certainly sent nothing
 * upstream. A mark left behind fails the task as interrupted on its next run, so a database
 * error here is retried for about half a minute before giving up.
 */
async function unmark(deps: PhaseDeps, taskId: string, markedAt: Date, log: Logger): Promise<void> {
  await persistently(() => clearSubmitStarted(deps.db, taskId, markedAt), {
    log,
    what: 'clearing the submit mark',
    lost: 'could not clear the submit mark; the task will fail as an interrupted submit',
  });
}

/** Runs a write whose loss fails the task, again after each error, STORE_ATTEMPTS times at most. */
async function persistently(
  write: () => Promise<unknown>,
  ctx: { log: Logger; what: string; lost: string },
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await write();
      return;
    } catch (err) {
      if (attempt >= STORE_ATTEMPTS) {
        ctx.log.error({ err }, ctx.lost);
        throw err;
      }
      ctx.log.warn({ err, attempt }, `${ctx.what} failed; retrying`);
      await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 5_000)));
    }
  }
}
