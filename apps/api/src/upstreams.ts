import type { Db } from '@mediagate/shared/db';
import { createHttpAgent } from '@mediagate/shared/http';
import { createImageService, type ImageService } from '@mediagate/shared/images';
import type { Logger } from '@mediagate/shared/log';
import type { Metrics } from '@mediagate/shared/metrics';
import { ChannelPool, channelsFromEnv, DashScopeVideoClient } from '@mediagate/shared/upstream';
import type { ApiConfig } from './config';

export type UpstreamsConfig = Pick<
  ApiConfig,
  | 'DASHSCOPE_BASE_URL'
  | 'DASHSCOPE_API_KEY'
  | 'ARK_BASE_URL'
  | 'ARK_API_KEY'
  | 'UPSTREAM_CHANNELS'
  | 'UPSTREAM_CHANNELS_FILE'
  | 'UPSTREAM_BREAKER_FAILURES'
  | 'UPSTREAM_BREAKER_COOLDOWN_MS'
  | 'UPSTREAM_CONNECT_TIMEOUT_MS'
  | 'IMAGE_UPSTREAM_TIMEOUT_MS'
  | 'UPSTREAM_MAX_RESPONSE_BYTES'
  | 'IMAGE_CALL_TIMEOUT_MS'
>;

/**
 * The API's way to the vendors: the channel pool (with its breakers) and the image service on one
 * HTTP agent. Throws ConfigError for a wrong channel configuration. `close` ends the agent.
 */
export function createUpstreams(
  config: UpstreamsConfig,
  deps: { db: Db; logger: Logger; metrics?: Metrics },
): {
  images: ImageService;
  channels: ChannelPool;
  video: DashScopeVideoClient;
  close: () => Promise<void>;
} {
  const channels = new ChannelPool(channelsFromEnv(config), {
    failureThreshold: config.UPSTREAM_BREAKER_FAILURES,
    cooldownMs: config.UPSTREAM_BREAKER_COOLDOWN_MS,
    logger: deps.logger,
  });
  deps.metrics?.watchChannels(channels);
  const agent = createHttpAgent({
    connectMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
    headersMs: config.IMAGE_UPSTREAM_TIMEOUT_MS,
    bodyMs: config.IMAGE_UPSTREAM_TIMEOUT_MS,
  });
  const images = createImageService({
    db: deps.db,
    channels,
    agent,
    maxResponseBytes: config.UPSTREAM_MAX_RESPONSE_BYTES,
    callTimeoutMs: config.IMAGE_CALL_TIMEOUT_MS,
    metrics: deps.metrics,
  });
  const video = new DashScopeVideoClient(agent);
  return { images, channels, video, close: () => agent.close() };
}
