// Runs a command with the configuration of this checkout (scripts/runtime-config.mjs): the
// environment, then .env, then what `pnpm start` chose. `--build` first compiles what changed.
//   node scripts/with-config.mjs [--build] <command> [args]
import { spawnSync } from 'node:child_process';
import { buildRuntime } from './build-runtime.mjs';
import { configEnv } from './runtime-config.mjs';

let args = process.argv.slice(2);
if (args[0] === '--build') {
  await buildRuntime(() => {}, ['packages/shared']);
  args = args.slice(1);
}
const [cmd, ...rest] = args;
const r = spawnSync(cmd === 'node' ? process.execPath : cmd, rest, { env: configEnv(), stdio: 'inherit' });
if (r.error) {
  process.stderr.write(`${cmd}: ${r.error.message}\n`);
  process.exit(1);
}
process.exit(r.status ?? 1);
