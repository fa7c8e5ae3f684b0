import { type RedisClient, redisKey, takeSlot } from '@mediagate/shared/queue';

/**
 * how many times one take leaves a late slot unused before the call goes anyway (as the poll
 * budget does): an overloaded process keeps working rather than starve its calls
 */
const LATE_RETAKES = 2;
/** how late after its slot a call may still go */
const TOLERANCE_US = 50_000;

/**
 * Fleet-wide limits of upstream calls, per channel, kept in Redis so every worker replica shares
 * them. Calls are spaced evenly (GCRA on Redis's clock): with a limit of N per second, call slots
 * are at least (1 s + tolerance) / N apart, and a call goes at most the tolerance later than its
 * slot (a later one leaves its slot unused and takes another, up to LATE_RETAKES times). So no
 * sliding second holds more than N calls: not at a window's edge, and not when a whole fleet
 * comes back together after a Redis outage (a fixed window lets up to 2N through around its
 * edge). Only a process too overloaded to keep any slot sends late.
 *
 * `take` answers 0 when the call may go now (it may have waited up to `maxWaitMs` for its slot),
 * or how many milliseconds to wait before asking again (nothing reserved).
 */
export class UpstreamLimiter {
  private readonly spacing: Record<
    'submit' | 'poll',
    { intervalUs: number; toleranceUs: number } | undefined
  >;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    limits: { submitPerSecond: number; pollPerSecond: number },
    private readonly opts: {
      /** a slot further away than this is not waited for here: the caller waits (default 1 s) */
      maxWaitMs?: number;
      /** how a wait for a slot is slept (tests make it late) */
      sleep?: (ms: number) => Promise<void>;
      /** told of every slot left unused because the wait for it ended late */
      onLateSlot?: (kind: 'submit' | 'poll', channel: string) => void;
    } = {},
  ) {
    this.spacing = { submit: spacingOf(limits.submitPerSecond), poll: spacingOf(limits.pollPerSecond) };
  }

  take(kind: 'submit' | 'poll', channel: string): Promise<number> {
    const spacing = this.spacing[kind];
    if (!spacing) return Promise.resolve(0);
    return takeSlot(this.redis, redisKey(this.prefix, `upstream-${kind}`, channel), {
      ...spacing,
      maxWaitMs: this.opts.maxWaitMs ?? 1_000,
      retakes: LATE_RETAKES,
      late: 'send',
      sleep: this.opts.sleep,
      onLate: this.opts.onLateSlot && (() => this.opts.onLateSlot?.(kind, channel)),
    });
  }
}

/**
 * The spacing of `perSecond` calls: a call may go up to `toleranceUs` (50 ms: a busy event loop, a
 * slow answer from Redis) after its slot, and slots are `intervalUs` apart so that N + 1
 * consecutive calls, even the first one late by the whole tolerance, span at least one second.
 * The tolerance costs 1/21 of the limit.
 */
export function spacingOf(perSecond: number): { intervalUs: number; toleranceUs: number } | undefined {
  if (!(perSecond > 0)) return undefined;
  const toleranceUs = TOLERANCE_US;
  return { intervalUs: Math.ceil((1_000_000 + toleranceUs) / perSecond), toleranceUs };
}
