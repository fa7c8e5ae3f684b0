import {
  type Database,
  databaseFaultOf,
  databaseRetryLogLevel,
  isTransientDbError,
} from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import type { Mailer } from '@mediagate/shared/mail';
import type { Metrics } from '@mediagate/shared/metrics';
import type { JobPayload } from '@mediagate/shared/queue';
import { inSpan } from '@mediagate/shared/tracing';
import {
  activeSigningSecrets,
  claimDisabledNotice,
  endpointDisabledMail,
  endpointUrlOf,
  getDeliveryToSend,
  getWebhookSettings,
  holdDelivery,
  judgeAttempt,
  type RetryPolicy,
  recordDeliveryAttempt,
  releaseNotice,
  type SendResult,
  sendWebhook,
  signWebhook,
} from '@mediagate/shared/webhooks';
import { DelayedError, type Job } from 'bullmq';
import type { Dispatcher } from 'undici';
import { backoffDelay } from '../backoff';
import type { HostLimiter } from './host-limiter';

export interface CallbackDispatcherDeps {
  database: Database;
  /** the SSRF-safe agent: every connection is checked against the resolved address */
  agent: Dispatcher;
  hosts: HostLimiter;
  logger: Logger;
  config: {
    retry: RetryPolicy;
    /** the whole attempt, connect to last byte read */
    timeoutMs: number;
    maxResponseBytes: number;
    /** how long a delivery whose host is at its concurrency limit waits before trying again (±50 %) */
    hostBusyDelayMs: number;
  };
  random?: () => number;
  /** attempt outcomes and latency are counted here when given */
  metrics?: Metrics;
  /** failing endpoints (Svix's rule): disabled after failing every delivery this long; owners mailed */
  endpoints: {
    disableAfterMs: number;
    mailer: Mailer;
  };
}

/** A delivery job: its payload, and the count of database faults in a row that its backoff grows with. */
type CallbackJob = Job<JobPayload<'callback.deliver'> & { databaseRetries?: number }>;

/** the backoff after a database fault of the moment: from 1-2 s, doubling up to a minute */
const DATABASE_RETRY = { baseMs: 1_000, maxMs: 60_000 };

/** A job may run this much before its delivery is due (clocks of the writer and the dispatcher differ). */
const EARLY_MS = 250;

/** Re-schedules the job for `at` without holding a worker slot (BullMQ delayed job). */
async function later(job: CallbackJob, token: string | undefined, at: number): Promise<never> {
  await job.moveToDelayed(Math.max(at, Date.now()), token);
  throw new DelayedError();
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return null;
  }
}

/**
 * One run of a delivery job: reads the delivery row (the source of truth), and when it is pending
 * and due, signs it with the account's current secret(s) and POSTs it once. The attempt and its
 * verdict are recorded in one transaction (a compare-and-set, so a job run twice after a crash
 * records the attempt once); a retry is then scheduled as the same job, delayed. Delivery is at
 * least once: a crash between the POST and the record sends the attempt again, with the same
 * `webhook-id`, which is how a receiver recognises the repeat.
 */
