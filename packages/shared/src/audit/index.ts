// The module's public face: what the apps and the other modules call. Anything else is internal.
export { AUDIT_ACTIONS, listOperatorActions, recordOperatorAction } from './log';
export type { AuditActor, AuditChange } from './log';
export { AUDIT_TARGET_TYPES } from '../db/schema/audit-log';
export type { AuditLogRow } from '../db/schema/audit-log';
