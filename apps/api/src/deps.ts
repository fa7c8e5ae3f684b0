import type {
  ChannelPool,
  DashScopeVideoClient,
  Database,
  ImageService,
  Logger,
  LruCache,
  Principal,
  Metrics,
  ModelCatalog,
  SsrfPolicy,
} from '@mediagate/shared';
import type { Queue } from 'bullmq';
import type IORedis from 'ioredis';
import type { ApiConfig } from './config';
import type { AccountsConfig } from './config-accounts';
import type { Mailer } from './mail/mailer';
import type { RateLimits } from './middleware/rate-limit';
import type { PaymentProvider } from './payments/provider';

/** Everything the app needs, built once by the process entry and passed down. */
export interface ApiDeps {
  database: Database;
  redis: IORedis;
  videoQueue: Queue;
  /** producer side of the callbacks queue (redeliveries) */
  callbacksQueue: Queue;
  catalog: ModelCatalog;
  logger: Logger;
  config: Pick<
    ApiConfig,
    'BODY_LIMIT_BYTES' | 'VIDEO_DEADLINE_MS' | 'ENQUEUE_TIMEOUT_MS' | 'IMAGE_BODY_LIMIT_BYTES'
  > &
    Partial<Pick<ApiConfig, 'CONSOLE_DIR'>> &
    AccountsConfig;
  /** synchronous image calls through the upstream channels (charge, call with fail-over, refund) */
  images: ImageService;
  /** the video vendor, for cancels of tasks running upstream (on the channel that accepted them) */
  videoUpstream: { channels: ChannelPool; client: DashScopeVideoClient };
  /** registration codes and account e-mail */
  mailer: Mailer;
  /** fleet-wide request counters (Redis) */
  rateLimits: RateLimits;
  /** QR-code payment providers, reachable at /payments/<name>/notify */
  paymentProviders: readonly PaymentProvider[];
  /** the SSRF guard for URLs clients hand us (callbacks, media the upstream fetches) */
  ssrf: SsrfPolicy;
  /** principals of recently seen keys (see requireApiKey) */
  authCache?: LruCache<string, Principal>;
  /** serialized answers of terminal tasks, by task id, with their owner */
  taskCache?: LruCache<string, { accountId: string; json: string }>;
  /** Prometheus metrics of this process; /metrics is served when present */
  metrics?: Metrics;
  /** false once shutdown began, so /readyz drains traffic away */
  isAcceptingTraffic: () => boolean;
}
