// `node bench/dist/profile-summary.js <dir>`: the functions with the most self time in each V8 CPU
// profile of a bench run (BENCH_CPU_PROF_DIR), grouped by package, to see where a scenario spends.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { codeOwner } from './code-owner';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const where = (url: string): string => codeOwner(url) ?? url;

const dir = process.argv[2] ?? '.';
for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    const n = byId.get(id);
    if (!n) return;
    total += dt;
    const fn = `${n.callFrame.functionName || '(anonymous)'} ${where(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    self.set(fn, (self.get(fn) ?? 0) + dt);
    const pkg = n.callFrame.functionName === '(idle)' ? '(idle)' : where(n.callFrame.url).split('/')[0]!;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + dt);
  });
  const pct = (v: number) => `${((100 * v) / total).toFixed(1)}%`;
  const top = (m: Map<string, number>, n: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n);
  process.stdout.write(`\n## ${file} (${(total / 1e6).toFixed(1)} s sampled)\n`);
  for (const [k, v] of top(byPackage, 8)) process.stdout.write(`  ${pct(v).padStart(6)}  ${k}\n`);
  process.stdout.write('  top functions (self time):\n');
  for (const [k, v] of top(self, 12)) process.stdout.write(`  ${pct(v).padStart(6)}  ${k}\n`);
}
