import type { Request, RequestHandler } from 'express';
import type { ApiDeps } from '../deps';
import { principalOf, requireApiKey } from './auth';
import { requireSession, sessionOf } from './session';

/**
 * How a route that acts on one account's resources learns the account: an API key (`/v1`) or a
 * console session (`/console/api`). A route written once against it is mounted under both.
 */
export interface AccountAuth {
  handlers: RequestHandler[];
  accountOf: (req: Request) => string;
}

export const apiKeyAuth = (deps: ApiDeps): AccountAuth => ({
  handlers: [requireApiKey(deps)],
  accountOf: (req) => principalOf(req).accountId,
});

export const sessionAuth = (deps: ApiDeps): AccountAuth => ({
  handlers: [requireSession(deps)],
  accountOf: (req) => sessionOf(req).accountId,
});
