import {
  limitsFromConfig,
  type SimConfig,
  type SimLimits,
  timingFromConfig,
  type VideoTiming,
} from './config';
import { FaultRegistry } from './faults';
import { SlidingWindowLimiter } from './rate-limit';
import { TaskJournal } from './task-journal';
import { VideoTaskStore } from './video-tasks';

/** How the vendor's CDN serves result videos (control API `video-media`). */
export interface VideoMediaSettings {
  /** every video link answers 403 "Request has expired", as the vendor's does after 24 h */
  linksExpired: boolean;
  /** serve the sample clip padded (an MP4 `free` box) to this many bytes; null = the clip as is */
  sizeBytes: number | null;
  /** serve video bodies at this rate; null = as fast as possible */
  bytesPerSecond: number | null;
}

const defaultVideoMedia = (): VideoMediaSettings => ({
  linksExpired: false,
  sizeBytes: null,
  bytesPerSecond: null,
});

/** A planned end for upcoming video tasks (control API `video-outcomes`). */
export interface OutcomePlan {
  outcome: 'FAILED' | 'CANCELED';
  code?: string;
  message?: string;
  /** how many more accepted tasks take this outcome */
  remaining: number;
}

function zeroCounters() {
  return {
    video: {
      submitted: 0,
      rejected: 0,
      throttled: 0,
      queried: 0,
      listed: 0,
      query_throttled: 0,
      canceled: 0,
    },
    image_edit: { calls: 0, images: 0, rejected: 0 },
    ark_images: { calls: 0, images: 0, failed_items: 0, rejected: 0 },
  };
}

export type SimCounters = ReturnType<typeof zeroCounters>;

/** One key's use of the task APIs (query, list, cancel), which share its queries-per-second budget. */
export interface KeyQueries {
  /** one-task queries answered */
  queried: number;
  /** task lists answered */
  listed: number;
  /** queries refused with 429 */
  throttled: number;
  /** one-task queries of a task another key submitted */
  foreign: number;
  /** the most queries answered in one calendar second */
  peak_qps: number;
}

/** A key as the control API names it: its last six characters, never the whole key. */
export const keyLabel = (key: string) => (key.length > 8 ? `…${key.slice(-6)}` : key);

/**
 * Counters as the control API shows them; `video.running` is the number of unfinished tasks now,
 * `video.by_key` each key's use of the task APIs (by keyLabel).
 */
export type SimStats = Omit<SimCounters, 'video'> & {
  video: SimCounters['video'] & { running: number; by_key: Record<string, KeyQueries> };
};

/**
 * Everything the simulator remembers, in memory: tasks, counters, injected faults, planned outcomes,
 * rate-limit windows and the settings the control API can change. `reset()` returns to start-up state.
 */
export class SimState {
  readonly tasks: VideoTaskStore;
  readonly faults = new FaultRegistry();
  /** DashScope video submissions per key, per second */
  readonly submitLimiter: SlidingWindowLimiter;
  /** DashScope task queries (one task, lists, cancels) per key, per second */
  readonly queryLimiter: SlidingWindowLimiter;
  /** Ark image requests per key, per minute */
  readonly arkLimiter: SlidingWindowLimiter;
  /** null = any non-empty key is accepted */
  readonly acceptedKeys: ReadonlySet<string> | null;
  counters: SimCounters = zeroCounters();
  private keyQueries = new Map<string, KeyQueries & { second: number; inSecond: number }>();
  timing: VideoTiming;
  videoMedia: VideoMediaSettings = defaultVideoMedia();
  /** the seconds a successful task's `usage.duration` reports; null = the duration asked for */
  reportedDuration: number | null = null;
  private limitValues: SimLimits;
  private outcomes: OutcomePlan[] = [];
  private arkItemFailures = 0;

  constructor(readonly config: SimConfig) {
    const journal = config.SIM_STATE_FILE ? new TaskJournal(config.SIM_STATE_FILE) : undefined;
    this.tasks = new VideoTaskStore(config.SIM_TASK_TTL_MS, journal);
    if (journal) this.tasks.restore(journal.load(config.SIM_TASK_TTL_MS, Date.now()), Date.now());
    this.timing = timingFromConfig(config);
    this.limitValues = limitsFromConfig(config);
    this.submitLimiter = new SlidingWindowLimiter(this.limitValues.dashscopeSubmitRps, 1_000);
    this.arkLimiter = new SlidingWindowLimiter(this.limitValues.arkRpm, 60_000);
    this.queryLimiter = new SlidingWindowLimiter(this.limitValues.dashscopeQueryQps, 1_000);
    this.acceptedKeys = config.SIM_API_KEYS.length > 0 ? new Set(config.SIM_API_KEYS) : null;
  }

