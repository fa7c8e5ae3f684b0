// `node bench/dist/perf-summary.js <perf.data>...`: where a process spends its CPU, from Linux perf's
// on-CPU samples (`perf record -g -p <pid>`). Run the bench with BENCH_NODE_ARGS=--perf-basic-prof
// so the gateway processes name their compiled JavaScript in /tmp/perf-<pid>.map. V8's own profile
// (BENCH_CPU_PROF_DIR) samples by wall clock: a process preempted inside a socket write shows there
// as time in `writev`; perf counts only the time the process held a core.
import { execFileSync } from 'node:child_process';
import { codeOwner } from './code-owner';

interface Frame {
  symbol: string;
  dso: string;
}

/** The stacks of `perf script`, leaf first. */
function stacks(file: string): Frame[][] {
  const text = execFileSync('perf', ['script', '-i', file], { maxBuffer: 1 << 30, encoding: 'utf8' });
  const out: Frame[][] = [];
  let current: Frame[] | null = null;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current) out.push(current);
      current = null;
    } else if (!/^\s/.test(line)) {
      current = [];
    } else {
      const m = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(line);
      if (m && current) current.push({ symbol: m[1]!, dso: m[2]! });
    }
  }
  if (current) out.push(current);
  return out;
}

/** Who a JavaScript frame belongs to (see codeOwner), or null for native code. */
const owner = (frame: Frame): string | null =>
  frame.symbol.startsWith('JS:') ? (codeOwner(frame.symbol) ?? '(other JavaScript)') : null;

const GC = /Heap::|Scavenge|MarkCompact|ConcurrentMarking|Sweeper|MinorMark|IncrementalMarking/;

function leafKind(frame: Frame | undefined): string {
  if (!frame) return '(none)';
  if (frame.dso.includes('kernel')) return 'kernel';
  if (frame.dso.includes('perf-')) return 'compiled JavaScript';
  if (/\/node$/.test(frame.dso)) return 'node and V8 (interpreter, builtins, runtime, GC)';
  return frame.dso.replace(/^.*\//, '');
}

function summarize(file: string): void {
  const all = stacks(file);
  const n = all.length;
  const kinds = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const add = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  for (const stack of all) {
    add(kinds, leafKind(stack[0]));
    if (stack.some((f) => GC.test(f.symbol))) {
      add(byOwner, '(garbage collection)');
      continue;
    }
    // a sample counts for the innermost JavaScript frame above it (native code it called included)
    const js = stack.find((f) => owner(f) !== null);
    if (!js) {
      add(
        byOwner,
        stack.some((f) => f.symbol.includes('uv_run')) ? '(event loop, no JavaScript)' : '(other threads)',
      );
      continue;
    }
    add(byOwner, owner(js)!);
    add(
      byFunction,
      js.symbol
        .replace(/^JS:\S?'?/, '')
        .replace(/\+0x[0-9a-f]+$/, '')
        .replace(/\/work\/\S*?node_modules\/\.pnpm\/[^/]+\/node_modules\//, ''),
    );
  }
  const pct = (v: number) => `${((100 * v) / Math.max(1, n)).toFixed(1)}%`.padStart(6);
  const top = (m: Map<string, number>, k: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, k);
  process.stdout.write(`\n## ${file}: ${n} samples\n  where the sampled instruction was:\n`);
  for (const [k, v] of top(kinds, 6)) process.stdout.write(`  ${pct(v)}  ${k}\n`);
  process.stdout.write('  by the innermost JavaScript frame (the native code it called included):\n');
  for (const [k, v] of top(byOwner, 16)) process.stdout.write(`  ${pct(v)}  ${k}\n`);
  process.stdout.write('  functions:\n');
  for (const [k, v] of top(byFunction, 15)) process.stdout.write(`  ${pct(v)}  ${k}\n`);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  process.stderr.write('usage: node bench/dist/perf-summary.js <perf.data>...\n');
  process.exit(2);
}
for (const f of files) summarize(f);
