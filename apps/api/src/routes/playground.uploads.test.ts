import { findLedgerMismatches } from '@mediagate/shared/billing';
import { type RunningSim, startTestS3Server, type TestS3Server } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi, videoBody } from '../../test/harness';
import { balanceOf, pngBytes, startImagesApi } from '../../test/images';

const PATH = '/console/api/playground/uploads';
const PER_DAY = 3;
const MAX_BYTES = 64 * 1024;

let api: TestApi;
let sim: RunningSim;
let close: () => Promise<void>;
let png: Buffer;

beforeAll(async () => {
  const started = await startImagesApi({
    config: {
      PLAYGROUND_UPLOADS_PER_DAY: PER_DAY,
      PLAYGROUND_UPLOAD_MAX_BYTES: MAX_BYTES,
      // the gateway's own address is where the uploads are served from
      ssrfAllowCidrs: '127.0.0.0/8',
    },
  });
  ({ api, close } = started);
  sim = started.sims[0]!;
  png = await pngBytes(sim, 640, 480);
});
afterAll(() => close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const form = (bytes: Buffer, filename = 'photo.png', type = 'image/png', field = 'file') => {
  const fd = new FormData();
  fd.append(field, new Blob([bytes], { type }), filename);
  return fd;
};
const upload = (session: string | undefined, body: FormData) =>
  call(api, 'POST', PATH, { body, headers: session ? { authorization: `Bearer ${session}` } : {} });
type Upload = { id: string; url: string; content_type: string; bytes: number; expires_at: number };
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]);
const WEBP = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.alloc(4),
  Buffer.from('WEBPVP8 '),
  Buffer.alloc(100, 1),
]);

