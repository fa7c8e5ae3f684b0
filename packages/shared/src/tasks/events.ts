import { toTaskObject } from '../contracts/task-object';
import type { TaskRow } from '../db/schema';
import type { RedisClient } from '../queue/connection';
import { redisKey } from '../queue/keys';
import type { DurationSummary, TaskDurations } from './durations';

/**
 * How many channels the moves of tasks are spread over. They are sharded pub/sub channels
 * (SPUBLISH/SSUBSCRIBE, Redis 7): on a Redis Cluster each is carried by the master of its own slot
 * only, instead of every message going to every node.
 */
export const TASK_EVENT_SHARDS = 16;

/** Every channel task moves are published on (an API replica listens to all of them). */
export const taskEventsChannels = (prefix: string): string[] =>
  Array.from({ length: TASK_EVENT_SHARDS }, (_, i) => redisKey(prefix, 'task-events', String(i)));

/** The channel the moves of `taskId` are published on (FNV-1a of the id, modulo the shards). */
export function taskEventsChannel(prefix: string, taskId: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < taskId.length; i++) h = Math.imul(h ^ taskId.charCodeAt(i), 0x01000193);
  return redisKey(prefix, 'task-events', String((h >>> 0) % TASK_EVENT_SHARDS));
}

const RANK: Record<TaskRow['status'], number> = { pending: 1, processing: 2, succeeded: 3, failed: 3 };

/**
 * A task's state as one number that only grows (status, then progress): the id of its event, so
 * a client resuming with `Last-Event-ID` gets the state when it is newer than what it saw.
 */
export const taskEventId = (row: Pick<TaskRow, 'status' | 'progress'>): number =>
  RANK[row.status] * 1000 + Math.min(Math.max(row.progress, 0), 999);

export const isTerminalEventId = (eventId: number): boolean => eventId >= 3000;

/**
 * When an unfinished task will likely be done (unix seconds), from its model's learned durations:
 * the median of the durations longer than it has already run. Null while nothing is learned.
 */
export function estimatedCompletionAt(
  row: Pick<TaskRow, 'status' | 'submitStartedAt' | 'createdAt'>,
  durations: DurationSummary | null | undefined,
  now = Date.now(),
): number | null {
  if (!durations) return null;
  const since = row.status === 'processing' && row.submitStartedAt ? row.submitStartedAt.getTime() : now;
  const elapsed = Math.max(0, now - since);
  const done = durations.cdf(elapsed);
  const at =
    done >= 0.999
      ? now + Math.max(1_000, durations.meanMs * 0.05)
      : since + durations.quantileMs(done + (1 - done) / 2);
  return Math.ceil(Math.max(at, now) / 1000);
}

/** One published move: who owns the task, its event id, and its serialized task object. */
export interface TaskEvent {
  accountId: string;
  taskId: string;
  eventId: number;
  json: string;
}

/** `accountId \n taskId \n eventId \n json`: cheap to split, the task object ready to send as is. */
export function encodeTaskEvent(e: TaskEvent): string {
  return `${e.accountId}\n${e.taskId}\n${e.eventId}\n${e.json}`;
}

export function decodeTaskEvent(message: string): TaskEvent | null {
  const a = message.indexOf('\n');
  const b = a < 0 ? -1 : message.indexOf('\n', a + 1);
  const c = b < 0 ? -1 : message.indexOf('\n', b + 1);
  if (c < 0) return null;
  const eventId = Number(message.slice(b + 1, c));
  if (!Number.isInteger(eventId)) return null;
  return {
    accountId: message.slice(0, a),
    taskId: message.slice(a + 1, b),
    eventId,
    json: message.slice(c + 1),
  };
}

/** The event of a row as it is now, with its completion estimate when `durations` are given. */
export function taskEventOf(row: TaskRow, durations?: DurationSummary | null): TaskEvent {
  const estimate =
    row.status === 'succeeded' || row.status === 'failed' ? undefined : estimatedCompletionAt(row, durations);
  return {
    accountId: row.accountId,
    taskId: row.id,
    eventId: taskEventId(row),
    json: JSON.stringify(toTaskObject(row, { estimate })),
  };
}

/**
 * Publishes every move of a task (start, progress, end) for the API replicas' event streams and
 * caches. Fire and forget: a lost message costs a stream at most its resync interval.
 */
export class TaskEventPublisher {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly durations?: TaskDurations,
  ) {}

  publish(row: TaskRow): void {
    const summary = this.durations?.peek(row.model);
    this.redis
      .spublish(taskEventsChannel(this.prefix, row.id), encodeTaskEvent(taskEventOf(row, summary)))
      .catch(() => {});
  }
}
