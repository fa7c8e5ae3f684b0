import { createSession, VerificationFailedError, verifyRegistration } from '@mediagate/shared/accounts';
import { consoleObject } from '@mediagate/shared/contracts';
import { pgErrorCode } from '@mediagate/shared/db';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { clientAddressGroup, clientIp } from '../ip-rules';
import { parseBody } from '../middleware/body';
import { sessionCookieSecure, setSessionCookie } from '../middleware/session';
import { registrationPolicy } from '../policies';
import { endpoint, type Route } from '../route';
import { emailField, toSeconds, unixSeconds, usd } from './console-views';

export const verifyBody = z.strictObject({
  email: emailField,
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'must be the 6-digit code from the e-mail'),
  /** the password given at registration: completing a registration needs both */
  password: z.string().min(1).max(256),
});

/**
 * POST /console/api/register/verify {email, code, password}: creates the account with the test
 * credit and a default key (shown once, here), logs it in, and answers 201. The password must be
 * the one given at registration, so a stranger who re-registers someone's address with a password
 * of their own cannot complete it with that person's code. A wrong code or password is a 400;
 * after the allowed number of wrong tries, or after it expired, the code no longer works.
 */
export function register(router: Router, deps: ApiDeps): void {
  const policy = registrationPolicy(deps.config);
  router.post('/register/verify', ...parseBody({ limitBytes: 16 * 1024 }), async (req, res) => {
    const { email, code, password } = verifyBody.parse(req.body ?? {});
    await deps.rateLimits.authAttempt('verify', email, clientAddressGroup(req));
    let created: Awaited<ReturnType<typeof verifyRegistration>>;
    try {
      created = await verifyRegistration(deps.database.db, { email, code, password }, policy);
    } catch (err) {
      if (err instanceof VerificationFailedError) throw new ApiError('invalid_request', err.message, 'code');
      if (pgErrorCode(err) === '23505') {
        throw new ApiError(
          'conflict',
          'This e-mail address already has an account; log in instead.',
          'email',
        );
      }
      throw err;
    }
    const session = await createSession(deps.database.db, {
      accountId: created.accountId,
      ttlMs: deps.config.SESSION_TTL_MS,
      ip: clientIp(req),
      userAgent: req.headers['user-agent'],
    });
    setSessionCookie(res, session.token, session.expiresAt, sessionCookieSecure(deps.config));
    req.log.info({ accountId: created.accountId }, 'account registered');
    res.status(201).json({
      object: 'account',
      id: created.accountId,
      email: created.email,
      balance_usd: usd(policy.signupCreditMicroUsd),
      balance_micro_usd: policy.signupCreditMicroUsd,
      api_key: {
        id: created.key.id,
        name: 'default',
        key: created.key.key,
        display_prefix: created.key.displayPrefix,
      },
      session: { token: session.token, expires_at: toSeconds(session.expiresAt) },
    });
  });
}

const registered = consoleObject('Registered', {
  id: z.string(),
  email: z.string(),
  balance_usd: z.number(),
  balance_micro_usd: z.number().int(),
  api_key: z.object({ id: z.string(), name: z.string(), key: z.string(), display_prefix: z.string() }),
  session: z.object({ token: z.string(), expires_at: unixSeconds }),
});

export const contract = endpoint(
  'POST /console/api/register/verify',
  'Confirm the code: creates the account, its default key and a session',
  { tag: 'console', auth: 'none', body: verifyBody, 201: registered },
);

export const route: Route = { mount: '/console/api', contracts: [contract], register };
