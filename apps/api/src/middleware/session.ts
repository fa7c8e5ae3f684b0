import { authenticateSession, type SessionPrincipal } from '@mediagate/shared/accounts';
import type { Database } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import type { Request, RequestHandler, Response } from 'express';
import type { RateLimits } from './rate-limit';
import { bindRequestLog } from './request-context';

declare global {
  namespace Express {
    interface Request {
      consoleSession?: SessionPrincipal;
    }
  }
}

export const SESSION_COOKIE = 'mg_session';

/** The console session of the request; only valid behind `requireSession`. */
export function sessionOf(req: Request): SessionPrincipal {
  if (!req.consoleSession) throw new ApiError('invalid_session', 'Log in first.');
  return req.consoleSession;
}

/**
 * The session token presented as `Authorization: Bearer cs_...` or in the session cookie, never
 * both ways at once: a request with an Authorization header is authenticated by that header alone
 * (an API key, anything else, or nothing there is no session, whatever cookie comes along), so
 * the cookie authenticates only requests that the cross-site check (csrf.ts) has looked at.
 */
export function presentedSessionToken(req: Request): string | undefined {
  if (req.headers.authorization !== undefined) {
    return /^Bearer\s+(cs_\S+)\s*$/i.exec(req.headers.authorization)?.[1];
  }
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name !== SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(value.join('='));
    } catch {
      return undefined; // a malformed escape (`%`, `%zz`) is no session, not a server error
    }
  }
  return undefined;
}

/**
 * Whether the session cookie is Secure (sent over HTTPS only): SESSION_COOKIE_SECURE when set,
 * else yes unless the public URL is plain http (a development machine).
 */
export function sessionCookieSecure(config: {
  SESSION_COOKIE_SECURE?: boolean;
  PUBLIC_BASE_URL?: string;
}): boolean {
  return config.SESSION_COOKIE_SECURE ?? !/^http:/i.test(config.PUBLIC_BASE_URL ?? '');
}

/**
 * Sets the session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site's page
 * can make the browser send it, which is the console's CSRF protection), Secure as
 * `sessionCookieSecure` says.
 */
export function setSessionCookie(res: Response, token: string, expiresAt: Date, secure: boolean): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    expires: expiresAt,
    path: '/',
  });
}

export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', secure, path: '/' });
}

export interface SessionAuthDeps {
  database: Database;
  rateLimits: RateLimits;
}

/**
 * Requires a live console session (cookie or bearer `cs_` token) of an active account: 401
 * `invalid_session` otherwise. Counts the account's console requests per minute (x-ratelimit-*
 * headers, 429 past the limit).
 */
export function requireSession(deps: SessionAuthDeps): RequestHandler {
  return async (req, res, next) => {
    const token = presentedSessionToken(req);
    const session = token ? await authenticateSession(deps.database.db, token) : null;
    if (!session) {
      return next(
        new ApiError('invalid_session', 'Log in to the console first (missing, expired or ended session).'),
      );
    }
    req.consoleSession = session;
    bindRequestLog(req, { accountId: session.accountId });
    try {
      await deps.rateLimits.perMinute(res, 'console', session.accountId, deps.rateLimits.config.consoleRpm);
      next();
    } catch (err) {
      next(err);
    }
  };
}

/**
 * Requires the session of an admin account: 401 without a session, 403 `permission_denied` for
 * anyone else. Reusable for every operator surface (/admin/api, and /admin/queues later).
 */
export function requireAdmin(deps: SessionAuthDeps): RequestHandler[] {
  const admin: RequestHandler = (req, _res, next) => {
    if (sessionOf(req).role !== 'admin') {
      return next(new ApiError('permission_denied', 'Only operators may use this endpoint.'));
    }
    next();
  };
  return [requireSession(deps), admin];
}
