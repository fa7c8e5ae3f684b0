import type { Database } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import { createMailer } from '@mediagate/shared/mail';
import type { Metrics } from '@mediagate/shared/metrics';
import { QUEUE_NAMES } from '@mediagate/shared/queue';
import { createSsrfPolicy, createSsrfSafeAgent } from '@mediagate/shared/webhooks';
import type { Telemetry } from 'bullmq';
import type { WorkerConfig } from '../config';
import { startQueueWorker } from '../queue-worker';
import { createCallbackProcessor } from './dispatcher';
import { HostLimiter } from './host-limiter';

export interface CallbacksRoleDeps {
  config: WorkerConfig;
  logger: Logger;
  database: Database;
  metrics?: Metrics;
  telemetry?: Telemetry;
}

/**
 * The callbacks role: the dispatcher posting each delivery to its customer's endpoint through the
 * SSRF guard, per-host concurrency, the retry schedule, and the e-mail that tells an account its
 * endpoint was disabled. Opens its own worker connection, agent and mailer; `close` releases them.
 */
export function startCallbacksRole(deps: CallbacksRoleDeps): { close(): Promise<void> } {
  const { config, logger } = deps;
  const mailer = createMailer({
    smtpUrl: config.SMTP_URL,
    from: config.MAIL_FROM,
    logger,
    dir: config.MAIL_DIR,
  });
  const agent = createSsrfSafeAgent(
    createSsrfPolicy({ allowCidrs: config.SSRF_ALLOW_CIDRS, dnsTimeoutMs: config.SSRF_DNS_TIMEOUT_MS }),
    {
      connectTimeoutMs: config.CALLBACK_TIMEOUT_MS,
      headersTimeoutMs: config.CALLBACK_TIMEOUT_MS,
      bodyTimeoutMs: config.CALLBACK_TIMEOUT_MS,
      connections: config.CALLBACK_PER_HOST_CONCURRENCY,
    },
  );
  const processor = createCallbackProcessor({
    database: deps.database,
    agent,
    hosts: new HostLimiter(config.CALLBACK_PER_HOST_CONCURRENCY),
    logger,
    config: {
      retry: {
        scheduleMs: config.CALLBACK_RETRY_SCHEDULE,
        jitter: config.CALLBACK_RETRY_JITTER,
        retryAfterMaxMs: config.CALLBACK_RETRY_AFTER_MAX_MS,
      },
      timeoutMs: config.CALLBACK_TIMEOUT_MS,
      maxResponseBytes: config.CALLBACK_RESPONSE_MAX_BYTES,
      hostBusyDelayMs: config.CALLBACK_HOST_BUSY_DELAY_MS,
    },
    metrics: deps.metrics,
    endpoints: { disableAfterMs: config.WEBHOOK_ENDPOINT_DISABLE_AFTER[0]!, mailer },
  });
  const worker = startQueueWorker(QUEUE_NAMES.callbacks, processor, {
    config,
    logger,
    label: 'callback',
    idField: 'deliveryId',
    concurrency: config.CALLBACK_CONCURRENCY,
    lockDurationMs: config.CALLBACK_LOCK_DURATION_MS,
    telemetry: deps.telemetry,
  });
  logger.info(
    { concurrency: config.CALLBACK_CONCURRENCY, perHost: config.CALLBACK_PER_HOST_CONCURRENCY },
    'callbacks worker started',
  );
  return {
    close: async () => {
      await worker.close();
      await agent.close();
      mailer.close();
    },
  };
}
