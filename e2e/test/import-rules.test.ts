import { spawnSync } from 'node:child_process';
import path from 'node:path';

// The import rules of .dependency-cruiser.cjs (the module table of docs/architecture.md), run as
// `pnpm run deps:check` does: on the repository, which must pass, and on a fixture that breaks each
// rule on purpose, which must fail naming every rule it breaks.
const root = path.resolve(__dirname, '..', '..');
const cli = path.join(root, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
const config = path.join(root, '.dependency-cruiser.cjs');

function cruise(cwd: string, paths: string[]): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [cli, '--config', config, '--output-type', 'err', ...paths], {
    cwd,
    encoding: 'utf8',
    timeout: 110_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('import rules', () => {
  it('hold on the repository: no cycle, no import across the module table', () => {
    const { status, output } = cruise(root, ['apps', 'packages', 'bench', 'e2e']);
    expect(output).toMatch(/no dependency violations found/);
    expect(status).toBe(0);
  });

  it('fail on a fixture that breaks each rule, naming it', () => {
    const fixture = path.join(__dirname, 'fixtures', 'import-rules');
    const { status, output } = cruise(fixture, ['apps', 'packages']);
    expect(status).not.toBe(0);
    for (const rule of [
      'no-circular',
      'layer-billing',
      'layer-billing-siblings',
      'sql-leaves-are-leaves',
      'routes-import-no-route',
      'apps-use-public-faces',
    ]) {
      expect({ rule, found: new RegExp(`error ${rule}:`).test(output) }).toEqual({ rule, found: true });
    }
  });
});
