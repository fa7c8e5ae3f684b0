import type { Db } from '../db/client';
import type { CallRefundDetails, TaskRow } from '../db/schema';
import type { Logger } from '../log';
import type { TaskMediaLinks } from '../media/links';
import type { Metrics } from '../metrics';
import { inSpan } from '../tracing/spans';
import { callbackUrlOf } from '../webhooks/outbox';
import { retryFailedTask } from './admin';
import { type CancelOutcome, cancelTask } from './cancel';
import {
  createVideoTask,
  failTask,
  type NewVideoTask,
  startTask,
  succeedTask,
  type TaskTransition,
  updateProgress,
} from './tasks';

/** The error a task past its deadline fails with. */
export const TIMED_OUT = {
  code: 'timeout',
  message: 'The task did not finish before its deadline.',
} as const;

/**
 * What follows a move, each optional: without `callbacks` the reconciler's sweep hands the
 * move's deliveries to the dispatcher; without `events` no replica hears of the move at once.
 */
export interface TaskLifecycleDeps {
  db: Db;
  /** warnings of after-effects that failed (each is retried by the reconciler) */
  logger?: Logger;
  /** every move is counted here (see countTaskMove) */
  metrics?: Metrics;
  /** the callbacks dispatcher's queue */
  callbacks?: {
    /** enqueues deliveries this process has just committed (due now) */
    enqueueNew(ids: string[]): Promise<unknown>;
    /** reads the task's pending deliveries and enqueues them (a move another process made) */
    enqueueForTask(taskId: string): Promise<unknown>;
  };
  /** every move is published here (the API replicas' event streams and caches) */
  events?: { publish(row: TaskRow): void };
  /**
   * The media of a success: the gateway's signed links go into the task object (the vendor's
   * link is kept in a media row, to copy from), and `copy` enqueues the copy once the move has
   * committed. Without it a succeeded task keeps the vendor's link.
   */
  media?: {
    linksFor(taskId: string, completedAt: Date): TaskMediaLinks;
    copy(taskId: string): Promise<unknown>;
  };
  /** cancels a task running upstream (the vendor cancels only tasks it has not started) */
  upstream?: { cancel(channel: string, upstreamTaskId: string): Promise<void> };
  /**
   * Hands a new task's job to the video queue; false when it could not (Redis away). A task not
   * handed over is still accepted: the process enqueues it again as soon as Redis answers, and the
   * reconciler's sweep enqueues whatever a dead process left.
   */
  videoQueue?: { enqueue(taskId: string, requestId: string | undefined): Promise<boolean> };
}

/** A create or an operator's retry: the task, whether this call made it, whether its job is queued. */
export interface CreatedTask {
  row: TaskRow;
  /** false when an earlier request made it (a repeated operator's retry) */
  created: boolean;
  /** false when the queue did not take the job now (see TaskLifecycleDeps.videoQueue) */
  enqueued: boolean;
}

/** What a success gives back when the vendor reports less than was charged. */
export interface SuccessRefund {
  amountMicroUsd: number;
  /** the ledger's English text for the refund */
  reason: string;
  /** the refund's ledger details (usage_settlement) */
  details?: CallRefundDetails;
}

const seconds = (from: Date, to: Date | null) =>
  Math.max(0, ((to ?? new Date()).getTime() - from.getTime()) / 1000);

/**
 * Failures the client caused: a cancel, or an input the vendor refused (invalid, unreachable or
 * inspected image or prompt). Every other failure counts against the service's success objective.
 */
const CLIENT_FAILURES = new Set([
  'canceled',
  'InvalidParameter',
  'InvalidURL',
  'DataInspectionFailed',
  'IPInfringementSuspect',
]);

/** The failures of a submit whose outcome at the vendor is unknown (the vendor may bill for it). */
const UNRESOLVED_SUBMITS: Record<string, string | undefined> = {
  upstream_submit_interrupted: 'interrupted',
  upstream_submit_uncertain: 'uncertain',
};

/** A finished task's outcome for the success objective: succeeded, failed_client or failed_service. */
export function taskOutcome(row: Pick<TaskRow, 'status' | 'errorCode'>): string {
  if (row.status === 'succeeded') return 'succeeded';
  return row.errorCode && CLIENT_FAILURES.has(row.errorCode) ? 'failed_client' : 'failed_service';
}

