import { randomBytes, randomUUID } from 'node:crypto';

/** Whose error envelope an answer uses: DashScope's flat one, Ark's nested one, or the sim's own. */
export type Vendor = 'dashscope' | 'ark' | 'sim';

/**
 * The one error type of the simulator. Handlers throw it; the error handler renders it in the
 * vendor's envelope (`vendor`), so no route writes its own error JSON.
 */
export class VendorError extends Error {
  constructor(
    readonly vendor: Vendor,
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'VendorError';
  }
}

/** A DashScope error: HTTP status plus flat `{code, message, request_id}`. */
export function dashscopeError(status: number, code: string, message: string): VendorError {
  return new VendorError('dashscope', status, code, message);
}

/** An Ark error: HTTP status plus `{error: {code, message, param, type}}`. */
export function arkError(status: number, code: string, message: string, param?: string): VendorError {
  return new VendorError('ark', status, code, message, param);
}

/** An error of the control API (not a vendor protocol): `{error: {code, message}}`. */
export function controlError(status: number, code: string, message: string): VendorError {
  return new VendorError('sim', status, code, message);
}

/** A DashScope request id (a UUID, as the vendor sends). */
export function dashscopeRequestId(): string {
  return randomUUID();
}

/** An Ark request id: `02`, the millisecond clock, then random hex, like the vendor's. */
export function arkRequestId(): string {
  return `02${Date.now()}${randomBytes(16).toString('hex')}`;
}

const ARK_TYPES: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  502: 'BadGateway',
  503: 'ServiceUnavailable',
  504: 'GatewayTimeout',
};

/** Ark's `type` for an HTTP status. */
export function arkErrorType(status: number): string {
  return ARK_TYPES[status] ?? (status >= 500 ? 'InternalServerError' : 'BadRequest');
}

/** The code and message a vendor answers with for `status` when a fault does not name them. */
export function defaultVendorError(vendor: Vendor, status: number): { code: string; message: string } {
  if (vendor === 'ark') {
    if (status === 401)
      return {
        code: 'AuthenticationError',
        message: 'The API key or AK/SK in the request is missing or invalid.',
      };
    if (status === 403)
      return { code: 'AccessDenied', message: 'You do not have access to the requested resource.' };
    if (status === 404)
      return { code: 'ModelNotOpen', message: 'Your account has not activated the model service.' };
    if (status === 429)
      return {
        code: 'ServerOverloaded',
        message: 'The service is currently overloaded, please try again later.',
      };
    if (status >= 500)
      return {
        code: 'InternalServiceError',
        message: 'The service encountered an unexpected internal error.',
      };
    return { code: 'InvalidParameter', message: 'The request failed because a parameter is invalid.' };
  }
  if (status === 401) return { code: 'InvalidApiKey', message: 'Invalid API-key provided.' };
  if (status === 403) return { code: 'AccessDenied', message: 'Access denied.' };
  if (status === 404) return { code: 'NotFound', message: 'The requested resource was not found.' };
  if (status === 429) return { code: 'Throttling', message: 'Requests throttling triggered.' };
  if (status === 503)
    return {
      code: 'ServiceUnavailable',
      message: 'The service is temporarily unavailable, please try again later.',
    };
  if (status >= 500) {
    return {
      code: 'InternalError',
      message: 'An internal error has occured, please try again later or contact service support.',
    };
  }
  return { code: 'InvalidParameter', message: 'The request parameters are invalid.' };
}

/** The body and headers that carry `err` to the client in its vendor's envelope. */
export function renderVendorError(err: VendorError): { body: unknown; headers: Record<string, string> } {
  if (err.vendor === 'dashscope') {
    return {
      body: { code: err.code, message: err.message, request_id: dashscopeRequestId() },
      headers: err.headers,
    };
  }
  if (err.vendor === 'ark') {
    const requestId = arkRequestId();
    const body = {
      error: {
        code: err.code,
        message: `${err.message} Request id: ${requestId}`,
        param: err.param ?? '',
        type: arkErrorType(err.status),
      },
    };
    return { body, headers: { 'x-request-id': requestId, ...err.headers } };
  }
  return { body: { error: { code: err.code, message: err.message } }, headers: err.headers };
}

/** Which envelope a path belongs to: `/api/v3` is Ark, `/api/v1` is DashScope, the rest is the sim's. */
export function vendorForPath(path: string): Vendor {
  if (path.startsWith('/api/v3/')) return 'ark';
  if (path.startsWith('/api/v1/')) return 'dashscope';
  return 'sim';
}
