import {
  isCommonPassword,
  MAX_PASSWORD_LENGTH,
  MIN_PASSWORD_LENGTH,
  type RegistrationStart,
  ResendCooldownError,
  resendRegistrationCode,
  startRegistration,
  VerificationFailedError,
} from '@mediagate/shared/accounts';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { clientAddressGroup } from '../ip-rules';
import { alreadyRegisteredMail, verificationMail } from '../mail/mailer';
import { parseBody } from '../middleware/body';
import { registrationPolicy } from '../policies';
import { endpoints, type Route, type RouteContract } from '../route';
import { emailField } from './console-views';

export const registerBody = z.strictObject({
  email: emailField,
  password: z
    .string()
    .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
    .max(MAX_PASSWORD_LENGTH, `must be at most ${MAX_PASSWORD_LENGTH} characters`)
    .refine((p) => !isCommonPassword(p), 'is one of the most common passwords; choose another'),
});
export const resendBody = z.strictObject({ email: emailField });

function cooldown(err: ResendCooldownError): ApiError {
  return new ApiError('rate_limit_exceeded', err.message, undefined, {
    'retry-after': String(Math.ceil(err.retryAfterMs / 1000)),
  });
}

/**
 * POST /console/api/register {email, password}: e-mails a 6-digit code (202). The answer, a
 * repeat's answer (429 within the cool-down) and the time taken are the same whether or not the
 * address already has an account (its owner gets a notice instead), so registration does not
 * reveal accounts. A common password is refused (400) before anything else.
 * POST /console/api/register/resend {email}: a new code, after the cool-down (429 before).
 */
export function register(router: Router, deps: ApiDeps): void {
  const policy = registrationPolicy(deps.config);
  const body = parseBody({ limitBytes: 16 * 1024 });
  const deliver = async (start: RegistrationStart) => {
    const mail =
      start.kind === 'code'
        ? verificationMail(start.email, start.code, policy.codeTtlMs)
        : alreadyRegisteredMail(start.email);
    try {
      await deps.mailer.send(mail);
    } catch (err) {
      deps.logger.error({ err }, 'could not send the registration e-mail');
      throw new ApiError('service_unavailable', 'The e-mail could not be sent. Try again in a minute.');
    }
  };
  const accepted = (email: string) => ({
    object: 'registration',
    email,
    status: 'code_sent',
    expires_in: Math.round(policy.codeTtlMs / 1000),
    /** seconds before another code can be asked for */
    resend_in: Math.ceil(policy.resendCooldownMs / 1000),
  });

  router.post('/register', ...body, async (req, res) => {
    const { email, password } = registerBody.parse(req.body ?? {});
    await deps.rateLimits.authAttempt('register', email, clientAddressGroup(req));
    let start: RegistrationStart;
    try {
      start = await startRegistration(deps.database.db, { email, password }, policy);
    } catch (err) {
      if (err instanceof ResendCooldownError) throw cooldown(err);
      throw err;
    }
    await deliver(start);
    res.status(202).json(accepted(email));
  });

  router.post('/register/resend', ...body, async (req, res) => {
    const { email } = resendBody.parse(req.body ?? {});
    await deps.rateLimits.authAttempt('register', email, clientAddressGroup(req));
    try {
      await deliver(await resendRegistrationCode(deps.database.db, email, policy));
    } catch (err) {
      if (err instanceof ResendCooldownError) throw cooldown(err);
      // Nothing pending (or already registered): answer as if sent, revealing nothing.
      if (!(err instanceof VerificationFailedError)) throw err;
    }
    res.status(202).json(accepted(email));
  });
}

const registrationAccepted = consoleObject('RegistrationAccepted', {
  email: z.string(),
  status: z.string(),
  expires_in: z.number().int().describe('seconds the code is valid'),
  resend_in: z.number().int().describe('seconds before another code can be asked for'),
});

const op = endpoints({ tag: 'console', auth: 'none' });

export const contracts: RouteContract[] = [
  op('POST /console/api/register', 'Start a registration: a 6-digit code is e-mailed', {
    body: registerBody,
    202: registrationAccepted,
  }),
  op('POST /console/api/register/resend', 'Send the code again (cool-down applies)', {
    body: resendBody,
    202: registrationAccepted,
  }),
];

export const route: Route = { mount: '/console/api', contracts, register };
