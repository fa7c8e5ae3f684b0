export * from './accounts';
export * from './billing';
export * from './catalog';
export * from './config/env';
export * from './db/client';
export * from './db/migrate';
export * from './db/ensure-database';
export * as schema from './db/schema';
export type { TaskRow, TaskStatus } from './db/schema';
export type {
  AccountWebhookSettingsRow,
  CallbackAttemptRow,
  CallbackDeliveryRow,
  DeliveryStatus,
} from './db/schema';
export * from './errors';
export * from './http/json-client';
export * from './http/urls';
export * from './ids';
export * from './images';
export * from './log';
export * from './queue';
export * from './tasks';
export * from './upstream';
export * from './webhooks';
export * from './process';
export * from './metrics';
export * from './contracts';
export * from './lru';
export * from './tracing/spans';
