import { accountEmails } from '@mediagate/shared/accounts';
import {
  AUDIT_ACTIONS,
  AUDIT_TARGET_TYPES,
  type AuditLogRow,
  listOperatorActions,
} from '@mediagate/shared/audit';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { requireAdmin } from '../middleware/session';
import { endpoint, type Route } from '../route';
import { cursorPage } from './console-views';

export const auditQuery = z.strictObject({
  account_id: z.string().min(1).max(100).optional(),
  target_id: z.string().min(1).max(100).optional(),
  action: z.enum(AUDIT_ACTIONS).optional(),
  /** the `next_cursor` of the previous page */
  before: z
    .string()
    .regex(/^\d{1,18}$/, 'must be a next_cursor')
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

const values = z.record(z.string(), z.unknown()).nullable();

export const auditEntrySchema = z
  .object({
    object: z.literal('audit_entry'),
    id: z.string(),
    at: z.number().int().describe('unix seconds'),
    operator: z.object({ id: z.string(), email: z.string() }),
    action: z.enum(AUDIT_ACTIONS),
    account_id: z.string().nullable(),
    account_email: z.string().nullable().describe("the account's e-mail (null: no account, or it is gone)"),
    target_type: z.enum(AUDIT_TARGET_TYPES),
    target_id: z.string(),
    before: values.describe('the changed values before the action (API names and units)'),
    after: values.describe('the same values after it'),
    reason: z.string().nullable(),
    request_id: z.string().nullable(),
  })
  .meta({ id: 'AuditEntry' });

export function auditEntryObject(
  row: AuditLogRow,
  emails: ReadonlyMap<string, string> = new Map(),
): z.infer<typeof auditEntrySchema> {
  return {
    object: 'audit_entry',
    id: String(row.id),
    at: Math.floor(row.at.getTime() / 1000),
    operator: { id: row.operatorId, email: row.operatorEmail },
    action: row.action as z.infer<typeof auditEntrySchema>['action'],
    account_id: row.accountId,
    account_email: row.accountId ? (emails.get(row.accountId) ?? null) : null,
    target_type: row.targetType,
    target_id: row.targetId,
    before: (row.before as Record<string, unknown> | null) ?? null,
    after: (row.after as Record<string, unknown> | null) ?? null,
    reason: row.reason,
    request_id: row.requestId,
  };
}

/**
 * GET /admin/api/audit-log: operators' actions, newest first, of every account or of one
 * (`account_id`), one target (`target_id`: an account, task or queue) or one action. Read-only:
 * the log has no route that changes or removes an entry.
 */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/audit-log', ...requireAdmin(deps), async (req, res) => {
    const q = auditQuery.parse(req.query);
    const page = await listOperatorActions(deps.database.db, {
      accountId: q.account_id,
      targetId: q.target_id,
      action: q.action,
      beforeId: q.before === undefined ? undefined : Number(q.before),
      limit: q.limit,
    });
    const emails = await accountEmails(
      deps.database.db,
      page.rows.flatMap((r) => (r.accountId ? [r.accountId] : [])),
    );
    const data = page.rows.map((row) => auditEntryObject(row, emails));
    res.status(200).json({
      object: 'list',
      data,
      has_more: page.hasMore,
      next_cursor: page.hasMore ? (data[data.length - 1]?.id ?? null) : null,
    });
  });
}

export const contract = endpoint('GET /admin/api/audit-log', "Operators' actions, newest first", {
  tag: 'admin',
  auth: 'admin',
  query: auditQuery,
  200: cursorPage(auditEntrySchema, 'AuditLog'),
});

export const route: Route = { mount: '/admin/api', contracts: [contract], register };
