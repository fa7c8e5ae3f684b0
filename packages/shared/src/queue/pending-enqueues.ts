import type { RedisClient } from './connection';

/**
 * Enqueues that could not be made while Redis was away, kept by the process that made them and
 * made again as soon as Redis answers (its connection's `ready`, and a retry every `retryMs` in
 * case that event was missed), instead of waiting for the reconciler's next sweep. Each is keyed
 * (a task id): adding one again replaces it. At most `maxEntries` are kept, the oldest dropped
 * first: what is dropped, or lost with the process, the reconciler still enqueues from Postgres.
 */
export class PendingEnqueues {
  private readonly pending = new Map<string, () => Promise<unknown>>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private closed = false;
  private readonly onReady = () => void this.flush();

  constructor(
    private readonly connection: RedisClient,
    private readonly opts: {
      retryMs?: number;
      maxEntries?: number;
      /** how many enqueues a flush has in flight at once */
      concurrency?: number;
      /** told when an enqueue kept here has been made (with how long it waited) */
      onEnqueued?: (key: string, waitedMs: number) => void;
    } = {},
  ) {
    connection.on('ready', this.onReady);
  }

  get size(): number {
    return this.pending.size;
  }

  /**
   * Runs `enqueue`; when it fails, keeps it to run again once Redis is back and resolves false
   * (never rejects). Resolves true when it was made at once.
   */
  async run(key: string, enqueue: () => Promise<unknown>): Promise<boolean> {
    try {
      await enqueue();
      return true;
    } catch {
      this.keep(key, enqueue);
      return false;
    }
  }

  private keep(key: string, enqueue: () => Promise<unknown>): void {
    if (this.closed) return;
    const since = Date.now();
    this.pending.delete(key);
    this.pending.set(key, async () => {
      await enqueue();
      this.opts.onEnqueued?.(key, Date.now() - since);
    });
    const max = this.opts.maxEntries ?? 100_000;
    while (this.pending.size > max) this.pending.delete(this.pending.keys().next().value as string);
    this.timer ??= setInterval(() => void this.flush(), this.opts.retryMs ?? 500);
    this.timer.unref?.();
  }

  /** Makes the kept enqueues; stops at the first failure (Redis is still away). */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0) return Promise.resolve();
    const status = (this.connection as { status?: string }).status;
    if (status === 'reconnecting' || status === 'connecting' || status === 'close' || status === 'end') {
      return Promise.resolve();
    }
    this.flushing = (async () => {
      const width = this.opts.concurrency ?? 32;
      let failed = false;
      while (!failed && this.pending.size > 0) {
        const batch = [...this.pending.entries()].slice(0, width);
        await Promise.all(
          batch.map(async ([key, enqueue]) => {
            try {
              await enqueue();
              if (this.pending.get(key) === enqueue) this.pending.delete(key);
            } catch {
              failed = true;
            }
          }),
        );
      }
      if (this.pending.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  close(): void {
    this.closed = true;
    this.connection.off('ready', this.onReady);
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}
