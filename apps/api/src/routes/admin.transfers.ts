import { getAccountView } from '@mediagate/shared/accounts';
import { findAccountByTransferReference } from '@mediagate/shared/billing';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { requireAdmin } from '../middleware/session';
import { endpoint, type Route } from '../route';
import { accountObject, accountSchema } from './console-views';

/**
 * GET /admin/api/transfer-references/:reference: the account whose bank-transfer reference a
 * memo carries (every account's is shown in its console top-up options), to credit the
 * transfer with POST /admin/api/accounts/:id/topups.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  router.get('/transfer-references/:reference', ...requireAdmin(deps), async (req, res) => {
    const reference = String(req.params.reference);
    const accountId = await findAccountByTransferReference(db, reference);
    const account = accountId ? await getAccountView(db, accountId) : undefined;
    if (!account)
      throw new ApiError('not_found', `No account has the transfer reference ${reference.slice(0, 64)}.`);
    res.status(200).json({
      object: 'bank_transfer_reference',
      reference: reference.replace(/[\s-]/g, '').toUpperCase(),
      account: accountObject(account),
    });
  });
}

export const contract = endpoint(
  'GET /admin/api/transfer-references/:reference',
  "The account a bank-transfer memo's reference belongs to",
  {
    tag: 'admin',
    auth: 'admin',
    200: consoleObject('BankTransferReference', { reference: z.string(), account: accountSchema }),
    404: 'not found',
  },
);

export const route: Route = { mount: '/admin/api', contracts: [contract], register };
