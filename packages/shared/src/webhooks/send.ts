import { type Dispatcher, request } from 'undici';
import { parseRetryAfter } from '../http/json-client';
import { isSsrfError } from './ssrf';

export interface SendResult {
  startedAt: Date;
  latencyMs: number;
  /** null when no answer arrived */
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  retryAfterMs?: number;
  /** the SSRF guard refused the destination address */
  blocked: boolean;
}

/**
 * One POST of a webhook. Never throws: every outcome, answer or not, is a SendResult. The whole
 * attempt (connect, headers, body) is cut at `timeoutMs`; redirects are not followed (a 3xx is
 * just a non-2xx answer); at most `maxResponseBytes` of the answer are read, the rest is dropped.
 */
export async function sendWebhook(
  dispatcher: Dispatcher,
  req: { url: string; headers: Record<string, string>; body: string },
  opts: { timeoutMs: number; maxResponseBytes: number },
): Promise<SendResult> {
  const startedAt = new Date();
  const t0 = performance.now();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), opts.timeoutMs);
  const done = (r: Omit<SendResult, 'startedAt' | 'latencyMs' | 'blocked'> & { blocked?: boolean }) => ({
    startedAt,
    latencyMs: Math.round(performance.now() - t0),
    blocked: false,
    ...r,
  });
  try {
    const res = await request(req.url, {
      method: 'POST',
      dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'mediagate-webhooks/1.0',
        ...req.headers,
      },
      body: req.body,
      signal: abort.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        chunks.push(buf.subarray(0, Math.max(0, opts.maxResponseBytes - size)));
        size += buf.length;
        if (size >= opts.maxResponseBytes) break;
      }
    } catch {
      // the status already decides the attempt; a body cut short (timeout, reset) only loses the excerpt
    } finally {
      res.body.destroy();
    }
    return done({
      statusCode: res.statusCode,
      error: res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`,
      responseBody: Buffer.concat(chunks).toString('utf8'),
      retryAfterMs:
        res.statusCode === 429 || res.statusCode === 503
          ? parseRetryAfter(res.headers['retry-after'])
          : undefined,
    });
  } catch (err) {
    if (isSsrfError(err)) {
      return done({ statusCode: null, error: (err as Error).message, responseBody: null, blocked: true });
    }
    if (abort.signal.aborted) {
      return done({ statusCode: null, error: `timed out after ${opts.timeoutMs} ms`, responseBody: null });
    }
    return done({ statusCode: null, error: describeError(err), responseBody: null });
  } finally {
    clearTimeout(timer);
  }
}

function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.code && e.code !== 'UND_ERR_SOCKET' ? e.code : (e.cause?.code ?? e.code);
  const text = e.cause?.message ?? e.message ?? String(err);
  return code ? `${code}: ${text}`.slice(0, 500) : text.slice(0, 500);
}
