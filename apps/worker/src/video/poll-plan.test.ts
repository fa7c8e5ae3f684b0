import { summarize } from '@mediagate/shared/tasks';
import { nextPollDelay, type PollPlanConfig } from './poll-plan';

/** durations spread evenly over [fromS, toS] seconds, one sample per second */
const spread = (fromS: number, toS: number) => {
  const hash: Record<string, string> = {};
  for (let s = fromS; s <= toS; s++) hash[`b${s}`] = '1';
  return summarize(hash, 1_000);
};

const config: PollPlanConfig = {
  fallbackMs: 15_000,
  minIntervalMs: 1_000,
  maxIntervalMs: 60_000,
  pollsPerSpread: 4,
  firstQuantile: 0.05,
};

describe('nextPollDelay', () => {
  it('uses the fallback interval while nothing is learned', () => {
    expect(nextPollDelay(0, null, config)).toBe(15_000);
    expect(nextPollDelay(500_000, undefined, config)).toBe(15_000);
    expect(nextPollDelay(0, null, { ...config, fallbackMs: 10_000_000 })).toBe(60_000);
  });

  it('waits until completions become likely, then polls through the likely window', () => {
    const d = spread(30, 180); // p5 ≈ 37.5 s, p95 ≈ 172.5 s
    const first = nextPollDelay(0, d, config);
    expect(first).toBeGreaterThan(36_000);
    expect(first).toBeLessThan(39_000);
    // inside the window: (p95 - p5) / 4 ≈ 34 s apart
    const inside = nextPollDelay(60_000, d, config);
    expect(inside).toBeGreaterThan(32_000);
    expect(inside).toBeLessThan(36_000);
    // the last poll of the window lands at about p95 + spacing at most
    expect(nextPollDelay(170_000, d, config)).toBeLessThanOrEqual(40_000);
  });

  it('backs off once a task is later than most, up to the maximum interval', () => {
    const d = spread(30, 60);
    const a = nextPollDelay(70_000, d, config);
    const b = nextPollDelay(120_000, d, config);
    const c = nextPollDelay(3_600_000, d, config);
    expect(b).toBeGreaterThan(a);
    expect(c).toBe(60_000);
  });

  it('with a batch query finding most completions, plans the first poll at the 95th percentile', () => {
    const d = spread(30, 180);
    const first = nextPollDelay(0, d, { ...config, firstQuantile: 0.95, maxIntervalMs: 300_000 });
    expect(first).toBeGreaterThan(170_000);
    expect(first).toBeLessThan(175_000);
  });

  it('never plans outside [min, max], whatever the durations and the age (the starvation bound)', () => {
    const shapes = [spread(0, 0), spread(1, 2), spread(30, 180), spread(600, 3_000), spread(0, 3_599)];
    for (const d of shapes) {
      for (const cfg of [config, { ...config, firstQuantile: 0.95 }, { ...config, pollsPerSpread: 1 }]) {
        for (let elapsed = 0; elapsed <= 4_000_000; elapsed += 7_919) {
          const delay = nextPollDelay(elapsed, d, cfg);
          expect(delay).toBeGreaterThanOrEqual(cfg.minIntervalMs);
          expect(delay).toBeLessThanOrEqual(cfg.maxIntervalMs);
        }
      }
    }
  });
});
