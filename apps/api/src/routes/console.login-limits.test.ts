import { consoleAccount, PASSWORD } from '../../test/console';
import { call, expectError, startTestApi, type TestApi } from '../../test/harness';

let api: TestApi;
beforeAll(async () => {
  // behind a proxy, so each request can come from its own address
  api = await startTestApi({
    TRUST_PROXY: 'true',
    AUTH_LIMIT_PER_EMAIL: 10,
    AUTH_LIMIT_PER_IP: 30,
    AUTH_LOGIN_BACKOFF_MAX_S: 2,
  });
});
afterAll(() => api.close());

const login = (email: string, password: string, from: string) =>
  call(api, 'POST', '/console/api/login', {
    json: { email, password },
    headers: { 'x-forwarded-for': from },
  });

describe('password guessing on one account, from many addresses', () => {
  it('is spaced per account: 400 guesses from 40 addresses get about one try a second past the first 10', async () => {
    const owner = await consoleAccount(api);
    // the owner signed in from home before the guessing started
    expect((await login(owner.email, PASSWORD, '198.51.100.7')).status).toBe(200);

    const started = Date.now();
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => login(owner.email, `guess-${round}-${i}`, `203.0.113.${i + 1}`)),
      );
      for (const res of answers) {
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(2);
        await res.body?.cancel();
      }
    }
    const elapsedS = (Date.now() - started) / 1000;
    const checked = statuses.filter((s) => s === 401).length;
    const refused = statuses.filter((s) => s === 429).length;
    process.stderr.write(`400 guesses in ${elapsedS.toFixed(1)} s: ${checked} checked, ${refused} refused\n`);
    expect(checked + refused).toBe(400);
    // 10 free, then at most one per second of the run
    expect(checked).toBeLessThanOrEqual(10 + 1 + Math.ceil(elapsedS));

    // the owner's usual address is not slowed at all
    expect((await login(owner.email, PASSWORD, '198.51.100.7')).status).toBe(200);
    // from a new address the owner waits at most the longest spacing, and gets in: never locked
    let res = await login(owner.email, PASSWORD, '192.0.2.77');
    for (let i = 0; i < 5 && res.status === 429; i++) {
      const wait = Number(res.headers.get('retry-after'));
      expect(wait).toBeLessThanOrEqual(2);
      await new Promise((r) => setTimeout(r, wait * 1000));
      res = await login(owner.email, PASSWORD, '192.0.2.77');
    }
    expect(res.status).toBe(200);
  }, 120_000);
});

describe('per-address limits count an IPv6 /64 as one address', () => {
  it('refuses the 31st attempt from one /64 whatever address in it, but not another /64', async () => {
    const owner = await consoleAccount(api);
    const answers: number[] = [];
    for (let i = 1; i <= 31; i++) {
      // different accounts, so only the per-address limit can refuse
      const res = await login(
        `nobody-${i}-${Date.now()}@example.test`,
        'wrong password',
        `2001:db8:7:7::${i.toString(16)}`,
      );
      answers.push(res.status);
    }
    expect(answers.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(answers[30]).toBe(429);
    await expectError(await login(owner.email, PASSWORD, '2001:db8:7:7:abcd::1'), 429, 'rate_limit_exceeded');
    expect((await login(owner.email, PASSWORD, '2001:db8:7:8::1')).status).toBe(200);
  });
});

describe('the anonymous session check', () => {
  const check = (from: string, token?: string) =>
    call(api, 'GET', '/console/api/session', {
      headers: { 'x-forwarded-for': from, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

  it('limits guessed tokens per address like the sign-in routes, refused before the lookup past the limit; signed-out page loads and other addresses are not counted', async () => {
    const owner = await consoleAccount(api);
    // signed-out page loads (no token) from one /64: never counted
    for (let i = 1; i <= 31; i++) expect((await check(`2001:db8:9:9::${i.toString(16)}`)).status).toBe(200);
    // guessed session tokens from the same /64: 30 answered, the 31st refused
    const answers: number[] = [];
    for (let i = 1; i <= 30; i++) answers.push((await check(`2001:db8:9:9::${i.toString(16)}`, `cs_guess${i}`)).status);
    expect(answers.every((s) => s === 200)).toBe(true);
    const refused = await expectError(
      await check('2001:db8:9:9::ff', 'cs_guess99'),
      429,
      'rate_limit_exceeded',
    );
    expect(refused.message).toMatch(/Too many requests from this address/);
    // past the limit a token is not even looked up: a real one gets the 429 too, so a guess that
    // would authenticate learns nothing; a signed-out load still answers, and so does another address
    await expectError(await check('2001:db8:9:9::1', owner.session), 429, 'rate_limit_exceeded');
    expect((await check('2001:db8:9:9::2')).status).toBe(200);
    expect((await check('2001:db8:9:a::1', owner.session)).status).toBe(200);
  });
});
