import { and, desc, eq, lt } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { type AuditLogRow, type AuditTargetType, auditLog } from '../db/schema';

export { AUDIT_TARGET_TYPES, type AuditLogRow, type AuditTargetType } from '../db/schema';

/** What operators do that changes something; each is one row of the audit log. */
export const AUDIT_ACTIONS = [
  'account.disable',
  'account.enable',
  'account.limits',
  'account.topup',
  'account.adjustment',
  'topup.refund',
  /** the end of an operator's refund: succeeded, failed (refused by the provider) or held */
  'topup.refund_outcome',
  'task.retry',
  'queue.pause',
  'queue.resume',
  'webhook_endpoint.enable',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: the operator's account, and its e-mail as it was then. */
export interface AuditActor {
  operatorId: string;
  operatorEmail: string;
  requestId?: string;
}

/** One change by an operator, values named as the admin API names them. */
export interface AuditChange {
  action: AuditAction;
  /** the account the target belongs to; null for a fleet-wide target (a queue) */
  accountId: string | null;
  targetType: AuditTargetType;
  targetId: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reason?: string | null;
}

/**
 * Writes one action to the audit log. Call it with the transaction that makes the change, so the
 * row commits exactly when the change does (and neither without the other).
 */
export async function recordOperatorAction(
  tx: DbOrTx,
  actor: AuditActor,
  change: AuditChange,
): Promise<void> {
  await tx.insert(auditLog).values({
    operatorId: actor.operatorId,
    operatorEmail: actor.operatorEmail,
    requestId: actor.requestId ?? null,
    action: change.action,
    accountId: change.accountId,
    targetType: change.targetType,
    targetId: change.targetId,
    before: change.before,
    after: change.after,
    reason: change.reason ?? null,
  });
}

/** The audit log newest first, keyset-paged by id, optionally of one account or one target. */
export async function listOperatorActions(
  db: DbOrTx,
  q: { accountId?: string; targetId?: string; action?: string; beforeId?: number; limit: number },
): Promise<{ rows: AuditLogRow[]; hasMore: boolean }> {
  const rows = await db
    .select()
    .from(auditLog)
    .where(
      and(
        q.accountId ? eq(auditLog.accountId, q.accountId) : undefined,
        q.targetId ? eq(auditLog.targetId, q.targetId) : undefined,
        q.action ? eq(auditLog.action, q.action) : undefined,
        q.beforeId !== undefined ? lt(auditLog.id, q.beforeId) : undefined,
      ),
    )
    .orderBy(desc(auditLog.id))
    .limit(q.limit + 1);
  return { rows: rows.slice(0, q.limit), hasMore: rows.length > q.limit };
}
