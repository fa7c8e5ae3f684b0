import { findLedgerMismatches } from '@mediagate/shared/billing';
import { startTestSmtp, type TestSmtp } from '@mediagate/shared/testing';
import { consoleCall } from '../../test/console';
import { contractFor, expectContract } from '../../test/contract';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';

let smtp: TestSmtp;
let api: TestApi;
beforeAll(async () => {
  smtp = await startTestSmtp();
  api = await startTestApi({ SMTP_URL: smtp.url, AUTH_LIMIT_PER_EMAIL: 8, AUTH_LIMIT_PER_IP: 1_000 });
});
afterAll(async () => {
  await api.close();
  await smtp.close();
});
afterEach(async () => {
  expect(await findLedgerMismatches(api.database.db)).toEqual([]);
});

let n = 0;
const newEmail = () => `Reg${++n}-${Date.now()}@Example.test`;
const post = (path: string, json: unknown) => call(api, 'POST', `/console/api${path}`, { json });
const sql = (text: string, values: unknown[]) => api.database.pool.query(text, values);

describe('registration with an e-mailed code', () => {
  it('mails a 6-digit code over SMTP; the code creates the account with 0.05 USD and a working default key', async () => {
    const email = newEmail();
    const res = await post('/register', { email, password: 'longenough' });
    expect(await expectContract(res, contractFor('post /console/api/register'), 202)).toMatchObject({
      status: 'code_sent',
      email: email.toLowerCase(),
      expires_in: 600,
    });
    const code = await smtp.codeFor(email);
    expect(code).toMatch(/^\d{6}$/);
    const mail = await smtp.nextMail(email);
    expect(mail.raw).not.toContain('longenough');

    await expectError(
      await post('/register/verify', {
        email,
        code: code === '000000' ? '000001' : '000000',
        password: 'longenough',
      }),
      400,
      'invalid_request',
    );
    const verified = await post('/register/verify', { email, code, password: 'longenough' });
    expect(verified.headers.get('set-cookie')).toMatch(
      /mg_session=cs_[0-9A-Za-z]{43}; .*HttpOnly.*SameSite=Strict/i,
    );
    const account = (await expectContract(
      verified,
      contractFor('post /console/api/register/verify'),
      201,
    )) as {
      id: string;
      email: string;
      balance_usd: number;
      api_key: { key: string; name: string };
      session: { token: string };
    };
    expect(account).toMatchObject({
      email: email.toLowerCase(),
      balance_usd: 0.05,
      balance_micro_usd: 50_000,
    });
    expect(account.api_key.key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    expect(account.api_key.name).toBe('default');

    const { rows } = await sql(
      'select kind, amount_micro_usd::int as amount from ledger_entries where account_id = $1',
      [account.id],
    );
    expect(rows).toEqual([{ kind: 'grant', amount: 50_000 }]);
    const { rows: stored } = await sql('select password_hash from accounts where id = $1', [account.id]);
    expect(stored[0].password_hash).toMatch(/^\$argon2id\$/);

    expect((await call(api, 'GET', '/v1/videos', { key: account.api_key.key })).status).toBe(200);
    expect((await consoleCall(api, 'GET', '/console/api/me', account.session.token)).status).toBe(200);
    // the code is spent
    await expectError(
      await post('/register/verify', { email, code, password: 'longenough' }),
      400,
      'invalid_request',
    );
  });

  it('logs in with the password, and logout ends that session', async () => {
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    await post('/register/verify', { email, code: await smtp.codeFor(email), password: 'password-123' });

    await expectError(await post('/login', { email, password: 'password-124' }), 401, 'invalid_credentials');
    await expectError(
      await post('/login', { email: 'nobody@example.test', password: 'password-123' }),
      401,
      'invalid_credentials',
    );
    const login = await post('/login', { email: email.toUpperCase(), password: 'password-123' });
    const { token, expires_at } = (await expectContract(
      login,
      contractFor('post /console/api/login'),
      200,
    )) as { token: string; expires_at: number };
    expect(expires_at).toBeGreaterThan(Date.now() / 1000 + 3600);
    // the cookie works as well as the bearer token
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const me = await call(api, 'GET', '/console/api/me', { headers: { cookie } });
    expect(await expectContract(me, contractFor('get /console/api/me'), 200)).toMatchObject({
      email: email.toLowerCase(),
      role: 'user',
      balance_usd: 0.05,
    });

    // who is signed in: 200 either way, the account when there is a session
    const state = contractFor('get /console/api/session');
    const signedIn = await call(api, 'GET', '/console/api/session', { headers: { cookie } });
    expect(signedIn.headers.get('cache-control')).toBe('no-store');
    expect(await expectContract(signedIn, state, 200)).toMatchObject({
      object: 'session_state',
      signed_in: true,
      account: { email: email.toLowerCase(), role: 'user' },
    });

    await expectContract(
      await consoleCall(api, 'POST', '/console/api/logout', token),
      contractFor('post /console/api/logout'),
      200,
    );
    const presentations: Array<{ headers?: Record<string, string> }> = [
      { headers: { cookie } },
      { headers: { authorization: `Bearer ${token}` } },
      {},
    ];
    for (const presented of presentations) {
      expect(
        await expectContract(await call(api, 'GET', '/console/api/session', presented), state, 200),
      ).toEqual({ object: 'session_state', signed_in: false, account: null });
    }
    await expectError(await consoleCall(api, 'GET', '/console/api/me', token), 401, 'invalid_session');
    await expectError(
      await call(api, 'GET', '/console/api/me', { headers: { cookie } }),
      401,
      'invalid_session',
    );
  });

  it('answers 401 invalid_session without a session, with a bogus one, and with an expired one', async () => {
    await expectError(await consoleCall(api, 'GET', '/console/api/me', undefined), 401, 'invalid_session');
    await expectError(
      await consoleCall(api, 'GET', '/console/api/me', `cs_${'a'.repeat(43)}`),
      401,
      'invalid_session',
    );
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    const { session } = (await (
      await post('/register/verify', { email, code: await smtp.codeFor(email), password: 'password-123' })
    ).json()) as {
      session: { token: string };
    };
    await sql(
      `update console_sessions set expires_at = now() - interval '1 second' where account_id = (select id from accounts where email = $1)`,
      [email.toLowerCase()],
    );
    await expectError(
      await consoleCall(api, 'GET', '/console/api/me', session.token),
      401,
      'invalid_session',
    );
  });

  it.each([
    ['a password of 7 characters', { email: 'x@example.test', password: '1234567' }, 'password'],
    ['a missing password', { email: 'x@example.test' }, 'password'],
    ['an invalid e-mail', { email: 'not-an-email', password: 'longenough' }, 'email'],
    ['an unknown field', { email: 'x@example.test', password: 'longenough', admin: true }, 'admin'],
  ])('answers 400 for %s', async (_name, body, param) => {
    const err = await expectError(await post('/register', body), 400, 'invalid_request');
    expect(err.param).toBe(param);
  });

  it('does not reveal an existing account: same 202, and its owner gets a notice without a code', async () => {
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    await post('/register/verify', { email, code: await smtp.codeFor(email), password: 'password-123' });
    const again = await post('/register', { email, password: 'another-password' });
    expect(again.status).toBe(202);
    const notice = await smtp.nextMail(email, 1);
    expect(notice.raw).toContain('already has one');
    expect(notice.raw).not.toMatch(/verification code is \d{6}/);
  });

  it('refuses a resend within the cool-down (429 + Retry-After), then sends a new code that replaces the old', async () => {
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    const first = await smtp.codeFor(email);
    const early = await post('/register/resend', { email });
    await expectError(early, 429, 'rate_limit_exceeded');
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThan(0);
    await sql(
      `update email_verifications set last_sent_at = now() - interval '61 seconds' where email = $1`,
      [email.toLowerCase()],
    );
    await expectContract(
      await post('/register/resend', { email }),
      contractFor('post /console/api/register/resend'),
      202,
    );
    const second = await smtp.codeFor(email, 1);
    if (second !== first) {
      await expectError(
        await post('/register/verify', { email, code: first, password: 'password-123' }),
        400,
        'invalid_request',
      );
    }
    expect((await post('/register/verify', { email, code: second, password: 'password-123' })).status).toBe(
      201,
    );
  });

  it('needs the password given at registration, so re-registering an address with another password cannot take it over', async () => {
    const email = newEmail();
    await post('/register', { email, password: 'owner-password' });
    await smtp.codeFor(email);
    // someone else registers the same address with a password of their own after the cool-down
    await sql(
      `update email_verifications set last_sent_at = now() - interval '61 seconds' where email = $1`,
      [email.toLowerCase()],
    );
    expect((await post('/register', { email, password: 'intruder-password' })).status).toBe(202);
    const code = await smtp.codeFor(email, 1);
    // the owner, who alone reads the mail, cannot confirm the intruder's password by mistake
    const err = await expectError(
      await post('/register/verify', { email, code, password: 'owner-password' }),
      400,
      'invalid_request',
    );
    expect(err.message).toMatch(/password/);
    const { rows } = await sql('select count(*)::int as n from accounts where email = $1', [
      email.toLowerCase(),
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('answers a resend for an unknown address like any other (202) and sends nothing', async () => {
    const email = newEmail();
    expect((await post('/register/resend', { email })).status).toBe(202);
    expect(smtp.count(email)).toBe(0);
  });

  it('kills the code after 5 wrong tries, even for the right code', async () => {
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    const code = await smtp.codeFor(email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 4; i++) {
      const err = await expectError(
        await post('/register/verify', { email, code: wrong, password: 'password-123' }),
        400,
        'invalid_request',
      );
      expect(err.message).toMatch(/wrong/);
    }
    const fifth = await expectError(
      await post('/register/verify', { email, code: wrong, password: 'password-123' }),
      400,
      'invalid_request',
    );
    expect(fifth.message).toMatch(/Too many/);
    const right = await expectError(
      await post('/register/verify', { email, code, password: 'password-123' }),
      400,
      'invalid_request',
    );
    expect(right.message).toMatch(/Too many/);
    const { rows } = await sql('select count(*)::int as n from accounts where email = $1', [
      email.toLowerCase(),
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('refuses an expired code', async () => {
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    const code = await smtp.codeFor(email);
    await sql(`update email_verifications set expires_at = now() - interval '1 second' where email = $1`, [
      email.toLowerCase(),
    ]);
    const err = await expectError(
      await post('/register/verify', { email, code, password: 'password-123' }),
      400,
      'invalid_request',
    );
    expect(err.message).toMatch(/expired/);
  });

  it('limits login attempts per e-mail (429 + Retry-After) against brute force', async () => {
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    await post('/register/verify', { email, code: await smtp.codeFor(email), password: 'password-123' });
    for (let i = 0; i < 8; i++) {
      await expectError(
        await post('/login', { email, password: `guess-${i}-xx` }),
        401,
        'invalid_credentials',
      );
    }
    const blocked = await post('/login', { email, password: 'password-123' });
    await expectError(blocked, 429, 'rate_limit_exceeded');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('per-IP limits on registration, verification and login', () => {
  let strict: TestApi;
  beforeAll(async () => {
    strict = await startTestApi({ SMTP_URL: smtp.url, AUTH_LIMIT_PER_IP: 3 });
  });
  afterAll(() => strict.close());

  it.each(['/login', '/register', '/register/verify'])(
    'answers 429 on %s past the per-IP limit, whatever the e-mail',
    async (path) => {
      const body = (i: number) => ({
        email: `ip${i}-${Date.now()}@example.test`,
        password: 'password-123',
        ...(path === '/register/verify' ? { code: '123456' } : {}),
      });
      for (let i = 0; i < 3; i++) {
        const res = await call(strict, 'POST', `/console/api${path}`, { json: body(i) });
        expect(res.status).not.toBe(429);
      }
      const res = await call(strict, 'POST', `/console/api${path}`, { json: body(9) });
      await expectError(res, 429, 'rate_limit_exceeded');
      expect(res.headers.get('retry-after')).toBeTruthy();
    },
  );
});

describe('registration does not tell who has an account', () => {
  /** an address with an account, made through the console */
  const existing = async () => {
    const email = newEmail();
    await post('/register', { email, password: 'password-123' });
    await post('/register/verify', { email, code: await smtp.codeFor(email), password: 'password-123' });
    return email;
  };

  it('answers the same status sequence for an existing and a new address (202, then 429 in the cool-down)', async () => {
    const known = await existing();
    const fresh = newEmail();
    const sequence = async (email: string) => {
      const statuses = [];
      statuses.push((await post('/register', { email, password: 'another-password' })).status);
      statuses.push((await post('/register', { email, password: 'another-password' })).status);
      statuses.push((await post('/register/resend', { email })).status);
      await sql(
        `update email_verifications set last_sent_at = now() - interval '61 seconds' where email = $1`,
        [email.toLowerCase()],
      );
      statuses.push((await post('/register/resend', { email })).status);
      return statuses;
    };
    expect(await sequence(known)).toEqual([202, 429, 429, 202]);
    expect(await sequence(fresh)).toEqual([202, 429, 429, 202]);
    // the owner got notices, never a code; the new address got codes
    const notice = await smtp.nextMail(known, 1);
    expect(notice.raw).toContain('already has one');
    expect((await smtp.nextMail(known, 2)).raw).toContain('already has one');
    expect(await smtp.codeFor(fresh, 1)).toMatch(/^\d{6}$/);
  });

  it('takes about as long for an existing address as for a new one (medians within a factor of 2)', async () => {
    const known = await Promise.all(Array.from({ length: 9 }, () => existing()));
    const timed = async (email: string) => {
      const started = process.hrtime.bigint();
      const res = await post('/register', { email, password: 'another-password' });
      expect(res.status).toBe(202);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const existingMs: number[] = [];
    const newMs: number[] = [];
    // interleaved, so load on the machine falls on both alike
    for (const email of known) {
      existingMs.push(await timed(email));
      newMs.push(await timed(newEmail()));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [a, b] = [median(existingMs), median(newMs)];
    // both hash the password (tens of ms); without that, an existing address answered 3-10x faster
    expect(Math.min(a, b) / Math.max(a, b)).toBeGreaterThan(0.5);
  });

  it('refuses the commonest passwords', async () => {
    for (const password of ['password', 'qwertyuiop', 'Password1', '12345678', 'iloveyou2']) {
      const err = await expectError(
        await post('/register', { email: newEmail(), password }),
        400,
        'invalid_request',
      );
      expect(err.param).toBe('password');
      expect(err.message).toMatch(/common/);
    }
  });
});

describe('login lock-out is not a weapon', () => {
  let proxied: TestApi;
  beforeAll(async () => {
    // behind a proxy, so each request can come from its own address
    proxied = await startTestApi({ SMTP_URL: smtp.url, TRUST_PROXY: 'true', AUTH_LIMIT_PER_EMAIL: 5 });
  });
  afterAll(() => proxied.close());

  const login = (email: string, password: string, from: string) =>
    call(proxied, 'POST', '/console/api/login', {
      json: { email, password },
      headers: { 'x-forwarded-for': from },
    });

  it('locks the guessing address out, and lets the right password in from another address', async () => {
    const { ensureAdminAccount } = await import('@mediagate/shared/accounts');
    await ensureAdminAccount(proxied.database.db, {
      email: 'ops@example.test',
      password: 'operator-password',
    });
    for (let i = 0; i < 5; i++) {
      await expectError(
        await login('ops@example.test', `guess-${i}-xx`, '203.0.113.9'),
        401,
        'invalid_credentials',
      );
    }
    await expectError(
      await login('ops@example.test', 'operator-password', '203.0.113.9'),
      429,
      'rate_limit_exceeded',
    );
    // the operator, elsewhere, is not locked out by someone else's guesses
    const res = await login('ops@example.test', 'operator-password', '198.51.100.20');
    expect(
      ((await expectContract(res, contractFor('post /console/api/login'), 200)) as { role: string }).role,
    ).toBe('admin');
  });
});
