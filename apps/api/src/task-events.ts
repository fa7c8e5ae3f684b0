import {
  apiKeyStanding,
  type KeyRevocation,
  keyRevocationChannel,
  parseKeyRevocation,
} from '@mediagate/shared/accounts';
import type { Database } from '@mediagate/shared/db';
import type { Logger } from '@mediagate/shared/log';
import { LruCache } from '@mediagate/shared/lru';
import type { RedisClient } from '@mediagate/shared/queue';
import {
  decodeTaskEvent,
  encodeTaskEvent,
  isTerminalEventId,
  type TaskEvent,
  taskEventsChannel,
  taskEventId,
  taskEventsChannels,
} from '@mediagate/shared/tasks';
import type { ApiConfig } from './config';
import { ipAllowed } from './ip-rules';

export interface TaskEventHubOptions {
  /** how long an unfinished task's answer is served from memory (moves replace it at once); 0 = never */
  runningCacheMs: number;
  runningCacheEntries: number;
  /** event streams one key may hold open on this replica */
  maxStreamsPerKey: number;
  /** event streams one account (all its keys) may hold open on this replica */
  maxStreamsPerAccount: number;
  /** event streams this replica holds open in all */
  maxStreams: number;
  /**
   * whether a key still authenticates (and from which addresses): asked when a change of the key
   * or its account is announced, and of every open stream when the subscription restarts
   */
  keyStanding: (keyId: string) => Promise<{ allowedIps: string[] | null } | null>;
  /** whether `ip` is within a key's IP allow-list */
  ipAllowed: (ip: string, rules: readonly string[]) => boolean;
}

/**
 * The hub's options from the API's configuration: stream caps, the running-task cache, and key
 * standing read from the database with the IP allow-list rules.
 */
export function taskEventHubOptions(
  config: Pick<
    ApiConfig,
    'TASK_RUNNING_CACHE_MS' | 'SSE_MAX_STREAMS_PER_KEY' | 'SSE_MAX_STREAMS_PER_ACCOUNT' | 'SSE_MAX_STREAMS'
  >,
  database: Database,
  runningCacheEntries: number,
): TaskEventHubOptions {
  return {
    runningCacheMs: config.TASK_RUNNING_CACHE_MS,
    runningCacheEntries,
    maxStreamsPerKey: config.SSE_MAX_STREAMS_PER_KEY,
    maxStreamsPerAccount: config.SSE_MAX_STREAMS_PER_ACCOUNT,
    maxStreams: config.SSE_MAX_STREAMS,
    keyStanding: (keyId) => apiKeyStanding(database.db, keyId),
    ipAllowed,
  };
}

/** Who holds an open event stream. */
export interface StreamHolder {
  keyId: string;
  accountId: string;
  ip: string;
}

/** An event stream's place among this replica's open streams. */
export interface StreamSlot {
  /**
   * How the stream ends: at shutdown (`close`), and when its key stops authenticating (disabled,
   * deleted, expired, outside its IP list, or the account disabled: `revoked`).
   */
  track(ends: { close: () => void; revoked: () => void }): void;
  /** whether the stream's key still authenticates from the stream's address (the periodic re-check) */
  stillAllowed(): Promise<boolean>;
  release(): void;
}

/** Which cap an event stream would pass. */
export type StreamCap = 'key' | 'account' | 'replica';

interface OpenStream extends StreamHolder {
  ends?: { close: () => void; revoked: () => void };
}

type Listener = (event: TaskEvent) => void;

