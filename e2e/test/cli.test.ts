import { spawnSync } from 'node:child_process';
import { freePort } from '@mediagate/shared/testing';
import { ENTRIES, type Stack, startStack } from './stack';

let stack: Stack;
beforeAll(async () => {
  // the API refuses a revoked key only through the announcement or its cache's expiry: a long
  // cache makes "refused within a second" prove the announcement reached it
  stack = await startStack({ videoWorkers: 0, reconciler: false, env: { AUTH_CACHE_TTL_MS: '5000' } });
}, 120_000);
afterAll(() => stack?.stop());

const cli = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) => {
  const r = spawnSync(process.execPath, [ENTRIES.cli, ...args], {
    env: { ...process.env, ...stack.env, ...opts.env },
    input: opts.input,
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

let n = 0;
/** A new account through the CLI: its e-mail, key and key id. */
function newAccount(balanceUsd = 1) {
  n += 1;
  const email = `cli-${n}-${Date.now()}@example.test`;
  const r = cli(['account:create', '--email', email, '--balance-usd', String(balanceUsd)]);
  expect(r.status).toBe(0);
  const keyId = /key (key_[0-9A-Z]{26})/.exec(r.stderr)?.[1];
  expect(keyId).toBeDefined();
  return { email, key: r.stdout.trim(), keyId: keyId! };
}

const models = async (key: string) =>
  (await fetch(`${stack.apiUrl}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).status;

/** Polls until the API refuses the key; returns how long it took (ms) or throws past the deadline. */
async function refusedWithin(key: string, deadlineMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if ((await models(key)) === 401) return Date.now() - start;
    if (Date.now() - start > deadlineMs) throw new Error(`key still accepted after ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('operator CLI', () => {
  it('--help, -h and help print the commands and exit 0; no command or an unknown one exits 2', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['key:revoke', '--help']]) {
      const r = cli(args);
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/key:revoke/);
      expect(r.stdout).toMatch(/account:list/);
    }
    const none = cli([]);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/usage/);
    const unknown = cli(['frobnicate']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    expect(cli(['key:revoke', '--bogus']).status).toBe(2);
  });

  it('account:create prints the new key alone on stdout, stores only its hash and grants the balance', async () => {
    const { email, key } = newAccount(2.5);
    expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    const { rows } = await stack.pool.query(
      `select a.balance_micro_usd::int as balance, k.key_hash, k.display_prefix from accounts a join api_keys k on k.account_id = a.id where a.email = $1`,
      [email],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].balance).toBe(2_500_000);
    expect(rows[0].key_hash).not.toContain(key.slice(3));
    const { rows: leaks } = await stack.pool.query(
      `select count(*)::int as n from api_keys where key_hash = $1 or display_prefix = $1`,
      [key],
    );
    expect(leaks[0].n).toBe(0);
  });

  it('refuses a duplicate e-mail, a bad e-mail and a bad balance with a message and a non-zero exit', () => {
    const { email } = newAccount();
    const dup = cli(['account:create', '--email', email]);
    expect(dup.status).toBe(1);
    expect(dup.stdout).toBe('');
    expect(dup.stderr).toMatch(/already/);
    expect(cli(['account:create', '--email', 'nope']).status).toBe(2);
    expect(cli(['account:create', '--email', 'n@example.test', '--balance-usd', '-3']).status).toBe(2);
    expect(cli(['account:create', '--email', 'n@example.test', '--balance-usd=-3']).status).toBe(2);
    expect(cli(['account:create', '--email', 'n@example.test', '--balance-usd', 'lots']).status).toBe(2);
  });

  it('key:revoke --id with the leaked secret itself revokes that key: the API refuses it within a second', async () => {
    const victim = newAccount();
    const bystander = newAccount();
    expect(await models(victim.key)).toBe(200); // now in the API's key cache
    const r = cli(['key:revoke', '--id', victim.key]);
    expect(r.stderr).toMatch(/revoked key_/);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${victim.keyId}\n`);
    expect(r.stderr).toContain(victim.email);
    expect(r.stdout + r.stderr).not.toContain(victim.key); // the secret is never echoed
    expect(await refusedWithin(victim.key, 1_000)).toBeLessThan(1_000);
    expect(await models(bystander.key)).toBe(200);
    // again: nothing to do, said so, non-zero
    const again = cli(['key:revoke', victim.key]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already revoked at .*nothing changed/);
  });

  it('key:revoke by key id, and the secret read from stdin', async () => {
    const a = newAccount();
    const b = newAccount();
    expect(await models(a.key)).toBe(200);
    expect(cli(['key:revoke', a.keyId]).status).toBe(0);
    await refusedWithin(a.key, 1_000);
    const fromStdin = cli(['key:revoke', '--key', '-'], { input: `${b.key}\n` });
    expect(fromStdin.status).toBe(0);
    await refusedWithin(b.key, 1_000);
  });

  it('a mistyped or unknown key revokes nothing: a clear message, exit 1 (unknown) or 2 (not a key), the key keeps working', async () => {
    const a = newAccount();
    const unknownId = cli(['key:revoke', '--id', 'key_00000000000000000000000000']);
    expect(unknownId.status).toBe(1);
    expect(unknownId.stderr).toMatch(/no key has the id key_0+; nothing was revoked/);
    const typo = `${a.key.slice(0, -1)}${a.key.endsWith('A') ? 'B' : 'A'}`;
    const unknownSecret = cli(['key:revoke', '--id', typo]);
    expect(unknownSecret.status).toBe(1);
    expect(unknownSecret.stderr).toMatch(/no key of any account is sk-.{4}\.\.\..{4}; nothing was revoked/);
    const garbage = cli(['key:revoke', '--id', 'sk-short']);
    expect(garbage.status).toBe(2);
    expect(garbage.stderr).toMatch(/is not a key id/);
    const prefix = cli(['key:revoke', `${a.key.slice(0, 7)}...${a.key.slice(-4)}`]);
    expect(prefix.status).toBe(2);
    expect(prefix.stderr).toMatch(/only the shown prefix/);
    expect(cli(['key:revoke']).status).toBe(2);
    expect(cli(['key:revoke', a.keyId, '--id', a.keyId]).status).toBe(2);
    expect(await models(a.key)).toBe(200);
    const { rows } = await stack.pool.query(`select status from api_keys where id = $1`, [a.keyId]);
    expect(rows[0].status).toBe('active');
  });

  it('when Redis does not take the announcement, the key is revoked in the database and the exit is 3, saying what is left', async () => {
    const a = newAccount();
    const closed = `redis://127.0.0.1:${await freePort()}`;
    const r = cli(['key:revoke', a.keyId], { env: { REDIS_URL: closed } });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/did not take the announcement/);
    const { rows } = await stack.pool.query(`select status from api_keys where id = $1`, [a.keyId]);
    expect(rows[0].status).toBe('revoked');
    await refusedWithin(a.key, 8_000); // the API's cache entry expires
  });

  it('lists and finds accounts and keys, as text and as JSON', () => {
    const a = newAccount(3);
    const list = cli(['account:list', '--email', a.email.slice(0, 12).toUpperCase(), '--limit', '1000']);
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/ACCOUNT ID\s+E-MAIL/);
    expect(list.stdout).toContain(a.email);
    expect(list.stdout).toContain('3.00');
    const none = cli(['account:list', '--email', 'nobody-has-this']);
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/no account's e-mail contains/);
    const page = JSON.parse(cli(['account:list', '--limit', '1', '--json']).stdout);
    expect(page.data).toHaveLength(1);
    expect(page.hasMore).toBe(true);
    expect(cli(['account:list', '--limit', '0']).status).toBe(2);

    const found = cli(['account:find', a.email.toUpperCase()]);
    expect(found.status).toBe(0);
    expect(found.stdout).toContain(a.keyId);
    expect(found.stdout).toContain(`${a.key.slice(0, 7)}...${a.key.slice(-4)}`);
    expect(found.stdout).not.toContain(a.key);
    const byId = JSON.parse(
      cli(['account:find', JSON.parse(cli(['key:find', a.keyId, '--json']).stdout)[0].accountId, '--json'])
        .stdout,
    );
    expect(byId.account.email).toBe(a.email);
    expect(byId.keys.map((k: { id: string }) => k.id)).toEqual([a.keyId]);
    // the account of a key, the secret read from stdin (as pnpm start reads its demo key's balance)
    const byKey = JSON.parse(cli(['account:find', '--key', '-', '--json'], { input: `${a.key}\n` }).stdout);
    expect(byKey.account.email).toBe(a.email);
    expect(byKey.account.balanceMicroUsd).toBe(byId.account.balanceMicroUsd);
    expect(cli(['account:find', '--key', 'key_00000000000000000000000000']).status).toBe(1);
    expect(cli(['account:find', a.email, '--key', a.keyId]).status).toBe(2);
    const missing = cli(['account:find', 'nobody@example.test']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no account has the e-mail nobody@example.test/);

    const bySecret = cli(['key:find', a.key]);
    expect(bySecret.status).toBe(0);
    expect(bySecret.stdout).toContain(a.keyId);
    expect(bySecret.stdout).toContain(a.email);
    expect(bySecret.stdout).toMatch(/active/);
    expect(bySecret.stdout).not.toContain(a.key);
    const byPrefix = cli(['key:find', `${a.key.slice(0, 7)}...${a.key.slice(-4)}`]);
    expect(byPrefix.stdout).toContain(a.keyId);
    expect(cli(['key:find', 'key_00000000000000000000000000']).status).toBe(1);

    cli(['key:revoke', a.keyId]);
    const keys = cli(['key:list', '--account', a.email]);
    expect(keys.status).toBe(0);
    expect(keys.stdout).toMatch(new RegExp(`${a.keyId}\\s+\\S+\\s+revoked \\d{4}-`));
    expect(cli(['key:list', '--account', 'acct_nobody']).status).toBe(1);
  });
});
