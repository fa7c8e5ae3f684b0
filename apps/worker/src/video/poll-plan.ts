import type { DurationSummary } from '@mediagate/shared/tasks';

export interface PollPlanConfig {
  /** the interval used while nothing is known about the model's durations */
  fallbackMs: number;
  /** no two polls of a task closer than this */
  minIntervalMs: number;
  /** no two polls of a task further apart than this: the bound that keeps every task from starving */
  maxIntervalMs: number;
  /** polls spent between the 5th and 95th percentile of the learned durations */
  pollsPerSpread: number;
  /**
   * the first planned poll waits until this fraction of the model's tasks has usually finished:
   * 0.05 when the planned polls are what finds completions; 0.95 when the batch task query finds
   * most of them and a planned poll only catches the rest
   */
  firstQuantile: number;
}

/**
 * How long to wait before the next poll of a task that has been running upstream for `elapsedMs`:
 * - before `firstQuantile` of the tasks of its model usually finish (e.g. the 5th percentile), wait
 *   until then;
 * - from there to the 95th percentile, where completions are likely, poll about every
 *   (p95 - p5) / `pollsPerSpread`;
 * - past the 95th percentile, back off: the wait grows with how late the task is.
 * Always within [minIntervalMs, maxIntervalMs]; without learned durations, `fallbackMs`.
 */
export function nextPollDelay(
  elapsedMs: number,
  durations: DurationSummary | null | undefined,
  config: PollPlanConfig,
): number {
  const clamp = (ms: number) =>
    Math.round(Math.min(config.maxIntervalMs, Math.max(config.minIntervalMs, ms)));
  if (!durations) return clamp(config.fallbackMs);
  const late = durations.quantileMs(0.95);
  const spacing = Math.max(late - durations.quantileMs(0.05), 0) / Math.max(config.pollsPerSpread, 1);
  const first = durations.quantileMs(Math.min(config.firstQuantile, 0.95));
  if (elapsedMs < first) return clamp(first - elapsedMs);
  if (elapsedMs <= late) return clamp(Math.min(spacing, late - elapsedMs + spacing));
  return clamp(spacing + (elapsedMs - late) / 2);
}
