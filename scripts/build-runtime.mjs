// The runtime build of `pnpm start`: every TypeScript file of the packages that run is compiled
// to dist/ with swc (the compiler the tests run through), one file at a time, only the files whose
// source is newer than their output. It checks no types (`pnpm typecheck` does, and `pnpm build`
// builds with tsc, declarations included); it is what makes a cold start take seconds.
//
//   node scripts/build-runtime.mjs     builds and prints one line per package
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The packages the running service needs, in dependency order. */
export const RUNTIME_PACKAGES = [
  'packages/shared',
  'apps/upstream-sim',
  'apps/payment-sim',
  'apps/api',
  'apps/worker',
];

async function sources(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(p)));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts'))
      out.push(p);
  }
  return out;
}

const mtime = (p) =>
  stat(p).then(
    (s) => s.mtimeMs,
    () => -1,
  );

/**
 * Compiles `packages` (directories relative to the repository root). `log(line)` gets one line per
 * package. Returns the number of files compiled.
 */
export async function buildRuntime(log = () => {}, packages = RUNTIME_PACKAGES) {
  const swc = createRequire(path.join(root, 'packages/shared/package.json'))('@swc/core');
  let total = 0;
  for (const pkg of packages) {
    const t = Date.now();
    const dir = path.join(root, pkg);
    const { name } = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8'));
    const src = path.join(dir, 'src');
    const files = await sources(src);
    const stale = [];
    for (const file of files) {
      const out = path.join(dir, 'dist', path.relative(src, file)).replace(/\.ts$/, '.js');
      if ((await mtime(out)) < (await mtime(file))) stale.push([file, out]);
    }
    await Promise.all(
      stale.map(async ([file, out]) => {
        const result = await swc.transformFile(file, {
          swcrc: false,
          sourceMaps: true,
          jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
          module: { type: 'commonjs' },
        });
        await mkdir(path.dirname(out), { recursive: true });
        const map = `${path.basename(out)}.map`;
        await writeFile(out, `${result.code}\n//# sourceMappingURL=${map}\n`);
        if (result.map) await writeFile(`${out}.map`, result.map);
      }),
    );
    total += stale.length;
    log(
      stale.length === 0
        ? `build ${name}: up to date (${files.length} files)`
        : `build ${name}: ${stale.length} of ${files.length} files compiled in ${((Date.now() - t) / 1000).toFixed(1)} s`,
    );
  }
  return total;
}

async function newest(p) {
  const s = await stat(p).catch(() => null);
  if (!s) return -1;
  if (!s.isDirectory()) return s.mtimeMs;
  let latest = s.mtimeMs;
  for (const entry of await readdir(p)) latest = Math.max(latest, await newest(path.join(p, entry)));
  return latest;
}

/**
 * Builds the web console (apps/console, static files the API serves at /) with Vite when any of
 * its sources is newer than its built page; a few seconds when it runs at all.
 */
export async function buildConsole(log = () => {}) {
  const dir = path.join(root, 'apps/console');
  const t = Date.now();
  const inputs = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json'].map((f) =>
    path.join(dir, f),
  );
  const sourceTime = Math.max(...(await Promise.all(inputs.map(newest))));
  if ((await mtime(path.join(dir, 'dist', 'index.html'))) >= sourceTime) {
    log('build @mediagate/console: up to date');
    return false;
  }
  const { spawnSync } = await import('node:child_process');
  const vite = path.join(dir, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'error'], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('the console build (vite build in apps/console) failed');
  log(`build @mediagate/console: built in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildRuntime((line) => process.stderr.write(`${line}\n`));
  await buildConsole((line) => process.stderr.write(`${line}\n`));
}
