import { paymentsEnvShape } from '@mediagate/shared/payments';
import { z } from 'zod';

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v && v.trim().length > 0 ? v.trim() : undefined));

/**
 * Variables of QR-code top-ups (api): the providers (packages/shared/src/payments/config.ts),
 * the CNY rate, how long a QR code may be paid, where providers send notifications, and the
 * bank details shown for transfers.
 */
export const paymentsApiEnvShape = {
  ...paymentsEnvShape,
  /** CNY per USD: 35 CNY credits 7 USD at the default 5 */
  TOPUP_CNY_PER_USD: z.coerce.number().positive().max(1000).default(5),
  /** a QR code can be paid for this long; the reconciler closes the order after it */
  TOPUP_ORDER_TTL_S: z.coerce
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(15 * 60),
  /** unpaid, unexpired orders an account may hold at once (each one is an order at the provider) */
  TOPUP_MAX_OPEN_ORDERS: z.coerce.number().int().min(1).default(10),
  /**
   * unpaid orders an account may create per rolling hour, cancelled ones included (each is placed
   * at the provider and, for an Alipay code never scanned, queried until it dies; paid ones do not
   * count): bounds cancel and create again, generously above what a payer needs
   */
  TOPUP_MAX_ORDERS_PER_HOUR: z.coerce.number().int().min(1).default(30),
  /** reading a top-up still `created` this long after its creation asks the provider (at most every 5 s) */
  TOPUP_QUERY_AFTER_MS: z.coerce.number().int().min(0).default(5_000),
  /** the API's public base URL, for the notify_url given to providers (e.g. https://api.example.com) */
  PAYMENT_NOTIFY_BASE_URL: z
    .string()
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** bank transfers: the beneficiary's name shown in the console (null when unset) */
  BANK_TRANSFER_BENEFICIARY: optionalString,
  /** bank transfers: the bank's name */
  BANK_TRANSFER_BANK: optionalString,
  /** bank transfers: the account number (or IBAN) */
  BANK_TRANSFER_ACCOUNT_NUMBER: optionalString,
  /**
   * how customers reach us about payments (an e-mail address, or an https URL), shown on the top-up
   * page; without the bank details it is how they ask for them, without either transfers are not offered
   */
  PAYMENTS_CONTACT: optionalString.pipe(
    z
      .union([z.email(), z.url({ protocol: /^https?$/ })], {
        error: 'must be an e-mail address or an http(s) URL',
      })
      .optional(),
  ),
};

export type PaymentsApiConfig = z.output<z.ZodObject<typeof paymentsApiEnvShape>>;
