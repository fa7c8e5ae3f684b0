import { z } from 'zod';

/** The delays between attempts after the first one: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses "5s,5m,30m" (units ms, s, m, h, d; a bare number is milliseconds). Throws on a bad item. */
export function parseDurationList(text: string): number[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(item);
      if (!m) throw new Error(`'${item}' is not a duration (e.g. 500ms, 5s, 5m, 2h)`);
      return Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']!);
    });
}

/** A zod field for a duration list read from the environment. */
export const durationListFromEnv = (def: string) =>
  z
    .string()
    .default(def)
    .transform((s, ctx) => {
      try {
        return parseDurationList(s);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });

export interface RetryPolicy {
  /** delay before retry n (index n-1); its length is the number of retries after the first attempt */
  scheduleMs: readonly number[];
  /** each delay is spread uniformly over ±jitter (0.2 = ±20 %) so failed deliveries do not retry in lock-step */
  jitter: number;
  /** a Retry-After longer than this is cut to it */
  retryAfterMaxMs: number;
}

export type AttemptVerdict =
  | { kind: 'succeeded' }
  | { kind: 'failed'; reason: string }
  | { kind: 'retry'; delayMs: number };

/**
 * What follows an attempt. 2xx: delivered. 410 Gone: stop at once. An address the SSRF guard
 * refused: stop at once (it is policy, not a passing fault). Anything else (other status, no
 * answer): retry on the schedule with jitter; on 429 and 503 a Retry-After is honoured, never
 * sooner than the first step of the schedule and never later than `retryAfterMaxMs`. `attemptsInRound`
 * counts the attempt just made; past the end of the schedule the delivery has failed.
 */
export function judgeAttempt(
  policy: RetryPolicy,
  attemptsInRound: number,
  result: { statusCode: number | null; retryAfterMs?: number; blocked?: boolean },
  random: () => number = Math.random,
): AttemptVerdict {
  const { statusCode } = result;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: 'succeeded' };
  if (statusCode === 410) return { kind: 'failed', reason: 'endpoint answered 410 Gone' };
  if (result.blocked) return { kind: 'failed', reason: 'destination address not allowed' };
  const step = policy.scheduleMs[attemptsInRound - 1];
  if (step === undefined) return { kind: 'failed', reason: 'retry schedule exhausted' };
  const jittered = Math.max(0, Math.round(step * (1 + policy.jitter * (2 * random() - 1))));
  if ((statusCode === 429 || statusCode === 503) && result.retryAfterMs !== undefined) {
    const floor = policy.scheduleMs[0] ?? 0;
    return {
      kind: 'retry',
      delayMs: Math.min(Math.max(result.retryAfterMs, floor), policy.retryAfterMaxMs),
    };
  }
  return { kind: 'retry', delayMs: jittered };
}
