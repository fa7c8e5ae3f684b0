import { TimeoutError, withTimeout } from './timeout';

/** Timers still pending in this process (Node's own count of active timer handles). */
const pendingTimers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('withTimeout', () => {
  it('answers what the work answers and clears its timer', async () => {
    const before = pendingTimers();
    await expect(withTimeout(Promise.resolve(42), 60_000)).resolves.toBe(42);
    expect(pendingTimers()).toBe(before);
  });

  it('passes the work’s own failure through and clears its timer', async () => {
    const before = pendingTimers();
    await expect(withTimeout(Promise.reject(new Error('refused')), 60_000)).rejects.toThrow('refused');
    expect(pendingTimers()).toBe(before);
  });

  it('rejects with a TimeoutError naming the work when the work is slower than the bound', async () => {
    const never = new Promise<never>(() => {});
    const err = await withTimeout(never, 20, { what: 'enqueue' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({ message: 'enqueue timed out', timeoutMs: 20 });
  });

  it('rejects with the caller’s error when one is given', async () => {
    const never = new Promise<never>(() => {});
    const custom = new RangeError('too slow');
    await expect(withTimeout(never, 20, { error: () => custom })).rejects.toBe(custom);
  });

  it('does not reject a work that settles before the bound', async () => {
    const soon = new Promise<string>((resolve) => setImmediate(() => resolve('done')));
    await expect(withTimeout(soon, 5_000)).resolves.toBe('done');
  });
});
