import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@mediagate/shared/config';
import { createMetrics } from '@mediagate/shared/metrics';
import { type Sim, startSim, startWorkerHarness, type WorkerHarness } from '../test/harness';
import { workerEnvSchema } from './config';
import { startHealthServer } from './http-server';

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
