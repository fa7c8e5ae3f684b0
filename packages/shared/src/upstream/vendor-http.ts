import type { Agent } from 'undici';
import { UpstreamError } from '../errors';
import { parseRetryAfter, requestJson, TransportError } from '../http/json-client';

/** Where an upstream is reached: one configured channel of a vendor. */
export interface UpstreamChannel {
  name: string;
  baseUrl: string;
  apiKey: string;
}

export type Vendor = 'dashscope' | 'ark';

/** Reads the vendor's error: DashScope's flat `{code, message}` or Ark's `{error: {code, message, param}}`. */
function vendorErrorBody(body: unknown): { code?: string; message?: string; param?: string } {
  const b = (body ?? {}) as Record<string, unknown>;
  const inner = typeof b.error === 'object' && b.error !== null ? (b.error as Record<string, unknown>) : b;
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
  return { code: str(inner.code), message: str(inner.message), param: str(inner.param) };
}

/**
 * One JSON call to a vendor through `channel`: the key as a Bearer token, the answer read up to
 * `maxBytes`. Returns the body of a 2xx. Throws UpstreamError otherwise: with the vendor's status,
 * code, message and Retry-After for an HTTP error (`notCreated`: the vendor answered, so it made
 * nothing), or with `code` = the transport failure kind (`connect`, `timeout`, `reset`, `too_large`,
 * where only `connect` proves nothing reached the vendor).
 */
export async function callVendor(
  agent: Agent,
  channel: UpstreamChannel,
  req: {
    vendor: Vendor;
    method: 'GET' | 'POST';
    path: string;
    body?: unknown;
    headers?: Record<string, string>;
    maxBytes?: number;
  },
): Promise<unknown> {
  let res: Awaited<ReturnType<typeof requestJson>>;
  try {
    res = await requestJson(agent, channel.baseUrl.replace(/\/+$/, '') + req.path, {
      method: req.method,
      body: req.body,
      maxBytes: req.maxBytes,
      headers: { authorization: `Bearer ${channel.apiKey}`, ...req.headers },
    });
  } catch (err) {
    if (err instanceof TransportError) {
      throw new UpstreamError(`${req.vendor} ${err.message}`, {
        vendor: req.vendor,
        channel: channel.name,
        retryable: err.kind !== 'too_large',
        notCreated: err.beforeSend,
        code: err.kind,
      });
    }
    throw err;
  }
  if (res.status >= 200 && res.status < 300) return res.body;
  const parsed = vendorErrorBody(res.body);
  throw new UpstreamError(parsed.message ?? `upstream answered ${res.status}`, {
    vendor: req.vendor,
    channel: channel.name,
    status: res.status,
    code: parsed.code ?? `http_${res.status}`,
    param: parsed.param,
    retryable: res.status === 429 || res.status >= 500,
    notCreated: true,
    retryAfterMs: parseRetryAfter(res.headers['retry-after']),
  });
}
