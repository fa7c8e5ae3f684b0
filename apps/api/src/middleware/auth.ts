import { authenticateApiKey, hashApiKey, type Principal, touchApiKey } from '@mediagate/shared/accounts';
import { createUsageRecorder, type UsageRecorder } from '@mediagate/shared/billing';
import type { Database } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { LruCache } from '@mediagate/shared/lru';
import type { RequestHandler } from 'express';
import { ipAllowed, normalizeIp } from '../ip-rules';
import type { RateLimits } from './rate-limit';
import { bindRequestLog } from './request-context';

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

/** One usage recorder per database, shared by every route of the app (so its batches fill). */
const usageRecorders = new WeakMap<Database, UsageRecorder>();

/**
 * How long a finished call's latency and outcome wait for others before they are written: at
 * 100 calls a second one statement carries ten calls, where each call was one statement of its
 * own (the answer has gone out, so no caller waits; a shutdown drains at once).
 */
const USAGE_LINGER_MS = 100;

/** Waits until the latencies and outcomes of the calls answered so far are written (shutdown). */
export async function drainUsageRecords(database: Database): Promise<void> {
  await usageRecorders.get(database)?.drain();
}

/** Key lookups on their way, by key hash, per key cache (shared by every route's middleware). */
const lookupsInFlight = new WeakMap<LruCache<string, Principal>, Map<string, Promise<Principal | null>>>();

/**
 * The principal of a key not in the cache, looked up once however many of its requests arrive
 * meanwhile: when a busy key's entry expires, its requests wait for one query instead of each
 * sending its own. The found principal is cached.
 */
function lookUpOnce(deps: ApiKeyAuthDeps, cacheKey: string, presented: string): Promise<Principal | null> {
  const cache = deps.authCache!;
  let lookups = lookupsInFlight.get(cache);
  if (!lookups) {
    lookups = new Map();
    lookupsInFlight.set(cache, lookups);
  }
  let lookup = lookups.get(cacheKey);
  if (!lookup) {
    const inFlight = lookups;
    lookup = authenticateApiKey(deps.database.db, presented)
      .then((principal) => {
        if (principal) cache.set(cacheKey, principal);
        return principal;
      })
      .finally(() => inFlight.delete(cacheKey));
    lookups.set(cacheKey, lookup);
  }
  return lookup;
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
export function requireApiKey(deps: ApiKeyAuthDeps): RequestHandler {
  const { db } = deps.database;
  let usage = usageRecorders.get(deps.database);
  if (!usage) {
    usage = createUsageRecorder(db, (err) => deps.logger.warn({ err }, 'could not record the call latency'), {
      lingerMs: USAGE_LINGER_MS,
    });
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
      principal = cacheKey
        ? await lookUpOnce(deps, cacheKey, presented)
        : await authenticateApiKey(db, presented);
    }
    if (!principal) return next(new ApiError('invalid_api_key', 'Incorrect API key provided.'));
    req.principal = principal;
    bindRequestLog(req, { accountId: principal.accountId });
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
