import { ApiError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import { type RedisClient, redisKey } from '@mediagate/shared/queue';
import type { Response } from 'express';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { AccountsConfig } from '../config-accounts';
import { LeasedWindows, type WindowOutcome } from './rate-lease';

export interface RateLimitConfig {
  /** namespace of the counters in Redis (the deployment's QUEUE_PREFIX) */
  prefix: string;
  perKeyRpm: number;
  consoleRpm: number;
  authPerEmail: number;
  authPerIp: number;
  authWindowSeconds: number;
  /** the longest wait the per-account login backoff asks for, in seconds */
  loginBackoffMaxSeconds: number;
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
    loginBackoffMaxSeconds: config.AUTH_LOGIN_BACKOFF_MAX_S,
  };
}

export type AuthAction = 'login' | 'register' | 'verify' | 'reset' | 'reset-verify' | 'password-change';

/**
 * Fleet-wide counters in Redis (fixed windows), shared by every API replica: requests per minute
 * per API key and per console account (counted in leases, `LeasedWindows`), and login /
 * registration / code attempts per e-mail and per IP (rate-limiter-flexible, a round trip each).
 * While Redis is away, each replica counts in memory with a counter of the same size rather than
 * refusing or waving through all traffic.
 */
export class RateLimits {
  private readonly limiters = new Map<string, { shared: RateLimiterRedis; local: RateLimiterMemory }>();
  private readonly windows: LeasedWindows;

