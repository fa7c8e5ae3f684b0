// One configuration for every command of a checkout. `pnpm start` resolves it once (the
// environment, then `.env`, then defaults or the local fallback services) and writes what it chose
// to .data/runtime.env; `pnpm cli`, `pnpm db:migrate`, `pnpm bench`, `pnpm drills` and `pnpm test`
// read it back through `configEnv()`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where `pnpm start` keeps its state (MEDIAGATE_DATA_DIR, default .data/; the toolchain stays in .data/toolchain). */
export const dataDir = process.env.MEDIAGATE_DATA_DIR
  ? path.resolve(process.env.MEDIAGATE_DATA_DIR)
  : path.join(root, '.data');
export const runtimeEnvFile = path.join(dataDir, 'runtime.env');
const GIVEN = 'MEDIAGATE_GIVEN_';

/**
 * Variables of `pnpm start` itself (the processes' own variables are in their zod schemas). The
 * `.env.example` generator lists them with the others.
 */
export const START_VARIABLES = [
  {
    name: 'WORKER_VIDEO_HTTP_PORT',
    default: '9101',
    description: 'pnpm start: health and metrics port of the video worker (its WORKER_HTTP_PORT)',
  },
  {
    name: 'WORKER_RECONCILER_HTTP_PORT',
    default: '9102',
    description: 'pnpm start: health and metrics port of the reconciler (its WORKER_HTTP_PORT)',
  },
  {
    name: 'WORKER_CALLBACKS_HTTP_PORT',
    default: '9103',
    description: 'pnpm start: health and metrics port of the callbacks dispatcher (its WORKER_HTTP_PORT)',
  },
];

export const DEFAULTS = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/mediagate',
  REDIS_URL: 'redis://127.0.0.1:6379',
  PORT: '8080',
  SIM_PORT: '8090',
  PAYSIM_PORT: '8091',
  ...Object.fromEntries(START_VARIABLES.map((v) => [v.name, v.default])),
};

const readEnvFile = (file) => (existsSync(file) ? parseEnv(readFileSync(file, 'utf8')) : {});

/** The variables of `.env` (none when there is no such file). */
export const dotEnv = () => readEnvFile(path.join(root, '.env'));

/** What `pnpm start` recorded, or {} before the first start. */
export const runtimeEnv = () => readEnvFile(runtimeEnvFile);

/**
 * The environment a command of this checkout runs with: `env` (default process.env), then `.env`,
 * then what `pnpm start` recorded. A variable of the environment that `pnpm start` was given and
 * replaced (e.g. a DATABASE_URL that did not answer, replaced by the local fallback) takes the
 * replacement, so every command reaches the services `pnpm start` uses.
 */
export function configEnv(env = process.env) {
  const recorded = runtimeEnv();
  const out = { ...recorded, ...dotEnv(), ...env };
  for (const [name, value] of Object.entries(recorded)) {
    if (name.startsWith(GIVEN)) continue;
    const given = recorded[`${GIVEN}${name}`];
    if (given !== undefined && out[name] === given) out[name] = value;
  }
  for (const name of Object.keys(out)) if (name.startsWith(GIVEN)) delete out[name];
  return out;
}

const quote = (v) =>
  /^[\w@%+=:,./{}-]*$/.test(v)
    ? v
    : `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;

/**
 * Records the configuration `pnpm start` runs with. `values`: every variable chosen; `given`: the
 * value each replaced variable had before (so that commands run with the same input are redirected).
 */
export function writeRuntimeEnv(values, given = {}) {
  mkdirSync(dataDir, { recursive: true });
  const lines = [
    `# Written by \`pnpm start\` at ${new Date().toISOString()}: the configuration every command of this`,
    '# checkout uses (pnpm cli, pnpm db:migrate, pnpm bench, pnpm drills, pnpm test). Variables of the',
    '# environment and of .env win over it, except the ones pnpm start was given and replaced, listed',
    `# as ${GIVEN}<name> with the value it was given.`,
    ...Object.entries(values)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${quote(String(v))}`),
    ...Object.entries(given).map(([k, v]) => `${GIVEN}${k}=${quote(String(v))}`),
  ];
  writeFileSync(runtimeEnvFile, `${lines.join('\n')}\n`, { mode: 0o600 });
}

/** Names of every variable of every process, from the committed .env.example. */
export function knownVariables() {
  const file = path.join(root, '.env.example');
  if (!existsSync(file)) return new Set(Object.keys(DEFAULTS));
  const names = new Set();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^#?\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (m) names.add(m[1]);
  }
  return names;
}
