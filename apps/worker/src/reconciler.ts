import { randomUUID } from 'node:crypto';
import { checkLedger, sweepUnsettledImageCalls } from '@mediagate/shared/billing';
import type { Database, TaskRow } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import type { Metrics } from '@mediagate/shared/metrics';
import {
  type QrPaymentProvider,
  reconcileTopUpOrders,
  reconcileTopUpRefunds,
} from '@mediagate/shared/payments';
import { enqueueDelivery, enqueueVideoTask, moveLegacyJobs, type RedisClient } from '@mediagate/shared/queue';
import { deleteExpiredIdempotencyKeys, listActiveTasks, TaskLifecycle } from '@mediagate/shared/tasks';
import { enqueueNewDeliveries, enqueueTaskCallbacks, listDueDeliveries } from '@mediagate/shared/webhooks';
import type { Queue } from 'bullmq';
import { type MediaSweepDeps, type MediaSweepResult, sweepMedia } from './media/sweep';

export interface ReconcilerDeps {
  database: Database;
  redis: RedisClient;
  videoQueue: Queue;
  /** when given, callback deliveries whose job is gone are enqueued again too */
  callbacksQueue?: Queue;
  /** timeouts are counted as transitions here when given */
  metrics?: Metrics;
  /** timeouts are published here (event streams, API caches) when given */
  events?: { publish: (row: TaskRow) => void };
  /**
   * makes the timeouts, with what follows them; default: one on `database` with `metrics`,
   * `events` and `callbacksQueue`
   */
  lifecycle?: TaskLifecycle;
  logger: Logger;
  /** when given, media copies are retried, lost ones given up, and media past retention deleted */
  media?: Pick<MediaSweepDeps, 'storage' | 'mediaQueue'>;
  /** QR top-up providers: orders left unpaid past `afterMs` are queried, credited or closed */
  topUps?: { providers: ReadonlyMap<string, QrPaymentProvider>; afterMs: number };
  config: {
    intervalMs: number;
    graceMs: number;
    /** image calls unsettled for longer than this are refunded in full (IMAGE_SETTLE_AFTER_MS) */
    imageSettleAfterMs: number;
    lockKey: string;
    /**
     * the deployment's QUEUE_PREFIX: when given, jobs an older version left in its queues (one
     * hash tag for all) are moved into today's (see moveLegacyJobs)
     */
    queuePrefix?: string;
  };
}

export interface SweepResult {
  requeued: number;
  expired: number;
  /** callback deliveries due whose job was gone, enqueued again */
  callbacksRequeued: number;
  /** image calls left unsettled past their bound, refunded in full */
  imageCallsSettled: number;
  /** the media pass, when the reconciler has media */
  media?: MediaSweepResult;
  /** top-up orders credited after the provider said they were paid (their notification was lost) */
  topUpsCredited: number;
  /** top-up orders closed at the provider after their expiry */
  topUpsExpired: number;
  /** accounts the ledger check compared, and those found differing from their ledger (all so far) */
  ledger?: { checked: number; mismatched: number };
  skipped: boolean;
}

const BATCH = 500;

/**
 * One pass over every pending or processing task: fails those past their deadline (with refund)
 * and enqueues again those whose job is gone or dead (Redis flushed, restarted empty, attempts
 * exhausted). Then refunds in full every image call left unsettled past its bound (its API process
 * died or its settlement failed). Idempotent: enqueueing uses the task id as job id, every state
 * change is a compare-and-set, and an image call settles once. A Redis lock lets one replica sweep
 * at a time.
 */
export async function reconcileOnce(deps: ReconcilerDeps): Promise<SweepResult> {
  const token = randomUUID();
  const ttl = Math.max(deps.config.intervalMs * 2, 10_000);
  const got = await deps.redis.set(deps.config.lockKey, token, 'PX', ttl, 'NX');
  if (got !== 'OK') {
    deps.metrics?.reconcilerSweeps.inc({ outcome: 'skipped' });
    return {
      requeued: 0,
      expired: 0,
      callbacksRequeued: 0,
      imageCallsSettled: 0,
      topUpsCredited: 0,
      topUpsExpired: 0,
      skipped: true,
    };
  }
  try {
    if (deps.config.queuePrefix !== undefined) await moveLegacy(deps, deps.config.queuePrefix);
    const tasks = await sweep(deps);
    const callbacksRequeued = deps.callbacksQueue ? await sweepCallbacks(deps, deps.callbacksQueue) : 0;
    const imageCallsSettled = await sweepImageCalls(deps);
    const topUps = await sweepTopUps(deps);
    // Idempotency-Key records live 24 hours; drop the expired ones.
    await deleteExpiredIdempotencyKeys(deps.database.db);
    const media = deps.media
      ? await sweepMedia({
          ...deps.media,
          database: deps.database,
          logger: deps.logger,
          metrics: deps.metrics,
          graceMs: deps.config.graceMs,
        })
      : undefined;
    const ledger = await checkLedgerOnce(deps);
    const result = {
      ...tasks,
      callbacksRequeued,
      imageCallsSettled,
      media,
      ...topUps,
      ledger,
      skipped: false,
    };
    countSweep(deps.metrics, result);
    return result;
  } catch (err) {
    deps.metrics?.reconcilerSweeps.inc({ outcome: 'failed' });
    throw err;
  } finally {
    // Release only our own lock (it may have expired and been taken by another replica).
    await deps.redis.eval(
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
      1,
      deps.config.lockKey,
      token,
    );
  }
}

