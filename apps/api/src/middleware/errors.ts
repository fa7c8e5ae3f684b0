import { pgErrorCode } from '@mediagate/shared/db';
import {
  ApiError,
  BillingUnavailableError,
  CallRefundedError,
  ConcurrencyLimitError,
  InsufficientQuotaError,
  InvalidInputError,
  NUL_CHARACTER_MESSAGE,
  PermissionDeniedError,
  UpstreamRateLimitedError,
  UpstreamUnavailableError,
} from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { MulterError } from 'multer';
import { ZodError } from 'zod';
import { zodErrorToApiError } from './zod-errors';

const retryAfter = (seconds: number | undefined): Record<string, string> =>
  seconds === undefined ? {} : { 'retry-after': String(seconds) };

/**
 * The HTTP answer to each domain error the shared modules throw (they know no HTTP): the one
 * place where a domain failure gets its status, code and headers.
 */
export function fromDomainError(err: unknown): ApiError | null {
  if (err instanceof InvalidInputError) return new ApiError('invalid_request', err.message, err.param);
  if (err instanceof InsufficientQuotaError) return new ApiError('insufficient_quota', err.message);
  if (err instanceof PermissionDeniedError) return new ApiError('permission_denied', err.message);
  if (err instanceof ConcurrencyLimitError || err instanceof UpstreamRateLimitedError) {
    return new ApiError('rate_limit_exceeded', err.message, undefined, retryAfter(err.retryAfterSeconds));
  }
  if (err instanceof UpstreamUnavailableError) {
    return new ApiError('server_error', err.message, undefined, retryAfter(err.retryAfterSeconds));
  }
  if (err instanceof CallRefundedError) return new ApiError('server_error', err.message);
  if (err instanceof BillingUnavailableError) {
    return new ApiError('service_unavailable', err.message, undefined, retryAfter(err.retryAfterSeconds));
  }
  return null;
}

/** Maps body-parser and multer failures (client mistakes) to API errors. */
function fromParserError(err: unknown): ApiError | null {
  const e = err as { type?: string; status?: number; code?: string; field?: string };
  if (err instanceof MulterError) {
    if (e.code === 'LIMIT_FILE_SIZE' || e.code === 'LIMIT_FIELD_VALUE' || e.code === 'LIMIT_PART_COUNT') {
      return new ApiError('request_too_large', `Multipart body too large (${err.message}).`, e.field);
    }
    return new ApiError('invalid_request', `Invalid multipart body: ${err.message}.`, e.field);
  }
  switch (e.type) {
    case 'entity.parse.failed':
      return new ApiError('invalid_request', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new ApiError('request_too_large', 'The request body is larger than the limit.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new ApiError('unsupported_media_type', 'Unsupported body encoding or charset; send UTF-8.');
    case 'request.aborted':
      return new ApiError('invalid_request', 'The request was aborted by the client.');
    case 'request.size.invalid':
      return new ApiError('invalid_request', 'The request body does not match its Content-Length.');
    default:
      break;
  }
  if (e.status && e.status >= 400 && e.status < 500) {
    return new ApiError('invalid_request', (err as Error).message || 'Bad request.');
  }
  if (
    err instanceof Error &&
    /Multipart: Boundary not found|Unexpected end of form|Malformed part header/i.test(err.message)
  ) {
    return new ApiError('invalid_request', `Invalid multipart body: ${err.message}.`);
  }
  return null;
}

/**
 * Postgres refuses a NUL character in text (22021) and `\u0000` in jsonb (22P05). JSON and
 * query strings can carry one in any field, so this is the client's value, not a server fault.
 */
const NUL_CODES = new Set(['22021', '22P05']);

const DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01', // admin shutdown
  '57P02', // crash shutdown
  '57P03', // cannot connect now
  '53300', // too many connections (the server's max_connections, or a role's limit)
  '08000',
  '08001',
  '08003',
  '08006',
]);

/** Postgres or Redis is unreachable (restart, outage): a 503 the client may retry, not a 500. */
function isDependencyDown(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    i++
  ) {
    if (typeof e.code === 'string' && DOWN_CODES.has(e.code)) return true;
    const msg = typeof e.message === 'string' ? e.message : '';
    if (
      /Connection terminated|timeout exceeded when trying to connect|Connection is closed|MaxRetriesPerRequest|Stream isn't writeable/i.test(
        msg,
      )
    ) {
      return true;
    }
    e = e.cause as typeof e;
  }
  return false;
}

/** The one error handler: every failure leaves as `{"error": {message, type, code, param}}`. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    let apiErr: ApiError;
    if (err instanceof ApiError) apiErr = err;
    else if (err instanceof ZodError) apiErr = zodErrorToApiError(err);
    else {
      const mapped = fromDomainError(err) ?? fromParserError(err);
      if (mapped) apiErr = mapped;
      else if (NUL_CODES.has(pgErrorCode(err) ?? '')) {
        apiErr = new ApiError('invalid_request', NUL_CHARACTER_MESSAGE);
      } else if (isDependencyDown(err)) {
        (req.log ?? logger).error({ err, requestId: req.id }, 'a dependency is unavailable');
        apiErr = new ApiError(
          'service_unavailable',
          `The service is temporarily unavailable; retry shortly (request id ${String(req.id)}).`,
          undefined,
          { 'retry-after': '5' },
        );
      } else {
        (req.log ?? logger).error({ err, requestId: req.id }, 'unhandled error');
        apiErr = new ApiError(
          'server_error',
          `The server had an error processing your request (request id ${String(req.id)}).`,
        );
      }
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    for (const [k, v] of Object.entries(apiErr.headers)) res.setHeader(k, v);
    res.status(apiErr.status).json(apiErr.toBody());
  };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', `Unknown route: ${req.method} ${req.path}`));
};
