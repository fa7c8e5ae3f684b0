import { refuseUnaffordable } from '@mediagate/shared/billing';
import type { Database } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import type { Request, RequestHandler } from 'express';
import { principalOf } from './auth';
import { admittedBodies, bodyGrowth, closeAfterAnswer } from './body';

/**
 * The bytes of large request bodies this replica holds at once, in all and per account. A body is
 * counted until its answer is sent, since the parsed request lives as long as the call: one with a
 * declared length from before its first byte is read (that length, which the JSON reader may then
 * hold at once), one sent chunked by the bytes received or held so far (the JSON reader's buffer, at
 * most twice what arrived), grown as each chunk arrives.
 */
export class BodyBudget {
  private readonly perAccount = new Map<string, number>();
  private total = 0;

  constructor(readonly limits: { perAccountBytes: number; totalBytes: number }) {}

  /** Bytes held now (all accounts, or one). */
  held(accountId?: string): number {
    return accountId === undefined ? this.total : (this.perAccount.get(accountId) ?? 0);
  }

  /**
   * Takes `bytes` for the account: a lease (grown as a body of unknown length arrives, released
   * once its answer is sent), or which cap it would pass.
   */
  take(accountId: string, bytes: number): BodyLease | 'account' | 'replica' {
    const over = this.room(accountId, bytes);
    if (over) return over;
    this.add(accountId, bytes);
    let held = bytes;
    let released = false;
    return {
      grow: (to) => {
        if (released || to <= held) return undefined;
        const more = to - held;
        const refused = this.room(accountId, more);
        if (refused) return refused;
        this.add(accountId, more);
        held = to;
        return undefined;
      },
      release: () => {
        if (released) return;
        released = true;
        this.add(accountId, -held);
      },
    };
  }

  private room(accountId: string, bytes: number): 'account' | 'replica' | undefined {
    if ((this.perAccount.get(accountId) ?? 0) + bytes > this.limits.perAccountBytes) return 'account';
    if (this.total + bytes > this.limits.totalBytes) return 'replica';
    return undefined;
  }

  private add(accountId: string, bytes: number): void {
    this.total += bytes;
    const mine = (this.perAccount.get(accountId) ?? 0) + bytes;
    if (mine <= 0) this.perAccount.delete(accountId);
    else this.perAccount.set(accountId, mine);
  }
}

/** Bytes of one request body held in a BodyBudget. */
export interface BodyLease {
  /** holds `to` bytes in all; which cap that would pass (nothing changed then), or undefined */
  grow(to: number): 'account' | 'replica' | undefined;
  release(): void;
}

/**
 * A body of at most this many bytes (declared) is read before the payment check, so that the route
 * names a model the key may not use before the money (what any request without inline images
 * is); a larger one, or one of unknown length, only once the caller can pay.
 */
const SMALL_BODY_BYTES = 64 * 1024;

/** How long a caller refused for bodies in flight is asked to wait. */
const BUSY_RETRY_AFTER_S = 5;

/** The 429 of a body that would pass the account's or the replica's cap. */
function busy(budget: BodyBudget, accountId: string, cap: 'account' | 'replica'): ApiError {
  const { perAccountBytes, totalBytes } = budget.limits;
  const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
  return new ApiError(
    'rate_limit_exceeded',
    cap === 'account'
      ? `This account's requests in progress on this server already carry ${mb(budget.held(accountId))} of bodies (at most ${mb(perAccountBytes)}); retry once one has been answered.`
      : `This server is receiving ${mb(budget.held())} of request bodies (at most ${mb(totalBytes)}); retry shortly.`,
    undefined,
    { 'retry-after': String(BUSY_RETRY_AFTER_S) },
  );
}

/**
 * What a route that takes a large body (images, videos) checks before reading a byte of it, behind
 * `requireApiKey` (key, account, rate limit, IP list), in this order:
 *
 * 1. the key may use some model of the route (`leastPrice` answers null when it may use none): 403;
 * 2. for a body over SMALL_BODY_BYTES or of unknown length, the account's balance and the key's
 *    quota cover the cheapest call the route makes (`leastPrice` of the models the key may use),
 *    unless `skipPaymentCheck` says the request may be answered without a charge (an idempotent
 *    replay): 402;
 * 3. the body fits this replica's budget of bodies in flight, for the account and in all: 429
 *    `rate_limit_exceeded` with Retry-After, naming which. A declared length is counted at once;
 *    a body sent chunked as it arrives, refused (the rest unread) the moment it would pass a cap.
 *
 * A refusal is answered at once and the connection closed after it, the body never read. The
 * route's own checks (the model named, its price) still follow the parse.
 */
export function admitBody(
  deps: { database: Database; bodyBudget: BodyBudget },
  opts: {
    limitBytes: number;
    /** the least price of a call to this route with the models `allowedModels` permits; null when none */
    leastPrice: (allowedModels: readonly string[] | null) => number | null;
    /** what the route calls its models in a refusal ("image model") */
    models: string;
    skipPaymentCheck?: (req: Request) => boolean;
  },
): RequestHandler {
  return async (req, res, next) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    const chunked = req.headers['transfer-encoding'] !== undefined;
    // no body, or one over the limit (parseBody refuses it with 413 before reading it)
    if ((!chunked && !(declared > 0)) || declared > opts.limitBytes) return next();
    const refuse = (err: unknown) => {
      closeAfterAnswer(req, res);
      next(err);
    };
    try {
      const principal = principalOf(req);
      const price = opts.leastPrice(principal.allowedModels ?? null);
      if (price === null) {
        throw new ApiError('permission_denied', `This API key may not use any ${opts.models}.`, 'model');
      }
      const small = !chunked && declared <= SMALL_BODY_BYTES;
      if (!small && !opts.skipPaymentCheck?.(req)) {
        await refuseUnaffordable(deps.database.db, principal, price);
      }
      // a body sent chunked is counted as it arrives or is held (parseBody refuses it when a cap is passed)
      const lease = deps.bodyBudget.take(principal.accountId, declared > 0 ? declared : 0);
      if (lease === 'account' || lease === 'replica') throw busy(deps.bodyBudget, principal.accountId, lease);
      res.once('close', lease.release);
      if (declared > 0) admittedBodies.add(req);
      else {
        bodyGrowth.set(req, (received) => {
          const over = lease.grow(received);
          return over && busy(deps.bodyBudget, principal.accountId, over);
        });
      }
    } catch (err) {
      return refuse(err);
    }
    next();
  };
}

/** This replica's budget of bodies in flight, as configured (BODY_IN_FLIGHT_BYTES*). */
export function bodyBudgetFor(config: {
  BODY_IN_FLIGHT_BYTES: number;
  BODY_IN_FLIGHT_BYTES_PER_ACCOUNT: number;
}): BodyBudget {
  return new BodyBudget({
    perAccountBytes: config.BODY_IN_FLIGHT_BYTES_PER_ACCOUNT,
    totalBytes: config.BODY_IN_FLIGHT_BYTES,
  });
}

/**
 * `leastPrice` for `admitBody` over priced models: the cheapest of those the key may use, or null
 * when it may use none of them.
 */
export function leastPriceAmong(
  models: ReadonlyArray<{ id: string; price: number }>,
): (allowedModels: readonly string[] | null) => number | null {
  return (allowed) => {
    const usable = allowed ? models.filter((m) => allowed.includes(m.id)) : models;
    return usable.length === 0 ? null : Math.min(...usable.map((m) => m.price));
  };
}
