import { FaultRegistry } from '../src/faults';
import { dashscopeTime } from '../src/http-helpers';
import { probeDataUrlSize } from '../src/image-probe';
import { MinHeap } from '../src/min-heap';
import { SlidingWindowLimiter } from '../src/rate-limit';
import type { VideoTask } from '../src/video-task';
import { VideoTaskStore, videoStatusAt } from '../src/video-tasks';

// Pure units, driven by explicit timestamps: time itself is the subject here.

function task(id: string, submittedAt: number, pendingMs: number, runningMs: number, model = 'm'): VideoTask {
  return {
    id,
    apiKey: 'k',
    model,
    resolution: '720P',
    duration: 5,
    audio: true,
    parameters: {},
    submittedAt,
    scheduledAt: submittedAt + pendingMs,
    endsAt: submittedAt + pendingMs + runningMs,
    outcome: 'SUCCEEDED',
    counted: false,
  };
}

describe('MinHeap', () => {
  it('pops in key order', () => {
    const heap = new MinHeap<number>((n) => n);
    const values = Array.from({ length: 500 }, () => Math.floor(Math.random() * 1000));
    for (const v of values) heap.push(v);
    const out: number[] = [];
    while (heap.size > 0) out.push(heap.pop()!);
    expect(out).toEqual([...values].sort((a, b) => a - b));
    expect(heap.pop()).toBeUndefined();
  });
});

describe('SlidingWindowLimiter', () => {
  it('allows `limit` events in any window, per key', () => {
    const limiter = new SlidingWindowLimiter(2, 1000);
    expect(limiter.tryTake('a', 0)).toBe(true);
    expect(limiter.tryTake('a', 500)).toBe(true);
    expect(limiter.tryTake('a', 999)).toBe(false);
    expect(limiter.tryTake('b', 999)).toBe(true);
    expect(limiter.tryTake('a', 1000)).toBe(true);
    expect(limiter.tryTake('a', 1400)).toBe(false);
    expect(limiter.tryTake('a', 1500)).toBe(true);
  });

  it('is unlimited at 0 and restarts on a new limit', () => {
    const limiter = new SlidingWindowLimiter(0, 1000);
    for (let i = 0; i < 100; i++) expect(limiter.tryTake('a', 0)).toBe(true);
    limiter.setLimit(1);
    expect(limiter.tryTake('a', 0)).toBe(true);
    expect(limiter.tryTake('a', 1)).toBe(false);
  });
});

describe('VideoTaskStore', () => {
  it('derives status from time', () => {
    const t = task('t', 1000, 100, 200);
    expect(videoStatusAt(t, 1099)).toBe('PENDING');
    expect(videoStatusAt(t, 1100)).toBe('RUNNING');
    expect(videoStatusAt(t, 1300)).toBe('SUCCEEDED');
  });

  it('counts unfinished tasks per key and model, whatever order they end in', () => {
    const store = new VideoTaskStore(10_000);
    store.add(task('slow', 0, 0, 1000));
    store.add(task('fast', 10, 0, 100));
    store.add(task('other-model', 10, 0, 100, 'm2'));
    expect(store.running('k', 'm', 50)).toBe(2);
    expect(store.running('k', 'm', 110)).toBe(1);
    expect(store.running('k', 'm2', 110)).toBe(0);
    expect(store.running('k', 'm', 1000)).toBe(0);
    expect(store.runningTotal(1000)).toBe(0);
  });

  it('frees a slot on cancel, once', () => {
    const store = new VideoTaskStore(10_000);
    const a = task('a', 0, 500, 500);
    store.add(a);
    store.add(task('b', 0, 500, 500));
    store.cancel(a, 100);
    expect(store.running('k', 'm', 100)).toBe(1);
    expect(videoStatusAt(a, 100)).toBe('CANCELED');
    expect(store.running('k', 'm', 2000)).toBe(0);
  });

  it('forgets tasks past the retention from the front only', () => {
    const store = new VideoTaskStore(1000);
    store.add(task('old', 0, 0, 0));
    store.add(task('young', 900, 0, 0));
    expect(store.get('old', 999)).toBeDefined();
    expect(store.get('old', 1000)).toBeUndefined();
    expect(store.get('young', 1000)).toBeDefined();
    expect(store.size).toBe(1);
  });

  it('adds and counts tasks touching each a fixed number of times: 10x the tasks, 10x the reads', () => {
    // the store's work counted as reads of the tasks' fields, not timed: a store that walked its
    // tasks at every add or count (quadratic) would read 100x as much for 10x the tasks
    const readsPerTask = (n: number) => {
      let reads = 0;
      let mostRunning = 0;
      const store = new VideoTaskStore(10_000_000); // all kept
      for (let i = 0; i < n; i++) {
        const counted = new Proxy(task(`t${i}`, i, 10, 10 + (i % 7)), {
          get: (target, key, receiver) => {
            reads += 1;
            return Reflect.get(target, key, receiver);
          },
        });
        store.add(counted);
        if (i % 10 === 0) mostRunning = Math.max(mostRunning, store.running('k', 'm', i));
      }
      // at most those submitted in the last 10 + 16 ms, and the one of this ms
      expect(mostRunning).toBeGreaterThan(0);
      expect(mostRunning).toBeLessThanOrEqual(27);
      expect(store.running('k', 'm', 2 * n)).toBe(0);
      expect(store.size).toBe(n);
      return reads / n;
    };
    const small = readsPerTask(2_000);
    expect(small).toBeGreaterThan(1);
    expect(readsPerTask(20_000)).toBeLessThan(1.5 * small);
  });
});

describe('FaultRegistry', () => {
  it('decides with a given random source and drops spent count faults', () => {
    const faults = new FaultRegistry();
    faults.add({ api: 'video.submit', count: 2, rate: 0.5 });
    expect(faults.decide('video.submit', () => 0.9).error).toBeUndefined();
    expect(faults.decide('video.submit', () => 0.1).error?.status).toBe(500);
    expect(faults.list()).toEqual([]);
    expect(faults.decide('video.submit').error).toBeUndefined();
  });
});

describe('helpers', () => {
  it('writes vendor timestamps in UTC+8', () => {
    expect(dashscopeTime(Date.UTC(2025, 8, 25, 3, 7, 28, 590))).toBe('2025-09-25 11:07:28.590');
  });

  it('reads JPEG sizes from a data URL', () => {
    // SOI, APP0 (16 bytes), SOF0 with height 480 and width 640
    const jpeg = Buffer.from([
      0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00,
      0x01, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x01, 0xe0, 0x02, 0x80, 0x03, 0x01, 0x22, 0x00,
    ]);
    expect(probeDataUrlSize(`data:image/jpeg;base64,${jpeg.toString('base64')}`)).toEqual({
      width: 640,
      height: 480,
    });
    expect(probeDataUrlSize('data:image/webp;base64,UklGRg==')).toBeUndefined();
  });
});
