import type { Logger } from '@mediagate/shared/log';
import { LruCache } from '@mediagate/shared/lru';
import type { RedisClient } from '@mediagate/shared/queue';
import {
  decodeTaskEvent,
  encodeTaskEvent,
  isTerminalEventId,
  type TaskEvent,
  taskEventsChannel,
  taskEventsChannels,
} from '@mediagate/shared/tasks';

export interface TaskEventHubOptions {
  /** how long an unfinished task's answer is served from memory (moves replace it at once); 0 = never */
  runningCacheMs: number;
  runningCacheEntries: number;
  /** event streams one key may hold open on this replica */
  maxStreamsPerKey: number;
}

type Listener = (event: TaskEvent) => void;

/** How long a replica may serve a finished answer carrying media links (as GET /v1/videos/{id}). */
const LINKED_TASK_CACHE_MS = 30_000;

/**
 * Until when a finished task's answer may be cached: undefined = forever (no links), null = not
 * at all (its links have expired), else a bounded time never past the links' expiry.
 */
function linkedAnswerUntil(json: string, now: number): number | undefined | null {
  let expiresAt: unknown;
  try {
    expiresAt = (JSON.parse(json) as { expires_at?: unknown }).expires_at;
  } catch {
    return null;
  }
  if (typeof expiresAt !== 'number') return undefined;
  const ms = expiresAt * 1000;
  return ms <= now ? null : Math.min(ms, now + LINKED_TASK_CACHE_MS);
}

/**
 * This replica's view of task moves, fed by the workers through Redis pub/sub (one subscription
 * per replica, whatever the number of streams): it wakes the event streams of a task, keeps the
 * answers of unfinished tasks that clients poll, and hands finished tasks to the terminal cache.
 */
export class TaskEventHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly streamsPerKey = new Map<string, number>();
  private readonly streams = new Set<() => void>();
  private readonly channels: Set<string>;
  /** answers of unfinished tasks, with the event id they show */
  readonly running?: LruCache<string, TaskEvent>;

  constructor(
    private readonly subscriber: RedisClient,
    private readonly publisher: RedisClient,
    private readonly prefix: string,
    private readonly options: TaskEventHubOptions,
    private readonly logger: Logger,
    private readonly terminalCache?: LruCache<string, { accountId: string; json: string; until?: number }>,
  ) {
    this.channels = new Set(taskEventsChannels(prefix));
    if (options.runningCacheMs > 0) {
      this.running = new LruCache(options.runningCacheEntries, options.runningCacheMs);
    }
  }

  /** Subscribes; resolves once the subscription is in place. */
  async start(): Promise<void> {
    this.subscriber.on('smessage', (channel: string, message: string) => {
      if (!this.channels.has(channel)) return;
      const event = decodeTaskEvent(message);
      if (event) this.deliver(event);
    });
    // Moves published while the subscription was down are lost: forget what they may have changed.
    this.subscriber.on('ready', () => this.running?.clear());
    // one SSUBSCRIBE per channel: on a Redis Cluster each lives on the master of its own slot
    await Promise.all([...this.channels].map((c) => this.subscriber.ssubscribe(c)));
  }

  /** Registers an open stream's closer (see closeStreams); returns its removal. */
  track(close: () => void): () => void {
    this.streams.add(close);
    return () => this.streams.delete(close);
  }

  /** Ends every open stream (shutdown: clients reconnect to another replica with Last-Event-ID). */
  closeStreams(): void {
    for (const close of [...this.streams]) close();
  }

  async close(): Promise<void> {
    this.closeStreams();
    this.listeners.clear();
    this.subscriber.disconnect();
  }

  /** Publishes a move made by this process (a cancel) like the workers publish theirs. */
  publish(event: TaskEvent): void {
    this.deliver(event);
    this.publisher
      .spublish(taskEventsChannel(this.prefix, event.taskId), encodeTaskEvent(event))
      .catch(() => {});
  }

  /** Calls `listener` on every move of `taskId` until the returned function is called. */
  subscribe(taskId: string, listener: Listener): () => void {
    let set = this.listeners.get(taskId);
    if (!set) {
      set = new Set();
      this.listeners.set(taskId, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(taskId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(taskId);
    };
  }

  /** Counts an open stream of `keyId`; null when the key already holds its maximum here. */
  openStream(keyId: string): (() => void) | null {
    const open = this.streamsPerKey.get(keyId) ?? 0;
    if (open >= this.options.maxStreamsPerKey) return null;
    this.streamsPerKey.set(keyId, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.streamsPerKey.get(keyId) ?? 1) - 1;
      if (n <= 0) this.streamsPerKey.delete(keyId);
      else this.streamsPerKey.set(keyId, n);
    };
  }

  /** Keeps an unfinished task's answer read from Postgres, unless a newer move is already known. */
  remember(event: TaskEvent): void {
    if (!this.running || isTerminalEventId(event.eventId)) return;
    const known = this.running.get(event.taskId);
    if (!known || known.eventId <= event.eventId) this.running.set(event.taskId, event);
  }

  private deliver(event: TaskEvent): void {
    if (isTerminalEventId(event.eventId)) {
      this.running?.delete(event.taskId);
      const until = linkedAnswerUntil(event.json, Date.now());
      if (until === null) this.terminalCache?.delete(event.taskId);
      else this.terminalCache?.set(event.taskId, { accountId: event.accountId, json: event.json, until });
    } else {
      this.remember(event);
    }
    const set = this.listeners.get(event.taskId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(event);
      } catch (err) {
        this.logger.warn({ err, taskId: event.taskId }, 'task event listener failed');
      }
    }
  }
}
