// The module's public face: what the apps and the other modules call. Anything else is internal.
export { createDatabase, pgErrorCode } from './client';
export type { Database, Db, DbOrTx } from './client';
export { migrationsApplied } from './migrate';
export type { AccountWebhookSettingsRow } from './schema/account-webhook-settings';
export type { TaskMediaRow } from './schema/task-media';
export type { TaskRow } from './schema/tasks';
export type { TopUpOrderRow } from './schema/topup-orders';
export type { WebhookEndpointRow } from './schema/webhook-endpoints';
