import { and, asc, eq, gt, inArray, isNotNull, isNull, lt, type SQL, sql } from 'drizzle-orm';
import { releaseVideoSlotStatement } from '../accounts/video-slots-sql';
import {
  type ChargeArgs,
  type ChargeValues,
  chargeSql,
  chargeValues,
  refundCall,
  refundStatement,
  withChargeChecks,
} from '../billing/ledger';
import { type Db, type DbOrTx, isTransaction } from '../db/client';
import { fromDriverRow } from '../db/driver-row';
import { type CallRefundDetails, type TaskRow, type TaskStatus, tasks } from '../db/schema';
import { sqlTemplate, sqlTemplates } from '../db/template';
import { builtOnce } from '../lru';
import type { TaskMediaLinks } from '../media/links';
import { type TaskMediaValues, taskMediaInsertSql, taskMediaValues } from '../media/task-media-sql';
import {
  type TaskEventValues,
  taskEventInsert,
  taskEventInsertSql,
  taskEventValues,
} from '../webhooks/outbox';
import { claimIdempotencyKey, type IdempotencyClaim } from './idempotency';

export const isTerminal = (s: TaskStatus): boolean => s === 'succeeded' || s === 'failed';

export interface NewVideoTask {
  id: string;
  accountId: string;
  apiKeyId: string;
  model: string;
  prompt: string;
  metadata: unknown;
  priceMicroUsd: number;
  requestId?: string;
  deadlineAt: Date;
  /** the most unfinished (pending or processing) video tasks the account may have; unlimited if absent */
  maxActiveTasks?: number;
  /** the request's Idempotency-Key, recorded in the same transaction (see idempotency.ts) */
  idempotency?: IdempotencyClaim;
}

/**
 * Charges the task's price (checking the account balance and the key's quota and model
 * allow-list, see chargeStatement) and stores it `pending`, all or nothing (one statement). Throws, storing
 * nothing: InsufficientQuotaError when the balance or the key quota does not cover the price,
 * PermissionDeniedError when the key may not use the model, ConcurrencyLimitError when the
 * account already has `maxActiveTasks` unfinished tasks. The limit is exact under concurrency and
 * O(1): a counter on the account row (locked by the charge), taken here and given back in the
 * transaction of the terminal move, whichever process makes it.
 */
export async function createVideoTask(db: DbOrTx, task: NewVideoTask): Promise<TaskRow> {
  const { maxActiveTasks, idempotency } = task;
  const charge: ChargeArgs = {
    accountId: task.accountId,
    amountMicroUsd: task.priceMicroUsd,
    ref: task.id,
    keyId: task.apiKeyId,
    model: task.model,
    units: 1,
    requestId: task.requestId,
    videoSlot: { max: maxActiveTasks },
  };
  const values: CreateValues = {
    ...chargeValues(charge),
    prompt: task.prompt,
    metadata: task.metadata,
    deadlineAt: task.deadlineAt,
  };
  const create = async (on: DbOrTx) => {
    const { rows } = await withChargeChecks(on, charge, () => createStatement(on, values));
    return fromDriverRow(tasks, rows[0]!);
  };
  // Without an Idempotency-Key the create is one statement committed on its own: the account
  // row it locks is released as soon as it commits, not after another round trip.
  if (!idempotency) return create(db);
  return inTransaction(db, async (tx) => {
    await claimIdempotencyKey(tx, task.accountId, idempotency, task.id);
    return create(tx);
  });
}

type CreateValues = ChargeValues & { prompt: string; metadata: unknown; deadlineAt: Date };

/**
 * The create: billing's charge statement with the task insert in it (run only when the charge
 * applies), rendered once (every create runs it).
 */
const createStatement = sqlTemplate<CreateValues>((p, db) =>
  chargeSql(
    p,
    { videoSlot: true, settlesLater: false },
    {
      name: 'created',
      sql: db
        .insert(tasks)
        .values({
          id: p.ref,
          accountId: p.accountId,
          apiKeyId: p.keyId,
          model: p.model,
          status: 'pending',
          prompt: p.prompt,
          metadata: p.metadata,
          priceMicroUsd: p.amountMicroUsd,
          requestId: p.requestId,
          deadlineAt: p.deadlineAt,
        })
        .returning()
        .getSQL(),
    },
  ),
);

const buildGetTask = (db: DbOrTx) =>
  db
    .select()
    .from(tasks)
    .where(eq(tasks.id, sql.placeholder('id')))
    .limit(1)
    .prepare('mediagate_get_task');
