import { Agent, request, errors as undiciErrors } from 'undici';

export interface HttpTimeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { connectMs: 5_000, headersMs: 30_000, bodyMs: 30_000 };

export interface JsonResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** How a request failed before a complete response arrived. */
export class TransportError extends Error {
  constructor(
    message: string,
    /** true when the request certainly never reached the peer (connect failed) */
    readonly beforeSend: boolean,
    readonly kind: 'connect' | 'timeout' | 'too_large' | 'reset' | 'invalid_body',
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** An undici agent with connect, headers and body timeouts; share one per process. */
export function createHttpAgent(timeouts: HttpTimeouts = DEFAULT_TIMEOUTS, connections = 256): Agent {
  return new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    connections,
    keepAliveTimeout: 10_000,
  });
}

/**
 * Sends a JSON request and reads a JSON answer of at most `maxBytes`. Every HTTP status is
 * returned, not thrown; failures to get a complete answer throw TransportError.
 */
export async function requestJson(
  agent: Agent,
  url: string,
  init: {
    method: 'GET' | 'POST' | 'DELETE';
    headers?: Record<string, string>;
    body?: unknown;
    maxBytes?: number;
  },
): Promise<JsonResponse> {
  const maxBytes = init.maxBytes ?? 1_048_576;
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: init.method,
      dispatcher: agent,
      headers: {
        accept: 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch (err) {
    throw toTransportError(err);
  }
  const text = (await readLimited(res, maxBytes)).toString('utf8');
  let body: unknown = null;
  if (text.length > 0) {
    try {
      body = JSON.parse(text);
    } catch {
      body = { raw: text.slice(0, 500) };
    }
  }
  return { status: res.statusCode, headers: res.headers, body };
}

/**
 * Reads a whole body of at most `maxBytes`; a longer one (declared or streamed) is cut off and
 * refused with TransportError too_large, so a huge answer never sits in memory.
 */
async function readLimited(res: Awaited<ReturnType<typeof request>>, maxBytes: number): Promise<Buffer> {
  const { body } = res;
  const tooLarge = () => new TransportError(`response larger than ${maxBytes} bytes`, false, 'too_large');
  if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
    // Nothing reads the body: without a listener the abort error of destroy() would be unhandled.
    body.on('error', () => {});
    body.destroy();
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        body.destroy();
        throw tooLarge();
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof TransportError) throw err;
    throw toTransportError(err);
  }
  return Buffer.concat(chunks);
}

/**
 * GETs `url` and reads at most `maxBytes` of its body (for media an upstream hosts). Every HTTP
 * status is returned, not thrown; failures to get a complete answer throw TransportError.
 */
export async function requestBytes(
  agent: Agent,
  url: string,
  init: { maxBytes: number; headers?: Record<string, string> },
): Promise<{ status: number; headers: JsonResponse['headers']; body: Buffer }> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, { method: 'GET', dispatcher: agent, headers: init.headers });
  } catch (err) {
    throw toTransportError(err);
  }
  const body = await readLimited(res, init.maxBytes);
  return { status: res.statusCode, headers: res.headers, body };
}

function toTransportError(err: unknown): TransportError {
  const code = (err as { code?: string }).code ?? '';
  const cause = (err as { cause?: { code?: string } }).cause?.code ?? '';
  if (CONNECT_ERRORS.has(code) || CONNECT_ERRORS.has(cause)) {
    return new TransportError(`connection failed (${code || cause})`, true, 'connect');
  }
  if (err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError) {
    return new TransportError('upstream timed out', false, 'timeout');
  }
  return new TransportError(`request failed (${code || (err as Error).message})`, false, 'reset');
}

/** Retry-After (seconds or HTTP date) in milliseconds, if present and sane. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  const seconds = Number(v);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
