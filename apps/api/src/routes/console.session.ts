import { checkLogin, createSession, getAccountView, revokeSession } from '@mediagate/shared/accounts';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { clientAddressGroup, clientIp } from '../ip-rules';
import { parseBody } from '../middleware/body';
import {
  clearSessionCookie,
  requireSession,
  sessionCookieSecure,
  sessionOf,
  setSessionCookie,
} from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import { accountObject, accountSchema, emailField, toSeconds, unixSeconds } from './console-views';

export const loginBody = z.strictObject({ email: emailField, password: z.string().min(1).max(256) });

/**
 * POST /console/api/login {email, password}: a console session (cookie and bearer token).
 * POST /console/api/logout: ends the presented session. GET /console/api/me: the account.
 */
export function register(router: Router, deps: ApiDeps): void {
  const secure = sessionCookieSecure(deps.config);

  router.post('/login', ...parseBody({ limitBytes: 16 * 1024 }), async (req, res) => {
    const { email, password } = loginBody.parse(req.body ?? {});
    const from = clientAddressGroup(req);
    await deps.rateLimits.authAttempt('login', email, from);
    const attempt = await deps.rateLimits.loginBackoff(email, from);
    const account = await checkLogin(deps.database.db, email, password);
    if (!account) throw new ApiError('invalid_credentials', 'Wrong e-mail or password.');
    await deps.rateLimits.loginSucceeded(email, from, attempt);
    const session = await createSession(deps.database.db, {
      accountId: account.accountId,
      ttlMs: deps.config.SESSION_TTL_MS,
      ip: clientIp(req),
      userAgent: req.headers['user-agent'],
    });
    setSessionCookie(res, session.token, session.expiresAt, secure);
    res.status(200).json({
      object: 'session',
      token: session.token,
      expires_at: toSeconds(session.expiresAt),
      account_id: account.accountId,
      role: account.role,
    });
  });

  router.post('/logout', requireSession(deps), async (req, res) => {
    await revokeSession(deps.database.db, sessionOf(req).sessionId);
    clearSessionCookie(res, secure);
    res.status(200).json({ object: 'session', ended: true });
  });

  router.get('/me', requireSession(deps), async (req, res) => {
    const account = await getAccountView(deps.database.db, sessionOf(req).accountId);
    if (!account) throw new ApiError('invalid_session', 'The account no longer exists.');
    res.status(200).json(accountObject(account));
  });
}

const session = consoleObject('Session', {
  token: z.string(),
  expires_at: unixSeconds,
  account_id: z.string(),
  role: z.enum(['user', 'admin']),
});

const op = endpoints({ tag: 'console', auth: 'session' });

export const contracts: RouteContract[] = [
  op('POST /console/api/login', 'Open a console session', { auth: 'none', body: loginBody, 200: session }),
  op('POST /console/api/logout', 'End the session', { 200: consoleObject('LoggedOut') }),
  op('GET /console/api/me', 'The signed-in account', { 200: accountSchema }),
];

export const route: Route = { mount: '/console/api', contracts, register };
