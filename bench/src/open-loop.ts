import http from 'node:http';

export interface OpenLoopResult {
  /** calls sent (the offered rate times the window) */
  sent: number;
  /** 2xx answers */
  ok: number;
  /** answers by status code other than 2xx, and transport errors as `error` */
  failures: Record<string, number>;
  /** latency of each 2xx call in ms, from the moment it was due (not when it went out) */
  latencies: number[];
  /** x-request-id of each 2xx answer */
  requestIds: string[];
  /** seconds from the first call due to the last answer */
  seconds: number;
}

export interface OpenLoopRequest {
  url: string;
  method?: 'POST' | 'GET';
  headers: Record<string, string>;
  body: Buffer | string;
}

/**
 * An open-loop load generator: calls are due at a fixed rate whatever the answers do (a slow
 * answer does not hold back the next call, unlike a closed loop of connections), each on a
 * keep-alive connection of its own when none is free. Latency counts from when a call was due, so
 * a generator that falls behind is charged to the figure rather than hidden (no coordinated
 * omission). The gateway and its baseline are measured with the same generator.
 */
export async function openLoop(
  request: OpenLoopRequest,
  opts: { rate: number; seconds: number; timeoutMs?: number; requestId?: (i: number) => string },
): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const url = new URL(request.url);
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body;
  const total = Math.max(1, Math.round(opts.rate * opts.seconds));
  const intervalMs = 1000 / opts.rate;
  const latencies: number[] = [];
  const requestIds: string[] = [];
  const failures: Record<string, number> = {};
  const fail = (why: string) => {
    failures[why] = (failures[why] ?? 0) + 1;
  };
  let ok = 0;
  const one = (i: number, due: number) =>
    new Promise<void>((resolve) => {
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: request.method ?? 'POST',
          headers: {
            ...request.headers,
            'content-length': String(body.length),
            ...(opts.requestId ? { 'x-request-id': opts.requestId(i) } : {}),
          },
          timeout: opts.timeoutMs ?? 30_000,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              ok += 1;
              latencies.push(performance.now() - due);
              const id = res.headers['x-request-id'];
              if (typeof id === 'string') requestIds.push(id);
            } else fail(String(status));
            resolve();
          });
          res.on('error', () => {
            fail('error');
            resolve();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', () => {
        fail('error');
        resolve();
      });
      req.end(body);
    });
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  let next = 0;
  await new Promise<void>((done) => {
    const tick = () => {
      const now = performance.now();
      while (next < total && start + next * intervalMs <= now) {
        inFlight.push(one(next, start + next * intervalMs));
        next += 1;
      }
      if (next >= total) return done();
      // wake at the next call's due time (timers fire at the earliest 1 ms later)
      setTimeout(tick, Math.max(0, start + next * intervalMs - performance.now()));
    };
    tick();
  });
  await Promise.all(inFlight);
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { sent: total, ok, failures, latencies, requestIds, seconds };
}

/** The value at quantile `q` (0..1) of `values`, in ms; 0 for none. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