  get limits(): SimLimits {
    return { ...this.limitValues };
  }

  /** Changes the given limits; a changed rate limit starts from an empty window. */
  setLimits(next: Partial<SimLimits>): SimLimits {
    const merged = { ...this.limitValues, ...next };
    if (merged.dashscopeSubmitRps !== this.limitValues.dashscopeSubmitRps) {
      this.submitLimiter.setLimit(merged.dashscopeSubmitRps);
    }
    if (merged.arkRpm !== this.limitValues.arkRpm) this.arkLimiter.setLimit(merged.arkRpm);
    if (merged.dashscopeQueryQps !== this.limitValues.dashscopeQueryQps) {
      this.queryLimiter.setLimit(merged.dashscopeQueryQps);
    }
    this.limitValues = merged;
    return this.limits;
  }

  /** Whether `key` is an accepted upstream key. */
  acceptsKey(key: string): boolean {
    return key.length > 0 && (this.acceptedKeys === null || this.acceptedKeys.has(key));
  }

  /** Queues an outcome for the next `remaining` accepted video tasks (after the ones already queued). */
  planOutcome(plan: OutcomePlan): void {
    this.outcomes.push({ ...plan });
  }

  plannedOutcomes(): OutcomePlan[] {
    return this.outcomes.map((p) => ({ ...p }));
  }

  clearOutcomes(): void {
    this.outcomes = [];
  }

  /** Consumes one planned outcome for a newly accepted task; undefined = it succeeds. */
  takeOutcome(): Omit<OutcomePlan, 'remaining'> | undefined {
    const plan = this.outcomes[0];
    if (!plan) return undefined;
    plan.remaining -= 1;
    if (plan.remaining <= 0) this.outcomes.shift();
    return { outcome: plan.outcome, code: plan.code, message: plan.message };
  }

  /** Sets how many upcoming Ark result items fail moderation. */
  setArkItemFailures(count: number): void {
    this.arkItemFailures = count;
  }

  get pendingArkItemFailures(): number {
    return this.arkItemFailures;
  }

  /** Takes up to `items` planned item failures for one Ark request and returns how many it took. */
  takeArkItemFailures(items: number): number {
    const taken = Math.min(items, this.arkItemFailures);
    this.arkItemFailures -= taken;
    return taken;
  }

  /** Counts a use of the task APIs by `key` (see KeyQueries). */
  countQuery(key: string, kind: 'queried' | 'listed' | 'throttled', now: number, foreign = false): void {
    let q = this.keyQueries.get(key);
    if (!q) {
      q = { queried: 0, listed: 0, throttled: 0, foreign: 0, peak_qps: 0, second: 0, inSecond: 0 };
      this.keyQueries.set(key, q);
    }
    q[kind] += 1;
    if (foreign) q.foreign += 1;
    if (kind === 'throttled') return;
    const second = Math.floor(now / 1000);
    if (second !== q.second) {
      q.second = second;
      q.inSecond = 0;
    }
    q.inSecond += 1;
    q.peak_qps = Math.max(q.peak_qps, q.inSecond);
  }

  stats(now: number): SimStats {
    const c = this.counters;
    const byKey = Object.fromEntries(
      [...this.keyQueries].map(([key, { second: _s, inSecond: _i, ...q }]) => [keyLabel(key), q]),
    );
    return {
      video: { ...c.video, running: this.tasks.runningTotal(now), by_key: byKey },
      image_edit: { ...c.image_edit },
      ark_images: { ...c.ark_images },
    };
  }

  /** Back to start-up state: counters, tasks, faults, plans, rate windows, timing and limits. */
  reset(): void {
    this.counters = zeroCounters();
    this.keyQueries.clear();
    this.tasks.clear();
    this.faults.clear();
    this.outcomes = [];
    this.arkItemFailures = 0;
    this.videoMedia = defaultVideoMedia();
    this.reportedDuration = null;
    this.timing = timingFromConfig(this.config);
    this.limitValues = limitsFromConfig(this.config);
    this.submitLimiter.setLimit(this.limitValues.dashscopeSubmitRps);
    this.arkLimiter.setLimit(this.limitValues.arkRpm);
    this.queryLimiter.setLimit(this.limitValues.dashscopeQueryQps);
  }
}
