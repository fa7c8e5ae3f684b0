import { startTestSmtp, type TestSmtp } from '@mediagate/shared/testing';
import { consoleAccount, consoleCall, PASSWORD } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';

let smtp: TestSmtp;
let api: TestApi;
beforeAll(async () => {
  smtp = await startTestSmtp();
  api = await startTestApi({
    SMTP_URL: smtp.url,
    AUTH_LIMIT_PER_EMAIL: 50,
    AUTH_LIMIT_PER_IP: 1_000,
    VERIFICATION_MAX_ATTEMPTS: 3,
    VERIFICATION_RESEND_COOLDOWN_MS: 60_000,
  });
});
afterAll(async () => {
  await api.close();
  await smtp.close();
});

const post = (path: string, json: unknown, session?: string) =>
  consoleCall(api, 'POST', `/console/api${path}`, session, json);
const resetCode = async (email: string, seen: number) => {
  const mail = await smtp.nextMail(email, seen);
  const code = /password reset code is (\d{6})/.exec(mail.raw)?.[1];
  if (!code) throw new Error(`no reset code in:\n${mail.raw}`);
  return code;
};
const login = (email: string, password: string) =>
  call(api, 'POST', '/console/api/login', { json: { email, password } });

describe('POST /console/api/password/forgot and /reset', () => {
  it('mails a code; the code sets a new password once and ends every session of the account', async () => {
    const a = await consoleAccount(api);
    const other = await consoleAccount(api);
    const res = await post('/password/forgot', { email: a.email.toUpperCase() });
    expect(await expectContract(res, contractFor('post /console/api/password/forgot'), 202)).toMatchObject({
      object: 'password_reset',
      expires_in: 600,
    });
    const code = await resetCode(a.email, 0);
    const mail = smtp.inbox.find((m) => m.to.includes(a.email))!;
    expect(mail.raw).not.toContain(PASSWORD);

    const done = await post('/password/reset', { email: a.email, code, password: 'a brand new password' });
    expect(await expectContract(done, contractFor('post /console/api/password/reset'), 200)).toMatchObject({
      status: 'reset',
      sessions_ended: true,
    });
    await expectError(await consoleCall(api, 'GET', '/console/api/me', a.session), 401, 'invalid_session');
    // another account's session is untouched
    expect((await consoleCall(api, 'GET', '/console/api/me', other.session)).status).toBe(200);
    await expectError(await login(a.email, PASSWORD), 401, 'invalid_credentials');
    expect((await login(a.email, 'a brand new password')).status).toBe(200);
    // the code worked once
    const again = await expectError(
      await post('/password/reset', { email: a.email, code, password: 'yet another password' }),
      400,
      'invalid_request',
    );
    expect(again.param).toBe('code');
  });

  it('answers an unknown address exactly as a known one, and sends nothing', async () => {
    const email = `nobody-${Date.now()}@example.test`;
    const known = await consoleAccount(api);
    const a = await post('/password/forgot', { email });
    const b = await post('/password/forgot', { email: known.email });
    expect(a.status).toBe(202);
    expect(b.status).toBe(202);
    const strip = (x: Record<string, unknown>) => ({ ...x, email: undefined });
    expect(strip((await a.json()) as Record<string, unknown>)).toEqual(
      strip((await b.json()) as Record<string, unknown>),
    );
    await smtp.nextMail(known.email, 0);
    expect(smtp.count(email)).toBe(0);
    const err = await expectError(
      await post('/password/reset', { email, code: '123456', password: 'whatever-password' }),
      400,
      'invalid_request',
    );
    expect(err.message).toMatch(/wrong or no longer valid.*or no reset was asked/);
  });

  it('counts wrong codes, and after the allowed tries the right code no longer works', async () => {
    const a = await consoleAccount(api);
    await post('/password/forgot', { email: a.email });
    const code = await resetCode(a.email, 0);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 2; i++) {
      await expectError(
        await post('/password/reset', { email: a.email, code: wrong, password: 'new password 1' }),
        400,
        'invalid_request',
      );
    }
    const last = await expectError(
      await post('/password/reset', { email: a.email, code: wrong, password: 'new password 1' }),
      400,
      'invalid_request',
    );
    expect(last.message).toMatch(/wrong or no longer valid/);
    await expectError(
      await post('/password/reset', { email: a.email, code, password: 'new password 1' }),
      400,
      'invalid_request',
    );
    expect((await login(a.email, PASSWORD)).status).toBe(200);
  });

  it('sends no second code within the cool-down, and the first stays valid', async () => {
    const a = await consoleAccount(api);
    await post('/password/forgot', { email: a.email });
    const code = await resetCode(a.email, 0);
    expect((await post('/password/forgot', { email: a.email })).status).toBe(202);
    expect(smtp.count(a.email)).toBe(1);
    expect(
      (await post('/password/reset', { email: a.email, code, password: 'after the cool-down' })).status,
    ).toBe(200);
  });

  it('refuses bad bodies with a 400 naming the field', async () => {
    expect(
      (await expectError(await post('/password/forgot', { email: 'not-an-address' }), 400, 'invalid_request'))
        .param,
    ).toBe('email');
    expect(
      (await expectError(await post('/password/forgot', { email: 'a@b.test', x: 1 }), 400, 'invalid_request'))
        .param,
    ).toBe('x');
    const short = await expectError(
      await post('/password/reset', { email: 'a@b.test', code: '123456', password: 'short' }),
      400,
      'invalid_request',
    );
    expect(short.param).toBe('password');
    const code = await expectError(
      await post('/password/reset', { email: 'a@b.test', code: '12ab56', password: 'long enough!' }),
      400,
      'invalid_request',
    );
    expect(code.param).toBe('code');
  });
});

