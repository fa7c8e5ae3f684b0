import { createLogger } from '@mediagate/shared/log';
import { redisKey } from '@mediagate/shared/queue';
import { getTask, listInFlightUpstreamTasks } from '@mediagate/shared/tasks';
import { waitFor } from '@mediagate/shared/testing';
import { type ChannelConfig, ChannelPool, DashScopeVideoClient } from '@mediagate/shared/upstream';
import { type Sim, simChannel, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';
import { PollBudget } from './poll-budget';
import { createPollSweeper } from './poll-sweeper';

// Tasks run 0.3 to 1.5 s upstream; the sim allows each key 20 task queries a second.
let sim: Sim;
let h: WorkerHarness;

beforeEach(async () => {
  sim = await startSim({
    SIM_VIDEO_PENDING_MS: '0',
    SIM_VIDEO_RUNNING_MS: '300-1500',
    SIM_DASHSCOPE_QUERY_QPS: '20',
  });
  h = await startWorkerHarness(sim);
});
afterEach(async () => {
  await h?.close();
  await sim?.stop();
});

const accounts = (n: number): ChannelConfig[] =>
  Array.from({ length: n }, (_, i) => ({
    ...simChannel(`account-${i + 1}`, sim),
    apiKey: `sk-sweep-account-${i + 1}`,
  }));

/**
 * `n` tasks submitted over `channels` by a worker whose first poll would come in ten minutes, then
 * that worker stopped: each task's job waits delayed.
 */
async function submittedUpstream(
  n: number,
  channels: ChannelConfig[],
  alreadyInFlight = 0,
): Promise<string[]> {
  const worker = h.startWorker({
    channels,
    env: { VIDEO_POLL_SCHEDULER: 'fixed', VIDEO_POLL_INTERVAL_MS: '600000' },
  });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await h.createTask());
  try {
    await waitFor(
      async () => (await listInFlightUpstreamTasks(h.database.db)).length === n + alreadyInFlight,
      {
        what: `${n} tasks submitted`,
        timeoutMs: 20_000,
      },
    );
  } finally {
    await worker.close();
  }
  return ids;
}

/** As submittedUpstream, once every one of the tasks has finished upstream. */
async function finishedUpstream(
  n: number,
  channels: ChannelConfig[],
  alreadyInFlight = 0,
): Promise<string[]> {
  const ids = await submittedUpstream(n, channels, alreadyInFlight);
  await waitFor(async () => (await endsAt(ids)).every((t) => t < Date.now()), {
    what: 'every task to finish upstream',
    timeoutMs: 10_000,
  });
  return ids;
}

/** When the simulator ends each task (epoch ms). */
async function endsAt(ids: string[]): Promise<number[]> {
  return Promise.all(
    ids.map(async (id) => {
      const row = await getTask(h.database.db, id);
      const t = await sim.control('GET', `/tasks/${row!.upstreamTaskId}`);
      return Date.parse(String(t.ends_at));
    }),
  );
}

/** `n` tasks run to success by a worker of their own and recorded (the window's successes grow). */
async function collectedSucceeded(n: number, channels: ChannelConfig[]): Promise<void> {
  await sim.control('POST', '/video-timing', { runningMs: 100, runningMaxMs: null });
  const done = h.startWorker({ channels });
  const collected: string[] = [];
  for (let i = 0; i < n; i++) collected.push(await h.createTask());
  try {
    await waitFor(
      async () =>
        (await Promise.all(collected.map((id) => getTask(h.database.db, id)))).every(
          (r) => r?.status === 'succeeded',
        ),
      { what: `${n} tasks collected`, timeoutMs: 20_000 },
    );
  } finally {
    await done.close();
  }
}

/** A list call that takes `ms` longer than the simulator's, counting the pages asked for. */
function slowList(ms: number): Pick<DashScopeVideoClient, 'list'> & { pages: number } {
  const real = new DashScopeVideoClient(h.agent);
  const client = {
    pages: 0,
    list: async (...args: Parameters<DashScopeVideoClient['list']>) => {
      client.pages += 1;
      await new Promise((r) => setTimeout(r, ms));
      return real.list(...args);
    },
  };
  return client;
}