export function createCallbackProcessor(deps: CallbackDispatcherDeps) {
  const { db } = deps.database;
  const random = deps.random ?? Math.random;

  /** Mails the owner of a disabled endpoint, once for the fleet (a failed mail is tried again later). */
  async function notifyDisabled(endpointId: string, log: Logger): Promise<void> {
    try {
      const claimed = await claimDisabledNotice(db, endpointId);
      if (!claimed) return;
      try {
        await deps.endpoints.mailer.send(endpointDisabledMail(claimed.email, claimed.endpoint));
        log.info({ endpointId }, 'owner of a disabled webhook endpoint mailed');
      } catch (err) {
        await releaseNotice(db, endpointId);
        log.warn({ err, endpointId }, 'mail about a disabled webhook endpoint not sent; tried again later');
      }
    } catch (err) {
      log.warn({ err, endpointId }, 'mail about a disabled webhook endpoint not sent; tried again later');
    }
  }

  /**
   * One run of a delivery job (see createCallbackProcessor). A database fault of the moment
   * (isTransientDbError) runs the job again after a backoff as a delayed job, using none of its
   * attempts; any other error fails the attempt.
   */
  return async function deliverCallback(job: CallbackJob, token?: string): Promise<void> {
    try {
      await deliverOnce(job, token);
    } catch (err) {
      if (!isTransientDbError(err)) throw err;
      const attempt = (job.data.databaseRetries ?? 0) + 1;
      await job.updateData({ ...job.data, databaseRetries: attempt });
      const ms = backoffDelay(attempt, DATABASE_RETRY);
      deps.logger[databaseRetryLogLevel(attempt)](
        { fault: databaseFaultOf(err), deliveryId: job.data.deliveryId, attempt, wait: ms },
        'database call failed; retrying the delivery',
      );
      return later(job, token, Date.now() + ms);
    }
  };

  async function deliverOnce(job: CallbackJob, token: string | undefined): Promise<void> {
    const { deliveryId } = job.data;
    const found = await getDeliveryToSend(db, deliveryId);
    const delivery = found?.delivery;
    if (delivery?.status !== 'pending') return;
    if (delivery.nextAttemptAt.getTime() > Date.now() + EARLY_MS) {
      return later(job, token, delivery.nextAttemptAt.getTime());
    }
    const log = deps.logger.child({ deliveryId, taskId: delivery.taskId, event: delivery.eventType });

    // a disabled endpoint gets nothing: the delivery waits, held, until the endpoint is enabled again
    const endpointUrl = endpointUrlOf(delivery.url);
    const disabled = found?.disabledEndpoints?.find((e) => e.url === endpointUrl);
    if (disabled && (await holdDelivery(db, delivery.id, disabled.id))) {
      log.info({ endpointId: disabled.id }, 'callback held: its endpoint is disabled');
      if (!disabled.notified) await notifyDisabled(disabled.id, log);
      return;
    }

    const host = hostOf(delivery.url);
    let result: SendResult;
    if (host === null) {
      result = {
        startedAt: new Date(),
        latencyMs: 0,
        statusCode: null,
        error: 'invalid callback URL',
        responseBody: null,
        blocked: true,
      };
    } else {
      if (!deps.hosts.tryAcquire(host)) {
        return later(job, token, Date.now() + deps.config.hostBusyDelayMs * (0.5 + random()));
      }
      try {
        const settings = found?.settings ?? (await getWebhookSettings(db, delivery.accountId));
        const sentAt = new Date();
        const headers = signWebhook(
          activeSigningSecrets(settings, sentAt),
          delivery.id,
          sentAt,
          delivery.payload,
        );
        result = await inSpan(
          'callback.deliver',
          {
            'mediagate.delivery_id': delivery.id,
            'mediagate.task_id': delivery.taskId,
            'mediagate.event': delivery.eventType,
          },
          async (span) => {
            const sent = await sendWebhook(
              deps.agent,
              { url: delivery.url, headers: { ...headers }, body: delivery.payload },
              { timeoutMs: deps.config.timeoutMs, maxResponseBytes: deps.config.maxResponseBytes },
            );
            if (sent.statusCode !== null) span.setAttribute('http.response.status_code', sent.statusCode);
            if (sent.error) span.setAttribute('error.type', sent.error);
            return sent;
          },
        );
      } finally {
        deps.hosts.release(host);
      }
    }

    const verdict = judgeAttempt(deps.config.retry, delivery.roundAttempts + 1, result, random);
    const updated = await recordDeliveryAttempt(
      deps.database.db,
      delivery,
      {
        startedAt: result.startedAt,
        latencyMs: result.latencyMs,
        statusCode: result.statusCode,
        error: result.error,
        responseBody: result.responseBody,
      },
      verdict,
      new Date(),
      // a delivery that fails for good counts against its endpoint, in the same statement
      { disableAfterMs: deps.endpoints.disableAfterMs },
    );
    const fields = {
      attempt: delivery.attemptCount + 1,
      status: result.statusCode,
      latencyMs: result.latencyMs,
      error: result.error ?? undefined,
    };
    if (!updated) {
      log.warn(fields, 'callback attempt already recorded by another run');
      return;
    }
    // the attempt is recorded: database faults in a row start over (while they last, each run
    // sends the attempt again, so their backoff keeps growing until a record commits)
    if (job.data.databaseRetries) await job.updateData({ ...job.data, databaseRetries: 0 });
    deps.metrics?.callbackAttemptDuration.observe(result.latencyMs / 1000);
    deps.metrics?.callbackAttempts.inc({
      outcome: verdict.kind === 'succeeded' ? 'delivered' : verdict.kind === 'failed' ? 'failed' : 'retry',
    });
    // from the event to its delivery, first round only (a delivery sent again by hand is late by choice)
    if (verdict.kind === 'succeeded' && delivery.attemptCount === delivery.roundAttempts) {
      deps.metrics?.callbackDeliverySeconds.observe(
        Math.max(0, result.startedAt.getTime() + result.latencyMs - delivery.createdAt.getTime()) / 1000,
      );
    }
    if (verdict.kind === 'succeeded') log.info(fields, 'callback delivered');
    else if (verdict.kind === 'failed') {
      log.warn({ ...fields, reason: verdict.reason }, 'callback failed for good');
      if (updated.disabledEndpointId) {
        log.warn(
          { endpointId: updated.disabledEndpointId, accountId: updated.accountId },
          'webhook endpoint disabled: every delivery failed for longer than the disable period',
        );
        await notifyDisabled(updated.disabledEndpointId, log);
      }
    } else log.info({ ...fields, retryInMs: verdict.delayMs }, 'callback attempt failed; retrying');
    if (updated.status === 'pending') return later(job, token, updated.nextAttemptAt.getTime());
  }
}
