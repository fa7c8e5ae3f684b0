import { z } from 'zod';
import { findAccountId, getAccountView } from '../accounts';
import { getTopUpOrder, TopUpRefundRefusedError } from '../billing';
import { loadConfig } from '../config/env';
import type { Database } from '../db/client';
import type { Logger } from '../log';
import { createQrPaymentProviders, paymentsEnvShape, refinePaymentsEnv, refundTopUpOrder } from '../payments';

/** What `topup:refund` was given (already parsed by the CLI's argument parser). */
export interface TopUpRefundArgs {
  topUpId?: string;
  operator?: string;
  reason?: string;
  amountCny?: string;
}

/** A result for the CLI: its exit code, what goes to stdout, and the message for stderr. */
export interface CliOutcome {
  code: number;
  stdout?: string;
  message: string;
}

const cny = (fen: number) => `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, '0')} CNY`;
const usd = (micro: number) => `${(micro / 1_000_000).toFixed(6).replace(/0{1,4}$/, '')} USD`;

/**
 * `pnpm cli topup:refund <topup id> --operator <e-mail> --reason <text> [--amount-cny <n>]`: the
 * operator's refund of a paid QR top-up through its provider, as POST /admin/api/topups/:id/refund
 * makes it (refundTopUpOrder: recorded and audited under that operator, then sent; never more than
 * is left). Exit 0 refunded (the refunded share taken back); 3 sent but not finished (under way at
 * the provider, or held for an operator: the message says what is left); 1 nothing refunded (no
 * such top-up or operator, not paid, more than is left, the provider refused it or is not
 * configured); 2 a usage mistake (thrown as `usage`).
 */
export async function refundTopUpFromCli(
  database: Database,
  args: TopUpRefundArgs,
  usage: (message: string) => Error,
  /** where a held refund or a provider without an answer is logged, as the API logs them */
  logger?: Logger,
): Promise<CliOutcome> {
  if (!args.topUpId)
    throw usage('name the top-up: pnpm cli topup:refund <topup id> --operator <e-mail> --reason <text>');
  if (!args.operator)
    throw usage('--operator <e-mail | account id> is required: the operator the refund is audited under');
  const reason = args.reason?.trim();
  if (!reason || reason.length > 256)
    throw usage('--reason is required (at most 256 characters): it is audited and sent to the provider');
  let amountFen: number | undefined;
  if (args.amountCny !== undefined) {
    // exact to the fen, as the API takes it: 17.5 and 17.50, never 17.505
    if (!/^\d{1,7}(\.\d{1,2})?$/.test(args.amountCny) || Number(args.amountCny) <= 0)
      throw usage('--amount-cny must be an amount in yuan above 0 with at most 2 decimals (17.50)');
    amountFen = Math.round(Number(args.amountCny) * 100);
  }
  const db = database.db;
  const operatorId = await findAccountId(db, args.operator);
  const operator = operatorId ? await getAccountView(db, operatorId) : null;
  if (!operator || operator.role !== 'admin' || operator.status !== 'active') {
    return {
      code: 1,
      message: `${args.operator} is not an active operator account; nothing was refunded`,
    };
  }
  const order = await getTopUpOrder(db, args.topUpId);
  if (!order) return { code: 1, message: `no top-up has the id ${args.topUpId}; nothing was refunded` };
  const config = loadConfig(
    z
      .object({
        ...paymentsEnvShape,
        // where the provider notifies the refund's end (WeChat Pay): the API's, as it gives it
        PAYMENT_NOTIFY_BASE_URL: z
          .string()
          .url()
          .transform((u) => u.replace(/\/+$/, ''))
          .optional(),
      })
      .superRefine(refinePaymentsEnv),
  );
  const provider = createQrPaymentProviders(config).get(order.provider);
  if (!provider) {
    return {
      code: 1,
      message: `the payment provider ${order.provider} of ${order.id} is not configured here (its ALIPAY_ or WECHATPAY_ variables); nothing was refunded`,
    };
  }
  let done: Awaited<ReturnType<typeof refundTopUpOrder>>;
  try {
    done = await refundTopUpOrder(db, provider, {
      orderId: order.id,
      amountFen,
      reason,
      operatorId: operator.id,
      actor: { operatorId: operator.id, operatorEmail: operator.email },
      notifyBaseUrl: config.PAYMENT_NOTIFY_BASE_URL,
      logger,
    });
  } catch (err) {
    if (err instanceof TopUpRefundRefusedError)
      return { code: 1, message: `${err.message} Nothing was refunded.` };
    throw err;
  }
  if (!done) return { code: 1, message: `no top-up has the id ${order.id}; nothing was refunded` };
  const { refund } = done;
  const what = `refund ${refund.id} of ${cny(refund.amountFen)} of ${order.id} (${order.provider}, account ${order.accountId})`;
  switch (done.outcome) {
    case 'succeeded':
      return {
        code: 0,
        stdout: `${refund.id}\n`,
        message: `refunded: ${what}; took back ${usd(refund.debitMicroUsd)}${refund.uncoveredMicroUsd > 0 ? `, ${usd(refund.uncoveredMicroUsd)} not covered by the balance (already spent)` : ''}`,
      };
    case 'failed':
      return {
        code: 1,
        message: `the provider refused ${what}: ${refund.failure ?? 'no reason given'}; nothing was refunded and the balance is unchanged`,
      };
    case 'held':
      return {
        code: 3,
        stdout: `${refund.id}\n`,
        message: `${what} is held: ${refund.failure}; settle it by hand (docs/deploy.md, "Held refunds")`,
      };
    default:
      return {
        code: 3,
        stdout: `${refund.id}\n`,
        message: `${what} is under way at the provider and not finished yet: its notification or the reconciler finishes it (GET /admin/api/topups/${order.id}/refunds shows it)`,
      };
  }
}
