import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The package's subpath exports (`@mediagate/shared/<name>`) and the source file each one builds from. */
const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; default: string }>;
};
const subpaths = Object.entries(pkg.exports)
  .filter(([key]) => key !== '.' && !key.endsWith('.json'))
  .map(([key, target]) => {
    const { types, default: js } = target as { types: string; default: string };
    return {
      name: key.slice(2),
      types,
      js,
      source: path.join(__dirname, js.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts')),
    };
  });

describe('package exports', () => {
  it('point every subpath at a source module, with its declarations beside its JavaScript', () => {
    for (const s of subpaths) {
      expect({ name: s.name, exists: existsSync(s.source) }).toEqual({ name: s.name, exists: true });
      expect(s.types).toBe(s.js.replace(/\.js$/, '.d.ts'));
    }
  });

  it('export every module folder that has an index', () => {
    const folders = readdirSync(__dirname, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(path.join(__dirname, e.name, 'index.ts')))
      .map((e) => e.name);
    expect(folders.filter((f) => !subpaths.some((s) => s.name === f))).toEqual([]);
  });

  it('have no root barrel: every import names its module', () => {
    expect(Object.keys(pkg.exports)).not.toContain('.');
    expect(existsSync(path.join(__dirname, 'index.ts'))).toBe(false);
  });
});
