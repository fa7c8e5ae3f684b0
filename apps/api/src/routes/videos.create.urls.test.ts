import { getAccount } from '@mediagate/shared/accounts';
import { findLedgerMismatches } from '@mediagate/shared/billing';
import type { Resolver } from '@mediagate/shared/webhooks';
import { expectContract } from '../../test/contract';
import { call, expectError, IMG, startTestApi, type TestApi, videoBody } from '../../test/harness';
import * as videosCreate from './videos.create';

/** DNS for the test: a table, and ENOTFOUND for any other name (as with no network). */
const resolve: Resolver = async (hostname) => {
  const table: Record<string, string[]> = {
    'internal.test': ['10.1.2.3'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '127.0.0.1'],
    'public.test': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  };
  const list = table[hostname];
  if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let api: TestApi;
let key: string;
let accountId: string;
beforeAll(async () => {
  api = await startTestApi({ resolve });
  ({ key, accountId } = await api.account(10));
});
afterAll(() => api.close());
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

const create = (json: unknown, k = key, target = api) => call(target, 'POST', '/v1/videos', { key: k, json });
const withCallback = (callback_url: string) =>
  videoBody({ metadata: { input: { img_url: IMG }, callback_url } });

describe('POST /v1/videos: SSRF check of the URLs at creation', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://127.1/hook',
    'http://2130706433/hook',
    'http://0x7f.1/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/hook',
    'http://172.16.5.4/hook',
    'http://192.168.0.10/hook',
    'http://100.64.0.1/hook',
    'http://224.0.0.1/hook',
    'http://0.0.0.0/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'https://internal.test/hook',
    'https://metadata.test/hook',
    'https://mixed.test/hook',
  ])('refuses callback_url %s with 400 invalid_request and charges nothing', async (url) => {
    const before = (await getAccount(api.database.db, accountId))!.balanceMicroUsd;
    const err = await expectError(await create(withCallback(url)), 400, 'invalid_request');
    expect(err.param).toBe('metadata.callback_url');
    expect(err.type).toBe('invalid_request_error');
    expect(err.message).toMatch(/public address/);
    expect((await getAccount(api.database.db, accountId))!.balanceMicroUsd).toBe(before);
  });

  it('refuses an img_url or audio_url on a non-public address', async () => {
    const img = await expectError(
      await create(videoBody({ metadata: { input: { img_url: 'http://169.254.169.254/cat.png' } } })),
      400,
      'invalid_request',
    );
    expect(img.param).toBe('metadata.input.img_url');
    const audio = await expectError(
      await create(
        videoBody({ metadata: { input: { img_url: IMG, audio_url: 'https://internal.test/a.mp3' } } }),
      ),
      400,
      'invalid_request',
    );
    expect(audio.param).toBe('metadata.input.audio_url');
  });

  it("takes an input that links to the gateway's own media at a loopback address, and nothing else there", async () => {
    // as under `npm start`: the gateway publishes itself at a loopback address, uploads included
    const own = await startTestApi({ resolve, PUBLIC_BASE_URL: 'http://127.0.0.1:18080' });
    try {
      const { key: k } = await own.account(5);
      const upload = 'http://127.0.0.1:18080/media/uploads/up_01.png?exp=1&sig=x';
      const ok = await create(videoBody({ metadata: { input: { img_url: upload } } }), k, own);
      expect(ok.status).toBe(200);
      for (const img_url of [
        'http://127.0.0.1:18080/admin/api/accounts',
        'http://127.0.0.1:18080/media/../admin/api/accounts',
        'http://127.0.0.1:18081/media/uploads/up_01.png',
        'https://127.0.0.1:18080/media/uploads/up_01.png',
        'http://user:pw@127.0.0.1:18080/media/uploads/up_01.png',
        'http://127.0.0.1:18080.internal.test/media/uploads/up_01.png',
      ]) {
        const err = await expectError(
          await create(videoBody({ metadata: { input: { img_url } } }), k, own),
          400,
          'invalid_request',
        );
        expect(err.param).toBe('metadata.input.img_url');
      }
      // a callback is something the gateway calls: its own address is judged like any other
      const hook = await expectError(
        await create(
          videoBody({
            metadata: { input: { img_url: upload }, callback_url: 'http://127.0.0.1:18080/media/x' },
          }),
          k,
          own,
        ),
        400,
        'invalid_request',
      );
      expect(hook.param).toBe('metadata.callback_url');
    } finally {
      await own.close();
    }
  });

  it('accepts names that resolve to public addresses, and names that do not resolve at all', async () => {
    for (const url of [
      'https://public.test/hook',
      'https://hooks.example.com/video',
      'http://93.184.216.34/x',
    ]) {
      const res = await create(withCallback(url));
      expect(
        ((await expectContract(res, videosCreate.contract, 200)) as { metadata: { callback_url: string } })
          .metadata.callback_url,
      ).toBe(url);
    }
  });

  it('accepts loopback when the allow-list opens it (development, tests)', async () => {
    const open = await startTestApi({ resolve, ssrfAllowCidrs: '127.0.0.0/8,::1' });
    try {
      const { key: k } = await open.account(5);
      expect((await create(withCallback('http://127.0.0.1:9999/hook'), k, open)).status).toBe(200);
      expect((await create(withCallback('http://[::1]:9999/hook'), k, open)).status).toBe(200);
      const err = await expectError(
        await create(withCallback('http://10.0.0.1/hook'), k, open),
        400,
        'invalid_request',
      );
      expect(err.param).toBe('metadata.callback_url');
    } finally {
      await open.close();
    }
  });
});
