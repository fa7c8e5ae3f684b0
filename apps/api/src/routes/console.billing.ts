import { ApiError, getAccountView, listLedger, listUsage } from '@mediagate/shared';
import type { Router } from 'express';
import type { ApiDeps } from '../deps';
import { requireSession, sessionOf } from '../middleware/session';
import { pageQuery, toSeconds, usd } from './console-views';

/**
 * GET /console/api/balance, GET /console/api/ledger (grants, top-ups, bonuses, charges,
 * refunds, adjustments) and GET /console/api/usage (every billed call), both newest first,
 * paged with `limit` and `before` = the previous page's `next_cursor`.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;

  router.get('/balance', requireSession(deps), async (req, res) => {
    const account = await getAccountView(db, sessionOf(req).accountId);
    if (!account) throw new ApiError('invalid_session', 'The account no longer exists.');
    res.status(200).json({
      object: 'balance',
      balance_usd: usd(account.balanceMicroUsd),
      balance_micro_usd: account.balanceMicroUsd,
    });
  });

  router.get('/ledger', requireSession(deps), async (req, res) => {
    const q = pageQuery.parse(req.query);
    const page = await listLedger(db, sessionOf(req).accountId, q);
    res.status(200).json({
      object: 'list',
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
    });
  });

  router.get('/usage', requireSession(deps), async (req, res) => {
    const q = pageQuery.parse(req.query);
    const page = await listUsage(db, sessionOf(req).accountId, q);
    res.status(200).json({
      object: 'list',
      data: page.data.map((u) => ({
        object: 'usage_record',
        id: String(u.id),
        created_at: toSeconds(u.createdAt),
        ref: u.ref,
        token: u.apiKeyId ? { id: u.apiKeyId, name: u.keyName, display_prefix: u.keyPrefix } : null,
        model: u.model,
        units: u.units,
        cost_usd: usd(u.costMicroUsd),
        cost_micro_usd: u.costMicroUsd,
        refunded_usd: usd(u.refundedMicroUsd),
        refunded_micro_usd: u.refundedMicroUsd,
        outcome: u.outcome,
        latency_ms: u.latencyMs,
      })),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
    });
  });
}