/** getTask's statement, built once per database handle: the worker reads a task on every run. */
const getTaskStatements = new WeakMap<DbOrTx, ReturnType<typeof buildGetTask>>();

export async function getTask(db: DbOrTx, id: string): Promise<TaskRow | null> {
  const rows = await builtOnce(getTaskStatements, db, () => buildGetTask(db)).execute({ id });
  return rows[0] ?? null;
}

/** The task if it belongs to the account; null otherwise, so another account's task looks absent. */
export async function getTaskForAccount(db: DbOrTx, id: string, accountId: string): Promise<TaskRow | null> {
  const rows = await db
    .select()
    .from(tasks)
    .where(and(eq(tasks.id, id), eq(tasks.accountId, accountId)))
    .limit(1);
  return rows[0] ?? null;
}

/** What a move sets besides the status. */
type TaskPatch = Partial<
  Pick<
    TaskRow,
    'progress' | 'videoUrl' | 'usage' | 'startedAt' | 'completedAt' | 'expiresAt' | 'thumbnailUrl'
  >
>;

/** A move made by startTask, succeedTask or failTask, with the callback outbox rows it wrote. */
export type TaskTransition = TaskRow & {
  /** ids of the callback deliveries committed with the move: hand them to the dispatcher */
  deliveryIds: string[];
};

/** The row itself, or the row read by its id. */
const rowOf = (db: DbOrTx, task: TaskRow | string) => (typeof task === 'string' ? getTask(db, task) : task);

/**
 * pending → processing, with its `video.processing` callback outbox row (when the account opted
 * in), in one statement. Null when the task was not pending. Pass the task's row as last read
 * (the worker has it) to save reading it again; only its immutable fields are used.
 *
 * With `submitOn`, the same statement also sets the submit mark for that channel (see
 * markSubmitStarted): the worker starts a task when it is about to send its submit, so the two
 * writes the submit needs first are one. `at`: the time of the move and of the mark (default now).
 */
export async function startTask(
  db: DbOrTx,
  task: TaskRow | string,
  opts: { submitOn?: string; at?: Date } = {},
): Promise<TaskTransition | null> {
  const current = await rowOf(db, task);
  if (!current) return null;
  const now = opts.at ?? new Date();
  const moved: TaskRow = { ...current, status: 'processing', startedAt: now, progress: 0, updatedAt: now };
  const event = taskEventValues(moved, 'video.processing', now);
  const shape = `${opts.submitOn === undefined ? 'plain' : 'mark'}${event ? '+event' : ''}` as const;
  const values: StartValues = {
    id: current.id,
    at: now.toISOString(),
    channel: opts.submitOn ?? null,
    ...(event ?? NO_EVENT),
  };
  return movedRow(await startStatements(shape)(db, values));
}

type Unset<T> = { [K in keyof T]: T[K] | null };
const NO_EVENT: Unset<TaskEventValues> = { eventId: null, eventUrl: null, eventPayload: null, eventAt: null };
type StartValues = { id: string; at: string; channel: string | null } & Unset<TaskEventValues>;

/**
 * startTask's statements, one per shape (with the submit mark or not, with the outbox row or
 * not), each rendered once: the worker starts every task.
 */
const startStatements = sqlTemplates<'plain' | 'mark' | 'plain+event' | 'mark+event', StartValues>(
  (shape) => (p) => {
    const marks = shape.startsWith('mark');
    const mark = marks
      ? sql`, submit_started_at = ${p.at}::timestamptz, upstream_channel = ${p.channel}::text`
      : sql``;
    const unmarked = marks ? sql` and upstream_task_id is null and submit_started_at is null` : sql``;
    const move = sql`update tasks set status = 'processing', progress = 0, started_at = ${p.at}::timestamptz,
            updated_at = ${p.at}::timestamptz${mark}
          where id = ${p.id}::text and status = 'pending'${unmarked} returning *`;
    return moveStatement(move, {
      outbox: shape.endsWith('+event') ? taskEventInsertSql(p, 'video.processing', 't') : null,
    });
  },
);

/** What a success settles besides the move: the gateway's media links, and a refund of overcharge. */
export interface SuccessSettlement {
  /**
   * The gateway's signed links: the task object carries them instead of the vendor's link, and
   * a media row (the vendor's link, to copy from) is written in the same statement.
   */
  media?: TaskMediaLinks;
  /** what to give back when the vendor reports less than was charged (in the same transaction) */
  refund?: { amountMicroUsd: number; reason: string; details?: CallRefundDetails };
}

