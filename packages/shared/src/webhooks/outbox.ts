import { and, asc, eq, gt, gte, inArray, lte, type SQL, sql } from 'drizzle-orm';
import { toTaskObject } from '../contracts/task-object';
import type { DbOrTx } from '../db/client';
import { fromDriverRow } from '../db/driver-row';
import {
  type AccountWebhookSettingsRow,
  accountWebhookSettings,
  type CallbackAttemptRow,
  type CallbackDeliveryRow,
  callbackAttempts,
  callbackDeliveries,
  type TaskRow,
} from '../db/schema';
import { sqlTemplates } from '../db/template';
import { newUlid } from '../ids';
import { builtOnce } from '../lru';
import {
  type DisabledEndpoint,
  disabledEndpointsOf,
  endpointDeliveredSql,
  endpointFailureSql,
  endpointFailureValues,
  endpointUrlOf,
} from './endpoints';
import type { AttemptVerdict } from './schedule';
import { processingEventsOn } from './settings';

export const CALLBACK_EVENT_TYPES = ['video.processing', 'video.succeeded', 'video.failed'] as const;
export type CallbackEventType = (typeof CALLBACK_EVENT_TYPES)[number];

/** Delivery ids are the Standard Webhooks message ids: `msg_` + a ULID. */
export function newDeliveryId(): string {
  return `msg_${newUlid()}`;
}

/** The task's `metadata.callback_url`, or null when it has none. */
export function callbackUrlOf(metadata: unknown): string | null {
  const url = (metadata as { callback_url?: unknown } | null)?.callback_url;
  return typeof url === 'string' && url.length > 0 ? url : null;
}

/** The body of a task event: `{type, created_at, data: <task object>}`, fixed when the event is recorded. */
export function taskEventPayload(row: TaskRow, type: CallbackEventType, now: Date): string {
  return JSON.stringify({ type, created_at: Math.floor(now.getTime() / 1000), data: toTaskObject(row) });
}

/**
 * The outbox row of a task event, as part of the statement (or transaction) that moves the task,
 * so the event is committed exactly when the state change is: the insert for `row` (the task as
 * the move leaves it), reading the moved task's `id` and `account_id` from `source` (a CTE), so
 * that nothing is written unless the move applied. Writes nothing for `video.processing` unless
 * the account opted in (processingEventsOn). Idempotent per (task, event). The body (`{type,
 * created_at, data: <task object>}`) is fixed here, so every retry sends the same bytes;
 * `returning id`. Null when the task has no callback URL.
 */
export function taskEventInsert(
  row: TaskRow,
  type: CallbackEventType,
  now: Date,
  source: string,
): SQL | null {
  const values = taskEventValues(row, type, now);
  return values && taskEventInsertSql(values, type, source);
}

/** What a task event's outbox row holds besides the task (see taskEventInsert). */
export interface TaskEventValues {
  eventId: string;
  eventUrl: string;
  eventPayload: string;
  eventAt: string;
}

/** The outbox row's values of the event `type` of `row` at `now`; null when the task has no callback URL. */
export function taskEventValues(row: TaskRow, type: CallbackEventType, now: Date): TaskEventValues | null {
  const url = callbackUrlOf(row.metadata);
  if (!url) return null;
  return {
    eventId: newDeliveryId(),
    eventUrl: url,
    eventPayload: taskEventPayload(row, type, now),
    eventAt: now.toISOString(),
  };
}

/**
 * taskEventInsert written from its values, each a value or (in a statement template,
 * db/template.ts) the placeholder of one.
 */
