import createClient, { type ClientPathsWithMethod, type Middleware } from 'openapi-fetch';
import createQueryHooks from 'openapi-react-query';
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

/** A non-2xx answer rejects the call with its ApiError, so queries and mutations fail the same way. */
const answerErrors: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    const text = await response.text().catch(() => '');
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    throw errorFromAnswer(response.status, body, response.headers);
  },
};

/** The client typed from the API's OpenAPI documents (/openapi.json and /admin/api/openapi.json). */
export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  // looked up at each call (not captured once), so tests can answer for the server
  fetch: (request) => globalThis.fetch(request),
});
api.use(networkErrors, answerErrors);

/**
 * React Query hooks over the same client: `$api.useQuery('get', path, init)` keys a query by
 * `['get', path, init]`, so keys come from the documented routes, never from strings of a page.
 */
export const $api = createQueryHooks(api);

/** The key prefix of every query of a GET route, whatever its parameters (to invalidate or seed them). */
export const keyOf = <P extends ClientPathsWithMethod<typeof api, 'get'>>(path: P) => ['get', path] as const;

/** The answer's data, or throws its ApiError (openapi-fetch returns `{data, error, response}`). */
export async function unwrap<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromAnswer(response.status, error, response.headers);
  return data as NonNullable<T>;
}
