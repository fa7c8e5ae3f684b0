import { accountEmails } from '@mediagate/shared/accounts';
import { recordOperatorAction } from '@mediagate/shared/audit';
import { listOf, toTaskObject, videoTaskObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import { findTasks } from '@mediagate/shared/tasks';
import type { Router } from 'express';
import { z } from 'zod';
import { auditActor } from '../audit';
import type { ApiDeps } from '../deps';
import { requireAdmin, sessionOf } from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import { adminTaskSchema } from './account-views';

/** 9999-12-31T23:59:59Z: later seconds are no date (or not one Postgres stores) */
const LATEST_UNIX_SECONDS = 253_402_300_799;
/** a century: "older than" anything longer means before any task existed */
const MAX_AGE_SECONDS = 100 * 366 * 86_400;

const unixOrIso = z.union([
  z.coerce
    .number()
    .int()
    .positive()
    .max(LATEST_UNIX_SECONDS)
    .transform((s) => new Date(s * 1000)),
  z.iso.datetime().transform((s) => new Date(s)),
]);

export const adminTasksQuery = z.strictObject({
  status: z
    .enum(['pending', 'processing', 'succeeded', 'completed', 'failed'])
    .transform((s) => (s === 'completed' ? 'succeeded' : s))
    .optional(),
  model: z.string().min(1).max(100).optional(),
  account_id: z.string().min(1).max(100).optional(),
  /** tasks created at least this many seconds ago (stuck-task hunting) */
  older_than_seconds: z.coerce.number().int().min(0).max(MAX_AGE_SECONDS).optional(),
  created_after: unixOrIso.optional(),
  created_before: unixOrIso.optional(),
  after: z.string().regex(TASK_ID_PATTERN, 'must be a task id').optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});

/** Operators: find tasks across accounts; run a failed task again (recorded in the audit log). */
export function register(router: Router, deps: ApiDeps): void {
  router.get('/tasks', ...requireAdmin(deps), async (req, res) => {
    const q = adminTasksQuery.parse(req.query);
    const olderThan =
      q.older_than_seconds === undefined ? undefined : new Date(Date.now() - q.older_than_seconds * 1000);
    const before = [q.created_before, olderThan]
      .filter((d): d is Date => d !== undefined)
      .sort((a, b) => +a - +b)[0];
    const page = await findTasks(deps.database.db, {
      status: q.status,
      model: q.model,
      accountId: q.account_id,
      createdAfter: q.created_after,
      createdBefore: before,
      afterId: q.after,
      limit: q.limit,
    });
    const emails = await accountEmails(
      deps.database.db,
      page.rows.map((row) => row.accountId),
    );
    const data = page.rows.map((row) => ({
      ...toTaskObject(row),
      account_id: row.accountId,
      account_email: emails.get(row.accountId) ?? null,
      upstream_task_id: row.upstreamTaskId,
      upstream_channel: row.upstreamChannel,
    }));
    res
      .status(200)
      .json({ object: 'list', data, has_more: page.hasMore, last_id: data[data.length - 1]?.id ?? null });
  });

  router.post('/tasks/:taskId/retry', ...requireAdmin(deps), async (req, res) => {
    const taskId = String(req.params.taskId);
    const retry = TASK_ID_PATTERN.test(taskId)
      ? await deps.lifecycle.retry(taskId, {
          requestId: String(req.id),
          deadlineMs: deps.config.VIDEO_DEADLINE_MS,
          operatorId: sessionOf(req).accountId,
          inTransaction: (tx, { original, row }) =>
            recordOperatorAction(tx, auditActor(req), {
              action: 'task.retry',
              accountId: original.accountId,
              targetType: 'task',
              targetId: original.id,
              before: { status: original.status, retried_as: null },
              after: { status: original.status, retried_as: row.id, retry_status: row.status },
            }),
        })
      : null;
    if (!retry)
      throw new ApiError('not_found', `No failed task with id '${taskId.slice(0, 64)}'.`, 'task_id');
    const { row, created } = retry;
    if (created) req.log.warn({ retryOf: taskId, taskId: row.id }, 'failed task retried by an operator');
    else res.setHeader('idempotent-replayed', 'true');
    res.status(200).json(toTaskObject(row));
  });
}

const op = endpoints({ tag: 'admin', auth: 'admin' });

export const contracts: RouteContract[] = [
  op('GET /admin/api/tasks', 'Find tasks by status, age, model or account', {
    query: adminTasksQuery,
    200: listOf(adminTaskSchema, 'AdminTaskList'),
  }),
  op('POST /admin/api/tasks/:taskId/retry', 'Run a failed task again as a new task', {
    200: videoTaskObject,
  }),
];

export const route: Route = { mount: '/admin/api', contracts, register };