/**
 * processing → succeeded with the video, its `video.succeeded` callback outbox row, the account's
 * video slot given back and, with `settle.media`, the media row, in one statement (with
 * `settle.refund`, one transaction that also refunds). Null when the task was not processing.
 * `task` as in startTask.
 */
export async function succeedTask(
  db: Db | DbOrTx,
  task: TaskRow | string,
  result: { videoUrl: string; usage?: unknown },
  settle: SuccessSettlement = {},
): Promise<TaskTransition | null> {
  const current = await rowOf(db, task);
  if (!current) return null;
  const now = new Date();
  const patch: TaskPatch = {
    videoUrl: settle.media?.videoUrl ?? result.videoUrl,
    usage: result.usage ?? null,
    progress: 100,
    completedAt: now,
    ...(settle.media ? { thumbnailUrl: settle.media.thumbnailUrl, expiresAt: settle.media.expiresAt } : {}),
  };
  const moved: TaskRow = { ...current, ...patch, status: 'succeeded', updatedAt: now };
  const event = taskEventValues(moved, 'video.succeeded', now);
  const media = settle.media
    ? taskMediaValues({ sourceUrl: result.videoUrl, expiresAt: settle.media.expiresAt, now })
    : null;
  const shape = `${media ? 'media' : 'plain'}${event ? '+event' : ''}` as const;
  const values: SuccessValues = {
    id: current.id,
    at: now.toISOString(),
    videoUrl: patch.videoUrl ?? null,
    usage: patch.usage == null ? null : JSON.stringify(patch.usage),
    thumbnailUrl: patch.thumbnailUrl ?? null,
    expiresAt: patch.expiresAt?.toISOString() ?? null,
    ...(event ?? NO_EVENT),
    ...(media ?? NO_MEDIA),
  };
  const succeed = async (on: DbOrTx) => movedRow(await successStatements(shape)(on, values));
  const refund = settle.refund;
  if (!refund || refund.amountMicroUsd <= 0) return succeed(db);
  return inTransaction(db, async (tx) => {
    const done = await succeed(tx);
    if (done) {
      await refundCall(tx, {
        accountId: done.accountId,
        amountMicroUsd: Math.min(refund.amountMicroUsd, done.priceMicroUsd),
        ref: done.id,
        reason: refund.reason,
        details: refund.details,
      });
    }
    return done;
  });
}

const NO_MEDIA: Unset<TaskMediaValues> = {
  mediaSourceUrl: null,
  mediaSourceExpiresAt: null,
  mediaExpiresAt: null,
  mediaAt: null,
};
type SuccessValues = {
  id: string;
  at: string;
  videoUrl: string | null;
  /** JSON text */
  usage: string | null;
  thumbnailUrl: string | null;
  expiresAt: string | null;
} & Unset<TaskEventValues> &
  Unset<TaskMediaValues>;

/**
 * succeedTask's statements, one per shape (with the media row or not, with the outbox row or
 * not), each rendered once: the worker ends most tasks with one.
 */
const successStatements = sqlTemplates<'plain' | 'media' | 'plain+event' | 'media+event', SuccessValues>(
  (shape) => (p) => {
    const move = sql`update tasks set status = 'succeeded', progress = 100, video_url = ${p.videoUrl}::text,
            usage = ${p.usage}::jsonb, thumbnail_url = ${p.thumbnailUrl}::text,
            expires_at = ${p.expiresAt}::timestamptz,
            completed_at = ${p.at}::timestamptz, updated_at = ${p.at}::timestamptz
          where id = ${p.id}::text and status = 'processing' returning *`;
    return moveStatement(move, {
      terminal: true,
      outbox: shape.endsWith('+event') ? taskEventInsertSql(p, 'video.succeeded', 't') : null,
      media: shape.startsWith('media') ? taskMediaInsertSql(p, 't') : undefined,
    });
  },
);

/** `run` in `db` when it is a transaction already, else in a new one. */
const inTransaction = <T>(db: Db | DbOrTx, run: (tx: DbOrTx) => Promise<T>): Promise<T> =>
  isTransaction(db) ? run(db) : (db as Db).transaction(run);

