/**
 * The one error type that reaches HTTP clients. Its code decides the HTTP status and the OpenAI
 * error `type`; the error middleware turns it into `{"error": {message, type, code, param}}`.
 * Shared modules throw the domain errors below instead (no HTTP in them); the API's error
 * middleware maps each of those to an ApiError.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  /** an OpenAI video operation this gateway's models cannot do (remix, edit, extend, characters) */
  unsupported_operation: { status: 400, type: 'invalid_request_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  invalid_session: { status: 401, type: 'authentication_error' },
  invalid_credentials: { status: 401, type: 'authentication_error' },
  invalid_signature: { status: 401, type: 'authentication_error' },
  insufficient_quota: { status: 402, type: 'insufficient_quota' },
  permission_denied: { status: 403, type: 'permission_error' },
  model_not_found: { status: 404, type: 'not_found_error' },
  not_found: { status: 404, type: 'not_found_error' },
  /** the task's video is past its retention (or the vendor's link died before a copy was made) */
  video_expired: { status: 404, type: 'not_found_error' },
  /** the task's video was deleted by its owner */
  video_deleted: { status: 404, type: 'not_found_error' },
  /** the task has not succeeded (yet): there is no video */
  video_not_ready: { status: 404, type: 'not_found_error' },
  /** the video is kept, but not this variant of it (no first frame could be made, or not yet) */
  thumbnail_unavailable: { status: 404, type: 'not_found_error' },
  /** a media link whose signature does not match */
  invalid_media_link: { status: 403, type: 'permission_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  conflict: { status: 409, type: 'invalid_request_error' },
  request_too_large: { status: 413, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  range_not_satisfiable: { status: 416, type: 'invalid_request_error' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  server_error: { status: 500, type: 'server_error' },
  service_unavailable: { status: 503, type: 'server_error' },
} as const satisfies Record<string, { status: number; type: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
  }

  toBody(): { error: { message: string; type: string; code: string; param: string | null } } {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param ?? null } };
  }
}

/**
 * What a client is told when a value carries a NUL character. Postgres cannot store one in text or
 * jsonb, so a request that would store it (a video task) fails there, and a request that stores
 * nothing (an image call, whose prompt only goes upstream) is refused with the same message.
 */
export const NUL_CHARACTER_MESSAGE =
  'The request contains a NUL character (\\u0000 or %00), which no text value may hold.';

/** True when `value` holds a NUL character (U+0000). */
export const hasNulCharacter = (value: string): boolean => value.includes('\u0000');

/** An upstream vendor call that did not produce a usable answer. `retryable` says whether trying again may help. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly details: {
      vendor: string;
      /** the channel that answered (or failed to) */
      channel?: string;
      status?: number;
      code?: string;
      /** the request field the vendor blamed, when it said */
      param?: string;
      retryable: boolean;
      /** true when the request certainly did not create anything upstream (no response body was accepted) */
      notCreated?: boolean;
      retryAfterMs?: number;
    },
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
  get retryable(): boolean {
    return this.details.retryable;
  }
}

/** An error named after its class (`err.name` is `PermissionDeniedError`, ...), as logs and tests read it. */
export class NamedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The account's balance (or the key's quota) does not cover the price of the call. */
export class InsufficientQuotaError extends NamedError {
  constructor(message = 'Your balance is too low for this request. Top up your account to continue.') {
    super(message);
  }
}

/** The key may not be used for this call (a model outside its allow-list, a caller outside its IP list). */
export class PermissionDeniedError extends NamedError {}

/** The account already has as many unfinished video tasks as it may; `retryAfterSeconds` is a hint. */
export class ConcurrencyLimitError extends NamedError {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds = 10,
  ) {
    super(
      `Your account already has ${limit} unfinished video task${limit === 1 ? '' : 's'}, its limit. Wait for one to finish and retry.`,
    );
  }
}

/**
 * A request value the operation cannot accept (a bad parameter, an image outside the model's
 * rules, a prompt the vendor refused); `param` names the field when one is to blame.
 */
export class InvalidInputError extends NamedError {
  constructor(
    message: string,
    readonly param?: string,
  ) {
    super(message);
  }
}

/** The upstream model is throttling the gateway on every channel; `retryAfterSeconds` is the vendor's hint. */
export class UpstreamRateLimitedError extends NamedError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * The upstream model could not serve the call on any channel (it refused the gateway, failed,
 * timed out): a fault on the gateway's side, not the client's. `retryAfterSeconds` when the vendor hinted.
 */
export class UpstreamUnavailableError extends NamedError {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A call's outcome could not be billed, so it was not delivered and will be refunded; retry shortly. */
export class BillingUnavailableError extends NamedError {
  readonly retryAfterSeconds = 5;
}

/** A call ran past its settlement bound and was refunded in full: a fault on the gateway's side. */
export class CallRefundedError extends NamedError {}

/** Configuration is missing or wrong; the message names every offending variable. */
export class ConfigError extends NamedError {}
