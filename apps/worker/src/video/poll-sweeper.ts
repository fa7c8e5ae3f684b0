import { randomUUID } from 'node:crypto';
import type { Database } from '@mediagate/shared/db';
import { UpstreamError } from '@mediagate/shared/errors';
import type { Logger } from '@mediagate/shared/log';
import { type RedisClient, redisKey } from '@mediagate/shared/queue';
import { listInFlightUpstreamTasks } from '@mediagate/shared/tasks';
import type {
  ChannelPool,
  DashScopeVideoClient,
  UpstreamChannel,
  UpstreamTaskListQuery,
  UpstreamVideoStatus,
} from '@mediagate/shared/upstream';
import type { Queue } from 'bullmq';
import type { PollBudget } from './poll-budget';

export interface PollSweeperDeps {
  database: Database;
  redis: RedisClient;
  /** the video queue: a task found finished has its waiting job run now */
  queue: Queue;
  client: Pick<DashScopeVideoClient, 'list'>;
  channels: ChannelPool;
  budget: PollBudget;
  logger: Logger;
  config: {
    /**
     * at most this long between two sweeps, fleet-wide; a sweep whose list pages take little of
     * the budget is followed sooner (see createPollSweeper)
     */
    intervalMs: number;
    pageSize: number;
    /** pages one sweep reads at most, per channel and status */
    maxPages: number;
    /** Redis key prefix (the queue prefix) */
    prefix: string;
    /**
     * how long one sweep may keep the lock by renewing it (default 30 intervals): a sweep stuck
     * past that (a database read on a dead connection) lets another worker sweep
     */
    maxSweepMs?: number;
  };
}

export interface SweepResult {
  skipped: boolean;
  inFlight: number;
  queries: number;
  found: number;
  promoted: number;
  /** found finished but left for a later sweep: their channel had no query slot free before it */
  deferred: number;
  /** found finished whose jobs an earlier sweep had already run (they take no room of this one) */
  alreadyRun: number;
  /** the jobs of found tasks the channels' free query slots had room for before the next sweep */
  room: number;
  /** ms until the next sweep (fleet-wide) */
  nextInMs: number;
}

/**
 * Finished states the sweep looks for: successes every sweep, the rare others once in RARE_EVERY
 * intervals (sweeps come closer together than the interval when their pages are few).
 */
const FINISHED: UpstreamVideoStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELED'];
const RARE_EVERY = 5;
/** the window starts this long before the oldest task in flight (clock differences with the vendor) */
const WINDOW_MARGIN_MS = 60_000;
const DAY_MS = 24 * 3_600_000;
/**
 * A task submitted this close to the end of a still-running listing's window is left for the next
 * sweep: the window's end is on our clock and the vendor files a task by its own, so a vendor clock
 * this far ahead still lists a young running task (a video takes far longer than this to make).
 */
const END_MARGIN_MS = 10_000;
/** a channel's list pages take at most this share of its query budget: the rest queries its tasks */
const LIST_SHARE = 1 / 3;
/** no two sweeps closer than this (or the interval, when shorter) */
const MIN_GAP_MS = 500;
/** a worker whose sweep was skipped asks again when the sweeper's lock expires, at most this often */
const LOCK_RETRY_MS = 100;

