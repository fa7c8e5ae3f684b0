import {
  abandonPasswordReset,
  changePassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  PasswordResetFailedError,
  type PasswordResetPolicy,
  resetPassword,
  startPasswordReset,
  WrongPasswordError,
} from '@mediagate/shared/accounts';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { clientAddressGroup } from '../ip-rules';
import { announceKeyChange } from '../key-revocations';
import { passwordResetMail } from '../mail/mailer';
import { parseBody } from '../middleware/body';
import { requireSession, sessionOf } from '../middleware/session';
import { endpoints, type Route, type RouteContract } from '../route';
import { emailField } from './console-views';

const newPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`);

const revokeKeysField = z
  .boolean()
  .default(false)
  .describe(
    'also delete every API key of the account (for an account someone else may have used: keys they made stop at once); default false: keys keep working',
  );

export const forgotBody = z.strictObject({ email: emailField });
export const resetBody = z.strictObject({
  email: emailField,
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, 'must be the 6-digit code from the e-mail'),
  password: newPassword,
  revoke_keys: revokeKeysField,
});
export const changeBody = z.strictObject({
  current_password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  new_password: newPassword,
  revoke_keys: revokeKeysField,
});

function resetPolicy(config: ApiDeps['config']): PasswordResetPolicy {
  return {
    codeTtlMs: config.VERIFICATION_CODE_TTL_MS,
    maxAttempts: config.VERIFICATION_MAX_ATTEMPTS,
    resendCooldownMs: config.VERIFICATION_RESEND_COOLDOWN_MS,
  };
}

/**
 * POST /console/api/password/forgot {email}: mails a 6-digit reset code; 202 whether or not the
 * address has an account (nothing is revealed; within the cool-down no new code is sent).
 * POST /console/api/password/reset {email, code, password}: sets the new password and ends every
 * session of the account (200). POST /console/api/password/change {current_password,
 * new_password}: for a signed-in account; its other sessions end.
 */
export function register(router: Router, deps: ApiDeps): void {
  const policy = resetPolicy(deps.config);
  const body = parseBody({ limitBytes: 16 * 1024 });

  router.post('/password/forgot', ...body, async (req, res) => {
    const { email } = forgotBody.parse(req.body ?? {});
    await deps.rateLimits.authAttempt('reset', email, clientAddressGroup(req));
    // Whether the address has an account is looked up, and the code mailed, after the answer, so
    // known and unknown addresses get the same answer in the same time. A code whose mail failed
    // is withdrawn (the failure is logged), so asking again sends one at once.
    deps.mailer.sendLater('password reset', async () => {
      const start = await startPasswordReset(deps.database.db, email, policy);
      if (!start) return;
      try {
        await deps.mailer.send(passwordResetMail(start.email, start.code, policy.codeTtlMs));
      } catch (err) {
        await abandonPasswordReset(deps.database.db, start);
        throw err;
      }
    });
    res.status(202).json({
      object: 'password_reset',
      email,
      status: 'code_sent_if_registered',
      expires_in: Math.round(policy.codeTtlMs / 1000),
    });
  });

  router.post('/password/reset', ...body, async (req, res) => {
    const { email, code, password, revoke_keys } = resetBody.parse(req.body ?? {});
    await deps.rateLimits.authAttempt('reset-verify', email, clientAddressGroup(req));
    let keysRevoked: number;
    try {
      const done = await resetPassword(
        deps.database.db,
        { email, code, password, revokeKeys: revoke_keys },
        policy,
      );
      keysRevoked = done.keysRevoked;
      if (keysRevoked > 0) await announceKeyChange(deps, { accountId: done.accountId });
      req.log.info({ accountId: done.accountId, keysRevoked }, 'password reset; every session ended');
    } catch (err) {
      if (err instanceof PasswordResetFailedError) throw new ApiError('invalid_request', err.message, 'code');
      throw err;
    }
    res
      .status(200)
      .json({ object: 'password_reset', status: 'reset', sessions_ended: true, keys_revoked: keysRevoked });
  });

  router.post('/password/change', requireSession(deps), ...body, async (req, res) => {
    const b = changeBody.parse(req.body ?? {});
    const session = sessionOf(req);
    // a stolen session must not be able to guess the current password at leisure
    await deps.rateLimits.authAttempt('password-change', session.email, clientAddressGroup(req));
    let keysRevoked: number;
    try {
      ({ keysRevoked } = await changePassword(deps.database.db, {
        accountId: session.accountId,
        currentPassword: b.current_password,
        newPassword: b.new_password,
        keepSessionId: session.sessionId,
        revokeKeys: b.revoke_keys,
      }));
    } catch (err) {
      if (err instanceof WrongPasswordError) {
        throw new ApiError('invalid_request', err.message, 'current_password');
      }
      throw err;
    }
    if (keysRevoked > 0) await announceKeyChange(deps, { accountId: session.accountId });
    req.log.info({ accountId: session.accountId, keysRevoked }, 'password changed; other sessions ended');
    res.status(200).json({
      object: 'password_change',
      status: 'changed',
      other_sessions_ended: true,
      keys_revoked: keysRevoked,
    });
  });
}

const resetRequested = consoleObject('PasswordResetRequested', {
  email: z.string(),
  status: z.string(),
  expires_in: z.number().int(),
});

const op = endpoints({ tag: 'console', auth: 'none' });

export const contracts: RouteContract[] = [
  op(
    'POST /console/api/password/forgot',
    'Mail a password reset code (202 whether or not the address has an account)',
    { body: forgotBody, 202: resetRequested },
  ),
  op(
    'POST /console/api/password/reset',
    'Set a new password with the e-mailed code; every session of the account ends; with revoke_keys, every API key is deleted too',
    {
      body: resetBody,
      200: consoleObject('PasswordReset', {
        status: z.string(),
        sessions_ended: z.boolean(),
        keys_revoked: z.number().int().describe('API keys deleted (revoke_keys)'),
      }),
      400: 'wrong or expired code',
    },
  ),
  op(
    'POST /console/api/password/change',
    'Change the password (the current one is needed); other sessions end; with revoke_keys, every API key is deleted too',
    {
      auth: 'session',
      body: changeBody,
      200: consoleObject('PasswordChanged', {
        status: z.string(),
        other_sessions_ended: z.boolean(),
        keys_revoked: z.number().int().describe('API keys deleted (revoke_keys)'),
      }),
      400: 'wrong current password',
    },
  ),
];

export const route: Route = { mount: '/console/api', contracts, register };
