import { and, asc, eq, gt, gte, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import { fromDriverRow } from '../db/driver-row';
import { accounts, callbackDeliveries, type WebhookEndpointRow, webhookEndpoints } from '../db/schema';
import { newUlid } from '../ids';
import type { MailMessage } from '../mail';

export { WEBHOOK_ENDPOINT_STATUSES, type WebhookEndpointRow, type WebhookEndpointStatus } from '../db/schema';

/** Default of WEBHOOK_ENDPOINT_DISABLE_AFTER: how long an endpoint fails every delivery before it is disabled. */
export const DEFAULT_ENDPOINT_DISABLE_AFTER_MS = 5 * 86_400_000;

/**
 * The endpoint a callback URL belongs to: its scheme, host, port and path, without the query string
 * (which often names the task or carries a token) and the fragment; the host in lower case and a
 * default port left out, as the URL standard writes them. Null when `url` is not a URL.
 */
export function endpointUrlOf(url: string): string | null {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

/** An endpoint the dispatcher must not send to: a disabled one of the delivery's account. */
export interface DisabledEndpoint {
  id: string;
  url: string;
  notified: boolean;
}

/**
 * A column of the dispatcher's read of a delivery (getDeliveryToSend): the account's disabled
 * endpoints as JSON `[{id, url, notified}]`, usually none. `accountId` is the delivery's account column.
 */
export function disabledEndpointsOf(accountId: unknown) {
  return sql<DisabledEndpoint[] | null>`(
    select json_agg(json_build_object('id', e.id, 'url', e.url, 'notified', e.notified_at is not null))
    from webhook_endpoints e where e.account_id = ${accountId} and e.status = 'disabled')`;
}

/**
 * The statement a delivered attempt runs with its record (recordDeliveryAttempt): the endpoint's
 * run of failures is over. Touches only an endpoint that was failing; `source` is the CTE of the
 * updated delivery.
 */
export function endpointDeliveredSql(endpointUrl: unknown, at: unknown, source: string) {
  return sql`
    update webhook_endpoints e set failing_since = null, updated_at = ${at}::timestamptz
    from ${sql.raw(source)}
    where e.account_id = ${sql.raw(source)}.account_id and e.url = ${endpointUrl}::text
      and e.status = 'enabled' and e.failing_since is not null`;
}

/** What the record of a failed delivery writes to its endpoint (see endpointFailureSql). */
export interface EndpointFailureValues {
  /** the id a new endpoint row gets */
  newEndpointId: string;
  endpointUrl: string;
  error: string;
  at: string;
  /** a run of failures begun before this disables the endpoint */
  disableBefore: string;
  /** a run begun before this is forgiven and starts again */
  forgiveBefore: string;
}

/** The values of endpointFailureSql for a delivery to `url` that failed for good at `now`; null for no URL. */
export function endpointFailureValues(args: {
  url: string;
  error: string | null;
  disableAfterMs: number;
  now: Date;
}): EndpointFailureValues | null {
  const endpointUrl = endpointUrlOf(args.url);
  if (endpointUrl === null) return null;
  const t = args.now.getTime();
  return {
    newEndpointId: newEndpointId(),
    endpointUrl,
    error: (args.error ?? 'failed').slice(0, 500),
    at: args.now.toISOString(),
    disableBefore: new Date(t - args.disableAfterMs).toISOString(),
    forgiveBefore: new Date(t - 2 * args.disableAfterMs).toISOString(),
  };
}

/**
 * The record of a delivery that failed for good (its whole retry schedule, a 410, a refused
 * address) on its endpoint, with the disable rule, as one insert-or-update of the endpoint of
 * `source`'s `account_id` (`source`: a CTE name or a parenthesized subquery; nothing is written when
 * it has no row), `returning *`. The first such failure starts the endpoint's run of failures
 * (`failing_since`); a delivered attempt ends it (endpointDeliveredSql). When a failure comes more
 * than the period after the run began, the endpoint is disabled. A run older than twice the period
 * with no disable is forgiven and starts again, so scattered failures weeks apart never add up to a
 * disable. Each value is a value or (in a statement template) the placeholder of one.
 */
export function endpointFailureSql(v: { [K in keyof EndpointFailureValues]: unknown }, source: SQL): SQL {
  const since = sql`case when e.failing_since is null or e.failing_since < ${v.forgiveBefore}::timestamptz
    then ${v.at}::timestamptz else e.failing_since end`;
  const disabling = sql`e.status = 'enabled' and ${since} < ${v.disableBefore}::timestamptz`;
  return sql`
    insert into webhook_endpoints as e (id, account_id, url, failing_since, last_failure_at, last_error, updated_at)
    select ${v.newEndpointId}::text, src.account_id, ${v.endpointUrl}::text, ${v.at}::timestamptz,
           ${v.at}::timestamptz, ${v.error}::text, ${v.at}::timestamptz
    from ${source} src
    on conflict (account_id, url) do update set
      failing_since = ${since},
      last_failure_at = ${v.at}::timestamptz,
      last_error = ${v.error}::text,
      updated_at = ${v.at}::timestamptz,
      status = case when ${disabling} then 'disabled' else e.status end,
      disabled_at = case when ${disabling} then ${v.at}::timestamptz else e.disabled_at end,
      disabled_reason = case when ${disabling}
        then 'Every delivery failed for good since '
          || to_char(${since} at time zone 'UTC', 'YYYY-MM-DD HH24:MI "UTC"') || '; the last: ' || ${v.error}::text
        else e.disabled_reason end,
      notified_at = case when ${disabling} then null else e.notified_at end
    returning *`;
}

/**
 * Records, on its own, a delivery of `accountId` to `url` that failed for good (endpointFailureSql;
 * the dispatcher composes it into the record of the attempt instead). Returns the endpoint and
 * whether this failure disabled it; null for no URL.
 */
export async function recordEndpointFailure(
  db: DbOrTx,
  args: { accountId: string; url: string; error: string | null; disableAfterMs: number; now?: Date },
): Promise<{ endpoint: WebhookEndpointRow; disabledNow: boolean } | null> {
  const now = args.now ?? new Date();
  const v = endpointFailureValues({ ...args, now });
  if (!v) return null;
  const { rows } = await db.execute<Record<string, unknown>>(
    endpointFailureSql(v, sql`(select ${args.accountId}::text as account_id)`),
  );
  if (!rows[0]) return null;
  const endpoint = fromDriverRow(webhookEndpoints, rows[0]);
  return {
    endpoint,
    disabledNow: endpoint.status === 'disabled' && endpoint.disabledAt?.getTime() === now.getTime(),
  };
}

export function newEndpointId(): string {
  return `ep_${newUlid()}`;
}

/**
 * Holds a pending delivery whose endpoint is disabled: it is not sent, and waits (status `held`)
 * until the endpoint is enabled again. Holds nothing unless the endpoint is still disabled: the
 * endpoint's row is read with a share lock, so a concurrent enable either comes first (and nothing
 * is held) or waits for this hold and then releases it. Returns whether the delivery was held.
 */
export async function holdDelivery(
  db: DbOrTx,
  deliveryId: string,
  endpointId: string,
  now = new Date(),
): Promise<boolean> {
  const { rows } = await db.execute(sql`
    update callback_deliveries set status = 'held', held_for = ${endpointId}, updated_at = ${now.toISOString()}::timestamptz
    where id = ${deliveryId} and status = 'pending'
      and exists (select 1 from webhook_endpoints e where e.id = ${endpointId} and e.status = 'disabled' for share)
    returning id`);
  return rows.length > 0;
}

/**
 * Claims the disabled endpoint's notice (so one dispatcher of the fleet mails its owner): sets
 * `notified_at` when it was unset and answers the owner's e-mail; null when it was claimed before
 * or the endpoint is enabled. A notice that could not be sent is given back with releaseNotice.
 */
export async function claimDisabledNotice(
  db: DbOrTx,
  endpointId: string,
  now = new Date(),
): Promise<{ endpoint: WebhookEndpointRow; email: string } | null> {
  const [row] = await db
    .update(webhookEndpoints)
    .set({ notifiedAt: now })
    .where(
      and(
        eq(webhookEndpoints.id, endpointId),
        eq(webhookEndpoints.status, 'disabled'),
        isNull(webhookEndpoints.notifiedAt),
      ),
    )
    .returning();
  if (!row) return null;
  const [owner] = await db
    .select({ email: accounts.email })
    .from(accounts)
    .where(eq(accounts.id, row.accountId));
  return owner ? { endpoint: row, email: owner.email } : null;
}

/** Gives back a claimed notice that could not be sent, for the next held delivery to try again. */
export async function releaseNotice(db: DbOrTx, endpointId: string): Promise<void> {
  await db.update(webhookEndpoints).set({ notifiedAt: null }).where(eq(webhookEndpoints.id, endpointId));
}

/** The account's endpoints that ever failed for good, disabled ones first, then by URL. */
export async function listWebhookEndpoints(db: DbOrTx, accountId: string): Promise<WebhookEndpointRow[]> {
  return db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.accountId, accountId))
    .orderBy(sql`${webhookEndpoints.status} = 'disabled' desc`, asc(webhookEndpoints.url));
}

