// The module's public face: what the apps and the other modules call. Anything else is internal.
export { createCallbacksQueue, enqueueDelivery } from './callbacks-queue';
export { JOB_CATALOG, QUEUE_NAMES } from './catalog';
export {
  reserveSlot,
  sleep,
  slotBacklogUs,
  takeSlot,
  UPSTREAM_QUERY_HEADROOM,
  upstreamQueryIntervalUs,
  upstreamQueryKey,
} from './fleet-slots';
export type { JobPayload, QueueName } from './catalog';
export { createRedis } from './connection';
export type { RedisClient } from './connection';
export { queueKeyPrefix, redisKey, redisKeyGroup, redisNamespace } from './keys';
export { moveLegacyJobs } from './legacy';
export type { LegacyMoveResult } from './legacy';
export { createMediaQueue, enqueueMediaCopy } from './media-queue';
export { PendingEnqueues } from './pending-enqueues';
export { queueFacts } from './stats';
export { createVideoQueue, enqueueVideoTask } from './video-queue';