/** The event id of a task just created (pending, no progress). */
const CREATED_EVENT_ID = taskEventId({ status: 'pending', progress: 0 });

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
  /** listeners of every move of an account's tasks (the console's live pages) */
  private readonly accountListeners = new Map<string, Set<Listener>>();
  /** the console's open account streams, per account */
  private readonly consoleStreams = new Map<string, number>();
  private readonly consoleClosers = new Set<() => void>();
  private readonly streamsPerKey = new Map<string, number>();
  private readonly streamsPerAccount = new Map<string, number>();
  private readonly streams = new Set<OpenStream>();
  private readonly channels: Set<string>;
  private readonly keyChannel: string;
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
    this.keyChannel = keyRevocationChannel(prefix);
    if (options.runningCacheMs > 0) {
      this.running = new LruCache(options.runningCacheEntries, options.runningCacheMs);
    }
  }

  /**
   * Subscribes to task moves and to the announcements of key and account changes (which end the
   * streams of a key that no longer authenticates); resolves once the subscription is in place.
   */
  async start(): Promise<void> {
    this.subscriber.on('smessage', (channel: string, message: string) => {
      if (channel === this.keyChannel) {
        const what = parseKeyRevocation(message);
        if (what) void this.endRevokedStreams(what);
        return;
      }
      if (!this.channels.has(channel)) return;
      const event = decodeTaskEvent(message);
      if (event) this.deliver(event);
    });
    // Moves and key changes published while the subscription was down are lost: forget what
    // they may have changed, and check every open stream's key again.
    this.subscriber.on('ready', () => {
      this.running?.clear();
      void this.endRevokedStreams('all');
    });
    // one SSUBSCRIBE per channel: on a Redis Cluster each lives on the master of its own slot
    await Promise.all([...this.channels, this.keyChannel].map((c) => this.subscriber.ssubscribe(c)));
  }

  /** Ends every open stream (shutdown: clients reconnect to another replica with Last-Event-ID). */
  closeStreams(): void {
    for (const s of [...this.streams]) s.ends?.close();
    for (const close of [...this.consoleClosers]) close();
  }

  /** Ends a console stream at shutdown; the returned function forgets it. */
  onShutdown(close: () => void): () => void {
    this.consoleClosers.add(close);
    return () => this.consoleClosers.delete(close);
  }

  /** Open event streams on this replica (all, or those of an account). */
  openStreams(accountId?: string): number {
    return accountId === undefined ? this.streams.size : (this.streamsPerAccount.get(accountId) ?? 0);
  }

  /**
   * Ends the open streams whose key no longer authenticates, among those a change concerns (a key,
   * every key of an account, or all): each key is asked once.
   */
  async endRevokedStreams(what: KeyRevocation | 'all'): Promise<void> {
    const byKey = new Map<string, OpenStream[]>();
    for (const s of this.streams) {
      if (what !== 'all' && ('keyId' in what ? s.keyId !== what.keyId : s.accountId !== what.accountId)) {
        continue;
      }
      byKey.set(s.keyId, [...(byKey.get(s.keyId) ?? []), s]);
    }
    await Promise.all(
      [...byKey].map(async ([keyId, streams]) => {
        let standing: { allowedIps: string[] | null } | null;
        try {
          standing = await this.options.keyStanding(keyId);
        } catch (err) {
          // each stream's periodic re-check tries again
          this.logger.warn({ err, keyId }, 'could not check the key of open event streams');
          return;
        }
        for (const s of streams) if (!this.allowedBy(standing, s.ip)) s.ends?.revoked();
      }),
    );
  }

  private allowedBy(standing: { allowedIps: string[] | null } | null, ip: string): boolean {
    return standing !== null && (!standing.allowedIps || this.options.ipAllowed(ip, standing.allowedIps));
  }

  async close(): Promise<void> {
    this.closeStreams();
    this.listeners.clear();
    this.accountListeners.clear();
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

  /**
   * Calls `listener` on every move of any task of `accountId` (created, started, progressed,
   * finished, its media stored or deleted) until the returned function is called.
   */
  subscribeAccount(accountId: string, listener: Listener): () => void {
    let set = this.accountListeners.get(accountId);
    if (!set) {
      set = new Set();
      this.accountListeners.set(accountId, set);
    }
    set.add(listener);
    return () => {
      const current = this.accountListeners.get(accountId);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.accountListeners.delete(accountId);
    };
  }

  /**
   * Counts an open console stream of an account (the live task pages, on a session), capped like
   * an account's key streams; null when the account already holds its maximum here.
   */
  openConsoleStream(accountId: string): { release: () => void } | null {
    const open = this.consoleStreams.get(accountId) ?? 0;
    if (open >= this.options.maxStreamsPerAccount) return null;
    count(this.consoleStreams, accountId, 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        count(this.consoleStreams, accountId, -1);
      },
    };
  }

  /**
   * Counts an open stream of `holder`; the cap it would pass instead when its key, its account or
   * this replica already holds its maximum here.
   */
  openStream(holder: StreamHolder): StreamSlot | StreamCap {
    const { maxStreamsPerKey, maxStreamsPerAccount, maxStreams } = this.options;
    if ((this.streamsPerKey.get(holder.keyId) ?? 0) >= maxStreamsPerKey) return 'key';
    if ((this.streamsPerAccount.get(holder.accountId) ?? 0) >= maxStreamsPerAccount) return 'account';
    if (this.streams.size >= maxStreams) return 'replica';
    const entry: OpenStream = { ...holder };
    this.streams.add(entry);
    count(this.streamsPerKey, holder.keyId, 1);
    count(this.streamsPerAccount, holder.accountId, 1);
    let released = false;
    return {
      track: (ends) => {
        entry.ends = ends;
      },
      stillAllowed: async () => this.allowedBy(await this.options.keyStanding(holder.keyId), holder.ip),
      release: () => {
        if (released) return;
        released = true;
        this.streams.delete(entry);
        count(this.streamsPerKey, holder.keyId, -1);
        count(this.streamsPerAccount, holder.accountId, -1);
      },
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
    } else if (event.eventId > CREATED_EVENT_ID) {
      // the creation is announced for the console's live pages only: the answer of a pending task
      // is kept when read, as before any move
      this.remember(event);
    }
    const listeners = [
      ...(this.listeners.get(event.taskId) ?? []),
      ...(this.accountListeners.get(event.accountId) ?? []),
    ];
    for (const listener of listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.warn({ err, taskId: event.taskId }, 'task event listener failed');
      }
    }
  }
}

/** Adds `by` to `map[key]`, dropping it at 0. */
function count(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}
