import { ApiError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import { type RedisClient, redisKey } from '@mediagate/shared/queue';
import type { Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AccountsConfig } from '../config-accounts';

export interface RateLimitConfig {
  /** namespace of the counters in Redis (the deployment's QUEUE_PREFIX) */
  prefix: string;
  perKeyRpm: number;
  consoleRpm: number;
  authPerEmail: number;
  authPerIp: number;
  authWindowSeconds: number;
}

/** The rate-limit settings of the environment; counters live under the deployment's QUEUE_PREFIX. */
export function rateLimitConfig(config: AccountsConfig & { QUEUE_PREFIX: string }): RateLimitConfig {
  return {
    prefix: config.QUEUE_PREFIX,
    perKeyRpm: config.RATE_LIMIT_RPM,
    consoleRpm: config.CONSOLE_RATE_LIMIT_RPM,
    authPerEmail: config.AUTH_LIMIT_PER_EMAIL,
    authPerIp: config.AUTH_LIMIT_PER_IP,
    authWindowSeconds: config.AUTH_LIMIT_WINDOW_S,
  };
}

export type AuthAction = 'login' | 'register' | 'verify' | 'reset' | 'reset-verify' | 'password-change';

/**
 * Fleet-wide counters in Redis (fixed windows, rate-limiter-flexible), shared by every API
 * replica: requests per minute per API key, per console account, and login / registration /
 * code attempts per e-mail and per IP. When Redis fails, each replica falls back to an
 * in-memory counter of the same size rather than refusing or waving through all traffic.
 */
export class RateLimits {
  private readonly limiters = new Map<string, { shared: RateLimiterRedis; local: RateLimiterMemory }>();

  constructor(
    private readonly redis: RedisClient,
    readonly config: RateLimitConfig,
    private readonly logger: Logger,
  ) {}

  private limiter(name: string, points: number, durationSeconds: number) {
    // One limiter per size; limiters of one name share their Redis counters, so a changed
    // per-account limit applies to the count already made in the current window.
    const id = `${name}:${points}:${durationSeconds}`;
    let l = this.limiters.get(id);
    if (!l) {
      const keyPrefix = `rl:${redisKey(this.config.prefix, name)}`;
      const local = new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds });
      l = {
        shared: new RateLimiterRedis({
          storeClient: this.redis,
          keyPrefix,
          points,
          duration: durationSeconds,
          insuranceLimiter: local,
        }),
        local,
      };
      this.limiters.set(id, l);
    }
    return l;
  }

  /**
   * Counts one request of `subject` against `points` per minute, writes the x-ratelimit-*
   * headers, and throws a 429 `rate_limit_exceeded` (with Retry-After) past the limit.
   */
  async perMinute(res: Response, name: 'key' | 'console', subject: string, points: number): Promise<void> {
    const outcome = await this.consume(this.limiter(name, points, 60), subject);
    res.setHeader('x-ratelimit-limit', String(points));
    if (!outcome) return; // counters unreachable: let the request through unmetered
    res.setHeader('x-ratelimit-remaining', String(Math.max(0, outcome.res.remainingPoints)));
    res.setHeader('x-ratelimit-reset', String(Math.max(1, Math.ceil(outcome.res.msBeforeNext / 1000))));
    if (!outcome.allowed) {
      throw rateLimited(
        outcome.res,
        `Rate limit of ${points} requests per minute reached. Slow down and retry after the time in Retry-After.`,
      );
    }
  }

  /**
   * Counts an attempt of `action` for the e-mail and for the IP (brute-force protection);
   * throws a 429 with Retry-After when either is over its limit. A login counts the e-mail per
   * source address (the pair), so failures from one address cannot lock the owner out from
   * another: whoever does not share the attacker's address still gets in with the password.
   */
  async authAttempt(action: AuthAction, email: string, ip: string): Promise<void> {
    const window = this.config.authWindowSeconds;
    const [byEmail, byIp] = await Promise.all([
      this.consume(
        this.limiter(`auth-${action}-email`, this.config.authPerEmail, window),
        emailKey(action, email, ip),
      ),
      this.consume(this.limiter(`auth-${action}-ip`, this.config.authPerIp, window), ip),
    ]);
    const blocked = [byEmail, byIp].find((o) => o && !o.allowed);
    if (blocked) throw rateLimited(blocked.res, 'Too many attempts. Wait and try again later.');
  }

  /** Forgets the failed attempts of `action` for the e-mail from this address (after a successful login). */
  async clearAuthAttempts(action: AuthAction, email: string, ip: string): Promise<void> {
    await this.limiter(`auth-${action}-email`, this.config.authPerEmail, this.config.authWindowSeconds)
      .shared.delete(emailKey(action, email, ip))
      .catch(() => {});
  }

  private async consume(
    limiter: { shared: RateLimiterRedis; local: RateLimiterMemory },
    key: string,
  ): Promise<{ allowed: boolean; res: RateLimiterRes } | null> {
    // While Redis is away, count in memory at once instead of waiting in ioredis' offline queue,
    // so an outage does not slow every request down.
    const status = this.redis.status;
    const away = status === 'reconnecting' || status === 'close' || status === 'end';
    try {
      return { allowed: true, res: await (away ? limiter.local : limiter.shared).consume(key, 1) };
    } catch (err) {
      if (err instanceof RateLimiterRes) return { allowed: false, res: err };
      this.logger.warn({ err }, 'rate limiter unavailable; request not metered');
      return null;
    }
  }
}

/** Login attempts count per (e-mail, address); registration and codes per e-mail (mail bombing). */
const emailKey = (action: AuthAction, email: string, ip: string): string =>
  action === 'login' ? `${email}|${ip}` : email;

function rateLimited(res: RateLimiterRes, message: string): ApiError {
  const seconds = String(Math.max(1, Math.ceil(res.msBeforeNext / 1000)));
  return new ApiError('rate_limit_exceeded', message, undefined, { 'retry-after': seconds });
}
