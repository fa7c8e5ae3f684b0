import type { AccountView, TokenView } from '@mediagate/shared/accounts';
import { consoleObject, unixSeconds } from '@mediagate/shared/contracts';
import { z } from 'zod';

/** micro-USD as a USD number for display (the *_micro_usd fields carry the exact integer). */
export const usd = (micro: number): number => micro / 1_000_000;

const seconds = (d: Date | null): number | null => (d ? Math.floor(d.getTime() / 1000) : null);

export { unixSeconds };

export const tokenSchema = consoleObject('Token', {
  id: z.string(),
  name: z.string(),
  display_prefix: z.string(),
  status: z.enum(['active', 'disabled', 'deleted']),
  quota_usd: z.number().nullable(),
  quota_micro_usd: z.number().int().nullable(),
  used_usd: z.number(),
  used_micro_usd: z.number().int(),
  expires_at: unixSeconds.nullable(),
  allowed_models: z.array(z.string()).nullable(),
  allowed_ips: z.array(z.string()).nullable(),
  created_at: unixSeconds.nullable(),
  last_used_at: unixSeconds.nullable(),
});

export const accountSchema = consoleObject('Account', {
  id: z.string(),
  email: z.string(),
  status: z.enum(['active', 'disabled']),
  role: z.enum(['user', 'admin']),
  balance_usd: z.number(),
  balance_micro_usd: z.number().int(),
  limits: z.object({ rpm: z.number().int().nullable(), max_active_video_tasks: z.number().int().nullable() }),
  created_at: unixSeconds.nullable(),
});

/** A key as the console shows it: never the key itself. */
export function tokenObject(t: TokenView) {
  return {
    object: 'token',
    id: t.id,
    name: t.name,
    display_prefix: t.displayPrefix,
    status: t.status === 'revoked' ? 'deleted' : t.status,
    quota_usd: t.quotaMicroUsd === null ? null : usd(t.quotaMicroUsd),
    quota_micro_usd: t.quotaMicroUsd,
    used_usd: usd(t.usedMicroUsd),
    used_micro_usd: t.usedMicroUsd,
    expires_at: seconds(t.expiresAt),
    allowed_models: t.allowedModels,
    allowed_ips: t.allowedIps,
    created_at: seconds(t.createdAt),
    last_used_at: seconds(t.lastUsedAt),
  };
}

export function accountObject(a: AccountView) {
  return {
    object: 'account',
    id: a.id,
    email: a.email,
    status: a.status,
    role: a.role,
    balance_usd: usd(a.balanceMicroUsd),
    balance_micro_usd: a.balanceMicroUsd,
    limits: { rpm: a.rpmLimit, max_active_video_tasks: a.maxActiveVideoTasks },
    created_at: seconds(a.createdAt),
  };
}

export const toSeconds = seconds;

/** A keyset-paged list of the console, newest first: `next_cursor` is the next page's `before`. */
export const cursorPage = (item: z.ZodType, id: string) =>
  z
    .object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable().describe('pass as `before` for the next page'),
    })
    .meta({ id });

/** Query of a keyset-paged list, newest first: `limit` (1-100, default 20), `before` (a next_cursor). */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: z
    .string()
    .regex(/^\d{1,18}$/, 'must be a next_cursor from a previous page')
    .transform(Number)
    .optional(),
});

export { usdAmount } from '@mediagate/shared/contracts';

export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ message: 'must be an e-mail address' }));