/** Counts what a pass did (mediagate_reconciler_actions_total) and when it ended. */
function countSweep(metrics: Metrics | undefined, r: SweepResult): void {
  if (!metrics) return;
  const actions: Array<[string, number]> = [
    ['requeued', r.requeued],
    ['timed_out', r.expired],
    ['callbacks_requeued', r.callbacksRequeued],
    ['image_calls_settled', r.imageCallsSettled],
    ['topups_credited', r.topUpsCredited],
    ['topups_expired', r.topUpsExpired],
    ['media_requeued', r.media?.copiesRequeued ?? 0],
    ['media_given_up', r.media?.lost ?? 0],
    ['media_expired', r.media?.expired ?? 0],
    ['uploads_expired', r.media?.uploadsExpired ?? 0],
  ];
  // every action is reported from the first pass on, so a rate over it is never missing
  for (const [action, n] of actions) metrics.reconcilerActions.inc({ action }, n);
  metrics.reconcilerSweeps.inc({ outcome: 'done' });
  metrics.reconcilerLastSweep.set(Date.now() / 1000);
}

/** The ledger check's pass: a failure is logged, and the rest of the sweep stands. */
async function checkLedgerOnce(
  deps: ReconcilerDeps,
): Promise<{ checked: number; mismatched: number } | undefined> {
  try {
    const r = await checkLedger(deps.database.db);
    deps.metrics?.ledgerChecked.inc(r.checked);
    if (r.mismatched > 0) {
      deps.logger.error(
        { mismatched: r.mismatched },
        'ledger check: account balances differ from their ledger',
      );
    }
    return r;
  } catch (err) {
    deps.logger.error({ err }, 'ledger check failed');
    return undefined;
  }
}

async function sweep(deps: ReconcilerDeps): Promise<{ requeued: number; expired: number }> {
  const { db } = deps.database;
  const lifecycle = deps.lifecycle ?? lifecycleOf(deps);
  let requeued = 0;
  let expired = 0;
  let afterId: string | undefined;
  const createdBefore = new Date(Date.now() - deps.config.graceMs);
  for (;;) {
    const batch = await listActiveTasks(db, { afterId, limit: BATCH, createdBefore });
    if (batch.length === 0) break;
    afterId = batch[batch.length - 1]!.id;
    const now = Date.now();
    const live = [];
    for (const task of batch) {
      if (task.deadlineAt.getTime() > now) live.push(task);
      else if (await lifecycle.timeOut(task.id)) expired += 1;
    }
    const states = await Promise.all(live.map((t) => deps.videoQueue.getJobState(t.id)));
    for (const [i, task] of live.entries()) {
      const state = states[i];
      if (state !== 'unknown' && state !== 'failed' && state !== 'completed') continue;
      if (state !== 'unknown') await deps.videoQueue.remove(task.id).catch(() => 0);
      await enqueueVideoTask(deps.videoQueue, { taskId: task.id, requestId: task.requestId ?? undefined });
      requeued += 1;
    }
    if (batch.length < BATCH) break;
  }
  if (requeued || expired) deps.logger.info({ requeued, expired }, 'reconciler sweep');
  return { requeued, expired };
}

/** Moves the jobs an older version left in its queues; a failure here must not stop the sweep. */
async function moveLegacy(deps: ReconcilerDeps, queuePrefix: string): Promise<void> {
  const queues = [deps.videoQueue, deps.callbacksQueue, deps.media?.mediaQueue].filter(
    (q): q is Queue => q !== undefined,
  );
  try {
    const r = await moveLegacyJobs(deps.redis, queuePrefix, queues);
    if (r.moved || r.removedQueues.length)
      deps.logger.info(r, 'moved jobs out of the queues of an older version');
  } catch (err) {
    deps.logger.warn({ err }, 'could not move the jobs of an older version');
  }
}

