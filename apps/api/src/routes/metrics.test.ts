import type { AddressInfo } from 'node:net';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';
import { buildApp } from '../app';
import { buildMetricsApp } from './metrics';

const TOKEN = 'metrics-token-0123456789';
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ METRICS_TOKEN: TOKEN });
});
afterAll(() => api?.close());

/** The app with other settings, on a port of its own. */
async function serve(app: ReturnType<typeof buildApp>) {
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((r) => server.close(() => r(undefined))),
  };
}

describe('/metrics access', () => {
  it('answers 401 without the metrics token or with a wrong one, 200 with it', async () => {
    await expectError(await call(api, 'GET', '/metrics'), 401, 'invalid_api_key');
    await expectError(
      await call(api, 'GET', '/metrics', { key: 'not-the-metrics-token' }),
      401,
      'invalid_api_key',
    );
    await expectError(
      await call(api, 'GET', '/metrics', { headers: { authorization: `Basic ${TOKEN}` } }),
      401,
      'invalid_api_key',
    );
    const ok = await call(api, 'GET', '/metrics', { key: TOKEN });
    expect(await expectContract(ok, contractFor('get /metrics'), 200)).toContain(
      'mediagate_http_request_duration_seconds',
    );
  });

  it('is not served on the API port without a token, nor when it has a listener of its own', async () => {
    for (const config of [
      { ...api.deps.config, METRICS_TOKEN: undefined },
      { ...api.deps.config, METRICS_PORT: 9464 },
    ]) {
      const other = await serve(buildApp({ ...api.deps, config }));
      try {
        await expectError(await call(other, 'GET', '/metrics', { key: TOKEN }), 404, 'not_found');
      } finally {
        await other.close();
      }
    }
    const separate = await serve(
      buildMetricsApp({ ...api.deps, config: { ...api.deps.config, METRICS_PORT: 0 } }),
    );
    try {
      await expectError(await call(separate, 'GET', '/metrics'), 401, 'invalid_api_key');
      expect((await call(separate, 'GET', '/metrics', { key: TOKEN })).status).toBe(200);
      expect((await call(separate, 'GET', '/v1/videos', { key: TOKEN })).status).toBe(404);
    } finally {
      await separate.close();
    }
  });

  it('reads the queue depths from Redis at most once per few seconds, however often it is scraped', async () => {
    const spies = [
      jest.spyOn(api.videoQueue, 'getJobCounts'),
      jest.spyOn(api.callbacksQueue, 'getJobCounts'),
    ];
    try {
      const scrapes = await Promise.all(
        Array.from({ length: 100 }, () => call(api, 'GET', '/metrics', { key: TOKEN })),
      );
      expect(scrapes.every((r) => r.status === 200)).toBe(true);
      for (let i = 0; i < 50; i++)
        expect((await call(api, 'GET', '/metrics', { key: TOKEN })).status).toBe(200);
      // 150 scrapes within the 5 s window: at most one read per queue (two if the window turned)
      for (const spy of spies) expect(spy.mock.calls.length).toBeLessThanOrEqual(2);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });
});
