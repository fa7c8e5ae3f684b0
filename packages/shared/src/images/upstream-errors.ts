import type { Logger } from 'pino';
import {
  InvalidInputError,
  type UpstreamError,
  UpstreamRateLimitedError,
  UpstreamUnavailableError,
} from '../errors';
import { isChannelFault } from '../upstream/channel-pool';

/** Seconds for a Retry-After header: the vendor's hint, clamped to 1-60 s (what the openai client honours). */
function retryAfterSeconds(ms: number | undefined): number {
  return Math.min(60, Math.max(1, Math.ceil((ms ?? 1_000) / 1000)));
}

/** What an upstream failure that survived fail-over means to the client. */
export type UpstreamOutcomeError = InvalidInputError | UpstreamRateLimitedError | UpstreamUnavailableError;

/**
 * What a client is told of an upstream failure that survived fail-over:
 * - a vendor 400 (bad parameter, content moderation): InvalidInputError with the vendor's message;
 * - 429: UpstreamRateLimitedError with the vendor's retry hint;
 * - a vendor refusing the gateway itself (401, 403, 404, arrears): UpstreamUnavailableError that
 *   says nothing of the vendor's key or message, logged at error level for the operator;
 * - 5xx, timeouts, connection failures, oversized or malformed answers: UpstreamUnavailableError.
 */
export function errorFromUpstream(err: UpstreamError, log: Logger, requestId: string): UpstreamOutcomeError {
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
    return new InvalidInputError(err.message, err.details.param);
  }
  if (status === 429) {
    log.warn(context, 'upstream rate limit reached on every channel');
    return new UpstreamRateLimitedError(
      'The upstream model is receiving too many requests. Lower your rate and retry after the time in Retry-After.',
      retryAfterSeconds(err.details.retryAfterMs),
    );
  }
  const retryAfter =
    err.details.retryAfterMs !== undefined ? retryAfterSeconds(err.details.retryAfterMs) : undefined;
  if (status !== undefined && status < 500) {
    log.error(
      context,
      'UPSTREAM REFUSED THE GATEWAY (key, permission, model access or account): fix the channel configuration',
    );
    return new UpstreamUnavailableError(
      `The upstream provider refused the gateway's request; this is a fault of ours and has been logged (request id ${requestId}). Retry later.`,
      retryAfter,
    );
  }
  log.warn(context, 'upstream failed on every channel');
  const what = code === 'timeout' ? 'did not answer in time' : 'is unavailable';
  return new UpstreamUnavailableError(
    `The upstream model ${what} (request id ${requestId}). Retry later.`,
    retryAfter,
  );
}

/** How one image that was not delivered is reported beside the delivered ones. */
export function publicItemFailure(
  err: UpstreamError,
  log: Logger,
  requestId: string,
): { code: string; message: string } {
  const mapped = errorFromUpstream(err, log, requestId);
  if (mapped instanceof InvalidInputError)
    return { code: err.details.code ?? 'invalid_request', message: err.message };
  return {
    code: mapped instanceof UpstreamRateLimitedError ? 'rate_limit_exceeded' : 'server_error',
    message: mapped.message,
  };
}
