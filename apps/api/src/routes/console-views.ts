import type { AccountView, TokenView } from '@mediagate/shared';
import { z } from 'zod';

/** micro-USD as a USD number for display (the *_micro_usd fields carry the exact integer). */
export const usd = (micro: number): number => micro / 1_000_000;

const seconds = (d: Date | null): number | null => (d ? Math.floor(d.getTime() / 1000) : null);

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

/** Query of a keyset-paged list, newest first: `limit` (1-100, default 20), `before` (a next_cursor). */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  before: z
    .string()
    .regex(/^\d{1,18}$/, 'must be a next_cursor from a previous page')
    .transform(Number)
    .optional(),
});

export { usdAmount } from '../usd';

export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ message: 'must be an e-mail address' }));
