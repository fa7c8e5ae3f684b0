import http from 'node:http';
import { type GeneratedPart, processMemory, sendStreamedForm } from '@mediagate/shared/testing';
import fc from 'fast-check';
import type { Stack } from '../stack';

// The fuzz runner: raw HTTP (node:http sends paths, headers and bytes exactly as generated, which
// fetch would normalize), the property every answer must satisfy, and a fixed seed.

/** Fixed so a CI run is reproducible; override with FUZZ_SEED to explore, FUZZ_RUNS_SCALE for more runs. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const RUNS_SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? 1);
/** The API process's resident memory may never pass this while fuzzed (oversized bodies included), run with the heap of its container (CONTAINER_HEAP). */
export const FUZZ_RSS_CEILING_BYTES = 400 * 1024 * 1024;

export interface FuzzRequest {
  method: string;
  /** path and query, sent byte for byte */
  path: string;
  headers: Record<string, string>;
  body?: Buffer | string;
  /** send the body chunked instead of with a Content-Length */
  chunked?: boolean;
  /** computes extra headers over the final body just before sending (signatures) */
  sign?: (body: Buffer) => Record<string, string>;
  /** instead of `body`: a multipart form generated while it is sent (hundreds of MB, never held) */
  streamedForm?: GeneratedPart[];
}

export interface FuzzAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

/** One request over a real socket; rejects only when no answer arrives (connection error, timeout). */
export async function send(baseUrl: string, req: FuzzRequest, timeoutMs = 20_000): Promise<FuzzAnswer> {
  if (req.streamedForm) {
    const r = await sendStreamedForm(baseUrl + req.path, {
      method: req.method,
      headers: req.headers,
      parts: req.streamedForm,
      timeoutMs: 60_000,
    });
    if (r.status === null) throw new Error(`no answer to a streamed form (${r.error ?? 'closed'})`);
    return { status: r.status, headers: r.headers, text: r.body };
  }
  try {
    return await sendOnce(baseUrl, req, timeoutMs);
  } catch (err) {
    // A kept-alive socket the server closed just as it was reused: the request never reached
    // the server, so sending it again on a new connection is what any HTTP client does.
    if ((err as { reusedSocket?: boolean }).reusedSocket) return sendOnce(baseUrl, req, timeoutMs);
    throw err;
  }
}

