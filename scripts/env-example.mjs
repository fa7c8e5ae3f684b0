// Writes .env.example and docs/configuration.md: every variable of every process (the zod schemas of the API, the worker and
// the upstream simulator, and the variables of `pnpm start`), with its default and its meaning (the
// doc comment above it in the schema). `pnpm env:example` rewrites both; `--check` only compares and
// fails when either is out of date, which a test runs.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRuntime } from './build-runtime.mjs';
import { root, START_VARIABLES } from './runtime-config.mjs';

const file = path.join(root, '.env.example');
const require = createRequire(import.meta.url);

/** Meanings of variables whose schema has no doc comment. A doc comment in the schema wins. */
const FALLBACK_MEANINGS = {
  DATABASE_URL: 'Postgres of the gateway (pnpm start creates the database when missing)',
  REDIS_URL: 'Redis of the job queues, rate limits and caches',
  LOG_LEVEL: 'fatal, error, warn, info, debug, trace or silent',
  PORT: 'port of the API',
  HOST: 'address the API listens on',
  SIM_PORT: 'port of the upstream simulator',
  SIM_HOST: 'address the upstream simulator listens on',
  DASHSCOPE_BASE_URL: 'DashScope (videos, image edits) base URL; pnpm start points it at its simulator',
  DASHSCOPE_API_KEY: 'DashScope API key',
  ARK_BASE_URL: 'Ark (Seedream images) base URL; pnpm start points it at its simulator',
  ARK_API_KEY: 'Ark API key',
  SSRF_DNS_TIMEOUT_MS: 'time allowed to resolve a callback or media host name when a task is created',
  MAIL_FROM: 'sender of the e-mails (verification codes)',
  VERIFICATION_CODE_TTL_MS: 'lifetime of an e-mailed verification code',
  VERIFICATION_MAX_ATTEMPTS: 'wrong tries that invalidate a verification code',
  VERIFICATION_RESEND_COOLDOWN_MS: 'least time between two codes sent to one address',
  SESSION_TTL_MS: 'lifetime of a console session',
  TOPUP_MIN_USD: 'smallest top-up accepted, in USD',
  PAYMENT_SIGNATURE_TOLERANCE_S: 'age limit of a signed payment notification',
  UPSTREAM_CONNECT_TIMEOUT_MS: 'time allowed to connect to a vendor',
  UPSTREAM_TIMEOUT_MS: 'time allowed for one vendor call of a video task (submit or poll)',
  RECONCILER_INTERVAL_MS: 'time between two reconciler passes',
  SHUTDOWN_GRACE_MS: 'time allowed for in-flight work to finish on SIGTERM',
};

/**
 * Doc comments written directly above `NAME:` in the TypeScript sources of the schemas. A variable
 * declared on the line right after a documented one of the same family, with no comment of its own,
 * shares its comment (ADMIN_EMAIL and ADMIN_PASSWORD, UPSTREAM_RETRY_BASE_MS and UPSTREAM_RETRY_MAX_MS).
 */
function docComments() {
  const out = {};
  const family = (a, b) => {
    const [x, y] = [a.split('_'), b.split('_')];
    let shared = 0;
    while (shared < x.length && x[shared] === y[shared]) shared++;
    return shared >= 2 || (shared === 1 && x.length === 2 && y.length === 2);
  };
  const scan = (text) => {
    let doc = null; // the comment that ended on the previous line
    let pending = []; // lines of an open /** comment
    let inComment = false;
    let previous = null; // the variable of the previous line, when it was a one-line declaration
    for (const line of text.split('\n')) {
      const t = line.trim();
      if (inComment || t.startsWith('/**')) {
        inComment = !t.endsWith('*/');
        pending.push(
          t
            .replace(/^\/\*\*/, '')
            .replace(/\*\/$/, '')
            .replace(/^\*\s?/, '')
            .trim(),
        );
        if (!inComment) {
          doc = pending.filter(Boolean).join(' ');
          pending = [];
          previous = null;
        }
        continue;
      }
      const m = /^([A-Z][A-Z0-9_]*)\s*:/.exec(t);
      if (m) {
        const name = m[1];
        const own = doc ?? (previous && out[previous] && family(previous, name) ? out[previous] : null);
        if (own) out[name] ??= own;
        previous = t.endsWith(',') ? name : null;
      } else {
        previous = null;
      }
      doc = null;
    }
  };
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) scan(readFileSync(p, 'utf8'));
    }
  };
  for (const dir of ['packages/shared/src', 'apps/api/src', 'apps/worker/src', 'apps/upstream-sim/src']) {
    walk(path.join(root, dir));
  }
  return out;
}

