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
    expect(err.message).toMatch(/wrong, or no reset was asked/);
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
    expect(last.message).toMatch(/Too many wrong codes/);
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
