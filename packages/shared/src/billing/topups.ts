import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { accounts, payments } from '../db/schema';
import { creditRowsStatements } from './ledger';

/** When a top-up is accepted and what bonus it earns. */
export interface TopUpPolicy {
  minMicroUsd: number;
  /** a single top-up of at least this much earns the bonus */
  bonusThresholdMicroUsd: number;
  bonusPercent: number;
}

/** The top-up is below the minimum; nothing was credited. */
export class TopUpTooSmallError extends Error {
  constructor(readonly minMicroUsd: number) {
    super(`A top-up must be at least ${minMicroUsd / 1_000_000} USD.`);
    this.name = 'TopUpTooSmallError';
  }
}

/** The account a payment names does not exist; nothing was credited. */
export class UnknownAccountError extends Error {
  constructor(readonly accountId: string) {
    super(`No account ${accountId}.`);
    this.name = 'UnknownAccountError';
  }
}

/** The bonus a top-up of `amountMicroUsd` earns under `policy` (0 below the threshold). */
export function topUpBonus(amountMicroUsd: number, policy: TopUpPolicy): number {
  if (policy.bonusPercent <= 0 || amountMicroUsd < policy.bonusThresholdMicroUsd) return 0;
  return Math.floor((amountMicroUsd * policy.bonusPercent) / 100);
}

export interface TopUpResult {
  /** false when this (provider, reference) was already credited: nothing changed */
  credited: boolean;
  paymentId: number;
  accountId: string;
  amountMicroUsd: number;
  bonusMicroUsd: number;
}

/**
 * THE statement that credits a top-up (every path: QR orders on their notification or the
 * reconciler's query, the dev provider, operators' bank transfers). `source` selects at most one
 * row (account_id, provider, reference, amount_micro_usd, bonus_micro_usd, note, created_by, raw,
 * paid: the amount as paid, `<decimal> CNY` or `<decimal> USD`, e.g. `35.00 CNY`); `before` are
 * CTEs it may read (an order's compare-and-set). In one statement: the payment row (unique per
 * provider and reference: a repeat inserts nothing and credits nothing), the `topup` and `bonus`
 * ledger entries (their details, `payment` with the provider, reference and amount paid, and one
 * English text each, below) and the balance. Returns one row when it credited: the payment row's id as
 * `payment_id`, or the `select` list over `pay` and the `before` CTEs.
 */
export function creditTopUpStatement(args: { before?: SQL; source: SQL; select?: SQL; from?: SQL }): SQL {
  const credit = creditRowsStatements('credit_rows');
  return sql`
    with ${args.before ? sql`${args.before}, ` : sql``}src as (${args.source}), pay as (
      insert into payments (account_id, provider, reference, amount_micro_usd, bonus_micro_usd, note, created_by, raw)
      select account_id, provider, reference, amount_micro_usd, bonus_micro_usd, note, created_by, raw from src
      on conflict do nothing
      returning id, account_id, provider, reference, amount_micro_usd, bonus_micro_usd
    ), credit_rows as (
      select p.account_id, 'topup'::text as kind, p.amount_micro_usd, p.provider || ':' || p.reference as ref,
             ${topUpReasonSql('topup')} as reason, ${paymentDetailsSql} as details
      from pay p join src s on s.provider = p.provider and s.reference = p.reference
      union all
      select p.account_id, 'bonus', p.bonus_micro_usd, p.provider || ':' || p.reference,
             ${topUpReasonSql('bonus')}, ${paymentDetailsSql}
      from pay p join src s on s.provider = p.provider and s.reference = p.reference
    ), l as (${credit.ledger}), b as (${credit.balance})
    select ${args.select ?? sql`pay.id as payment_id`} from pay${args.from ? sql`, ${args.from}` : sql``}`;
}

/**
 * The owner-facing texts of a top-up's ledger entries, one each: `top-up of 35.00 CNY via alipay`
 * and `bonus on a top-up of 35.00 CNY via alipay` (p: the payment, s: its source row).
 */
function topUpReasonSql(kind: 'topup' | 'bonus'): SQL {
  return kind === 'topup'
    ? sql.raw(`'top-up of ' || s.paid || ' via ' || p.provider`)
    : sql.raw(`'bonus on a top-up of ' || s.paid || ' via ' || p.provider`);
}

/**
 * The details of a top-up's ledger entries (LedgerDetails `payment`), the amount paid read exactly
 * from `s.paid` (p: the payment, s: its source row).
 */
