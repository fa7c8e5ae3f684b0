import { and, eq, gte, type SQL, sql } from 'drizzle-orm';
import { takeVideoSlot, videoSlotFree } from '../accounts/video-slots-sql';
import { type DbOrTx, isTransaction } from '../db/client';
import { sqlTemplates } from '../db/template';
import { accounts, type CallRefundDetails, type LedgerDetails, ledgerEntries } from '../db/schema';
import { ConcurrencyLimitError, InsufficientQuotaError, PermissionDeniedError } from '../errors';

export interface ChargeArgs {
  accountId: string;
  amountMicroUsd: number;
  /** the call's billing reference (task id, image call id): one charge and one refund per ref */
  ref: string;
  /**
   * The key making the call. When given, its quota is checked and its used amount raised in the
   * same transaction, its model allow-list is enforced, and the usage record names it.
   */
  keyId?: string;
  /** public model id, for the key's allow-list and the usage log */
  model?: string;
  /** images requested, or 1 for a video task */
  units?: number;
  /** the HTTP request id, so the API can record the answer's latency and outcome on the usage record */
  requestId?: string;
  /**
   * True for a call whose settlement follows (an image call: settleImageCall once it ends, or the
   * reconciler's sweepUnsettledImageCalls if it never does). The usage record is written unsettled.
   */
  settlesLater?: boolean;
  /** a video task: also take one of the account's unfinished-video-task slots, at most `max` taken */
  videoSlot?: { max?: number };
}

/**
 * The charge of a call: takes `amountMicroUsd` from the account for the call `ref` and writes the
 * ledger row and the usage record. With `keyId`, also raises the key's used amount and checks its
 * quota and model allow-list. With `videoSlot`, also takes one of the account's
 * unfinished-video-task slots (see video-slots.ts). One statement, all or nothing: a failed check
 * aborts it through mediagate_abort_charge, naming the first check that refused, in this order of
 * precedence: the key may not use `model`, the balance does not cover the price, the key's
 * remaining quota does not cover it, the account has no free video slot. Run it through
 * withChargeChecks, which turns those aborts into errors. Idempotent per ref: a second charge for
 * the same ref is refused by the ledger's unique index. Concurrent charges of one account
 * serialize on its row, so the balance is never overdrawn.
 *
 * `also` adds the caller's write to the same statement (a CTE named `also.name` that runs only
 * when the charge applies; it may read the `acct` CTE); the statement returns its `returning`
 * rows, or one row `charged` without it.
 */
export function chargeStatement(args: ChargeArgs, also?: ChargeAlso): SQL {
  return chargeSql(chargeValues(args), chargeShape(args), also);
}

/** The caller's write added to a charge statement (see chargeStatement). */
export interface ChargeAlso {
  name: string;
  sql: SQL;
}

/**
 * What a charge writes, each a value or, in a statement template (db/template.ts), the
 * placeholder of one: the statement never computes on them.
 */
export interface ChargeValues {
  accountId: unknown;
  amountMicroUsd: unknown;
  ref: unknown;
  /** null without a key */
  keyId: unknown;
  /** null without a model */
  model: unknown;
  units: unknown;
  /** null without a request id */
  requestId: unknown;
  /** null: no limit on the account's unfinished video tasks */
  maxActive: unknown;
}

/** What changes the text of a charge statement. */
export interface ChargeShape {
  videoSlot: boolean;
  settlesLater: boolean;
  /**
   * The statement commits without waiting for its WAL flush (`synchronous_commit` off for its own
   * transaction): only for a statement committed on its own whose call settles later (see
   * chargeForCall), never inside a caller's transaction.
   */
  flushedBySettlement?: boolean;
}

/** The values of a charge of `args`, as chargeSql takes them. */
export function chargeValues(args: ChargeArgs): ChargeValues {
  return {
    accountId: args.accountId,
    amountMicroUsd: args.amountMicroUsd,
    ref: args.ref,
    keyId: args.keyId ?? null,
    model: args.model ?? null,
    units: args.units ?? 1,
    requestId: args.requestId ?? null,
    maxActive: args.videoSlot?.max ?? null,
  };
}

export const chargeShape = (args: ChargeArgs): ChargeShape => ({
  videoSlot: args.videoSlot !== undefined,
  settlesLater: args.settlesLater === true,
});

