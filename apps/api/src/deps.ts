import type { Principal } from '@mediagate/shared/accounts';
import type { ModelCatalog } from '@mediagate/shared/catalog';
import type { Database } from '@mediagate/shared/db';
import type { ImageService } from '@mediagate/shared/images';
import type { Logger } from '@mediagate/shared/log';
import type { LruCache } from '@mediagate/shared/lru';
import type { MediaLinkSigner, MediaStorage } from '@mediagate/shared/media';
import type { Metrics } from '@mediagate/shared/metrics';
import type { AccountPaymentProvider, QrPaymentProvider } from '@mediagate/shared/payments';
import type { RedisClient } from '@mediagate/shared/queue';
import type { TaskDurations, TaskLifecycle } from '@mediagate/shared/tasks';
import type { ChannelPool, DashScopeVideoClient } from '@mediagate/shared/upstream';
import type { SsrfPolicy } from '@mediagate/shared/webhooks';
import type { Queue } from 'bullmq';
import type { ApiConfig } from './config';
import type { AccountsConfig } from './config-accounts';
import type { PaymentsApiConfig } from './config-payments';
import type { Mailer } from './mail/mailer';
import type { BodyBudget } from './middleware/body-admission';
import type { RateLimits } from './middleware/rate-limit';
import type { TaskEventHub } from './task-events';

/** Everything the app needs, built once by the process entry and passed down. */
export interface ApiDeps {
  database: Database;
  redis: RedisClient;
  videoQueue: Queue;
  /** the process's moves of video tasks: creates (with their enqueue), cancels, operators' retries */
  lifecycle: TaskLifecycle;
  /** producer side of the callbacks queue (redeliveries) */
  callbacksQueue: Queue;
  /** the media-copy queue, shown to operators (bull-board, queue depths) when given */
  mediaQueue?: Queue;
  catalog: ModelCatalog;
  logger: Logger;
  config: Pick<
    ApiConfig,
    | 'BODY_LIMIT_BYTES'
    | 'VIDEO_DEADLINE_MS'
    | 'ENQUEUE_TIMEOUT_MS'
    | 'IMAGE_BODY_LIMIT_BYTES'
    | 'SSE_MAX_STREAMS_PER_KEY'
    | 'SSE_MAX_STREAMS_PER_ACCOUNT'
    | 'SSE_MAX_STREAMS'
    | 'SSE_HEARTBEAT_MS'
    | 'SSE_RESYNC_MS'
    | 'SSE_RETRY_MS'
    | 'TASK_RUNNING_CACHE_MS'
    | 'METRICS_TOKEN'
    | 'METRICS_PORT'
    | 'PLAYGROUND_UPLOAD_MAX_BYTES'
    | 'PLAYGROUND_UPLOADS_PER_DAY'
    | 'PLAYGROUND_UPLOAD_TTL_MS'
  > &
    Partial<Pick<ApiConfig, 'CONSOLE_DIR' | 'PUBLIC_BASE_URL'>> &
    AccountsConfig &
    Partial<PaymentsApiConfig>;
  /** synchronous image calls through the upstream channels (charge, call with fail-over, refund) */
  images: ImageService;
  /** the video vendor, for cancels of tasks running upstream (on the channel that accepted them) */
  videoUpstream: { channels: ChannelPool; client: DashScopeVideoClient };
  /** registration codes and account e-mail */
  mailer: Mailer;
  /** the bytes of large request bodies this replica holds at once (image and video creates) */
  bodyBudget: BodyBudget;
  /** fleet-wide request counters (Redis) */
  rateLimits: RateLimits;
  /** QR-code payment providers, reachable at /payments/<name>/notify */
  paymentProviders: readonly AccountPaymentProvider[];
  /** QR-code top-up providers (Alipay, WeChat Pay) by name, notified at /payments/<name>/notify */
  qrProviders?: ReadonlyMap<string, QrPaymentProvider>;
  /** the SSRF guard for URLs clients hand us (callbacks, media the upstream fetches) */
  ssrf: SsrfPolicy;
  /** principals of recently seen keys (see requireApiKey); kept in step by listenForKeyChanges */
  authCache?: LruCache<string, Principal>;
  /** the deployment's Redis namespace (QUEUE_PREFIX): key changes are announced under it */
  queuePrefix: string;
  /**
   * serialized answers of terminal tasks, by task id, with their owner; `until` (ms) bounds an
   * answer that carries media links (they expire, and a deletion on another replica ends them)
   */
  taskCache?: LruCache<string, { accountId: string; json: string; until?: number }>;
  /** task moves from the workers (Redis pub/sub): event streams and the cache of unfinished tasks */
  taskEvents?: TaskEventHub;
  /** durations learned per model (estimated_completion_at) */
  durations?: TaskDurations;
  /** where succeeded videos are kept, and the signer of their links */
  media: {
    storage: MediaStorage;
    signer: MediaLinkSigner;
    /** how long a request for a first frame waits for a copy in progress (default FIRST_FRAME_WAIT_MS) */
    firstFrameWaitMs?: number;
  };
  /** Prometheus metrics of this process; /metrics is served when present */
  metrics?: Metrics;
  /** false once shutdown began, so /readyz drains traffic away */
  isAcceptingTraffic: () => boolean;
}
