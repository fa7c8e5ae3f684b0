import { ApiError, findAccountByTransferReference, getAccountView } from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireAdmin } from '../middleware/session';
import { accountObject } from './console-views';

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
