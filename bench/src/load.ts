import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50ms: number;
  p99ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

/** Drives HTTP load with autocannon and returns the rate of 2xx answers and the latency percentiles. */
export async function httpLoad(opts: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec?: number;
  amount?: number;
  /** requests per second over all connections (a fixed offered rate); unlimited when absent */
  overallRate?: number;
  /** a request path per call, to spread reads over many rows */
  pathFor?: () => string;
  /** headers per call (added to `headers`), e.g. to spread calls over several API keys */
  headersFor?: () => Record<string, string>;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: opts.url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    ...(opts.amount === undefined ? { duration: opts.durationSec ?? 10 } : { amount: opts.amount }),
    requests:
      opts.pathFor || opts.headersFor
        ? [
            {
              setupRequest: (req) => ({
                ...req,
                ...(opts.pathFor ? { path: opts.pathFor() } : {}),
                ...(opts.headersFor ? { headers: { ...req.headers, ...opts.headersFor() } } : {}),
              }),
            },
          ]
        : undefined,
  });
  const ok = result['2xx'];
  return {
    rps: ok / (result.duration || 1),
    p50ms: result.latency.p50,
    p99ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

/** Runs `op` from `concurrency` loops for `durationMs`; the in-process baseline of a load test. */
export async function loopLoad(op: () => Promise<unknown>, concurrency: number, durationMs: number) {
  const latencies: number[] = [];
  const end = Date.now() + durationMs;
  const started = Date.now();
  let errors = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now();
        try {
          await op();
          latencies.push(performance.now() - t0);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  return { rps: latencies.length / seconds, ...percentiles(latencies), requests: latencies.length, errors };
}

export function percentiles(values: number[]): { p50ms: number; p99ms: number } {
  if (values.length === 0) return { p50ms: 0, p99ms: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50ms: round(at(0.5)), p99ms: round(at(0.99)) };
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
