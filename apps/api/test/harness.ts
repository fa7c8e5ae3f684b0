import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createAccount } from '@mediagate/shared/accounts';
import { usdToMicro } from '@mediagate/shared/billing';
import { defaultCatalog } from '@mediagate/shared/catalog';
import { loadConfig } from '@mediagate/shared/config';
import { errorResponse } from '@mediagate/shared/contracts';
import { createDatabase, type Database } from '@mediagate/shared/db';
import { createLogger } from '@mediagate/shared/log';
import { LruCache } from '@mediagate/shared/lru';
import { createMediaLinkSigner, LocalMediaStorage, type MediaStorage } from '@mediagate/shared/media';
import { createMetrics } from '@mediagate/shared/metrics';
import { createDevPaymentProvider, createQrPaymentProviders } from '@mediagate/shared/payments';
import {
  createCallbacksQueue,
  createMediaQueue,
  createRedis,
  createVideoQueue,
  PendingEnqueues,
  type RedisClient,
  redisKey,
} from '@mediagate/shared/queue';
import { TaskDurations } from '@mediagate/shared/tasks';
import { createTestDatabase, testQueuePrefix, testServiceUrls } from '@mediagate/shared/testing';
import { createSsrfPolicy, type Resolver } from '@mediagate/shared/webhooks';
import type { Queue } from 'bullmq';
import type { Express } from 'express';
import type IORedis from 'ioredis';
import { buildApp } from '../src/app';
import { type ApiConfig, apiEnvSchema } from '../src/config';
import type { ApiDeps } from '../src/deps';
import { createApiServer } from '../src/http-server';
import { createMailer } from '../src/mail/mailer';
import { bodyBudgetFor } from '../src/middleware/body-admission';
import { RateLimits, rateLimitConfig } from '../src/middleware/rate-limit';
import { TaskEventHub, taskEventHubOptions } from '../src/task-events';
import { createApiLifecycle } from '../src/task-lifecycle';
import { createUpstreams } from '../src/upstreams';
import { strictly } from './contract';

export interface TestApi {
  url: string;
  database: Database;
  redis: RedisClient;
  videoQueue: Queue;
  callbacksQueue: Queue;
  prefix: string;
  /** the Express app itself (its routers, for the OpenAPI contract test) */
  app: Express;
  /** the dependencies the app was built with (to build a second replica over the same stores) */
  deps: ApiDeps;
  /**
   * another API replica over the same Postgres, Redis and queue prefix, with its own caches and
   * event hub, on its own port
   */
  replica: () => Promise<{ url: string; deps: ApiDeps; close: () => Promise<void> }>;
  /** a new account with `balanceUsd` of credit; returns its key and id */
  account: (balanceUsd?: number) => Promise<{ key: string; accountId: string; keyId: string }>;
  close: () => Promise<void>;
}