describe('playground uploads', () => {
  it('stores a PNG and serves its very bytes at an unguessable URL without credentials; a video takes it as img_url', async () => {
    const a = await consoleAccount(api, 10);
    const res = await upload(a.session, form(png));
    const text = await res.clone().text();
    const up = (await expectContract(res, contractFor(`post ${PATH}`), 200)) as Upload;
    expect(text).not.toMatch(/sk-[A-Za-z0-9]/);
    expect(up.url).toMatch(
      new RegExp(`^${api.deps.config.PUBLIC_BASE_URL}/media/uploads/upl_[0-9A-Za-z]{32}\\.png$`),
    );
    expect(up).toMatchObject({ content_type: 'image/png', bytes: png.length });
    expect(up.expires_at * 1000).toBeGreaterThan(Date.now() + 23 * 3600 * 1000);
    // served by this API at the URL's path, no session, no key
    const served = await fetch(`${api.url}${new URL(up.url).pathname}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    // JPEG and WebP too, by their bytes whatever the name says
    const jpeg = (await (await upload(a.session, form(JPEG, 'x.png', 'image/png'))).json()) as Upload;
    expect(jpeg.url).toMatch(/\.jpg$/);
    const webp = (await (await upload(a.session, form(WEBP, 'x.webp', 'image/webp'))).json()) as Upload;
    expect(webp.content_type).toBe('image/webp');
    // the URL as a video's input, through the playground
    const task = await consoleCall(
      api,
      'POST',
      '/console/api/playground/videos',
      a.session,
      videoBody({ metadata: { input: { img_url: up.url } } }),
    );
    expect(task.status).toBe(200);
  });

  it('refuses what is not a PNG, JPEG or WebP image, an oversized one, and a form without the file (4xx, nothing kept)', async () => {
    const a = await consoleAccount(api, 10);
    await expectError(
      await upload(a.session, form(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'x.png')),
      400,
      'invalid_request',
    );
    await expectError(
      await upload(a.session, form(Buffer.from('GIF89a......'), 'x.gif', 'image/gif')),
      400,
      'invalid_request',
    );
    const big = Buffer.concat([png.subarray(0, 16), Buffer.alloc(MAX_BYTES + 1)]);
    await expectError(await upload(a.session, form(big)), 413, 'request_too_large');
    await expectError(
      await upload(a.session, form(png, 'x.png', 'image/png', 'image')),
      400,
      'invalid_request',
    );
    await expectError(
      await consoleCall(api, 'POST', PATH, a.session, { url: 'https://example.com/x.png' }),
      400,
      'invalid_request',
    );
    const { rows } = await api.database.pool.query(
      'select count(*)::int as n from playground_uploads where account_id = $1',
      [a.accountId],
    );
    expect(rows[0].n).toBe(0);
  });

  it('counts uploads against a daily quota per account (429 with Retry-After), deleted ones included', async () => {
    const a = await consoleAccount(api, 10);
    const b = await consoleAccount(api, 10);
    const first = (await (await upload(a.session, form(png))).json()) as Upload;
    await consoleCall(api, 'DELETE', `${PATH}/${first.id}`, a.session);
    for (let i = 1; i < PER_DAY; i++) expect((await upload(a.session, form(png))).status).toBe(200);
    const over = await upload(a.session, form(png));
    await expectError(over, 429, 'rate_limit_exceeded');
    const wait = Number(over.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(23 * 3600);
    expect(wait).toBeLessThanOrEqual(24 * 3600);
    // another account's quota is its own
    expect((await upload(b.session, form(png))).status).toBe(200);
  });

  it("lets only its owner delete an upload, after which its URL answers 404; another account's is not found", async () => {
    const a = await consoleAccount(api, 10);
    const b = await consoleAccount(api, 10);
    const up = (await (await upload(a.session, form(png))).json()) as Upload;
    const path = new URL(up.url).pathname;
    await expectError(await consoleCall(api, 'DELETE', `${PATH}/${up.id}`, b.session), 404, 'not_found');
    expect((await fetch(`${api.url}${path}`)).status).toBe(200);
    const deleted = await consoleCall(api, 'DELETE', `${PATH}/${up.id}`, a.session);
    await expectContract(deleted, contractFor(`delete ${PATH}/:uploadId`), 200);
    await expectError(await fetch(`${api.url}${path}`), 404, 'not_found');
    await expectError(await consoleCall(api, 'DELETE', `${PATH}/${up.id}`, a.session), 404, 'not_found');
    // a guessed or malformed name is not found either
    await expectError(await fetch(`${api.url}/media/uploads/upl_${'A'.repeat(32)}.png`), 404, 'not_found');
    await expectError(await fetch(`${api.url}/media/uploads/${up.id}.jpg`), 404, 'not_found');
  });

  it('lists the account’s uploads still served, newest first, without the deleted, expired or another account’s', async () => {
    const a = await consoleAccount(api, 10);
    const b = await consoleAccount(api, 10);
    const first = (await (await upload(a.session, form(png))).json()) as Upload;
    const second = (await (await upload(a.session, form(JPEG, 'photo.jpg', 'image/jpeg'))).json()) as Upload;
    const gone = (await (await upload(a.session, form(png))).json()) as Upload;
    await upload(b.session, form(png));
    await api.database.pool.query(
      "update playground_uploads set created_at = created_at - interval '1 minute' where id = $1",
      [first.id],
    );
    expect((await consoleCall(api, 'DELETE', `${PATH}/${gone.id}`, a.session)).status).toBe(200);
    const list = (await expectContract(
      await consoleCall(api, 'GET', PATH, a.session),
      contractFor(`get ${PATH}`),
      200,
    )) as { data: Array<Upload & { created_at: number }> };
    expect(list.data.map((u) => [u.id, u.url, u.bytes, u.content_type])).toEqual([
      [second.id, second.url, JPEG.length, 'image/jpeg'],
      [first.id, first.url, png.length, 'image/png'],
    ]);
    expect(list.data[0]!.created_at).toBeGreaterThan(list.data[1]!.created_at);
    await api.database.pool.query(
      "update playground_uploads set expires_at = now() - interval '1 second' where id = $1",
      [second.id],
    );
    const after = (await (await consoleCall(api, 'GET', PATH, a.session)).json()) as { data: Upload[] };
    expect(after.data.map((u) => u.id)).toEqual([first.id]);
    await expectError(await consoleCall(api, 'GET', PATH, undefined), 401, 'invalid_session');
    await expectError(await call(api, 'GET', PATH, { key: a.key }), 401, 'invalid_session');
  });

  it('stops serving an upload past its lifetime', async () => {
    const a = await consoleAccount(api, 10);
    const up = (await (await upload(a.session, form(png))).json()) as Upload;
    await api.database.pool.query(
      "update playground_uploads set expires_at = now() - interval '1 second' where id = $1",
      [up.id],
    );
    await expectError(await fetch(`${api.url}${new URL(up.url).pathname}`), 404, 'not_found');
  });

  it('needs the session (no key), the balance for the cheapest video, and counts the playground key’s requests per minute', async () => {
    await expectError(await upload(undefined, form(png)), 401, 'invalid_session');
    const a = await consoleAccount(api, 10);
    await expectError(await call(api, 'POST', PATH, { key: a.key, body: form(png) }), 401, 'invalid_session');
    const poor = await consoleAccount(api, 0.05);
    const before = await balanceOf(api, poor.accountId);
    await expectError(await upload(poor.session, form(png)), 402, 'insufficient_quota');
    expect(await balanceOf(api, poor.accountId)).toBe(before);
    const ok = await upload(a.session, form(png));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-limit')).toBe(String(api.deps.config.RATE_LIMIT_RPM));
  });
});

describe('playground uploads on the S3 driver', () => {
  let s3: TestS3Server;
  let s3Api: TestApi;
  let storage: ReturnType<TestS3Server['storage']>;
  beforeAll(async () => {
    s3 = await startTestS3Server('mediagate-uploads');
    storage = s3.storage();
    s3Api = await startTestApi({ mediaStorage: storage });
  }, 60_000);
  afterAll(async () => {
    await s3Api?.close();
    storage?.close();
    await s3?.stop();
  });

  it('keeps the image in the bucket with its type, serves its bytes through the API, and deletes it there', async () => {
    const a = await consoleAccount(s3Api, 10);
    const res = await call(s3Api, 'POST', PATH, {
      body: form(png),
      headers: { authorization: `Bearer ${a.session}` },
    });
    const up = (await expectContract(res, contractFor(`post ${PATH}`), 200)) as Upload;
    const key = `uploads/${new URL(up.url).pathname.split('/').pop()}`;
    expect(await storage.head(key)).toEqual({ size: png.length, contentType: 'image/png' });
    // the bytes themselves, not a redirect: a vendor need not follow one
    const served = await fetch(`${s3Api.url}${new URL(up.url).pathname}`, { redirect: 'manual' });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
    expect((await consoleCall(s3Api, 'DELETE', `${PATH}/${up.id}`, a.session)).status).toBe(200);
    expect(await storage.head(key)).toBeNull();
  });
});
