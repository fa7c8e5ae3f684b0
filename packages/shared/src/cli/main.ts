import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import {
  type AccountView,
  announceKeyRevocation,
  createAccount,
  findAccountId,
  findKeys,
  getAccountView,
  listAccountKeys,
  listAccounts,
  type OperatorKeyView,
  parseKeyReference,
  revokeKeyById,
} from '../accounts';
import { usdToMicro } from '../billing';
import { baseEnvSchema, loadConfig } from '../config/env';
import { createDatabase, type Database, pgErrorCode } from '../db/client';
import { createLogger } from '../log';
import { createQrPaymentProviders, paymentsEnvShape, refinePaymentsEnv } from '../payments';
import { createCallbacksQueue, enqueueDelivery } from '../queue/callbacks-queue';
import { createRedis } from '../queue/connection';
import { redeliverFailedSince } from '../webhooks/outbox';
import { refundTopUpFromCli } from './topup-refund';

const USAGE = `usage: pnpm cli <command> [options]

accounts
  account:create --email <e> [--balance-usd <n>]
                      creates an account with a key; prints the key alone on stdout
  account:list [--email <part>] [--after <account id>] [--limit <n>] [--json]
                      accounts in creation order, optionally those whose e-mail contains <part>
  account:find <e-mail | account id> [--json]
  account:find --key <key> [--json]
                      one account (or a key's account: its id or secret, "-" from stdin) and
                      every key it has (deleted ones included)

keys (a key is named by its id key_..., by the secret sk-... itself, or by the
shown prefix sk-abcd...wxyz; "-" reads it from stdin, which keeps a secret
out of the shell history)
  key:find <key> [--json]        the key, its state and its account's e-mail
  key:list --account <e-mail | account id> [--json]
  key:revoke <key>               revokes the key for good (also --id <key> / --key <key>);
                                 a shown prefix is refused, as several keys may share it

callbacks
  callbacks:redeliver --account <account id> --since <ISO time>
                      sends again every failed callback delivery of the account created since
                      then, with a fresh retry schedule; prints how many

payments
  payments:check      proves each configured payment provider's credentials (the ALIPAY_ and
                      WECHATPAY_ variables): asks it about an order that does not exist and checks
                      that the answer comes back signed and verified; prints one line per provider;
                      exit 1 when one fails (the line says why: refused, unsigned, not verified)
  topup:refund <topup id> --operator <e-mail | account id> --reason <text> [--amount-cny <n>]
                      refunds a paid QR top-up through its provider (all that is left by default;
                      never more), recorded and audited under that operator, as the console's
                      Refund does; prints the refund id; exit 0 refunded, 3 under way or held
                      (the message says what is left), 1 nothing refunded (not paid, more than is
                      left, refused by the provider: the message says why)

  help, --help, -h    this text

Results go to stdout, messages to stderr. Exit status: 0 done; 1 nothing done (not found,
already in that state, refused); 2 a usage mistake; 3 done only in part (the message says what
is left).`;

class Exit extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
const usage = (message: string) => new Exit(2, `${message}\n(pnpm cli --help lists the commands)`);