/**
 * Runs the compare-and-set `move` (an `update tasks ... returning *`, read as the CTE `t`) with
 * what it writes besides: for a terminal move, the account's video slot given back; its callback
 * outbox row; the media row of a success. One statement, so it commits as one (the outbox
 * invariant) in a single round trip, and the account row it locks is held only while the
 * statement commits. The outbox row's body is built from the task as the move leaves it: the
 * row before the move with what the move sets, which is exactly the updated row, since what the
 * move does not set (id, model, metadata, created_at) never changes.
 */
async function runMove(db: DbOrTx, move: SQL, writes: MoveWrites): Promise<TaskTransition | null> {
  return movedRow(await db.execute<Record<string, unknown>>(moveStatement(move, writes)));
}

interface MoveWrites {
  terminal?: boolean;
  outbox?: SQL | null;
  media?: SQL;
}

/** The statement of runMove (for a template, written with placeholders). */
function moveStatement(move: SQL, writes: MoveWrites): SQL {
  const { terminal, outbox, media } = writes;
  return sql`
    with t as (${move})
    ${terminal ? sql`, s as (${releaseVideoSlotStatement(sql`(select account_id from t)`)})` : sql``}
    ${outbox ? sql`, d as (${outbox})` : sql``}
    ${media ? sql`, m as (${media})` : sql``}
    select t.*, ${outbox ? sql`array(select id from d)` : sql`'{}'::text[]`} as delivery_ids from t`;
}

/** The moved row with its delivery ids, from a move statement's result; null when it moved nothing. */
function movedRow(result: { rows: Record<string, unknown>[] }): TaskTransition | null {
  const raw = result.rows[0];
  if (!raw) return null;
  return { ...fromDriverRow(tasks, raw), deliveryIds: raw.delivery_ids as string[] };
}

/**
 * pending|processing → failed, with the full refund of its charge and its `video.failed` callback
 * outbox row, in one transaction of two statements: the move (with the video slot given back),
 * then the refund with the outbox row, whose body is the failed row as the move returned it. Null
 * (and no refund) when the task was already terminal, or, with `unlessSubmitting`, when a submit
 * to the upstream is under way.
 */
export async function failTask(
  db: Db,
  id: string,
  error: { code: string; message: string },
  opts: { unlessSubmitting?: boolean } = {},
): Promise<TaskTransition | null> {
  const now = new Date();
  const at = now.toISOString();
  // a submit under way (marked, no upstream id yet) must not be cut off: its outcome decides
  const move = sql`update tasks set status = 'failed', error_code = ${error.code}::text,
            error_message = ${error.message}::text, completed_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
          where id = ${id} and status in ('pending', 'processing')
          ${opts.unlessSubmitting ? sql`and (submit_started_at is null or upstream_task_id is not null)` : sql``}
          returning *`;
  return db.transaction(async (tx) => {
    const row = await runMove(tx, move, { terminal: true });
    if (!row) return null;
    const outbox = taskEventInsert(row, 'video.failed', now, 't');
    const refund = {
      accountId: row.accountId,
      amountMicroUsd: row.priceMicroUsd,
      ref: row.id,
      reason: `task failed: ${error.code}`,
      details: { cause: 'task_failed' as const, error_code: error.code },
    };
    if (!outbox) {
      await refundCall(tx, refund);
      return row;
    }
    const { rows } = await tx.execute<{ delivery_ids: string[] }>(
      refundStatement(refund, {
        ctes: sql`t as (select ${row.id}::text as id, ${row.accountId}::text as account_id), d as (${outbox})`,
        columns: sql`array(select id from d) as delivery_ids`,
      }),
    );
    return { ...row, deliveryIds: rows[0]!.delivery_ids };
  });
}

/**
 * Marks, as of `at`, that a submit is about to be sent. Only a processing task with no upstream id
 * and no mark is marked; false: another run holds the mark (or the task moved on).
 */
export async function markSubmitStarted(
  db: DbOrTx,
  id: string,
  channel: string,
  at = new Date(),
): Promise<boolean> {
  const rows = await preparedFor(db).mark.execute({ id, channel, at: at.toISOString() });
  return rows.length > 0;
}

/**
 * Clears the submit mark after a submit that certainly created nothing upstream, so it may be
 * tried again: only the mark set at `markedAt` (the caller's own), never another run's.
 * Idempotent.
 */