/** The default a variable takes when unset, as the text it would have in the environment. */
function rawDefault(schema) {
  const def = schema?._zod?.def;
  if (!def) return undefined;
  switch (def.type) {
    case 'default':
    case 'prefault':
      return typeof def.defaultValue === 'function' ? def.defaultValue() : def.defaultValue;
    case 'pipe':
      return rawDefault(def.in);
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'catch':
      return rawDefault(def.innerType);
    default:
      return undefined;
  }
}

/** Every variable of every process: its name, the processes that read it, their defaults, its meaning. */
async function collectVariables() {
  await buildRuntime();
  const schemas = {
    api: require(path.join(root, 'apps/api/dist/config.js')).apiEnvSchema,
    worker: require(path.join(root, 'apps/worker/dist/config.js')).workerEnvSchema,
    'upstream-sim': require(path.join(root, 'apps/upstream-sim/dist/config.js')).simEnvSchema,
  };
  const vars = new Map();
  for (const [proc, schema] of Object.entries(schemas)) {
    for (const [name, field] of Object.entries(schema.shape)) {
      const v = vars.get(name) ?? { name, users: [], defaults: [] };
      v.users.push(proc);
      v.defaults.push(rawDefault(field));
      vars.set(name, v);
    }
  }
  for (const s of START_VARIABLES) {
    vars.set(s.name, { name: s.name, users: ['pnpm start'], defaults: [s.default], doc: s.description });
  }
  const docs = docComments();
  for (const v of vars.values()) v.doc ??= docs[v.name] ?? FALLBACK_MEANINGS[v.name] ?? '(no description)';
  return vars;
}

/** A default as it would be written in the environment; a path inside this checkout relative to it. */
function defaultText(d) {
  if (d === undefined) return '';
  const t = String(d);
  return t === root || t.startsWith(`${root}${path.sep}`) ? path.relative(root, t) : t;
}

/** A variable's meaning, with each process's default when they differ. */
function meaning(v) {
  if (new Set(v.defaults.map(defaultText)).size <= 1) return v.doc;
  return `${v.doc} (default: ${v.users.map((u, i) => `${u} ${defaultText(v.defaults[i]) || 'unset'}`).join(', ')})`;
}

/** The variables grouped by the processes that read them, groups in a fixed order, names sorted. */
function byProcesses(vars) {
  const groups = new Map();
  for (const v of vars.values()) {
    const key = v.users.join(', ');
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(v);
  }
  const order = ['api, worker', 'api', 'worker', 'upstream-sim', 'pnpm start'];
  const keys = [...groups.keys()].sort((a, b) => {
    const ia = order.indexOf(a);
    const ib = order.indexOf(b);
    return (ia < 0 ? order.length : ia) - (ib < 0 ? order.length : ib) || a.localeCompare(b);
  });
  return keys.map((key) => [key, groups.get(key).sort((a, b) => a.name.localeCompare(b.name))]);
}

