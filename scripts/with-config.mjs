// Runs a command with the configuration of this checkout (scripts/runtime-config.mjs): the
// environment, then .env, then what `pnpm start` chose. `--build` first compiles what changed.
//   node scripts/with-config.mjs [--build] <command> [args]
import { spawnSync } from 'node:child_process';
import { buildRuntime } from './build-runtime.mjs';
import { hostPort, tcpAnswers } from './local-services.mjs';
import { configEnv, DEFAULTS, runtimeEnv } from './runtime-config.mjs';

let args = process.argv.slice(2);
if (args[0] === '--build') {
  await buildRuntime(() => {}, ['packages/shared']);
  args = args.slice(1);
}
const [cmd, ...rest] = args;
const env = configEnv();
// A hint when a service does not answer (e.g. the local ones after `pnpm stop`); the command still runs.
const recorded = runtimeEnv();
for (const [name, defPort] of [
  ['DATABASE_URL', 5432],
  ['REDIS_URL', 6379],
]) {
  const url = env[name] ?? DEFAULTS[name];
  const { host, port } = hostPort(url, defPort);
  if (!(await tcpAnswers(host, port, 500))) {
    const from =
      name in process.env
        ? 'the environment'
        : recorded[name] === url
          ? '.data/runtime.env'
          : '.env or the default';
    process.stderr.write(
      `[config] nothing answers at ${host}:${port} (${name} from ${from}); \`pnpm start\` brings up this checkout's services\n`,
    );
  }
}
const r = spawnSync(cmd === 'node' ? process.execPath : cmd, rest, { env, stdio: 'inherit' });
if (r.error) {
  process.stderr.write(`${cmd}: ${r.error.message}\n`);
  process.exit(1);
}
process.exit(r.status ?? 1);
