// `pnpm stop`: stops a running `pnpm start` of this checkout and the local Postgres and Redis that
// it started (the fallback when nothing answered at DATABASE_URL / REDIS_URL). Services it did not
// start are left alone.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { stopLocalServices } from './local-services.mjs';
import { dataDir } from './runtime-config.mjs';

const say = (msg) => process.stderr.write(`[stop] ${msg}\n`);
const pidFile = path.join(dataDir, 'start.pid');
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

if (existsSync(pidFile)) {
  const pid = Number(readFileSync(pidFile, 'utf8'));
  if (pid > 0 && alive(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 35_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    say(alive(pid) ? `pnpm start (pid ${pid}) did not stop within 35 s` : `stopped pnpm start (pid ${pid})`);
  }
  rmSync(pidFile, { force: true });
}
const stopped = stopLocalServices(say);
say(
  stopped.length
    ? `stopped ${stopped.join(' and ')}`
    : 'no local Postgres or Redis of this checkout is running',
);
