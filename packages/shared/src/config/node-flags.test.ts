import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NODE_FLAGS } from './node-flags';

const root = path.resolve(__dirname, '../../../..');

describe('NODE_FLAGS', () => {
  it('are what the image runs every process with', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/NODE_OPTIONS="([^"]*)"/);
    expect(runtime.match(/NODE_OPTIONS="([^"]*)"/)![1]!.split(' ')).toEqual(NODE_FLAGS);
  });

  it('are passed by pnpm start to every process it spawns', () => {
    const start = readFileSync(path.join(root, 'scripts/start.mjs'), 'utf8');
    expect(start).toContain("'packages/shared/dist/config/node-flags.js'");
    expect(start).toContain('spawn(process.execPath, [...nodeFlags, entry');
  });

  it('hold V8 to a 16 MB semi-space (32 MB of new space) while a process allocates hard', () => {
    const out = execFileSync(
      process.execPath,
      [
        ...NODE_FLAGS,
        '-e',
        "const a=[];for(let i=0;i<2e6;i++)a.push({i,s:'x'+i});process.stdout.write(String(require('v8').getHeapSpaceStatistics().find(s=>s.space_name==='new_space').space_size))",
      ],
      { encoding: 'utf8' },
    );
    expect(Number(out)).toBeLessThanOrEqual(32 * 1024 * 1024);
  });
});