/**
 * Counts a move this process made: the transition, the pickup or completion time, and the money
 * it moved (the charge of a created task, the refund of a failed one).
 */
export function countTaskMove(metrics: Metrics | undefined, row: TaskRow): void {
  if (!metrics) return;
  metrics.taskTransitions.inc({ model: row.model, status: row.status });
  if (row.status === 'pending') {
    metrics.billingMicroUsd.inc({ kind: 'charge' }, row.priceMicroUsd);
    metrics.billingOperations.inc({ kind: 'charge' });
  }
  if (row.status === 'processing' && row.startedAt) {
    metrics.taskPickupSeconds.observe({ model: row.model }, seconds(row.createdAt, row.startedAt));
  }
  if (row.status === 'succeeded' || row.status === 'failed') {
    metrics.taskCompletionSeconds.observe(
      { model: row.model, status: row.status },
      seconds(row.createdAt, row.completedAt),
    );
  }
  if (row.status === 'succeeded' || row.status === 'failed') {
    metrics.taskOutcomes.inc({ model: row.model, outcome: taskOutcome(row) });
  }
  const unresolved = row.status === 'failed' ? UNRESOLVED_SUBMITS[row.errorCode ?? ''] : undefined;
  if (unresolved) metrics.submitsUnresolved.inc({ reason: unresolved });
  if (row.status === 'failed' && row.priceMicroUsd > 0) {
    metrics.billingMicroUsd.inc({ kind: 'refund' }, row.priceMicroUsd);
    metrics.billingOperations.inc({ kind: 'refund' });
  }
}

/**
 * Every move of a video task, with what follows it, in this order:
 * 1. the move commits with its refund and callback outbox row (one statement, or one transaction
 *    with a refund; see tasks.ts);
 * 2. the callback deliveries it committed are handed to the dispatcher (when another process made
 *    the move first, whatever the task has pending);
 * 3. the move is published (event streams, caches) and counted;
 * 4. for a success, the copy of its media is enqueued.
 * An after-effect that fails is logged and left to the reconciler, which enqueues what is
 * missing; the move itself stands. Every method answers null when the move did not apply
 * (another process made a move first, or the task is finished).
 */
export class TaskLifecycle {
  constructor(private readonly deps: TaskLifecycleDeps) {}

  /**
   * → pending: charges the price and stores the task (see createVideoTask, whose errors it throws),
   * then hands its job to the queue, then counts and publishes it (the console's live pages show a
   * new task at once; the event streams of /v1 start from the task's answer). Committed first, enqueued
   * second: a task whose enqueue fails is accepted all the same (see TaskLifecycleDeps.videoQueue).
   * A key already claimed throws IdempotencyInFlightError (the caller answers the earlier task).
   */
  async create(task: NewVideoTask): Promise<CreatedTask> {
    const row = await createVideoTask(this.deps.db, task);
    const enqueued = await this.enqueueTask(row, task.requestId);
    countTaskMove(this.deps.metrics, row);
    this.deps.events?.publish(row);
    return { row, created: true, enqueued };
  }

  /**
   * pending → processing. With `submitOn`, the same statement marks the task's submit on that
   * channel, and the start's deliveries are handed over without waiting for Redis: the submit must
   * go out as soon as its mark commits, since a crash between the two fails the task as an
   * interrupted submit (what is not handed over, the reconciler hands over). `at`: the time of
   * the move and the mark (default now).
   */
  async start(row: TaskRow, opts: { submitOn?: string; at?: Date } = {}): Promise<TaskRow | null> {
    const moved = await startTask(this.deps.db, row, opts);
    if (moved || callbackUrlOf(row.metadata)) {
      const handed = this.enqueueCallbacks(row.id, moved);
      if (opts.submitOn === undefined) await handed;
    }
    return this.announce(moved);
  }

  /** A processing task's progress (never backwards), published when it moves forward. */
  async progress(row: TaskRow, progress: number): Promise<void> {
    if (row.progress >= progress) return;
    await updateProgress(this.deps.db, row.id, progress);
    this.deps.events?.publish({ ...row, progress, updatedAt: new Date() });
  }