export function taskEventInsertSql(
  v: { [K in keyof TaskEventValues]: unknown },
  type: CallbackEventType,
  source: string,
): SQL {
  const from = sql.raw(source);
  return sql`
    insert into callback_deliveries (id, account_id, task_id, event_type, url, payload, next_attempt_at)
    select ${v.eventId}::text, ${from}.account_id, ${from}.id, ${sql.raw(`'${type}'`)}, ${v.eventUrl}::text,
           ${v.eventPayload}::text, ${v.eventAt}::timestamptz
    from ${from}
    ${type === 'video.processing' ? sql`where ${processingEventsOn(sql`${from}.account_id`)}` : sql``}
    on conflict do nothing
    returning id`;
}

export interface DueDelivery {
  id: string;
  nextAttemptAt: Date;
}

/** The task's deliveries still to be sent (for the enqueue that follows a commit). */
export async function pendingDeliveriesOfTask(db: DbOrTx, taskId: string): Promise<DueDelivery[]> {
  return db
    .select({ id: callbackDeliveries.id, nextAttemptAt: callbackDeliveries.nextAttemptAt })
    .from(callbackDeliveries)
    .where(and(eq(callbackDeliveries.taskId, taskId), eq(callbackDeliveries.status, 'pending')));
}

/** Pending deliveries due at or before `dueBefore`, in id order after `afterId` (the reconciler's sweep). */
export async function listDueDeliveries(
  db: DbOrTx,
  opts: { dueBefore: Date; afterId?: string; limit: number },
): Promise<DueDelivery[]> {
  return db
    .select({ id: callbackDeliveries.id, nextAttemptAt: callbackDeliveries.nextAttemptAt })
    .from(callbackDeliveries)
    .where(
      and(
        eq(callbackDeliveries.status, 'pending'),
        lte(callbackDeliveries.nextAttemptAt, opts.dueBefore),
        opts.afterId ? gt(callbackDeliveries.id, opts.afterId) : undefined,
      ),
    )
    .orderBy(asc(callbackDeliveries.id))
    .limit(opts.limit);
}

const buildDeliveryToSend = (db: DbOrTx) =>
  db
    .select({
      delivery: callbackDeliveries,
      settings: accountWebhookSettings,
      disabledEndpoints: disabledEndpointsOf(callbackDeliveries.accountId),
    })
    .from(callbackDeliveries)
    .leftJoin(accountWebhookSettings, eq(accountWebhookSettings.accountId, callbackDeliveries.accountId))
    .where(eq(callbackDeliveries.id, sql.placeholder('id')))
    .limit(1)
    .prepare('mediagate_delivery_to_send');
/** getDeliveryToSend's statement, built once per database handle: the dispatcher reads one per attempt. */
const deliveryToSendStatements = new WeakMap<DbOrTx, ReturnType<typeof buildDeliveryToSend>>();

/**
 * The delivery with its account's webhook settings (null when the account has none yet) and its
 * account's disabled endpoints (null when none), in one query: what the dispatcher needs to sign
 * and send it, or hold it.
 */
export async function getDeliveryToSend(
  db: DbOrTx,
  id: string,
): Promise<{
  delivery: CallbackDeliveryRow;
  settings: AccountWebhookSettingsRow | null;
  disabledEndpoints: DisabledEndpoint[] | null;
} | null> {
  const rows = await builtOnce(deliveryToSendStatements, db, () => buildDeliveryToSend(db)).execute({ id });
  return rows[0] ?? null;
}

export async function getDelivery(db: DbOrTx, id: string): Promise<CallbackDeliveryRow | null> {
  const rows = await db.select().from(callbackDeliveries).where(eq(callbackDeliveries.id, id)).limit(1);
  return rows[0] ?? null;
}

export interface DeliveryWithAttempts extends CallbackDeliveryRow {
  attempts: CallbackAttemptRow[];
}

