import { PLAYGROUND_KEY_NAME } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import type { RunningSim } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, type TestApi } from '../../test/harness';
import { balanceOf, pngBytes, startImagesApi } from '../../test/images';

const GENERATE = '/console/api/playground/images/generations';
const EDIT = '/console/api/playground/images/edits';
const DOWNLOAD = '/console/api/playground/images/download';
const RPM = 4;

let api: TestApi;
let sim: RunningSim;
let close: () => Promise<void>;
let png: Buffer;

beforeAll(async () => {
  const started = await startImagesApi({ config: { RATE_LIMIT_RPM: RPM } });
  ({ api, close } = started);
  sim = started.sims[0]!;
  png = await pngBytes(sim, 640, 480);
});
afterAll(() => close());
beforeEach(() => sim.control('POST', '/reset'));
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const editForm = (fields: Record<string, string>, bytes: Buffer = png, filename = 'photo.png') => {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  fd.append('image', new Blob([bytes], { type: 'image/png' }), filename);
  return fd;
};
const edit = (session: string | undefined, body: FormData) =>
  call(api, 'POST', EDIT, { body, headers: session ? { authorization: `Bearer ${session}` } : {} });
const upstreamCalls = async () => {
  const s = await sim.stats();
  return s.ark_images.calls + s.ark_images.rejected + s.image_edit.calls + s.image_edit.rejected;
};
/** The key every usage row of the account was charged to, by name. */
const usageKeys = async (accountId: string) =>
  (
    await api.database.pool.query(
      'select distinct k.name from usage_records u join api_keys k on k.id = u.api_key_id where u.account_id = $1',
      [accountId],
    )
  ).rows.map((r) => r.name as string);