describe('POST /console/api/password/change', () => {
  it('needs the current password, keeps this session and ends the others', async () => {
    const a = await consoleAccount(api);
    const second = (await (await login(a.email, PASSWORD)).json()) as { token: string };
    const wrong = await expectError(
      await post(
        '/password/change',
        { current_password: 'not it', new_password: 'changed password 1' },
        a.session,
      ),
      400,
      'invalid_request',
    );
    expect(wrong.param).toBe('current_password');
    const ok = await post(
      '/password/change',
      { current_password: PASSWORD, new_password: 'changed password 1' },
      a.session,
    );
    await expectContract(ok, contractFor('post /console/api/password/change'), 200);
    expect((await consoleCall(api, 'GET', '/console/api/me', a.session)).status).toBe(200);
    await expectError(await consoleCall(api, 'GET', '/console/api/me', second.token), 401, 'invalid_session');
    expect((await login(a.email, 'changed password 1')).status).toBe(200);
  });

  it('needs a session and a new password of at least 8 characters', async () => {
    await expectError(
      await post('/password/change', { current_password: PASSWORD, new_password: 'long enough 1' }),
      401,
      'invalid_session',
    );
    const a = await consoleAccount(api);
    const short = await expectError(
      await post('/password/change', { current_password: PASSWORD, new_password: 'short' }, a.session),
      400,
      'invalid_request',
    );
    expect(short.param).toBe('new_password');
  });
});

describe('password reset tells nobody whether an address has an account', () => {
  let slow: TestSmtp;
  let slowApi: TestApi;
  beforeAll(async () => {
    // a mail server that takes 80 ms over each reply (connection, sender, recipient, message)
    slow = await startTestSmtp({ replyDelayMs: 80 });
    slowApi = await startTestApi({
      SMTP_URL: slow.url,
      AUTH_LIMIT_PER_EMAIL: 50,
      AUTH_LIMIT_PER_IP: 1_000,
      VERIFICATION_MAX_ATTEMPTS: 3,
    });
  });
  afterAll(async () => {
    await slowApi.close();
    await slow.close();
  });
  const slowPost = (path: string, json: unknown) => call(slowApi, 'POST', `/console/api${path}`, { json });

  it('answers "forgot" for an account as fast as for an unknown address, and mails the code after the answer', async () => {
    const known = await Promise.all(Array.from({ length: 20 }, () => consoleAccount(slowApi)));
    const timed = async (email: string) => {
      const started = performance.now();
      const res = await slowPost('/password/forgot', { email });
      const body = (await res.json()) as Record<string, unknown>;
      return { ms: performance.now() - started, status: res.status, body: { ...body, email: undefined } };
    };
    const knownRuns: Awaited<ReturnType<typeof timed>>[] = [];
    const unknownRuns: Awaited<ReturnType<typeof timed>>[] = [];
    for (const [i, account] of known.entries()) {
      // interleaved, so load on the machine falls on both alike
      unknownRuns.push(await timed(`nobody-${i}-${Date.now()}@example.test`));
      knownRuns.push(await timed(account.email));
    }
    for (const run of [...knownRuns, ...unknownRuns]) {
      expect(run.status).toBe(202);
      expect(run.body).toEqual(unknownRuns[0]!.body);
    }
    const median = (runs: { ms: number }[]) => runs.map((r) => r.ms).sort((a, b) => a - b)[runs.length >> 1]!;
    const [k, u] = [median(knownRuns), median(unknownRuns)];
    process.stderr.write(
      `forgot with an 80 ms SMTP server: median ${k.toFixed(1)} ms (account), ${u.toFixed(1)} ms (unknown)\n`,
    );
    // sending the mail takes at least 4 replies of 80 ms (320 ms): any of it on the request path shows
    expect(Math.abs(k - u)).toBeLessThan(160);
    // and every account still gets its code
    for (const account of known) await slow.nextMail(account.email, 0);
  }, 120_000);

  it('answers wrong codes, and codes past their tries, alike for an account and an unknown address', async () => {
    const account = await consoleAccount(slowApi);
    const unknown = `nobody-${Date.now()}@example.test`;
    await slowPost('/password/forgot', { email: account.email });
    await slowPost('/password/forgot', { email: unknown });
    const code = /password reset code is (\d{6})/.exec((await slow.nextMail(account.email, 0)).raw)![1]!;
    const wrong = code === '000000' ? '111111' : '000000';
    const answers = async (email: string) => {
      const out: unknown[] = [];
      // past the 3 tries allowed, with the right code last
      for (const c of [wrong, wrong, wrong, wrong, wrong, code]) {
        const res = await slowPost('/password/reset', { email, code: c, password: 'a new password 42' });
        out.push({ status: res.status, body: await res.json() });
      }
      return out;
    };
    const forAccount = await answers(account.email);
    const forUnknown = await answers(unknown);
    expect(forAccount).toEqual(forUnknown);
    expect(forAccount[5]).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', param: 'code' } },
    });
  });
});

