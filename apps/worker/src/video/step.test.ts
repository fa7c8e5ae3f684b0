import { runAgainAt } from './step';

describe('runAgainAt', () => {
  const now = 1_000_000;

  it('runs a delayed job after its delay, or at the deadline when that comes first', () => {
    expect(runAgainAt(now, 500, undefined)).toBe(now + 500);
    expect(runAgainAt(now, 500, new Date(now + 60_000))).toBe(now + 500);
    expect(runAgainAt(now, 500, new Date(now + 100))).toBe(now + 110);
  });

  it('keeps the whole delay once the deadline has passed, so a failed time-out is not retried at once', () => {
    // a run past the deadline whose time-out met a database fault: its backoff, not a time already past
    expect(runAgainAt(now, 800, new Date(now - 5_000))).toBe(now + 800);
    expect(runAgainAt(now, 800, new Date(now - 10))).toBe(now + 800);
  });
});
