// The module's public face: what the apps and the other modules call. Anything else is internal.
export {
  claimDisabledNotice,
  countDisabledEndpoints,
  countHeldDeliveries,
  enableWebhookEndpoint,
  endpointDisabledMail,
  endpointUrlOf,
  holdDelivery,
  listDisabledEndpoints,
  listWebhookEndpoints,
  recordEndpointFailure,
  releaseNotice,
} from './endpoints';
export { enqueueNewDeliveries, enqueueTaskCallbacks } from './enqueue';
export {
  getDelivery,
  getDeliveryToSend,
  listDueDeliveries,
  listTaskDeliveries,
  newDeliveryId,
  recordDeliveryAttempt,
  redeliverDelivery,
} from './outbox';
export type { AttemptRecord, DeliveryWithAttempts, DueDelivery, RecordedAttempt } from './outbox';
export { DEFAULT_RETRY_SCHEDULE, durationListFromEnv, judgeAttempt } from './schedule';
export type { AttemptVerdict, RetryPolicy } from './schedule';
export { sendWebhook } from './send';
export type { SendResult } from './send';
export {
  activeSigningSecrets,
  getWebhookSettings,
  rotateWebhookSecret,
  updateWebhookEvents,
} from './settings';
export { signWebhook } from './signing';
export type { WebhookHeaders } from './signing';
export { assertPublicUrl, createSsrfPolicy, createSsrfSafeAgent, isSsrfError, ssrfEnvSchema } from './ssrf';
export type { Resolver, SsrfPolicy } from './ssrf';
export { deliveryBacklog } from './stats';
