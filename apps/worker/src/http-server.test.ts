import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@mediagate/shared/config';
import { createMetrics } from '@mediagate/shared/metrics';
import { createRedis, QUEUE_NAMES } from '@mediagate/shared/queue';
import { startRedisServer, waitFor } from '@mediagate/shared/testing';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../test/harness';
import { workerEnvSchema } from './config';
import { queueReadinessKeys, startHealthServer } from './http-server';

let sim: Sim;
let h: WorkerHarness;
let server: Server;
const TOKEN = 'worker-metrics-token-0123';
beforeAll(async () => {
  sim = await startSim();
  h = await startWorkerHarness(sim);
  server = await startHealthServer({
    port: 0,
    host: loadConfig(workerEnvSchema, {}).WORKER_HTTP_HOST,
    metricsToken: TOKEN,
    database: h.database,
    redis: h.redis,
    isAccepting: () => true,
    metrics: createMetrics({ service: 'worker-test', defaultMetrics: false }),
  });
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.close();
  await sim?.stop();
});

const url = (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

describe('worker health and metrics server', () => {
  it('binds to 127.0.0.1 unless WORKER_HTTP_HOST says otherwise', () => {
    expect((server.address() as AddressInfo).address).toBe('127.0.0.1');
    expect(loadConfig(workerEnvSchema, { WORKER_HTTP_HOST: '0.0.0.0' }).WORKER_HTTP_HOST).toBe('0.0.0.0');
  });

  it('serves /metrics only with the metrics token, health checks to anyone', async () => {
    expect((await fetch(url('/metrics'))).status).toBe(401);
    expect((await fetch(url('/metrics'), { headers: { authorization: 'Bearer wrong-token' } })).status).toBe(
      401,
    );
    const ok = await fetch(url('/metrics'), { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('service="worker-test"');
    expect((await fetch(url('/healthz'))).status).toBe(200);
    expect((await fetch(url('/readyz'))).status).toBe(200);
  });
});

describe('worker readiness follows its Redis', () => {
  it('answers 503 within its check timeout while Redis is down, and 200 once it is back', async () => {
    const own = await startRedisServer();
    const redis = createRedis(own.url, 'worker');
    const ready = await startHealthServer({
      port: 0,
      host: '127.0.0.1',
      database: h.database,
      redis,
      isAccepting: () => true,
      redisKeys: queueReadinessKeys(h.prefix, [QUEUE_NAMES.video, QUEUE_NAMES.media]),
      checkTimeoutMs: 1_000,
    });
    const readyz = async () => {
      const t0 = Date.now();
      const res = await fetch(`http://127.0.0.1:${(ready.address() as AddressInfo).port}/readyz`);
      return {
        status: res.status,
        body: (await res.json()) as { checks: Record<string, boolean> },
        ms: Date.now() - t0,
      };
    };
    try {
      expect((await readyz()).status).toBe(200);
      // a Redis that does not answer at all (stopped, not refusing): the check must not hang
      process.kill(own.pid, 'SIGSTOP');
      const paused = await readyz();
      expect(paused.status).toBe(503);
      expect(paused.body.checks).toMatchObject({ redis: false, postgres: true });
      expect(paused.ms).toBeLessThan(3_000);
      process.kill(own.pid, 'SIGCONT');
      await waitFor(async () => (await readyz()).status === 200, { what: 'ready again', timeoutMs: 15_000 });
      // a Redis that is gone
      await own.stop('SIGKILL');
      const down = await readyz();
      expect(down.status).toBe(503);
      expect(down.ms).toBeLessThan(3_000);
      await own.start();
      await waitFor(async () => (await readyz()).status === 200, {
        what: 'ready after restart',
        timeoutMs: 15_000,
      });
    } finally {
      await new Promise((r) => ready.close(r));
      redis.disconnect();
      await own.stop('SIGKILL');
    }
  });
});
