// Runs a command with TEST_DATABASE_URL / TEST_REDIS_URL set as `pnpm test` sets them, e.g. for `pnpm drills`.
import { spawnSync } from 'node:child_process';
import { withTestServices } from './test-services.mjs';

const env = await withTestServices(process.env);
const [cmd, ...args] = process.argv.slice(2);
const r = spawnSync(cmd, args, { env, stdio: 'inherit' });
process.exit(r.status ?? 1);