const OPTIONS = {
  email: { type: 'string' },
  'balance-usd': { type: 'string' },
  id: { type: 'string' },
  key: { type: 'string' },
  account: { type: 'string' },
  since: { type: 'string' },
  after: { type: 'string' },
  limit: { type: 'string' },
  operator: { type: 'string' },
  reason: { type: 'string' },
  'amount-cny': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const usd = (micro: number) => (micro / 1_000_000).toFixed(micro % 10_000 === 0 ? 2 : 6);
const when = (d: Date | null) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

/** Rows as aligned columns (the last column unpadded). */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[head, ...rows].map(line).join('\n')}\n`;
}

const keyRows = (keys: OperatorKeyView[]) =>
  table(
    ['KEY ID', 'SHOWN AS', 'STATUS', 'NAME', 'CREATED', 'LAST USED', 'ACCOUNT'],
    keys.map((k) => [
      k.id,
      k.displayPrefix,
      k.status === 'revoked' ? `revoked ${when(k.revokedAt)}` : k.status,
      k.name,
      when(k.createdAt),
      when(k.lastUsedAt),
      `${k.email} (${k.accountId})`,
    ]),
  );

const accountRows = (list: AccountView[]) =>
  table(
    ['ACCOUNT ID', 'E-MAIL', 'STATUS', 'ROLE', 'BALANCE USD', 'CREATED'],
    list.map((a) => [a.id, a.email, a.status, a.role, usd(a.balanceMicroUsd), when(a.createdAt)]),
  );

/** The key text from a positional, --key or --id; "-" reads one line from stdin. */
function keyArgument(values: Values, positionals: string[]): string {
  const given = [positionals[0], values.key, values.id].filter((v): v is string => v !== undefined);
  if (given.length === 0)
    throw usage('name the key: its id (key_...), the secret (sk-...) or "-" to read it from stdin');
  if (given.length > 1 || positionals.length > 1) throw usage('name one key');
  const text = given[0] === '-' ? readFileSync(0, 'utf8').trim() : given[0]!;
  return text;
}

function referenceOf(text: string) {
  const ref = parseKeyReference(text);
  if (!ref)
    throw usage(
      `"${text.length > 12 ? `${text.slice(0, 12)}...` : text}" is not a key id (key_ and 26 characters), a secret key (sk- and 48 characters) or a shown prefix (sk-abcd...wxyz)`,
    );
  return ref;
}

const out = (s: string) => process.stdout.write(s);
const say = (s: string) => process.stderr.write(`${s}\n`);

/** Operator commands. Results go to stdout alone; messages to stderr. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) throw new Exit(2, USAGE);
  if (command === 'help' || command === '--help' || command === '-h') {
    out(`${USAGE}\n`);
    return 0;
  }
  let values: Values;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      options: OPTIONS,
      strict: true,
      allowPositionals: true,
    }));
  } catch (err) {
    throw usage((err as Error).message);
  }
  if (values.help) {
    out(`${USAGE}\n`);
    return 0;
  }
  if (command === 'payments:check') {
    if (positionals.length > 0) throw usage(`${command} takes no argument "${positionals[0]}"`);
    return checkPayments();
  }
  const known = [
    'account:create',
    'account:list',
    'account:find',
    'key:find',
    'key:list',
    'key:revoke',
    'callbacks:redeliver',
    'topup:refund',
  ];
  if (!known.includes(command)) throw usage(`unknown command "${command}"`);
  if (positionals.length > 0 && !['account:find', 'key:find', 'key:revoke', 'topup:refund'].includes(command))
    throw usage(`${command} takes no argument "${positionals[0]}"`);

  const config = loadConfig(baseEnvSchema);
  const database = createDatabase(config.DATABASE_URL, {
    max: 1,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
  });
  try {
    return await run(command, values, positionals, database, config);
  } finally {
    await database.close();
  }
}

async function run(
  command: string,
  values: Values,
  positionals: string[],
  database: Database,
  config: z.output<typeof baseEnvSchema>,
): Promise<number> {
  const db = database.db;
  const json = (v: unknown) => out(`${JSON.stringify(v, null, 2)}\n`);
  switch (command) {
    case 'account:create': {
      const email = values.email?.trim();
      if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) throw usage('--email must be an e-mail address');
      const balance = Number(values['balance-usd'] ?? '0');
      if (!Number.isFinite(balance) || balance < 0) throw usage('--balance-usd must be a number >= 0');
      const { accountId, key } = await createAccount(db, {
        email,
        initialCreditMicroUsd: usdToMicro(balance),
        grant: 'operator_grant',
      });
      say(`created account ${accountId}, key ${key.id} (${key.displayPrefix})`);
      out(`${key.key}\n`);
      return 0;
    }
    case 'account:list': {
      const limit = values.limit === undefined ? 50 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw usage('--limit must be a whole number from 1 to 1000');
      const page = await listAccounts(db, { limit, after: values.after, email: values.email?.trim() });
      if (values.json) json(page);
      else if (page.data.length > 0) out(accountRows(page.data));
      if (page.data.length === 0)
        say(values.email ? `no account's e-mail contains "${values.email}"` : 'no accounts');
      if (page.hasMore) say(`more after this page: --after ${page.nextCursor}`);
      return page.data.length === 0 ? 1 : 0;
    }
    case 'account:find': {
      let byKey: string | undefined;
      if (values.key !== undefined) {
        if (positionals.length > 0 || values.email || values.account || values.id)
          throw usage('name the account by its e-mail, its id or one of its keys, not several');
        const [key, ...more] = await findKeys(db, referenceOf(keyArgument(values, [])));
        if (!key || more.length > 0) {
          say(key ? 'several keys have that shown prefix: name the key by its id' : 'no key matches');
          return 1;
        }
        byKey = key.accountId;
      }
      const what = byKey ?? positionals[0] ?? values.email ?? values.account ?? values.id;
      if (!what) throw usage('name the account: its e-mail or its id (acct_...)');
      const id = await findAccountId(db, what);
      const account = id ? await getAccountView(db, id) : null;
      if (!account) {
        say(`no account has ${what.includes('@') ? 'the e-mail' : 'the id'} ${what}`);
        return 1;
      }
      const keys = await listAccountKeys(db, account.id);
      if (values.json) json({ account, keys });
      else out(`${accountRows([account])}\n${keys.length ? keyRows(keys) : 'no keys\n'}`);
      return 0;
    }
    case 'key:find': {
      const keys = await findKeys(db, referenceOf(keyArgument(values, positionals)));
      if (values.json) json(keys);
      else if (keys.length > 0) out(keyRows(keys));
      if (keys.length === 0) say('no key matches');
      return keys.length === 0 ? 1 : 0;
    }
    case 'key:list': {
      if (!values.account) throw usage('--account <e-mail | account id> is required');
      const id = await findAccountId(db, values.account);
      if (!id) {
        say(`no account has ${values.account.includes('@') ? 'the e-mail' : 'the id'} ${values.account}`);
        return 1;
      }
      const keys = await listAccountKeys(db, id);
      if (values.json) json(keys);
      else if (keys.length > 0) out(keyRows(keys));
      else say('the account has no keys');
      return 0;
    }
    case 'key:revoke': {
      const ref = referenceOf(keyArgument(values, positionals));
      if (ref.by === 'display')
        throw usage(
          `${ref.prefix} is only the shown prefix, which several keys may share: give the key id (pnpm cli key:find ${ref.prefix} lists them) or the secret`,
        );
      const [found] = await findKeys(db, ref);
      if (!found) {
        say(
          ref.by === 'id'
            ? `no key has the id ${ref.id}; nothing was revoked`
            : `no key of any account is ${ref.shown}; nothing was revoked`,
        );
        return 1;
      }
      const result = await revokeKeyById(db, found.id);
      if (!result) {
        say(`key ${found.id} disappeared while being revoked; nothing was revoked`);
        return 1;
      }
      const k = result.key;
      const named = `${k.id} (${k.displayPrefix}, "${k.name}") of ${k.email} (${k.accountId})`;
      if (result.outcome === 'already') {
        say(`${named} was already revoked at ${when(k.revokedAt)}; nothing changed`);
        return 1;
      }
      const redis = createRedis(config.REDIS_URL, 'producer', { cluster: config.REDIS_CLUSTER });
      let announced: boolean;
      try {
        announced = await announceKeyRevocation(redis, config.QUEUE_PREFIX, { keyId: k.id }, 3_000);
      } finally {
        redis.disconnect();
      }
      out(`${k.id}\n`);
      if (!announced) {
        say(
          `revoked ${named} in the database, but Redis (${redactUrl(config.REDIS_URL)}) did not take the announcement: ` +
            'an API replica that saw the key in the last few seconds may still accept it until its cache entry expires ' +
            '(AUTH_CACHE_TTL_MS, at most 5 s); run the command again once Redis answers to be sure',
        );
        return 3;
      }
      say(`revoked ${named}; every API replica refuses it from now on`);
      return 0;
    }
    case 'topup:refund': {
      if (positionals.length > 1) throw usage('name one top-up');
      const r = await refundTopUpFromCli(
        database,
        {
          topUpId: positionals[0],
          operator: values.operator,
          reason: values.reason,
          amountCny: values['amount-cny'],
        },
        usage,
        createLogger({ service: 'cli', level: config.LOG_LEVEL, fd: 2 }),
      );
      if (r.stdout) out(r.stdout);
      say(r.message);
      return r.code;
    }
    case 'callbacks:redeliver': {
      const since = values.since ? new Date(values.since) : undefined;
      if (!values.account || !since || Number.isNaN(since.getTime()))
        throw usage('--account and --since (an ISO time) are required');
      const ids = await redeliverFailedSince(db, values.account, since);
      // Committed first, enqueued second; whatever Redis does not take now, the reconciler enqueues.
      const redis = createRedis(config.REDIS_URL, 'producer', { cluster: config.REDIS_CLUSTER });
      const queue = createCallbacksQueue(redis, config.QUEUE_PREFIX);
      let enqueued = 0;
      try {
        for (const id of ids) {
          if (
            await enqueueDelivery(queue, id, { timeoutMs: 2_000 }).then(
              () => true,
              () => false,
            )
          )
            enqueued += 1;
        }
      } finally {
        await queue.close();
        redis.disconnect();
      }
      say(
        `redelivering ${ids.length} failed deliveries of ${values.account}` +
          (enqueued < ids.length ? ` (${ids.length - enqueued} left to the reconciler)` : ''),
      );
      out(`${ids.length}\n`);
      return 0;
    }
  }
  throw usage(`unknown command "${command}"`);
}

/**
 * payments:check: each configured provider asked about an order that does not exist; the answer
 * must come back signed and verified (a wrong key, app id, mchid or serial fails here, not on a
 * customer's first order).
 */
async function checkPayments(): Promise<number> {
  const config = loadConfig(z.object(paymentsEnvShape).superRefine(refinePaymentsEnv));
  const providers = createQrPaymentProviders(config);
  if (providers.size === 0) {
    say('no payment provider is configured (no ALIPAY_ or WECHATPAY_ variables): nothing to check');
    return 1;
  }
  let failed = 0;
  for (const [name, provider] of providers) {
    try {
      out(`${name}: ok: ${await provider.check()}\n`);
    } catch (err) {
      failed += 1;
      out(`${name}: FAILED: ${(err as Error).message}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}

/** A URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'REDIS_URL';
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof Exit) {
      say(err.message);
      process.exit(err.code);
    }
    say(
      pgErrorCode(err) === '23505'
        ? 'that e-mail already has an account'
        : `error: ${(err as Error).message}`,
    );
    process.exit(1);
  },
);
