/** A bounded wait ran out: `withTimeout` rejects with this unless the caller names another error. */
export class TimeoutError extends Error {
  constructor(
    message: string,
    readonly timeoutMs: number,
  ) {
    super(message);
    this.name = 'TimeoutError';
  }
}

/**
 * Settles as `work` does, or rejects after `ms` with `error()` (a TimeoutError saying
 * `<what> timed out` by default) when `work` has not settled by then. The timer is cleared as soon
 * as either side wins. `work` itself is not stopped: it finishes (or fails) in the background, so
 * give it its own bound or make it harmless to leave running.
 */
export function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  opts: { what?: string; error?: () => Error } = {},
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(opts.error ? opts.error() : new TimeoutError(`${opts.what ?? 'the operation'} timed out`, ms)),
      ms,
    );
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
