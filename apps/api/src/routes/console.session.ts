import {
  authenticateSession,
  checkLogin,
  createSession,
  getAccountView,
  revokeSession,
} from '@mediagate/shared/accounts';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { clientAddressGroup, clientIp } from '../ip-rules';
import { parseBody } from '../middleware/body';
import {
  clearSessionCookie,
  presentedSessionToken,
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
 * POST /console/api/logout: ends the presented session. GET /console/api/me: the account (401
 * without a session, as every session route). GET /console/api/session: who is signed in, 200
 * either way (`signed_in` false without a valid session): the console asks it on every load, and a
 * visitor who is not signed in is not an error (a 401 would be logged by the browser on every
 * anonymous visit). An anonymous answer counts against the address's limit of the sign-in routes
 * (429 past it); a signed-in one against the account's console limit.
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

  router.get('/session', async (req, res) => {
    const token = presentedSessionToken(req);
    res.setHeader('cache-control', 'no-store');
    // a presented token that does not authenticate is a guess: an address past its limit of
    // guesses is refused before its token is looked up; a request with no token is not counted
    // (every signed-out page load asks); a signed-in check counts against the account's limit
    if (token) await deps.rateLimits.sessionGuesses.check(clientAddressGroup(req));
    const session = token ? await authenticateSession(deps.database.db, token) : null;
    const account = session ? await getAccountView(deps.database.db, session.accountId) : null;
    if (!session || !account) {
      if (token) await deps.rateLimits.sessionGuesses.count(clientAddressGroup(req));
      res.status(200).json({ object: 'session_state', signed_in: false, account: null });
      return;
    }
    await deps.rateLimits.perMinute(res, 'console', session.accountId, deps.rateLimits.config.consoleRpm);
    res.status(200).json({ object: 'session_state', signed_in: true, account: accountObject(account) });
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
  op('GET /console/api/session', 'Who is signed in: 200 with signed_in false without a session', {
    auth: 'none',
    200: consoleObject('SessionState', {
      object: z.literal('session_state'),
      signed_in: z.boolean(),
      account: accountSchema.nullable().describe('the signed-in account; null when signed_in is false'),
    }),
  }),
];

export const route: Route = { mount: '/console/api', contracts, register };
