import {
  type AccountView,
  getAccountView,
  listAccounts,
  setAccountLimits,
  setAccountStatus,
} from '@mediagate/shared/accounts';
import { recordOperatorAction } from '@mediagate/shared/audit';
import {
  adjustBalance,
  bankTransferReference,
  recordBankTransfer,
  TopUpTooSmallError,
  UnknownAccountError,
} from '@mediagate/shared/billing';
import { consoleObject } from '@mediagate/shared/contracts';
import type { DbOrTx } from '@mediagate/shared/db';
import { ApiError, InsufficientQuotaError } from '@mediagate/shared/errors';
import type { Request, Router } from 'express';
import { z } from 'zod';
import { auditActor } from '../audit';
import type { ApiDeps } from '../deps';
import { announceKeyChange } from '../key-revocations';
import { parseBody } from '../middleware/body';
import { requireAdmin, sessionOf } from '../middleware/session';
import { topUpPolicy } from '../policies';
import { endpoints, ok, type Route, type RouteContract } from '../route';
import { cnyAmount } from './account-views';
import { accountObject, accountSchema, cursorPage, usd, usdAmount } from './console-views';

/** An account's limits as the API names them (the audit log's before and after). */
const limitsOf = (a: AccountView) => ({
  rpm_limit: a.rpmLimit,
  max_active_video_tasks: a.maxActiveVideoTasks,
});

/** The balance of `accountId` as the transaction sees it, in micro-USD. */
async function balanceIn(tx: DbOrTx, accountId: string): Promise<number> {
  return (await getAccountView(tx, accountId))!.balanceMicroUsd;
}

/** A reference as read from a memo: spaces, dashes and case do not matter. */
const sameTransferReference = (given: string, accountId: string) =>
  given.replace(/[\s-]/g, '').toUpperCase() === bankTransferReference(accountId);

export const listQuery = z.object({
  email: z.string().trim().min(1).max(254).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.string().max(64).optional(),
});
const limit = z.number().int().min(1).max(1_000_000).nullable().optional();
export const limitsBody = z.strictObject({ rpm_limit: limit, max_active_video_tasks: limit });
export const topUpBody = z.strictObject({
  /** what the bank received, exact to the fen (validated as QR amounts are: never rounded) */
  amount_cny: cnyAmount.describe(
    'the CNY amount the bank received, at most 2 decimals; credited at TOPUP_CNY_PER_USD with the bonus of QR top-ups',
  ),
  reference: z.string().trim().min(1).max(128),
  note: z.string().max(500).optional(),
  /** the account's bank-transfer reference read from the transfer memo: must be this account's */
  transfer_reference: z.string().trim().min(1).max(64).optional(),
});
export const adjustmentBody = z.strictObject({
  amount_usd: usdAmount.refine((v) => v !== 0, { message: 'must not be 0' }),
  reason: z.string().trim().min(1, 'must say why').max(500),
  reference: z.string().trim().min(1).max(128).optional(),
});