function sweeper(
  channels: ChannelConfig[],
  queriesPerSecond: number,
  pageSize = 10,
  maxPages = 50,
  intervalMs = 2_000,
  client: Pick<DashScopeVideoClient, 'list'> = new DashScopeVideoClient(h.agent),
  maxSweepMs?: number,
) {
  const logger = createLogger({ service: 'sweep-test', level: 'silent' });
  const budget = new PollBudget(h.redis, h.prefix, { queriesPerSecond, plannedShare: 0.25, headroom: 0.05 });
  return createPollSweeper({
    database: h.database,
    redis: h.redis,
    queue: h.queue,
    client,
    channels: new ChannelPool(channels, { failureThreshold: 5, cooldownMs: 100, logger }),
    budget,
    logger,
    config: { intervalMs, pageSize, maxPages, prefix: h.prefix, maxSweepMs },
  });
}

const promoted = async (ids: string[]) =>
  (
    await Promise.all(ids.map(async (id) => ((await (await h.queue.getJob(id))!.isDelayed()) ? null : id)))
  ).filter((id): id is string => id !== null);

describe('the batch-query sweep over several vendor accounts', () => {
  it('sweeps each channel on its own: a channel whose query budget is spent holds up no other', async () => {
    const channels = accounts(3);
    const ids = await finishedUpstream(15, channels);
    // the channel the sweep meets first has no query slot free for the next 30 s
    const inFlight = await listInFlightUpstreamTasks(h.database.db);
    const spent = inFlight[0]!.upstreamChannel;
    const [secs, micros] = await h.redis.time();
    const nowUs = Number(secs) * 1_000_000 + Number(micros);
    await h.redis.set(
      redisKey(h.prefix, 'upstream-query-tat', spent),
      String(nowUs + 30_000_000),
      'PX',
      60_000,
    );

    const result = await sweeper(channels, 20).sweepOnce();

    const others = inFlight.filter((t) => t.upstreamChannel !== spent).map((t) => t.id);
    expect(others.length).toBeGreaterThan(0);
    expect(result).toMatchObject({ found: others.length, promoted: others.length, deferred: 0 });
    expect((await promoted(ids)).sort()).toEqual(others.sort());
    const byKey = (await sim.stats()).video as { query_throttled: number };
    expect(byKey.query_throttled).toBe(0);
  });

  it('runs no more of a channel’s finished tasks than its budget can query before the next sweep, those that finished first first', async () => {
    const channels = accounts(1);
    const ids = await finishedUpstream(30, channels);
    // 5 queries a second (4.75 used), 2 s between sweeps: room for the task queries of about 9 before
    // the next sweep, after the list pages, and a little more for as long as this one took
    const began = Date.now();
    const result = await sweeper(channels, 5).sweepOnce();
    const took = Date.now() - began;

    expect(result.found).toBe(30);
    expect(result.promoted).toBeGreaterThan(0);
    expect(took).toBeLessThan(3_000);
    expect(result.promoted).toBeLessThanOrEqual(Math.floor((4.75 * (2_000 + took)) / 1000));
    expect(result.deferred).toBe(30 - result.promoted);
    const ends = await endsAt(ids);
    const firstFinished = ids
      .map((id, i) => ({ id, end: ends[i]! }))
      .sort((a, b) => a.end - b.end)
      .slice(0, result.promoted)
      .map((t) => t.id);
    expect((await promoted(ids)).sort()).toEqual(firstFinished.sort());
  });

  it('lists what still runs once that takes fewer pages than the successes, and finds exactly the tasks that ended', async () => {
    const channels = accounts(1);
    // 20 tasks that ended and were collected: the window's successes now fill 4 pages of 5
    await collectedSucceeded(20, channels);
    // in flight: 6 tasks still running upstream, then 4 that have ended there
    await sim.control('POST', '/video-timing', { runningMs: 600_000 });
    const running: string[] = [];
    const idle = h.startWorker({
      channels,
      env: { VIDEO_POLL_SCHEDULER: 'fixed', VIDEO_POLL_INTERVAL_MS: '600000' },
    });
    try {
      for (let i = 0; i < 6; i++) running.push(await h.createTask());
      await waitFor(async () => (await listInFlightUpstreamTasks(h.database.db)).length === 6, {
        what: '6 tasks submitted',
      });
    } finally {
      await idle.close();
    }
    await sim.control('POST', '/video-timing', { runningMs: 100 });
    const ended = await finishedUpstream(4, channels, running.length);
    // the sweep leaves tasks submitted in its last 10 s to the next one (the vendor's clock may be ahead)
    const submitted = Date.now();
    await waitFor(() => Date.now() - submitted > 12_000, {
      what: 'the tasks to be 12 s old',
      timeoutMs: 20_000,
    });

    const throttled = async () => ((await sim.stats()).video as { query_throttled: number }).query_throttled;
    const throttledBefore = await throttled();
    const sweep = sweeper(channels, 20, 5);
    // the first sweep lists the successes (24 in the window: 5 pages), and learns their number
    const first = await sweep.sweepOnce();
    expect(first.found).toBe(4);
    await h.redis.del(redisKey(h.prefix, 'upstream-poll-sweep'));
    const second = await sweep.sweepOnce();
    // the next lists what is pending (none) and running (6: 2 pages) instead of 5 pages of successes
    expect(second).toMatchObject({ found: 4, queries: 3 });
    expect((await promoted([...running, ...ended])).sort()).toEqual([...ended].sort());
    // a sweep that may read one page a list: what still runs (2 pages) is more than it reads, so it
    // finds the ended tasks on the successes' first page (newest first) instead of nothing
    const narrow = sweeper(channels, 20, 5, 1);
    await h.redis.del(redisKey(h.prefix, 'upstream-poll-sweep'));
    expect((await narrow.sweepOnce()).found).toBe(4);
    await h.redis.del(redisKey(h.prefix, 'upstream-poll-sweep'));
    expect((await narrow.sweepOnce()).found).toBe(4);
    expect(await throttled()).toBe(throttledBefore);
  });

  it('sweeps again as soon as its list pages fit a third of each channel’s budget, within the interval', async () => {
    const channels = accounts(2);
    await finishedUpstream(6, channels);
    const lock = redisKey(h.prefix, 'upstream-poll-sweep');
    // 20 queries a second: a sweep of a page or two takes a small share of the budget, so the next
    // comes after the shortest gap (500 ms) instead of the 10 s interval, and the lock says so
    const sweep = sweeper(channels, 20, 10, 50, 10_000);
    const first = await sweep.sweepOnce();
    expect(first).toMatchObject({ skipped: false, found: 6 });
    expect(first.nextInMs).toBeLessThanOrEqual(500);
    expect(await h.redis.pttl(lock)).toBeLessThanOrEqual(500);
    // another worker asks again when the lock ends, not an interval later
    const other = await sweeper(channels, 20, 10, 50, 10_000).sweepOnce();
    if (other.skipped) expect(other.nextInMs).toBeLessThanOrEqual(500);
    await waitFor(async () => (await h.redis.exists(lock)) === 0, {
      what: 'the lock to end',
      timeoutMs: 2_000,
    });
    expect((await sweep.sweepOnce()).skipped).toBe(false);

    // 2 queries a second: the same pages take more than a third of the budget over the shortest
    // gap, so the next sweep waits until they fit (here the whole 3 s interval)
    await h.redis.del(lock);
    const slow = await sweeper(channels, 2, 10, 50, 3_000).sweepOnce();
    expect(slow.queries).toBeGreaterThan(0);
    expect(slow.nextInMs).toBeGreaterThan(500);
    expect(await h.redis.pttl(lock)).toBeGreaterThan(500);
  });

  it.each([
    ['the same worker', false],
    ['another worker', true],
  ])('runs the tasks it left for later before tasks found after them, whenever they were submitted (next sweep by %s)', async (_, another) => {
    const channels = accounts(1);
    // 40 tasks that ended and were collected: the window's successes fill pages enough that the
    // second sweep lists what still runs (and so knows no end time of the tasks it takes as ended)
    await collectedSucceeded(40, channels);
    // submitted first, ending 10 s later: found by the second sweep only
    await sim.control('POST', '/video-timing', { runningMs: 10_000 });
    const later = await submittedUpstream(4, channels);
    const lock = redisKey(h.prefix, 'upstream-poll-sweep');
    // another worker's sweep before any of ours ended: it learns how many successes the window
    // holds (so that its next sweep lists what still runs), and finds nothing
    const other = sweeper(channels, 2, 10);
    if (another) {
      expect((await other.sweepOnce()).found).toBe(0);
      await h.redis.del(lock);
    }
    // submitted after them, ending at once: found by the first sweep, which has room for few
    await sim.control('POST', '/video-timing', { runningMs: 100 });
    const first = await finishedUpstream(16, channels, later.length);

    // 2 queries a second: some of the 16 are run by the first sweep (the slots of the 2 s interval
    // and of its own pages), the rest left for later
    const sweep = sweeper(channels, 2, 10);
    const one = await sweep.sweepOnce();
    expect(one.found).toBe(16);
    expect(one.deferred).toBeGreaterThan(0);
    // the later ones end
    await waitFor(async () => (await endsAt(later)).every((t) => t < Date.now() - 500), {
      what: 'the later tasks to end',
      timeoutMs: 15_000,
    });
    // every task old enough to be taken as ended (10 s after its submission)
    const submitted = Math.max(
      ...(await Promise.all(
        [...later, ...first].map(async (id) =>
          (await getTask(h.database.db, id))!.submitStartedAt!.getTime(),
        ),
      )),
    );
    await waitFor(() => Date.now() - submitted > 12_000, {
      what: 'every task to be 12 s old',
      timeoutMs: 25_000,
    });
    await h.redis.del(lock);
    // the next sweep by the same worker, or by another one (as when several video workers sweep in turn)
    const two = await (another ? other : sweep).sweepOnce();
    expect(two.found).toBe(20);
    expect(two.deferred).toBeGreaterThan(0);
    // while any of the first found still waits, none of the later found has been run
    const run = new Set(await promoted([...first, ...later]));
    expect(first.filter((id) => !run.has(id)).length).toBeGreaterThan(0);
    expect(later.filter((id) => run.has(id))).toEqual([]);
  });

  it('gives no room to tasks whose jobs an earlier sweep already ran', async () => {
    const channels = accounts(1);
    const ids = await finishedUpstream(30, channels);
    const lock = redisKey(h.prefix, 'upstream-poll-sweep');
    // 5 queries a second: each sweep has room for about 9 jobs; no worker runs the jobs promoted by
    // the first, so their tasks are still in flight, and found again, at the second
    const one = await sweeper(channels, 5).sweepOnce();
    expect(one.promoted).toBeGreaterThan(0);
    await h.redis.del(lock);
    const two = await sweeper(channels, 5).sweepOnce();
    expect(two.found).toBe(30);
    expect(two.alreadyRun).toBe(one.promoted);
    // the second runs as many new jobs as it has room for (not its room less the first's)
    expect(two.room).toBeGreaterThan(0);
    expect(two.promoted).toBe(Math.min(two.room, 30 - one.promoted));
    expect(two.promoted + two.alreadyRun + two.deferred).toBe(30);
    expect((await promoted(ids)).length).toBe(one.promoted + two.promoted);
  });

  it('keeps its lock while a sweep lasts longer than the interval: no second sweep joins it', async () => {
    const channels = accounts(1);
    await submittedUpstream(6, channels);
    // list pages that take 600 ms each, one task a page: the sweep lasts well past its 1 s interval
    const slow = slowList(600);
    const first = sweeper(channels, 100, 1, 50, 1_000, slow).sweepOnce();
    // a third page asked for: the sweep has held the lock for over 1.2 s, past the 1 s it was taken for
    await waitFor(() => slow.pages >= 3, {
      what: 'the first sweep to ask for a third page',
      timeoutMs: 15_000,
    });
    const second = await sweeper(channels, 100, 1, 50, 1_000).sweepOnce();
    expect(second.skipped).toBe(true);
    expect((await first).skipped).toBe(false);
  });

  it('lets another worker sweep once a sweep has held the lock for its longest (a sweep that is stuck)', async () => {
    const channels = accounts(1);
    await submittedUpstream(6, channels);
    const slow = slowList(250);
    // held for at most 400 ms by renewals: after three pages (750 ms and more) the lock is gone
    const first = sweeper(channels, 100, 1, 50, 300, slow, 400).sweepOnce();
    await waitFor(() => slow.pages >= 3, { what: 'the first sweep to read three pages', timeoutMs: 10_000 });
    const second = await sweeper(channels, 100, 1, 50, 300).sweepOnce();
    expect(second.skipped).toBe(false);
    await first;
  });
});
