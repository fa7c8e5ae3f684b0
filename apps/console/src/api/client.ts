import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';

/** An error answer of the API, `{"error": {message, type, code, param}}`, or a network failure. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly param: string | null = null,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface ErrorEnvelope {
  error?: { message?: unknown; code?: unknown; param?: unknown };
}

/** The ApiError of a non-2xx answer, in the words the API gave. */
export function errorFromAnswer(status: number, body: unknown, headers?: Headers): ApiError {
  const e = (body as ErrorEnvelope | null)?.error;
  const retry = Number(headers?.get('retry-after'));
  return new ApiError(
    typeof e?.message === 'string' ? e.message : `The server answered ${status}.`,
    status,
    typeof e?.code === 'string' ? e.code : 'http_error',
    typeof e?.param === 'string' ? e.param : null,
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}

/**
 * Calls go to the same origin, where the API sets the HttpOnly session cookie; nothing secret is
 * kept by the page. A failed connection becomes an ApiError too, so every failure has words.
 */
const networkErrors: Middleware = {
  onError({ error }) {
    return new ApiError(
      `The server could not be reached (${error instanceof Error ? error.message : String(error)}).`,
      0,
      'network_error',
    );
  },
};

export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  // looked up at each call (not captured once), so tests can answer for the server
  fetch: (request) => globalThis.fetch(request),
});
api.use(networkErrors);

/** The answer's data, or throws its ApiError (openapi-fetch returns `{data, error, response}`). */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromAnswer(response.status, error, response.headers);
  return data as NonNullable<T>;
}

/** A JSON call to a route that the generated types do not know yet (contracts built in parallel). */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers:
        body === undefined
          ? { accept: 'application/json' }
          : { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(`The server could not be reached (${(err as Error).message}).`, 0, 'network_error');
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  if (!response.ok) throw errorFromAnswer(response.status, parsed, response.headers);
  return parsed as T;
}
