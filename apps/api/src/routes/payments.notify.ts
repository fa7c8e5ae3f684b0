import { recordTopUp, TopUpTooSmallError, UnknownAccountError } from '@mediagate/shared/billing';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import { PaymentVerificationError } from '@mediagate/shared/payments';
import express, { type Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { assertWellFormedStrings } from '../middleware/well-formed';
import { topUpPolicy } from '../policies';
import { endpoint, type Route } from '../route';
import { usd } from './console-views';

/**
 * POST /payments/:provider/notify: a payment provider reports a QR-code payment. The provider
 * verifies the signature over the raw body before anything is read; the top-up (and its bonus)
 * is credited at once, once per payment reference: a repeated notification answers 200 with
 * `credited: false`.
 */
export function register(router: Router, deps: ApiDeps): void {
  const policy = topUpPolicy(deps.config);
  const providers = new Map(deps.paymentProviders.map((p) => [p.name, p]));
  router.post('/:provider/notify', express.raw({ type: () => true, limit: 64 * 1024 }), async (req, res) => {
    const provider = providers.get(String(req.params.provider));
    if (!provider) throw new ApiError('not_found', `No payment provider '${String(req.params.provider)}'.`);
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let payment: ReturnType<typeof provider.verifyNotification>;
    try {
      payment = provider.verifyNotification(req.headers, raw);
      assertWellFormedStrings(payment.raw);
    } catch (err) {
      if (err instanceof PaymentVerificationError) {
        throw err.kind === 'signature'
          ? new ApiError('invalid_signature', err.message)
          : new ApiError('invalid_request', err.message);
      }
      throw err;
    }
    try {
      const result = await recordTopUp(
        deps.database.db,
        {
          accountId: payment.accountId,
          provider: provider.name,
          reference: payment.reference,
          amountMicroUsd: payment.amountMicroUsd,
          raw: payment.raw,
        },
        policy,
      );
      req.log.info({ provider: provider.name, reference: payment.reference, ...result }, 'payment notified');
      res.status(200).json({
        object: 'payment',
        provider: provider.name,
        reference: payment.reference,
        account_id: result.accountId,
        credited: result.credited,
        amount_usd: usd(result.amountMicroUsd),
        bonus_usd: usd(result.bonusMicroUsd),
      });
    } catch (err) {
      if (err instanceof TopUpTooSmallError) throw new ApiError('invalid_request', err.message, 'amount_usd');
      if (err instanceof UnknownAccountError)
        throw new ApiError('invalid_request', err.message, 'account_id');
      throw err;
    }
  });
}

const paymentNotificationResult = consoleObject('PaymentNotificationResult', {
  object: z.literal('payment'),
  provider: z.string(),
  reference: z.string(),
  account_id: z.string(),
  credited: z.boolean().describe('false: this payment reference was credited before'),
  amount_usd: z.number(),
  bonus_usd: z.number(),
});

export const contract = endpoint(
  'POST /payments/:provider/notify',
  "A payment provider's signed notification (credited once per payment reference)",
  { tag: 'payments', auth: 'signature', 200: paymentNotificationResult, 401: 'bad signature' },
);

export const route: Route = { mount: '/payments', contracts: [contract], register };