const paymentDetailsSql = sql.raw(`jsonb_build_object('cause', 'payment', 'provider', p.provider,
  'reference', p.reference, 'paid', case split_part(s.paid, ' ', 2)
    when 'CNY' then jsonb_build_object('currency', 'CNY',
      'amount_fen', (split_part(s.paid, ' ', 1)::numeric * 100)::bigint)
    else jsonb_build_object('currency', 'USD',
      'amount_micro_usd', (split_part(s.paid, ' ', 1)::numeric * 1000000)::bigint) end)`);

/** A USD amount as the ledger texts write it: 2 decimals at least, every micro-USD kept. */
export function usdPaidSql(microUsd: SQL): SQL {
  return sql`to_char((${microUsd})::numeric / 1000000, 'FM999999999990.009999') || ' USD'`;
}

/**
 * Credits a received payment in USD (the dev provider) with creditTopUpStatement: the payment row,
 * a `topup` ledger entry and, at or above the policy's threshold, a separate `bonus` entry.
 * Idempotent per (provider, reference): a repeat returns the first payment with `credited: false`.
 * Throws TopUpTooSmallError below the minimum and UnknownAccountError for a missing account.
 * `inTransaction` runs inside the same transaction when the payment is credited, for what must
 * commit with it (an operator's audit record).
 */
export async function recordTopUp(
  db: Db,
  args: {
    accountId: string;
    provider: string;
    reference: string;
    amountMicroUsd: number;
    note?: string;
    createdBy?: string;
    raw?: unknown;
  },
  policy: TopUpPolicy,
  opts: { inTransaction?: (tx: DbOrTx, credited: TopUpResult) => Promise<void> } = {},
): Promise<TopUpResult> {
  if (!Number.isSafeInteger(args.amountMicroUsd) || args.amountMicroUsd < policy.minMicroUsd) {
    throw new TopUpTooSmallError(policy.minMicroUsd);
  }
  const amount = sql`${args.amountMicroUsd}::bigint`;
  return creditReceivedTopUp(
    db,
    { ...args, bonusMicroUsd: topUpBonus(args.amountMicroUsd, policy), paid: usdPaidSql(amount) },
    opts,
  );
}

/**
 * Credits a received payment whose credit and bonus are already decided (recordTopUp, bank
 * transfers in CNY): creditTopUpStatement in a transaction, `paid` the amount as the ledger texts
 * write it. Idempotent per (provider, reference): a repeat returns the first payment (its `raw`
 * too) with `credited: false`. Throws UnknownAccountError for a missing account.
 */
export async function creditReceivedTopUp(
  db: Db,
  args: {
    accountId: string;
    provider: string;
    reference: string;
    amountMicroUsd: number;
    bonusMicroUsd: number;
    paid: SQL;
    note?: string;
    createdBy?: string;
    raw?: unknown;
  },
  opts: { inTransaction?: (tx: DbOrTx, credited: TopUpResult) => Promise<void> } = {},
): Promise<TopUpResult & { raw?: unknown }> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.execute<{ payment_id: string | number }>(
      creditTopUpStatement({
        source: sql`select a.id as account_id, ${args.provider}::text as provider,
            ${args.reference}::text as reference, ${args.amountMicroUsd}::bigint as amount_micro_usd,
            ${args.bonusMicroUsd}::bigint as bonus_micro_usd, ${args.note ?? null}::text as note,
            ${args.createdBy ?? null}::text as created_by,
            ${args.raw === undefined ? null : JSON.stringify(args.raw)}::jsonb as raw,
            ${args.paid} as paid
          from accounts a where a.id = ${args.accountId}`,
      }),
    );
    if (rows[0]) {
      const result = {
        credited: true,
        paymentId: Number(rows[0].payment_id),
        accountId: args.accountId,
        amountMicroUsd: args.amountMicroUsd,
        bonusMicroUsd: args.bonusMicroUsd,
      };
      await opts.inTransaction?.(tx, result);
      return { ...result, raw: args.raw };
    }
    const [account] = await tx
      .select({ id: accounts.id })
      .from(accounts)
      .where(eq(accounts.id, args.accountId))
      .limit(1);
    if (!account) throw new UnknownAccountError(args.accountId);
    const [existing] = await tx
      .select()
      .from(payments)
      .where(and(eq(payments.provider, args.provider), eq(payments.reference, args.reference)))
      .limit(1);
    return {
      credited: false,
      paymentId: existing!.id,
      accountId: existing!.accountId,
      amountMicroUsd: existing!.amountMicroUsd,
      bonusMicroUsd: existing!.bonusMicroUsd,
      raw: existing!.raw ?? undefined,
    };
  });
}
