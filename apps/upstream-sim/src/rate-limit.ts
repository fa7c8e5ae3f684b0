interface Window {
  /** ring of the last `limit` accepted event times; `next` points at the oldest */
  stamps: Float64Array;
  next: number;
}

/**
 * At most `limit` events per key in any sliding window of `windowMs` (0 = unlimited). Each check is
 * O(1): a ring of the last `limit` accepted times per key, whose oldest entry decides.
 */
export class SlidingWindowLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    private limitValue: number,
    private readonly windowMs: number,
  ) {}

  get limit(): number {
    return this.limitValue;
  }

  /** Changes the limit; forgets the history, so the new limit starts from a clean window. */
  setLimit(limit: number): void {
    this.limitValue = limit;
    this.windows.clear();
  }

  /** Records an event for `key` and returns true, or returns false (recording nothing) when over the limit. */
  tryTake(key: string, now: number): boolean {
    const limit = this.limitValue;
    if (limit <= 0) return true;
    let w = this.windows.get(key);
    if (!w) {
      w = { stamps: new Float64Array(limit).fill(Number.NEGATIVE_INFINITY), next: 0 };
      this.windows.set(key, w);
    }
    if (now - w.stamps[w.next]! < this.windowMs) return false;
    w.stamps[w.next] = now;
    w.next = (w.next + 1) % limit;
    return true;
  }

  /** Forgets every key's history. */
  clear(): void {
    this.windows.clear();
  }
}