/** The text of .env.example for the current schemas. */
export async function renderEnvExample(vars) {
  vars ??= await collectVariables();
  const lines = [
    '# Every variable of every mediagate process, with its default. Generated from the zod schemas',
    '# (packages/shared/src/config/env.ts and the config.ts files of apps/*) by `pnpm env:example`;',
    '# do not edit by hand. `pnpm start` and the other commands read a `.env` file: copy the lines',
    '# you change there, without their `#`. The environment wins over `.env`.',
  ];
  for (const [key, group] of byProcesses(vars)) {
    lines.push('', `# ---- ${key} ----`);
    for (const v of group)
      lines.push('', `# ${v.name}: ${meaning(v)}`, `# ${v.name}=${defaultText(v.defaults[0])}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The ten variables a production deployment sets, first in docs/configuration.md, each with why.
 * Every other variable has a default that fits.
 */
const THE_TEN = [
  ['DATABASE_URL', 'where the gateway keeps tasks, money and keys'],
  ['REDIS_URL', 'the job queues, rate limits and caches (with REDIS_CLUSTER for a cluster)'],
  ['DASHSCOPE_API_KEY', 'your Alibaba Cloud Model Studio key: videos and image edits'],
  [
    'ARK_API_KEY',
    'your Volcengine Ark key: Seedream images (or UPSTREAM_CHANNELS for several vendor accounts)',
  ],
  ['PUBLIC_BASE_URL', 'the address customers reach the API at: the links in task objects and callbacks'],
  ['MEDIA_SIGNING_SECRET', 'signs media links; required in production, the same on every process'],
  ['MEDIA_DRIVER', 'where kept videos go: `s3` for more than one machine'],
  ['SMTP_URL', 'sends verification and reset codes; without it they are only logged'],
  ['METRICS_TOKEN', 'lets Prometheus scrape /metrics'],
  ['TRUST_PROXY', 'behind a load balancer: which proxies to believe for the client address'],
];

const cell = (t) => String(t).replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The text of docs/configuration.md: the ten first, then every variable by the processes that read it. */
export function renderConfigurationDoc(vars) {
  const missing = THE_TEN.map(([name]) => name).filter((name) => !vars.has(name));
  if (missing.length)
    throw new Error(`the ten of docs/configuration.md name variables no schema has: ${missing.join(', ')}`);
  const lines = [
    '# Configuration',
    '',
    'Generated from the zod schemas by `pnpm env:example` (with `.env.example`); do not edit by hand.',
    'Every process reads its variables from the environment and from a `.env` file in the working',
    'directory (the environment wins). A process refuses to start on a missing or invalid variable and',
    'names every one at once.',
    '',
    '## The ten you will set',
    '',
    '| variable | why |',
    '|---|---|',
    ...THE_TEN.map(([name, why]) => `| \`${name}\` | ${why} |`),
    '',
    '## Every variable',
    '',
    'Grouped by the processes that read it. `pnpm start` runs everything on one machine with these',
    'defaults (and its own simulators, database and Redis).',
  ];
  for (const [key, group] of byProcesses(vars)) {
    lines.push('', `### ${key}`, '', '| variable | default | meaning |', '|---|---|---|');
    for (const v of group) {
      const d = defaultText(v.defaults[0]);
      lines.push(`| \`${v.name}\` | ${d ? `\`${cell(d)}\`` : ''} | ${cell(meaning(v))} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const vars = await collectVariables();
  const outputs = [
    [file, await renderEnvExample(vars)],
    [path.join(root, 'docs', 'configuration.md'), renderConfigurationDoc(vars)],
  ];
  if (process.argv.includes('--check')) {
    let failed = false;
    for (const [target, text] of outputs) {
      let current = '';
      try {
        current = readFileSync(target, 'utf8');
      } catch {}
      if (current === text) continue;
      failed = true;
      const names = (t) =>
        new Set([...t.matchAll(/^(?:# |\| `)([A-Z][A-Z0-9_]*)(?:=|` \|)/gm)].map((m) => m[1]));
      const want = names(text);
      const have = names(current);
      const missing = [...want].filter((n) => !have.has(n));
      const extra = [...have].filter((n) => !want.has(n));
      process.stderr.write(
        `${path.relative(root, target)} is out of date with the zod schemas${missing.length ? `; missing: ${missing.join(', ')}` : ''}${
          extra.length ? `; no longer in any schema: ${extra.join(', ')}` : ''
        }${missing.length || extra.length ? '' : ' (defaults or descriptions changed)'}. Run \`pnpm env:example\` and commit it.\n`,
      );
    }
    if (failed) process.exit(1);
  } else {
    for (const [target, text] of outputs) {
      writeFileSync(target, text);
      process.stderr.write(`wrote ${path.relative(process.cwd(), target) || target}\n`);
    }
  }
}
