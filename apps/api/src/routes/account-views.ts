import { getTopUpOrder, listLedger, listTopUpOrders } from '@mediagate/shared/billing';
import { callbackDelivery, consoleObject, listOf, videoTaskObject } from '@mediagate/shared/contracts';
import type { DbOrTx, TopUpOrderRow } from '@mediagate/shared/db';
import { QR_PROVIDERS } from '@mediagate/shared/payments';
import { z } from 'zod';
import { cursorPage, pageQuery, tokenSchema, toSeconds, unixSeconds, usd } from './console-views';

// What an account holds, as its owner's routes (/console/api) and the operators' (/admin/api) show it.

export const ledgerQuery = pageQuery.extend({
  kind: z.enum(['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment']).optional(),
});

const cause = <C extends string, S extends z.ZodRawShape>(name: C, fields: S, description: string) =>
  z.object({ cause: z.literal(name), ...fields }).describe(description);
const model = z.string().nullable().describe("the call's model, from its usage record");
const paid = z
  .discriminatedUnion('currency', [
    z.object({ currency: z.literal('CNY'), amount_fen: z.number().int() }),
    z.object({ currency: z.literal('USD'), amount_micro_usd: z.number().int() }),
  ])
  .describe('the amount the payer paid: yuan in fen, or dollars in micro-USD');

/** What a ledger entry is, in fields (LedgerDetails of the ledger table); `cause` tells them apart. */
export const ledgerDetails = z
  .discriminatedUnion('cause', [
    cause('signup_credit', {}, "grant: a new account's test credit"),
    cause('initial_credit', {}, 'grant: credit an account was created with'),
    cause('operator_grant', {}, 'grant: credit an operator created the account with'),
    cause(
      'payment',
      {
        provider: z.string(),
        reference: z.string().describe("the provider's order (top_...) or the transfer's reference"),
        paid,
      },
      'topup and bonus: the payment they come from',
    ),
    cause('video_task', { model }, 'charge: a video task (ref is its id)'),
    cause(
      'image_call',
      { model, units: z.number().int().nullable().describe('images requested') },
      'charge: an image call',
    ),
    cause(
      'task_failed',
      { model, error_code: z.string() },
      'refund: the task failed or was canceled (error_code canceled)',
    ),
    cause(
      'images_not_delivered',
      { model, missing: z.number().int(), requested: z.number().int() },
      'refund: images the call did not deliver',
    ),
    cause('image_call_failed', { model }, 'refund: the image call failed upstream'),
    cause(
      'unsettled',
      { model, after_s: z.number().int() },
      'refund: the call was not settled within after_s seconds',
    ),
    cause(
      'usage_settlement',
      {
        model,
        quoted_micro_usd: z.number().int(),
        actual_micro_usd: z.number().int(),
        duration_s: z.number(),
        resolution: z.string(),
        audio: z.boolean(),
      },
      'refund: the vendor made less than was charged',
    ),
    cause(
      'topup_refund',
      {
        provider: z.string(),
        order_id: z.string().nullable(),
        refund_fen: z.number().int(),
        topup_fen: z.number().int(),
      },
      'refund: money of a top-up returned to the payer (a debit)',
    ),
    cause('operator', { note: z.string().describe("the operator's own words") }, 'adjustment by an operator'),
  ])
  .meta({ id: 'LedgerDetails' });

export const ledgerEntry = consoleObject('LedgerEntry', {
  id: z.string(),
  kind: z.enum(['grant', 'topup', 'bonus', 'charge', 'refund', 'adjustment']),
  amount_usd: z.number(),
  amount_micro_usd: z.number().int(),
  ref: z.string().nullable(),
  reason: z
    .string()
    .nullable()
    .describe('English text, for older readers; `details` says the same in fields, for any language'),
  details: ledgerDetails
    .nullable()
    .describe('what the entry is; null for an entry from before details whose text could not be read'),
  created_at: unixSeconds.nullable(),
});

type LedgerRow = Awaited<ReturnType<typeof listLedger>>['data'][number];

/** An entry's details as answered: a charge's from its usage record, a call refund's with the model. */
function detailsOf(e: LedgerRow): z.infer<typeof ledgerDetails> | null {
  if (e.kind === 'charge') {
    return e.ref?.startsWith('task_')
      ? { cause: 'video_task', model: e.model }
      : { cause: 'image_call', model: e.model, units: e.units };
  }
  const d = e.details;
  if (!d) return null;
  switch (d.cause) {
    case 'task_failed':
    case 'images_not_delivered':
    case 'image_call_failed':
    case 'unsettled':
    case 'usage_settlement':
      return { ...d, model: e.model };
    default:
      return d;
  }
}

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
      details: detailsOf(e),
      created_at: toSeconds(e.createdAt),
    })),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

/**
 * A CNY amount as top-ups take it (a QR order, a bank transfer received): a JSON number of yuan,
 * exact to the fen. Validated, never rounded: 35.0000000001 is refused, not read as 35.00.
 */
export const cnyAmount = z
  .number({
    error: (i) =>
      i.input === undefined
        ? undefined
        : `must be a JSON number of yuan (35 or 35.5), not ${typeof i.input === 'string' ? `the string "${String(i.input).slice(0, 20)}"` : `a ${typeof i.input}`}`,
  })
  .positive()
  .max(1_000_000)
  // exact: 35.0000000001 is not 35.00 (amounts are validated, never rounded)
  .refine((v) => Number(v.toFixed(2)) === v, { message: 'must have at most 2 decimals (fen)' });

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
  status: z
    .enum(['created', 'paid', 'credited', 'closed', 'expired', 'cancelled'])
    .describe(
      'created: payable; paid: paid another amount, waits for an operator; credited; closed: refused by the provider; expired; cancelled: by its owner (a payment still made with its code is credited: the status then becomes credited)',
    ),
  provider: z.enum(QR_PROVIDERS),
  amount_cny: z.number(),
  credit_usd: z.number(),
  bonus_usd: z.number(),
  refunded_cny: z
    .number()
    .describe(
      'what the provider refunded of the payment so far (the refunded share of the credit was taken back)',
    ),
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
  cancelled_at: z.number().int().nullable(),
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
    refunded_cny: o.refundedFen / 100,
    channel: o.payUrl ? ('mobile' as const) : ('qr' as const),
    qr_code: o.qrCode,
    pay_url: o.payUrl,
    expires_at: toSeconds(o.expiresAt)!,
    created_at: toSeconds(o.createdAt)!,
    paid_at: toSeconds(o.paidAt),
    credited_at: toSeconds(o.creditedAt),
    cancelled_at: toSeconds(o.cancelledAt),
  };
}

/** One page of an account's top-ups, newest first (the customer's and the operators' routes). */
/** An operator's top-ups query: a page, or (`order`) the one order of the account a link names. */
export const adminTopUpListQuery = topUpListQuery.extend({
  order: z
    .string()
    .regex(/^top_[0-9A-Z]{26}$/, 'must be a top-up order id (top_...)')
    .optional()
    .describe("only this order (none: it is not the account's); paging is then ignored"),
});

export async function topUpPage(db: DbOrTx, accountId: string, q: z.infer<typeof adminTopUpListQuery>) {
  if (q.order) {
    const order = await getTopUpOrder(db, q.order);
    const data = order && order.accountId === accountId ? [topUpObject(order)] : [];
    return { object: 'list' as const, data, has_more: false, next_cursor: null };
  }
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