/** chargeStatement written from its values and shape (see ChargeValues). */
export function chargeSql(v: ChargeValues, shape: ChargeShape, also?: ChargeAlso): SQL {
  const amount = v.amountMicroUsd;
  const { keyId, model } = v;
  // the arms of a CASE over the key row `kk` that name why it refuses this charge: permission
  // comes before money, so a key that may not use the model hears so whatever the balance
  const modelRefusal = sql`
    when kk.allowed_models is not null and ${model}::text is not null
      and not (${model}::text = any(kk.allowed_models)) then 'model'`;
  const quotaRefusal = sql`
    when kk.quota_micro_usd is not null and kk.used_micro_usd + ${amount}::bigint > kk.quota_micro_usd then 'key_quota'`;
  // Lock order everywhere: the account row, then the key row (refunds do the same), so
  // concurrent charges and refunds cannot deadlock. The key update reads `acct`, so it runs
  // after the account update; the inserts run only when the account was charged. When a
  // check fails, the last select aborts the whole statement naming the first failed check,
  // read from the latest version of the row that refused (`for share`; the account row
  // this statement charged cannot be locked again by it, so it is not read then).
  return sql`
    with acct as (
      update accounts
      set balance_micro_usd = balance_micro_usd - ${amount}::bigint,
          ${shape.videoSlot ? sql`${takeVideoSlot},` : sql``}
          updated_at = now()
      where id = ${v.accountId} and balance_micro_usd >= ${amount}::bigint
        and ${videoSlotFree(v.maxActive)}
      returning id
    ), k as (
      update api_keys
      set used_micro_usd = used_micro_usd + ${amount}::bigint, last_used_at = now()
      where id = ${keyId}::text and account_id = ${v.accountId}
        and exists (select 1 from acct)
        and (allowed_models is null or ${model}::text is null or ${model}::text = any(allowed_models))
        and (quota_micro_usd is null or used_micro_usd + ${amount}::bigint <= quota_micro_usd)
      returning id
    ), l as (
      insert into ledger_entries (account_id, kind, amount_micro_usd, ref)
      select ${v.accountId}::text, 'charge', -${amount}::bigint, ${v.ref}::text from acct
      where ${amount}::bigint > 0
    ), u as (
      insert into usage_records (account_id, api_key_id, ref, model, units, cost_micro_usd, request_id, settled_at)
      select ${v.accountId}::text, ${keyId}::text, ${v.ref}::text, ${model}::text,
             ${v.units}::int, ${amount}::bigint, ${v.requestId}::text,
             ${shape.settlesLater ? sql`null` : sql`now()`}
      from acct
      where ${amount}::bigint > 0
    )${also ? sql`, ${sql.raw(also.name)} as (${also.sql})` : sql``}
    select ${also ? sql`${sql.raw(also.name)}.*` : sql`1 as charged`}
    from (
      select case
        when exists (select 1 from acct) and (${keyId}::text is null or exists (select 1 from k)) then true
        when exists (select 1 from acct) then mediagate_abort_charge(coalesce((
          select case
            ${modelRefusal}
            ${quotaRefusal}
            else 'retry'
          end
          from api_keys kk
          where kk.id = ${keyId}::text and kk.account_id = ${v.accountId}
          for share
        ), 'key_missing')) = 0
        else mediagate_abort_charge(coalesce((
          select case
            when ${keyId}::text is not null and kk.id is null then 'key_missing'
            ${modelRefusal}
            when a.balance_micro_usd < ${amount}::bigint then 'balance'
            ${quotaRefusal}
            when not (${videoSlotFree(v.maxActive, 'a')}) then 'slots'
            else 'retry'
          end
          from accounts a
          left join api_keys kk on kk.id = ${keyId}::text and kk.account_id = a.id
          where a.id = ${v.accountId}
          for share of a
        ), 'balance')) = 0
      end as ok
    ) as checked
    ${also ? sql`cross join ${sql.raw(also.name)}` : sql``}
    ${shape.flushedBySettlement ? sql`cross join (select set_config('synchronous_commit', 'off', true)) as flushed_by_settlement` : sql``}
    where checked.ok`;
}

/**
 * Runs `execute` (which executes a chargeStatement of `args` on `db`) and turns the statement's
 * aborts into errors, having changed nothing: PermissionDeniedError when the key may not use the
 * model, InsufficientQuotaError when the balance or the key's quota does not cover the price,
 * ConcurrencyLimitError when the account has no free video slot. When the rows changed between
 * the charge and its check, a statement on its own is run again; inside a transaction (which the
 * abort has spoiled) the charge is refused.
 */
export async function withChargeChecks<T>(
  db: DbOrTx,
  args: ChargeArgs,
  execute: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await execute();
    } catch (err) {
      const reason = chargeAbortReason(err);
      if (reason === null) throw err;
      if (reason === 'balance') throw new InsufficientQuotaError();
      if (reason === 'model') {
        throw new PermissionDeniedError(`This API key may not use the model '${args.model}'.`);
      }
      if (reason === 'key_quota') {
        throw new InsufficientQuotaError(
          "This API key's quota does not cover this request. Raise the key's quota or use another key.",
        );
      }
      if (reason === 'slots') throw new ConcurrencyLimitError(args.videoSlot?.max ?? 0);
      if (reason === 'key_missing') {
        throw new Error(`chargeForCall: key ${args.keyId} does not belong to account ${args.accountId}`);
      }
      if (isTransaction(db) || attempt >= 2) throw new InsufficientQuotaError();
    }
  }
}

