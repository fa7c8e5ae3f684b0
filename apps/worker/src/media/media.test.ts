import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import { createHttpAgent } from '@mediagate/shared/http';
import { createLogger } from '@mediagate/shared/log';
import {
  getServedUpload,
  getTaskMedia,
  LocalMediaStorage,
  MediaLinkSigner,
  MediaSourceHosts,
  storedMediaTotals,
  storePlaygroundUpload,
  thumbnailKey,
  videoKey,
} from '@mediagate/shared/media';
import { createMetrics } from '@mediagate/shared/metrics';
import {
  createMediaQueue,
  createRedis,
  QUEUE_NAMES,
  queueKeyPrefix,
  type RedisClient,
} from '@mediagate/shared/queue';
import { getTask } from '@mediagate/shared/tasks';
import { testServiceUrls, waitFor } from '@mediagate/shared/testing';
import { createSsrfPolicy, createSsrfSafeAgent } from '@mediagate/shared/webhooks';
import { type Queue, Worker } from 'bullmq';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../../test/harness';
import { type ReconcilerDeps, reconcileOnce } from '../reconciler';
import { createMediaCopyProcessor } from './copy-processor';

const RETENTION_MS = 7 * 24 * 3600 * 1000;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let sim: Sim;
let h: WorkerHarness;
let dir: string;
let storage: LocalMediaStorage;
let mediaQueue: Queue;
let redis: RedisClient;
let reconciler: ReconcilerDeps;
const metrics = createMetrics({ service: 'media-test', defaultMetrics: false });
const SIGNING_SECRET = 'a-test-secret-of-at-least-32-characters!';
const PUBLIC_BASE_URL = 'https://gw.example.test';
const signer = new MediaLinkSigner(SIGNING_SECRET, PUBLIC_BASE_URL);
const workers: Worker[] = [];
const connections: RedisClient[] = [];
const agents: Array<{ close: () => Promise<void> }> = [];

/** a media-copy worker over the local storage, allowed to fetch from `channels` hosts */
function startCopyWorker(
  opts: { maxBytes?: number; channels?: Array<{ baseUrl: string; mediaHosts?: string[] }> } = {},
) {
  const agent = createHttpAgent({ connectMs: 2_000, headersMs: 5_000, bodyMs: 5_000 });
  const publicAgent = createSsrfSafeAgent(createSsrfPolicy({ allowCidrs: '' }), {
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
  });
  agents.push(agent, publicAgent);
  // a connection handed to a Worker stays open when the worker closes: closed in stopCopyWorkers
  const connection = createRedis(redisUrl, 'worker');
  const worker = new Worker(
    QUEUE_NAMES.media,
    createMediaCopyProcessor({
      database: h.database,
      storage,
      hosts: new MediaSourceHosts(opts.channels ?? [{ baseUrl: sim.url }], []),
      agent,
      publicAgent,
      logger: createLogger({ service: 'media-test', level: 'silent' }),
      metrics,
      config: {
        maxBytes: opts.maxBytes ?? 50 * 1024 * 1024,
        timeoutMs: 30_000,
        attempts: 2,
        retryBaseMs: 10,
        ffmpegPath: 'ffmpeg',
      },
    }),
    { connection, prefix: queueKeyPrefix(h.prefix, QUEUE_NAMES.media), concurrency: 4 },
  );
  worker.on('error', () => {});
  workers.push(worker);
  connections.push(connection);
  return worker;
}
let redisUrl: string;

async function stopCopyWorkers() {
  await Promise.all(workers.splice(0).map((w) => w.close(true)));
  for (const c of connections.splice(0)) c.disconnect();
}

async function simVideoBytes(): Promise<Buffer> {
  const res = await fetch(`${sim.url}/media/videos/any.mp4`);
  return Buffer.from(await res.arrayBuffer());
}

const mediaRow = (id: string) => getTaskMedia(h.database.db, id);
/** moves one of a media row's times (time travel for due copies, dead links, retention) */
const setMedia = (id: string, column: 'next_attempt_at' | 'source_expires_at' | 'expires_at', at: Date) =>
  h.database.pool.query(`update task_media set ${column} = $2 where task_id = $1`, [id, at]);
