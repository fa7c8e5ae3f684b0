import { eq, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { type AccountWebhookSettingsRow, accountWebhookSettings } from '../db/schema';
import { generateWebhookSecret } from './signing';

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_ROTATION_OVERLAP_MS = 24 * 3_600_000;

/**
 * The account's webhook settings, created with a fresh secret on first use. Idempotent and safe
 * under concurrency: two first calls create one row and both see the same secret.
 */
export async function getWebhookSettings(db: DbOrTx, accountId: string): Promise<AccountWebhookSettingsRow> {
  const found = await db
    .select()
    .from(accountWebhookSettings)
    .where(eq(accountWebhookSettings.accountId, accountId))
    .limit(1);
  if (found[0]) return found[0];
  await db
    .insert(accountWebhookSettings)
    .values({ accountId, secret: generateWebhookSecret() })
    .onConflictDoNothing();
  const rows = await db
    .select()
    .from(accountWebhookSettings)
    .where(eq(accountWebhookSettings.accountId, accountId))
    .limit(1);
  return rows[0]!;
}

/**
 * Replaces the account's secret with a new one, atomically. The replaced secret keeps signing
 * (a second signature on every delivery) for `overlapMs`, so receivers can switch without
 * rejecting anything; a second rotation within that window drops the oldest secret.
 */
export async function rotateWebhookSecret(
  db: DbOrTx,
  accountId: string,
  opts: { overlapMs?: number; now?: Date } = {},
): Promise<AccountWebhookSettingsRow> {
  await getWebhookSettings(db, accountId);
  const now = opts.now ?? new Date();
  const rows = await db
    .update(accountWebhookSettings)
    .set({
      // the right-hand side reads the row before the update: the current secret becomes the previous one
      previousSecret: sql`${accountWebhookSettings.secret}`,
      previousSecretExpiresAt: new Date(now.getTime() + (opts.overlapMs ?? SECRET_ROTATION_OVERLAP_MS)),
      secret: generateWebhookSecret(),
      rotatedAt: now,
      updatedAt: now,
    })
    .where(eq(accountWebhookSettings.accountId, accountId))
    .returning();
  return rows[0]!;
}

/** Sets which optional events the account receives. Returns the settings. */
export async function updateWebhookEvents(
  db: DbOrTx,
  accountId: string,
  events: { sendProcessing: boolean },
): Promise<AccountWebhookSettingsRow> {
  await getWebhookSettings(db, accountId);
  const rows = await db
    .update(accountWebhookSettings)
    .set({ sendProcessing: events.sendProcessing, updatedAt: new Date() })
    .where(eq(accountWebhookSettings.accountId, accountId))
    .returning();
  return rows[0]!;
}

/**
 * The opt-in rule of `video.processing`, as a condition on the account `accountId` (a value or a
 * column of the statement): whether its webhook settings send it. False without settings.
 */
export function processingEventsOn(accountId: SQL | string): SQL {
  return sql`exists (select 1 from account_webhook_settings w where w.account_id = ${accountId} and w.send_processing)`;
}

/** Whether the account opted in to `video.processing` (see processingEventsOn). Creates nothing. */
export async function processingEventsEnabled(db: DbOrTx, accountId: string): Promise<boolean> {
  const { rows } = await db.execute<{ on: boolean }>(sql`select ${processingEventsOn(accountId)} as on`);
  return rows[0]?.on === true;
}

/** The secrets that sign a delivery sent at `now`: the current one, and the previous one while its overlap lasts. */
export function activeSigningSecrets(settings: AccountWebhookSettingsRow, now = new Date()): string[] {
  const out = [settings.secret];
  if (
    settings.previousSecret &&
    settings.previousSecretExpiresAt &&
    settings.previousSecretExpiresAt.getTime() > now.getTime()
  ) {
    out.push(settings.previousSecret);
  }
  return out;
}
