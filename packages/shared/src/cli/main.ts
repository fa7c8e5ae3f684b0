import { parseArgs } from 'node:util';
import { announceKeyRevocation, createAccount, revokeApiKey } from '../accounts';
import { usdToMicro } from '../billing';
import { baseEnvSchema, loadConfig } from '../config/env';
import { createDatabase, pgErrorCode } from '../db/client';
import { createCallbacksQueue, enqueueDelivery } from '../queue/callbacks-queue';
import { createRedis } from '../queue/connection';
import { redeliverFailedSince } from '../webhooks/outbox';

const USAGE = `usage:
  cli account:create --email <e> [--balance-usd <n>]   prints the new account's key on stdout
  cli key:revoke --id <key id>
  cli callbacks:redeliver --account <account id> --since <ISO time>
                                 sends again every failed callback delivery of the account created
                                 since then, with a fresh retry schedule; prints how many`;

/** Operator commands. Results go to stdout alone; messages to stderr. */
async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  let values: { email?: string; 'balance-usd'?: string; id?: string; account?: string; since?: string };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        email: { type: 'string' },
        'balance-usd': { type: 'string' },
        id: { type: 'string' },
        account: { type: 'string' },
        since: { type: 'string' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const config = loadConfig(baseEnvSchema);
  const database = createDatabase(config.DATABASE_URL, {
    max: 1,
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
  });
  try {
    switch (command) {
      case 'account:create': {
        const email = values.email?.trim();
        if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) {
          process.stderr.write(`--email must be an e-mail address\n${USAGE}\n`);
          return 2;
        }
        const balance = Number(values['balance-usd'] ?? '0');
        if (!Number.isFinite(balance) || balance < 0) {
          process.stderr.write('--balance-usd must be a number >= 0\n');
          return 2;
        }
        const { accountId, key } = await createAccount(database.db, {
          email,
          initialCreditMicroUsd: usdToMicro(balance),
          grantReason: 'operator grant (cli)',
        });
        process.stderr.write(`created account ${accountId}, key ${key.id}\n`);
        process.stdout.write(`${key.key}\n`);
        return 0;
      }
      case 'key:revoke': {
        if (!values.id) {
          process.stderr.write(`--id is required\n${USAGE}\n`);
          return 2;
        }
        await revokeApiKey(database.db, values.id);
        const redis = createRedis(config.REDIS_URL, 'producer', { cluster: config.REDIS_CLUSTER });
        const announced = await announceKeyRevocation(redis, config.QUEUE_PREFIX, { keyId: values.id });
        redis.disconnect();
        process.stderr.write(
          announced
            ? `revoked ${values.id}\n`
            : `revoked ${values.id}; Redis did not answer, so API replicas refuse it within AUTH_CACHE_TTL_MS\n`,
        );
        return 0;
      }
      case 'callbacks:redeliver': {
        const since = values.since ? new Date(values.since) : undefined;
        if (!values.account || !since || Number.isNaN(since.getTime())) {
          process.stderr.write(`--account and --since (an ISO time) are required\n${USAGE}\n`);
          return 2;
        }
        const ids = await redeliverFailedSince(database.db, values.account, since);
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
        process.stderr.write(
          `redelivering ${ids.length} failed deliveries of ${values.account}` +
            (enqueued < ids.length ? ` (${ids.length - enqueued} left to the reconciler)` : '') +
            '\n',
        );
        process.stdout.write(`${ids.length}\n`);
        return 0;
      }
      default:
        process.stderr.write(`${USAGE}\n`);
        return 2;
    }
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(
      pgErrorCode(err) === '23505'
        ? 'that e-mail already has an account\n'
        : `error: ${(err as Error).message}\n`,
    );
    process.exit(1);
  },
);
