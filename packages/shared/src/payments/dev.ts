import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { usdAmount } from '../contracts/usd';
import { type AccountPaymentProvider, PaymentVerificationError } from './types';

export const DEV_SIGNATURE_HEADER = 'x-payment-signature';

const devPayload = z.strictObject({
  reference: z.string().min(1).max(128),
  account_id: z.string().min(1).max(64),
  amount_usd: usdAmount
    .refine((v) => v > 0, { message: 'must be positive' })
    .refine((v) => v <= 1_000_000_000_000, {
      message: 'must be at most 1000000',
    }),
  currency: z.literal('USD').optional(),
});

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, the dev provider's signature header. */
export function signDevPayment(secret: string, body: string, at = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${at}.${body}`).digest('hex');
  return `t=${at},v1=${mac}`;
}

/**
 * The provider for development and tests: the payer's system signs the JSON body
 * `{reference, account_id, amount_usd}` with a shared secret (HMAC-SHA256 over
 * `timestamp.body`, header `x-payment-signature: t=...,v1=...`); notifications older or newer
 * than `toleranceSeconds` are refused, so a captured one cannot be replayed later.
 */
export function createDevPaymentProvider(secret: string, toleranceSeconds: number): AccountPaymentProvider {
  return {
    name: 'dev',
    verifyNotification(headers, rawBody) {
      const header = headers[DEV_SIGNATURE_HEADER];
      const value = Array.isArray(header) ? header[0] : header;
      const parts = Object.fromEntries(
        (value ?? '').split(',').map((p) => {
          const [k, ...v] = p.trim().split('=');
          return [k, v.join('=')];
        }),
      );
      const at = Number(parts.t);
      if (!Number.isInteger(at) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) {
        throw new PaymentVerificationError(
          `Missing or malformed ${DEV_SIGNATURE_HEADER} header.`,
          'signature',
        );
      }
      if (Math.abs(Date.now() / 1000 - at) > toleranceSeconds) {
        throw new PaymentVerificationError(
          'The notification timestamp is too old or in the future.',
          'signature',
        );
      }
      const expected = createHmac('sha256', secret).update(`${at}.`).update(rawBody).digest();
      if (!timingSafeEqual(expected, Buffer.from(parts.v1!, 'hex'))) {
        throw new PaymentVerificationError('The notification signature does not match.', 'signature');
      }
      let parsed: z.output<typeof devPayload>;
      try {
        parsed = devPayload.parse(JSON.parse(rawBody.toString('utf8')));
      } catch (err) {
        throw new PaymentVerificationError(`Unreadable notification: ${(err as Error).message}`, 'payload');
      }
      return {
        reference: parsed.reference,
        accountId: parsed.account_id,
        amountMicroUsd: parsed.amount_usd,
        raw: parsed,
      };
    },
  };
}