/**
 * Charges a call (see chargeStatement), throwing as withChargeChecks does. It works inside the
 * caller's transaction (which a refusal aborts) or on its own, committed by itself, so that the
 * account row it locks is released as soon as it commits.
 *
 * On its own, the charge of a call that settles later (an image call) commits without waiting for
 * the disk (its WAL flush): its settlement commits synchronously before any result is delivered,
 * and Postgres flushes its WAL in order, so that flush makes the charge durable too. A database
 * crash in between loses the charge of a call that then delivers nothing (its settlement cannot
 * commit): nothing is kept, and nothing is owed. The charge's checks and locks are unchanged.
 */
export async function chargeForCall(db: DbOrTx, args: ChargeArgs): Promise<void> {
  const shape = chargeShape(args);
  const flushedBySettlement = shape.settlesLater && !isTransaction(db);
  const template = chargeTemplates(
    `${shape.videoSlot ? 'slot' : 'plain'}:${flushedBySettlement ? 'later-unflushed' : shape.settlesLater ? 'later' : 'now'}`,
  );
  await withChargeChecks(db, args, () => template(db, chargeValues(args)));
}

/**
 * The charge statement of each shape, rendered once per process (every image call and charged
 * request runs one): drizzle's walk of this large statement was most of its time per call.
 */
const chargeTemplates = sqlTemplates<
  `${'slot' | 'plain'}:${'later-unflushed' | 'later' | 'now'}`,
  ChargeValues
>((shape) => (p) => {
  const when = shape.split(':')[1];
  return chargeSql(p, {
    videoSlot: shape.startsWith('slot:'),
    settlesLater: when !== 'now',
    flushedBySettlement: when === 'later-unflushed',
  });
});

