import { spawnSync } from 'node:child_process';
import { createTestDatabase } from '@mediagate/shared/testing';
import { Pool } from 'pg';
import { ENTRIES } from './stack';

let db: { url: string; drop: () => Promise<void> };
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const cli = (args: string[]) =>
  spawnSync(process.execPath, [ENTRIES.cli, ...args], {
    env: { ...process.env, DATABASE_URL: db.url },
    encoding: 'utf8',
  });

describe('operator CLI', () => {
  it('account:create prints the new key alone on stdout, stores only its hash and grants the balance', async () => {
    const r = cli(['account:create', '--email', 'ops@example.test', '--balance-usd', '2.5']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^sk-[0-9A-Za-z]{48}\n$/);
    const pool = new Pool({ connectionString: db.url });
    try {
      const key = r.stdout.trim();
      const { rows } = await pool.query(
        `select a.balance_micro_usd::int as balance, k.key_hash, k.display_prefix from accounts a join api_keys k on k.account_id = a.id where a.email = 'ops@example.test'`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].balance).toBe(2_500_000);
      expect(rows[0].key_hash).not.toContain(key.slice(3));
      const { rows: leaks } = await pool.query(
        `select count(*)::int as n from api_keys where key_hash = $1 or display_prefix = $1`,
        [key],
      );
      expect(leaks[0].n).toBe(0);
      const { rows: ledger } = await pool.query(
        `select kind, amount_micro_usd::int as amount from ledger_entries`,
      );
      expect(ledger).toEqual([{ kind: 'grant', amount: 2_500_000 }]);
    } finally {
      await pool.end();
    }
  });

  it('refuses a duplicate e-mail, a bad e-mail and a bad balance with a message and a non-zero exit', () => {
    cli(['account:create', '--email', 'dup@example.test']);
    const dup = cli(['account:create', '--email', 'dup@example.test']);
    expect(dup.status).toBe(1);
    expect(dup.stdout).toBe('');
    expect(dup.stderr).toMatch(/already/);
    expect(cli(['account:create', '--email', 'nope']).status).toBe(2);
    expect(cli(['account:create', '--email', 'n@example.test', '--balance-usd', '-3']).status).toBe(2);
    expect(cli(['account:create', '--email', 'n@example.test', '--balance-usd=-3']).status).toBe(2);
    expect(cli(['account:create', '--email', 'n@example.test', '--balance-usd', 'lots']).status).toBe(2);
    expect(cli(['frobnicate']).status).toBe(2);
  });
});