const rowsOf = async (table: 'ledger_entries' | 'usage_records', ref: string) =>
  (await h.database.pool.query(`select * from ${table} where ref = $1 order by id`, [ref])).rows;

beforeAll(async () => {
  ({ redisUrl } = await testServiceUrls());
  sim = await startSim();
  h = await startWorkerHarness(sim);
  dir = await mkdtemp(path.join(os.tmpdir(), 'worker-media-'));
  storage = new LocalMediaStorage(dir);
  redis = createRedis(redisUrl, 'producer');
  mediaQueue = createMediaQueue(redis, h.prefix);
  // links signed with `signer`'s secret and base, valid for the retention's 7 days
  h.startWorker({
    mediaQueue,
    env: { MEDIA_SIGNING_SECRET: SIGNING_SECRET, PUBLIC_BASE_URL, MEDIA_RETENTION_DAYS: '7' },
  });
  reconciler = {
    database: h.database,
    redis: h.redis,
    videoQueue: h.queue,
    logger: createLogger({ service: 'reconciler-test', level: 'silent' }),
    metrics,
    media: { storage, mediaQueue },
    config: {
      intervalMs: 1_000,
      graceMs: 0,
      imageSettleAfterMs: 15 * 60_000,
      lockKey: `${h.prefix}:rl-media`,
    },
  };
}, 30_000);

afterEach(async () => {
  await stopCopyWorkers();
  await sim.control('POST', '/reset');
  expect(await findLedgerMismatches(h.database.db)).toEqual([]);
});