describe('junk reset attempts from other addresses do not lock the owner out', () => {
  let proxied: TestApi;
  beforeAll(async () => {
    // behind a proxy, so each request can come from its own address
    proxied = await startTestApi({
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'true',
      AUTH_LIMIT_PER_EMAIL: 5,
      AUTH_LIMIT_PER_IP: 100,
      VERIFICATION_MAX_ATTEMPTS: 3,
      VERIFICATION_RESEND_COOLDOWN_MS: 0,
    });
  });
  afterAll(() => proxied.close());
  const from = (address: string, path: string, json: unknown) =>
    call(proxied, 'POST', `/console/api${path}`, { json, headers: { 'x-forwarded-for': address } });

  it("lets the owner's freshly mailed code through after junk from ten addresses", async () => {
    const owner = await consoleAccount(proxied);
    for (let i = 1; i <= 10; i++) {
      const address = `203.0.113.${i}`;
      expect((await from(address, '/password/forgot', { email: owner.email })).status).toBe(202);
      await expectError(
        await from(address, '/password/reset', {
          email: owner.email,
          code: '000000',
          password: 'junk password 1',
        }),
        400,
        'invalid_request',
      );
    }
    // the owner's own ask, from the owner's address: a fresh code, and it works
    await proxied.deps.mailer.drain();
    const seen = smtp.count(owner.email);
    expect((await from('198.51.100.7', '/password/forgot', { email: owner.email })).status).toBe(202);
    const code = await resetCode(owner.email, seen);
    const done = await from('198.51.100.7', '/password/reset', {
      email: owner.email,
      code,
      password: 'the owner is back 1',
    });
    expect(done.status).toBe(200);
    // one address still cannot go on past its limit
    for (let i = 0; i < 5; i++) await from('203.0.113.50', '/password/forgot', { email: owner.email });
    await expectError(
      await from('203.0.113.50', '/password/forgot', { email: owner.email }),
      429,
      'rate_limit_exceeded',
    );
  });
});

describe('revoking every key with a password reset or change', () => {
  const works = async (key: string) => (await call(api, 'GET', '/v1/models', { key })).status;
  /** an account with a second key, as someone who took the account over would make */
  const withTwoKeys = async () => {
    const a = await consoleAccount(api);
    const res = await consoleCall(api, 'POST', '/console/api/tokens', a.session, {
      name: 'made by someone else',
    });
    const extra = ((await res.json()) as { key: string }).key;
    expect([await works(a.key), await works(extra)]).toEqual([200, 200]);
    return { ...a, keys: [a.key, extra] };
  };
  const resetWith = async (email: string, extra: Record<string, unknown>) => {
    await post('/password/forgot', { email });
    const code = await resetCode(email, 0);
    return post('/password/reset', { email, code, password: 'a brand new password 7', ...extra });
  };

  it('a reset without it leaves the keys working (keys_revoked 0)', async () => {
    const a = await withTwoKeys();
    const res = await resetWith(a.email, {});
    expect(await expectContract(res, contractFor('post /console/api/password/reset'), 200)).toMatchObject({
      keys_revoked: 0,
    });
    for (const key of a.keys) expect(await works(key)).toBe(200);
  });

  it('a reset with revoke_keys deletes every key of the account in the same step; they are refused at once', async () => {
    const a = await withTwoKeys();
    const other = await consoleAccount(api);
    const res = await resetWith(a.email, { revoke_keys: true });
    expect(await expectContract(res, contractFor('post /console/api/password/reset'), 200)).toMatchObject({
      keys_revoked: 2,
    });
    for (const key of a.keys) expect(await works(key)).toBe(401);
    expect(await works(other.key)).toBe(200);
    // the owner signs in with the new password and makes new keys
    const session = ((await (await login(a.email, 'a brand new password 7')).json()) as { token: string })
      .token;
    const tokens = await consoleCall(api, 'GET', '/console/api/tokens', session);
    expect(((await tokens.json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('a change with revoke_keys deletes every key; the session that changed it stays', async () => {
    const a = await withTwoKeys();
    const res = await post(
      '/password/change',
      { current_password: PASSWORD, new_password: 'changed password 42', revoke_keys: true },
      a.session,
    );
    expect(await expectContract(res, contractFor('post /console/api/password/change'), 200)).toMatchObject({
      keys_revoked: 2,
    });
    for (const key of a.keys) expect(await works(key)).toBe(401);
    expect((await consoleCall(api, 'GET', '/console/api/me', a.session)).status).toBe(200);
  });
});
