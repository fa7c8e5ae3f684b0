// Runs a command with TEST_DATABASE_URL / TEST_REDIS_URL set as `pnpm test` sets them, for
// `pnpm bench` and `pnpm drills`.
import { spawnSync } from 'node:child_process';
import { withTestServices } from './test-services.mjs';

const env = await withTestServices(process.env, (msg) => process.stderr.write(`${msg}\n`)).catch((err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
const [cmd, ...args] = process.argv.slice(2);
const r = spawnSync(cmd, args, { env, stdio: 'inherit' });
process.exit(r.status ?? 1);
