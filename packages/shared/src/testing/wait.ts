import { createServer } from 'node:net';

/**
 * Polls `check` until it returns a truthy value or the deadline passes (then throws with the
 * last value seen). This is how tests wait for work: on a condition, never on a fixed sleep.
 */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  opts: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await check();
      if (last) return last as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const detail = lastError
        ? `; last error: ${(lastError as Error).message}`
        : `; last value: ${JSON.stringify(last)}`;
      throw new Error(`timed out waiting for ${opts.what ?? 'condition'}${detail}`);
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}