describe('the console playground for images', () => {
  it('generates n images on the session, billed n × the model’s price to the playground key, no key in the answer', async () => {
    const a = await consoleAccount(api, 10);
    const before = await balanceOf(api, a.accountId);
    const res = await consoleCall(api, 'POST', GENERATE, a.session, {
      model: 'seedream-4.0',
      prompt: 'a lighthouse at dusk',
      n: 2,
      size: '1K',
    });
    const text = await res.clone().text();
    const out = (await expectContract(res, contractFor(`post ${GENERATE}`), 200)) as {
      data: Array<{ url: string }>;
      delivered: number;
    };
    expect(out.data).toHaveLength(2);
    expect(out.delivered).toBe(2);
    expect(text).not.toMatch(/sk-[A-Za-z0-9]/);
    expect(before - (await balanceOf(api, a.accountId))).toBe(2 * 30_000);
    expect(await usageKeys(a.accountId)).toEqual([PLAYGROUND_KEY_NAME]);
    expect((await sim.stats()).ark_images).toMatchObject({ calls: 1, images: 2 });
  });

  it('edits an uploaded file (the multipart form), billed like POST /v1/images/edits', async () => {
    const a = await consoleAccount(api, 10);
    const before = await balanceOf(api, a.accountId);
    const res = await edit(a.session, editForm({ model: 'qwen-image-edit', prompt: 'make the sky purple' }));
    const text = await res.clone().text();
    const out = (await expectContract(res, contractFor(`post ${EDIT}`), 200)) as {
      data: Array<{ url: string }>;
    };
    expect(out.data).toHaveLength(1);
    expect(text).not.toMatch(/sk-[A-Za-z0-9]/);
    expect(before - (await balanceOf(api, a.accountId))).toBe(45_000);
    expect(await usageKeys(a.accountId)).toEqual([PLAYGROUND_KEY_NAME]);
    // the same call with the account's own key costs the same
    const viaKey = await call(api, 'POST', '/v1/images/edits', {
      key: a.key,
      body: editForm({ model: 'qwen-image-edit', prompt: 'make the sky purple' }),
    });
    expect(viaKey.status).toBe(200);
    expect(before - (await balanceOf(api, a.accountId))).toBe(2 * 45_000);
  });

  it('downloads a hosted image as an attachment by the signed link of its answer, for its own account only', async () => {
    const a = await consoleAccount(api, 10);
    const b = await consoleAccount(api, 10);
    const res = await consoleCall(api, 'POST', GENERATE, a.session, {
      model: 'seedream-4.0',
      prompt: 'a quay',
    });
    const out = (await res.json()) as { created: number; data: Array<{ url: string; download_url: string }> };
    const [image] = out.data;
    const link = new URL(image!.download_url, api.url);
    expect(link.pathname).toBe(DOWNLOAD);
    expect(link.searchParams.get('url')).toBe(image!.url);
    const hosted = Buffer.from(await (await fetch(image!.url)).arrayBuffer());
    const got = await consoleCall(api, 'GET', `${link.pathname}${link.search}`, a.session);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toBe(`attachment; filename="image-${out.created}-1.png"`);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await got.arrayBuffer()).equals(hosted)).toBe(true);
    // another account's session, another URL under the same signature, a forged or expired link
    await expectError(
      await consoleCall(api, 'GET', `${link.pathname}${link.search}`, b.session),
      403,
      'invalid_media_link',
    );
    const other = new URL(link);
    other.searchParams.set('url', 'http://169.254.169.254/latest/meta-data/');
    await expectError(
      await consoleCall(api, 'GET', `${other.pathname}${other.search}`, a.session),
      403,
      'invalid_media_link',
    );
    const late = new URL(link);
    late.searchParams.set('exp', String(Number(link.searchParams.get('exp')) + 1));
    await expectError(
      await consoleCall(api, 'GET', `${late.pathname}${late.search}`, a.session),
      403,
      'invalid_media_link',
    );
    const expired = new URL(link);
    const past = Math.floor(Date.now() / 1000) - 1;
    expired.searchParams.set('exp', String(past));
    expired.searchParams.set(
      'sig',
      api.deps.media.signer.sign(`playground-image\n${a.accountId}\n${past}\n${image!.url}`),
    );
    await expectError(
      await consoleCall(api, 'GET', `${expired.pathname}${expired.search}`, a.session),
      404,
      'not_found',
    );
    await expectError(await consoleCall(api, 'GET', `${DOWNLOAD}?url=x`, a.session), 404, 'not_found');
    await expectError(
      await consoleCall(api, 'GET', `${link.pathname}${link.search}`, undefined),
      401,
      'invalid_session',
    );
  });

  it('refuses what the balance cannot pay (402), calling nothing and charging nothing', async () => {
    const poor = await consoleAccount(api, 0.05);
    const before = await balanceOf(api, poor.accountId);
    await expectError(
      await consoleCall(api, 'POST', GENERATE, poor.session, {
        model: 'seedream-4.0',
        prompt: 'two cats',
        n: 2,
      }),
      402,
      'insufficient_quota',
    );
    await expectError(
      await edit(poor.session, editForm({ model: 'qwen-image-edit', prompt: 'x', n: '2' })),
      402,
      'insufficient_quota',
    );
    expect(await balanceOf(api, poor.accountId)).toBe(before);
    expect(await upstreamCalls()).toBe(0);
  });

  it('answers bad input with a 4xx in the error shape and charges nothing', async () => {
    const a = await consoleAccount(api, 10);
    const before = await balanceOf(api, a.accountId);
    await expectError(
      await consoleCall(api, 'POST', GENERATE, a.session, { model: 'no-such-model', prompt: 'x' }),
      404,
      'model_not_found',
    );
    await expectError(
      await consoleCall(api, 'POST', GENERATE, a.session, {
        model: 'seedream-4.0',
        prompt: 'x',
        size: '7x7',
      }),
      400,
      'invalid_request',
    );
    await expectError(
      await edit(
        a.session,
        editForm({ model: 'qwen-image-edit', prompt: 'x' }, Buffer.from('not an image at all'), 'notes.png'),
      ),
      400,
      'invalid_request',
    );
    expect(await balanceOf(api, a.accountId)).toBe(before);
    expect(await upstreamCalls()).toBe(0);
  });

  it('counts the playground key’s requests per minute across images and videos (429 with Retry-After)', async () => {
    const a = await consoleAccount(api, 10);
    for (let i = 0; i < RPM; i++) {
      const res = await consoleCall(api, 'POST', GENERATE, a.session, {
        model: 'no-such-model',
        prompt: 'x',
      });
      expect(res.status).toBe(404);
    }
    const limited = await edit(a.session, editForm({ model: 'qwen-image-edit', prompt: 'x' }));
    await expectError(limited, 429, 'rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectError(
      await consoleCall(api, 'POST', '/console/api/playground/videos', a.session, {}),
      429,
      'rate_limit_exceeded',
    );
  });

  it('refuses without a session, and refuses an API key in place of one', async () => {
    await expectError(
      await consoleCall(api, 'POST', GENERATE, undefined, { model: 'seedream-4.0', prompt: 'x' }),
      401,
      'invalid_session',
    );
    const a = await consoleAccount(api);
    await expectError(
      await call(api, 'POST', GENERATE, { key: a.key, json: { model: 'seedream-4.0', prompt: 'x' } }),
      401,
      'invalid_session',
    );
    await expectError(await edit(undefined, editForm({ prompt: 'x' })), 401, 'invalid_session');
  });
});
