import type { RedisClient } from '@mediagate/shared/queue';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Fleet-wide budgets for upstream calls, per channel, kept in Redis so every worker replica
 * shares them (rate-limiter-flexible: atomic, well tested, one round trip per call). `take`
 * answers 0 when the call may go now, or how many milliseconds to wait.
 */
export class UpstreamLimiter {
  private readonly submit?: RateLimiterRedis;
  private readonly poll?: RateLimiterRedis;

  constructor(
    redis: RedisClient,
    prefix: string,
    limits: { submitPerSecond: number; pollPerSecond: number },
  ) {
    if (limits.submitPerSecond > 0) {
      this.submit = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:upstream-submit`,
        points: limits.submitPerSecond,
        duration: 1,
      });
    }
    if (limits.pollPerSecond > 0) {
      this.poll = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:upstream-poll`,
        points: limits.pollPerSecond,
        duration: 1,
      });
    }
  }

  take(kind: 'submit' | 'poll', channel: string): Promise<number> {
    const limiter = kind === 'submit' ? this.submit : this.poll;
    if (!limiter) return Promise.resolve(0);
    return limiter.consume(channel).then(
      () => 0,
      (res: unknown) => {
        if (res instanceof RateLimiterRes) return Math.max(1, res.msBeforeNext);
        throw res;
      },
    );
  }
}