/** The failed check named by mediagate_abort_charge (SQLSTATE MG001), or null for any other error. */
function chargeAbortReason(err: unknown): string | null {
  for (
    let e = err as { code?: string; message?: string; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (e.code === 'MG001') return e.message ?? 'balance';
  }
  return null;
}

export interface RefundArgs {
  accountId: string;
  amountMicroUsd: number;
  /** the call's billing reference, as charged */
  ref: string;
  /** English text of older readers */
  reason?: string;
  /** why, in fields: what the console words the entry from */
  details?: CallRefundDetails;
}

/**
 * The refund of `amountMicroUsd` of the call `ref`: for an image batch the price of the images
 * not delivered, for a failed task its whole price, for a succeeded one what the vendor's usage
 * shows was overcharged. One statement: the ledger row, the balance, the usage record marked
 * `partial` or `failed`, and the used amount of the key that paid lowered, in the lock order of
 * a charge (account, then key). Idempotent: the first refund for a ref applies, every later one
 * (and one of 0) writes nothing. It returns one row, `refunded` (whether it applied).
 *
 * `also` adds the caller's writes to the same statement (`ctes`, each `name as (...)`, written
 * whether or not the refund applies) and `columns` to its row.
 */
export function refundStatement(args: RefundArgs, also?: { ctes: SQL; columns: SQL }): SQL {
  const amount = sql`${args.amountMicroUsd}::bigint`;
  return sql`
    with refund_entry as (
      insert into ledger_entries (account_id, kind, amount_micro_usd, ref, reason, details)
      select ${args.accountId}::text, 'refund', ${amount}, ${args.ref}::text, ${args.reason ?? null}::text,
             ${args.details ? JSON.stringify(args.details) : null}::jsonb
      where ${amount} > 0
      on conflict do nothing
      returning id
    ), refund_balance as (
      update accounts set balance_micro_usd = balance_micro_usd + ${amount}, updated_at = now()
      where id = ${args.accountId} and exists (select 1 from refund_entry)
      returning id
    ), refund_usage as (
      update usage_records
      set refunded_micro_usd = refunded_micro_usd + ${amount},
          outcome = case when refunded_micro_usd + ${amount} >= cost_micro_usd then 'failed' else 'partial' end
      where ref = ${args.ref} and account_id = ${args.accountId} and exists (select 1 from refund_balance)
      returning api_key_id
    ), refund_key as (
      update api_keys set used_micro_usd = greatest(used_micro_usd - ${amount}, 0)
      where id in (select api_key_id from refund_usage)
    )${also ? sql`, ${also.ctes}` : sql``}
    select exists (select 1 from refund_entry) as refunded${also ? sql`, ${also.columns}` : sql``}`;
}

/** Runs refundStatement inside the caller's transaction. Returns whether the refund applied. */
export async function refundCall(tx: DbOrTx, args: RefundArgs): Promise<boolean> {
  if (args.amountMicroUsd <= 0) return false;
  const { rows } = await tx.execute<{ refunded: boolean }>(refundStatement(args));
  return rows[0]?.refunded === true;
}

/**
 * The writes of credits for a one-statement hot path (data-modifying CTEs): `source` names a CTE
 * of rows (account_id, kind, amount_micro_usd, ref, reason, details); `ledger` inserts them (rows of 0 are
 * skipped; (kind, ref) is unique) and `balance` adds them to the accounts. Use both in the same
 * statement, each as its own CTE.
 */
export function creditRowsStatements(source: string): { ledger: SQL; balance: SQL } {
  const from = sql.raw(source);
  return {
    ledger: sql`insert into ledger_entries (account_id, kind, amount_micro_usd, ref, reason, details)
      select account_id, kind, amount_micro_usd, ref, reason, details from ${from} where amount_micro_usd > 0`,
    balance: sql`update accounts a
      set balance_micro_usd = a.balance_micro_usd + c.total, updated_at = now()
      from (select account_id, sum(amount_micro_usd)::bigint as total from ${from} group by account_id) c
      where a.id = c.account_id`,
  };
}

/** Adds credit (grant, top-up, bonus) with its ledger row, inside the caller's transaction. */
export async function creditAccount(
  tx: DbOrTx,
  args: {
    accountId: string;
    amountMicroUsd: number;
    kind: 'grant' | 'topup' | 'bonus';
    ref?: string;
    reason?: string;
    details: LedgerDetails;
  },
): Promise<void> {
  if (args.amountMicroUsd <= 0) return;
  await tx.insert(ledgerEntries).values({
    accountId: args.accountId,
    kind: args.kind,
    amountMicroUsd: args.amountMicroUsd,
    ref: args.ref,
    reason: args.reason,
    details: args.details,
  });
  await tx
    .update(accounts)
    .set({
      balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${args.amountMicroUsd}`,
      updatedAt: new Date(),
    })
    .where(eq(accounts.id, args.accountId));
}

/**
 * An operator's signed correction of the balance, with its reason (the operator's note, shown to
 * the owner as written), inside the caller's transaction. A negative adjustment larger than the balance throws InsufficientQuotaError
 * (nothing written). With `ref`, idempotent: a second adjustment with the same ref does nothing
 * and returns false.
 */
export async function adjustBalance(
  tx: DbOrTx,
  args: { accountId: string; amountMicroUsd: number; reason: string; ref?: string; operatorId?: string },
): Promise<boolean> {
  if (args.amountMicroUsd === 0) return false;
  const inserted = await tx
    .insert(ledgerEntries)
    .values({
      accountId: args.accountId,
      kind: 'adjustment',
      amountMicroUsd: args.amountMicroUsd,
      ref: args.ref,
      reason: args.reason,
      details: { cause: 'operator', note: args.reason },
      operatorId: args.operatorId,
    })
    .onConflictDoNothing()
    .returning({ id: ledgerEntries.id });
  if (inserted.length === 0) return false;
  const updated = await tx
    .update(accounts)
    .set({
      balanceMicroUsd: sql`${accounts.balanceMicroUsd} + ${args.amountMicroUsd}`,
      updatedAt: new Date(),
    })
    .where(
      and(eq(accounts.id, args.accountId), gte(sql`${accounts.balanceMicroUsd} + ${args.amountMicroUsd}`, 0)),
    )
    .returning({ id: accounts.id });
  if (updated.length === 0) {
    throw new InsufficientQuotaError('The adjustment would make the balance negative.');
  }
  return true;
}

/** Accounts whose balance differs from the sum of their ledger (empty when the books are right). */
export async function findLedgerMismatches(
  db: DbOrTx,
): Promise<Array<{ accountId: string; balance: number; ledgerSum: number }>> {
  const rows = await db.execute<{ account_id: string; balance: string; ledger_sum: string }>(sql`
    select a.id as account_id, a.balance_micro_usd::text as balance, coalesce(sum(l.amount_micro_usd), 0)::text as ledger_sum
    from accounts a left join ledger_entries l on l.account_id = a.id
    group by a.id having a.balance_micro_usd <> coalesce(sum(l.amount_micro_usd), 0)`);
  return rows.rows.map((r) => ({
    accountId: r.account_id,
    balance: Number(r.balance),
    ledgerSum: Number(r.ledger_sum),
  }));
}

export const usdToMicro = (usd: number): number => Math.round(usd * 1_000_000);