function sendOnce(baseUrl: string, req: FuzzRequest, timeoutMs: number): Promise<FuzzAnswer> {
  const url = new URL(baseUrl);
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  const headers: Record<string, string> = { ...req.headers, ...(req.sign?.(body ?? Buffer.alloc(0)) ?? {}) };
  // Framing is always explicit: Node's client would send a GET body unframed otherwise.
  if (body !== undefined) {
    if (req.chunked) headers['transfer-encoding'] = 'chunked';
    else headers['content-length'] = String(body.length);
  }
  return new Promise((resolve, reject) => {
    const r = http.request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent },
      (res) => {
        // an event stream that opened (200) may never end (the console's live stream): its status
        // and headers are the answer
        if (res.statusCode === 200 && /^text\/event-stream/.test(res.headers['content-type'] ?? '')) {
          resolve({ status: 200, headers: res.headers, text: '' });
          r.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    r.on('error', (err) =>
      reject(
        Object.assign(err, {
          reusedSocket: r.reusedSocket && (err as { code?: string }).code === 'ECONNRESET',
        }),
      ),
    );
    if (body !== undefined && body.length > 0) r.write(body);
    r.end();
  });
}

const ERROR_KEYS = new Set(['message', 'type', 'code', 'param']);

/**
 * What is wrong with an answer, or null: a 5xx; a non-2xx whose body is not exactly
 * {"error": {message, type, code, param?}} with string fields; an answer without x-request-id;
 * a 429 without Retry-After.
 */
export function problemWith(req: FuzzRequest, res: FuzzAnswer): string | null {
  if (res.status >= 500) return `answered ${res.status}`;
  if (!res.headers['x-request-id']) return 'no x-request-id header';
  if (res.status === 429 && !res.headers['retry-after']) return '429 without Retry-After';
  if (res.status >= 200 && res.status < 300) return null;
  if (req.method === 'HEAD') return null; // no body to look at
  if (!/^application\/json/.test(res.headers['content-type'] ?? '')) {
    return `non-2xx answer ${res.status} with content-type ${res.headers['content-type'] ?? '(none)'}`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(res.text);
  } catch {
    return `non-2xx answer ${res.status} is not JSON`;
  }
  const top = parsed as { error?: Record<string, unknown> } | null;
  const err = top?.error;
  if (
    !top ||
    typeof top !== 'object' ||
    Object.keys(top).join() !== 'error' ||
    !err ||
    typeof err !== 'object'
  ) {
    return `non-2xx answer ${res.status} is not {"error": {...}}`;
  }
  for (const k of ['message', 'type', 'code'])
    if (typeof err[k] !== 'string') return `error.${k} is not a string`;
  if (err.param !== undefined && err.param !== null && typeof err.param !== 'string')
    return 'error.param is neither a string nor null';
  const extra = Object.keys(err).filter((k) => !ERROR_KEYS.has(k));
  if (extra.length > 0) return `error has unexpected fields ${extra.join(', ')}`;
  return null;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…(${s.length} chars)` : s);

/** A short, printable account of a request for failure messages (bodies can be megabytes). */
export function describeRequest(req: FuzzRequest): string {
  const body = req.streamedForm
    ? `(streamed form: ${req.streamedForm.map((p) => `${p.name}${p.filename ? ' (file)' : ''}=${p.value === undefined ? `${p.bytes} B` : JSON.stringify(p.value)}`).join(', ')})`
    : req.body === undefined
      ? '(no body)'
      : JSON.stringify(clip(Buffer.from(req.body).toString('latin1'), 600));
  const headers = Object.entries(req.headers)
    .map(([k, v]) => `${k}: ${JSON.stringify(clip(v, 200))}`)
    .join('; ');
  return `${req.method} ${clip(req.path, 400)}${req.chunked ? ' (chunked)' : ''}\n  headers: ${headers}\n  body: ${body}`;
}

/** Gives generated requests a short rendering in fast-check's counterexample reports. */
export function printable(req: FuzzRequest): FuzzRequest {
  return Object.assign(req, { [fc.toStringMethod]: () => describeRequest(req) });
}

/**
 * Sends `numRuns` requests drawn from `requests` with the fixed seed, and fails (after shrinking
 * to a small counterexample) on the first answer `problemWith` rejects. The message carries the
 * seed, the counterexample and the answer.
 */
export async function fuzz(
  stack: Stack,
  requests: fc.Arbitrary<FuzzRequest>,
  numRuns: number,
): Promise<void> {
  const runs = Math.max(1, Math.round(numRuns * RUNS_SCALE));
  const statuses = new Map<number, number>();
  try {
    await fc.assert(
      fc.asyncProperty(requests, async (req) => {
        const res = await send(stack.apiUrl, req);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const { rssBytes, peakRssBytes } = processMemory(stack.apiProcess.child.pid!);
        const mb = (n: number) => Math.round(n / 1024 / 1024);
        const problem =
          problemWith(req, res) ??
          (Math.max(rssBytes, peakRssBytes) > FUZZ_RSS_CEILING_BYTES
            ? `the API's memory reached ${mb(peakRssBytes)} MB (RSS now ${mb(rssBytes)} MB), over the ${mb(FUZZ_RSS_CEILING_BYTES)} MB ceiling`
            : null);
        if (problem) throw new Error(`${problem}\n  answer ${res.status}: ${clip(res.text, 600)}`);
      }),
      { seed: FUZZ_SEED, numRuns: runs },
    );
  } catch (err) {
    const e = err as Error;
    e.message = `fuzz seed ${FUZZ_SEED} (rerun with FUZZ_SEED=${FUZZ_SEED}):\n${e.message}`;
    throw e;
  } finally {
    if (process.env.FUZZ_STATS) {
      const counts = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}x${n}`);
      process.stderr.write(`[fuzz] ${expect.getState().currentTestName}: ${counts.join(' ')}\n`);
    }
  }
}

/** The API process is still running, answers /healthz, logged no unhandled error, and stayed under the memory ceiling. */
export async function expectApiAlive(stack: Stack): Promise<void> {
  expect(processMemory(stack.apiProcess.child.pid!).peakRssBytes).toBeLessThan(FUZZ_RSS_CEILING_BYTES);
  expect(stack.apiProcess.child.exitCode).toBeNull();
  expect(stack.apiProcess.child.signalCode).toBeNull();
  const res = await send(stack.apiUrl, { method: 'GET', path: '/healthz', headers: {} });
  expect(res.status).toBe(200);
  const unhandled = stack.apiProcess
    .output()
    .split('\n')
    .filter((l) => l.includes('"msg":"unhandled error"'));
  expect(unhandled).toEqual([]);
}

/** Environment of a fuzzed stack: limits out of the way, every optional surface on. */
export const FUZZ_ENV: Record<string, string> = {
  RATE_LIMIT_RPM: '10000000',
  CONSOLE_RATE_LIMIT_RPM: '10000000',
  VIDEO_MAX_ACTIVE_TASKS: '1000000',
  AUTH_LIMIT_PER_EMAIL: '1000000',
  AUTH_LIMIT_PER_IP: '1000000',
  ADMIN_EMAIL: 'ops@example.test',
  ADMIN_PASSWORD: 'operator-password-1',
  PAYMENT_DEV_SECRET: 'fuzz-payment-secret',
  METRICS_TOKEN: 'fuzz-metrics-token-0123',
  SSRF_DNS_TIMEOUT_MS: '200',
};

/** Logs in through the console API and returns the session token. */
export async function login(stack: Stack, email: string, password: string): Promise<string> {
  const res = await send(stack.apiUrl, {
    method: 'POST',
    path: '/console/api/login',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (res.status !== 200) throw new Error(`login of ${email}: ${res.status} ${res.text}`);
  return (JSON.parse(res.text) as { token: string }).token;
}

/** A JSON call with a bearer credential; throws unless the answer is 2xx. */
export async function callJson(
  stack: Stack,
  method: string,
  path: string,
  bearer: string | undefined,
  json?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers, read field by field
): Promise<any> {
  const res = await send(stack.apiUrl, {
    method,
    path,
    headers: {
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  if (res.status < 200 || res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return JSON.parse(res.text);
}
