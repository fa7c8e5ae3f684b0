import type { Logger } from 'pino';
import { ApiError, type UpstreamError } from '../errors';
import { isChannelFault } from '../upstream/channel-pool';

/** Seconds for a Retry-After header: the vendor's hint, clamped to 1-60 s (what the openai client honours). */
function retryAfterSeconds(ms: number | undefined): string {
  return String(Math.min(60, Math.max(1, Math.ceil((ms ?? 1_000) / 1000))));
}

/**
 * What a client sees of an upstream failure that survived fail-over:
 * - a vendor 400 (bad parameter, content moderation): 400 invalid_request with the vendor's message;
 * - 429: 429 rate_limit_exceeded with Retry-After;
 * - a vendor refusing the gateway itself (401, 403, 404, arrears): 500 server_error that says
 *   nothing of the vendor's key or message, logged at error level for the operator;
 * - 5xx, timeouts, connection failures, oversized or malformed answers: 500 server_error.
 */
export function apiErrorFromUpstream(err: UpstreamError, log: Logger, requestId: string): ApiError {
  const { status, code, vendor, channel } = err.details;
  const context = { vendor, channel, status, code, upstreamMessage: err.message, requestId };
  if (
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    status !== 429 &&
    status !== 404 &&
    !isChannelFault(err)
  ) {
    return new ApiError('invalid_request', err.message, err.details.param);
  }
  if (status === 429) {
    log.warn(context, 'upstream rate limit reached on every channel');
    return new ApiError(
      'rate_limit_exceeded',
      'The upstream model is receiving too many requests. Lower your rate and retry after the time in Retry-After.',
      undefined,
      { 'retry-after': retryAfterSeconds(err.details.retryAfterMs) },
    );
  }
  const headers: Record<string, string> =
    err.details.retryAfterMs !== undefined
      ? { 'retry-after': retryAfterSeconds(err.details.retryAfterMs) }
      : {};
  if (status !== undefined && status < 500) {
    log.error(
      context,
      'UPSTREAM REFUSED THE GATEWAY (key, permission, model access or account): fix the channel configuration',
    );
    return new ApiError(
      'server_error',
      `The upstream provider refused the gateway's request; this is a fault of ours and has been logged (request id ${requestId}). Retry later.`,
      undefined,
      headers,
    );
  }
  log.warn(context, 'upstream failed on every channel');
  const what = code === 'timeout' ? 'did not answer in time' : 'is unavailable';
  return new ApiError(
    'server_error',
    `The upstream model ${what} (request id ${requestId}). Retry later.`,
    undefined,
    headers,
  );
}

/** How one image that was not delivered is reported beside the delivered ones. */
export function publicItemFailure(
  err: UpstreamError,
  log: Logger,
  requestId: string,
): { code: string; message: string } {
  const mapped = apiErrorFromUpstream(err, log, requestId);
  return mapped.code === 'invalid_request'
    ? { code: err.details.code ?? 'invalid_request', message: err.message }
    : { code: mapped.code, message: mapped.message };
}