  constructor(
    private readonly redis: RedisClient,
    readonly config: RateLimitConfig,
    private readonly logger: Logger,
  ) {
    this.windows = new LeasedWindows(redis);
  }

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
    const outcome = await this.perMinuteOutcome(name, subject, points);
    res.setHeader('x-ratelimit-limit', String(points));
    if (!outcome) return; // counters unreachable: let the request through unmetered
    res.setHeader('x-ratelimit-remaining', String(outcome.remaining));
    res.setHeader('x-ratelimit-reset', String(Math.max(1, Math.ceil(outcome.msBeforeReset / 1000))));
    if (!outcome.allowed) {
      throw rateLimited(
        outcome.msBeforeReset,
        `Rate limit of ${points} requests per minute reached. Slow down and retry after the time in Retry-After.`,
      );
    }
  }

  /**
   * The per-minute windows of keys and console accounts count in leases (`LeasedWindows`: a busy
   * key costs a Redis round trip per lease, not per request); in memory while Redis is away.
   */
  private async perMinuteOutcome(
    name: 'key' | 'console',
    subject: string,
    points: number,
  ): Promise<WindowOutcome | null> {
    if (!this.redisAway()) {
      try {
        return await this.windows.consume(
          `rl:${redisKey(this.config.prefix, name)}:${subject}`,
          points,
          60_000,
        );
      } catch (err) {
        // as rate-limiter-flexible's insurance limiter did: a failed count is made in memory
        this.logger.warn({ err }, 'rate limiter unavailable; request counted in memory');
      }
    }
    const local = this.limiter(name, points, 60).local;
    try {
      const res = await local.consume(subject, 1);
      return { allowed: true, remaining: Math.max(0, res.remainingPoints), msBeforeReset: res.msBeforeNext };
    } catch (err) {
      if (err instanceof RateLimiterRes)
        return { allowed: false, remaining: 0, msBeforeReset: err.msBeforeNext };
      this.logger.warn({ err }, 'rate limiter unavailable; request not metered');
      return null;
    }
  }

  /**
   * Counts an attempt of `action` for the e-mail and for the source address (brute-force
   * protection); throws a 429 with Retry-After when either is over its limit. `ip` is the address
   * group (addressGroup: an IPv6 /64). A login and both steps of a password reset count the
   * e-mail per source address (the pair), so attempts from one address cannot lock the owner out
   * from another: a login's ceiling per account is `loginBackoff`, a reset code's its own tries.
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
    if (blocked) throw rateLimited(blocked.res.msBeforeNext, 'Too many attempts. Wait and try again later.');
  }

  /**
   * Session tokens that did not authenticate (guesses), per source address (its group: an IPv6
   * /64), against the per-address limit of the sign-in routes (`authPerIp` in
   * `authWindowSeconds`). `check` refuses (429 with Retry-After) an address already past it,
   * before its token is looked up, so a guess past the limit learns nothing; it counts nothing.
   * `count` counts one guess, and throws the 429 when that one is past the limit. A request that
   * presents no token is not a guess and touches neither.
   */
  readonly sessionGuesses = {
    check: async (ip: string): Promise<void> => {
      const l = this.sessionGuessLimiter();
      try {
        const r = await (this.redisAway() ? l.local : l.shared).get(ip);
        if (r && r.consumedPoints >= this.config.authPerIp) throw this.tooManyGuesses(r.msBeforeNext);
      } catch (err) {
        if (err instanceof ApiError) throw err;
        this.logger.warn({ err }, 'rate limiter unavailable; request not metered');
      }
    },
    count: async (ip: string): Promise<void> => {
      const o = await this.consume(this.sessionGuessLimiter(), ip);
      if (o && !o.allowed) throw this.tooManyGuesses(o.res.msBeforeNext);
    },
  };

  private sessionGuessLimiter() {
    return this.limiter('anon-session-ip', this.config.authPerIp, this.config.authWindowSeconds);
  }

  private tooManyGuesses(msBeforeNext: number): ApiError {
    return rateLimited(msBeforeNext, 'Too many requests from this address. Wait and try again later.');
  }

  /**
   * The per-account login backoff, checked before a password is. Attempts on an account from
   * addresses it has not signed in from are counted as they arrive (a right password takes its
   * count back; the count is forgotten `authWindowSeconds` after the last one). Past
   * `authPerEmail` of them, attempts are spaced: 1 s, doubling with each further one up to
   * `loginBackoffMaxSeconds`; an attempt inside the spacing is refused with 429 and Retry-After
   * before its password is checked, so guesses in parallel from many addresses get no more tries
   * than one patient guesser. Addresses (groups) the account signed in from within 30 days are
   * not spaced: the owner's usual place is never slowed by someone else's guesses, and from a new
   * place the owner waits at most `loginBackoffMaxSeconds`; the account is never locked. With
   * Redis unreachable the backoff is skipped (the per-address limits still count in memory).
   */
  async loginBackoff(email: string, ip: string): Promise<{ counted: boolean }> {
    if (this.redisAway()) return { counted: false };
    const now = Date.now();
    try {
      const known = await this.redis.zscore(this.loginKey('known', email), ip);
      if (known !== null && Number(known) > now - KNOWN_ADDRESS_MS) return { counted: false };
      const waitMs = Number(
        await this.redis.eval(
          BACKOFF_SCRIPT,
          1,
          this.loginKey('backoff', email),
          String(now),
          String(this.config.authPerEmail),
          String(this.config.loginBackoffMaxSeconds * 1000),
          String(this.config.authWindowSeconds * 1000),
        ),
      );
      if (waitMs > 0) {
        throw new ApiError(
          'rate_limit_exceeded',
          'Too many wrong passwords for this account lately: wait and try again.',
          undefined,
          { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) },
        );
      }
      return { counted: true };
    } catch (err) {
      if (err instanceof ApiError) throw err;
      this.logger.warn({ err }, 'login backoff unavailable; attempt not spaced');
      return { counted: false };
    }
  }

  /**
   * A right password for `email` from `ip` (its group): the attempt `loginBackoff` counted is
   * taken back, and the address is the account's from now on (not spaced by its backoff).
   */
  async loginSucceeded(email: string, ip: string, attempt: { counted: boolean }): Promise<void> {
    await this.clearAuthAttempts('login', email, ip);
    if (this.redisAway()) return;
    const known = this.loginKey('known', email);
    const tx = this.redis
      .multi()
      .zadd(known, Date.now(), ip)
      .zremrangebyrank(known, 0, -(KNOWN_ADDRESSES + 1))
      .pexpire(known, KNOWN_ADDRESS_MS);
    if (attempt.counted) tx.eval(UNCOUNT_SCRIPT, 1, this.loginKey('backoff', email));
    await tx
      .exec()
      .catch((err: unknown) => this.logger.warn({ err }, 'could not remember the sign-in address'));
  }

  private loginKey(kind: 'backoff' | 'known', email: string): string {
    return `rl:${redisKey(this.config.prefix, `login-${kind}`, email)}`;
  }

  private redisAway(): boolean {
    const status = this.redis.status;
    return status === 'reconnecting' || status === 'close' || status === 'end';
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

/**
 * Logins and password resets count per (e-mail, address); registration and its codes per e-mail
 * (mail bombing; a reset's mail is bounded by its cool-down instead).
 */
const PER_PAIR: ReadonlySet<AuthAction> = new Set(['login', 'reset', 'reset-verify']);
const emailKey = (action: AuthAction, email: string, ip: string): string =>
  PER_PAIR.has(action) ? `${email}|${ip}` : email;

/** How long, and how many, addresses an account signed in from stay exempt from its backoff. */
const KNOWN_ADDRESS_MS = 30 * 24 * 3_600_000;
const KNOWN_ADDRESSES = 10;

/**
 * One hash per account: `fails` (attempts from addresses not its own, each counted before its
 * password is checked, so a burst of parallel guesses is counted as it arrives; a right one is
 * taken back) and `next` (the earliest time of the next attempt), forgotten ARGV[4] ms after the
 * last attempt. Below ARGV[2]: go. Past it: refuse with the wait left when the next attempt is not
 * due yet, else take this turn and set the next one 2^(fails - free) seconds on (at most ARGV[3]
 * ms). Returns the wait in ms, 0 = go (counted).
 */
const BACKOFF_SCRIPT = `
local now = tonumber(ARGV[1])
local free = tonumber(ARGV[2])
local maxMs = tonumber(ARGV[3])
local fails = tonumber(redis.call('HGET', KEYS[1], 'fails') or '0')
if fails >= free then
  local nextAt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
  if now < nextAt then return nextAt - now end
  local spacing = math.min(maxMs, 1000 * 2 ^ math.min(fails - free, 30))
  redis.call('HSET', KEYS[1], 'next', now + spacing)
end
redis.call('HINCRBY', KEYS[1], 'fails', 1)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return 0
`;

/** Takes back one counted attempt (it had the right password). */
const UNCOUNT_SCRIPT = `
local fails = tonumber(redis.call('HGET', KEYS[1], 'fails') or '0')
if fails > 0 then redis.call('HINCRBY', KEYS[1], 'fails', -1) end
return 0
`;

function rateLimited(msBeforeNext: number, message: string): ApiError {
  const seconds = String(Math.max(1, Math.ceil(msBeforeNext / 1000)));
  return new ApiError('rate_limit_exceeded', message, undefined, { 'retry-after': seconds });
}
