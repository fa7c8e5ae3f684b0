export * from './accounts';
export * from './billing';
export * from './catalog';
export * from './config/env';
export * from './contracts';
export * from './db/client';
export * from './db/ensure-database';
export * from './db/migrate';
export type {
  AccountWebhookSettingsRow,
  CallbackAttemptRow,
  CallbackDeliveryRow,
  DeliveryStatus,
  TaskMediaRow,
  TaskMediaStatus,
  TaskRow,
  TaskStatus,
  TopUpOrderRow,
  TopUpOrderStatus,
} from './db/schema';
export * as schema from './db/schema';
export * from './errors';
export * from './http/json-client';
export * from './http/urls';
export * from './ids';
export * from './images';
export * from './log';
export * from './lru';
export * from './media';
export * from './metrics';
export * from './payments';
export * from './process';
export * from './queue';
export * from './tasks';
export * from './tracing/spans';
export * from './upstream';
export * from './webhooks';