/** The moves of a reconciler given no lifecycle: on its database, counted, published and called back. */
function lifecycleOf(deps: ReconcilerDeps): TaskLifecycle {
  const queue = deps.callbacksQueue;
  return new TaskLifecycle({
    db: deps.database.db,
    logger: deps.logger,
    metrics: deps.metrics,
    events: deps.events,
    callbacks: queue && {
      enqueueNew: (ids) => enqueueNewDeliveries(queue, ids),
      enqueueForTask: (taskId) => enqueueTaskCallbacks(deps.database.db, queue, taskId),
    },
  });
}

/**
 * Enqueues again every pending callback delivery that has been due for longer than the grace
 * period and whose job is gone or dead (a crash between the commit of a task's terminal move and
 * the enqueue, Redis flushed, attempts exhausted). A delivery whose job is waiting, delayed or
 * running is left alone; enqueueing uses the delivery id as job id, so this is idempotent.
 */
async function sweepCallbacks(deps: ReconcilerDeps, queue: Queue): Promise<number> {
  const { db } = deps.database;
  let requeued = 0;
  let afterId: string | undefined;
  const dueBefore = new Date(Date.now() - deps.config.graceMs);
  for (;;) {
    const batch = await listDueDeliveries(db, { dueBefore, afterId, limit: BATCH });
    if (batch.length === 0) break;
    afterId = batch[batch.length - 1]!.id;
    const states = await Promise.all(batch.map((d) => queue.getJobState(d.id)));
    for (const [i, d] of batch.entries()) {
      const state = states[i];
      if (state !== 'unknown' && state !== 'failed' && state !== 'completed') continue;
      await enqueueDelivery(queue, d.id);
      requeued += 1;
    }
    if (batch.length < BATCH) break;
  }
  if (requeued) deps.logger.info({ requeued }, 'reconciler re-enqueued callback deliveries');
  return requeued;
}

/**
 * Refunds in full every image call whose settlement never committed within its bound (see
 * sweepUnsettledImageCalls), counted as `swept` settlements.
 */
async function sweepImageCalls(deps: ReconcilerDeps): Promise<number> {
  const swept = await sweepUnsettledImageCalls(deps.database.db, {
    olderThanMs: deps.config.imageSettleAfterMs,
    log: deps.logger,
  });
  if (swept.length > 0) deps.metrics?.imageSettlements.inc({ outcome: 'swept' }, swept.length);
  if (swept.length > 0)
    deps.logger.info({ imageCallsSettled: swept.length }, 'reconciler settled image calls');
  return swept.length;
}

/**
 * Sweeps every `intervalMs` until stopped; the first sweep runs at once, and another as soon as
 * Redis answers again after being away (what it lost, restarted empty, is enqueued again then,
 * not an interval later).
 */
export function startReconciler(deps: ReconcilerDeps): { stop: () => Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let sweeping = false;
  let stopped = false;
  const tick = () => {
    clearTimeout(timer);
    sweeping = true;
    running = reconcileOnce(deps)
      .catch((err: unknown) => deps.logger.error({ err }, 'reconciler sweep failed'))
      .finally(() => {
        sweeping = false;
        if (!stopped) timer = setTimeout(tick, deps.config.intervalMs);
      });
  };
  const onReady = () => {
    if (stopped) return;
    if (!sweeping) return tick();
    // a sweep that started while Redis was away may have failed early: one more right after it
    void running.then(() => {
      if (!stopped && !sweeping) tick();
    });
  };
  deps.redis.on('ready', onReady);
  tick();
  return {
    stop: async () => {
      stopped = true;
      deps.redis.off('ready', onReady);
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * Top-up orders and their pending refunds: a provider that cannot be reached must not stop the
 * rest of the sweep.
 */
async function sweepTopUps(deps: ReconcilerDeps): Promise<{ topUpsCredited: number; topUpsExpired: number }> {
  if (!deps.topUps || deps.topUps.providers.size === 0) return { topUpsCredited: 0, topUpsExpired: 0 };
  try {
    const r = await reconcileTopUpOrders(deps.database.db, deps.topUps.providers, {
      afterMs: deps.topUps.afterMs,
      logger: deps.logger,
      metrics: deps.metrics,
    });
    // a refund whose notification was lost (or whose request got no answer) is finished by a query
    await reconcileTopUpRefunds(deps.database.db, deps.topUps.providers, {
      afterMs: deps.topUps.afterMs,
      logger: deps.logger,
      metrics: deps.metrics,
    }).catch((err: unknown) => deps.logger.error({ err }, 'top-up refund reconciliation failed'));
    return { topUpsCredited: r.credited, topUpsExpired: r.expired };
  } catch (err) {
    deps.logger.error({ err }, 'top-up reconciliation failed');
    return { topUpsCredited: 0, topUpsExpired: 0 };
  }
}