/** One endpoint of the account, or null. */
export async function getWebhookEndpoint(
  db: DbOrTx,
  accountId: string,
  endpointId: string,
): Promise<WebhookEndpointRow | null> {
  const [row] = await db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.accountId, accountId)));
  return row ?? null;
}

/**
 * Enables a disabled endpoint again and sends what it missed: every delivery held while it was
 * disabled, and every delivery to it that failed for good since its run of failures began, each
 * back to pending, due now, with a fresh retry schedule (the webhook id stays the same, so a receiver
 * that saw one before can tell). One transaction with `inTransaction` (an operator's audit record),
 * run only when the endpoint was disabled. Returns the endpoint before and after and the ids to
 * enqueue (after the commit); null when the account has no such endpoint. Enabling an enabled
 * endpoint changes nothing.
 */
export async function enableWebhookEndpoint(
  db: DbOrTx,
  args: {
    accountId: string;
    endpointId: string;
    /** the account that enables it: the owner, or an operator */
    by: string;
    now?: Date;
    inTransaction?: (
      tx: DbOrTx,
      change: { before: WebhookEndpointRow; after: WebhookEndpointRow; redelivered: number },
    ) => Promise<void>;
  },
): Promise<{ before: WebhookEndpointRow; after: WebhookEndpointRow; redelivered: string[] } | null> {
  const now = args.now ?? new Date();
  return db.transaction(async (tx) => {
    const [before] = await tx
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, args.endpointId), eq(webhookEndpoints.accountId, args.accountId)))
      .for('update');
    if (!before) return null;
    if (before.status !== 'disabled') return { before, after: before, redelivered: [] };
    const [after] = await tx
      .update(webhookEndpoints)
      .set({ status: 'enabled', failingSince: null, enabledAt: now, enabledBy: args.by, updatedAt: now })
      .where(eq(webhookEndpoints.id, before.id))
      .returning();
    const fresh = {
      status: 'pending' as const,
      nextAttemptAt: now,
      updatedAt: now,
      completedAt: null,
      roundAttempts: 0,
      heldFor: null,
    };
    const held = await tx
      .update(callbackDeliveries)
      .set(fresh)
      .where(and(eq(callbackDeliveries.heldFor, before.id), eq(callbackDeliveries.status, 'held')))
      .returning({ id: callbackDeliveries.id });
    // failed for good while the endpoint was failing: those of this endpoint among the account's
    const since = before.failingSince ?? before.disabledAt ?? now;
    const failed = (
      await tx
        .select({ id: callbackDeliveries.id, url: callbackDeliveries.url })
        .from(callbackDeliveries)
        .where(
          and(
            eq(callbackDeliveries.accountId, args.accountId),
            eq(callbackDeliveries.status, 'failed'),
            gte(callbackDeliveries.completedAt, since),
          ),
        )
    ).filter((d) => endpointUrlOf(d.url) === before.url);
    const resent =
      failed.length === 0
        ? []
        : await tx
            .update(callbackDeliveries)
            .set(fresh)
            .where(
              and(
                inArray(
                  callbackDeliveries.id,
                  failed.map((d) => d.id),
                ),
                eq(callbackDeliveries.status, 'failed'),
              ),
            )
            .returning({ id: callbackDeliveries.id });
    const redelivered = [...held, ...resent].map((d) => d.id);
    await args.inTransaction?.(tx, { before, after: after!, redelivered: redelivered.length });
    return { before, after: after!, redelivered };
  });
}