afterAll(async () => {
  await stopCopyWorkers();
  await Promise.all(agents.map((a) => a.close()));
  await mediaQueue?.obliterate({ force: true }).catch(() => {});
  await mediaQueue?.close();
  redis?.disconnect();
  await h?.close();
  await sim?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('copy on success', () => {
  it('stores the vendor file with its SHA-256 and first frame; the task carries signed links', async () => {
    startCopyWorker();
    const id = await h.createTask();
    const stored = await waitFor(async () => {
      const m = await mediaRow(id);
      return m?.status === 'stored' ? m : null;
    });
    const vendorBytes = await simVideoBytes();
    expect(stored).toMatchObject({
      storageKey: videoKey(id),
      bytes: vendorBytes.length,
      sha256: sha(vendorBytes),
      contentType: 'video/mp4',
      sourceUrl: null,
      copyError: null,
    });
    const kept = await storage.get(videoKey(id));
    expect(sha(await buffer(kept!.body))).toBe(sha(vendorBytes));
    // the first frame, made with ffmpeg
    expect(stored.thumbnailKey).toBe(thumbnailKey(id));
    const thumb = await buffer((await storage.get(thumbnailKey(id)))!.body);
    expect(thumb.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    const task = (await getTask(h.database.db, id))!;
    expect(task.status).toBe('succeeded');
    expect(task.expiresAt!.getTime() - task.completedAt!.getTime()).toBeGreaterThanOrEqual(
      RETENTION_MS - 1_000,
    );
    expect(task.videoUrl).toBe(signer.link(id, 'video', task.expiresAt!));
    expect(task.thumbnailUrl).toBe(signer.link(id, 'thumbnail', task.expiresAt!));
    expect(stored.expiresAt.getTime()).toBe(task.expiresAt!.getTime());
    // the callback written with the move carries the signed link, not the vendor's
    expect(task.videoUrl).not.toContain(sim.url);
  });

  it('leaves a task succeeded with its vendor link and a flag when the copy keeps failing, and the reconciler copies it later', async () => {
    startCopyWorker();
    await sim.control('POST', '/video-media', { linksExpired: true });
    const id = await h.createTask();
    const failed = await waitFor(async () => {
      const m = await mediaRow(id);
      return m?.status === 'failed' ? m : null;
    });
    expect(failed.copyError).toContain('403');
    expect(failed.copyAttempts).toBe(2);
    expect(failed.sourceUrl).toContain(sim.url);
    expect(failed.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());
    expect((await getTask(h.database.db, id))!.status).toBe('succeeded');

    // not due yet: the reconciler leaves it
    expect((await reconcileOnce(reconciler)).media?.copiesRequeued).toBe(0);
    await sim.control('POST', '/video-media', { linksExpired: false });
    await setMedia(id, 'next_attempt_at', new Date(Date.now() - 1_000));
    expect((await reconcileOnce(reconciler)).media?.copiesRequeued).toBe(1);
    const stored = await waitFor(async () => {
      const m = await mediaRow(id);
      return m?.status === 'stored' ? m : null;
    });
    expect(stored.sha256).toBe(sha(await simVideoBytes()));
    expect(stored.copyAttempts).toBe(3);
  });

  it('gives up on a copy whose vendor link died before it was made', async () => {
    const id = await h.createTask();
    const pending = await waitFor(async () => mediaRow(id));
    expect(pending.status).toBe('pending');
    await setMedia(id, 'source_expires_at', new Date(Date.now() - 1_000));
    const sweep = await reconcileOnce(reconciler);
    expect(sweep.media?.lost).toBeGreaterThanOrEqual(1);
    expect((await mediaRow(id))!.status).toBe('expired');
  });

  it('refuses a file over MEDIA_MAX_BYTES, keeping nothing, and never retries it', async () => {
    startCopyWorker({ maxBytes: 1_000_000 });
    await sim.control('POST', '/video-media', { sizeBytes: 3_000_000 });
    const id = await h.createTask();
    const failed = await waitFor(async () => {
      const m = await mediaRow(id);
      return m?.status === 'failed' ? m : null;
    });
    expect(failed.copyError).toContain('larger than 1000000 bytes');
    expect(failed.nextAttemptAt).toBeNull();
    expect(await storage.head(videoKey(id))).toBeNull();
    expect(await readdir(path.join(dir, '.incomplete')).catch(() => [])).toEqual([]);
  });

  it('fetches only from the channel’s media hosts', async () => {
    startCopyWorker({ channels: [{ baseUrl: sim.url, mediaHosts: ['cdn.vendor.example'] }] });
    const id = await h.createTask();
    const failed = await waitFor(async () => {
      const m = await mediaRow(id);
      return m?.status === 'failed' ? m : null;
    });
    expect(failed.copyError).toMatch(/media host .* is not allowed/);
    expect(failed.nextAttemptAt).toBeNull();
    expect(await storage.head(videoKey(id))).toBeNull();
  });
});

describe('settling on what the vendor reports', () => {
  it('refunds the difference when the vendor made a shorter video, in the terminal transaction', async () => {
    await sim.control('POST', '/video-usage', { reportedDuration: 2 });
    const id = await h.createTask(); // 5 s at 720p with sound: 250,000 micro-USD
    await waitFor(async () => ((await getTask(h.database.db, id))?.status === 'succeeded' ? true : null));
    const ledger = await rowsOf('ledger_entries', id);
    const refund = ledger.find((l) => l.kind === 'refund');
    expect(ledger.find((l) => l.kind === 'charge')?.amount_micro_usd).toBe('-250000');
    expect(refund?.amount_micro_usd).toBe('150000');
    expect(refund?.reason).toContain('quoted 250000, actual 100000');
    const [usage] = await rowsOf('usage_records', id);
    expect(usage).toMatchObject({
      cost_micro_usd: '250000',
      refunded_micro_usd: '150000',
      outcome: 'partial',
    });
  });

  it('never charges more than the quote when the vendor reports more', async () => {
    await sim.control('POST', '/video-usage', { reportedDuration: 9 });
    const id = await h.createTask();
    await waitFor(async () => ((await getTask(h.database.db, id))?.status === 'succeeded' ? true : null));
    const ledger = await rowsOf('ledger_entries', id);
    expect(ledger.map((l) => [l.kind, l.amount_micro_usd])).toEqual([['charge', '-250000']]);
  });
});

describe('retention', () => {
  it('deletes media past retention, ends its links, and reports storage use', async () => {
    startCopyWorker();
    const id = await h.createTask();
    await waitFor(async () => ((await mediaRow(id))?.status === 'stored' ? true : null));
    // the earlier tests' copies that are still due would land between the two readings: put them
    // off and let any copy already running finish, so only this task's expiry moves the gauge
    await h.database.pool.query(
      `update task_media set next_attempt_at = now() + interval '1 day' where status in ('pending', 'failed')`,
    );
    await waitFor(async () => ((await mediaQueue.getActiveCount()) === 0 ? true : null));
    await reconcileOnce(reconciler);
    const before = (await metrics.registry.getSingleMetric('mediagate_media_stored_bytes')!.get()).values[0]!
      .value;
    expect(before).toBeGreaterThan(0);

    await setMedia(id, 'expires_at', new Date(Date.now() - 1_000));
    const sweep = await reconcileOnce(reconciler);
    expect(sweep.media?.expired).toBe(1);
    expect((await mediaRow(id))!.status).toBe('expired');
    expect(await storage.head(videoKey(id))).toBeNull();
    expect(await storage.head(thumbnailKey(id))).toBeNull();
    const after = (await metrics.registry.getSingleMetric('mediagate_media_stored_bytes')!.get()).values[0]!
      .value;
    expect(after).toBeLessThan(before);
    // a second sweep finds nothing more to do
    expect((await reconcileOnce(reconciler)).media?.expired).toBe(0);
  });

  it('deletes playground uploads past their lifetime, object and URL, once', async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(64, 1),
    ]);
    const limits = { maxBytes: 1024, perDay: 10, lifetimeMs: 3_600_000 };
    const deps = { db: h.database.db, storage };
    const old = await storePlaygroundUpload(deps, h.accountId, png, limits);
    const fresh = await storePlaygroundUpload(deps, h.accountId, png, limits);
    await h.database.pool.query(
      `update playground_uploads set expires_at = now() - interval '1 second' where id = $1`,
      [old.id],
    );
    expect((await reconcileOnce(reconciler)).media?.uploadsExpired).toBe(1);
    expect(await storage.head(old.storageKey)).toBeNull();
    expect(await getServedUpload(h.database.db, old.id)).toBeNull();
    expect(await storage.head(fresh.storageKey)).not.toBeNull();
    expect(await getServedUpload(h.database.db, fresh.id)).not.toBeNull();
    expect((await reconcileOnce(reconciler)).media?.uploadsExpired).toBe(0);
  });

  it('keeps the storage totals equal to a full sum of the stored media through every change', async () => {
    startCopyWorker();
    const ids = [await h.createTask(), await h.createTask(), await h.createTask()];
    for (const id of ids)
      await waitFor(async () => ((await mediaRow(id))?.status === 'stored' ? true : null));
    // the kept totals and a full sum, read in one statement (one snapshot): other copies may commit meanwhile
    const both = async () => {
      const { rows } = await h.database.pool.query<{ kept: string; summed: string }>(
        `select (select bytes || '/' || objects from media_totals) as kept,
                (select coalesce(sum(coalesce(bytes, 0) + coalesce(thumbnail_bytes, 0)), 0)
                        || '/' || (count(*) + count(thumbnail_key))
                 from task_media where status = 'stored') as summed`,
      );
      expect(rows[0]!.kept).toBe(rows[0]!.summed);
      return rows[0]!.kept;
    };
    await both();
    const stored = await storedMediaTotals(h.database.db);
    expect(stored.objects).toBeGreaterThanOrEqual(3);
    const [a, b, c] = ids as [string, string, string];
    // a thumbnail dropped, a video's size corrected, one expired, one row deleted
    await h.database.pool.query(
      `update task_media set thumbnail_key = null, thumbnail_bytes = null where task_id = $1`,
      [a],
    );
    await h.database.pool.query(`update task_media set bytes = bytes + 1000 where task_id = $1`, [b]);
    await both();
    await h.database.pool.query(`update task_media set status = 'expired' where task_id = $1`, [c]);
    await both();
    await h.database.pool.query(`delete from task_media where task_id = $1`, [b]);
    await both();
  });
});
