import { accountEmails, getAccountView, listTokens } from '@mediagate/shared/accounts';
import { toTaskObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { TASK_ID_PATTERN } from '@mediagate/shared/ids';
import { getTask } from '@mediagate/shared/tasks';
import { listTaskDeliveries } from '@mediagate/shared/webhooks';
import type { Request, Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireAdmin } from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import {
  adminTaskSchema,
  adminTopUpListQuery,
  deliveryListSchema,
  ledgerPage,
  ledgerPageSchema,
  ledgerQuery,
  tokenListSchema,
  topUpPage,
  topUpPageSchema,
} from './account-views';
import { toDeliveryObject } from './callback-views';
import { tokenObject } from './console-views';

/**
 * What operators read of one customer, beside the account itself (admin.accounts.ts): its ledger,
 * top-ups and keys, as the customer's own routes show them; and one task with its account's
 * e-mail and its callback deliveries. Read-only: changes go through the audited routes.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  const admin = requireAdmin(deps);
  const accountOf = async (req: Request) => {
    const found = await getAccountView(db, String(req.params.id));
    if (!found) throw new ApiError('not_found', `No account ${String(req.params.id).slice(0, 64)}.`, 'id');
    return found;
  };
  const taskOf = async (req: Request) => {
    const taskId = String(req.params.taskId);
    const row = TASK_ID_PATTERN.test(taskId) ? await getTask(db, taskId) : null;
    if (!row) throw new ApiError('not_found', `No task with id '${taskId.slice(0, 64)}'.`, 'task_id');
    return row;
  };

  router.get('/accounts/:id/ledger', ...admin, async (req, res) => {
    const q = ledgerQuery.parse(req.query);
    const account = await accountOf(req);
    res.status(200).json(await ledgerPage(db, account.id, q));
  });

  router.get('/accounts/:id/topups', ...admin, async (req, res) => {
    const q = adminTopUpListQuery.parse(req.query);
    const account = await accountOf(req);
    res.status(200).json(await topUpPage(db, account.id, q));
  });

  router.get('/accounts/:id/keys', ...admin, async (req, res) => {
    const account = await accountOf(req);
    const tokens = await listTokens(db, account.id);
    res.status(200).json({ object: 'list', data: tokens.map(tokenObject) });
  });

  router.get('/tasks/:taskId', ...admin, async (req, res) => {
    const row = await taskOf(req);
    const emails = await accountEmails(db, [row.accountId]);
    res.status(200).json({
      ...toTaskObject(row),
      account_id: row.accountId,
      account_email: emails.get(row.accountId) ?? null,
      upstream_task_id: row.upstreamTaskId,
      upstream_channel: row.upstreamChannel,
    });
  });

  router.get('/tasks/:taskId/callbacks', ...admin, async (req, res) => {
    const row = await taskOf(req);
    const deliveries = await listTaskDeliveries(db, row.id);
    res.status(200).json({ object: 'list', data: deliveries.map(toDeliveryObject) });
  });
}

const op = endpoints({ tag: 'admin', auth: 'admin' });

export const contracts: RouteContract[] = [
  op('GET /admin/api/accounts/:id/ledger', "An account's ledger, newest first", {
    query: ledgerQuery,
    200: ledgerPageSchema,
    404: 'no such account',
  }),
  op('GET /admin/api/accounts/:id/topups', "An account's QR top-ups, newest first, or one of them", {
    query: adminTopUpListQuery,
    200: topUpPageSchema,
    404: 'no such account',
  }),
  op('GET /admin/api/accounts/:id/keys', "An account's API keys (never their secrets)", {
    200: tokenListSchema,
    404: 'no such account',
  }),
  op('GET /admin/api/tasks/:taskId', 'One task of any account, with its account', {
    200: adminTaskSchema,
    404: 'not found',
  }),
  op('GET /admin/api/tasks/:taskId/callbacks', "One task's callback deliveries and their attempts", {
    200: deliveryListSchema,
    404: 'not found',
  }),
];

export const route: Route = { mount: '/admin/api', contracts, register };
