import type { TaskRow } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import type { TaskDurations } from '@mediagate/shared/tasks';
import type { UpstreamVideoState } from '@mediagate/shared/upstream';
import type { PollBudget } from './poll-budget';
import { nextPollDelay, type PollPlanConfig } from './poll-plan';
import type { UpstreamLimiter } from './upstream-limiter';

/** When a running upstream task is polled, and whether a query may go now. */
export interface PollScheduler {
  /** ms until the first poll of a task just submitted on `channel` */
  first(row: TaskRow, channel: string): Promise<number>;
  /** 0 when a query on `channel` may go now (it may wait a little first), else ms to wait before asking again */
  admit(channel: string): Promise<number>;
  /** ms until the next poll of a task the upstream still runs */
  next(row: TaskRow, channel: string): Promise<number>;
  /** a task finished upstream (learn from it) */
  finished(row: TaskRow, state: UpstreamVideoState): void;
}

/** Every task polled every `intervalMs`, within the fleet-wide query limit. */
export class FixedPollScheduler implements PollScheduler {
  constructor(
    private readonly limiter: UpstreamLimiter,
    private readonly intervalMs: number,
  ) {}

  first(): Promise<number> {
    return Promise.resolve(this.intervalMs);
  }
  admit(channel: string): Promise<number> {
    return this.limiter.take('poll', channel);
  }
  next(): Promise<number> {
    return Promise.resolve(this.intervalMs);
  }
  finished(): void {}
}

export interface AdaptivePollConfig extends PollPlanConfig {
  /** a query slot further away than this is not waited for in the worker: the job waits as a delayed job */
  maxAdmitWaitMs: number;
}

/**
 * Polls where completions are likely: each task is planned from the durations learned for its
 * model (see nextPollDelay) and booked on the fleet-wide calendar of PollBudget, which keeps planned
 * polls within their share of the vendor's limit. Every query takes an evenly spaced slot of the
 * whole limit. Finished tasks teach the durations.
 */
export class AdaptivePollScheduler implements PollScheduler {
  constructor(
    private readonly budget: PollBudget,
    private readonly durations: TaskDurations,
    private readonly config: AdaptivePollConfig,
    private readonly logger?: Logger,
  ) {}

  /** Since when the upstream has been running the task (its submission), in ms. */
  private elapsed(row: TaskRow, now: number): number {
    const since = row.submitStartedAt ?? row.startedAt ?? row.createdAt;
    return Math.max(0, now - since.getTime());
  }

  private async plan(row: TaskRow, channel: string, elapsedMs: number): Promise<number> {
    const summary = await this.durations.summary(row.model);
    const wanted = nextPollDelay(elapsedMs, summary, this.config);
    return this.budget.book(channel, wanted, this.config.maxIntervalMs);
  }

  first(row: TaskRow, channel: string): Promise<number> {
    return this.plan(row, channel, 0);
  }

  admit(channel: string): Promise<number> {
    return this.budget.acquire(channel, this.config.maxAdmitWaitMs);
  }

  next(row: TaskRow, channel: string): Promise<number> {
    return this.plan(row, channel, this.elapsed(row, Date.now()));
  }

  finished(row: TaskRow, state: UpstreamVideoState): void {
    if (state.status !== 'SUCCEEDED') return;
    const took = state.upstreamMs ?? this.elapsed(row, Date.now());
    this.durations
      .record(row.model, took)
      .catch((err: unknown) => this.logger?.warn({ err }, 'could not record the task duration'));
  }
}
