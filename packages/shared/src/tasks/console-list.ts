import { and, desc, eq, gte, like, lt, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../db/client';
import {
  apiKeys,
  type TaskMediaStatus,
  type TaskRow,
  type TaskStatus,
  taskMedia,
  tasks,
  usageRecords,
} from '../db/schema';

/** A task as the console shows it: the row, the state of its kept media, what it cost and which key made it. */
export interface ConsoleTaskRow {
  task: TaskRow;
  /** null until the task succeeds (no media row yet) */
  mediaStatus: TaskMediaStatus | null;
  /** whether the stored copy has a first frame (a thumbnail link that answers) */
  hasThumbnail: boolean;
  mediaDeletedAt: Date | null;
  chargedMicroUsd: number | null;
  refundedMicroUsd: number;
  key: { id: string; name: string; prefix: string } | null;
}

export interface ConsoleTaskFilter {
  accountId: string;
  limit: number;
  afterId?: string;
  status?: TaskStatus;
  /** the start of a task id (or the whole of it) */
  idPrefix?: string;
  keyId?: string;
  model?: string;
  createdFrom?: Date;
  /** exclusive */
  createdBefore?: Date;
}

/** `%` and `_` taken literally in a LIKE pattern (task ids contain `_`). */
const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function selectConsoleTasks(db: DbOrTx) {
  return db
    .select({
      task: tasks,
      mediaStatus: taskMedia.status,
      thumbnailKey: taskMedia.thumbnailKey,
      mediaDeletedAt: taskMedia.deletedAt,
      chargedMicroUsd: usageRecords.costMicroUsd,
      refundedMicroUsd: usageRecords.refundedMicroUsd,
      keyId: apiKeys.id,
      keyName: apiKeys.name,
      keyPrefix: apiKeys.displayPrefix,
    })
    .from(tasks)
    .leftJoin(taskMedia, eq(taskMedia.taskId, tasks.id))
    .leftJoin(usageRecords, eq(usageRecords.ref, tasks.id))
    .leftJoin(apiKeys, eq(apiKeys.id, tasks.apiKeyId));
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectConsoleTasks>['where']>>[number];

const consoleRow = (r: Selected): ConsoleTaskRow => ({
  task: r.task,
  mediaStatus: r.mediaStatus,
  hasThumbnail: r.thumbnailKey !== null,
  mediaDeletedAt: r.mediaDeletedAt,
  chargedMicroUsd: r.chargedMicroUsd,
  refundedMicroUsd: r.refundedMicroUsd ?? 0,
  key:
    r.keyId && r.keyName !== null && r.keyPrefix !== null
      ? { id: r.keyId, name: r.keyName, prefix: r.keyPrefix }
      : null,
});

/**
 * One page of an account's tasks as the console lists them, newest first by keyset on the id,
 * narrowed by status, the start of an id, the key, the model and a creation interval. Read-only.
 */
export async function listConsoleTasks(
  db: DbOrTx,
  f: ConsoleTaskFilter,
): Promise<{ rows: ConsoleTaskRow[]; hasMore: boolean }> {
  const where: Array<SQL | undefined> = [
    eq(tasks.accountId, f.accountId),
    f.afterId ? lt(tasks.id, f.afterId) : undefined,
    f.status ? eq(tasks.status, f.status) : undefined,
    f.idPrefix ? like(tasks.id, likePrefix(f.idPrefix)) : undefined,
    f.keyId ? eq(tasks.apiKeyId, f.keyId) : undefined,
    f.model ? eq(tasks.model, f.model) : undefined,
    f.createdFrom ? gte(tasks.createdAt, f.createdFrom) : undefined,
    f.createdBefore ? lt(tasks.createdAt, f.createdBefore) : undefined,
  ];
  const rows = await selectConsoleTasks(db)
    .where(and(...where))
    .orderBy(desc(tasks.id))
    .limit(f.limit + 1);
  return { rows: rows.slice(0, f.limit).map(consoleRow), hasMore: rows.length > f.limit };
}

/** One task of an account as the console shows it; null when the account has no such task. */
export async function getConsoleTask(
  db: DbOrTx,
  accountId: string,
  taskId: string,
): Promise<ConsoleTaskRow | null> {
  const [row] = await selectConsoleTasks(db)
    .where(and(eq(tasks.id, taskId), eq(tasks.accountId, accountId)))
    .limit(1);
  return row ? consoleRow(row) : null;
}
