// The module's public face: what the apps and the other modules call. Anything else is internal.

export type { Database, Db, DbOrTx } from './client';
export { createDatabase, pgErrorCode } from './client';
export { migrationsApplied } from './migrate';
export type { AccountWebhookSettingsRow } from './schema/account-webhook-settings';
export type { CallRefundDetails, LedgerDetails, PaidAmount } from './schema/ledger';
export type { PlaygroundUploadRow } from './schema/playground-uploads';
export type { TaskMediaRow } from './schema/task-media';
export type { TaskRow } from './schema/tasks';
export type { TopUpOrderRow } from './schema/topup-orders';
export type { TopUpRefundRow } from './schema/topup-refunds';
export { TOPUP_REFUND_STATUSES } from './schema/topup-refunds';
export type { WebhookEndpointRow } from './schema/webhook-endpoints';
export { databaseFaultOf, databaseRetryLogLevel, isTransientDbError } from './transient';
