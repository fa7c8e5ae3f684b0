import { listLedger, listTopUpOrders } from '@mediagate/shared/billing';
import { callbackDelivery, consoleObject, listOf, videoTaskObject } from '@mediagate/shared/contracts';
import type { DbOrTx, TopUpOrderRow } from '@mediagate/shared/db';
import { QR_PROVIDERS } from '@mediagate/shared/payments';
import { z } from 'zod';
import { cursorPage, pageQuery, tokenSchema, toSeconds, unixSeconds, usd } from './console-views';

// What an account holds, as its owner's routes (/console/api) and the operators' (/admin/api) show it.

export const ledgerQuery = pageQuery.extend({
  kind: z.enum(['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment']).optional(),
});

export const ledgerEntry = consoleObject('LedgerEntry', {
  id: z.string(),
  kind: z.enum(['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment']),
  amount_usd: z.number(),
  amount_micro_usd: z.number().int(),
  ref: z.string().nullable(),
  reason: z.string().nullable(),
  created_at: unixSeconds.nullable(),
});

/** One page of an account's ledger as the API answers it (the customer's and the operators' routes). */
export async function ledgerPage(db: DbOrTx, accountId: string, q: z.infer<typeof ledgerQuery>) {
  const page = await listLedger(db, accountId, q);
  return {
    object: 'list' as const,
    data: page.data.map((e) => ({
      object: 'ledger_entry',
      id: String(e.id),
      kind: e.kind,
      amount_usd: usd(e.amountMicroUsd),
      amount_micro_usd: e.amountMicroUsd,
      ref: e.ref,
      reason: e.reason,
      created_at: toSeconds(e.createdAt),
    })),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

export const topUpListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: z
    .string()
    .regex(/^top_[0-9A-Z]{26}$/, 'must be a next_cursor from a previous page')
    .optional(),
});

export const topUpObjectSchema = consoleObject('TopUp', {
  object: z.literal('topup'),
  id: z.string(),
  status: z.enum(['created', 'paid', 'credited', 'closed', 'expired']),
  provider: z.enum(QR_PROVIDERS),
  amount_cny: z.number(),
  credit_usd: z.number(),
  bonus_usd: z.number(),
  channel: z.enum(['qr', 'mobile']),
  qr_code: z.string().nullable().describe('the content to render as a QR code (channel qr)'),
  pay_url: z
    .string()
    .nullable()
    .describe("the URL to open in the phone's browser to pay (channel mobile); it returns to the console"),
  expires_at: z.number().int(),
  created_at: z.number().int(),
  paid_at: z.number().int().nullable(),
  credited_at: z.number().int().nullable(),
});

export function topUpObject(o: TopUpOrderRow) {
  return {
    object: 'topup' as const,
    id: o.id,
    status: o.status,
    provider: o.provider,
    amount_cny: o.amountFen / 100,
    credit_usd: usd(o.creditMicroUsd),
    bonus_usd: usd(o.bonusMicroUsd),
    channel: o.payUrl ? ('mobile' as const) : ('qr' as const),
    qr_code: o.qrCode,
    pay_url: o.payUrl,
    expires_at: toSeconds(o.expiresAt)!,
    created_at: toSeconds(o.createdAt)!,
    paid_at: toSeconds(o.paidAt),
    credited_at: toSeconds(o.creditedAt),
  };
}

/** One page of an account's top-ups, newest first (the customer's and the operators' routes). */
export async function topUpPage(db: DbOrTx, accountId: string, q: z.infer<typeof topUpListQuery>) {
  const page = await listTopUpOrders(db, accountId, q);
  return {
    object: 'list' as const,
    data: page.data.map(topUpObject),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

export const adminTaskSchema = videoTaskObject
  .extend({
    account_id: z.string(),
    account_email: z.string().nullable().describe("the account's e-mail (null: the account is gone)"),
    upstream_task_id: z.string().nullable(),
    upstream_channel: z.string().nullable(),
  })
  .meta({ id: 'AdminTask' });

export const ledgerPageSchema = cursorPage(ledgerEntry, 'LedgerPage');

export const topUpPageSchema = cursorPage(topUpObjectSchema, 'TopUpList');

export const tokenListSchema = listOf(tokenSchema, 'TokenList');

export const deliveryListSchema = listOf(callbackDelivery, 'CallbackDeliveryList');
