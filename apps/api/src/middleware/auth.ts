import { authenticateApiKey, hashApiKey, type Principal, touchApiKey } from '@mediagate/shared/accounts';
import { createUsageRecorder, type UsageRecorder } from '@mediagate/shared/billing';
import type { Database } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { LruCache } from '@mediagate/shared/lru';
import type { RequestHandler } from 'express';
import { ipAllowed, normalizeIp } from '../ip-rules';
import type { RateLimits } from './rate-limit';

declare global {
  namespace Express {
    interface Request {
      principal?: Principal;
    }
  }
}

/** The caller's principal; only valid behind `requireApiKey`. */
export function principalOf(req: { principal?: Principal }): Principal {
  if (!req.principal) throw new ApiError('invalid_api_key', 'Missing API key.');
  return req.principal;
}

/** What API-key authentication needs from the app's dependencies. */
export interface ApiKeyAuthDeps {
  database: Database;
  rateLimits: RateLimits;
  logger: Logger;
  /**
   * Principals of recently seen keys, by key hash, for a few seconds (AUTH_CACHE_TTL_MS). A key
   * or account change is announced to every replica, which drops the entries at once
   * (listenForKeyChanges); the TTL bounds a stale entry only while Redis is unreachable. An
   * expired key is refused from its expiry on.
   */
  authCache?: LruCache<string, Principal>;
}

/**
 * Requires `Authorization: Bearer sk-...` naming an active, unexpired key of an active account.
 * Every such failure (missing, malformed, unknown, disabled, deleted, expired) is the same 401
 * `invalid_api_key`, so the answer tells an attacker nothing about which keys exist. Then:
 * a caller outside the key's IP allow-list gets 403 `permission_denied`; the key's requests per
 * minute are counted fleet-wide (x-ratelimit-* headers on every answer, 429 past the limit).
 * Costs one indexed query, or none while the key is in `authCache` (kept in step with key changes
 * on every replica; see announceKeyChange), plus, at most once a minute per key, a last-used update off the request path. On a POST (a
 * billed call) the usage record gets the answer's latency and outcome once it is sent.
 */
/** One usage recorder per database, shared by every route of the app (so its batches fill). */
const usageRecorders = new WeakMap<Database, UsageRecorder>();

/** Waits until the latencies and outcomes of the calls answered so far are written (shutdown). */
export async function drainUsageRecords(database: Database): Promise<void> {
  await usageRecorders.get(database)?.drain();
}

export function requireApiKey(deps: ApiKeyAuthDeps): RequestHandler {
  const { db } = deps.database;
  let usage = usageRecorders.get(deps.database);
  if (!usage) {
    usage = createUsageRecorder(db, (err) => deps.logger.warn({ err }, 'could not record the call latency'));
    usageRecorders.set(deps.database, usage);
  }
  return async (req, res, next) => {
    const started = Date.now();
    const header = req.headers.authorization;
    if (!header) {
      return next(
        new ApiError(
          'invalid_api_key',
          'Missing API key. Send it as the header Authorization: Bearer <API_KEY>.',
        ),
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const presented = match?.[1];
    const cacheKey = presented && deps.authCache ? hashApiKey(presented) : undefined;
    let principal = cacheKey ? (deps.authCache?.get(cacheKey) ?? null) : null;
    if (principal?.expiresAt && principal.expiresAt.getTime() <= Date.now()) principal = null;
    if (!principal && presented) {
      principal = await authenticateApiKey(db, presented);
      if (principal && cacheKey) deps.authCache?.set(cacheKey, principal);
    }
    if (!principal) return next(new ApiError('invalid_api_key', 'Incorrect API key provided.'));
    req.principal = principal;
    req.log?.setBindings?.({ accountId: principal.accountId });
    try {
      await deps.rateLimits.perMinute(
        res,
        'key',
        principal.keyId,
        principal.rpmLimit ?? deps.rateLimits.config.perKeyRpm,
      );
    } catch (err) {
      return next(err);
    }
    if (principal.allowedIps && !ipAllowed(req.ip ?? '', principal.allowedIps)) {
      return next(
        new ApiError(
          'permission_denied',
          `This API key may not be used from ${normalizeIp(req.ip) || 'this address'}.`,
        ),
      );
    }
    const stale = !principal.lastUsedAt || Date.now() - principal.lastUsedAt.getTime() > 60_000;
    if (stale) {
      principal.lastUsedAt = new Date(); // a cached principal must not touch the key on every request
      touchApiKey(db, principal.keyId).catch((err: unknown) =>
        deps.logger.warn({ err }, 'could not update the key last-used time'),
      );
    }
    if (req.method === 'POST') {
      res.once('close', () => {
        usage.record({
          accountId: principal.accountId,
          requestId: String(req.id),
          latencyMs: Date.now() - started,
          ok: res.statusCode < 400,
        });
      });
    }
    next();
  };
}
