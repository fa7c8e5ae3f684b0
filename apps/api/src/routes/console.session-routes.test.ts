import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { failTask } from '@mediagate/shared/tasks';
import { listTaskDeliveries, type Resolver } from '@mediagate/shared/webhooks';
import { Webhook } from 'standardwebhooks';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, IMG, startTestApi, type TestApi, videoBody } from '../../test/harness';

// The console's session routes that reuse the /v1 handlers (videos, callbacks, webhooks), the
// spend summary, the model list, and the console's pages served at /.
const resolve: Resolver = async () => [{ address: '93.184.216.34', family: 4 }];
const HOOK = 'https://hooks.public.test/video';

let api: TestApi;
let pagesDir: string;
beforeAll(async () => {
  pagesDir = mkdtempSync(path.join(tmpdir(), 'console-pages-'));
  mkdirSync(path.join(pagesDir, 'assets'));
  writeFileSync(path.join(pagesDir, 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(path.join(pagesDir, 'assets', 'index-abc123.js'), 'console.log(1)');
  // the build's compressed copies (apps/console/scripts/compress.mjs)
  writeFileSync(path.join(pagesDir, 'assets', 'index-abc123.js.br'), brotliCompressSync('console.log(1)'));
  writeFileSync(path.join(pagesDir, 'assets', 'index-abc123.js.gz'), gzipSync('console.log(1)'));
  writeFileSync(path.join(pagesDir, 'favicon.svg'), '<svg/>');
  api = await startTestApi({ resolve, CONSOLE_DIR: pagesDir, ssrfAllowCidrs: '127.0.0.0/8' });
});
afterAll(async () => {
  await api.close();
  rmSync(pagesDir, { recursive: true, force: true });
});

const get = (p: string, session?: string) => consoleCall(api, 'GET', `/console/api${p}`, session);
const post = (p: string, session?: string, json?: unknown) =>
  consoleCall(api, 'POST', `/console/api${p}`, session, json);

async function failedTaskWithCallback(key: string): Promise<string> {
  const res = await call(api, 'POST', '/v1/videos', {
    key,
    json: videoBody({ metadata: { input: { img_url: IMG }, callback_url: HOOK } }),
  });
  const { id } = (await res.json()) as { id: string };
  await failTask(api.database.db, id, { code: 'DataInspectionFailed', message: 'refused' });
  return id;
}

describe('video tasks and callbacks with a console session', () => {
  it("lists, shows and filters the account's tasks as /v1 does, and hides other accounts' tasks", async () => {
    const a = await consoleAccount(api);
    const b = await consoleAccount(api);
    const id = await failedTaskWithCallback(a.key);
    const list = (await expectContract(
      await get('/videos?status=failed', a.session),
      contractFor('get /console/api/videos'),
      200,
    )) as {
      data: Array<{ id: string }>;
    };
    expect(list.data.map((t) => t.id)).toEqual([id]);
    const viaKey = await (await call(api, 'GET', `/v1/videos/${id}`, { key: a.key })).json();
    expect(
      await expectContract(
        await get(`/videos/${id}`, a.session),
        contractFor('get /console/api/videos/:taskId'),
        200,
      ),
    ).toMatchObject(viaKey as object);
    expect(((await (await get('/videos', b.session)).json()) as { data: unknown[] }).data).toEqual([]);
    await expectError(await get(`/videos/${id}`, b.session), 404, 'not_found');
    await expectError(await get(`/videos/${id}/callbacks`, b.session), 404, 'not_found');
    await expectError(await get('/videos?status=done', a.session), 400, 'invalid_request');
    await expectError(await get('/videos'), 401, 'invalid_session');
    // an API key is not a console session
    await expectError(await call(api, 'GET', '/console/api/videos', { key: a.key }), 401, 'invalid_session');
  });

  it('lists the callback deliveries and sends one again', async () => {
    const a = await consoleAccount(api);
    const b = await consoleAccount(api);
    const id = await failedTaskWithCallback(a.key);
    const [d] = await listTaskDeliveries(api.database.db, id);
    const list = (await expectContract(
      await get(`/videos/${id}/callbacks`, a.session),
      contractFor('get /console/api/videos/:taskId/callbacks'),
      200,
    )) as {
      data: Array<{ id: string }>;
    };
    expect(list.data.map((x) => x.id)).toEqual([d!.id]);
    const again = await post(`/videos/${id}/callbacks/${d!.id}/redeliver`, a.session);
    expect(
      await expectContract(
        again,
        contractFor('post /console/api/videos/:taskId/callbacks/:deliveryId/redeliver'),
        202,
      ),
    ).toMatchObject({ id: d!.id, status: 'pending' });
    await expectError(await post(`/videos/${id}/callbacks/${d!.id}/redeliver`, b.session), 404, 'not_found');
  });
});

describe('webhook settings with a console session', () => {
  it('shows and rotates the same secret the API key sees, and switches processing events', async () => {
    const a = await consoleAccount(api);
    const first = (await expectContract(
      await get('/webhooks/secret', a.session),
      contractFor('get /console/api/webhooks/secret'),
      200,
    )) as { secret: string };
    expect(first.secret).toMatch(/^whsec_/);
    const rotated = (await expectContract(
      await post('/webhooks/secret/rotate', a.session),
      contractFor('post /console/api/webhooks/secret/rotate'),
      200,
    )) as {
      secret: string;
      previous_secret_expires_at: number;
    };
    expect(rotated.secret).not.toBe(first.secret);
    expect(rotated.previous_secret_expires_at).toBeGreaterThan(Date.now() / 1000);
    const viaKey = (await (await call(api, 'GET', '/v1/webhooks/secret', { key: a.key })).json()) as {
      secret: string;
    };
    expect(viaKey.secret).toBe(rotated.secret);
    const on = await post('/webhooks/settings', a.session, { video_processing: true });
    expect(await expectContract(on, contractFor('post /console/api/webhooks/settings'), 200)).toMatchObject({
      video_processing: true,
    });
    expect(
      await expectContract(
        await get('/webhooks/settings', a.session),
        contractFor('get /console/api/webhooks/settings'),
        200,
      ),
    ).toMatchObject({
      events: ['video.succeeded', 'video.failed', 'video.processing'],
    });
    await expectError(
      await post('/webhooks/settings', a.session, { video_processing: 'yes' }),
      400,
      'invalid_request',
    );
    await expectError(await post('/webhooks/secret/rotate'), 401, 'invalid_session');
  });

  it('sends a signed test event and reports the answer; refuses private addresses and bad URLs', async () => {
    const a = await consoleAccount(api);
    const seen: Array<{ headers: Record<string, string>; body: string }> = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
        res.writeHead(req.url === '/gone' ? 410 : 200).end('thanks');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await post('/webhooks/test', a.session, { url: `${url}/hook` });
      expect(await expectContract(res, contractFor('post /console/api/webhooks/test'), 200)).toMatchObject({
        delivered: true,
        status_code: 200,
        response_body: 'thanks',
        error: null,
      });
      const { secret } = (await (await get('/webhooks/secret', a.session)).json()) as { secret: string };
      const event = new Webhook(secret).verify(seen[0]!.body, seen[0]!.headers) as { type: string };
      expect(event.type).toBe('webhook.test');

      const gone = await (await post('/webhooks/test', a.session, { url: `${url}/gone` })).json();
      expect(gone).toMatchObject({ delivered: false, status_code: 410, error: 'HTTP 410' });
    } finally {
      server.closeAllConnections();
      server.close();
    }
    // the API's guard: 127.0.0.0/8 is opened in this test, 10.0.0.0/8 is not
    const blocked = await expectError(
      await post('/webhooks/test', a.session, { url: 'http://10.1.2.3/x' }),
      400,
      'invalid_request',
    );
    expect(blocked.param).toBe('url');
    expect(
      (
        await expectError(
          await post('/webhooks/test', a.session, { url: 'ftp://x.test/' }),
          400,
          'invalid_request',
        )
      ).param,
    ).toBe('url');
    const refused = await (
      await post('/webhooks/test', a.session, { url: 'http://127.0.0.1:1/none' })
    ).json();
    expect(refused).toMatchObject({ delivered: false, status_code: null });
  });
});

describe('spend summary and models', () => {
  it('sums spend minus refunds per day and model in the asked time zone', async () => {
    const a = await consoleAccount(api);
    const id = await failedTaskWithCallback(a.key); // charged, then refunded in full
    await call(api, 'POST', '/v1/videos', { key: a.key, json: videoBody() });
    const res = await get('/usage/summary?days=7&tz=Asia/Shanghai', a.session);
    const body = (await expectContract(res, contractFor('get /console/api/usage/summary'), 200)) as {
      time_zone: string;
      data: Array<{ day: string; model: string; calls: number; spent_usd: number }>;
    };
    expect(body.time_zone).toBe('Asia/Shanghai');
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai' }).format(new Date());
    expect(body.data).toHaveLength(1);
    expect(body.data[0]).toMatchObject({ day: today, calls: 2 });
    expect(body.data[0]!.spent_usd).toBeGreaterThan(0);
    expect(id).toMatch(/^task_/);
    await expectError(await get('/usage/summary?tz=Mars/Olympus', a.session), 400, 'invalid_request');
    await expectError(await get('/usage/summary?days=0', a.session), 400, 'invalid_request');
    await expectError(await get('/usage/summary'), 401, 'invalid_session');
  });

  it('filters the ledger by kind and the usage by model', async () => {
    const a = await consoleAccount(api);
    await failedTaskWithCallback(a.key);
    const refunds = (await (await get('/ledger?kind=refund', a.session)).json()) as {
      data: Array<{ kind: string }>;
    };
    expect(refunds.data.map((e) => e.kind)).toEqual(['refund']);
    const none = (await (await get('/usage?model=seedream-4.0', a.session)).json()) as { data: unknown[] };
    expect(none.data).toEqual([]);
    await expectError(await get('/ledger?kind=gift', a.session), 400, 'invalid_request');
  });

  it('lists the catalog model ids for key limits', async () => {
    const a = await consoleAccount(api);
    const body = (await expectContract(
      await get('/models', a.session),
      contractFor('get /console/api/models'),
      200,
    )) as {
      data: Array<{ id: string; type: string }>;
    };
    expect(body.data).toContainEqual({
      object: 'model',
      id: 'wan2.6-i2v-flash-5s-720p',
      type: 'video',
      endpoints: ['/v1/videos'],
      needs_image: true,
      duration_seconds: 5,
      resolution: '720P',
      sizes: [],
      max_n: 1,
      max_input_images: 1,
      unit: 'task',
      price_usd: 0.25,
      silent_price_usd: 0.125,
    });
    expect(body.data).toContainEqual(
      expect.objectContaining({
        id: 'seedream-4.0',
        type: 'image',
        unit: 'image',
        price_usd: 0.03,
        sizes: [
          '1K',
          '2K',
          '4K',
          '1024x1024',
          '1280x720',
          '720x1280',
          '1152x864',
          '864x1152',
          '2048x2048',
          '2560x1440',
          '1440x2560',
        ],
        max_n: 15,
        max_input_images: 14,
      }),
    );
    // a model that keeps the input's size takes none; one from text only takes no image
    expect(body.data).toContainEqual(
      expect.objectContaining({ id: 'qwen-image-edit', sizes: [], max_n: 4, max_input_images: 3 }),
    );
    expect(body.data).toContainEqual(
      expect.objectContaining({
        id: 'seedream-3.0',
        sizes: expect.arrayContaining(['1024x1024']),
        max_input_images: 0,
      }),
    );
  });

  it('names what a first call needs and what the test credit pays for', async () => {
    const a = await consoleAccount(api);
    const body = (await expectContract(
      await get('/quickstart', a.session),
      contractFor('get /console/api/quickstart'),
      200,
    )) as Record<string, unknown>;
    expect(body).toEqual({
      base_url: expect.stringMatching(/^https?:\/\/.+\/v1$/),
      docs_url: expect.stringMatching(/\/docs$/),
      test_credit_usd: 0.05,
      // the cheapest image from a prompt alone fits the 0.05 credit; no video does
      connectivity_check: { model: 'seedream-4.0', price_usd: 0.03, calls: 1 },
      cheapest_video_usd: 0.125,
    });
    await expectError(await get('/quickstart'), 401, 'invalid_session');
  });
});

describe('the console pages at /', () => {
  const page = (p: string, accept = 'text/html,application/xhtml+xml,*/*;q=0.8') =>
    fetch(api.url + p, { headers: { accept } });

  it('answers index.html to a browser at any client route, and the hashed assets with a long cache', async () => {
    for (const p of ['/', '/login', '/console/keys', '/admin/accounts/acct_1']) {
      const res = await page(p);
      expect({ p, status: res.status, type: res.headers.get('content-type') }).toEqual({
        p,
        status: 200,
        type: 'text/html; charset=utf-8',
      });
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<div id="root">');
    }
    const asset = await page('/assets/index-abc123.js', '*/*');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000, immutable/);
    // compressed as the browser accepts: brotli first, gzip, or the file itself
    for (const [accepts, encoding] of [
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['identity', null],
    ] as const) {
      const res = await fetch(`${api.url}/assets/index-abc123.js`, {
        headers: { 'accept-encoding': accepts },
      });
      expect({ accepts, encoding: res.headers.get('content-encoding') }).toEqual({ accepts, encoding });
      expect(res.headers.get('content-type')).toMatch(/javascript/);
      expect(res.headers.get('vary')).toMatch(/Accept-Encoding/i);
      expect(await res.text()).toBe('console.log(1)');
    }
    expect((await page('/favicon.svg', '*/*')).status).toBe(200);
  });

  it('keeps the API paths as they were: JSON answers, JSON 404s', async () => {
    for (const p of [
      '/v1/nothing',
      '/console/api/nothing',
      '/admin/api/nothing',
      '/payments/nothing',
      '/assets/missing.js',
    ]) {
      await expectError(await page(p), 404, 'not_found');
    }
    await expectError(await page('/somewhere', 'application/json'), 404, 'not_found');
    expect(
      (
        (await expectContract(await page('/openapi.json'), contractFor('get /openapi.json'), 200)) as {
          openapi: string;
        }
      ).openapi,
    ).toBe('3.1.0');
    expect((await page('/healthz')).headers.get('content-type')).toMatch(/json/);
    await expectError(
      await fetch(`${api.url}/console/keys`, { method: 'POST', headers: { accept: 'text/html' } }),
      404,
      'not_found',
    );
  });

  it('answers the queue dashboard with the console to a browser without a session, so it signs in first', async () => {
    const res = await page('/admin/queues');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('<div id="root">');
    // with a session, the dashboard itself decides: operators only
    const a = await consoleAccount(api);
    await expectError(
      await fetch(`${api.url}/admin/queues`, {
        headers: { accept: 'text/html', cookie: `mg_session=${a.session}` },
      }),
      403,
      'permission_denied',
    );
    await expectError(await page('/admin/queues', 'application/json'), 401, 'invalid_session');
  });
});
