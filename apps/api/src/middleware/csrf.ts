import { ApiError } from '@mediagate/shared/errors';
import type { Request, RequestHandler } from 'express';
import { SESSION_COOKIE } from './session';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a cross-site state change made with the console's session cookie (403
 * `permission_denied`). It applies to requests that change something (not GET, HEAD, OPTIONS),
 * carry the session cookie and no Authorization header: a bearer-authenticated request (API
 * key or `cs_` token) cannot be forged by another site, which cannot set that header without a
 * CORS preflight the API never grants. Such a request passes when the browser says it is
 * same-origin (`Sec-Fetch-Site: same-origin`, or `none` for one the user started), or, from a
 * browser without Fetch Metadata, when `Origin` names this very host; a request with neither
 * header (not a browser: curl, scripts) passes. SameSite=Strict on the cookie is the first
 * line; this is the second.
 */
export function refuseCrossSiteCookieWrites(): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method) || req.headers.authorization !== undefined || !hasSessionCookie(req)) {
      return next();
    }
    const site = req.headers['sec-fetch-site'];
    if (typeof site === 'string') {
      return site === 'same-origin' || site === 'none' ? next() : next(refusal());
    }
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    return sameHost(origin, req) ? next() : next(refusal());
  };
}

function hasSessionCookie(req: Request): boolean {
  return (req.headers.cookie ?? '').split(';').some((part) => part.trim().startsWith(`${SESSION_COOKIE}=`));
}

/** Whether `origin` (scheme://host[:port]) is this request's own host, as the client addressed it. */
function sameHost(origin: string, req: Request): boolean {
  try {
    const { host } = new URL(origin);
    return host !== '' && host.toLowerCase() === (req.host ?? '').toLowerCase();
  } catch {
    return false; // "null" and anything unreadable
  }
}

const refusal = () =>
  new ApiError(
    'permission_denied',
    'Cross-site request refused: a change made with the console session must come from the console itself.',
  );