/** Endpoints disabled now, fleet-wide (the gauge mediagate_webhook_endpoints_disabled). */
export async function countDisabledEndpoints(db: DbOrTx): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.status, 'disabled'));
  return row?.n ?? 0;
}

/** Disabled endpoints of every account with the owner's e-mail, most recently disabled first, keyset-paged. */
export async function listDisabledEndpoints(
  db: DbOrTx,
  q: { limit: number; after?: string },
): Promise<{ rows: Array<WebhookEndpointRow & { email: string }>; hasMore: boolean }> {
  const rows = await db
    .select({ endpoint: webhookEndpoints, email: accounts.email })
    .from(webhookEndpoints)
    .innerJoin(accounts, eq(accounts.id, webhookEndpoints.accountId))
    .where(
      and(eq(webhookEndpoints.status, 'disabled'), q.after ? gt(webhookEndpoints.id, q.after) : undefined),
    )
    .orderBy(asc(webhookEndpoints.id))
    .limit(q.limit + 1);
  return {
    rows: rows.slice(0, q.limit).map((r) => ({ ...r.endpoint, email: r.email })),
    hasMore: rows.length > q.limit,
  };
}

/** Deliveries held for the endpoint (shown with it: what enabling it will send). */
export async function countHeldDeliveries(db: DbOrTx, endpointIds: string[]): Promise<Map<string, number>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await db
    .select({ id: callbackDeliveries.heldFor, n: sql<number>`count(*)::int` })
    .from(callbackDeliveries)
    .where(and(inArray(callbackDeliveries.heldFor, endpointIds), eq(callbackDeliveries.status, 'held')))
    .groupBy(callbackDeliveries.heldFor);
  return new Map(rows.map((r) => [r.id!, r.n]));
}

/** The e-mail telling an account's owner that one of its endpoints was disabled, why, and how to enable it. */
export function endpointDisabledMail(to: string, endpoint: WebhookEndpointRow): MailMessage {
  const when = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : 'unknown');
  return {
    to,
    kind: 'endpoint-disabled',
    subject: `mediagate: webhook endpoint disabled: ${endpoint.url}`,
    text:
      `Your webhook endpoint ${endpoint.url} has been disabled.\n\n` +
      `Every callback sent to it has failed since ${when(endpoint.failingSince)}, after all its retries.\n` +
      `Disabled at: ${when(endpoint.disabledAt)}\n` +
      `Last error: ${endpoint.lastError ?? 'unknown'}\n\n` +
      'Callbacks for this endpoint are kept, not sent, while it is disabled. When it works again, enable it ' +
      'on the Webhooks page of the console (or POST /v1/webhooks/endpoints/' +
      `${endpoint.id}/enable): everything it missed is sent then.\n`,
  };
}
