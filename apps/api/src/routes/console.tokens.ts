import {
  createToken,
  DuplicateKeyNameError,
  deleteToken,
  type KeyLimits,
  listTokens,
  TooManyKeysError,
  updateToken,
} from '@mediagate/shared/accounts';
import { consoleObject } from '@mediagate/shared/contracts';
import { ApiError } from '@mediagate/shared/errors';
import type { Router } from 'express';
import { z } from 'zod';
import type { ApiDeps } from '../deps';
import { parseIpRule } from '../ip-rules';
import { announceKeyChange } from '../key-revocations';
import { parseBody } from '../middleware/body';
import { requireSession, sessionOf } from '../middleware/session';
import { type ContractDeps, endpoints, type Route, type RouteContract } from '../route';
import { tokenListSchema } from './account-views';
import { tokenObject, tokenSchema } from './console-views';

/** 9999-12-31T23:59:59Z */
const LATEST_UNIX_SECONDS = 253_402_300_799;

const name = z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters');

/** Bodies of POST /tokens and PATCH /tokens/:id (model ids are checked against the deployment's catalog). */
export function tokenBodies(deps: Pick<ApiDeps, 'catalog'>) {
  return {
    createBody: z.strictObject({ name, ...limitFields(deps) }),
    patchBody: z.strictObject({
      name: name.optional(),
      status: z.enum(['active', 'disabled']).optional(),
      ...limitFields(deps),
    }),
  };
}

function limitFields(deps: Pick<ApiDeps, 'catalog'>) {
  return {
    quota_usd: z
      .number()
      .min(0)
      .max(1_000_000_000)
      .transform((v) => Math.round(v * 1_000_000))
      .nullable()
      .optional(),
    expires_at: z
      .number()
      .int()
      .refine((s) => s * 1000 > Date.now(), { message: 'must be in the future (Unix seconds)' })
      // later than any date (JS dates end in the year 275760): no usable expiry, not a 500
      .max(LATEST_UNIX_SECONDS, 'must be a Unix time in seconds before the year 10000')
      .transform((s) => new Date(s * 1000))
      .nullable()
      .optional(),
    allowed_models: z
      .array(
        z
          .string()
          .refine((m) => deps.catalog.get(m) !== undefined, { message: 'must be a model id of the catalog' }),
      )
      .min(1)
      .max(100)
      .nullable()
      .optional(),
    allowed_ips: z
      .array(
        z.string().refine((r) => parseIpRule(r) !== null, { message: 'must be an IP address or CIDR block' }),
      )
      .min(1)
      .max(100)
      .nullable()
      .optional(),
  };
}

type LimitInput = {
  quota_usd?: number | null;
  expires_at?: Date | null;
  allowed_models?: string[] | null;
  allowed_ips?: string[] | null;
};

const toLimits = (b: LimitInput): KeyLimits => ({
  quotaMicroUsd: b.quota_usd,
  expiresAt: b.expires_at,
  allowedModels: b.allowed_models,
  allowedIps: b.allowed_ips?.map((r) => r.trim()),
});

const idParam = z.object({ id: z.string().regex(/^key_[0-9A-Z]{26}$/) });

const notFound = () => new ApiError('not_found', 'No such token.');

/**
 * Token management (console session): POST /console/api/tokens (the key is in this answer
 * only), GET /console/api/tokens, PATCH /console/api/tokens/:id (rename, status
 * active|disabled, limits), DELETE /console/api/tokens/:id. Disabling or deleting takes effect
 * on every API replica from the key's next request. A name another key of the account has
 * (case aside; deleted keys' names are free) is refused 409 `conflict` with param `name`.
 */
export function register(router: Router, deps: ApiDeps): void {
  const { db } = deps.database;
  const session = requireSession(deps);
  const body = parseBody({ limitBytes: 64 * 1024 });
  const { createBody, patchBody } = tokenBodies(deps);

  router.post('/tokens', session, ...body, async (req, res) => {
    const b = createBody.parse(req.body ?? {});
    try {
      const { key, token } = await createToken(db, sessionOf(req).accountId, {
        name: b.name,
        ...toLimits(b),
      });
      res.status(201).json({ ...tokenObject(token), key: key.key });
    } catch (err) {
      if (err instanceof TooManyKeysError) throw new ApiError('conflict', err.message);
      if (err instanceof DuplicateKeyNameError) throw new ApiError('conflict', err.message, 'name');
      throw err;
    }
  });

  router.get('/tokens', session, async (req, res) => {
    const tokens = await listTokens(db, sessionOf(req).accountId);
    res.status(200).json({ object: 'list', data: tokens.map(tokenObject) });
  });

  router.patch('/tokens/:id', session, ...body, async (req, res) => {
    const parsedId = idParam.safeParse(req.params);
    if (!parsedId.success) throw notFound();
    const b = patchBody.parse(req.body ?? {});
    const token = await updateToken(db, sessionOf(req).accountId, parsedId.data.id, {
      name: b.name,
      status: b.status,
      ...toLimits(b),
    }).catch((err: unknown) => {
      if (err instanceof DuplicateKeyNameError) throw new ApiError('conflict', err.message, 'name');
      throw err;
    });
    if (!token) throw notFound();
    await announceKeyChange(deps, { keyId: parsedId.data.id });
    res.status(200).json(tokenObject(token));
  });

  router.delete('/tokens/:id', session, async (req, res) => {
    const parsedId = idParam.safeParse(req.params);
    if (!parsedId.success || !(await deleteToken(db, sessionOf(req).accountId, parsedId.data.id))) {
      throw notFound();
    }
    await announceKeyChange(deps, { keyId: parsedId.data.id });
    res.status(200).json({ object: 'token', id: parsedId.data.id, deleted: true });
  });
}

const deletedTokenSchema = consoleObject('DeletedToken', {
  object: z.literal('token'),
  id: z.string(),
  deleted: z.literal(true),
});

export const createdTokenSchema = tokenSchema
  .extend({ key: z.string().describe('the sk- key; in this answer only') })
  .meta({ id: 'CreatedToken' });

export function contracts(deps: ContractDeps): RouteContract[] {
  const { createBody, patchBody } = tokenBodies(deps);
  const op = endpoints({ tag: 'console', auth: 'session' });
  return [
    op('POST /console/api/tokens', 'Create a key (shown once)', {
      body: createBody,
      201: createdTokenSchema,
    }),
    op('GET /console/api/tokens', "The account's keys", { 200: tokenListSchema }),
    op('PATCH /console/api/tokens/:id', 'Rename, disable, enable, or change limits', {
      body: patchBody,
      200: tokenSchema,
    }),
    op('DELETE /console/api/tokens/:id', 'Delete a key', { 200: deletedTokenSchema }),
  ];
}

export const route: Route = { mount: '/console/api', contracts, register };
