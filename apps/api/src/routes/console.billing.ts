import { getAccountView } from '@mediagate/shared/accounts';
import { listUsage, spendByDayAndModel } from '@mediagate/shared/billing';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { requireSession, sessionOf } from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import { ledgerPage, ledgerPageSchema, ledgerQuery } from './account-views';
import { cursorPage, pageQuery, toSeconds, unixSeconds, usd } from './console-views';

export const usageQuery = pageQuery.extend({ model: z.string().trim().min(1).max(100).optional() });

const validTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};
export const spendQuery = z.object({
  days: z.coerce.number().int().min(1).max(366).default(30),
  tz: z
    .string()
    .max(64)
    .refine(validTimeZone, { message: 'must be an IANA time zone such as Asia/Shanghai' })
    .default('UTC'),
});

/**
 * GET /console/api/usage/summary?days=30&tz=Asia/Shanghai: spend (charged minus refunded) and
 * calls per day and model over the last `days` days, days counted in `tz`.
 */
function registerSpend(router: Router, deps: ApiDeps): void {
  router.get('/usage/summary', requireSession(deps), async (req, res) => {
    const q = spendQuery.parse(req.query);
    const since = new Date(Date.now() - q.days * 86_400_000);
    const rows = await spendByDayAndModel(deps.database.db, sessionOf(req).accountId, {
      since,
      timeZone: q.tz,
    });
    res.status(200).json({
      object: 'usage_summary',
      days: q.days,
      time_zone: q.tz,
      since: toSeconds(since),
      data: rows.map((r) => ({
        day: r.day,
        model: r.model,
        calls: r.calls,
        spent_usd: usd(r.spentMicroUsd),
        spent_micro_usd: r.spentMicroUsd,
      })),
    });
  });
}

/**
 * GET /console/api/balance, GET /console/api/ledger (grants, top-ups, bonuses, charges,
 * refunds, adjustments) and GET /console/api/usage (every billed call), both newest first,
 * paged with `limit` and `before` = the previous page's `next_cursor`, filtered by `kind`
 * (ledger) or `model` (usage); GET /console/api/usage/summary (spend per day and model).
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  registerSpend(router, deps);

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
    const q = ledgerQuery.parse(req.query);
    res.status(200).json(await ledgerPage(db, sessionOf(req).accountId, q));
  });

  router.get('/usage', requireSession(deps), async (req, res) => {
    const q = usageQuery.parse(req.query);
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
        video: u.taskId ? videoUsage(deps, u) : null,
      })),
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
    });
  });
}

/**
 * What a video task's row stands for: the video (seconds and resolution of its model) and how long
 * the task ran, from its start to its end (null while it runs or when it never started). Its
 * `units` (1) and `latency_ms` (the create call's answer) say nothing of the video.
 */
function videoUsage(
  deps: Pick<ApiDeps, 'catalog'>,
  u: { model: string | null; taskStartedAt: Date | null; taskCompletedAt: Date | null },
) {
  const model = u.model ? deps.catalog.video(u.model) : undefined;
  return {
    duration_s: model?.durationSeconds ?? null,
    resolution: model?.resolution ?? null,
    processing_ms:
      u.taskStartedAt && u.taskCompletedAt ? u.taskCompletedAt.getTime() - u.taskStartedAt.getTime() : null,
  };
}

const balance = consoleObject('Balance', { balance_usd: z.number(), balance_micro_usd: z.number().int() });

const usageRecord = consoleObject('UsageRecord', {
  id: z.string(),
  created_at: unixSeconds.nullable(),
  ref: z.string(),
  token: z
    .object({ id: z.string(), name: z.string().nullable(), display_prefix: z.string().nullable() })
    .nullable(),
  model: z.string().nullable(),
  units: z.number().int(),
  cost_usd: z.number(),
  cost_micro_usd: z.number().int(),
  refunded_usd: z.number(),
  refunded_micro_usd: z.number().int(),
  outcome: z.string(),
  latency_ms: z
    .number()
    .int()
    .nullable()
    .describe("the call's answer time; for a video task, its create call's (see video.processing_ms)"),
  video: z
    .object({
      duration_s: z.number().nullable(),
      resolution: z.string().nullable(),
      processing_ms: z
        .number()
        .int()
        .nullable()
        .describe('from the task start to its end; null until it ends'),
    })
    .nullable()
    .describe("a video task's row: the video it stands for (units is 1) and how long the task took"),
});

const spendSummary = consoleObject('UsageSummary', {
  days: z.number().int(),
  time_zone: z.string(),
  since: unixSeconds,
  data: z.array(
    z.object({
      day: z.string().describe('YYYY-MM-DD in time_zone'),
      model: z.string().nullable(),
      calls: z.number().int(),
      spent_usd: z.number(),
      spent_micro_usd: z.number().int(),
    }),
  ),
});

const op = endpoints({ tag: 'console', auth: 'session' });

export const contracts: RouteContract[] = [
  op('GET /console/api/usage/summary', 'Spend and calls per day and model over the last days', {
    query: spendQuery,
    200: spendSummary,
  }),
  op('GET /console/api/balance', 'Balance', { 200: balance }),
  op('GET /console/api/ledger', 'Ledger, newest first', {
    query: ledgerQuery,
    200: ledgerPageSchema,
  }),
  op('GET /console/api/usage', 'Usage log of billed calls, newest first', {
    query: usageQuery,
    200: cursorPage(usageRecord, 'UsagePage'),
  }),
];

export const route: Route = { mount: '/console/api', contracts, register };