  /**
   * processing → succeeded with the vendor's result; `refund` gives back what the vendor's usage
   * shows was overcharged (never more than the price). With `media`, the task carries the
   * gateway's links and its media copy is enqueued after the commit.
   */
  async succeed(
    row: TaskRow,
    result: { videoUrl: string; usage?: unknown },
    refund?: SuccessRefund,
  ): Promise<TaskRow | null> {
    const settle = { media: this.deps.media?.linksFor(row.id, new Date()), refund };
    const moved = await inSpan('task.succeed', { 'mediagate.task_id': row.id }, () =>
      succeedTask(this.deps.db, row, result, settle),
    );
    await this.enqueueCallbacks(row.id, moved);
    this.announce(moved);
    if (moved && this.deps.media) {
      await this.deps.media
        .copy(moved.id)
        .catch((err: unknown) =>
          this.warn(err, moved.id, 'media copy enqueue failed; the reconciler will enqueue it'),
        );
    }
    return moved;
  }

  /** pending|processing → failed, refunded in full. */
  async fail(taskId: string, error: { code: string; message: string }): Promise<TaskRow | null> {
    const attributes = { 'mediagate.task_id': taskId, 'mediagate.error_code': error.code };
    const moved = await inSpan('task.fail', attributes, () => failTask(this.deps.db, taskId, error));
    await this.enqueueCallbacks(taskId, moved);
    return this.announce(moved);
  }

  /** Fails a task past its deadline with code `timeout`. */
  timeOut(taskId: string): Promise<TaskRow | null> {
    return this.fail(taskId, TIMED_OUT);
  }

  /**
   * The account's cancel (see cancelTask): a canceled task's `video.failed` delivery leaves at
   * once. A task running upstream needs `upstream` to be canceled.
   */
  async cancel(taskId: string, accountId: string): Promise<CancelOutcome> {
    const outcome = await cancelTask(this.deps.db, taskId, accountId, (channel, upstreamTaskId) => {
      if (!this.deps.upstream) throw new Error('TaskLifecycle.cancel: no upstream to cancel the task at');
      return this.deps.upstream.cancel(channel, upstreamTaskId);
    });
    if (outcome.kind === 'canceled') {
      await this.enqueueCallbacks(taskId, outcome.row);
      this.announce(outcome.row);
    }
    return outcome;
  }

  /**
   * An operator's retry of a failed task: a new pending task, charged (see retryFailedTask), then
   * enqueued and counted like a created one. A repeated retry answers the first one.
   */
  async retry(
    taskId: string,
    opts: Parameters<typeof retryFailedTask>[2] & { requestId?: string },
  ): Promise<CreatedTask | null> {
    const retried = await retryFailedTask(this.deps.db, taskId, opts);
    if (!retried) return null;
    if (!retried.created) return { ...retried, enqueued: true };
    const enqueued = await this.enqueueTask(retried.row, opts.requestId);
    countTaskMove(this.deps.metrics, retried.row);
    return { ...retried, enqueued };
  }

  /** Hands the task's pending deliveries to the dispatcher (a task found finished by another process). */
  async enqueuePendingCallbacks(taskId: string): Promise<void> {
    await this.enqueueCallbacks(taskId, null);
  }

  /** The deliveries `made` committed, or, when another process made the move, the task's pending ones. */
  private async enqueueCallbacks(taskId: string, made: TaskTransition | null): Promise<void> {
    const callbacks = this.deps.callbacks;
    if (!callbacks || made?.deliveryIds.length === 0) return;
    await (made ? callbacks.enqueueNew(made.deliveryIds) : callbacks.enqueueForTask(taskId)).catch(
      (err: unknown) => this.warn(err, taskId, 'callback enqueue failed; the reconciler will enqueue it'),
    );
  }

  /** Hands a new task's job to the queue; a failure is logged (the task is enqueued again later). */
  private async enqueueTask(row: TaskRow, requestId: string | undefined): Promise<boolean> {
    if (!this.deps.videoQueue) return false;
    const enqueued = await this.deps.videoQueue.enqueue(row.id, requestId).catch((err: unknown) => {
      this.warn(err, row.id, 'enqueue failed; made again once Redis answers');
      return undefined;
    });
    if (enqueued === false) this.warn(undefined, row.id, 'enqueue failed; made again once Redis answers');
    return enqueued === true;
  }

  /** Publishes and counts a move this process made. */
  private announce<T extends TaskRow>(moved: T | null): T | null {
    if (!moved) return null;
    this.deps.events?.publish(moved);
    countTaskMove(this.deps.metrics, moved);
    return moved;
  }

  private warn(err: unknown, taskId: string, message: string): void {
    this.deps.logger?.warn({ err, taskId }, message);
  }
}