export async function clearSubmitStarted(db: DbOrTx, id: string, markedAt: Date): Promise<void> {
  await db
    .update(tasks)
    .set({ submitStartedAt: null })
    .where(
      and(
        eq(tasks.id, id),
        isNull(tasks.upstreamTaskId),
        eq(tasks.submitStartedAt, markedAt),
      ),
    );
}

/** Stores the upstream task id (before any poll). Returns false if the task already has one or left processing. */
export async function recordUpstreamTask(db: DbOrTx, id: string, upstreamTaskId: string): Promise<boolean> {
  const rows = await preparedFor(db).record.execute({ id, upstreamTaskId, at: new Date().toISOString() });
  return rows.length > 0;
}

/**
 * The submit mark and the upstream id, written by the worker once per task each: named prepared
 * statements (parsed and planned once per connection), built once per database handle.
 */
const buildSubmitStatements = (db: DbOrTx) => ({
  mark: db
    .update(tasks)
    .set({
      submitStartedAt: sql`${sql.placeholder('at')}::timestamptz`,
      upstreamChannel: sql`${sql.placeholder('channel')}::text`,
      updatedAt: sql`${sql.placeholder('at')}::timestamptz`,
    })
    // exclusive: of two runs of one task at once (a stalled job run again, a duplicate enqueue),
    // only the first marks it, so only one ever sends a submit
    .where(
      and(
        eq(tasks.id, sql.placeholder('id')),
        eq(tasks.status, 'processing'),
        isNull(tasks.upstreamTaskId),
        isNull(tasks.submitStartedAt),
      ),
    )
    .returning({ id: tasks.id })
    .prepare('mediagate_mark_submit'),
  record: db
    .update(tasks)
    .set({
      upstreamTaskId: sql`${sql.placeholder('upstreamTaskId')}::text`,
      updatedAt: sql`${sql.placeholder('at')}::timestamptz`,
    })
    .where(
      and(eq(tasks.id, sql.placeholder('id')), eq(tasks.status, 'processing'), isNull(tasks.upstreamTaskId)),
    )
    .returning({ id: tasks.id })
    .prepare('mediagate_record_upstream_task'),
});
const submitStatements = new WeakMap<DbOrTx, ReturnType<typeof buildSubmitStatements>>();
const preparedFor = (db: DbOrTx) => builtOnce(submitStatements, db, () => buildSubmitStatements(db));

/** Updates the progress of a processing task (never moves it backwards). */
export async function updateProgress(db: DbOrTx, id: string, progress: number): Promise<void> {
  await db
    .update(tasks)
    .set({ progress, updatedAt: new Date() })
    .where(and(eq(tasks.id, id), eq(tasks.status, 'processing'), lt(tasks.progress, progress)));
}

/** Non-terminal tasks in id order after `afterId`, for the reconciler's sweep. */
export async function listActiveTasks(
  db: DbOrTx,
  opts: { afterId?: string; limit: number; createdBefore: Date },
): Promise<Array<Pick<TaskRow, 'id' | 'status' | 'requestId' | 'deadlineAt'>>> {
  return db
    .select({ id: tasks.id, status: tasks.status, requestId: tasks.requestId, deadlineAt: tasks.deadlineAt })
    .from(tasks)
    .where(
      and(
        inArray(tasks.status, ['pending', 'processing']),
        opts.afterId ? gt(tasks.id, opts.afterId) : undefined,
        lt(tasks.createdAt, opts.createdBefore),
      ),
    )
    .orderBy(asc(tasks.id))
    .limit(opts.limit);
}

/** A task running upstream, as the batch status query matches it. */
export interface InFlightUpstreamTask {
  id: string;
  upstreamTaskId: string;
  upstreamChannel: string;
  submitStartedAt: Date | null;
}

/** Every processing task that has an upstream id (the partial index on active tasks serves it). */
export async function listInFlightUpstreamTasks(db: DbOrTx): Promise<InFlightUpstreamTask[]> {
  const rows = await db
    .select({
      id: tasks.id,
      upstreamTaskId: tasks.upstreamTaskId,
      upstreamChannel: tasks.upstreamChannel,
      submitStartedAt: tasks.submitStartedAt,
    })
    .from(tasks)
    .where(
      and(
        inArray(tasks.status, ['pending', 'processing']),
        eq(tasks.status, 'processing'),
        isNotNull(tasks.upstreamTaskId),
        isNotNull(tasks.upstreamChannel),
      ),
    );
  return rows as InFlightUpstreamTask[];
}
