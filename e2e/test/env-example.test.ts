// .env.example lists every variable of every process, with its default and meaning, exactly as
// the zod schemas define them; `pnpm env:example` regenerates it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');

describe('.env.example', () => {
  it('matches the zod schemas of the api, the worker, the simulator and pnpm start', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/env-example.mjs'), '--check'], {
      cwd: root,
      encoding: 'utf8',
    });
    // The message names the variables that differ and says to run `pnpm env:example`.
    if (r.status !== 0) throw new Error(r.stderr || `exit ${r.status}`);
  });
});