/**
 * The operators' account API (admin session required): GET /admin/api/accounts (list, find by
 * e-mail), GET /admin/api/accounts/:id, POST .../:id/disable and .../:id/enable, PATCH
 * .../:id/limits, POST .../:id/topups (a bank transfer received in CNY, credited in USD by the
 * rule of QR top-ups, idempotent per reference, with the bonus), POST .../:id/adjustments (a signed correction with its reason). Every balance
 * change is a ledger entry; every change is recorded in the audit log (who, before, after) in
 * the transaction that makes it.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  const admin = requireAdmin(deps);
  const body = parseBody({ limitBytes: 16 * 1024 });
  const rules = { ...topUpPolicy(deps.config), cnyPerUsd: deps.config.TOPUP_CNY_PER_USD ?? 5 };
  const account = async (req: Request) => {
    const found = await getAccountView(db, String(req.params.id));
    if (!found) throw new ApiError('not_found', `No account ${String(req.params.id)}.`);
    return found;
  };

  router.get('/accounts', ...admin, async (req, res) => {
    const q = listQuery.parse(req.query);
    const page = await listAccounts(db, q);
    res.status(200).json({
      object: 'list',
      data: page.data.map(accountObject),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
    });
  });

  router.get('/accounts/:id', ...admin, async (req, res) => {
    res.status(200).json(accountObject(await account(req)));
  });

  for (const [action, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    router.post(`/accounts/:id/${action}`, ...admin, async (req, res) => {
      const { id } = await account(req);
      if (id === sessionOf(req).accountId && status === 'disabled') {
        throw new ApiError('invalid_request', 'You cannot disable your own account.');
      }
      const updated = await db.transaction(async (tx) => {
        const change = (await setAccountStatus(tx, id, status))!;
        await recordOperatorAction(tx, auditActor(req), {
          action: `account.${action}`,
          accountId: id,
          targetType: 'account',
          targetId: id,
          before: { status: change.before.status },
          after: { status: change.after.status },
        });
        return change.after;
      });
      await announceKeyChange(deps, { accountId: id });
      req.log.info({ target: id, status }, 'account status changed by an operator');
      res.status(200).json(accountObject(updated!));
    });
  }

  router.patch('/accounts/:id/limits', ...admin, ...body, async (req, res) => {
    const b = limitsBody.parse(req.body ?? {});
    const { id } = await account(req);
    const updated = await db.transaction(async (tx) => {
      const change = (await setAccountLimits(tx, id, {
        rpmLimit: b.rpm_limit,
        maxActiveVideoTasks: b.max_active_video_tasks,
      }))!;
      await recordOperatorAction(tx, auditActor(req), {
        action: 'account.limits',
        accountId: id,
        targetType: 'account',
        targetId: id,
        before: limitsOf(change.before),
        after: limitsOf(change.after),
      });
      return change.after;
    });
    await announceKeyChange(deps, { accountId: id });
    res.status(200).json(accountObject(updated!));
  });

  router.post('/accounts/:id/topups', ...admin, ...body, async (req, res) => {
    const b = topUpBody.parse(req.body ?? {});
    const { id } = await account(req);
    if (b.transfer_reference !== undefined && !sameTransferReference(b.transfer_reference, id)) {
      throw new ApiError(
        'invalid_request',
        `Transfer reference ${b.transfer_reference} is not this account's (${bankTransferReference(id)}).`,
        'transfer_reference',
      );
    }
    try {
      const amountFen = Math.round(b.amount_cny * 100);
      const result = await recordBankTransfer(
        db,
        {
          accountId: id,
          reference: b.reference,
          amountFen,
          note:
            b.note ?? (b.transfer_reference ? `transfer reference ${bankTransferReference(id)}` : undefined),
          createdBy: sessionOf(req).accountId,
        },
        rules,
        {
          inTransaction: async (tx, credited) => {
            const after = await balanceIn(tx, id);
            const added = credited.amountMicroUsd + credited.bonusMicroUsd;
            await recordOperatorAction(tx, auditActor(req), {
              action: 'account.topup',
              accountId: id,
              targetType: 'account',
              targetId: id,
              before: { balance_usd: usd(after - added) },
              after: {
                balance_usd: usd(after),
                payment_id: String(credited.paymentId),
                reference: b.reference,
                amount_cny: amountFen / 100,
                amount_usd: usd(credited.amountMicroUsd),
                bonus_usd: usd(credited.bonusMicroUsd),
              },
              reason: b.note ?? null,
            });
          },
        },
      );
      if (!result.credited && (result.accountId !== id || result.amountFen !== amountFen)) {
        throw new ApiError(
          'conflict',
          `Bank transfer ${b.reference} was already credited with other details.`,
          'reference',
        );
      }
      res.status(result.credited ? 201 : 200).json({
        object: 'topup',
        payment_id: String(result.paymentId),
        account_id: id,
        provider: 'bank_transfer',
        reference: b.reference,
        credited: result.credited,
        amount_cny: amountFen / 100,
        amount_usd: usd(result.amountMicroUsd),
        bonus_usd: usd(result.bonusMicroUsd),
      });
    } catch (err) {
      if (err instanceof TopUpTooSmallError) {
        throw new ApiError(
          'invalid_request',
          `A top-up must be at least ${Math.ceil((err.minMicroUsd / 1_000_000) * rules.cnyPerUsd * 100 - 1e-6) / 100} CNY.`,
          'amount_cny',
        );
      }
      if (err instanceof UnknownAccountError) throw new ApiError('not_found', err.message);
      throw err;
    }
  });

  router.post('/accounts/:id/adjustments', ...admin, ...body, async (req, res) => {
    const b = adjustmentBody.parse(req.body ?? {});
    const { id } = await account(req);
    try {
      const applied = await db.transaction(async (tx) => {
        const done = await adjustBalance(tx, {
          accountId: id,
          amountMicroUsd: b.amount_usd,
          reason: b.reason,
          operatorId: sessionOf(req).accountId,
          ref: b.reference ? `adj:${b.reference}` : undefined,
        });
        if (done) {
          const after = await balanceIn(tx, id);
          await recordOperatorAction(tx, auditActor(req), {
            action: 'account.adjustment',
            accountId: id,
            targetType: 'account',
            targetId: id,
            before: { balance_usd: usd(after - b.amount_usd) },
            after: {
              balance_usd: usd(after),
              amount_usd: usd(b.amount_usd),
              ...(b.reference ? { reference: b.reference } : {}),
            },
            reason: b.reason,
          });
        }
        return done;
      });
      const after = await getAccountView(db, id);
      res.status(applied ? 201 : 200).json({
        object: 'adjustment',
        account_id: id,
        applied,
        amount_usd: usd(b.amount_usd),
        balance_usd: usd(after!.balanceMicroUsd),
        balance_micro_usd: after!.balanceMicroUsd,
      });
    } catch (err) {
      if (err instanceof InsufficientQuotaError) throw new ApiError('conflict', err.message, 'amount_usd');
      throw err;
    }
  });
}

const bankTransferTopUp = consoleObject('BankTransferTopUp', {
  object: z.literal('topup'),
  payment_id: z.string(),
  account_id: z.string(),
  provider: z.literal('bank_transfer'),
  reference: z.string(),
  credited: z.boolean().describe('false: this reference was credited before'),
  amount_cny: z.number().describe('what the bank received'),
  amount_usd: z.number().describe('the credit it bought, at TOPUP_CNY_PER_USD'),
  bonus_usd: z.number(),
});

const adjustment = consoleObject('Adjustment', {
  object: z.literal('adjustment'),
  account_id: z.string(),
  applied: z.boolean().describe('false: this reference was applied before'),
  amount_usd: z.number(),
  balance_usd: z.number(),
  balance_micro_usd: z.number().int(),
});

const accountList = cursorPage(accountSchema, 'AccountList');

const op = endpoints({ tag: 'admin', auth: 'admin' });

export const contracts: RouteContract[] = [
  op('GET /admin/api/accounts', 'List and find accounts', { query: listQuery, 200: accountList }),
  op('GET /admin/api/accounts/:id', 'An account', { 200: accountSchema }),
  op('POST /admin/api/accounts/:id/disable', 'Disable an account', { 200: accountSchema }),
  op('POST /admin/api/accounts/:id/enable', 'Enable an account', { 200: accountSchema }),
  op('PATCH /admin/api/accounts/:id/limits', 'Per-account rate and concurrency limits', {
    body: limitsBody,
    200: accountSchema,
  }),
  op(
    'POST /admin/api/accounts/:id/topups',
    'Credit a bank transfer received in CNY (idempotent per reference)',
    {
      body: topUpBody,
      201: bankTransferTopUp,
      200: ok(bankTransferTopUp, 'already credited'),
    },
  ),
  op('POST /admin/api/accounts/:id/adjustments', 'Adjust a balance, with a reason', {
    body: adjustmentBody,
    201: adjustment,
    200: ok(adjustment, 'already applied'),
  }),
];

export const route: Route = { mount: '/admin/api', contracts, register };