/** The task's deliveries (oldest first), each with its attempts in order. */
export async function listTaskDeliveries(db: DbOrTx, taskId: string): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db
    .select()
    .from(callbackDeliveries)
    .where(eq(callbackDeliveries.taskId, taskId))
    .orderBy(asc(callbackDeliveries.id));
  if (deliveries.length === 0) return [];
  const attempts = await db
    .select()
    .from(callbackAttempts)
    .where(
      inArray(
        callbackAttempts.deliveryId,
        deliveries.map((d) => d.id),
      ),
    )
    .orderBy(asc(callbackAttempts.deliveryId), asc(callbackAttempts.attempt));
  return deliveries.map((d) => ({ ...d, attempts: attempts.filter((a) => a.deliveryId === d.id) }));
}

export interface AttemptRecord {
  startedAt: Date;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

/** A recorded attempt: the delivery as it left it, and the endpoint its failure disabled, if it did. */
export type RecordedAttempt = CallbackDeliveryRow & { disabledEndpointId: string | null };

/**
 * Records one attempt and its verdict, in one statement, as a compare-and-set on the delivery's
 * attempt count: when another dispatcher already recorded this attempt (a job run twice after a
 * crash) nothing is written and null is returned. Otherwise returns the updated delivery. A
 * delivered attempt ends its endpoint's run of failures; with `endpoints`, a delivery that failed
 * for good is recorded on its endpoint with the disable rule (endpointFailureSql), and
 * `disabledEndpointId` names the endpoint this failure disabled.
 */
export async function recordDeliveryAttempt(
  db: DbOrTx,
  delivery: Pick<CallbackDeliveryRow, 'id' | 'attemptCount' | 'url'>,
  attempt: AttemptRecord,
  verdict: AttemptVerdict,
  now = new Date(),
  endpoints?: { disableAfterMs: number },
): Promise<RecordedAttempt | null> {
  const values: AttemptValues = {
    id: delivery.id,
    attemptCount: delivery.attemptCount,
    status: verdict.kind === 'retry' ? 'pending' : verdict.kind,
    nextAttemptAt: verdict.kind === 'retry' ? new Date(now.getTime() + verdict.delayMs).toISOString() : null,
    at: now.toISOString(),
    startedAt: attempt.startedAt.toISOString(),
    latencyMs: attempt.latencyMs,
    statusCode: attempt.statusCode,
    error: attempt.error,
    lastError: attempt.error ?? (verdict.kind === 'failed' ? verdict.reason : null),
    responseBody: attempt.responseBody,
    endpointUrl: endpointUrlOf(delivery.url) ?? '',
    newEndpointId: null,
    disableBefore: null,
    forgiveBefore: null,
  };
  const failure =
    verdict.kind === 'failed' && endpoints
      ? endpointFailureValues({
          url: delivery.url,
          error: null,
          disableAfterMs: endpoints.disableAfterMs,
          now,
        })
      : null;
  if (failure) {
    values.newEndpointId = failure.newEndpointId;
    values.disableBefore = failure.disableBefore;
    values.forgiveBefore = failure.forgiveBefore;
  }
  const shape =
    verdict.kind === 'retry'
      ? 'retry'
      : verdict.kind === 'succeeded'
        ? 'delivered'
        : failure
          ? 'failed'
          : 'done';
  const { rows } = await attemptStatements(shape)(db, values);
  const row = rows[0];
  if (!row) return null;
  return {
    ...fromDriverRow(callbackDeliveries, row),
    disabledEndpointId: row.endpoint_disabled_now === true ? (row.endpoint_id as string) : null,
  };
}

interface AttemptValues {
  id: string;
  attemptCount: number;
  status: string;
  nextAttemptAt: string | null;
  at: string;
  startedAt: string;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  lastError: string | null;
  responseBody: string | null;
  /** the delivery's endpoint (endpointUrlOf) */
  endpointUrl: string;
  /** a failure recorded on the endpoint (endpointFailureValues): the new row's id, the rule's bounds */
  newEndpointId: string | null;
  disableBefore: string | null;
  forgiveBefore: string | null;
}

/**
 * recordDeliveryAttempt's statement, one per shape (a retry is due again at `nextAttemptAt`; a
 * verdict ends the delivery at `at`; a delivered one also ends its endpoint's run of failures),
 * each rendered once: the dispatcher records every attempt. The attempt row is written only when
 * the compare-and-set update applied.
 */
const attemptStatements = sqlTemplates<'retry' | 'done' | 'delivered' | 'failed', AttemptValues>(
  (shape) => (p) => {
    const next =
      shape === 'retry'
        ? sql`status = 'pending', next_attempt_at = ${p.nextAttemptAt}::timestamptz`
        : sql`status = ${p.status}::text, completed_at = ${p.at}::timestamptz`;
    return sql`
    with d as (
      update callback_deliveries
      set ${next}, attempt_count = ${p.attemptCount}::int + 1, round_attempts = round_attempts + 1,
          last_attempt_at = ${p.startedAt}::timestamptz,
          last_status_code = ${p.statusCode}::int, last_error = ${p.lastError}::text,
          updated_at = ${p.at}::timestamptz
      where id = ${p.id}::text and status = 'pending' and attempt_count = ${p.attemptCount}::int
      returning *
    ), a as (
      insert into callback_attempts (delivery_id, attempt, started_at, latency_ms, status_code, error, response_body)
      select d.id, ${p.attemptCount}::int + 1, ${p.startedAt}::timestamptz,
             ${p.latencyMs}::int, ${p.statusCode}::int, ${p.error}::text,
             ${p.responseBody}::text
      from d
    )${shape === 'delivered' ? sql`, e as (${endpointDeliveredSql(p.endpointUrl, p.at, 'd')})` : sql``}${
      shape === 'failed'
        ? sql`, e as (${endpointFailureSql(
            {
              newEndpointId: p.newEndpointId,
              endpointUrl: p.endpointUrl,
              error: p.lastError,
              at: p.at,
              disableBefore: p.disableBefore,
              forgiveBefore: p.forgiveBefore,
            },
            sql`d`,
          )})
    select d.*, e.id as endpoint_id, (e.status = 'disabled' and e.disabled_at = ${p.at}::timestamptz) as endpoint_disabled_now
    from d left join e on true`
        : sql`
    select * from d`
    }`;
  },
);

/**
 * Sends a delivery again, now. A finished one (succeeded or failed) goes back to pending with a
 * fresh retry schedule; a pending one keeps its schedule and is just made due. The webhook id stays
 * the same, so a receiver that saw it before can tell. Returns the row, or null when it is not
 * the account's (or does not exist).
 */
export async function redeliverDelivery(
  db: DbOrTx,
  id: string,
  accountId: string,
  now = new Date(),
): Promise<CallbackDeliveryRow | null> {
  const rows = await db
    .update(callbackDeliveries)
    .set({
      status: 'pending',
      nextAttemptAt: now,
      updatedAt: now,
      completedAt: null,
      roundAttempts: sql`case when ${callbackDeliveries.status} = 'pending' then ${callbackDeliveries.roundAttempts} else 0 end`,
    })
    .where(and(eq(callbackDeliveries.id, id), eq(callbackDeliveries.accountId, accountId)))
    .returning();
  return rows[0] ?? null;
}

/**
 * Puts every failed delivery of the account created at or after `since` back to pending with a
 * fresh schedule (the operator's recovery after a receiver outage). Returns their ids.
 */
export async function redeliverFailedSince(
  db: DbOrTx,
  accountId: string,
  since: Date,
  now = new Date(),
): Promise<string[]> {
  const rows = await db
    .update(callbackDeliveries)
    .set({ status: 'pending', nextAttemptAt: now, updatedAt: now, completedAt: null, roundAttempts: 0 })
    .where(
      and(
        eq(callbackDeliveries.accountId, accountId),
        eq(callbackDeliveries.status, 'failed'),
        gte(callbackDeliveries.createdAt, since),
      ),
    )
    .returning({ id: callbackDeliveries.id });
  return rows.map((r) => r.id);
}
