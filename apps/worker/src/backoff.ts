/** Exponential backoff with equal jitter (between half the ceiling and the ceiling), at least `retryAfterMs` when the upstream asked for it. */
export function backoffDelay(
  attempt: number,
  opts: { baseMs: number; maxMs: number; retryAfterMs?: number },
): number {
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 20));
  const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
  return Math.max(Math.round(jittered), Math.min(opts.retryAfterMs ?? 0, opts.maxMs));
}
