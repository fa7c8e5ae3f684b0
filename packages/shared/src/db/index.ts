export * from './client';
export * from './ensure-database';
export * from './migrate';
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
  WebhookEndpointRow,
} from './schema';
export * as schema from './schema';
