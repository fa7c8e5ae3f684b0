import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAccount } from '@mediagate/shared/accounts';
import { usdToMicro } from '@mediagate/shared/billing';
import { createDatabase, type Database } from '@mediagate/shared/db';
import { createRedis, type RedisClient, redisNamespace } from '@mediagate/shared/queue';
import {
  createTestDatabase,
  type ProcessGroup,
  processGroup,
  testServiceUrls,
} from '@mediagate/shared/testing';

/** One scenario's world: a fresh database and queue prefix, its processes, and an account with money. */
export interface BenchEnv {
  databaseUrl: string;
  redisUrl: string;
  prefix: string;
  database: Database;
  redis: RedisClient;
  group: ProcessGroup;
  env: Record<string, string>;
  key: string;
  accountId: string;
  keyId: string;
  close: () => Promise<void>;
}

export async function benchEnv(
  extraEnv: Record<string, string> = {},
  opts: { redisUrl?: string } = {},
): Promise<BenchEnv> {
  const redisUrl = opts.redisUrl ?? (await testServiceUrls()).redisUrl;
  const db = await createTestDatabase();
  const prefix = `{bench-${randomUUID().slice(0, 8)}}`;
  // the bench's own queries: one or two at a time, but the create scenario's bare baseline inserts
  // tasks from many loops at once (a pool opens connections only as they are needed)
  const database = createDatabase(db.url, { max: 10 });
  const redis = createRedis(redisUrl, 'worker');
  // the copies of succeeded videos and their thumbnails: in a directory of the scenario's own
  const mediaDir = mkdtempSync(path.join(os.tmpdir(), 'mediagate-bench-media-'));
  const env = {
    MEDIA_DIR: mediaDir,
    DATABASE_URL: db.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    // BENCH_LOG_LEVEL=info: production's level (one line per request) instead of warn's quiet
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    // the benchmark drives one account far beyond the default per-key and per-account limits
    RATE_LIMIT_RPM: '100000000',
    VIDEO_MAX_ACTIVE_TASKS: '100000000',
    // up to 5 gateway processes and this one share the server's 100 connections with other work
    // (other engineers' tests): at 10 each a scenario opens at most 60, a pipeline run 50
    // (BENCH_DATABASE_POOL_MAX; the baseline build's run gets this run's value)
    DATABASE_POOL_MAX: process.env.BENCH_DATABASE_POOL_MAX ?? '10',
    ...extraEnv,
  };
  const { accountId, key } = await createAccount(database.db, {
    email: `bench-${prefix}@example.test`,
    initialCreditMicroUsd: usdToMicro(10_000_000),
  });
  // BENCH_CPU_PROF_DIR=<dir>: every process writes a V8 CPU profile there when it exits
  const profDir = process.env.BENCH_CPU_PROF_DIR;
  // BENCH_NODE_ARGS: more flags for every gateway process, e.g. `--perf-basic-prof` to read the
  // processes' on-CPU samples with Linux perf (the V8 profile samples by wall clock)
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  if (profDir) nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profDir}`);
  const group = processGroup(env, { nodeArgs });
  return {
    databaseUrl: db.url,
    redisUrl,
    prefix,
    database,
    redis,
    group,
    env,
    key: key.key,
    accountId,
    keyId: key.id,
    close: async () => {
      await group.stopAll();
      // the bench's keys: its queues `{<ns>:<queue>}...`, the rest `<ns>:...` and `rl:<ns>:...`
      const ns = redisNamespace(prefix);
      for (const pattern of [`{${ns}:*`, `${ns}:*`, `rl:${ns}:*`, `${prefix}*`]) {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 5000);
          cursor = next;
          if (keys.length) await redis.del(...keys);
        } while (cursor !== '0');
      }
      redis.disconnect();
      await database.close();
      await db.drop();
      rmSync(mediaDir, { recursive: true, force: true });
    },
  };
}

export const VIDEO_BODY = JSON.stringify({
  model: 'wan2.6-i2v-flash-5s-720p',
  prompt: 'a paper boat drifts down a rainy street',
  metadata: { input: { img_url: 'https://example.com/boat.png' } },
});
