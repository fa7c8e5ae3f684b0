import { backoffDelay } from './backoff';

describe('backoffDelay', () => {
  it('grows exponentially within the cap, with jitter, and honours Retry-After', () => {
    for (let attempt = 1; attempt < 12; attempt++) {
      const ceiling = Math.min(60_000, 1_000 * 2 ** attempt);
      const d = backoffDelay(attempt, { baseMs: 1_000, maxMs: 60_000 });
      expect(d).toBeGreaterThanOrEqual(ceiling / 2);
      expect(d).toBeLessThanOrEqual(ceiling);
    }
    expect(backoffDelay(1, { baseMs: 1_000, maxMs: 60_000, retryAfterMs: 30_000 })).toBe(30_000);
    expect(backoffDelay(1, { baseMs: 1_000, maxMs: 60_000, retryAfterMs: 3_600_000 })).toBe(60_000);
  });
});