/** Shortens the sweep lock to `ms` (0: releases it) if this sweep still holds it. */
const RELEASE = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) <= 0 then return redis.call('DEL', KEYS[1]) end
return redis.call('PEXPIRE', KEYS[1], ARGV[2])`;

interface InFlight {
  id: string;
  since: number;
}

/**
 * Finds finished upstream tasks in bulk with the vendor's batch task query and runs their waiting
 * jobs, so a completion is seen within about one sweep interval whatever the number of tasks in
 * flight. One worker sweeps per interval (a Redis lock); every page takes a slot of the fleet-wide
 * query budget like any query. The job still queries its task (the list carries no video URL),
 * records the outcome and learns the duration.
 *
 * Each channel (a vendor account with its own query budget) is swept on its own and at the same
 * time as the others: a channel whose budget is spent, or whose upstream fails, holds up no other.
 * A sweep runs no more of a channel's found tasks than its budget can query within the interval
 * (plus as long as this sweep's listing took), those that finished first first (or, when the vendor
 * does not tell, were found first); the rest are found again by the next one. Run all at once, the
 * jobs of a large sweep would each wait in a worker for a query slot seconds away, holding the
 * worker's concurrency from every other channel's tasks.
 *
 * The next sweep comes as soon as every channel's list pages stay within LIST_SHARE of its budget
 * (at least MIN_GAP_MS after this one began, at most `intervalMs` after it ended, as when the sweep
 * had a fixed interval: a channel of many pages is swept no more often): a completion waits on average
 * half the time between two sweeps before it is found, so a few tasks in flight are found within
 * half a second, and many within the interval.
 */
export function createPollSweeper(deps: PollSweeperDeps) {
  const { config } = deps;
  const lockKey = redisKey(config.prefix, 'upstream-poll-sweep');
  /** the number of successes each channel's window held at its last listing */
  const succeededInWindow = new Map<string, number>();
  /** the list pages each channel read in the sweep under way */
  const pagesRead = new Map<string, number>();
  /**
   * When a sweep first found each task that is still in flight finished (by our id), kept in Redis
   * for every worker's sweeps: a task whose end the vendor does not tell (one taken as ended)
   * counts as ended then, so tasks left for a later sweep are run in the order they were found,
   * none overtaken for good by later ones, whichever worker sweeps next. Read at the start of each
   * sweep; what it adds is written, and tasks no longer in flight dropped, at its end.
   */
  const foundKey = redisKey(config.prefix, 'upstream-poll-found');
  let firstFound = new Map<string, number>();
  let newlyFound = new Map<string, number>();
  const foundAt = (id: string) => {
    let at = firstFound.get(id);
    if (at === undefined) {
      at = Date.now();
      firstFound.set(id, at);
      newlyFound.set(id, at);
    }
    return at;
  };

  const promote = async (taskId: string): Promise<boolean> => {
    const job = await deps.queue.getJob(taskId);
    if (!job || !(await job.isDelayed())) return false;
    try {
      await job.promote();
      return true;
    } catch {
      return false; // it started meanwhile
    }
  };

  type Page = Awaited<ReturnType<DashScopeVideoClient['list']>>;
  type Query = Omit<UpstreamTaskListQuery, 'pageSize'>;

  /** One page of a channel's batch query in a slot of its budget; undefined: no slot soon, or it failed. */
  async function readPage(
    channel: UpstreamChannel,
    query: Query,
    result: SweepResult,
  ): Promise<Page | undefined> {
    if ((await deps.budget.acquire(channel.name, config.intervalMs)) > 0) return undefined;
    result.queries += 1;
    pagesRead.set(channel.name, (pagesRead.get(channel.name) ?? 0) + 1);
    try {
      return await deps.client.list(channel, { ...query, pageSize: config.pageSize });
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      deps.logger.warn(
        { channel: channel.name, code: err.details.code, status: err.details.status },
        'batch task query failed; the planned polls go on',
      );
      return undefined;
    }
  }

  /** The tasks the vendor lists as finished in `statuses`, with the number of successes in the window. */
  async function listFinished(
    channel: UpstreamChannel,
    tasks: Map<string, InFlight>,
    startTime: Date,
    statuses: UpstreamVideoStatus[],
    maxPages: number,
    result: SweepResult,
  ): Promise<Array<InFlight & { endedAt: number }>> {
    const found: Array<InFlight & { endedAt: number }> = [];
    for (const status of statuses) {
      for (let pageNo = 1; pageNo <= maxPages; pageNo += 1) {
        const page = await readPage(channel, { startTime, status, pageNo }, result);
        if (!page) return found;
        if (status === 'SUCCEEDED') succeededInWindow.set(channel.name, page.total);
        for (const listed of page.tasks) {
          const ours = tasks.get(listed.taskId);
          if (!ours || listed.status !== status) continue;
          tasks.delete(listed.taskId);
          found.push({
            ...ours,
            endedAt: Math.min(listed.endedAt ?? Number.POSITIVE_INFINITY, foundAt(ours.id)),
          });
        }
        if (pageNo >= page.totalPages || page.tasks.length === 0) break;
      }
    }
    return found;
  }

  /**
   * The tasks no longer PENDING or RUNNING at the vendor: those of ours submitted before the window
   * ends and in neither list. The window's end is in the past, so no new task enters the lists while
   * they are read; their pages are read from the last to the first, so a task that finishes meanwhile
   * (leaving the lists, moving the later ones up a place) can only make a task be read twice, never
   * missed; PENDING is read before RUNNING (a task moves from the one to the other, never back).
   * A missed page leaves nothing inferred. Undefined when a page could not be read; 'too-many' when
   * what still runs takes more pages than a sweep reads.
   */
  async function listStillRunning(
    channel: UpstreamChannel,
    tasks: Map<string, InFlight>,
    startTime: Date,
    result: SweepResult,
  ): Promise<Array<InFlight & { endedAt: number }> | 'too-many' | undefined> {
    const endTime = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    const seen = new Set<string>();
    for (const status of ['PENDING', 'RUNNING'] as const) {
      let pageNo = Math.min(config.maxPages, Math.max(1, Math.ceil(tasks.size / config.pageSize)));
      let page = await readPage(channel, { startTime, endTime, status, pageNo }, result);
      if (!page) return undefined;
      if (page.totalPages < 1) continue;
      if (page.totalPages !== pageNo) {
        if (page.totalPages > config.maxPages) return 'too-many';
        pageNo = page.totalPages;
        page = await readPage(channel, { startTime, endTime, status, pageNo }, result);
        if (!page) return undefined;
      }
      for (;;) {
        for (const listed of page.tasks) seen.add(listed.taskId);
        pageNo -= 1;
        if (pageNo < 1) break;
        page = await readPage(channel, { startTime, endTime, status, pageNo }, result);
        if (!page) return undefined;
      }
    }
    const latest = endTime.getTime() - END_MARGIN_MS;
    const found: Array<InFlight & { endedAt: number }> = [];
    for (const [taskId, t] of tasks) {
      // its end is not known: it ended by the time it was first found
      if (t.since <= latest && !seen.has(taskId)) found.push({ ...t, endedAt: foundAt(t.id) });
    }
    return found;
  }

  /**
   * Finds one channel's finished tasks and runs the jobs its budget has room for. Of the two ways to
   * find them it takes the one of fewer pages: listing the window's successes (their number grows
   * with every task that ends) or, once there are more of those than tasks in flight, listing what
   * still runs.
   */
  async function sweepChannel(
    channelName: string,
    tasks: Map<string, InFlight>,
    statuses: UpstreamVideoStatus[],
    result: SweepResult,
  ): Promise<void> {
    const channel = deps.channels.get(channelName);
    if (!channel) return;
    const began = Date.now();
    let oldest = Number.POSITIVE_INFINITY;
    for (const t of tasks.values()) oldest = Math.min(oldest, t.since);
    const startTime = new Date(Math.max(oldest - WINDOW_MARGIN_MS, Date.now() - DAY_MS + WINDOW_MARGIN_MS));
    const pages = (n: number) => Math.ceil(n / config.pageSize);
    const stillRunningCheaper = pages(succeededInWindow.get(channelName) ?? 0) > pages(tasks.size) + 1;
    let found: Array<InFlight & { endedAt: number }>;
    const stillRunning = stillRunningCheaper
      ? await listStillRunning(channel, tasks, startTime, result)
      : 'too-many';
    if (stillRunning !== 'too-many') {
      found = stillRunning ?? [];
      // the successes' first page now and then keeps their number in the window up to date
      if (statuses.length > 1) await listFinished(channel, new Map(), startTime, ['SUCCEEDED'], 1, result);
    } else {
      // the successes (newest first) when they take fewer pages, or when what still runs takes more
      // pages than a sweep reads
      found = await listFinished(channel, tasks, startTime, statuses, config.maxPages, result);
    }
    result.found += found.length;
    if (found.length === 0) return;
    // no job waits in a worker for a slot further than the interval, and as long as this listing
    // took, from now (the next sweep finds the rest again)
    const took = Date.now() - began;
    const room = await deps.budget.freeSlotsWithin(channelName, config.intervalMs + took);
    found.sort((a, b) => a.endedAt - b.endedAt);
    // a task whose job an earlier sweep ran is still in flight until that run records its end: it
    // takes no room, so as many jobs are run as the budget has slots for (at most twice the room
    // looked at, plus a page, so that a sweep after a large one stays short)
    let promoted = 0;
    let alreadyRun = 0;
    const lookAtMost = 2 * room + config.pageSize;
    for (const t of found) {
      if (promoted >= room || promoted + alreadyRun >= lookAtMost) break;
      if (await promote(t.id)) promoted += 1;
      else alreadyRun += 1;
    }
    result.room += room;
    result.promoted += promoted;
    result.alreadyRun += alreadyRun;
    result.deferred += found.length - promoted - alreadyRun;
  }

  const minGapMs = Math.min(config.intervalMs, MIN_GAP_MS);
  /**
   * How long after a sweep's start the next may begin, so that a channel whose sweep reads `pages`
   * list pages spends at most LIST_SHARE of its budget on them: at least minGapMs, and never more
   * than `intervalMs` after the end of a sweep that took `tookMs`.
   */
  const gapFor = (pages: number, tookMs: number) =>
    Math.min(tookMs + config.intervalMs, Math.max(minGapMs, deps.budget.msForSlots(pages) / LIST_SHARE));

  let rareAt = Number.NEGATIVE_INFINITY;
  async function sweepOnce(): Promise<SweepResult> {
    const result: SweepResult = {
      skipped: false,
      inFlight: 0,
      queries: 0,
      found: 0,
      promoted: 0,
      deferred: 0,
      alreadyRun: 0,
      room: 0,
      nextInMs: config.intervalMs,
    };
    const token = randomUUID();
    const got = await deps.redis.set(lockKey, token, 'PX', Math.max(config.intervalMs, 1), 'NX');
    if (got !== 'OK') {
      const ttl = await deps.redis.pttl(lockKey);
      return {
        ...result,
        skipped: true,
        nextInMs: Math.max(LOCK_RETRY_MS, Math.min(ttl, config.intervalMs)),
      };
    }
    const began = Date.now();
    pagesRead.clear();
    // the lock lasts while the sweep does: a sweep longer than the interval (many pages, a short
    // budget) would otherwise be joined by a second one at the lock's expiry, reading the same pages
    const holdMs = Math.max(config.intervalMs, 1);
    const renewUntil = began + (config.maxSweepMs ?? 30 * holdMs);
    const renewal = setInterval(
      () => {
        if (Date.now() + holdMs > renewUntil) return clearInterval(renewal);
        void deps.redis.eval(RELEASE, 1, lockKey, token, holdMs).catch(() => {});
      },
      Math.max(Math.floor(holdMs / 3), 20),
    );
    renewal.unref();
    let left: number;
    try {
      left = await sweepHeld(began, result);
    } finally {
      // stopped before the lock is shortened, so that no renewal comes after it
      clearInterval(renewal);
    }
    await deps.redis.eval(RELEASE, 1, lockKey, token, left);
    result.nextInMs = Math.max(left, 1);
    return result;
  }

  /** Writes when this sweep first found tasks, and drops those of tasks no longer in flight. */
  async function recordFound(gone: string[]): Promise<void> {
    if (gone.length === 0 && newlyFound.size === 0) return;
    const tx = deps.redis.multi();
    if (gone.length > 0) tx.hdel(foundKey, ...gone);
    if (newlyFound.size > 0) {
      tx.hset(foundKey, Object.fromEntries([...newlyFound].map(([id, at]) => [id, String(at)])));
      tx.pexpire(foundKey, DAY_MS);
    }
    await tx.exec();
  }

  /** The sweep under the lock; answers how long the lock should stay once it ends (the gap to the next). */
  async function sweepHeld(began: number, result: SweepResult): Promise<number> {
    const rare = began - rareAt >= RARE_EVERY * config.intervalMs;
    if (rare) rareAt = began;
    const statuses = rare ? FINISHED : FINISHED.slice(0, 1);
    const inFlight = await listInFlightUpstreamTasks(deps.database.db);
    result.inFlight = inFlight.length;
    const ids = new Set(inFlight.map((t) => t.id));
    const known = await deps.redis.hgetall(foundKey);
    firstFound = new Map();
    newlyFound = new Map();
    const gone: string[] = [];
    for (const [id, at] of Object.entries(known)) {
      if (ids.has(id)) firstFound.set(id, Number(at));
      else gone.push(id);
    }
    const byChannel = new Map<string, Map<string, InFlight>>();
    for (const t of inFlight) {
      let tasks = byChannel.get(t.upstreamChannel);
      if (!tasks) {
        tasks = new Map();
        byChannel.set(t.upstreamChannel, tasks);
      }
      tasks.set(t.upstreamTaskId, { id: t.id, since: t.submitStartedAt?.getTime() ?? Date.now() });
    }
    await Promise.all(
      [...byChannel].map(([channelName, tasks]) => sweepChannel(channelName, tasks, statuses, result)),
    );
    await recordFound(gone);
    // the next sweep once the busiest channel's pages fit its share of the budget (an idle fleet
    // looks again after the interval)
    const took = Date.now() - began;
    let gap = inFlight.length > 0 ? minGapMs : took + config.intervalMs;
    for (const pages of pagesRead.values()) gap = Math.max(gap, gapFor(pages, took));
    return Math.max(0, Math.round(gap - took));
  }

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    let next = config.intervalMs;
    running = sweepOnce()
      .then((r) => {
        next = r.nextInMs;
        if (!r.skipped && r.found > 0) deps.logger.debug(r, 'batch task query found finished tasks');
      })
      .catch((err: unknown) => deps.logger.warn({ err }, 'poll sweep failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, next);
      });
  };
  return {
    sweepOnce,
    start() {
      stopped = false;
      timer = setTimeout(tick, Math.floor(Math.random() * config.intervalMs));
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
