import type { Database } from '@mediagate/shared/db';
import { createHttpAgent } from '@mediagate/shared/http';
import type { Logger } from '@mediagate/shared/log';
import { MediaSourceHosts, type MediaStorage } from '@mediagate/shared/media';
import type { Metrics } from '@mediagate/shared/metrics';
import { QUEUE_NAMES } from '@mediagate/shared/queue';
import { channelsFromEnv } from '@mediagate/shared/upstream';
import { createSsrfPolicy, createSsrfSafeAgent } from '@mediagate/shared/webhooks';
import type { Telemetry } from 'bullmq';
import type { WorkerConfig } from '../config';
import { startQueueWorker } from '../queue-worker';
import { createMediaCopyProcessor } from './copy-processor';

export interface MediaCopyRoleDeps {
  config: WorkerConfig;
  logger: Logger;
  database: Database;
  /** where copies are kept */
  storage: MediaStorage;
  metrics?: Metrics;
  telemetry?: Telemetry;
  /** publishes a task once its copy is stored (its first frame now answers), for the console's live pages */
  announceStored?: (taskId: string) => Promise<void>;
}

/**
 * The media-copy role (run beside the video role): copies of succeeded videos into storage, on
 * their own queue so a slow download never holds up the terminal moves. Vendor hosts (the
 * channels' and MEDIA_ALLOWED_HOSTS) are fetched directly, any other host through the SSRF guard.
 * Opens its own worker connection and HTTP agents; `close` releases them.
 */
export function startMediaCopyRole(deps: MediaCopyRoleDeps): { close(): Promise<void> } {
  const { config, logger, storage } = deps;
  const timeouts = {
    connectTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    bodyTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
  };
  const agent = createHttpAgent({
    connectMs: timeouts.connectTimeoutMs,
    headersMs: timeouts.headersTimeoutMs,
    bodyMs: timeouts.bodyTimeoutMs,
  });
  const publicAgent = createSsrfSafeAgent(
    createSsrfPolicy({ allowCidrs: config.SSRF_ALLOW_CIDRS, dnsTimeoutMs: config.SSRF_DNS_TIMEOUT_MS }),
    timeouts,
  );
  const processor = createMediaCopyProcessor(
    {
      database: deps.database,
      storage,
      hosts: new MediaSourceHosts(
        channelsFromEnv(config).filter((c) => c.vendor === 'dashscope'),
        config.MEDIA_ALLOWED_HOSTS,
      ),
      agent,
      publicAgent,
      logger,
      metrics: deps.metrics,
      config: {
        maxBytes: config.MEDIA_MAX_BYTES,
        timeoutMs: config.MEDIA_COPY_TIMEOUT_MS,
        attempts: config.MEDIA_COPY_ATTEMPTS,
        retryBaseMs: config.UPSTREAM_RETRY_BASE_MS,
        ffmpegPath: config.FFMPEG_PATH,
      },
    },
    deps.announceStored,
  );
  const worker = startQueueWorker(QUEUE_NAMES.media, processor, {
    config,
    logger,
    label: 'media copy',
    idField: 'jobId',
    concurrency: config.MEDIA_COPY_CONCURRENCY,
    lockDurationMs: config.VIDEO_LOCK_DURATION_MS,
    telemetry: deps.telemetry,
  });
  logger.info(
    { driver: storage.driver, concurrency: config.MEDIA_COPY_CONCURRENCY },
    'media copy worker started',
  );
  return {
    close: async () => {
      await worker.close();
      await agent.close();
      await publicAgent.close();
    },
  };
}
