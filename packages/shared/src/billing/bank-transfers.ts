import { sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { type CnyTopUpRules, quoteCnyTopUp } from './topup-orders';
import { creditReceivedTopUp, type TopUpResult } from './topups';

/** What a bank transfer credited: the payment, and the CNY amount it was recorded with (null for one recorded in USD). */
export interface BankTransferResult extends TopUpResult {
  amountFen: number | null;
}

/**
 * Credits a bank transfer received in CNY (`amountFen`, exact), by the rule and the code of QR
 * top-ups: quoteCnyTopUp turns it into USD credit and bonus (TOPUP_CNY_PER_USD, the minimum, the
 * bonus threshold), and the ledger says `top-up of 700.00 CNY via bank_transfer`. Idempotent on the
 * bank's `reference`: a repeat returns the first payment, with the CNY amount it was recorded with,
 * and `credited: false`. Throws TopUpTooSmallError below the minimum, UnknownAccountError for a
 * missing account. `inTransaction` commits with the credit (the operator's audit record).
 */
export async function recordBankTransfer(
  db: Db,
  args: { accountId: string; reference: string; amountFen: number; note?: string; createdBy?: string },
  rules: CnyTopUpRules,
  opts: { inTransaction?: (tx: DbOrTx, credited: BankTransferResult) => Promise<void> } = {},
): Promise<BankTransferResult> {
  const quote = quoteCnyTopUp(args.amountFen, rules);
  const r = await creditReceivedTopUp(
    db,
    {
      accountId: args.accountId,
      provider: 'bank_transfer',
      reference: args.reference,
      amountMicroUsd: quote.creditMicroUsd,
      bonusMicroUsd: quote.bonusMicroUsd,
      paid: sql`to_char(${args.amountFen}::bigint / 100.0, 'FM999999999990.00') || ' CNY'`,
      note: args.note,
      createdBy: args.createdBy,
      raw: { amount_fen: args.amountFen, cny_per_usd: rules.cnyPerUsd },
    },
    {
      inTransaction:
        opts.inTransaction && ((tx, c) => opts.inTransaction!(tx, { ...c, amountFen: args.amountFen })),
    },
  );
  const recorded = (r.raw as { amount_fen?: unknown } | undefined)?.amount_fen;
  return {
    credited: r.credited,
    paymentId: r.paymentId,
    accountId: r.accountId,
    amountMicroUsd: r.amountMicroUsd,
    bonusMicroUsd: r.bonusMicroUsd,
    amountFen: typeof recorded === 'number' ? recorded : null,
  };
}