/** The real API app on a free port, against a fresh database and a fresh queue prefix. */
export async function startTestApi(
  overrides: Partial<ApiConfig> & {
    redisUrl?: string;
    /** the SSRF allow-list (default: nothing opened) and a DNS resolver for the SSRF checks */
    ssrfAllowCidrs?: string;
    resolve?: Resolver;
    /** where media is kept (default: the local driver in a fresh temporary directory) */
    mediaStorage?: MediaStorage;
  } = {},
): Promise<TestApi> {
  const { redisUrl } = await testServiceUrls();
  const testDb = await createTestDatabase();
  const database = createDatabase(testDb.url, { max: 10 });
  const prefix = testQueuePrefix();
  const redis = createRedis(overrides.redisUrl ?? redisUrl, 'producer');
  const videoQueue = createVideoQueue(redis, prefix);
  const callbacksQueue = createCallbacksQueue(redis, prefix);
  const mediaQueue = createMediaQueue(redis, prefix);
  const logger = createLogger({ service: 'api-test', level: 'silent' });
  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'api-media-'));
  const config = {
    // every variable at its default (the environment is not read), then the test's choices
    ...loadConfig(apiEnvSchema, {}),
    BODY_LIMIT_BYTES: 64 * 1024,
    VIDEO_DEADLINE_MS: 30 * 60_000,
    ENQUEUE_TIMEOUT_MS: 2_000,
    // test files create many tasks per account; the limit has its own tests
    VIDEO_MAX_ACTIVE_TASKS: 10_000,
    ...overrides,
  };
  const metrics = createMetrics({ service: 'api-test', defaultMetrics: false });
  const hubFor = async (taskCache?: LruCache<string, { accountId: string; json: string }>) => {
    const hub = new TaskEventHub(
      createRedis(overrides.redisUrl ?? redisUrl, 'worker'),
      redis,
      prefix,
      taskEventHubOptions(config, database, 1_000),
      logger,
      taskCache,
    );
    // with Redis down (tests of that) the subscription waits for it: do not wait for it here
    await Promise.race([hub.start(), new Promise((r) => setTimeout(r, 2_000).unref())]);
    return hub;
  };
  const taskEvents = await hubFor();
  const upstreams = createUpstreams(config, { db: database.db, logger, metrics });
  const mailer = createMailer({ smtpUrl: config.SMTP_URL, from: config.MAIL_FROM, logger });
  const pendingEnqueues = new PendingEnqueues(redis, { retryMs: 100 });
  const videoUpstream = { channels: upstreams.channels, client: upstreams.video };
  const lifecycleOf = (hub: TaskEventHub) =>
    createApiLifecycle({
      database,
      logger,
      metrics,
      videoQueue,
      callbacksQueue,
      pendingEnqueues,
      taskEvents: hub,
      videoUpstream,
      querySlots: { redis, prefix, queriesPerSecond: config.UPSTREAM_POLL_QPS },
      enqueueTimeoutMs: config.ENQUEUE_TIMEOUT_MS,
    });
  const deps: ApiDeps = {
    database,
    redis,
    videoQueue,
    lifecycle: lifecycleOf(taskEvents),
    callbacksQueue,
    mediaQueue,
    ssrf: createSsrfPolicy({ allowCidrs: overrides.ssrfAllowCidrs ?? '', resolve: overrides.resolve }),
    catalog: defaultCatalog(),
    images: upstreams.images,
    videoUpstream,
    logger,
    config,
    mailer,
    rateLimits: new RateLimits(redis, rateLimitConfig({ ...config, QUEUE_PREFIX: prefix }), logger),
    bodyBudget: bodyBudgetFor(config),
    paymentProviders: config.PAYMENT_DEV_SECRET
      ? [createDevPaymentProvider(config.PAYMENT_DEV_SECRET, config.PAYMENT_SIGNATURE_TOLERANCE_S)]
      : [],
    qrProviders: createQrPaymentProviders(config),
    metrics,
    taskEvents,
    durations: new TaskDurations(redis, prefix),
    media: {
      storage: overrides.mediaStorage ?? new LocalMediaStorage(mediaDir),
      signer: createMediaLinkSigner(config),
    },
    queuePrefix: prefix,
    isAcceptingTraffic: () => true,
  };
  const app = buildApp(deps);
  // the production server (createApiServer): its keep-alive, header and request bounds, not Node's
  // defaults (a 5 s keep-alive would race a client's next request on a slow machine: ECONNRESET)
  const listen = async (a: Express) => {
    const s = createApiServer(a, config).listen(0, '127.0.0.1');
    await new Promise((r) => s.once('listening', r));
    return s;
  };
  const server = await listen(app);
  const { port } = server.address() as AddressInfo;
  const replicas: Array<() => Promise<void>> = [];
  let n = 0;
  return {
    url: `http://127.0.0.1:${port}`,
    database,
    redis,
    videoQueue,
    callbacksQueue,
    prefix,
    app,
    deps,
    replica: async () => {
      const taskCache = new LruCache<string, { accountId: string; json: string }>(1_000);
      const hub = await hubFor(taskCache);
      const replicaDeps: ApiDeps = {
        ...deps,
        taskEvents: hub,
        lifecycle: lifecycleOf(hub),
        taskCache,
        authCache: undefined,
        bodyBudget: bodyBudgetFor(config),
      };
      const s = await listen(buildApp(replicaDeps));
      const close = async () => {
        hub.closeStreams();
        await new Promise((r) => s.close(r));
        s.closeAllConnections();
        await hub.close();
      };
      replicas.push(close);
      return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, deps: replicaDeps, close };
    },
    account: async (balanceUsd = 10) => {
      n += 1;
      const { accountId, key } = await createAccount(database.db, {
        email: `user${n}-${Date.now()}@example.test`,
        initialCreditMicroUsd: usdToMicro(balanceUsd),
      });
      return { key: key.key, accountId, keyId: key.id };
    },
    close: async () => {
      await Promise.all(replicas.map((c) => c()));
      taskEvents.closeStreams();
      // a response a test left unread holds its connection open: close() waits for every connection,
      // so the connections are ended as the close begins, not after it
      const closed = new Promise((r) => server.close(r));
      server.closeAllConnections();
      await closed;
      await taskEvents.close();
      pendingEnqueues.close();
      const cleanup = Promise.all([
        videoQueue.obliterate({ force: true }).catch(() => {}),
        callbacksQueue.obliterate({ force: true }).catch(() => {}),
        mediaQueue.obliterate({ force: true }).catch(() => {}),
      ]);
      await Promise.race([cleanup, new Promise((r) => setTimeout(r, 2_000).unref())]);
      await videoQueue.close();
      await callbacksQueue.close();
      await mediaQueue.close();
      await upstreams.close();
      await mailer.drain();
      mailer.close();
      await deleteRateLimitKeys(redis, prefix);
      redis.disconnect();
      await database.close();
      await testDb.drop();
      await rm(mediaDir, { recursive: true, force: true });
    },
  };
}

/** fetch with a bearer key and a JSON body. */
export function call(
  api: { url: string },
  method: string,
  path: string,
  opts: { key?: string; json?: unknown; body?: RequestInit['body']; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(opts.json);
  }
  return fetch(api.url + path, { method, headers, body });
}

export const IMG = 'https://example.com/cat.png';

export function videoBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'wan2.6-i2v-flash-5s-720p',
    prompt: 'a cat walks across the frame',
    metadata: { input: { img_url: IMG } },
    ...overrides,
  };
}

/** Asserts the OpenAI error envelope (exactly the contract's `errorResponse`) and returns the error object. */
export async function expectError(res: Response, status: number, code: string) {
  const body = (await res.json()) as {
    error: { message: string; type: string; code: string; param: string | null };
  };
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  expect(strictly(errorResponse).safeParse(body).error?.issues ?? []).toEqual([]);
  return body.error;
}

/** Removes the rate-limit counters of a test app (they live under its queue prefix). */
async function deleteRateLimitKeys(redis: RedisClient, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis
      .scan(cursor, 'MATCH', `rl:${redisKey(prefix)}:*`, 'COUNT', 1000)
      .catch(() => ['0', []] as [string, string[]]);
    cursor = next;
    if (keys.length) await redis.del(...keys).catch(() => 0);
  } while (cursor !== '0');
}
